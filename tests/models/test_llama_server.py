"""Our llama.cpp server (`models/llama_server.py`): its layer that stops an answer whose client
has gone, on a real uvicorn server over HTTP, with an app that stands where the model's answer
would be (a worker thread, as llama-cpp-python's server answers); the real model served is
tested in `test_serve.py`. Marked `slow`: uvicorn comes with the model's server packages."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from hillclimber.models.llama_server import (
    GENERATING,
    Receive,
    Send,
    StopWhenGone,
    UntilGone,
    client_gone,
    stopping_when_gone,
)
from hillclimber.models.serve import free_port

from conftest import missing

pytestmark = pytest.mark.slow


class Answering:
    """An app that answers a generating path from a worker thread, token by token, until it has
    said `tokens` or its client has gone (what `UntilGone` tells llama.cpp); what it saw is
    kept."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self.bodies: list[bytes] = []
        self.said: list[int] = []

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        import anyio.to_thread

        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.bodies.append(body)
        said = await anyio.to_thread.run_sync(self._answer)
        self.said.append(said)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": json.dumps({"said": said}).encode()})

    def _answer(self) -> int:
        gone = client_gone.get()
        stop = UntilGone(gone) if gone is not None else None
        for said in range(self.tokens):
            if stop is not None and stop(None, None):
                return said
            time.sleep(0.01)
        return self.tokens


@pytest.fixture
def server() -> Iterator[tuple[str, Answering]]:
    try:
        import uvicorn
    except ImportError:
        missing("uvicorn (it comes with llama-cpp-python[server]: bash scripts/install.sh)")
    app = Answering(tokens=3000)  # 30 s if nothing stops it
    port = free_port()
    config = uvicorn.Config(
        StopWhenGone(app), host="127.0.0.1", port=port, log_level="error", lifespan="off"
    )
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        running.should_exit = True
        thread.join(10)


def test_an_answer_stops_once_its_client_has_gone(server: tuple[str, Answering]) -> None:
    url, app = server
    with pytest.raises(httpx.TimeoutException):
        httpx.post(f"{url}/v1/chat/completions", json={"ask": "long"}, timeout=0.5)
    deadline = time.monotonic() + 30
    while not app.said:
        assert time.monotonic() < deadline, "the answer went on after its client had gone"
        time.sleep(0.05)
    assert 0 < app.said[0] < app.tokens
    assert json.loads(app.bodies[0]) == {"ask": "long"}  # the app read the body as sent


def test_an_answer_whose_client_waits_is_given_whole(server: tuple[str, Answering]) -> None:
    url, app = server
    app.tokens = 50
    big = {"ask": "x" * 200_000}  # a body that arrives in several messages
    answer = httpx.post(f"{url}/v1/completions", json=big, timeout=30)
    assert answer.json() == {"said": 50}
    assert json.loads(app.bodies[0]) == big


def test_other_paths_pass_as_they_are(server: tuple[str, Answering]) -> None:
    url, app = server
    app.tokens = 5
    assert httpx.get(f"{url}/v1/models", timeout=30).json() == {"said": 5}
    assert "/v1/models" not in GENERATING


def test_the_models_completion_is_given_the_criterion_only_for_a_watched_request() -> None:
    """The wrapper adds `UntilGone` to what the caller gave, inside a generating request only."""
    seen: list[Any] = []

    def create_completion(self: object, prompt: str, **kwargs: Any) -> None:
        seen.append(kwargs.get("stopping_criteria"))

    create = stopping_when_gone(create_completion)
    create(object(), "p")
    gone = threading.Event()
    token = client_gone.set(gone)
    try:
        create(object(), "p", stopping_criteria=[len])
    finally:
        client_gone.reset(token)
    assert seen[0] is None
    assert seen[1][0] is len and isinstance(seen[1][1], UntilGone)
    assert seen[1][1].gone is gone


def test_the_criterion_counts_tokens_until_the_client_goes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    gone = threading.Event()
    stop = UntilGone(gone)
    assert not any(stop(None, None) for _ in range(7))
    gone.set()
    assert stop(None, None) and stop(None, None)
    assert capsys.readouterr().out == "stopped an answer after 7 tokens: its client has gone\n"
