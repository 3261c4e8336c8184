"""The `Sandbox` protocol and what every back end shares.

A sandbox runs shell commands for one trial with the task's files at `/app`. It is built from a
`Layout`: which folders appear at which sandbox paths. Everything the harness reads or writes
goes through the sandbox's file API (`read_file`, `write_file`, `stat`, `listdir`, `upload`,
`snapshot`), so it sees exactly what commands see, and a back end without host folders (a
container, a remote machine) is one class away.
"""

from __future__ import annotations

import os
import posixpath
import shutil
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Literal, Protocol

from hillclimber.errors import AgentTimeout, HillclimberError
from hillclimber.process import DEFAULT_OUTPUT_CAP, ProcessResult, join_output
from hillclimber.sandbox.limits import ResourceLimits

APP = "/app"
"""Where the task's files are, inside every sandbox."""
TMP = "/tmp"
HOME = "/root"
STANDARD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class SandboxKind(StrEnum):
    BWRAP = "bwrap"
    NAMESPACE = "namespace"
    LOCAL = "local"
    CONTAINER = "container"
    """The task's image, built by a container engine, with a writable layer per trial."""
    HARBOR = "harbor"
    """A Harbor environment the harness was handed (`hillclimber.harbor`)."""


class OutsideSandbox(HillclimberError):
    """A path that does not lie in any folder the sandbox can see (or escapes one with `..`)."""


@dataclass(frozen=True)
class Mount:
    target: str
    """Absolute path inside the sandbox."""
    host: Path
    readonly: bool = False


@dataclass(frozen=True)
class Layout:
    """What the sandbox sees: host folders at sandbox paths, plus environment and network."""

    mounts: tuple[Mount, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    network: bool = False
    scratch: Path | None = None
    """A host folder the back end may use for its own housekeeping (mount points)."""
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    """What each command may use (memory, processes, file size, output, the folders' size)."""
    workdir: str = APP
    """Where commands start when they are started at /app and the sandbox has none (an image
    whose WORKDIR is elsewhere)."""
    grows: tuple[Path, ...] = ()
    """Where commands' writes land, for the folders' size limit, when that is not simply the
    writable mounts (a container's writable layer)."""

    @property
    def workspace(self) -> Path:
        return self.mount_for(APP).host

    def mount_for(self, target: str) -> Mount:
        for mount in self.mounts:
            if mount.target == target:
                return mount
        raise KeyError(target)

    def with_mounts(self, *mounts: Mount) -> Layout:
        targets = {m.target for m in mounts}
        kept = tuple(m for m in self.mounts if m.target not in targets)
        return replace(self, mounts=kept + tuple(mounts))

    def with_env(self, env: Mapping[str, str]) -> Layout:
        return replace(self, env={**self.env, **env})

    def resolve(self, path: str, cwd: str = APP) -> tuple[Mount, Path]:
        """Map a sandbox path to (mount, host path), following symlinks as the sandbox sees
        them (an absolute link leads from the sandbox's root, not the host's). Refuses paths
        outside every mount, and links that lead out of them."""
        full = posixpath.normpath(posixpath.join(cwd, path))
        placed = self._place(self._follow(full, path))
        if placed is None:
            raise OutsideSandbox(f"{path} is outside the sandbox's folders")
        return placed

    def _place(self, full: str) -> tuple[Mount, Path] | None:
        """The mount a normalized sandbox path lies in, and its host path (links not
        followed)."""
        best: Mount | None = None
        for mount in self.mounts:
            if (full == mount.target or full.startswith(mount.target.rstrip("/") + "/")) and (
                best is None or len(mount.target) > len(best.target)
            ):
                best = mount
        if best is None:
            return None
        rel = posixpath.relpath(full, best.target)
        return best, (best.host / rel if rel != "." else best.host)

    def _follow(self, full: str, asked: str) -> str:
        """`full` with every symlink along it followed inside the sandbox's view."""
        parts = [p for p in full.split("/") if p]
        done = "/"
        hops = 0
        while parts:
            candidate = posixpath.join(done, parts.pop(0))
            placed = self._place(candidate)
            if placed is None or not placed[1].is_symlink():
                done = candidate
                continue
            hops += 1
            if hops > MAX_LINKS:
                raise OutsideSandbox(f"{asked}: too many levels of symbolic links")
            target = os.readlink(placed[1])
            rest = posixpath.join(target, *parts) if parts else target
            resolved = posixpath.normpath(posixpath.join(done, rest))
            parts = [p for p in resolved.split("/") if p]
            done = "/"
        return done


MAX_LINKS = 40
"""Links followed in one path before giving up, as the kernel does."""


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_code: int
    stdout: str
    stderr: str
    duration_sec: float
    timed_out: bool
    truncated: bool
    limit: str | None = None
    """Which resource limit ended the command, in words ("went over the memory limit …")."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.limit is None

    @property
    def output(self) -> str:
        return join_output(self.stdout, self.stderr)

    @classmethod
    def from_process(
        cls, command: str, result: ProcessResult, limit: str | None = None
    ) -> CommandResult:
        return cls(
            command=command,
            exit_code=result.exit_code,
            stdout=result.stdout,
            stderr=result.stderr,
            duration_sec=result.duration_sec,
            timed_out=result.timed_out,
            truncated=result.truncated,
            limit=limit,
        )


@dataclass(frozen=True)
class FileInfo:
    kind: Literal["file", "dir", "other"]
    """What the path leads to (through a symlink inside the sandbox); other: a device, a
    socket, a link that leads out of the sandbox or nowhere."""
    size: int
    link: bool = False
    """The path itself is a symlink."""


class Snapshot(Protocol):
    """A saved copy of a sandbox folder."""

    def files(self, max_bytes: int) -> Iterator[tuple[str, bytes]]:
        """(path relative to the folder, content) of every regular file saved that is not
        larger than `max_bytes`."""
        ...

    def restore(self) -> None:
        """Put the folder back as it was saved (contents, modes, symlinks)."""
        ...

    def discard(self) -> None: ...


class Sandbox(Protocol):
    kind: SandboxKind
    layout: Layout

    isolated: bool
    """Whether commands are kept from writing the host outside the layout's folders."""

    def run(
        self,
        command: str,
        *,
        timeout: float,
        cwd: str = APP,
        env: Mapping[str, str] | None = None,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        linger: bool = True,
    ) -> CommandResult:
        """Run `command` with bash in the sandbox. What it leaves running lives on in the
        trial's session (`linger`), as in a container; False for the harness's own looks (a
        check, a program run to compare tries): what they start ends with them, so the agent's
        work alone is what the tests find."""
        ...

    def with_layout(self, layout: Layout) -> Sandbox:
        """The same kind of sandbox over another layout (e.g. with /tests for verifying)."""
        ...

    def localize(self, path: str) -> None:
        """Make files under sandbox `path` that name sandbox paths (scripts, tests) work
        here."""
        ...

    # -- files: what the harness reads and writes, never around the sandbox ----------------

    def read_file(self, path: str, *, limit: int | None = None) -> bytes:
        """The bytes of the file at `path` (the first `limit` of them). Raises
        FileNotFoundError, IsADirectoryError, OutsideSandbox."""
        ...

    def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None:
        """Create or replace the file at `path`, and the folders above it."""
        ...

    def exists(self, path: str) -> bool: ...

    def stat(self, path: str) -> FileInfo | None:
        """What is at `path`, or None when nothing is."""
        ...

    def listdir(self, path: str) -> list[str]:
        """The names in the folder at `path`, sorted."""
        ...

    def mkdir(self, path: str) -> None:
        """A folder at `path`, and the folders above it."""
        ...

    def upload(self, source: Path, path: str) -> None:
        """Copy a host file or folder to `path`; a folder is merged into what is there (as
        Docker's COPY does), symlinks and modes are kept."""
        ...

    def snapshot(self, path: str) -> Snapshot:
        """Save the folder at `path` so that it can be put back exactly."""
        ...


def base_env(layout: Layout, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every command starts with: nothing leaks in from the host."""
    env = {
        # ~/.local/bin last: `pip install --user` scripts, and the python/pip shims
        "PATH": f"{STANDARD_PATH}:/root/.local/bin",
        "HOME": "/root",
        # /usr is read-only: pip installs go to the trial's own user site
        "PIP_USER": "1",
        "PIP_BREAK_SYSTEM_PACKAGES": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(layout.env)
    if extra:
        env.update(extra)
    return env


def find_bash() -> str:
    return shutil.which("bash", path=STANDARD_PATH) or "/bin/bash"


def run_within(
    sandbox: Sandbox,
    command: str,
    *,
    remaining: Callable[[], float],
    timeout: float | None = None,
    cwd: str = APP,
    env: Mapping[str, str] | None = None,
    linger: bool = True,
) -> CommandResult:
    """Run a command in what is left of an agent's time; AgentTimeout when it is used up."""
    left = remaining()
    if left <= 0:
        raise AgentTimeout("agent time is up")
    result = sandbox.run(
        command, timeout=min(timeout or left, left), cwd=cwd, env=env, linger=linger
    )
    if result.timed_out and remaining() <= 0:
        raise AgentTimeout("agent time is up")
    return result


def walk(sandbox: Sandbox, root: str, skip: Collection[str] = ()) -> Iterator[tuple[str, FileInfo]]:
    """(path, info) of everything under the folder `root`, depth first, but what is named as
    one of `skip` and what is under it; symlinks to folders are not followed. A sandbox whose
    calls are dear (a remote Harbor environment) may list the whole tree at once with a
    `tree(root)` method of its own."""
    tree = getattr(sandbox, "tree", None)
    if tree is not None:
        for path, info in tree(root):
            if not skip or not set(skip).intersection(posixpath.relpath(path, root).split("/")):
                yield path, info
        return
    for name in sandbox.listdir(root):
        if name in skip:
            continue
        path = posixpath.join(root, name)
        info = sandbox.stat(path)
        if info is None:
            continue
        yield path, info
        if info.kind == "dir" and not info.link:
            yield from walk(sandbox, path, skip)
