"""The suite runner: results on disk per trial, resume, and one trial's failure kept to itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hillclimber import process
from hillclimber.agents.base import AgentOutcome, Ended
from hillclimber.context import AgentContext
from hillclimber.loaders import load_dataset
from hillclimber.provenance import source_commit
from hillclimber.results import TrialResult, pass_at_k, read_trial
from hillclimber.runner import Run, RunEvents
from hillclimber.sandbox import SandboxKind
from hillclimber.task import (
    Environment,
    Limits,
    Task,
    TaskFormat,
    Verification,
    VerificationKind,
)
from hillclimber.trial import TrialSpec

from conftest import FIXTURES, ctrl_c_acts
from conftest import run_config as config


def inline_task(task_id: str, solution: str, check: str, **limits: float) -> Task:
    return Task(
        id=task_id,
        instruction=task_id,
        format=TaskFormat.MANIFEST,
        verification=Verification(kind=VerificationKind.CUSTOM, command=check),
        solution_inline=solution,
        limits=Limits(**limits),
    )


class Recorder:
    def __init__(self) -> None:
        self.started: list[str] = []
        self.skipped: list[str] = []

    def events(self) -> RunEvents:
        return RunEvents(
            on_start=lambda spec: self.started.append(spec.name),
            on_skip=lambda spec, result: self.skipped.append(spec.name),
        )


def test_a_run_leaves_config_summary_and_one_folder_per_trial(tmp_path: Path) -> None:
    tasks = load_dataset(FIXTURES / "tb2").tasks
    summary = Run(config(tasks, n_attempts=2), tasks, tmp_path).execute()
    assert summary.state == "finished"
    assert summary.totals.trials == summary.totals.finished == 6
    assert summary.totals.passed == 6 and summary.totals.pass_rate == 1.0
    assert summary.totals.pass_at_k == {1: 1.0, 2: 1.0}
    assert summary.totals.by_reason == {"passed": 6}
    assert set(summary.totals.mean_seconds) == {"setup", "agent", "verifier", "total"}
    assert json.loads((tmp_path / "config.json").read_text())["n_attempts"] == 2
    assert json.loads((tmp_path / "result.json").read_text())["state"] == "finished"
    trial = tmp_path / "fx-hello.2"
    result = read_trial(trial / "result.json")
    assert result is not None and result.passed and result.attempt == 2
    assert result.evaluation is not None and result.evaluation.total == 2
    assert result.commit == source_commit()  # which code ran it, where known
    assert (trial / "workspace" / "hello.txt").read_text() == "Hello, world!\n"
    assert (trial / "logs" / "verifier" / "output.txt").exists()
    assert (trial / "logs" / "verifier" / "reward.txt").read_text().strip() == "1"
    assert (trial / "logs" / "agent" / "oracle.log").exists()
    assert not (trial / "tmp").exists()


def test_resume_runs_only_unfinished_trials_and_redo_runs_all(tmp_path: Path) -> None:
    tasks = load_dataset(FIXTURES / "tb2").tasks
    Run(config(tasks), tasks, tmp_path).execute()
    (tmp_path / "fx-hello.1" / "result.json").unlink()
    recorder = Recorder()
    summary = Run(config(tasks), tasks, tmp_path).execute(recorder.events())
    assert recorder.started == ["fx-hello.1"]
    assert sorted(recorder.skipped) == ["fx-fix-script.1", "fx-sales-total.1"]
    assert summary.totals.finished == 3
    recorder = Recorder()
    Run(config(tasks), tasks, tmp_path, redo=True).execute(recorder.events())
    assert len(recorder.started) == 3 and not recorder.skipped


def test_a_run_may_run_some_of_its_tasks_at_a_time_in_a_given_order(tmp_path: Path) -> None:
    tasks = load_dataset(FIXTURES / "tb2").tasks
    ids = [task.id for task in tasks]
    recorder = Recorder()
    part = Run(config(tasks), tasks, tmp_path).execute(recorder.events(), only=ids[:0:-1])
    assert recorder.started == [f"{task}.1" for task in ids[:0:-1]]
    assert (part.state, part.totals.trials, part.totals.finished) == ("interrupted", 3, 2)
    recorder = Recorder()
    whole = Run(config(tasks), tasks, tmp_path).execute(recorder.events(), only=ids[:1])
    assert recorder.started == [f"{ids[0]}.1"] and not recorder.skipped
    assert (whole.state, whole.totals.finished) == ("finished", 3)


def test_retry_errors_runs_again_only_the_trials_that_ended_in_an_error(tmp_path: Path) -> None:
    tasks = load_dataset(FIXTURES / "tb2").tasks
    Run(config(tasks), tasks, tmp_path).execute()
    crashed = tmp_path / "fx-hello.1" / "result.json"
    record = json.loads(crashed.read_text())
    crashed.write_text(json.dumps({**record, "exit_reason": "error", "passed": False}))
    recorder = Recorder()
    Run(config(tasks), tasks, tmp_path).execute(recorder.events())
    assert recorder.started == [] and len(recorder.skipped) == 3
    recorder = Recorder()
    summary = Run(config(tasks), tasks, tmp_path, retry_errors=True).execute(recorder.events())
    assert recorder.started == ["fx-hello.1"]
    assert sorted(recorder.skipped) == ["fx-fix-script.1", "fx-sales-total.1"]
    assert summary.totals.passed == 3


def test_each_exit_reason_and_no_trial_loses_the_others(tmp_path: Path) -> None:
    context = tmp_path / "ctx"
    context.mkdir()
    (context / "Dockerfile").write_text("FROM debian\nRUN apt-get install -y hc-not-a-package\n")
    (tmp_path / "ctx2").mkdir()
    (tmp_path / "ctx2" / "Dockerfile").write_text("FROM debian\nWORKDIR /app\nRUN exit 7\n")
    good = inline_task("good", "echo ok > /app/ok", "test -f /app/ok")
    wrong = inline_task("wrong", "echo no > /app/other", "test -f /app/ok")
    slow = inline_task("slow", "sleep 30", "true", agent_timeout_sec=1)
    broken = Task(
        id="broken",
        instruction="x",
        format=TaskFormat.TB2,
        verification=Verification(
            kind=VerificationKind.TB2,
            script=tmp_path / "missing" / "test.sh",
            tests_dir=tmp_path / "missing",
        ),
        solution_inline="true",
    )
    unsupported = good.model_copy(
        update={
            "id": "unsupported",
            "environment": Environment(dockerfile=context / "Dockerfile", context=context),
        }
    )
    setup_error = good.model_copy(
        update={
            "id": "setup-error",
            "environment": Environment(
                dockerfile=tmp_path / "ctx2" / "Dockerfile", context=tmp_path / "ctx2"
            ),
        }
    )
    tasks = [good, wrong, slow, broken, unsupported, setup_error]
    summary = Run(config(tasks), tasks, tmp_path / "run").execute()
    reasons = {t: r[0] for t, r in summary.tasks.items()}
    assert reasons == {
        "good": "passed",
        "wrong": "failed",
        "slow": "passed",  # timed out, but the final verification is what scores it
        "broken": "error",
        "unsupported": "unsupported",
        "setup-error": "setup_error",
    }
    slow_result = read_trial(tmp_path / "run" / "slow.1" / "result.json")
    assert slow_result is not None and "time is up" in slow_result.message
    unsupported_result = read_trial(tmp_path / "run" / "unsupported.1" / "result.json")
    assert unsupported_result is not None and "hc-not-a-package" in unsupported_result.message
    setup_result = read_trial(tmp_path / "run" / "setup-error.1" / "result.json")
    assert setup_result is not None and "exit code 7" in setup_result.message
    assert (tmp_path / "run" / "broken.1" / "error.txt").exists()


def test_agent_timeout_is_the_reason_when_verification_then_fails(tmp_path: Path) -> None:
    task = inline_task(
        "late", "sleep 30; echo ok > /app/ok", "test -f /app/ok", agent_timeout_sec=1
    )
    summary = Run(config([task]), [task], tmp_path).execute()
    assert summary.tasks == {"late": ["agent_timeout"]}


def test_pass_at_k() -> None:
    assert pass_at_k(5, 0, 1) == 0.0
    assert pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)
    assert pass_at_k(4, 2, 4) == 1.0


def test_trial_names_and_folders() -> None:
    task = inline_task("a", "true", "true")
    spec = TrialSpec(task, 3, Path("/r"), "oracle", SandboxKind.LOCAL)
    assert spec.name == "a.3" and spec.trial_dir == Path("/r/a.3")


def _manifest(path: Path, n: int) -> Path:
    tasks = [
        {
            "id": f"t{i:02d}",
            "description": "write a file",
            "verification": {"type": "custom", "script": f"test -f /app/f{i}"},
            "solution": f"sleep 0.4; touch /app/f{i}",
        }
        for i in range(n)
    ]
    path.write_text(json.dumps({"name": "slow", "tasks": tasks}))
    return path


def _slow_bench(tmp_path: Path, concurrent: int) -> list[str]:
    """`hillclimber bench` over 12 slow manifest tasks, as a command line."""
    manifest = _manifest(tmp_path / "m.json", 12)
    return [
        sys.executable,
        "-m",
        "hillclimber",
        "bench",
        "--agent",
        "oracle",
        "--dataset",
        str(manifest),
        "--run-id",
        "r",
        "--runs-dir",
        str(tmp_path / "runs"),
        "-n",
        str(concurrent),
    ]


def _wait_for_trials(run_dir: Path, count: int) -> Path:
    deadline = time.monotonic() + 60
    while len(list(run_dir.glob("*/result.json"))) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return run_dir


@pytest.mark.slow
def test_a_killed_run_resumes_with_only_the_rest(tmp_path: Path) -> None:
    argv = _slow_bench(tmp_path, concurrent=1)
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    run_dir = _wait_for_trials(tmp_path / "runs" / "r", 3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished_before = {p.parent.name for p in run_dir.glob("*/result.json")}
    assert 3 <= len(finished_before) < 12
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    kept = {line.split()[2] for line in again.stdout.splitlines() if line.startswith("(kept)")}
    assert kept == finished_before
    summary = json.loads((run_dir / "result.json").read_text())
    assert summary["state"] == "finished"
    assert summary["totals"]["finished"] == summary["totals"]["passed"] == 12


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_interrupt_keeps_finished_trials_and_marks_the_run(
    tmp_path: Path, how: signal.Signals
) -> None:
    """Ctrl-C, or a plain `kill`, stops the run the same way: the trials under way unwind
    (what they set up is undone), the finished ones are kept, and the run says how to resume."""
    argv = _slow_bench(tmp_path, concurrent=2)
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_acts
    )
    run_dir = _wait_for_trials(tmp_path / "runs" / "r", 2)
    proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "resume with --run-id r" in err
    summary = json.loads((run_dir / "result.json").read_text())
    assert summary["state"] == "interrupted"
    finished = list(run_dir.glob("*/result.json"))
    assert summary["totals"]["finished"] == len(finished) >= 2


def test_a_task_without_tests_ends_unverified_not_as_an_error(tmp_path: Path) -> None:
    task = Task(id="run", instruction="Create hello.txt", format=TaskFormat.INLINE)
    summary = Run(config([task], agent="nop"), [task], tmp_path).execute()
    assert summary.tasks == {"run": ["unverified"]}
    result = read_trial(tmp_path / "run.1" / "result.json")
    assert result is not None and not result.passed and result.evaluation is None
    assert "no tests and no checks to check it" in result.message


class TestsPeeker:
    """An agent that runs the task's tests during its run, and says it only used its own
    checks: the record says `tests` all the same."""

    name = "peeker"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        assert ctx.verify is not None
        ctx.verify()
        return AgentOutcome(info={}, self_checked=True)


def _trial_of(agent: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TrialResult:
    """The result of one trial of a fixture task, run by `agent`."""
    import hillclimber.trial as trial

    monkeypatch.setattr(trial, "agent_maker", lambda *args: ((lambda config: agent), False))
    task = load_dataset(FIXTURES / "tb2").tasks[0]
    Run(config([task], agent="nop"), [task], tmp_path).execute()
    result = read_trial(tmp_path / f"{task.id}.1" / "result.json")
    assert result is not None
    return result


def test_feedback_is_tests_whenever_the_tests_ran_during_the_agents_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _trial_of(TestsPeeker(), tmp_path, monkeypatch).feedback == "tests"


class LimitHitter:
    """An agent one of whose commands hit a resource limit; its record (`info`) says nothing
    of it, as a peer's or a renamed key's would not."""

    name = "limit-hitter"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        return AgentOutcome(Ended("max_turns", 3, limit="ran out of memory"), info={})


def test_a_resource_limit_is_read_from_how_the_agent_ended_not_from_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _trial_of(LimitHitter(), tmp_path, monkeypatch)
    assert (
        result.exit_reason == "resource_limit" and result.message == "a command ran out of memory"
    )


class Asker:
    """An agent whose one model call waits for an answer that comes only when the test says."""

    name = "asker"

    def __init__(self) -> None:
        self.asking = threading.Event()
        self.answer = threading.Event()
        self.returned = threading.Event()

    def run(self, ctx: AgentContext) -> AgentOutcome:
        self.asking.set()
        self.answer.wait(60)
        self.returned.set()
        return AgentOutcome(info={})


def test_ctrl_c_does_not_wait_for_a_trial_in_a_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A served model is stopped only on the way out of the run, and only that ends a call
    waiting on it: the run must not wait for its trials before it goes (it did, for a whole
    answer, and longer with mini-swe-agent's retries). The trial leaves no result once its
    call ends, and runs again on resume."""
    import _thread

    import hillclimber.trial as trial

    asker = Asker()
    monkeypatch.setattr(trial, "agent_maker", lambda *args: ((lambda config: asker), False))
    # a Ctrl-C acts here even where the tests run as a background job, which ignores SIGINT
    # (there `interrupt_main` does nothing at all)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def ctrl_c_once_asking() -> None:
        asker.asking.wait(30)
        _thread.interrupt_main()

    threading.Thread(target=ctrl_c_once_asking).start()
    task = load_dataset(FIXTURES / "tb2").tasks[0]
    try:
        with pytest.raises(KeyboardInterrupt):
            Run(config([task], agent="nop"), [task], tmp_path).execute()
        assert not asker.returned.is_set()  # the run is out while the call still waits
        assert json.loads((tmp_path / "result.json").read_text())["state"] == "interrupted"
        asker.answer.set()
        assert asker.returned.wait(30)
        for thread in threading.enumerate():
            if thread.name.startswith("ThreadPoolExecutor"):
                thread.join(30)
        assert not (tmp_path / f"{task.id}.1" / "result.json").exists()
    finally:
        asker.answer.set()
        process.resume()
        signal.signal(signal.SIGINT, previous)
