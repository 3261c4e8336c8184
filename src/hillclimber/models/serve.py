"""An embedded model behind an OpenAI-compatible server on 127.0.0.1.

The server is llama.cpp's own, as llama-cpp-python ships it, with one change: an answer whose
client has gone stops at its next token (`llama_server.py`). It runs as a child process: any
other tool (mini-swe-agent, Harbor's Terminus-2, a user's script) can then use the same weights
the harness runs in-process, at `http://127.0.0.1:PORT/v1` under the model's name. `serve()`
starts it, waits until it answers, and stops it on leaving.

Lookup decoding (`lookup.py`) is the server's own when asked (`lookup`): its drafter
(`LlamaPromptLookupDecoding`: the last 2 tokens or 1 looked up, 10 drafted) with its logits for
every token (the server's `logits_all`, on by default there anyway). Off by default: that way
decoded 4 recorded write_file answers of the 0.5B at 0.3-0.6x the speed, and 3 of the 4
answers differed (benchmarks/speed.py measures the in-process way, which pays).
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from hillclimber.errors import ModelUnavailable
from hillclimber.models import embedded

HOST = "127.0.0.1"
READY_TIMEOUT_SEC = 180.0
"""Loading the 1.5B from a cold disk takes tens of seconds here."""
STOP_TIMEOUT_SEC = 15.0


@dataclass(frozen=True)
class Served:
    name: str
    """The model's name in requests (`model=`), and the embedded model it is."""
    base_url: str
    """`http://127.0.0.1:PORT/v1`."""
    process: subprocess.Popen[bytes]
    log: Path
    """Where the server writes what it says."""
    context_window: int
    """The tokens of prompt and answer it serves (`--n_ctx`)."""

    def spec(self) -> str:
        """The model spec a hillclimber command takes for it (with `--base-url`)."""
        return f"openai:{self.name}"


def embedded_name(spec: str) -> str:
    """The embedded model a spec names: `local`, `local:NAME` or `NAME`."""
    kind, colon, name = spec.partition(":")
    if colon and kind != "local":
        raise ModelUnavailable(
            f"model '{spec}': only an embedded model (local, local:NAME) is served"
        )
    name = name if colon else ("" if spec == "local" else spec)
    return embedded.lookup(name or embedded.DEFAULT_MODEL).name


def server_command(
    name: str, path: Path, *, port: int, n_ctx: int, threads: int, lookup: bool = False
) -> list[str]:
    """llama.cpp's server for the model file, on 127.0.0.1 only, seeded as the in-process
    model is (`local.py`); with `lookup`, the server's own lookup decoding."""
    drafting = ["--draft_model", "prompt-lookup-decoding"] if lookup else []
    return [
        sys.executable, "-m", "hillclimber.models.llama_server",
        "--model", str(path),
        "--model_alias", name,
        "--host", HOST,
        "--port", str(port),
        "--n_ctx", str(n_ctx),
        "--n_threads", str(threads),
        "--seed", "0",
        *drafting,
    ]  # fmt: skip


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve(
    spec: str = "local",
    *,
    port: int = 0,
    context_window: int | None = None,
    threads: int = 2,
    log: Path | None = None,
    lookup: bool = False,
) -> Iterator[Served]:
    """The model served until the block ends (port 0: a free one); `lookup`: with the
    server's own lookup decoding."""
    if importlib.util.find_spec("llama_cpp.server") is None or not _has_server_packages():
        raise ModelUnavailable(
            "serving needs llama-cpp-python's server: pip install 'hillclimber[local]' "
            "(bash scripts/install.sh does it)"
        )
    name = embedded_name(spec)
    path = embedded.require(name)
    port = port or free_port()
    n_ctx = context_window or embedded.lookup(name).n_ctx
    log = log or Path(tempfile.mkstemp(prefix=f"serve-{name}-", suffix=".log")[1])
    command = server_command(name, path, port=port, n_ctx=n_ctx, threads=threads, lookup=lookup)
    with log.open("wb") as out:
        process = subprocess.Popen(_with_parent(command), stdout=out, stderr=subprocess.STDOUT)
    served = Served(name, f"http://{HOST}:{port}/v1", process, log, n_ctx)
    try:
        _wait_ready(served)
        yield served
    except BaseException:  # a block that failed or was stopped: no one waits for an answer
        process.kill()  # under way, which a graceful stop would finish first
        raise
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT_SEC)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _wait_ready(served: Served, timeout: float = READY_TIMEOUT_SEC) -> None:
    """Until the server lists its model; a server that exits or never answers is an error
    with the end of its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            raise ModelUnavailable(
                f"the model server exited ({served.process.returncode}): {_tail(served.log)}"
            )
        try:
            if httpx.get(f"{served.base_url}/models", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise ModelUnavailable(
        f"the model server did not answer within {timeout:.0f}s: {_tail(served.log)}"
    )


def wait_until_free(base_url: str, timeout: float) -> float:
    """Seconds until the server at `base_url` has finished what it is computing, at most
    `timeout`. A llama.cpp server answers one call at a time; ours stops an answer whose client
    has gone but reads a prompt it has begun to its end, and another may compute the whole call
    (llama-cpp-python's own does), so a trial that ran out of time during a call would
    otherwise hand the rest of that call to the next trial's clock. Its model list waits for the
    model to be free (a server that computes calls side by side answers at once)."""
    started = time.monotonic()
    with contextlib.suppress(httpx.HTTPError):  # gone or still busy: the next call says so
        httpx.get(f"{base_url}/models", timeout=timeout)
    return time.monotonic() - started


def _with_parent(command: list[str]) -> list[str]:
    """The command made to end when the process that started it ends, however that ends (a
    kill -9 of `compare` would otherwise leave the model served): util-linux's setpriv, where
    the machine has it. KILL, not TERM: the server's graceful stop waits for the answer it is
    computing, which an abandoned call can make minutes long."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *command] if setpriv else command


def _tail(log: Path, lines: int = 3) -> str:
    text = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return " | ".join(text[-lines:]) or f"nothing in {log}"


def _has_server_packages() -> bool:
    return all(importlib.util.find_spec(name) for name in ("uvicorn", "fastapi", "sse_starlette"))
