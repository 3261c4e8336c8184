"""Run one host process with a time limit, a killed process group and capped output."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

DEFAULT_OUTPUT_CAP = 1 << 20  # bytes kept per stream; the rest is counted, not stored
WATCH_EVERY_SEC = 1.0
LEFT_RUNNING_GRACE_SEC = 0.1
"""How long, after a command that leaves processes running has exited, its output is still
read: what it printed itself is in the pipe already; the rest is its children's."""


@dataclass(frozen=True)
class ProcessResult:
    exit_code: int
    """The exit code; negative for a signal, -9 after a timeout kill."""
    stdout: str
    stderr: str
    duration_sec: float
    timed_out: bool = False
    stdout_bytes: int = 0
    """Bytes the process wrote to stdout (more than `stdout` holds when capped)."""
    stderr_bytes: int = 0
    output_exceeded: bool = False
    """Ended for printing more than `max_output` bytes."""
    stopped: str | None = None
    """Why the `watch` of `run_process` ended it."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def truncated(self) -> bool:
        return self.stdout_bytes > len(self.stdout.encode()) or self.stderr_bytes > len(
            self.stderr.encode()
        )

    @property
    def output(self) -> str:
        return join_output(self.stdout, self.stderr)


TAIL_LINES = 20
"""How much of a failed step's output its error keeps (a setup step, an image build)."""


def last_lines(text: str, count: int = TAIL_LINES) -> str:
    """The last `count` lines of `text`: where a failed command says why."""
    return "\n".join(text.rstrip().splitlines()[-count:])


def join_output(stdout: str, stderr: str) -> str:
    """stdout then stderr, as a person at a terminal would see them."""
    if stdout and stderr:
        return stdout + ("" if stdout.endswith("\n") else "\n") + stderr
    return stdout or stderr


class _Printed:
    """Bytes a process printed on both streams; past `limit` its group is killed."""

    def __init__(self, proc: subprocess.Popen[bytes], limit: int | None) -> None:
        self.proc = proc
        self.limit = limit
        self.total = 0
        self.exceeded = False
        self._lock = threading.Lock()

    def add(self, count: int) -> None:
        with self._lock:
            self.total += count
            over = self.limit is not None and self.total > self.limit and not self.exceeded
            if over:
                self.exceeded = True
        if over:
            _kill_group(self.proc)


class _CappedReader(threading.Thread):
    def __init__(self, stream: IO[bytes], cap: int, printed: _Printed) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.cap = cap
        self.printed = printed
        self.chunks: list[bytes] = []
        self.kept = 0
        self.total = 0
        self._lock = threading.Lock()
        self._detached = False

    def run(self) -> None:
        while chunk := self.stream.read1(65536):  # type: ignore[attr-defined]
            with self._lock:
                if self._detached:
                    continue  # drained, never stored: the writer must not meet a closed pipe
                self.total += len(chunk)
                room = self.cap - self.kept
                if room > 0:
                    self.chunks.append(chunk[:room])
                    self.kept += min(room, len(chunk))
            self.printed.add(len(chunk))

    def detach(self) -> None:
        """Stop keeping what comes: a process the command left running holds the pipe, and
        what it prints later is not the command's."""
        with self._lock:
            self._detached = True

    def text(self) -> str:
        with self._lock:
            return b"".join(self.chunks).decode("utf-8", errors="replace")


T = TypeVar("T")

_live: set[subprocess.Popen[bytes]] = set()
_live_lock = threading.Lock()


_stopping = threading.Event()


class Stopped(RuntimeError):
    """No new process starts once `stop_all` was called (until `resume`)."""


def stop_all() -> None:
    """Kill every process group still running and start no new one (Ctrl-C in a run)."""
    _stopping.set()
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        _kill_group(proc)


def resume() -> None:
    _stopping.clear()


def stopping() -> bool:
    """Whether the run is stopping (`stop_all`): what waits on something outside a process —
    a model's answer, a trial's next phase — gives up at its next look."""
    return _stopping.is_set()


def unless_stopped(call: Callable[[], T], poll: float = 0.5) -> T:
    """What `call` returns, or `Stopped` if the run is stopping before it starts or as soon as
    it stops while the call waits (a model's answer over HTTP: no thread can be made to give
    up a call, so the call is left to end in a daemon thread, which the exit does not wait
    for)."""
    if _stopping.is_set():
        raise Stopped("the run is stopping")
    outcome: list[T] = []
    failed: list[BaseException] = []
    done = threading.Event()

    def wait_for_it() -> None:
        try:
            outcome.append(call())
        except BaseException as err:  # handed on to the caller below
            failed.append(err)
        finally:
            done.set()

    threading.Thread(target=wait_for_it, name="unless-stopped", daemon=True).start()
    while not done.wait(poll):
        if _stopping.is_set():
            raise Stopped("the run is stopping")
    if failed:
        raise failed[0]
    return outcome[0]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _exited_within(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the process to exit. Where Linux gives a pidfd, sleep on it until the exit
    (Popen.wait with a timeout polls, which adds milliseconds to every short command)."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        try:
            ready, _, _ = select.select([pidfd], [], [], timeout)
        finally:
            os.close(pidfd)
        if not ready:
            return False
    try:
        proc.wait(timeout=timeout if pidfd is None else 1.0)
    except subprocess.TimeoutExpired:
        return False
    return True


def _wait(
    proc: subprocess.Popen[bytes], timeout: float, watch: Callable[[], str | None] | None
) -> tuple[bool, str | None]:
    """(timed out, why `watch` ended it): wait for the exit, asking `watch` every second."""
    if watch is None:
        return not _exited_within(proc, timeout), None
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if _exited_within(proc, max(min(WATCH_EVERY_SEC, left), 0.001)):
            return False, None
        if (reason := watch()) is not None:
            _kill_group(proc)
            return False, reason
        if left <= WATCH_EVERY_SEC:
            return True, None


def _feed(proc: subprocess.Popen[bytes], stdin: bytes | None) -> None:
    """Write `stdin` to the process and close it (a process that exits first reads none)."""
    if stdin is None:
        return
    assert proc.stdin is not None
    try:
        proc.stdin.write(stdin)
        proc.stdin.close()
    except BrokenPipeError:
        pass


def _spawn(
    argv: Sequence[str],
    cwd: Path | None,
    env: Mapping[str, str] | None,
    stdin: bool,
    pass_fds: Sequence[int],
) -> subprocess.Popen[bytes]:
    """argv started in a session of its own, known to `stop_all`."""
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )
    with _live_lock:
        _live.add(proc)
    return proc


def run_process(
    argv: Sequence[str],
    *,
    timeout: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    max_output: int | None = None,
    watch: Callable[[], str | None] | None = None,
    pass_fds: Sequence[int] = (),
    leave_running: bool = False,
) -> ProcessResult:
    """Run argv in a new session; on timeout, once it printed more than `max_output` bytes, or
    when `watch` (asked every second while it runs) gives a reason, kill its process group.
    After a normal exit the group is killed too, unless `leave_running` (a session the caller
    holds keeps what the command started in the background, and ends it later)."""
    if _stopping.is_set():
        raise Stopped("the run is stopping")
    start = time.monotonic()
    proc = _spawn(argv, cwd, env, stdin is not None, pass_fds)
    assert proc.stdout is not None and proc.stderr is not None
    printed = _Printed(proc, max_output)
    readers = [_CappedReader(stream, output_cap, printed) for stream in (proc.stdout, proc.stderr)]
    for reader in readers:
        reader.start()
    _feed(proc, stdin)
    timed_out, stopped = True, None  # what a wait cut short (Ctrl-C) counts as
    try:
        timed_out, stopped = _wait(proc, max(timeout, 0.001), watch)
    finally:
        ended = not leave_running or timed_out or stopped is not None or printed.exceeded
        if ended:  # background children must not outlive a command no session holds
            _kill_group(proc)
        proc.wait()
        with _live_lock:
            _live.discard(proc)
    _collect(readers, LEFT_RUNNING_GRACE_SEC if not ended else 5.0)
    out, err = readers
    return ProcessResult(
        exit_code=-signal.SIGKILL if timed_out else proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        duration_sec=time.monotonic() - start,
        timed_out=timed_out,
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        output_exceeded=printed.exceeded,
        stopped=stopped,
    )


def _collect(readers: list[_CappedReader], grace: float) -> None:
    """Wait for the output to end (at most `grace` seconds in all); a stream still held open
    by a process left running is detached from the result and drained in the background."""
    deadline = time.monotonic() + grace
    for reader in readers:
        reader.join(timeout=max(deadline - time.monotonic(), 0))
        if reader.is_alive():
            reader.detach()
