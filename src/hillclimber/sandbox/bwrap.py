"""bubblewrap: system folders read-only, the trial's folders bound in, no network by default.

In a session (`session.py`) each command joins the trial's user and pid namespaces (bwrap's
`--userns`, `--pidns`) and its network, IPC and host name (`nsenter`), with a mount namespace of
its own; without one, it gets every namespace of its own and ends with its processes.

Started by root, bwrap's user namespace maps the sandbox's root to the host's: so the command
runs without capabilities (no remount of the read-only folders, no mount of cgroupfs to lift its
limits), /proc/sys is read-only (the kernel's settings are the host's) and /etc/shadow and
/etc/gshadow cannot be read.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from hillclimber.errors import SandboxUnavailable
from hillclimber.sandbox.base import (
    STANDARD_PATH,
    Layout,
    Mount,
    SandboxKind,
)
from hillclimber.sandbox.host import HostSandbox
from hillclimber.sandbox.session import Holder, Session
from hillclimber.sandbox.system import system_entries

DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9)}
DEVICES |= {"tty": (5, 0)}
"""The device nodes bwrap's /dev holds, as (major, minor)."""
HIDDEN = ("/etc/shadow", "/etc/gshadow")
"""Host files the sandbox does not show (/dev/null is mounted over them): they hold password
hashes, and the sandbox's root is the host's."""


class BwrapSandbox(HostSandbox):
    kind = SandboxKind.BWRAP

    def __init__(self, layout: Layout, session: Session | None = None) -> None:
        super().__init__(layout, session)
        binary = shutil.which("bwrap", path=STANDARD_PATH)
        if binary is None:
            raise SandboxUnavailable("bwrap is not installed (apt-get install bubblewrap)")
        self.binary = binary
        self.devices = _own_devices(layout)

    def argv(
        self, command: str, cwd: str, env: Mapping[str, str], holder: Holder | None
    ) -> list[str]:
        args = self.opening(holder)
        for entry in system_entries():
            if entry.symlink_to is not None:
                args += ["--symlink", entry.symlink_to, f"/{entry.name}"]
            else:
                args += ["--ro-bind", f"/{entry.name}", f"/{entry.name}"]
        args += self.kernel_folders()
        for path in HIDDEN:
            if Path(path).exists():
                args += ["--ro-bind", "/dev/null", path]
        if holder is not None and holder.resolv_conf is not None:  # the trial's own network
            args += ["--ro-bind", str(holder.resolv_conf), "/etc/resolv.conf"]
        return args + self.closing(self.layout.mounts, command, cwd, env)

    def opening(self, holder: Holder | None) -> list[str]:
        """bwrap with no capabilities, in the session's namespaces (`holder`) or else every
        namespace of its own; the network shared only when the task asks for it. In a session
        the command stays in the process group the runner made (no `--new-session`): its time
        limit ends the group, and it has no terminal to type into."""
        if holder is not None:
            assert holder.user_fd is not None  # bwrap's sessions have their user namespace
            joined = ["--userns", str(holder.user_fd), "--pidns", str(holder.pid_fd)]
            args = [*holder.nsenter(), self.binary, "--die-with-parent", *joined]
            args += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
            return args + [arg for cap in self.capabilities for arg in ("--cap-add", cap)]
        args = [self.binary, "--die-with-parent", "--new-session", "--unshare-all"]
        args += ["--cap-drop", "ALL"]
        if self.layout.network:
            args.append("--share-net")
        return args

    def kernel_folders(self) -> list[str]:
        """/dev with the trial's own nodes, a /proc of its pid namespace, /proc/sys read-only."""
        args = ["--dev", "/dev"]
        for node in self.devices:
            args += ["--dev-bind", str(node), f"/dev/{node.name}"]
        return [*args, "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]

    def closing(
        self, mounts: Iterable[Mount], command: str, cwd: str, env: Mapping[str, str]
    ) -> list[str]:
        """The layout's folders (shallowest first), the working folder, the environment and
        the command."""
        args: list[str] = []
        for mount in sorted(mounts, key=lambda m: m.target.count("/")):
            args += ["--ro-bind" if mount.readonly else "--bind", str(mount.host), mount.target]
        args += ["--chdir", cwd, "--clearenv"]
        for key, value in env.items():
            args += ["--setenv", key, value]
        return [*args, "--", self.shell, "-c", command]

    shell = "/bin/bash"
    capabilities: tuple[str, ...] = ()
    """What a command keeps in its session's user namespace: nothing (the host's system
    folders are bound in, and root's files there are the host's)."""


def _own_devices(layout: Layout) -> list[Path]:
    """The trial's own device nodes, made once in its scratch folder, where this process may
    make them (root). bwrap's /dev binds the host's nodes in, and the sandbox's root is the
    host's: a `chmod 000 /dev/null` would reach the host's. Bound over them, these take it."""
    if os.geteuid() != 0 or layout.scratch is None:
        return []
    folder = layout.scratch / "dev"
    made: list[Path] = []
    for name, (major, minor) in DEVICES.items():
        node = folder / name
        try:
            if not node.exists():
                folder.mkdir(parents=True, exist_ok=True)
                os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(major, minor))
                node.chmod(0o666)
        except OSError:
            return []  # a folder on a nodev file system: the host's nodes, as before
        made.append(node)
    return made
