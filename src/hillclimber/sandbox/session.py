"""A trial's session: the namespaces its commands share, held open from its first command until
the trial ends.

A trial is one session, as a container is: what a command starts in the background (`setsid
python server.py &`, `nohup … &`, a daemon that double-forks, nginx) runs on while later
commands, and the task's tests after the agent stops, talk to it. And nothing outlives the
trial: when the session closes, every process any of its commands started is gone.

One holder process per session keeps the namespaces open: `unshare` (root) makes a pid
namespace, an IPC namespace, a host name of its own, a network namespace with only loopback
unless the task asks for the network, and for bwrap a user namespace (its root is the host's, as
bwrap's own is) whose commands join it. (The namespace back end's commands run as the host's
root without capabilities: they join no user namespace of the session's, whose owner, the
host's root, holds every capability in it.) Its pid 1 is a small reaper (`reaper.py`): it
reaps every process whose parent left (a double fork ends there) and exits when the session
closes its pipe, or when this process dies. Every command enters these namespaces (bwrap's
`--userns`/`--pidns`, `nsenter` for the rest) with a mount namespace of its own as before, so
a command may still see other folders (the verifier sees /tests). A process cannot leave its
pid namespace, and when its pid 1 exits the kernel kills everything left in it: closing the
session ends every process of the trial, the double-forked, the `setsid` and the `disown`ed
alike. Its cost: opening one, about a Python start (once per trial); a command, one `nsenter`
more.

Entering namespaces needs root; where this process is not root, a sandbox holds no session
and each command's processes end with it (`open_session` says why).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

from hillclimber.errors import SandboxUnavailable
from hillclimber.sandbox.base import STANDARD_PATH
from hillclimber.sandbox.limits import remove_group

REAPER = Path(__file__).with_name("reaper.py")
"""pid 1 of every session, run as a script."""

CLOSE_WAIT_SEC = 10.0
"""How long the holder may take to go once its input ends (the kernel kills what is left in
its pid namespace as pid 1 exits) before it is killed."""


@dataclass(frozen=True)
class Holder:
    """An open session: the holder's pid 1 as the host sees it, and its user and pid
    namespaces open here (bwrap joins them by descriptor)."""

    pid: int
    user_fd: int | None
    pid_fd: int

    def nsenter(self, *, pid: bool = False) -> list[str]:
        """The host command that puts what follows it in the session's network, IPC and host
        name namespaces (and its pid namespace, for a back end that is not bwrap)."""
        args = [_nsenter(), "-t", str(self.pid), "--net", "--ipc", "--uts"]
        return [*args, "--pid"] if pid else args

    @property
    def fds(self) -> tuple[int, ...]:
        """What every command is given: the namespaces bwrap joins."""
        return (self.pid_fd,) if self.user_fd is None else (self.user_fd, self.pid_fd)


class Session:
    """The namespaces of one trial, opened at its first command and closed with the trial
    (`close`, or when the last sandbox sharing it is gone). Closed, it opens afresh if a
    command comes again."""

    def __init__(self, *, network: bool, user: bool) -> None:
        self.network = network
        self.user = user
        """A user namespace of the session's own, for commands that join it (bwrap's)."""
        self._lock = threading.Lock()
        self._holder: Holder | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._groups: list[Path] = []
        self._finalizer: weakref.finalize[..., Session] | None = None

    @property
    def holder(self) -> Holder | None:
        """The open session's holder (None before the first command and after `close`)."""
        return self._holder

    def open(self) -> Holder:
        with self._lock:
            if self._holder is None:
                self._process, self._holder = _start_holder(self.network, self.user)
                self._finalizer = weakref.finalize(
                    self, _end, self._process, self._holder, self._groups
                )
            return self._holder

    def keep(self, groups: list[Path]) -> None:
        """Control groups of a command whose processes run on: removed when the session
        ends."""
        with self._lock:
            self._groups.extend(groups)

    def close(self) -> None:
        """End every process of the session (and remove their control groups)."""
        with self._lock:
            finalizer, self._finalizer = self._finalizer, None
            self._holder = self._process = None
            if finalizer is not None:
                finalizer()
            self._groups = []


def _end(process: subprocess.Popen[bytes], holder: Holder, groups: list[Path]) -> None:
    """Close the holder's input: its pid 1 exits and the kernel kills the rest of the pid
    namespace; then remove the control groups the session's commands left."""
    with contextlib.suppress(OSError):
        if process.stdin is not None:
            process.stdin.close()
    try:
        process.wait(timeout=CLOSE_WAIT_SEC)
    except subprocess.TimeoutExpired:
        process.kill()  # `--kill-child`: its pid 1 goes with it
        process.wait()
    for fd in holder.fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    for group in groups:
        remove_group(group)


def _start_holder(network: bool, user: bool) -> tuple[subprocess.Popen[bytes], Holder]:
    args = [_unshare(), *(["--user", "--map-root-user"] if user else [])]
    args += ["--pid", "--fork", "--kill-child", "--ipc", "--uts"]
    args += [] if network else ["--net"]
    argv = [*args, "--", sys.executable, "-I", "-S", str(REAPER), *([] if network else ["lo"])]
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": STANDARD_PATH},
        start_new_session=True,  # a Ctrl-C at the terminal is the runner's to handle
    )
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline().decode().strip()
    process.stdout.close()
    if not line.isdigit():
        problem = process.stderr.read().decode(errors="replace").strip() if process.poll() else ""
        with contextlib.suppress(OSError):
            process.kill()
        process.wait()
        raise SandboxUnavailable(f"could not open the trial's session: {problem or line}")
    pid = int(line)
    try:
        user_fd = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC) if user else None
        pid_fd = os.open(f"/proc/{pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as err:
        process.kill()
        process.wait()
        raise SandboxUnavailable(f"could not open the trial's session: {err}") from err
    return process, Holder(pid, user_fd, pid_fd)


@functools.cache
def session_problem() -> str | None:
    """None when sessions can be held here, else why not."""
    if os.geteuid() != 0:
        return "holding a trial's processes between commands needs root"
    if shutil.which("unshare", path=STANDARD_PATH) is None:
        return "unshare (util-linux) is not installed"
    if shutil.which("nsenter", path=STANDARD_PATH) is None:
        return "nsenter (util-linux) is not installed"
    return None


def open_session(*, network: bool, user: bool) -> Session | None:
    """A session for a new sandbox where one can be held here, else None."""
    return Session(network=network, user=user) if session_problem() is None else None


def _unshare() -> str:
    return shutil.which("unshare", path=STANDARD_PATH) or "unshare"


def _nsenter() -> str:
    return shutil.which("nsenter", path=STANDARD_PATH) or "nsenter"
