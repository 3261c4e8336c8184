"""A trial is a session: what the conformance list (`conformance/session.py`) asks of every kind,
and here what is the host sandboxes' own: their control groups go with the session, nothing
outlives the process that held it, the local sandbox (no session) ends each command's processes,
and a service the oracle starts is there for the task's tests. Every check of "nothing is left"
lists the host's processes in /proc."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hillclimber.sandbox import SandboxKind, create_sandbox, trial_layout
from hillclimber.sandbox.limits import group_folders
from hillclimber.task import TaskFormat
from hillclimber.trial import TrialSpec, run_trial

from conformance.host import gone_within, left_running, new_mark, running
from conformance.session import LEAVERS
from conftest import FIXTURES, REPO, require_sandbox, user_env

SESSION_KINDS = [SandboxKind.BWRAP, SandboxKind.NAMESPACE]
SERVICE = FIXTURES / "service" / "fx-kv-service"


def test_the_sessions_control_groups_go_with_it(tmp_path: Path) -> None:
    require_sandbox(SandboxKind.BWRAP)
    parents = group_folders()

    def ours() -> set[Path]:
        return {child for parent in parents for child in parent.glob("hc-*")}

    before = ours()
    with create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path)) as sandbox:
        sandbox.run("sleep 300 >/dev/null 2>&1 &", timeout=30)
        if parents:
            assert ours() - before, "the command's groups went while its process runs"
    deadline = time.monotonic() + 5  # another run's command on this machine has its own a while
    while (left := ours() - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == set()


_OWNER = """
import sys, time
from pathlib import Path
from hillclimber.sandbox import SandboxKind, create_sandbox, trial_layout
sandbox = create_sandbox(SandboxKind(sys.argv[1]), trial_layout(Path(sys.argv[2])))
sandbox.run("setsid sleep 300.%s >/dev/null 2>&1 < /dev/null &", timeout=30)
print("ready", flush=True)
time.sleep(300)
"""


@pytest.mark.parametrize("kind", SESSION_KINDS, ids=str)
def test_nothing_outlives_the_process_that_held_the_session(
    kind: SandboxKind, tmp_path: Path
) -> None:
    """A runner killed outright (SIGKILL: nothing of it runs after) takes its trials'
    processes with it."""
    require_sandbox(kind)
    mark = new_mark()
    env = user_env() | {"PYTHONPATH": str(REPO / "src")}
    owner = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_OWNER % mark), kind.value, str(tmp_path)],
        stdout=subprocess.PIPE,
        env=env,
    )
    assert owner.stdout is not None
    assert owner.stdout.readline().strip() == b"ready"
    assert running(mark)
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    assert gone_within(mark) == []


def test_the_local_sandbox_ends_each_commands_processes(tmp_path: Path) -> None:
    """It cannot tell the trial's processes from the host's (it holds no session: what the
    conformance list declares it cannot do): each command's processes end with it, whichever
    way it left them running."""
    marks = {name: new_mark() for name in LEAVERS}
    with create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path)) as sandbox:
        assert sandbox.session is None
        for name, command in LEAVERS.items():
            assert sandbox.run(command.format(mark=marks[name]), timeout=30).ok, name
        assert left_running(marks) == {}


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["oracle", "nop"])
def test_a_service_the_oracle_starts_is_there_for_the_tests_and_gone_after(
    agent: str, tmp_path: Path
) -> None:
    """The fixture's solution starts its service with `setsid … &`; the task's tests talk to
    it after the agent stopped. Untouched, the tests fail."""
    kind = SandboxKind.BWRAP
    require_sandbox(kind)
    from hillclimber.loaders.dataset import load_task

    task = load_task(SERVICE)
    assert task.format is TaskFormat.TB2
    result = run_trial(TrialSpec(task, 1, tmp_path, agent, kind))
    assert result.passed is (agent == "oracle"), result.message
    assert gone_within("kv.py 8731") == []
