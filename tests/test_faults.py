"""Faults injected into real runs (issue 14): a model server that dies, hangs or answers
nonsense, a model that raises, a verifier that hangs, a broken test script, malformed task
files, and a runner killed with -9.

Everything is real: the runner (in this process, or the command line), bwrap, the verifier,
the task fixtures (copied, then broken), and an HTTP server on 127.0.0.1 standing in for the
model's back end. Each fault must cost its own trial and no other, and a re-run with the same
run id must keep every finished trial as it is and run nothing twice.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hillclimber import __version__
from hillclimber.harness.presets import preset
from hillclimber.loaders import load_dataset, load_suite
from hillclimber.models import Completion, CompletionRequest, ModelConfig, ScriptedModel
from hillclimber.results import RunConfig, RunResult, TrialResult, read_trial
from hillclimber.runner import Run, RunEvents
from hillclimber.sandbox import SandboxKind

from conftest import FIXTURES, REPO, hc, require_sandbox
from openai_server import FakeServer, Reply

TB2 = FIXTURES / "tb2"
HELLO = TB2 / "fx-hello"
WRITE = json.dumps(
    {"name": "write_file", "arguments": {"path": "/app/hello.txt", "content": "Hello, world!\n"}}
)
DONE = json.dumps({"name": "task_complete", "arguments": {}})
SOLVE = (Reply(text=WRITE), Reply(text=DONE))
"""What solves a copy of fx-hello under `fm@tests`: the write, then done (its tests pass)."""
RETRIES = 3
"""Times the OpenAI-compatible back end asks again after a 5xx, a 429 or a lost connection."""
MODEL_TIMEOUT = 2.0
"""Seconds a model request may take in these runs (`ModelConfig.timeout_sec`)."""
LONG = 120
"""A generous bound on a whole run here: passing it proves only that nothing hung."""


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    require_sandbox(SandboxKind.BWRAP)


@pytest.fixture(autouse=True)
def _quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The back end's waits between retries cut short: the retries still happen."""
    monkeypatch.setattr("hillclimber.models.openai_compat.BACKOFF_SEC", (0.01,))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


# -- building runs -------------------------------------------------------------------------


def copies(root: Path, *names: str, source: Path = HELLO) -> Path:
    """A dataset folder holding a copy of the task `source` under each name."""
    for name in names:
        shutil.copytree(source, root / name)
    return root


def set_toml(task: Path, section: str, line: str) -> None:
    """Replace the `timeout_sec` line of `[section]` in the task's task.toml."""
    path = task / "task.toml"
    text = path.read_text()
    head, found, tail = text.partition(f"[{section}]\ntimeout_sec = ")
    assert found, f"no [{section}] timeout_sec in {path}"
    path.write_text(head + f"[{section}]\n{line}" + tail[tail.index("\n") :])


class Recorder:
    """Which trials a run started and which it kept."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.kept: list[str] = []

    def events(self) -> RunEvents:
        return RunEvents(
            on_start=lambda spec: self.started.append(spec.name),
            on_skip=lambda spec, result: self.kept.append(spec.name),
        )


def harness_run(dataset: Path, run_dir: Path, model: ModelConfig) -> Callable[..., RunResult]:
    """The harness (`fm`, the task's tests as feedback, one model call a turn) on `dataset`,
    one trial at a time so that the server's answers go to the trials in order; returns a
    function that executes it (again, for a re-run with the same run id)."""
    tasks = load_dataset(dataset).tasks
    config = RunConfig(
        run_id=run_dir.name,
        source=str(dataset),
        task_ids=[t.id for t in tasks],
        agent="harness",
        sandbox=SandboxKind.BWRAP.value,
        n_attempts=1,
        n_concurrent=1,
        model=model,
        harness=preset("fm", planner=False, probe_commands=False, feedback="tests"),
        hillclimber_version=__version__,
    )

    def execute(events: RunEvents | None = None) -> RunResult:
        return Run(config, tasks, run_dir).execute(events)

    return execute


def openai_model(url: str) -> ModelConfig:
    return ModelConfig(spec="openai:test-model", base_url=url, timeout_sec=MODEL_TIMEOUT)


def trial(run_dir: Path, name: str) -> TrialResult:
    result = read_trial(run_dir / name / "result.json")
    assert result is not None, f"{name} has no result"
    return result


def finished(run_dir: Path) -> dict[str, tuple[bytes, int]]:
    """Each finished trial's result.json: its bytes and its mtime."""
    return {
        path.parent.name: (path.read_bytes(), path.stat().st_mtime_ns)
        for path in run_dir.glob("*/result.json")
    }


def assert_rerun_keeps_everything(execute: Callable[..., RunResult], run_dir: Path) -> None:
    """A re-run with the same run id starts no trial and leaves every result as it was."""
    before = finished(run_dir)
    recorder = Recorder()
    summary = execute(recorder.events())
    assert recorder.started == []
    assert sorted(recorder.kept) == sorted(before)
    assert finished(run_dir) == before
    assert summary.state == "finished" and summary.totals.finished == len(before)


def bench(dataset: Path, runs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`hillclimber bench` on `dataset` in bwrap, run id `r`."""
    return hc(
        "bench", "--dataset", str(dataset), "--sandbox", "bwrap",
        "--run-id", "r", "--runs-dir", str(runs), *args,
    )  # fmt: skip


def kept_lines(stdout: str) -> set[str]:
    """The trials a `bench` run printed as kept from an earlier run."""
    return {line.split()[2] for line in stdout.splitlines() if line.startswith("(kept)")}


def assert_bench_rerun_keeps_everything(dataset: Path, runs: Path, *args: str) -> None:
    """The same `bench` again: every trial kept, not one result.json touched."""
    before = finished(runs / "r")
    again = bench(dataset, runs, *args)
    assert kept_lines(again.stdout) == set(before), again.stdout
    assert finished(runs / "r") == before
    assert json.loads((runs / "r" / "result.json").read_text())["state"] == "finished"


# -- 1. the OpenAI-compatible server -------------------------------------------------------


def one_bad_trial(tmp_path: Path, server: FakeServer, *fault: Reply) -> TrialResult:
    """Three copies of fx-hello, one at a time: the first and the last get the answers that
    solve them, the middle one gets `fault`. Checks that the fault cost the middle trial only
    (an `error` of its own, with its traceback kept) and that a re-run keeps all three without
    asking the server anything; returns the middle trial's result."""
    dataset = copies(tmp_path / "ds", "a-hello", "b-hello", "c-hello")
    server.script(*SOLVE, *fault, *SOLVE)
    run_dir = tmp_path / "runs" / "r"
    execute = harness_run(dataset, run_dir, openai_model(server.url))
    summary = execute()
    assert summary.state == "finished"
    assert summary.tasks == {"a-hello": ["passed"], "b-hello": ["error"], "c-hello": ["passed"]}
    assert server.count == 2 + len(fault) + 2
    bad = trial(run_dir, "b-hello.1")
    assert not bad.passed and bad.evaluation is None
    assert server.url in bad.message
    assert "Traceback" in (run_dir / "b-hello.1" / "error.txt").read_text()
    assert_rerun_keeps_everything(execute, run_dir)
    assert server.count == 2 + len(fault) + 2  # the re-run asked nothing
    return bad


@pytest.mark.slow
def test_server_answering_500(tmp_path: Path, server: FakeServer) -> None:
    """HTTP 500 on every retry: the trial ends `error` (BadResponse with the server's words);
    the trials before and after it pass."""
    bad = one_bad_trial(tmp_path, server, *[Reply(status=500, error="CUDA error")] * (RETRIES + 1))
    assert bad.message.startswith("BadResponse:") and "CUDA error" in bad.message


@pytest.mark.slow
def test_server_answering_429(tmp_path: Path, server: FakeServer) -> None:
    """HTTP 429 on every retry: the trial ends `error` (BadResponse), the others pass."""
    bad = one_bad_trial(
        tmp_path, server, *[Reply(status=429, error="rate limited")] * (RETRIES + 1)
    )
    assert bad.message.startswith("BadResponse:") and "rate limited" in bad.message


@pytest.mark.slow
def test_server_answering_garbage(tmp_path: Path, server: FakeServer) -> None:
    """A 200 whose body is a proxy's HTML page: `error` (BadResponse, not JSON) at once, not
    asked again; the others pass."""
    bad = one_bad_trial(tmp_path, server, Reply(raw="<html><body>502 Bad Gateway</body></html>"))
    assert bad.message.startswith("BadResponse:") and "not JSON" in bad.message


@pytest.mark.slow
def test_server_answering_truncated_json(tmp_path: Path, server: FakeServer) -> None:
    """A 200 whose whole body is half a JSON answer: `error` (BadResponse, not JSON)."""
    half = '{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "mess'
    bad = one_bad_trial(tmp_path, server, Reply(raw=half))
    assert bad.message.startswith("BadResponse:") and "not JSON" in bad.message


@pytest.mark.slow
def test_server_dying_halfway_through_its_answer(tmp_path: Path, server: FakeServer) -> None:
    """The answer announced whole, cut after 40 bytes and the connection closed, on every
    retry: `error` (ModelUnavailable); the others pass."""
    bad = one_bad_trial(tmp_path, server, *[Reply(text=WRITE, cut=40)] * (RETRIES + 1))
    assert bad.message.startswith("ModelUnavailable:")


@pytest.mark.slow
def test_server_closing_the_connection_without_an_answer(
    tmp_path: Path, server: FakeServer
) -> None:
    """The connection closed with no status line, on every retry: `error` (ModelUnavailable,
    it cannot be reached); the others pass."""
    bad = one_bad_trial(tmp_path, server, *[Reply(drop=True)] * (RETRIES + 1))
    assert bad.message.startswith("ModelUnavailable:") and "cannot reach" in bad.message


@pytest.mark.slow
def test_server_failing_three_times_then_answering(tmp_path: Path, server: FakeServer) -> None:
    """A lost connection, a 500 and a 429 in a row, then the answer: the retries absorb them
    and every trial passes; the faults cost nothing."""
    dataset = copies(tmp_path / "ds", "a-hello", "b-hello")
    faults = [Reply(drop=True), Reply(status=500, error="loading"), Reply(status=429)]
    server.script(*SOLVE, *faults, *SOLVE)
    summary = harness_run(dataset, tmp_path / "runs" / "r", openai_model(server.url))()
    assert summary.tasks == {"a-hello": ["passed"], "b-hello": ["passed"]}
    assert server.count == 2 + len(faults) + 2


@pytest.mark.slow
def test_server_hanging(tmp_path: Path, server: FakeServer) -> None:
    """A request accepted and never answered: the model's time limit ends it (ModelTimeout,
    not asked again), the trial ends `error`, and the next trial gets its answers."""
    start = time.monotonic()
    bad = one_bad_trial(tmp_path, server, Reply(hang=True))
    assert bad.message.startswith("ModelTimeout:") and "no answer in time" in bad.message
    assert time.monotonic() - start < LONG


@pytest.mark.slow
def test_server_hanging_past_the_agents_time(tmp_path: Path, server: FakeServer) -> None:
    """A request that hangs in a trial whose agent has 3 s, with a model time limit of 60 s:
    the agent's time ends the wait, not the model's limit. The trial ends `agent_timeout`
    (its work still verified) well before 60 s; the trials around it pass."""
    dataset = copies(tmp_path / "ds", "a-hello", "b-hello", "c-hello")
    set_toml(dataset / "b-hello", "agent", "timeout_sec = 3.0")
    server.script(*SOLVE, Reply(hang=True), *SOLVE)
    run_dir = tmp_path / "runs" / "r"
    model = ModelConfig(spec="openai:test-model", base_url=server.url, timeout_sec=60)
    start = time.monotonic()
    summary = harness_run(dataset, run_dir, model)()
    assert time.monotonic() - start < 45
    assert summary.tasks == {
        "a-hello": ["passed"],
        "b-hello": ["agent_timeout"],
        "c-hello": ["passed"],
    }
    late = trial(run_dir, "b-hello.1")
    assert late.evaluation is not None and late.evaluation.total == 2
    assert late.timings["agent"] < 30


def start_server_process(*replies: str) -> tuple[subprocess.Popen[str], str]:
    """tests/openai_server.py in a process of its own, to die (SIGKILL) after `replies`."""
    argv = [sys.executable, str(REPO / "tests" / "openai_server.py"), "--die"]
    for text in replies:
        argv += ["--reply", text]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}/v1"


@pytest.mark.slow
def test_server_killed_mid_run(tmp_path: Path) -> None:
    """The server process answers the first trial, and the second's first step, then is
    killed. The second trial ends `error` (ModelUnavailable) with the step it made kept in its
    trajectory and workspace; the third cannot reach the server either and says so at once;
    the first stays passed, the run finishes, and a re-run keeps all three."""
    proc, url = start_server_process(WRITE, DONE, WRITE)
    try:
        dataset = copies(tmp_path / "ds", "a-hello", "b-hello", "c-hello")
        run_dir = tmp_path / "runs" / "r"
        execute = harness_run(dataset, run_dir, openai_model(url))
        summary = execute()
        assert proc.wait(timeout=LONG) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
    assert summary.state == "finished"
    assert summary.tasks == {"a-hello": ["passed"], "b-hello": ["error"], "c-hello": ["error"]}
    for name in ("b-hello.1", "c-hello.1"):
        result = trial(run_dir, name)
        assert result.message.startswith("ModelUnavailable:") and "cannot reach" in result.message
    steps = json.loads((run_dir / "b-hello.1" / "logs" / "agent" / "trajectory.json").read_text())
    assert any("hello.txt" in json.dumps(step) for step in steps["steps"][1:])
    assert (run_dir / "b-hello.1" / "workspace" / "hello.txt").read_text() == "Hello, world!\n"
    assert_rerun_keeps_everything(execute, run_dir)


# -- 2. the model raising ------------------------------------------------------------------


@pytest.mark.slow
def test_model_raising_a_model_error(tmp_path: Path) -> None:
    """The scripted model stands for a back end that raises its own error mid-trial (the
    embedded model's ModelUnavailable): fx-hello is solved by the first two answers; a copy of
    fx-sales-total is not, asks a third time, and the model raises. That trial alone ends
    `error`, naming the error; the run finishes and a re-run keeps both."""
    dataset = copies(tmp_path / "ds", "a-hello")
    copies(dataset, "b-sales", source=TB2 / "fx-sales-total")
    script = tmp_path / "answers.jsonl"
    fault = {"raise": "unavailable", "message": "llama.cpp: failed to allocate the KV cache"}
    script.write_text("\n".join(json.dumps(answer) for answer in (WRITE, DONE, fault)))
    args = ["--model", f"scripted:{script}", "--preset", "fm@tests", "--set", "planner=false"]
    result = bench(dataset, tmp_path / "runs", *args)
    assert result.returncode == 0, result.stderr
    run_dir = tmp_path / "runs" / "r"
    summary = json.loads((run_dir / "result.json").read_text())
    assert summary["state"] == "finished"
    assert summary["tasks"] == {"a-hello": ["passed"], "b-sales": ["error"]}
    bad = trial(run_dir, "b-sales.1")
    assert bad.message == "ModelUnavailable: llama.cpp: failed to allocate the KV cache"
    assert_bench_rerun_keeps_everything(dataset, tmp_path / "runs", *args)


class CrashingModel(ScriptedModel):
    """A model object that answers its script, then raises what llama-cpp-python raises when
    its decoder fails: a bare RuntimeError, none of our model errors."""

    def complete(self, request: CompletionRequest) -> Completion:
        if self.remaining == 0:
            raise RuntimeError("llama_decode returned -3")
        return super().complete(request)


@pytest.mark.slow
def test_model_object_raising_a_bare_exception(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second trial's model writes the file, then raises RuntimeError: that trial ends
    `error` with the exception named and its traceback kept, its first step in its trajectory;
    the first trial passes, the run finishes, a re-run keeps both."""
    models = iter([ScriptedModel([WRITE, DONE]), CrashingModel([WRITE])])
    monkeypatch.setattr("hillclimber.agents.make_model", lambda config: next(models))
    dataset = copies(tmp_path / "ds", "a-hello", "b-hello")
    run_dir = tmp_path / "runs" / "r"
    unused = ModelConfig(spec=f"scripted:{tmp_path / 'no-such-file.json'}")  # never the real one
    execute = harness_run(dataset, run_dir, unused)
    summary = execute()
    assert summary.state == "finished"
    assert summary.tasks == {"a-hello": ["passed"], "b-hello": ["error"]}
    bad = trial(run_dir, "b-hello.1")
    assert bad.message == "RuntimeError: llama_decode returned -3"
    assert "llama_decode" in (run_dir / "b-hello.1" / "error.txt").read_text()
    steps = json.loads((run_dir / "b-hello.1" / "logs" / "agent" / "trajectory.json").read_text())
    assert any("hello.txt" in json.dumps(step) for step in steps["steps"][1:])
    assert_rerun_keeps_everything(execute, run_dir)


# -- 3 and 4. the verifier -----------------------------------------------------------------

SLEEP = "sleep 317"
"""The hanging test script's command, unique enough to look for among live processes."""


def processes_running(text: str) -> list[int]:
    """Pids of the live processes whose command line contains `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if text in argv:
                found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_verifier_hanging(tmp_path: Path) -> None:
    """A test script that sleeps past its task's 2 s verifier limit: that trial alone ends
    `verifier_timeout`, its sleeping processes killed; the other passes; a re-run keeps both."""
    dataset = copies(tmp_path / "ds", "good", "hangs")
    set_toml(dataset / "hangs", "verifier", "timeout_sec = 2.0")
    script = dataset / "hangs" / "tests" / "test.sh"
    script.write_text(script.read_text().replace("uvx \\", f"{SLEEP}\nuvx \\", 1))
    start = time.monotonic()
    result = bench(dataset, tmp_path / "runs", "--agent", "oracle")
    assert time.monotonic() - start < LONG
    assert result.returncode == 0, result.stderr
    summary = json.loads((tmp_path / "runs" / "r" / "result.json").read_text())
    assert summary["tasks"] == {"good": ["passed"], "hangs": ["verifier_timeout"]}
    hung = trial(tmp_path / "runs" / "r", "hangs.1")
    assert hung.evaluation is not None and hung.evaluation.timed_out
    assert hung.evaluation.digest == "verification timed out after 2s"
    assert processes_running(SLEEP) == []
    assert_bench_rerun_keeps_everything(dataset, tmp_path / "runs", "--agent", "oracle")


@pytest.fixture(scope="module")
def broken_script_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`bench --agent oracle` on fx-hello and a copy whose tests/test.sh has a syntax error
    (an `if` without `then`) before pytest is called; the run's folder."""
    root = tmp_path_factory.mktemp("broken-script")
    dataset = copies(root / "ds", "good", "broken")
    script = dataset / "broken" / "tests" / "test.sh"
    script.write_text(script.read_text().replace('"/" ]; then', '"/" ] (', 1))
    check = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert "syntax error" in check.stderr  # really broken
    result = bench(dataset, root / "runs", "--agent", "oracle")
    assert result.returncode == 0, result.stderr
    return root


@pytest.mark.slow
def test_test_sh_broken_costs_only_its_trial(broken_script_run: Path) -> None:
    """A test script with a syntax error fails its own trial only; the other passes, the run
    finishes, and a re-run keeps both untouched."""
    run_dir = broken_script_run / "runs" / "r"
    assert not trial(run_dir, "broken.1").passed
    assert trial(run_dir, "good.1").passed
    dataset = broken_script_run / "ds"
    assert_bench_rerun_keeps_everything(dataset, broken_script_run / "runs", "--agent", "oracle")


@pytest.mark.slow
def test_test_sh_broken_is_an_error_not_a_failure(broken_script_run: Path) -> None:
    """A test script that stops on a syntax error before any test ran has judged nothing:
    the trial is an `error` that names the syntax error, not a `failed` trial."""
    broken = trial(broken_script_run / "runs" / "r", "broken.1")
    assert broken.exit_reason == "error"
    assert "syntax error" in broken.message


# -- 4 and 5. task files that cannot be read -----------------------------------------------


def break_toml_value(task: Path) -> None:
    set_toml(task, "verifier", 'timeout_sec = "soon"')


def break_toml_syntax(task: Path) -> None:
    path = task / "task.toml"
    path.write_text(path.read_text().replace("[verifier]", "[verifier", 1))


def remove_instruction(task: Path) -> None:
    (task / "instruction.md").unlink()


def remove_test_sh(task: Path) -> None:
    (task / "tests" / "test.sh").unlink()


def break_dockerfile(task: Path) -> None:
    path = task / "environment" / "Dockerfile"
    path.write_text(path.read_text() + "RUNN echo typo\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fault", "names"),
    [
        (break_toml_value, ["bad/task.toml", "field 'verifier.timeout_sec'", "'soon'"]),
        (break_toml_syntax, ["bad/task.toml", "invalid TOML", "line 12"]),
        (remove_instruction, ["bad/instruction.md", "field 'instruction'", "file missing"]),
        (remove_test_sh, ["bad/tests/test.sh", "field 'tests'", "file missing"]),
        (break_dockerfile, ["bad/environment/Dockerfile", "'Dockerfile line 4'", "'RUNN'"]),
    ],
    ids=["task.toml-value", "task.toml-syntax", "instruction.md-missing", "test.sh-missing",
         "Dockerfile-syntax"],
)  # fmt: skip
def test_task_file_unreadable(
    tmp_path: Path, fault: Callable[[Path], None], names: list[str]
) -> None:
    """A task whose files cannot be read is reported before the run in one line that names
    the file and the field (no traceback), and is not run; the other task runs and passes,
    and the run says so with exit code 2."""
    dataset = copies(tmp_path / "ds", "bad", "good")
    fault(dataset / "bad")
    result = bench(dataset, tmp_path / "runs", "--agent", "oracle")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    about = [line for line in result.stderr.splitlines() if "bad/" in line]
    assert len(about) == 1, result.stderr
    assert about[0].startswith("invalid task: ")
    for name in names:
        assert name in about[0]
    summary = json.loads((tmp_path / "runs" / "r" / "result.json").read_text())
    assert summary["tasks"] == {"good": ["passed"]}
    assert summary["invalid_tasks"] == [about[0].removeprefix("invalid task: ")]
    assert not (tmp_path / "runs" / "r" / "bad.1").exists()


@pytest.mark.slow
def test_dockerfile_copying_a_missing_file(tmp_path: Path) -> None:
    """A Dockerfile that copies a file its build context lacks: the trial ends `setup_error`
    naming the Dockerfile's line, with no traceback, and the other task passes."""
    dataset = copies(tmp_path / "ds", "bad", "good")
    dockerfile = dataset / "bad" / "environment" / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + "COPY data.csv /app/data.csv\n")
    result = bench(dataset, tmp_path / "runs", "--agent", "oracle")
    summary = json.loads((tmp_path / "runs" / "r" / "result.json").read_text())
    assert summary["tasks"]["good"] == ["passed"]
    assert result.returncode == 0 and "Traceback" not in result.stderr
    bad = trial(tmp_path / "runs" / "r", "bad.1")
    assert bad.exit_reason == "setup_error"
    assert "Dockerfile line 4" in bad.message and "data.csv" in bad.message
    assert not (tmp_path / "runs" / "r" / "bad.1" / "error.txt").exists()


# -- 7. the runner killed with -9 ----------------------------------------------------------


def trial_folders(run_dir: Path) -> tuple[set[str], set[str]]:
    """(finished, in flight): trial folders with a result.json, and those still without."""
    folders = {p.name for p in run_dir.glob("*.*") if p.is_dir()}
    done = {p.parent.name for p in run_dir.glob("*/result.json")}
    return done, folders - done


def kill_when_some_finished_and_some_in_flight(proc: subprocess.Popen[str], run_dir: Path) -> None:
    """SIGKILL the runner itself (not its process group: as `kill -9 PID` or the OOM killer
    does) once at least one trial finished while others are running."""
    deadline = time.monotonic() + LONG
    while time.monotonic() < deadline and proc.poll() is None:
        done, running = trial_folders(run_dir)
        if done and running:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.01)
    proc.wait(timeout=LONG)


def wait_until_gone(text: str) -> list[int]:
    """The live processes whose command line holds `text`, after giving them time to die."""
    deadline = time.monotonic() + 10
    while (left := processes_running(text)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.slow
def test_runner_killed_with_sigkill(tmp_path: Path) -> None:
    """`bench --suite mini --agent oracle -n 4` killed with -9 while trials are in flight,
    then run again with the same run id: its sandboxes die with it, no trial that had finished
    is lost or run again (its result.json is byte for byte and mtime the same), the ones in
    flight run afresh, and every trial of the suite is finished and passed at the end."""
    runs = tmp_path / "runs"
    argv = ["bench", "--suite", "mini", "--agent", "oracle", "-n", "4", "--sandbox", "bwrap",
            "--run-id", "x", "--runs-dir", str(runs)]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "hillclimber", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    run_dir = runs / "x"
    try:
        kill_when_some_finished_and_some_in_flight(proc, run_dir)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert wait_until_gone(str(run_dir)) == []
    before = finished(run_dir)
    done, in_flight = trial_folders(run_dir)
    assert done == set(before) and done and in_flight, "killed before any finished or after all"
    assert json.loads((run_dir / "result.json").read_text())["state"] == "running"

    again = hc(*argv)
    assert again.returncode == 0, again.stderr
    assert kept_lines(again.stdout) == set(before)
    after = finished(run_dir)
    assert {name: after[name] for name in before} == before
    assert in_flight <= set(after)
    suite = len(load_suite("mini").tasks)
    summary = json.loads((run_dir / "result.json").read_text())
    assert summary["state"] == "finished"
    assert summary["totals"]["trials"] == summary["totals"]["finished"] == len(after) == suite
    assert summary["totals"]["passed"] == suite
