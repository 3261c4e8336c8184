"""mini-swe-agent as a peer: its own agent class and config on our sandbox, tasks, limits and
verifier, so its numbers sit beside our presets' in one `compare`.

- The agent is mini-swe-agent's `DefaultAgent` with its `mini_textbased.yaml` config as
  shipped: its prompts, its one-command-per-answer format (a ```mswea_bash_command block), its
  step limit (none) and its limit of three format errors in a row. Its default `mini.yaml`
  asks for tool calls, which llama.cpp's server does not return for these models' chat
  templates: every answer would be a format error.
- Its model is its own `LitellmTextbasedModel` on the served model (`models serve`, started by
  `compare`), at temperature 0 as our presets ask; each call waits at most the agent's time
  left, and none starts once it is up (its retries — ten, a timeout each — kept a fixture
  trial of 120 s running for over 25 minutes on a slow server).
- Its environment is our sandbox behind its `Environment` interface: each command runs in the
  trial's sandbox, from the task's working folder, within the agent's time.
- Its trajectory is kept in the trial folder (`logs/agent/mini-swe-agent.traj.json`).
- A trial ends once the server is free: our server stops an answer its client gave up on at
  the end of the time, but reads a prompt it has begun to its end, and another llama.cpp
  server may compute the whole call; that time is not the next trial's (the wait is
  `model_busy_after_sec` in the trial's record).

It needs `pip install 'hillclimber[peers]'` (`bash scripts/install.sh dev` does it).
"""

from __future__ import annotations

import os
import platform
import time
from importlib import resources
from typing import Any, ClassVar

import yaml

from hillclimber import process
from hillclimber.agents.base import AgentOutcome, Ended
from hillclimber.context import AgentContext
from hillclimber.errors import AgentTimeout, HillclimberError, ModelUnavailable
from hillclimber.models import ModelConfig
from hillclimber.models.serve import wait_until_free

NAME = "mini-swe-agent"
CONFIG = "mini_textbased.yaml"
COMMAND_TIMEOUT_SEC = 30
"""Its local environment's default per command."""
ANSWER_TOKENS = 4096
"""The most an answer may hold. mini-swe-agent sets no limit and our served model has none: at
the 1.5B's full window (32,768) one answer that repeated itself ran on for the whole of a
trial's 900 s and then kept the server from the next two trials. 4,096 is what the 4,096-token
window allowed at most; at 32,768 its answers held 100 to 140 tokens on average and 1,406
characters at the longest, in the seven tg20 trials without such a runaway."""
SERVER_BUSY_WAIT_SEC = 3600
"""How long a trial's end waits for the server to finish what its calls left it: on a server
that computes a call given up on to its end (llama-cpp-python's own), an answer of
`ANSWER_TOKENS` and each of mini-swe-agent's retries of it, queued one after another."""
STEP_LIMIT: int | None = None
"""Its config's step limit (none, 0) unless set: only a test of the adapter sets one."""
SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
"""What its protocol prints to end the run (its `LocalEnvironment` checks the first line)."""
TRAJECTORY = "mini-swe-agent.traj.json"


def _import() -> Any:
    """mini-swe-agent's package, quiet at import (its banner; litellm's fetch of a price list
    from the internet)."""
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("MSWEA_COST_TRACKING", "ignore_errors")
    try:
        import litellm
        import minisweagent
    except ImportError as err:
        raise HillclimberError(
            "the mini-swe-agent peer needs its package: pip install 'hillclimber[peers]' "
            "(bash scripts/install.sh dev does it)"
        ) from err
    litellm.suppress_debug_info = True  # its "Provider List" on each price it cannot find
    return minisweagent


class MiniSweEnvironment:
    """Our sandbox behind mini-swe-agent's `Environment` interface."""

    def __init__(self, ctx: AgentContext, env: dict[str, str], timeout: int) -> None:
        self.ctx = ctx
        self.env = env
        self.timeout = timeout
        self.config = {"cwd": ctx.workdir, "env": env, "timeout": timeout}

    def execute(
        self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None
    ) -> dict[str, Any]:
        from minisweagent.exceptions import Submitted

        command = str(action.get("command", ""))
        seconds = timeout or self.timeout
        # its environment and folder as its own environment gives them, not as words before
        # the command: bash quotes a command it cannot parse, and the model read (and copied)
        # our exports
        result = self.ctx.run(command, timeout=seconds, cwd=cwd, env=self.env)
        output = result.stdout + result.stderr
        info = ""  # in its LocalEnvironment's words
        if result.timed_out:
            info = f"An error occurred while executing the command: timed out after {seconds}s"
        elif result.limit:
            info = f"An error occurred while executing the command: it {result.limit}"
        lines = output.lstrip().splitlines(keepends=True)
        if lines and lines[0].strip() == SUBMIT and result.exit_code == 0:
            submission = "".join(lines[1:])
            raise Submitted(
                {"role": "exit", "content": submission,
                 "extra": {"exit_status": "Submitted", "submission": submission}}
            )  # fmt: skip
        return {"output": output, "returncode": result.exit_code, "exception_info": info}

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**self.config, **platform.uname()._asdict(), **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {
            "info": {
                "config": {
                    "environment": self.config,
                    "environment_type": f"{__name__}.{type(self).__name__}",
                }
            }
        }


class MiniSweAgent:
    name = NAME

    def __init__(self, model: ModelConfig) -> None:
        kind, _, served = model.spec.partition(":")
        if kind not in ("openai", "llamacpp") or not served or not model.base_url:
            raise ModelUnavailable(
                f"{NAME} reaches its model over HTTP: give openai:NAME --base-url URL "
                f"(compare serves an embedded model itself; got '{model.spec}')"
            )
        self.model = model
        self.model_name = served

    def model_config(self, given: dict[str, Any]) -> dict[str, Any]:
        """Its model's settings (`given`: its config file's) on our served model, an answer at
        most `ANSWER_TOKENS` long. The HTTP client's own retries are off: each waits a whole
        call's timeout (the time left, with `within_time`), so its two retries by default ran a
        trial to three times its time; mini-swe-agent's retries stay, and `within_time` stops
        them once the time is up."""
        return {
            **given,
            "model_name": f"openai/{self.model_name}",
            "model_kwargs": {
                "api_base": self.model.base_url,
                "api_key": "none",
                "temperature": 0.0,
                "timeout": self.model.timeout_sec,
                "max_retries": 0,
                "max_tokens": ANSWER_TOKENS,
            },
            "cost_tracking": "ignore_errors",
        }

    def run(self, ctx: AgentContext) -> AgentOutcome:
        package = _import()
        from minisweagent.agents.default import DefaultAgent
        from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

        config = yaml.safe_load(resources.files(package).joinpath("config", CONFIG).read_text())
        agent_config = {**config["agent"], "output_path": ctx.log_dir / TRAJECTORY}
        agent_config["wall_time_limit_seconds"] = max(int(ctx.remaining()), 1)
        if STEP_LIMIT is not None:
            agent_config["step_limit"] = STEP_LIMIT
        model_config = self.model_config(config.get("model", {}))
        environment = MiniSweEnvironment(
            ctx, config.get("environment", {}).get("env", {}), COMMAND_TIMEOUT_SEC
        )
        model = within_time(LitellmTextbasedModel, ctx)(**model_config)
        agent = DefaultAgent(model, environment, **agent_config)
        outcome = _ran(agent, ctx.task.instruction)  # a Ctrl-C goes on at once, without waiting
        # a call given up on at the end is the server's until done: not the next trial's (a
        # stopping run has no next trial)
        if not process.stopping():
            waited = wait_until_free(str(self.model.base_url), SERVER_BUSY_WAIT_SEC)
            outcome.info["model_busy_after_sec"] = round(waited, 1)
        return outcome


def _ran(agent: Any, instruction: str) -> AgentOutcome:
    try:
        result = agent.run(instruction)
    except AgentTimeout:  # a command ran into the end of the agent's time
        return _outcome(agent, "TimeExceeded", timed_out=True)
    except Exception as err:  # its own uncaught-exception exit is in its trajectory
        return _outcome(agent, type(err).__name__, str(err))
    status = str(result.get("exit_status", ""))
    return _outcome(agent, status, timed_out=status == "TimeExceeded")


def within_time(model_class: Any, ctx: AgentContext) -> Any:
    """Its model class, each call given at most the agent's time left, none started once it is
    up (`AgentTimeout`), and none waited for once the run is stopping (`Stopped`); both also
    stop its retries (ten, with waits of up to a minute, on a server gone at a Ctrl-C). The
    seconds its calls took add up in `model_seconds`, as our presets' do."""

    class WithinTime(model_class):  # type: ignore[misc]
        abort_exceptions: ClassVar[list[type[Exception]]] = [
            *model_class.abort_exceptions,
            AgentTimeout,
            process.Stopped,
        ]
        model_seconds = 0.0

        def _query(self, messages: list[dict[str, str]], **kwargs: Any) -> Any:
            left = ctx.remaining()
            if left <= 0:
                raise AgentTimeout("the agent's time ran out before a model call")
            given = float(self.config.model_kwargs.get("timeout") or left)
            query, asked = super()._query, {**kwargs, "timeout": max(min(given, left), 1.0)}
            started = time.monotonic()
            try:
                return process.unless_stopped(lambda: query(messages, **asked))
            finally:
                self.model_seconds += time.monotonic() - started

    return WithinTime


def _outcome(agent: Any, status: str, error: str = "", *, timed_out: bool = False) -> AgentOutcome:
    seconds = agent.model.model_seconds  # its model is `within_time`'s, which adds them up
    return AgentOutcome(
        Ended(status, agent.n_calls, model_seconds=seconds),
        info=_info(agent, status, seconds, error),
        timed_out=timed_out,
    )


def _info(agent: Any, exit_status: str, model_seconds: float, error: str = "") -> dict[str, Any]:
    """What the runner records: its steps, tokens and how it ended."""
    usage = [
        m.get("extra", {}).get("response", {}).get("usage") or {}
        for m in agent.messages
        if isinstance(m.get("extra", {}).get("response"), dict)
    ]
    info: dict[str, Any] = {
        "agent": NAME,
        "loop_exit": exit_status,
        "turns": agent.n_calls,
        "model_calls": agent.n_calls,
        "prompt_tokens": sum(u.get("prompt_tokens") or 0 for u in usage),
        "completion_tokens": sum(u.get("completion_tokens") or 0 for u in usage),
        "model_seconds": round(model_seconds, 2),
        "trajectory": TRAJECTORY,
    }
    if error:
        info["error"] = error[:500]
    return info
