"""`EnvironmentSandbox`, the bridge from our sandbox API to a Harbor environment, in what it does
that no other sandbox does: a walk is one `find`, and once stopped nothing more reaches the
environment. What it does as every sandbox does, the conformance list checks over Harbor's own
environment class (`conformance/harbor.py`). The environment here is a real bwrap sandbox
behind async methods of Harbor's signatures (Harbor itself needs Python 3.12)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hillclimber.errors import AgentTimeout
from hillclimber.harbor.sandbox import EnvironmentSandbox
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
