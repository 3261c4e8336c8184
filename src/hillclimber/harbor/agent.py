"""hillclimber's harness as a Harbor agent.

    harbor run -p TASKS -a hillclimber.harbor:HillclimberAgent -m local \\
        --ak preset=climber --ak feedback=self

The loop runs in a worker thread over `EnvironmentSandbox`, Harbor's own environment seen
through our sandbox API. Inside Harbor the task's tests arrive only after the agent stops, so
the feedback is `self` (the harness's acceptance checks, the default) or `none`; `tests` is
refused. Harbor's agent timeout cancels `run`: the sandbox is then stopped, so the loop ends at
its next command, file access or check, and what it did is kept: the trajectory is written
after every step, and the token counts are read back from it.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext as HarborContext

from hillclimber import __version__
from hillclimber.agents.base import AgentOutcome
from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.errors import AgentTimeout, HillclimberError
from hillclimber.harbor.sandbox import EnvironmentSandbox
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import load_harness
from hillclimber.models import ModelConfig, make_model
from hillclimber.task import Limits, Task, TaskFormat

_FEEDBACK = ("self", "none")
_HARBOR_TIMES = 24 * 3600.0
"""The agent's own deadline when none is given: Harbor times the run and cancels it."""
_STOP_WAIT_SEC = 5.0
"""How long a cancelled run waits for the loop to notice (a model call in flight finishes)."""


class HillclimberAgent(BaseAgent):  # type: ignore[misc]
    """Agent kwargs (`--ak KEY=VALUE`): `preset` (a preset or a settings file; climber),
    `feedback` (self or none), `set` (harness settings, `KEY=VALUE` comma-separated, as
    `--set`), `model` (our model spec; else Harbor's `-m`: `local`, `openai/NAME` …),
    `base_url`, `context_window`."""

    def __init__(
        self,
        logs_dir: Path,
        model_name: str | None = None,
        *,
        preset: str = "climber",
        feedback: str = "self",
        set: str | Sequence[str] | None = None,
        model: str | None = None,
        base_url: str | None = None,
        context_window: int | None = None,
        agent_timeout_sec: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(logs_dir=logs_dir, model_name=model_name, **kwargs)
        self.config = harness_config(preset, feedback, set)
        self.model_config = ModelConfig(
            spec=model or model_spec(model_name),
            base_url=base_url,
            context_window=int(context_window) if context_window else None,
        )
        self.agent_timeout_sec = agent_timeout_sec

    @classmethod
    def preflight(
        cls, kwargs: dict[str, Any] | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        """Refuse a wrong setting once, before any trial (an error while a trial is made would
        end Harbor's whole job with a traceback)."""
        super().preflight(kwargs, env)
        given = kwargs or {}
        try:
            harness_config(
                given.get("preset", "climber"), given.get("feedback", "self"), given.get("set")
            )
            if not given.get("model"):
                model_spec(given.get("model_name"))
        except HillclimberError as err:
            raise ValueError(str(err)) from None

    @staticmethod
    def name() -> str:
        return "hillclimber"

    def version(self) -> str | None:
        return __version__

    async def setup(self, environment: BaseEnvironment) -> None:
        """Nothing to install in the environment: the harness and the model run here."""

    async def run(
        self, instruction: str, environment: BaseEnvironment, context: HarborContext
    ) -> None:
        loop = asyncio.get_running_loop()
        sandbox = EnvironmentSandbox(environment, loop)
        workdir = await _workdir(environment)
        budget = self.agent_timeout_sec or _HARBOR_TIMES
        task = Task(
            id=_task_id(self.logs_dir),
            instruction=instruction,
            format=TaskFormat.INLINE,
            limits=Limits(agent_timeout_sec=budget),
        )
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        ctx = AgentContext(
            task,
            sandbox,
            time.monotonic() + budget,
            self.logs_dir,
            workdir,
            trial_name=self.logs_dir.parent.name,
        )
        worker = asyncio.ensure_future(asyncio.to_thread(self._run_loop, ctx))
        try:
            await asyncio.shield(worker)
        except asyncio.CancelledError:
            sandbox.stop()
            ctx.deadline = time.monotonic()
            with suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(worker), _STOP_WAIT_SEC)
            self._record(context, worker)
            raise
        self._record(context, worker)

    def _record(self, context: HarborContext, worker: asyncio.Future[AgentOutcome | None]) -> None:
        """Tokens and settings into Harbor's context, and the loop's record once it ended."""
        self.populate_context_post_run(context)
        ended = worker.done() and not worker.cancelled() and worker.exception() is None
        outcome = worker.result() if ended else None
        if outcome is not None:
            context.metadata = {**(context.metadata or {}), "hillclimber": outcome.info}

    def _run_loop(self, ctx: AgentContext) -> AgentOutcome | None:
        model = make_model(self.model_config)
        try:
            return HarnessAgent(model, self.config).run(ctx)
        except AgentTimeout:
            return None

    def populate_context_post_run(self, context: HarborContext) -> None:
        """Tokens from the trajectory, which is written after every step with its totals so
        far (so a run cut by Harbor's time limit still reports what it used)."""
        totals = _final_metrics(self.logs_dir / "trajectory.json")
        context.n_input_tokens = totals.get("total_prompt_tokens", 0)
        context.n_output_tokens = totals.get("total_completion_tokens", 0)
        context.n_cache_tokens = totals.get("total_cached_tokens", 0)
        context.metadata = {
            **(context.metadata or {}),
            "preset": self.config.preset,
            "feedback": self.config.feedback,
            "model": self.model_config.spec,
        }


def harness_config(preset: str, feedback: str, sets: str | Sequence[str] | None) -> HarnessConfig:
    """The setting from the agent's kwargs; only the feedback kinds Harbor allows."""
    if feedback not in _FEEDBACK:
        raise HillclimberError(
            f"hillclimber agent: feedback '{feedback}' — inside Harbor the tests arrive only "
            "after the agent stops: use self or none"
        )
    config = load_harness(preset, [*_as_list(sets), f"feedback={feedback}"])
    if config.tries.n > 1:
        raise HillclimberError(
            "hillclimber agent: tries.n — Harbor hands the agent one environment, and tries "
            "need a fresh one each: run several trials with Harbor's -k instead"
        )
    return config


def model_spec(model_name: str | None) -> str:
    """Our model spec for Harbor's `-m`: `local`, `local:NAME` and our own specs as they are;
    `PROVIDER/NAME` as `PROVIDER:NAME` (`openai/qwen` → `openai:qwen`); none → `local`."""
    if not model_name:
        return "local"
    if ":" in model_name.split("/", 1)[0] or "/" not in model_name:
        return model_name
    provider, name = model_name.split("/", 1)
    if provider in ("openai", "llamacpp", "ollama", "local"):
        return f"{provider}:{name}"
    raise HillclimberError(
        f"hillclimber agent: model '{model_name}' — use local, local:NAME, openai/NAME "
        "(with --ak base_url=…), llamacpp/NAME or ollama/NAME"
    )


def _as_list(sets: str | Sequence[str] | None) -> list[str]:
    if sets is None:
        return []
    if isinstance(sets, str):
        return [part.strip() for part in re.split(r",(?=[\w.]+=)", sets) if part.strip()]
    return list(sets)


async def _workdir(environment: BaseEnvironment) -> str:
    """Where the task's commands start (the image's WORKDIR), /app when it cannot be told."""
    with suppress(Exception):
        result = await environment.exec("pwd", timeout_sec=30)
        found = (result.stdout or "").strip().splitlines()
        if result.return_code == 0 and found and found[-1].startswith("/"):
            return found[-1]
    return "/app"


def _task_id(logs_dir: Path) -> str:
    """The trial's task, from Harbor's trial folder name (`<task>__<suffix>`)."""
    trial = logs_dir.parent.name or "task"
    return trial.split("__", 1)[0] or trial


def _final_metrics(path: Path) -> dict[str, int]:
    """The trajectory's totals (kept up to date after every step, so a cut run has them)."""
    try:
        metrics = json.loads(path.read_text()).get("final_metrics") or {}
    except (OSError, ValueError, AttributeError):
        return {}
    return {key: int(value) for key, value in metrics.items() if isinstance(value, int | float)}
