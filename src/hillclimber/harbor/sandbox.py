"""A `Sandbox` over a Harbor environment, for the loop running in a worker thread.

Harbor's environments are async (`exec`, `upload_*`, `download_*` on Harbor's event loop); the
agent loop is plain blocking code. Each call here submits the coroutine to Harbor's loop and
waits for it, so the loop, the climber's snapshots and the acceptance checks work on a Docker
container, a Daytona or Modal sandbox, or our own `SandboxEnvironment` unchanged. Files go
through `exec` (base64 for reads) and `upload_file`; a snapshot is a tar file inside the
environment. Once `stop()` is called every further call raises `AgentTimeout`, which ends the
loop where it is.
"""

from __future__ import annotations

import asyncio
import base64
import io
import posixpath
import shlex
import tarfile
import tempfile
import threading
import time
import uuid
from collections.abc import Coroutine, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol, Self, TypeVar

from hillclimber.errors import AgentTimeout
from hillclimber.process import DEFAULT_OUTPUT_CAP
from hillclimber.sandbox import APP, CommandResult, FileInfo, Layout, SandboxKind

T = TypeVar("T")

SNAPSHOTS = "/tmp/.hillclimber-snapshots"
"""Where snapshots are kept inside the environment."""
STAGED = "/tmp/.hillclimber-upload-"
"""Where a file written is uploaded first, inside the environment (the prefix of its name)."""
_MISSING, _IS_DIR, _NOT_DIR = 66, 67, 68
"""Exit codes of the read and list scripts: nothing there, a folder, not a folder."""
_KINDS: dict[str, Literal["file", "dir", "other"]] = {"f": "file", "d": "dir"}
"""`find -printf %Y` letters of the kinds `FileInfo` names; any other is "other"."""
_SLACK = 30.0
"""Seconds a call may take beyond its own time limit before we stop waiting for it."""


class HarborEnvironment(Protocol):
    """What we use of `harbor.environments.base.BaseEnvironment`."""

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> Any: ...

    async def upload_file(self, source_path: Path | str, target_path: str) -> Any: ...

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> Any: ...

    async def download_file(self, source_path: str, target_path: Path | str) -> Any: ...


class EnvironmentSandbox:
    """The sandbox protocol over a Harbor environment, called from a thread other than the one
    running `loop`."""

    kind = SandboxKind.HARBOR
    isolated = True
    """As isolated as the environment Harbor gave us (a container, a remote machine, ours)."""

    def __init__(
        self,
        environment: HarborEnvironment,
        loop: asyncio.AbstractEventLoop,
        *,
        stop: threading.Event | None = None,
    ) -> None:
        self.environment = environment
        self.loop = loop
        self.stopped = stop or threading.Event()
        self.layout = Layout(mounts=())
        """Nothing is mounted from this machine: every path is the environment's own."""

    def with_layout(self, layout: Layout) -> Self:
        return self

    def localize(self, path: str) -> None:
        """Sandbox paths are real paths in the environment."""

    def stop(self) -> None:
        self.stopped.set()

    def _call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None) -> T:
        if self.stopped.is_set():
            coroutine.close()
            raise AgentTimeout("agent time is up")
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(None if timeout is None else timeout + _SLACK)
        except TimeoutError:
            future.cancel()
            raise

    # -- commands ---------------------------------------------------------------------------

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
        """In Harbor's environment (a container that lives for the trial) what a command
        leaves running lives on: this sandbox cannot end it, `linger` or not."""
        started = time.monotonic()
        limit = max(1, round(timeout))
        try:
            result = self._call(
                self.environment.exec(
                    command, cwd=cwd, env=dict(env) if env else None, timeout_sec=limit
                ),
                timeout,
            )
        except (TimeoutError, RuntimeError) as err:
            if not isinstance(err, TimeoutError) and "timed out" not in str(err).lower():
                raise
            return _result(command, -9, "", str(err), started, timed_out=True)
        stdout, stderr = result.stdout or "", result.stderr or ""
        truncated = len(stdout) > output_cap or len(stderr) > output_cap
        return _result(
            command,
            result.return_code,
            stdout[:output_cap],
            stderr[:output_cap],
            started,
            truncated=truncated,
        )

    def _sh(self, script: str, timeout: float = 60) -> CommandResult:
        return self.run(script, timeout=timeout, cwd="/")

    # -- files ------------------------------------------------------------------------------

    def read_file(self, path: str, *, limit: int | None = None) -> bytes:
        full = _full(path)
        quoted = shlex.quote(full)
        source = f"head -c {limit} {quoted}" if limit is not None else f"cat {quoted}"
        result = self._sh(
            f"if [ -d {quoted} ]; then exit {_IS_DIR}; fi; "
            f"[ -e {quoted} ] || exit {_MISSING}; {source} | base64 -w0"
        )
        if result.exit_code == _MISSING:
            raise FileNotFoundError(full)
        if result.exit_code == _IS_DIR:
            raise IsADirectoryError(full)
        if not result.ok:
            raise OSError(f"cannot read {full}: {result.output.strip()[:200]}")
        return base64.b64decode(result.stdout)

    def write_file(self, path: str, data: bytes, *, mode: int | None = None) -> None:
        """Uploaded beside, then written over the file in place: an existing file keeps its
        mode (and owner), as a write keeps them in every other sandbox. Harbor's upload
        replaces the file with one of the upload's mode: an edited script would no longer
        run."""
        full = _full(path)
        staged = f"{STAGED}{uuid.uuid4().hex}"
        with tempfile.TemporaryDirectory(prefix="hc-upload-") as folder:
            local = Path(folder) / "file"
            local.write_bytes(data)
            self._call(self.environment.upload_file(local, staged), 120)
        target, source = shlex.quote(full), shlex.quote(staged)
        chmod = f" && chmod {mode:o} {target}" if mode is not None else ""
        result = self._sh(
            f"mkdir -p {shlex.quote(posixpath.dirname(full))} && cat {source} > {target}{chmod};"
            f" done=$?; rm -f {source}; exit $done"
        )
        if not result.ok:
            raise OSError(f"cannot write {full}: {result.output.strip()[:200]}")

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def stat(self, path: str) -> FileInfo | None:
        quoted = shlex.quote(_full(path))
        result = self._sh(
            f'p={quoted}; l=0; [ -L "$p" ] && l=1; '
            'if [ -f "$p" ]; then echo "file $(stat -L -c %s "$p") $l"; '
            'elif [ -d "$p" ]; then echo "dir 0 $l"; '
            'elif [ -e "$p" ] || [ "$l" = 1 ]; then echo "other 0 $l"; fi'
        )
        words = result.stdout.split()
        if len(words) != 3 or words[0] not in ("file", "dir", "other"):
            return None
        kind = words[0]
        return FileInfo(kind, int(words[1]), words[2] == "1")  # type: ignore[arg-type]

    def listdir(self, path: str) -> list[str]:
        """As a host folder is listed: through a link to a folder; NotADirectoryError for
        anything else that is there."""
        full = _full(path)
        quoted = shlex.quote(full)
        result = self._sh(
            f"[ -d {quoted} ] || {{ [ -e {quoted} ] && exit {_NOT_DIR}; exit {_MISSING}; }}; "
            f"find -H {quoted} -mindepth 1 -maxdepth 1 -printf '%f\\0'"
        )
        if result.exit_code == _NOT_DIR:
            raise NotADirectoryError(full)
        if not result.ok:
            raise FileNotFoundError(full)
        return sorted(name for name in result.stdout.split("\0") if name)

    def tree(self, root: str) -> list[tuple[str, FileInfo]]:
        """What `walk` yields, from one `find` instead of an exec per entry (a remote
        environment pays for each); FileNotFoundError when `root` is not a folder."""
        full = _full(root)
        result = self._sh(f"find -H {shlex.quote(full)} -mindepth 1 -printf '%y %Y %s %P\\0'")
        if not result.ok and not result.stdout:
            raise FileNotFoundError(full)
        found: list[tuple[list[str], str, FileInfo]] = []
        for entry in result.stdout.split("\0"):
            if entry.count(" ") < 3:
                continue
            own, target, size, relative = entry.split(" ", 3)
            path = posixpath.join(root, relative)
            link = own == "l"
            kind = _KINDS.get(target, "other")
            if link and kind == "file":
                info = self.stat(path)  # find gave the link's own size
                if info is None:
                    continue
            else:
                info = FileInfo(kind, int(size) if kind == "file" else 0, link)
            found.append((relative.split("/"), path, info))
        found.sort(key=lambda item: item[0])  # depth first, names in order, as `walk` goes
        return [(path, info) for _, path, info in found]

    def mkdir(self, path: str) -> None:
        full = _full(path)
        result = self._sh(f"mkdir -p {shlex.quote(full)}")
        if not result.ok:
            raise OSError(f"cannot make the folder {full}: {result.output.strip()[:200]}")

    def upload(self, source: Path, path: str) -> None:
        full = _full(path)
        if source.is_dir() and not source.is_symlink():
            self.mkdir(full)
            self._call(self.environment.upload_dir(source, full), 600)
        else:
            self.write_file(full, source.read_bytes(), mode=source.stat().st_mode & 0o7777)

    def snapshot(self, path: str) -> TarSnapshot:
        return TarSnapshot(self, _full(path))


class TarSnapshot:
    """A folder of the environment saved as a tar file inside it (contents, modes, links)."""

    def __init__(self, sandbox: EnvironmentSandbox, root: str) -> None:
        self.sandbox = sandbox
        self.root = root
        self.tar = f"{SNAPSHOTS}/{uuid.uuid4().hex}.tar"
        self._local: bytes | None = None
        result = sandbox._sh(
            f"mkdir -p {SNAPSHOTS} && tar -C {shlex.quote(root)} -cpf {self.tar} .", 300
        )
        if not result.ok:
            raise OSError(f"cannot save {root}: {result.output.strip()[:200]}")

    def files(self, max_bytes: int) -> Iterator[tuple[str, bytes]]:
        if self._local is None:
            with tempfile.TemporaryDirectory(prefix="hc-snapshot-") as folder:
                local = Path(folder) / "saved.tar"
                self.sandbox._call(self.sandbox.environment.download_file(self.tar, local), 300)
                self._local = local.read_bytes()
        with tarfile.open(fileobj=io.BytesIO(self._local)) as archive:
            members = sorted(archive.getmembers(), key=lambda member: member.name)
            for member in members:
                if member.isfile() and member.size <= max_bytes:
                    extracted = archive.extractfile(member)
                    if extracted is not None:
                        yield posixpath.normpath(member.name), extracted.read()

    def restore(self) -> None:
        root = shlex.quote(self.root)
        result = self.sandbox._sh(
            f"find {root} -mindepth 1 -delete && tar -C {root} -xpf {self.tar}", 300
        )
        if not result.ok:
            raise OSError(f"cannot put {self.root} back: {result.output.strip()[:200]}")

    def discard(self) -> None:
        if not self.sandbox.stopped.is_set():
            self.sandbox._sh(f"rm -f {self.tar}")


def _full(path: str) -> str:
    return posixpath.normpath(posixpath.join(APP, path))


def _result(
    command: str,
    exit_code: int,
    stdout: str,
    stderr: str,
    started: float,
    *,
    timed_out: bool = False,
    truncated: bool = False,
) -> CommandResult:
    return CommandResult(
        command=command,
        exit_code=exit_code,
        stdout=stdout,
        stderr=stderr,
        duration_sec=round(time.monotonic() - started, 3),
        timed_out=timed_out,
        truncated=truncated,
    )
