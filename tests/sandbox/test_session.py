"""A trial is a session: what a command leaves running in the background serves later commands
and the verifier, and nothing of it outlives the sandbox's `close` (nor the process that held
it). Every check of "nothing is left" lists the host's processes in /proc."""

from __future__ import annotations

import os
import secrets
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

from conftest import FIXTURES, REPO, require_sandbox, user_env

SESSION_KINDS = [SandboxKind.BWRAP, SandboxKind.NAMESPACE]
SERVICE = FIXTURES / "service" / "fx-kv-service"


def running(mark: str) -> list[str]:
    """The host's live processes with `mark` in their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if state not in ("Z", "X") and mark.encode() in cmdline:
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def gone_within(mark: str, seconds: float = 5.0) -> list[str]:
    """What is still running with `mark` after waiting up to `seconds` for it to go."""
    deadline = time.monotonic() + seconds
    while (left := running(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def new_mark() -> str:
    return str(secrets.randbelow(10**8) + 10**8)


SERVE = (
    'setsid python3 -c "import http.server as h; '
    "h.HTTPServer(('127.0.0.1', {port}), h.SimpleHTTPRequestHandler).serve_forever()\" "
    "{mark} >/dev/null 2>&1 < /dev/null &"
)
FETCH = (
    'python3 -c "import urllib.request as u; '
    "print(u.urlopen('http://127.0.0.1:{port}/', timeout=5).status)\""
)


@pytest.mark.parametrize("kind", SESSION_KINDS, ids=str)
def test_a_server_left_running_answers_later_commands_until_the_sandbox_closes(
    kind: SandboxKind, tmp_path: Path
) -> None:
    require_sandbox(kind)
    mark, port = new_mark(), 8000 + secrets.randbelow(1000)
    with create_sandbox(kind, trial_layout(tmp_path)) as sandbox:
        assert sandbox.run(SERVE.format(port=port, mark=mark) + " sleep 1", timeout=30).ok
        answered = sandbox.run(FETCH.format(port=port), timeout=30)
        assert answered.stdout.strip() == "200", answered.output
        assert running(mark), "the server ended with the command that started it"
    assert gone_within(mark) == []


LEAVERS = {
    "background job": "sleep 300.{mark} >/dev/null 2>&1 &",
    "nohup": "nohup sleep 300.{mark} >/dev/null 2>&1 &",
    "setsid": "setsid sleep 300.{mark} >/dev/null 2>&1 < /dev/null &",
    "setsid --fork": "setsid -f sleep 300.{mark} >/dev/null 2>&1 < /dev/null",
    "disown": "sleep 300.{mark} >/dev/null 2>&1 & disown",
    "double fork": "( ( exec sleep 300.{mark} ) & ) >/dev/null 2>&1",
    "signals ignored": "(trap '' HUP TERM INT; exec sleep 300.{mark}) >/dev/null 2>&1 &",
    "python daemon": (
        'python3 -c "import os, subprocess\n'
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.chdir('/'); os.umask(0)\n"
        "        subprocess.Popen(['sleep', '300.{mark}'], stdout=subprocess.DEVNULL,"
        " stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)\n"
        '    os._exit(0)" '
    ),
}


@pytest.mark.parametrize("kind", SESSION_KINDS, ids=str)
def test_every_way_of_leaving_a_process_running_ends_with_the_session(
    kind: SandboxKind, tmp_path: Path
) -> None:
    require_sandbox(kind)
    marks = {name: new_mark() for name in LEAVERS}
    with create_sandbox(kind, trial_layout(tmp_path)) as sandbox:
        for name, command in LEAVERS.items():
            result = sandbox.run(command.format(mark=marks[name]), timeout=30)
            assert result.ok and result.duration_sec < 10, (name, result.output)
        time.sleep(0.3)
        alive = {name for name, mark in marks.items() if running(mark)}
        assert alive == set(LEAVERS), "these did not outlive their command"
        listed = sandbox.run("ps -eo args", timeout=30).stdout
        assert all(mark in listed for mark in marks.values()), listed
    left = {name: gone_within(mark) for name, mark in marks.items()}
    assert {name: procs for name, procs in left.items() if procs} == {}


@pytest.mark.parametrize("kind", SESSION_KINDS, ids=str)
def test_killing_everything_inside_leaves_the_session_standing(
    kind: SandboxKind, tmp_path: Path
) -> None:
    """pid 1 of the session cannot be killed from inside (as a container's init): a `kill -9
    -1` ends the trial's processes, not the trial."""
    require_sandbox(kind)
    mark = new_mark()
    with create_sandbox(kind, trial_layout(tmp_path)) as sandbox:
        sandbox.run(f"setsid sleep 300.{mark} >/dev/null 2>&1 < /dev/null &", timeout=30)
        sandbox.run("kill -9 -1; kill -KILL 1; kill -INT 1; kill -TERM 1", timeout=30)
        assert gone_within(mark) == []
        later = sandbox.run(
            f"setsid sleep 300.{mark} >/dev/null 2>&1 < /dev/null & echo on", timeout=30
        )
        assert later.stdout == "on\n" and running(mark)
    assert gone_within(mark) == []


def test_output_held_open_by_a_process_left_running_does_not_hold_the_command(
    tmp_path: Path,
) -> None:
    """`server &` with its output on the command's pipe: the command returns when its shell
    does, with what it printed; what the server prints later is drained, not kept."""
    require_sandbox(SandboxKind.BWRAP)
    with create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path)) as sandbox:
        command = "(while true; do echo tick; sleep 0.2; done) & echo started"
        result = sandbox.run(command, timeout=30)
        assert result.ok and result.duration_sec < 3, result
        assert "started" in result.stdout
        assert sandbox.run("echo next", timeout=30).stdout == "next\n"


def test_a_command_that_times_out_is_ended_whole_in_a_session(tmp_path: Path) -> None:
    """Its time limit ends what it started, `setsid` children too (its control groups),
    not what earlier commands left running."""
    require_sandbox(SandboxKind.BWRAP)
    earlier, timed = new_mark(), new_mark()
    with create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path)) as sandbox:
        sandbox.run(f"setsid sleep 300.{earlier} >/dev/null 2>&1 < /dev/null &", timeout=30)
        command = f"setsid sleep 300.{timed} >/dev/null 2>&1 < /dev/null & sleep 30"
        assert sandbox.run(command, timeout=1).timed_out
        if group_folders():
            assert gone_within(timed) == []
        assert running(earlier)
    assert gone_within(earlier) == [] and gone_within(timed) == []


@pytest.mark.parametrize("kind", SESSION_KINDS, ids=str)
def test_a_look_of_the_harness_leaves_nothing_running(kind: SandboxKind, tmp_path: Path) -> None:
    """A check, or a program run to compare tries, may not `linger`: what it starts ends with
    it, so the tests find only what the agent left running."""
    require_sandbox(kind)
    agents, harness = new_mark(), new_mark()
    with create_sandbox(kind, trial_layout(tmp_path)) as sandbox:
        sandbox.run(f"setsid sleep 300.{agents} >/dev/null 2>&1 < /dev/null &", timeout=30)
        looked = sandbox.run(
            f"setsid sleep 300.{harness} >/dev/null 2>&1 < /dev/null &", timeout=30, linger=False
        )
        assert looked.ok
        assert gone_within(harness) == []
        assert running(agents)
    assert gone_within(agents) == []


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
    """It cannot tell the trial's processes from the host's: each command's process group
    ends with it, so a server left running is gone at the next command."""
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    assert sandbox.session is None
    mark = new_mark()
    sandbox.run(f"sleep 300.{mark} >/dev/null 2>&1 &", timeout=30)
    assert gone_within(mark) == []


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
