"""mini-swe-agent as a peer (`agents/mini_swe.py`): its environment interface over our sandbox,
and the whole agent on a fixture task with the embedded model served to it (marked `model`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from hillclimber.agents import make_agent, mini_swe
from hillclimber.agents.mini_swe import ANSWER_TOKENS, SUBMIT, TRAJECTORY, MiniSweEnvironment
from hillclimber.compare import load_setting, plan, served
from hillclimber.context import AgentContext
from hillclimber.errors import AgentTimeout, HillclimberError, ModelUnavailable
from hillclimber.loaders import load_task
from hillclimber.models import ModelConfig, window_of
from hillclimber.results import read_trial

from conftest import FIXTURES, IN_CI, ctrl_c_acts, isolated_sandbox, missing, run_config
from openai_server import FakeServer, Reply

if IN_CI:  # CI installs the peers (the dev extra): a missing package is a failure there
    import minisweagent.exceptions as minisweagent
else:
    minisweagent = pytest.importorskip("minisweagent.exceptions")


def context(tmp_path: Path) -> AgentContext:
    sandbox, _ = isolated_sandbox(tmp_path)
    task = load_task(FIXTURES / "tb2" / "fx-hello")
    return AgentContext(task, sandbox, time.monotonic() + 60, tmp_path / "logs")


def test_its_commands_run_in_our_sandbox_from_the_tasks_folder(tmp_path: Path) -> None:
    env = MiniSweEnvironment(context(tmp_path), {"PAGER": "cat"}, timeout=5)
    out = env.execute({"command": "pwd; echo $PAGER; echo oops >&2; exit 3"})
    assert out == {"output": "/app\ncat\noops\n", "returncode": 3, "exception_info": ""}
    assert env.execute({"command": "pwd"}, cwd="/tmp")["output"] == "/tmp\n"
    slow = env.execute({"command": "sleep 3"}, timeout=1)
    assert "timed out after 1s" in slow["exception_info"]


def test_what_its_model_reads_of_a_command_is_the_command_alone(tmp_path: Path) -> None:
    """Its environment and folder are given as its own environment gives them, not written
    before the command: bash quotes a line it cannot parse, and the 1.5B, shown our exports
    that way, copied them as its next command, and again, to the end of its time."""
    env = MiniSweEnvironment(context(tmp_path), {"PAGER": "cat", "LESS": "-R"}, timeout=5)
    out = env.execute({"command": "<action>"})
    assert out["returncode"] == 2 and "<action>" in out["output"]
    assert "export" not in out["output"] and "PAGER" not in out["output"]
    assert "cd " not in env.execute({"command": "(("}, cwd="/tmp")["output"]
    assert env.execute({"command": "echo $LESS; pwd"}, cwd="/tmp")["output"] == "-R\n/tmp\n"


def test_its_submit_line_ends_the_run(tmp_path: Path) -> None:
    env = MiniSweEnvironment(context(tmp_path), {}, timeout=5)
    with pytest.raises(minisweagent.Submitted) as raised:
        env.execute({"command": f"echo {SUBMIT}; echo done"})
    assert raised.value.messages[0]["extra"]["submission"] == "done\n"
    assert env.execute({"command": f"echo {SUBMIT}; false"})["returncode"] == 1


def test_its_model_calls_keep_within_the_agents_time(tmp_path: Path) -> None:
    """No call starts once the agent's time is up, and that stops its retries too (ten, each
    waiting its timeout, kept a 120 s trial running for 25 minutes on a slow server)."""
    from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

    from hillclimber.agents.mini_swe import within_time

    sandbox, _ = isolated_sandbox(tmp_path)
    task = load_task(FIXTURES / "tb2" / "fx-hello")
    ctx = AgentContext(task, sandbox, time.monotonic() - 1, tmp_path / "logs")
    model = within_time(LitellmTextbasedModel, ctx)(
        model_name="openai/x", model_kwargs={"api_base": "http://127.0.0.1:9", "timeout": 300}
    )
    started = time.monotonic()
    with pytest.raises(AgentTimeout):
        model.query([{"role": "user", "content": "hi"}])
    assert time.monotonic() - started < 5  # not one retry waited


class _Silent(BaseHTTPRequestHandler):
    """A server that takes each request and never answers it."""

    HOLD_SEC = 20
    requests = 0
    bodies: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        type(self).requests += 1
        length = int(self.headers.get("Content-Length", 0))
        type(self).bodies.append(json.loads(self.rfile.read(length) or b"{}"))
        time.sleep(self.HOLD_SEC)

    def log_message(self, *args: object) -> None:
        pass


def test_a_call_that_never_comes_back_ends_at_the_agents_time_once(tmp_path: Path) -> None:
    """The HTTP client's own retries, each waiting the time left again, ran a trial to three
    times its time: its call is sent once, with an answer's length bounded, and the agent
    stops at its time."""
    from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

    from hillclimber.agents.mini_swe import MiniSweAgent, within_time

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Silent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1"
        agent = MiniSweAgent(ModelConfig(spec="openai:m", base_url=url))
        sandbox, _ = isolated_sandbox(tmp_path)
        task = load_task(FIXTURES / "tb2" / "fx-hello")
        ctx = AgentContext(task, sandbox, time.monotonic() + 2, tmp_path / "logs")
        model = within_time(LitellmTextbasedModel, ctx)(**agent.model_config({}))
        started = time.monotonic()
        with pytest.raises(AgentTimeout):
            model.query([{"role": "user", "content": "hi"}])
        # given up at the agent's 2 s (and one retry's pause), before the server's 20 s hold
        # was over: the bound is the hold, not a speed (10 s failed on a loaded machine)
        assert time.monotonic() - started < _Silent.HOLD_SEC
        assert _Silent.requests == 1
        # an answer has an end: at 32,768 tokens one that repeated itself took a whole trial
        assert _Silent.bodies[-1]["max_tokens"] == ANSWER_TOKENS == 4096
    finally:
        server.shutdown()


def test_a_call_in_flight_is_given_up_once_the_run_stops(tmp_path: Path) -> None:
    """At a Ctrl-C the run waited for its answer, then its retries went on against the
    stopped server for minutes (ten, with waits of up to a minute): the call is given up at
    once, and no retry is sent."""
    from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

    from hillclimber import process
    from hillclimber.agents.mini_swe import MiniSweAgent, within_time

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Silent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sent = _Silent.requests
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1"
        agent = MiniSweAgent(ModelConfig(spec="openai:m", base_url=url))
        model = within_time(LitellmTextbasedModel, context(tmp_path))(**agent.model_config({}))

        def stop_once_asked() -> None:
            while _Silent.requests == sent:
                time.sleep(0.05)
            process.stop_all()

        threading.Thread(target=stop_once_asked, daemon=True).start()
        with pytest.raises(process.Stopped):
            model.query([{"role": "user", "content": "hi"}])
        assert _Silent.requests == sent + 1
        with pytest.raises(process.Stopped):  # and none starts after
            model.query([{"role": "user", "content": "hi"}])
        assert _Silent.requests == sent + 1
    finally:
        process.resume()
        server.shutdown()


def test_ctrl_c_stops_a_run_whose_peer_waits_on_its_model(tmp_path: Path) -> None:
    """`bench` with mini-swe-agent on a server that never answers, stopped with Ctrl-C while
    its call waits: it goes at once (it waited for the call, the agent's 120 s here), keeps
    the run resumable and leaves no result for the trial it stopped."""
    with FakeServer() as server:
        server.script(Reply(hang=True))
        argv = [sys.executable, "-m", "hillclimber", "bench", "--agent", "mini-swe-agent",
                "--model", "openai:m", "--base-url", server.url, "--dataset",
                str(FIXTURES / "tb2"), "--tasks", "fx-hello", "--run-id", "r",
                "--runs-dir", str(tmp_path)]  # fmt: skip
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, preexec_fn=ctrl_c_acts)  # fmt: skip
        deadline = time.monotonic() + 120
        while not server.bodies() and time.monotonic() < deadline:
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
    assert proc.returncode == 130, err
    assert "resume with --run-id r" in err
    assert not list(tmp_path.glob("r/*/result.json"))
    assert len(server.bodies()) == 1


def _command(line: str) -> str:
    return f"THOUGHT: next.\n\n```mswea_bash_command\n{line}\n```"


def test_its_model_time_is_recorded_as_our_presets_is(tmp_path: Path) -> None:
    """The seconds its calls took add up, as the harness's do, so `show` gives a peer's model
    time a task beside ours: two answers, each held back half a second by the server."""
    from hillclimber.agents.mini_swe import MiniSweAgent

    with FakeServer() as server:
        server.script(
            Reply(text=_command("echo 'Hello, world!' > hello.txt"), delay=0.5),
            Reply(text=_command(f"echo {SUBMIT}"), delay=0.5),
        )
        agent = MiniSweAgent(ModelConfig(spec="openai:m", base_url=server.url))
        outcome = agent.run(context(tmp_path))
    assert outcome.info["loop_exit"] == "Submitted" and outcome.info["model_calls"] == 2
    assert outcome.ended.model_seconds >= 1.0  # the two answers' delays at least
    assert outcome.info["model_seconds"] == round(outcome.ended.model_seconds, 2)


def test_a_step_limit_set_ends_its_run_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its config as shipped has none; a test of the adapter may set one."""
    from hillclimber.agents.mini_swe import MiniSweAgent

    monkeypatch.setattr(mini_swe, "STEP_LIMIT", 1)
    with FakeServer() as server:
        server.script(Reply(text=_command("ls")), Reply(text=_command("ls")))
        agent = MiniSweAgent(ModelConfig(spec="openai:m", base_url=server.url))
        outcome = agent.run(context(tmp_path))
    assert outcome.info["loop_exit"] == "LimitsExceeded" and outcome.info["model_calls"] == 1


def test_it_reaches_its_model_over_http_only() -> None:
    with pytest.raises(ModelUnavailable, match="openai:NAME --base-url"):
        make_agent("mini-swe-agent", ModelConfig(spec="local"))
    assert make_agent("mini-swe-agent", ModelConfig(spec="openai:m", base_url="http://x/v1"))


@pytest.mark.model
def test_mini_swe_agent_runs_a_fixture_task_on_the_served_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole peer on the served 0.5B, for three of its steps, within twice the task's
    time. Its answers are held to 128 tokens here: its first on this task runs to the window's
    end (3,392 tokens, some 200 s on a quiet machine, over its 300 s call timeout on one three
    times slower), and the test is of the adapter and the server, not of the model."""
    monkeypatch.setattr(mini_swe, "ANSWER_TOKENS", 128)
    monkeypatch.setattr(mini_swe, "STEP_LIMIT", 3)
    task = load_task(FIXTURES / "tb2" / "fx-hello")
    base = run_config([task], agent="harness", model=ModelConfig(spec="local"), n_concurrent=1,
                      agent_timeout_multiplier=2.0)  # fmt: skip
    _, [run] = plan(base, [load_setting("mini-swe-agent")], [task], tmp_path / "cmp")
    try:
        with served(run) as job:
            assert job.config.model is not None and job.config.model.base_url
            assert job.config.model.context_window == window_of(ModelConfig(spec="local"))
            job.execute()
    except (ModelUnavailable, HillclimberError) as err:
        missing(f"the served model for the peer: {err}")
    [trial_dir] = [p.parent for p in (tmp_path / "cmp" / "mini-swe-agent").glob("*/result.json")]
    result = read_trial(trial_dir / "result.json")
    assert result.agent == "mini-swe-agent" and result.feedback == "none"
    assert result.evaluation is not None  # scored by the task's tests, as every trial is
    info = result.agent_info
    assert 1 <= info["model_calls"] <= 3 and info["prompt_tokens"] > 0, info
    assert info["model_busy_after_sec"] >= 0  # the server was free before the trial ended
    trajectory = json.loads((trial_dir / "logs" / "agent" / TRAJECTORY).read_text())
    assert trajectory["info"]["mini_version"] == "2.4.6"
    assert trajectory["messages"][0]["role"] == "system"
