"""The task's own image as the sandbox: its root folder, a writable layer per trial, bwrap.

The image is built by the engine (`hillclimber.image`); a trial lays an overlay over the image's
root folder (`trial_root`: the image read-only below, the trial's own layer above, thrown away
after) and runs each command with bubblewrap inside that root: every path the Dockerfile made,
its `ENV`, `WORKDIR` as the working folder. A command costs what a bwrap command costs, less
than `podman exec` (`benchmarks/containers.py`). The isolation is the bwrap sandbox's: no
capabilities, its own namespaces, no network unless the task asks.
"""

from __future__ import annotations

import contextlib
import functools
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from hillclimber.errors import SetupError
from hillclimber.sandbox.base import APP, STANDARD_PATH, SandboxKind
from hillclimber.sandbox.bwrap import BwrapSandbox
from hillclimber.sandbox.session import Holder, Users

ROOT = "/"
RESOLV_CONF = "/etc/resolv.conf"
HOST_NETWORK_FILES = (RESOLV_CONF, "/etc/hosts")
"""Given to a trial that may use the network: the image's own are the builder's."""
DOCKER_CAPABILITIES = tuple(
    f"CAP_{name}"
    for name in (
        "CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
        "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE",
    )
)  # fmt: skip
"""Docker's default capabilities for a container's root: enough to install packages (apt
drops to its own user, dpkg sets owners and modes) and run services (a port below 1024, a
worker under its own user); none that reaches past the trial's namespaces."""


class ContainerSandbox(BwrapSandbox):
    """bwrap with the image's root as `/` instead of this machine's system folders: root as
    in a container, with a container's users and capabilities in the trial's own user
    namespace (nothing of the host's is writable or secret in here: the image's files, the
    trial's layer)."""

    kind = SandboxKind.CONTAINER
    session_users = Users.ALL
    capabilities = DOCKER_CAPABILITIES

    def argv(
        self, command: str, cwd: str, env: Mapping[str, str], holder: Holder | None
    ) -> list[str]:
        root = self.layout.mount_for(ROOT)
        args = [*self.opening(holder), "--bind", str(root.host), ROOT]
        if self.layout.network:
            for path in HOST_NETWORK_FILES:
                source = Path(path)
                if path == RESOLV_CONF and holder is not None and holder.resolv_conf:
                    source = holder.resolv_conf  # the trial's own network's resolver
                if source.is_file():
                    args += ["--ro-bind", str(source), path]
        args += self.kernel_folders()
        args += ["--ro-bind", "/sys", "/sys"]  # read-only, as a container engine gives it
        if cwd == APP and not self.exists(APP):  # the harness's default, an image without /app
            cwd = self.layout.workdir
        others = [m for m in self.layout.mounts if m.target != ROOT]
        return args + self.closing(others, command, cwd, env)

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The image's environment (its `ENV`, `PATH` included) over a terminal's basics; not
        the host sandboxes' pip settings: here pip installs where the image's Python looks."""
        env = {"PATH": STANDARD_PATH, "HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb"}
        env.update(self.layout.env)
        env.update(extra or {})
        return env

    @functools.cached_property
    def shell(self) -> str:  # type: ignore[override]
        """bash where the image has it (every other sandbox runs commands with bash), else sh."""
        return "/bin/bash" if self.exists("/bin/bash") else "/bin/sh"


@dataclass(frozen=True)
class TrialRoot:
    """The trial's view of the image: `root` (what commands see at /), `layer` (what they
    changed)."""

    root: Path
    layer: Path


@contextlib.contextmanager
def trial_root(image_root: Path, folder: Path) -> Iterator[TrialRoot]:
    """An overlay of a fresh writable layer (under `folder`) on the image's root folder,
    unmounted and thrown away when the trial ends."""
    layer, work, root = folder / "layer", folder / "layer-work", folder / "root"
    for path in (layer, work, root):
        path.mkdir(parents=True, exist_ok=True)
    options = f"lowerdir={image_root},upperdir={layer},workdir={work}"
    mounted = subprocess.run(
        ["mount", "-t", "overlay", "overlay", "-o", options, str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        raise SetupError(
            f"could not lay the trial's layer over the image: {mounted.stderr.strip()}"
        )
    try:
        yield TrialRoot(root, layer)
    finally:
        unmounted = subprocess.run(["umount", str(root)], capture_output=True, check=False)
        if unmounted.returncode != 0:  # a process of the trial still holds it: detach
            subprocess.run(["umount", "-l", str(root)], capture_output=True, check=False)
        for path in (layer, work, root):
            shutil.rmtree(path, ignore_errors=True)


MOUNTS = Path("/proc/self/mounts")


def undo_mounts(folder: Path, table: Path = MOUNTS) -> list[Path]:
    """Unmount what is mounted under `folder`, deepest first, and say what: a trial's layer
    that a run killed twice over (a second Ctrl-C cuts `trial_root`'s undoing short; `kill -9`
    skips it) left mounted, found when the trial runs again, before its folder is emptied."""
    try:
        lines = table.read_text().splitlines()
    except OSError:
        return []  # no mount table: nothing of ours can be mounted
    inside = []
    for line in lines:
        fields = line.split()
        if len(fields) < 2:
            continue
        point = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[1]))
        if point.is_relative_to(folder):
            inside.append(point)
    for point in sorted(inside, key=lambda p: len(p.parts), reverse=True):
        subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)
    return inside
