"""A trial's session: the namespaces its commands share, held open from its first command until
the trial ends.

A trial is one session, as a container is: what a command starts in the background (`setsid
python server.py &`, `nohup … &`, a daemon that double-forks, nginx) runs on while later
commands, and the task's tests after the agent stops, talk to it. And nothing outlives the
trial: when the session closes, every process any of its commands started is gone.

One holder process per session keeps the namespaces open: `unshare` (root) makes a pid
namespace, an IPC namespace, a host name of its own, a network namespace of its own (only
loopback, or with a way out through slirp4netns when the task may use the network: `slirp.py`),
and a user namespace whose commands join it (`Users`: bwrap's has only root, the host's, as
bwrap's own has; a task image's has the ordinary users too, as a container's has). The
namespace back end's commands run as the host's root without capabilities: they join no user
namespace of the session's, whose owner, the host's root, holds every capability in it.

Its pid 1 is a small reaper (`reaper.py`): it reaps every process whose parent left (a double
fork ends there) and exits when the session closes its pipe, or when this process dies. Every
command enters these namespaces (bwrap's `--userns`/`--pidns`, `nsenter` for the rest) with a
mount namespace of its own as before, so a command may still see other folders (the verifier
sees /tests). A process cannot leave its pid namespace, and when its pid 1 exits the kernel
kills everything left in it: closing the session ends every process of the trial, the
double-forked, the `setsid` and the `disown`ed alike. Its cost: opening one, about a Python
start (once per trial); a command, one `nsenter` more.

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
import time
import weakref
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from hillclimber.errors import SandboxUnavailable
from hillclimber.sandbox.base import STANDARD_PATH
from hillclimber.sandbox.limits import remove_group
from hillclimber.sandbox.slirp import Slirp, slirp_binary, start_slirp

REAPER = Path(__file__).with_name("reaper.py")
"""pid 1 of every session, run as a script."""

GATE = 'read -r go && exec "$@"'
"""What the holder runs until its user namespace is mapped: the reaper is started after, so
that it is root there (a process started before the map has no capabilities in it)."""
CLOSE_WAIT_SEC = 10.0
"""How long the holder may take to go once its input ends (the kernel kills what is left in
its pid namespace as pid 1 exits) before it is killed."""


class Users(StrEnum):
    """Who is who in the session's user namespace."""

    NONE = "none"
    """No user namespace: the namespace back end's commands are the host's root, capless."""
    ROOT = "root"
    """Only root, the host's (bwrap's own mapping); no other user exists inside."""
    ALL = "all"
    """Users and groups 0–65535 as the host's, as in a container: `apt-get` drops to `_apt`,
    a service to its own user. Files it makes are the trial's own (in its layer)."""


@dataclass(frozen=True)
class Holder:
    """An open session: the holder's pid 1 as the host sees it, its user and pid namespaces
    open here (bwrap joins them by descriptor), and the resolv.conf of its own network."""

    pid: int
    user_fd: int | None
    pid_fd: int
    resolv_conf: Path | None = None

    def nsenter(self, *, pid: bool = False) -> list[str]:
        """The host command that puts what follows it in the session's network, IPC and host
        name namespaces (and its pid namespace, for a back end that is not bwrap)."""
        args = [_nsenter(), "-t", str(self.pid), "--net", "--ipc", "--uts"]
        return [*args, "--pid"] if pid else args

    @property
    def fds(self) -> tuple[int, ...]:
        """What every command is given: the namespaces bwrap joins."""
        return (self.pid_fd,) if self.user_fd is None else (self.user_fd, self.pid_fd)


@dataclass
class _Opened:
    """What an open session holds, for `_end`."""

    process: subprocess.Popen[bytes]
    holder: Holder
    slirp: Slirp | None = None
    groups: list[Path] = field(default_factory=list)


class Session:
    """The namespaces of one trial, opened at its first command and closed with the trial
    (`close`, or when the last sandbox sharing it is gone). Closed, it opens afresh if a
    command comes again."""

    def __init__(self, *, network: bool, users: Users, own_network: bool = True) -> None:
        self.network = network
        self.users = users
        self.own_network = not network or (own_network and slirp_binary() is not None)
        """A network namespace of the session's own: only loopback, or with slirp4netns when
        the task may use the network (else, for such a task, the host's)."""
        self._lock = threading.Lock()
        self._opened: _Opened | None = None
        self._finalizer: weakref.finalize[..., Session] | None = None

    @property
    def holder(self) -> Holder | None:
        """The open session's holder (None before the first command and after `close`)."""
        return self._opened.holder if self._opened is not None else None

    def open(self) -> Holder:
        with self._lock:
            if self._opened is None:
                self._opened = _start(self.network, self.users, self.own_network)
                self._finalizer = weakref.finalize(self, _end, self._opened)
            return self._opened.holder

    def keep(self, groups: list[Path]) -> None:
        """Control groups of a command whose processes run on: removed when the session
        ends."""
        with self._lock:
            if self._opened is not None:
                self._opened.groups.extend(groups)

    def close(self) -> None:
        """End every process of the session (and remove their control groups)."""
        with self._lock:
            finalizer, self._finalizer, self._opened = self._finalizer, None, None
            if finalizer is not None:
                finalizer()


def _end(opened: _Opened) -> None:
    """Close the holder's input: its pid 1 exits and the kernel kills the rest of the pid
    namespace; then the network's slirp4netns, and the control groups the commands left."""
    process = opened.process
    with contextlib.suppress(OSError):
        if process.stdin is not None:
            process.stdin.close()
    try:
        process.wait(timeout=CLOSE_WAIT_SEC)
    except subprocess.TimeoutExpired:
        process.kill()  # `--kill-child`: its pid 1 goes with it
        process.wait()
    for fd in opened.holder.fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    if opened.slirp is not None:
        opened.slirp.close()
    for group in opened.groups:
        remove_group(group)


def _start(network: bool, users: Users, own_network: bool) -> _Opened:
    args = [_unshare(), *([] if users is Users.NONE else ["--user"])]
    args += ["--pid", "--fork", "--kill-child", "--ipc", "--uts"]
    args += ["--net"] if own_network else []
    reaper = [sys.executable, "-I", "-S", str(REAPER), *([] if network else ["lo"])]
    process = subprocess.Popen(
        [*args, "--", "/bin/sh", "-c", GATE, "hc-session", *reaper],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": STANDARD_PATH},
        start_new_session=True,  # a Ctrl-C at the terminal is the runner's to handle
    )
    try:
        opened = _Opened(process, _hold(process, users))
        if network and own_network:
            opened.slirp = start_slirp(opened.holder.pid)
            opened.holder = replace(opened.holder, resolv_conf=opened.slirp.resolv_conf)
        return opened
    except BaseException:
        process.kill()
        process.wait()
        raise


def _hold(process: subprocess.Popen[bytes], users: Users) -> Holder:
    """Map the holder's users, let its pid 1 start, and open its namespaces."""
    assert process.stdin is not None and process.stdout is not None
    assert process.stderr is not None
    if users is not Users.NONE:
        _map_users(process.pid, users)
    with contextlib.suppress(OSError):
        process.stdin.write(b"go\n")
        process.stdin.flush()
    line = process.stdout.readline().decode().strip()
    process.stdout.close()
    if not line.isdigit():
        process.wait(timeout=CLOSE_WAIT_SEC)
        problem = process.stderr.read().decode(errors="replace").strip()
        raise SandboxUnavailable(f"could not open the trial's session: {problem or line}")
    pid = int(line)
    try:
        user_fd = None if users is Users.NONE else _open(f"/proc/{pid}/ns/user")
        return Holder(pid, user_fd, _open(f"/proc/{pid}/ns/pid"))
    except OSError as err:
        raise SandboxUnavailable(f"could not open the trial's session: {err}") from err


def _open(path: str) -> int:
    return os.open(path, os.O_RDONLY | os.O_CLOEXEC)


def _map_users(pid: int, users: Users) -> None:
    """Write the user namespace's maps once `unshare` has made it (as root: any map may be
    written; `unshare --map-users` would ask /etc/subuid)."""
    mine, deadline = os.readlink("/proc/self/ns/user"), time.monotonic() + CLOSE_WAIT_SEC
    try:
        while os.readlink(f"/proc/{pid}/ns/user") == mine:
            if time.monotonic() > deadline:
                raise SandboxUnavailable("the trial's session made no user namespace")
            time.sleep(0.001)
        count = 1 if users is Users.ROOT else 65536
        if users is Users.ROOT:  # as bwrap's own: no supplementary groups to change
            Path(f"/proc/{pid}/setgroups").write_text("deny")
        Path(f"/proc/{pid}/uid_map").write_text(f"0 0 {count}\n")
        Path(f"/proc/{pid}/gid_map").write_text(f"0 0 {count}\n")
    except OSError as err:
        raise SandboxUnavailable(f"could not map the trial's users: {err}") from err


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


def open_session(*, network: bool, users: Users, own_network: bool = True) -> Session | None:
    """A session for a new sandbox where one can be held here, else None."""
    if session_problem() is not None:
        return None
    return Session(network=network, users=users, own_network=own_network)


def _unshare() -> str:
    return shutil.which("unshare", path=STANDARD_PATH) or "unshare"


def _nsenter() -> str:
    return shutil.which("nsenter", path=STANDARD_PATH) or "nsenter"
