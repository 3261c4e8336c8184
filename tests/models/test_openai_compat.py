"""OpenAICompatModel against a real HTTP server on 127.0.0.1 (tests/openai_server.py)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import pytest

from hillclimber import process
from hillclimber.errors import BadResponse, ContextExceeded, ModelTimeout, ModelUnavailable
from hillclimber.models.base import (
    CompletionRequest,
    Message,
    ModelProfile,
    OutputConstraint,
)
from hillclimber.models.openai_compat import OpenAICompatModel

from openai_server import FakeServer, Reply, closed_port

CALL = {"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello, world!"}}
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "enum": ["write_file", "run", "task_complete"]},
        "arguments": {"type": "object"},
    },
    "required": ["name", "arguments"],
}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


def make(
    server: FakeServer,
    *,
    constraint: bool = False,
    max_retries: int = 2,
    timeout: float = 5.0,
    base_url: str | None = None,
) -> OpenAICompatModel:
    profile = ModelProfile(name="test-model", context_window=4096, supports_constraint=constraint)
    return OpenAICompatModel(
        "test-model",
        base_url or server.url,
        profile,
        timeout=timeout,
        max_retries=max_retries,
    )


def ask(**kwargs: object) -> CompletionRequest:
    return CompletionRequest.from_prompt("Create hello.txt", system="You are an agent.", **kwargs)


# -- answers -------------------------------------------------------------------------------


def test_success_carries_text_usage_latency_and_finish(server: FakeServer) -> None:
    server.script(
        Reply(text="hello", usage={"prompt_tokens": 21, "completion_tokens": 2, "total_tokens": 23})
    )
    completion = make(server).complete(ask())
    assert completion.text == "hello"
    assert completion.finish_reason == "stop"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (21, 2)
    assert completion.usage.estimated is False
    assert completion.latency_sec > 0
    assert completion.model == "test-model"
    assert completion.constrained is False


def test_request_carries_every_setting(server: FakeServer) -> None:
    request = CompletionRequest(
        messages=[
            Message(role="system", content="You are an agent."),
            Message(role="user", content="Create hello.txt"),
            Message(role="assistant", content='{"name": "run"}'),
            Message(role="user", content="ok"),
        ],
        temperature=0.7,
        max_tokens=123,
        seed=42,
        stop=["</tool_call>"],
    )
    make(server).complete(request)
    [body] = server.bodies("/v1/chat/completions")
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.7
    assert body["max_tokens"] == 123
    assert body["seed"] == 42
    assert body["stop"] == ["</tool_call>"]
    assert body["messages"] == [m.model_dump() for m in request.messages]
    assert "response_format" not in body


def test_temperature_zero_and_no_seed_are_sent_as_such(server: FakeServer) -> None:
    make(server).complete(ask(temperature=0.0, seed=None))
    [body] = server.bodies()
    assert body["temperature"] == 0.0  # a falsy value must not be dropped
    assert "seed" not in body


def test_finish_reason_length(server: FakeServer) -> None:
    server.script(Reply(text="half an ans", finish_reason="length"))
    assert make(server).complete(ask(max_tokens=3)).finish_reason == "length"


def test_no_usage_from_server_is_estimated(server: FakeServer) -> None:
    server.script(Reply(text="x" * 70, usage=None))
    completion = make(server).complete(ask())
    assert completion.usage.estimated is True
    assert completion.usage.completion_tokens == 20  # 70 chars / 3.5
    assert completion.usage.prompt_tokens > 0


# -- constrained output --------------------------------------------------------------------


def test_schema_sent_when_profile_supports_it(server: FakeServer) -> None:
    server.script(Reply(text=json.dumps(CALL)))
    model = make(server, constraint=True)
    completion = model.complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    [body] = server.bodies()
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "tool_call", "schema": SCHEMA},
    }
    assert completion.constrained is True
    assert json.loads(completion.text) == CALL


def test_schema_not_sent_when_profile_lacks_it(server: FakeServer) -> None:
    server.script(Reply(text=json.dumps(CALL)))
    completion = make(server).complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    assert "response_format" not in server.bodies()[0]
    assert completion.constrained is False


def test_rejected_response_format_is_retried_once_without_it() -> None:
    with FakeServer(response_format_supported=False) as server:
        server.script(Reply(text=json.dumps(CALL)))
        model = make(server, constraint=True)
        completion = model.complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
        first, second = server.bodies()
    assert "response_format" in first
    assert "response_format" not in second
    assert model.profile.supports_constraint is False
    assert completion.constrained is False
    assert json.loads(completion.text) == CALL


# -- retries and errors --------------------------------------------------------------------


def test_429_then_success(server: FakeServer) -> None:
    server.script(Reply(status=429, error="slow down"), Reply(text="done"))
    assert make(server).complete(ask()).text == "done"
    assert server.count == 2


def test_500_then_success(server: FakeServer) -> None:
    server.script(Reply(status=500, error="model is loading"), Reply(text="done"))
    assert make(server).complete(ask()).text == "done"
    assert server.count == 2


def test_500_every_time_is_bad_response_after_bounded_retries(server: FakeServer) -> None:
    server.default = Reply(status=500, error="internal error")
    with pytest.raises(BadResponse, match="internal error"):
        make(server, max_retries=2).complete(ask())
    assert server.count == 1 + 2


def test_overflow_reported_as_500_is_not_retried(server: FakeServer) -> None:
    server.script(Reply(status=500, error="Exceeded model context window size (4096)"))
    with pytest.raises(ContextExceeded):
        make(server).complete(ask())
    assert server.count == 1


def test_slow_server_is_a_timeout(server: FakeServer) -> None:
    server.script(Reply(text="late", delay=3.0))
    with pytest.raises(ModelTimeout):
        make(server, timeout=0.3, max_retries=0).complete(ask())


def test_a_stopping_run_gives_up_a_call_that_waits(server: FakeServer) -> None:
    """Ctrl-C during a call: the call is given up where it waits, not at its timeout."""
    server.script(Reply(hang=True))

    def stop_once_asked() -> None:
        while not server.bodies():
            time.sleep(0.05)
        process.stop_all()

    threading.Thread(target=stop_once_asked, daemon=True).start()
    try:
        with pytest.raises(process.Stopped):
            make(server, timeout=120, max_retries=0).complete(ask())
    finally:
        process.resume()


def test_nothing_listening_is_unavailable(server: FakeServer) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(ModelUnavailable, match="cannot reach"):
        make(server, base_url=url, max_retries=0).complete(ask())


def test_404_is_unavailable_without_retry(server: FakeServer) -> None:
    server.script(Reply(status=404, error="model 'test-model' not found"))
    with pytest.raises(ModelUnavailable, match="not found"):
        make(server).complete(ask())
    assert server.count == 1


def test_other_4xx_is_bad_response_without_retry(server: FakeServer) -> None:
    server.script(Reply(status=400, error="messages: field required"))
    with pytest.raises(BadResponse, match="field required"):
        make(server).complete(ask())
    assert server.count == 1


def test_answer_without_choices_is_bad_response(server: FakeServer) -> None:
    server.script(Reply(raw='{"id": "x", "object": "chat.completion", "choices": []}'))
    with pytest.raises(BadResponse, match="without choices"):
        make(server).complete(ask())


# -- known bugs in openai_compat.py (strict: they start failing once fixed) ----------------


def test_non_json_answer_is_bad_response(server: FakeServer) -> None:
    server.script(Reply(raw="<html>502 from a proxy, but with status 200</html>"))
    with pytest.raises(BadResponse):
        make(server).complete(ask())


def test_choice_without_message_is_bad_response(server: FakeServer) -> None:
    server.script(Reply(raw='{"choices": [{"index": 0, "finish_reason": "stop"}]}'))
    with pytest.raises(BadResponse):
        make(server).complete(ask())


def test_partial_usage_falls_back_to_estimate(server: FakeServer) -> None:
    server.script(Reply(text="hi", usage={"completion_tokens": 1}))  # no prompt_tokens
    completion = make(server).complete(ask())
    assert completion.text == "hi"
    assert completion.usage.estimated is True


def test_response_format_rejected_with_422_falls_back(server: FakeServer) -> None:
    # FastAPI/pydantic servers (several FM bridges) reject unknown fields with 422.
    detail = [{"loc": ["body", "response_format"], "msg": "extra fields not permitted"}]
    server.script(Reply(status=422, error={"detail": detail}), Reply(text=json.dumps(CALL)))
    model = make(server, constraint=True)
    completion = model.complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    assert json.loads(completion.text) == CALL
    assert server.count == 2
