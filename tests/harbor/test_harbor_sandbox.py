"""`EnvironmentSandbox`: our sandbox API over an async Harbor-style environment, driven from a
worker thread as the Harbor agent drives it. The environment here is a real bwrap sandbox
behind async methods of Harbor's signatures (Harbor itself needs Python 3.12: the runs through
Harbor are in test_harbor_run.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hillclimber.errors import AgentTimeout
from hillclimber.harbor.sandbox import EnvironmentSandbox
from hillclimber.harness.climbing.workspace import restored
from hillclimber.sandbox import (
    FileInfo,
    Sandbox,
    SandboxKind,
    create_sandbox,
    trial_layout,
    walk,
)

from conftest import require_sandbox


class Result:
    def __init__(self, stdout: str, stderr: str, return_code: int) -> None:
        self.stdout, self.stderr, self.return_code = stdout, stderr, return_code


class AsyncEnvironment:
    """Harbor's environment methods over one of our sandboxes (timeouts raise, as Docker's
    environment does)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.calls: list[str] = []

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> Result:
        self.calls.append(command)
        done = await asyncio.to_thread(
            self.sandbox.run, command, timeout=float(timeout_sec or 60), cwd=cwd or "/app", env=env
        )
        if done.timed_out:
            raise RuntimeError(f"Command timed out after {timeout_sec} seconds")
        return Result(done.stdout, done.stderr, done.exit_code)

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        self.sandbox.upload(Path(source_path), target_path)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        self.sandbox.upload(Path(source_dir), target_dir)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        Path(target_path).write_bytes(self.sandbox.read_file(source_path))


@pytest.fixture
def bridged(tmp_path: Path) -> Iterator[tuple[EnvironmentSandbox, AsyncEnvironment, Path]]:
    """(the bridged sandbox, the environment under it, the workspace's host folder), with
    the environment's event loop running in a thread of its own as Harbor's would."""
    require_sandbox(SandboxKind.BWRAP)
    inner = create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path / "trial"))
    environment = AsyncEnvironment(inner)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield EnvironmentSandbox(environment, loop), environment, tmp_path / "trial" / "workspace"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


def test_commands_run_with_exit_codes_and_time_limits(bridged: Any) -> None:
    sandbox, _, _ = bridged
    done = sandbox.run("echo hi; echo oops >&2; exit 3", timeout=20)
    assert (done.exit_code, done.stdout, done.stderr.strip()) == (3, "hi\n", "oops")
    slow = sandbox.run("sleep 30", timeout=1)
    assert slow.timed_out and not slow.ok


def test_the_file_api_reads_and_writes_through_the_environment(bridged: Any) -> None:
    sandbox, _, workspace = bridged
    sandbox.write_file("notes/a.txt", b"one\ntwo\n", mode=0o755)
    assert (workspace / "notes" / "a.txt").read_bytes() == b"one\ntwo\n"
    assert sandbox.read_file("/app/notes/a.txt") == b"one\ntwo\n"
    assert sandbox.read_file("notes/a.txt", limit=3) == b"one"
    assert sandbox.run("test -x /app/notes/a.txt", timeout=10).ok
    binary = bytes(range(256))
    sandbox.write_file("/app/blob.bin", binary)
    assert sandbox.read_file("/app/blob.bin") == binary
    assert sandbox.listdir("/app") == ["blob.bin", "notes"]
    info = sandbox.stat("/app/notes/a.txt")
    assert info is not None and (info.kind, info.size, info.link) == ("file", 8, False)
    sandbox.run("ln -s notes/a.txt /app/link", timeout=10)
    link = sandbox.stat("/app/link")
    assert link is not None and (link.kind, link.link) == ("file", True)
    assert sandbox.stat("/app/nothing") is None
    assert sandbox.stat("/app/notes") == sandbox.stat("notes")
    with pytest.raises(FileNotFoundError):
        sandbox.read_file("/app/nothing")
    with pytest.raises(IsADirectoryError):
        sandbox.read_file("/app/notes")


class EntryByEntry:
    """A sandbox's listdir and stat alone: what `walk` does without a `tree`."""

    def __init__(self, sandbox: EnvironmentSandbox) -> None:
        self.listdir, self.stat = sandbox.listdir, sandbox.stat


def test_a_walk_is_one_find_and_sees_what_the_sandbox_sees(bridged: Any) -> None:
    sandbox, environment, workspace = bridged
    (workspace / "src" / "deep").mkdir(parents=True)
    (workspace / "src" / "deep" / "a b.txt").write_text("hello")
    (workspace / "src" / "main.py").write_text("print(1)\n")
    (workspace / "z.txt").write_text("")
    (workspace / "to-main").symlink_to("src/main.py")
    (workspace / "to-src").symlink_to("src")
    (workspace / "nowhere").symlink_to("missing")
    environment.calls.clear()
    walked = list(walk(sandbox, "/app"))
    assert len(environment.calls) == 2  # the find, and the size behind the link to a file
    assert walked == list(walk(EntryByEntry(sandbox), "/app"))  # type: ignore[arg-type]
    assert [path for path, _ in walked] == [
        "/app/nowhere",
        "/app/src",
        "/app/src/deep",
        "/app/src/deep/a b.txt",
        "/app/src/main.py",
        "/app/to-main",
        "/app/to-src",
        "/app/z.txt",
    ]
    info = dict(walked)
    assert info["/app/to-main"] == FileInfo("file", 9, True)
    assert info["/app/to-src"] == FileInfo("dir", 0, True)
    assert info["/app/nowhere"].kind == "other"
    with pytest.raises(FileNotFoundError):
        list(walk(sandbox, "/app/missing"))


def test_a_folder_is_uploaded_into_what_is_there(bridged: Any, tmp_path: Path) -> None:
    sandbox, _, workspace = bridged
    source = tmp_path / "src"
    (source / "deep").mkdir(parents=True)
    (source / "deep" / "x.txt").write_text("x")
    sandbox.write_file("/app/data/kept.txt", b"kept")
    sandbox.upload(source, "/app/data")
    assert (workspace / "data" / "deep" / "x.txt").read_text() == "x"
    assert (workspace / "data" / "kept.txt").read_text() == "kept"


def test_a_snapshot_puts_the_workspace_back_exactly(bridged: Any) -> None:
    sandbox, _, workspace = bridged
    sandbox.write_file("/app/keep.txt", b"before\n", mode=0o640)
    with restored(sandbox, "/app") as snapshot:
        assert dict(snapshot.files(1 << 20)) == {"keep.txt": b"before\n"}
        sandbox.write_file("/app/keep.txt", b"after\n")
        sandbox.write_file("/app/new/file.txt", b"new")
    assert sorted(p.name for p in workspace.iterdir()) == ["keep.txt"]
    assert (workspace / "keep.txt").read_bytes() == b"before\n"
    assert (workspace / "keep.txt").stat().st_mode & 0o777 == 0o640
    assert sandbox.run("ls -A /tmp/.hillclimber-snapshots", timeout=10).stdout == ""


def test_once_stopped_nothing_more_reaches_the_environment(bridged: Any) -> None:
    sandbox, environment, _ = bridged
    sandbox.run("true", timeout=10)
    before = len(environment.calls)
    sandbox.stop()
    with pytest.raises(AgentTimeout):
        sandbox.run("touch /app/late", timeout=10)
    with pytest.raises(AgentTimeout):
        sandbox.write_file("/app/late", b"")
    assert len(environment.calls) == before
