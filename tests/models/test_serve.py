"""`hillclimber models serve`: the embedded model behind llama.cpp's OpenAI-compatible server.
The served tests run the real server on the real model (marked `model`)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hillclimber.errors import HillclimberError, ModelUnavailable
from hillclimber.models import CompletionRequest, Message, ModelConfig, embedded, make_model
from hillclimber.models.serve import (
    STOP_TIMEOUT_SEC,
    Served,
    _with_parent,
    embedded_name,
    serve,
    server_command,
    wait_until_free,
)

from conftest import ctrl_c_acts, missing


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("local", embedded.DEFAULT_MODEL),
        ("local:qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b"),
        ("qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b"),
    ],
)
def test_the_spec_names_an_embedded_model(spec: str, name: str) -> None:
    assert embedded_name(spec) == name


def test_only_embedded_models_are_served() -> None:
    with pytest.raises(ModelUnavailable, match="only an embedded model"):
        embedded_name("ollama:qwen2.5-coder:3b")
    with pytest.raises(HillclimberError, match="no embedded model 'nope'"):
        embedded_name("local:nope")


def test_the_server_listens_on_this_machine_only() -> None:
    command = server_command("m", Path("/models/m.gguf"), port=8123, n_ctx=4096, threads=2)
    assert command[1:3] == ["-m", "hillclimber.models.llama_server"]
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--model_alias") + 1] == "m"
    assert command[command.index("--port") + 1] == "8123"
    assert "--draft_model" not in command


def test_lookup_serves_with_the_servers_own_drafter() -> None:
    command = server_command("m", Path("/m.gguf"), port=1, n_ctx=4096, threads=2, lookup=True)
    assert command[command.index("--draft_model") + 1] == "prompt-lookup-decoding"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    try:
        with serve("local", port=0) as running:
            yield running
    except ModelUnavailable as err:
        missing(f"the served embedded model: {err}")


@pytest.mark.model
def test_a_served_model_answers_our_openai_back_end(served: Served) -> None:
    model = make_model(ModelConfig(spec=served.spec(), base_url=served.base_url))
    request = CompletionRequest(
        messages=[Message(role="user", content="Reply with the word yes.")], max_tokens=8
    )
    completion = model.complete(request)
    assert completion.text.strip()
    assert completion.usage.prompt_tokens > 0


@pytest.mark.model
def test_an_answer_whose_client_has_gone_stops_and_frees_the_model(served: Served) -> None:
    """A call given up on stops at its next token (llama-cpp-python's own server computed it to
    its end, and the next call waited behind it); the model is free for the next call, which
    is answered whole."""
    log = served.log.read_text(errors="replace")
    ask = {
        "model": served.name,
        "messages": [{"role": "user", "content": "Count from 1 to 400, one number a line."}],
        "max_tokens": 400,
        "temperature": 0,
    }
    with pytest.raises(httpx.TimeoutException):
        httpx.post(f"{served.base_url}/chat/completions", json=ask, timeout=2.0)
    wait_until_free(served.base_url, timeout=300)
    said = served.log.read_text(errors="replace")[len(log) :]
    stopped = re.findall(r"stopped an answer after (\d+) tokens: its client has gone", said)
    assert len(stopped) == 1 and int(stopped[0]) < 400, said
    answer = httpx.post(
        f"{served.base_url}/chat/completions", json={**ask, "max_tokens": 8}, timeout=300
    ).json()
    assert answer["usage"]["completion_tokens"] == 8


@pytest.mark.model
def test_a_block_stopped_while_its_model_answers_kills_the_server_at_once() -> None:
    """A stopped run does not wait for the answer under way: a graceful stop waited for it
    (15 s, then a kill, at every Ctrl-C of a peer's run), so the server is killed at once."""
    if embedded.installed_path(embedded.DEFAULT_MODEL) is None:
        missing("the embedded model is not installed")
    with pytest.raises(KeyboardInterrupt), serve() as server:
        ask = {
            "model": server.name,
            "messages": [{"role": "user", "content": "Count from 1 to 400, one number a line."}],
            "max_tokens": 400,
        }
        with pytest.raises(httpx.TimeoutException):  # it goes on answering
            httpx.post(f"{server.base_url}/chat/completions", json=ask, timeout=1.0)
        stopped = time.monotonic()
        raise KeyboardInterrupt
    # the bound is the graceful stop's wait (it ran out, then the kill), not a speed
    assert time.monotonic() - stopped < STOP_TIMEOUT_SEC
    assert server.process.returncode == -signal.SIGKILL


def start_serving() -> tuple[subprocess.Popen[str], str]:
    """`hillclimber models serve --port 0` as a user starts it, and its base URL."""
    if embedded.installed_path(embedded.DEFAULT_MODEL) is None:
        missing("the embedded model is not installed")
    process = subprocess.Popen(
        [sys.executable, "-m", "hillclimber", "models", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=ctrl_c_acts,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    assert " at http://127.0.0.1:" in first, first
    return process, first.split(" at ", 1)[1].strip()


def server_gone(base_url: str) -> bool:
    port = base_url.rsplit(":", 1)[1].split("/")[0]
    for _ in range(20):
        found = subprocess.run(
            ["pgrep", "-f", "--", f"hillclimber.models.llama_server .*--port {port} "]
        )
        if found.returncode == 1:
            return True
        time.sleep(0.5)
    return False


@pytest.mark.model
@pytest.mark.parametrize(
    ("how", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)], ids=["ctrl-c", "kill"]
)
def test_serve_starts_answers_and_stops(how: signal.Signals, group: bool) -> None:
    process, base_url = start_serving()
    try:
        model = make_model(ModelConfig(spec=f"openai:{embedded.DEFAULT_MODEL}", base_url=base_url))
        request = CompletionRequest(messages=[Message(role="user", content="Hi")], max_tokens=4)
        assert model.complete(request).text.strip()
        if group:  # Ctrl-C reaches the whole group, as in a terminal
            os.killpg(process.pid, how)
        else:  # a kill reaches the command only
            process.send_signal(how)
        code = process.wait(timeout=30)
        assert process.stdout is not None
        rest = process.stdout.read()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert code == 0, rest
    assert "stopped" in rest
    assert server_gone(base_url), "the server outlived the command"


@pytest.mark.model
def test_the_server_ends_with_a_killed_command() -> None:
    process, base_url = start_serving()
    process.kill()  # kill -9: nothing of ours runs after it
    process.wait(timeout=10)
    assert server_gone(base_url), "kill -9 of the command left the model served"


def test_a_served_process_ends_with_its_parent_even_while_it_holds_on(tmp_path: Path) -> None:
    """A server stopping gracefully waits for the answer it is computing (minutes, for a call
    given up on): when `compare` is killed, what it served is killed, not asked to stop."""
    if shutil.which("setpriv") is None:
        missing("setpriv (util-linux) is not on PATH")
    pid_file = tmp_path / "child.pid"
    holds_on = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    child = _with_parent([sys.executable, "-c", holds_on])
    parent = subprocess.Popen(
        [sys.executable, "-c",
         f"import subprocess, time; p = subprocess.Popen({child!r}); "
         f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(60)"],
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.05)
        pid = int(pid_file.read_text())
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the served process outlived its parent"
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    """Running, not a zombie nobody has reaped yet."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
