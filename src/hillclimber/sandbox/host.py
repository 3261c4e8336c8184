"""What the back ends whose folders live on the host share: the layout, commands run through a
host command line in the trial's session (`session.py`), and the file API implemented once over
the layout's host folders."""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self

from hillclimber.process import DEFAULT_OUTPUT_CAP, run_process
from hillclimber.sandbox.base import (
    APP,
    STANDARD_PATH,
    CommandResult,
    FileInfo,
    Layout,
    OutsideSandbox,
    SandboxKind,
    base_env,
)
from hillclimber.sandbox.limits import MIB, Confinement, folder_mb
from hillclimber.sandbox.session import Holder, Session, Users, open_session


class HostSandbox:
    """A sandbox over host folders. Back ends say how a command runs (`argv`), in the trial's
    session where they can hold one: what a command leaves running lives until `close`, and
    the copies `with_layout` makes share the session."""

    kind: SandboxKind
    isolated: bool = True
    holds_sessions: ClassVar[bool] = True
    session_users: ClassVar[Users] = Users.ROOT
    """Who is who in the session's user namespace, which commands join (`Users`)."""
    own_network: ClassVar[bool] = True
    """Whether a trial that may use the network gets a network namespace of its own, with
    slirp4netns as its way out (the back end gives its commands slirp's resolv.conf)."""

    def __init__(self, layout: Layout, session: Session | None = None) -> None:
        self.layout = layout
        if session is None and self.holds_sessions:
            session = open_session(
                network=layout.network, users=self.session_users, own_network=self.own_network
            )
        self.session = session

    def with_layout(self, layout: Layout) -> Self:
        return type(self)(layout, self.session)

    def close(self) -> None:
        """End every process the sandbox's commands left running (nothing to do without a
        session: each command's processes ended with it)."""
        if self.session is not None:
            self.session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def host_path(self, path: str, cwd: str = APP) -> Path:
        """The host path behind a sandbox path; raises OutsideSandbox for anything else."""
        return self.layout.resolve(path, cwd)[1]

    def localize(self, path: str) -> None:
        """Nothing to do where sandbox paths are real."""

    # -- commands ---------------------------------------------------------------------------

    def argv(
        self, command: str, cwd: str, env: Mapping[str, str], holder: Holder | None
    ) -> list[str]:
        """The host command line that runs `command` inside this sandbox (in the session
        `holder` holds open, where there is one)."""
        raise NotImplementedError

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
        holder = self.session.open() if self.session is not None else None
        argv = self.argv(command, cwd, self.environment(env), holder)
        # the back end's own process gets no more than a PATH: its environment (the runner's,
        # with any API keys) would be readable in the sandbox's /proc
        clean = {"PATH": STANDARD_PATH}
        return self.execute(
            command,
            argv,
            timeout=timeout,
            output_cap=output_cap,
            env=clean,
            holder=holder,
            linger=linger,
        )

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """What a command's environment holds."""
        return base_env(self.layout, extra)

    def execute(
        self,
        command: str,
        argv: list[str],
        *,
        timeout: float,
        output_cap: int,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        holder: Holder | None = None,
        linger: bool = True,
    ) -> CommandResult:
        """Run the host command line `argv` for `command` within the layout's limits. In a
        session (`holder`), what a command that ended by itself left running runs on, in its
        control groups, until the session ends; a command ended by its time or a limit is
        ended whole, and so is one that may not `linger`."""
        limits = self.layout.limits
        confinement = Confinement(limits)
        try:
            result = run_process(
                confinement.wrap(argv),
                timeout=timeout,
                cwd=cwd,
                env=env,
                output_cap=output_cap,
                max_output=limits.output_mb * MIB if limits.output_mb else None,
                watch=self._size_watch(),
                pass_fds=holder.fds if holder is not None else (),
                leave_running=holder is not None and linger,
            )
            limit = result.stopped or confinement.limit_hit(result)
        except BaseException:
            confinement.close()
            raise
        kept = linger and not result.timed_out and not limit
        if self.session is not None and holder is not None and kept:
            self.session.keep(confinement.release())
        else:
            confinement.close()
        return CommandResult.from_process(command, result, limit=limit)

    def _size_watch(self) -> Callable[[], str | None] | None:
        """While a command runs: whether the trial's writable folders grew by more than their
        limit since its first second (a folder that was large before it, such as the one
        `hillclimber run` works on, is not held against it; a command that ends within a
        second is never walked)."""
        limit = self.layout.limits.workspace_mb
        if limit is None:
            return None
        folders = list(self.layout.grows) or [m.host for m in self.layout.mounts if not m.readonly]
        start: float | None = None

        def over() -> str | None:
            nonlocal start
            size = folder_mb(*folders)
            if start is None:
                start = size
            elif size - start > limit:
                return f"filled the trial's folders past their limit ({limit} MiB more)"
            return None

        return over

    # -- files ------------------------------------------------------------------------------

    def read_file(self, path: str, *, limit: int | None = None) -> bytes:
        with self.host_path(path).open("rb") as file:
            return file.read(-1 if limit is None else limit)

    def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None:
        target = self.host_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if mode is not None:
            target.chmod(mode)

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def stat(self, path: str) -> FileInfo | None:
        literal = self._literal(path)
        if not os.path.lexists(literal):
            return None
        link = literal.is_symlink()
        try:
            found = self.host_path(path).stat()
        except (OutsideSandbox, OSError):  # a link out of the sandbox, or a broken link
            return FileInfo("other", 0, link)
        if stat.S_ISREG(found.st_mode):
            return FileInfo("file", found.st_size, link)
        return FileInfo("dir" if stat.S_ISDIR(found.st_mode) else "other", found.st_size, link)

    def _literal(self, path: str) -> Path:
        """The host path behind `path` with its last part not followed if it is a link."""
        full = posixpath.normpath(posixpath.join(APP, path))
        parent, name = posixpath.split(full)
        try:
            return self.host_path(parent) / name
        except OutsideSandbox:  # a folder the layout shows (/app): what is above it is not seen
            return self.host_path(full)

    def listdir(self, path: str) -> list[str]:
        return sorted(entry.name for entry in self.host_path(path).iterdir())

    def mkdir(self, path: str) -> None:
        self.host_path(path).mkdir(parents=True, exist_ok=True)

    def upload(self, source: Path, path: str) -> None:
        target = self.host_path(path)
        if source.is_dir() and not source.is_symlink():
            merge_tree(source, target)
        else:
            copy_file(source, target)

    def snapshot(self, path: str) -> HostSnapshot:
        full = posixpath.normpath(posixpath.join(APP, path))
        inner = frozenset(
            posixpath.relpath(m.target, full)
            for m in self.layout.mounts
            if m.target.startswith(full.rstrip("/") + "/")
        )
        return HostSnapshot(self.host_path(path), inner)


def copy_file(source: Path, target: Path) -> None:
    """Copy one file (or symlink, as a link) over whatever file or link is at `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        target.unlink()
    shutil.copy2(source, target, follow_symlinks=False)


def copy_for_root(source: Path, target: Path) -> None:
    """A folder copied for the sandbox's root to work in: modes kept, plus the owner's write
    bit on every file and folder. A container's root writes whatever the modes say (it may
    override permissions); the sandbox's root here has no capabilities, and a folder checked
    out read-only would be read-only to it."""
    shutil.copytree(source, target)
    for root, dirs, files in os.walk(target):
        for name in [*dirs, *files]:
            path = Path(root, name)
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
    target.chmod(target.stat().st_mode | stat.S_IWUSR)


def merge_tree(source: Path, target: Path) -> None:
    """Copy a folder's contents into `target`, merging with what is there."""
    target.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            merge_tree(entry, target / entry.name)
        else:
            copy_file(entry, target / entry.name)


class HostSnapshot:
    """A host folder copied aside whole (contents, modes, symlinks), but for the folders in
    it that the sandbox shows something else at (`keep`, paths relative to it): those are
    neither saved nor put back."""

    def __init__(self, root: Path, keep: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.keep = keep
        self._tmp = tempfile.TemporaryDirectory(prefix="hc-snapshot-")
        self.saved = Path(self._tmp.name) / "saved"
        shutil.copytree(root, self.saved, symlinks=True, ignore=self._ignored)

    def _ignored(self, folder: str, names: list[str]) -> set[str]:
        here = Path(folder).relative_to(self.root)
        return {name for name in names if (here / name).as_posix() in self.keep}

    def files(self, max_bytes: int) -> Iterator[tuple[str, bytes]]:
        for path in sorted(self.saved.rglob("*")):
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= max_bytes:
                yield path.relative_to(self.saved).as_posix(), path.read_bytes()

    def restore(self) -> None:
        self._clear(self.root)
        shutil.copytree(self.saved, self.root, symlinks=True, dirs_exist_ok=True)

    def _clear(self, folder: Path) -> None:
        """Remove what is in `folder`, leaving the kept folders (and the way to them)."""
        for entry in list(folder.iterdir()):
            relative = entry.relative_to(self.root).as_posix()
            if relative in self.keep:
                continue
            if any(kept.startswith(relative + "/") for kept in self.keep):
                self._clear(entry)
            elif entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)

    def discard(self) -> None:
        self._tmp.cleanup()
