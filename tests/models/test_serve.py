"""`hillclimber models serve`: the embedded model behind llama.cpp's OpenAI-compatible server.
The served tests run the real server on the real model (marked `model`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hillclimber.errors import HillclimberError, ModelUnavailable
from hillclimber.models import CompletionRequest, Message, ModelConfig, embedded, make_model
from hillclimber.models.serve import Served, embedded_name, serve, server_command

from conftest import IN_CI


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
    assert command[1:3] == ["-m", "llama_cpp.server"]
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--model_alias") + 1] == "m"
    assert command[command.index("--port") + 1] == "8123"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    try:
        with serve("local", port=0) as running:
            yield running
    except ModelUnavailable as err:
        if IN_CI:
            pytest.fail(f"CI must serve the embedded model: {err}")
        pytest.skip(str(err))


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
def test_serve_starts_answers_and_stops_on_ctrl_c() -> None:
    if embedded.installed_path(embedded.DEFAULT_MODEL) is None and not IN_CI:
        pytest.skip("the embedded model is not installed")
    process = subprocess.Popen(
        [sys.executable, "-m", "hillclimber", "models", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert " at http://127.0.0.1:" in first, first
        base_url = first.split(" at ", 1)[1].strip()
        model = make_model(ModelConfig(spec=f"openai:{embedded.DEFAULT_MODEL}", base_url=base_url))
        request = CompletionRequest(messages=[Message(role="user", content="Hi")], max_tokens=4)
        assert model.complete(request).text.strip()
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole group, as in a terminal
        code = process.wait(timeout=30)
        rest = process.stdout.read()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert code == 0, rest
    assert "stopped" in rest
    port = base_url.rsplit(":", 1)[1].split("/")[0]
    server = subprocess.run(["pgrep", "-f", "--", f"llama_cpp.server .*--port {port} "])
    assert server.returncode == 1, "the server outlived the command"
