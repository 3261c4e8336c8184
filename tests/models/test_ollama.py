"""OllamaModel against a real HTTP server on 127.0.0.1 speaking Ollama's native `/api/chat`."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from hillclimber.errors import BadResponse, ContextExceeded, ModelTimeout, ModelUnavailable
from hillclimber.models.base import CompletionRequest, ModelProfile, OutputConstraint
from hillclimber.models.ollama import OllamaModel

from openai_server import FakeServer, OverflowStyle, Reply, closed_port

CALL = {"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello, world!"}}
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
    "required": ["name", "arguments"],
}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


def make(
    url: str,
    *,
    window: int = 8192,
    constraint: bool = True,
    max_retries: int = 2,
    timeout: float = 5.0,
) -> OllamaModel:
    profile = ModelProfile(
        name="ollama:qwen", context_window=window, supports_constraint=constraint
    )
    return OllamaModel("qwen", profile, base_url=url, timeout=timeout, max_retries=max_retries)


def ask(prompt: str = "Create hello.txt", **kwargs: object) -> CompletionRequest:
    return CompletionRequest.from_prompt(prompt, system="You are an agent.", **kwargs)


def test_options_carry_window_temperature_seed_and_length(server: FakeServer) -> None:
    request = ask(temperature=0.4, seed=7, max_tokens=321, stop=["</tool_call>"])
    make(server.root, window=6144).complete(request)
    [body] = server.bodies("/api/chat")
    assert body["model"] == "qwen"
    assert body["stream"] is False
    assert body["messages"] == [m.model_dump() for m in request.messages]
    assert body["options"] == {
        "num_ctx": 6144,
        "num_predict": 321,
        "temperature": 0.4,
        "seed": 7,
        "stop": ["</tool_call>"],
    }
    assert "format" not in body


def test_openai_style_url_is_accepted(server: FakeServer) -> None:
    make(server.url).complete(ask())  # ".../v1" is dropped: the native API lives at the root
    assert server.bodies("/api/chat")


def test_format_carries_the_schema_when_constrained(server: FakeServer) -> None:
    server.script(Reply(text=json.dumps(CALL)))
    completion = make(server.root).complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    assert server.bodies()[0]["format"] == SCHEMA
    assert completion.constrained is True
    assert json.loads(completion.text) == CALL


def test_no_format_when_the_profile_cannot_constrain(server: FakeServer) -> None:
    model = make(server.root, constraint=False)
    completion = model.complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    assert "format" not in server.bodies()[0]
    assert completion.constrained is False


def test_usage_from_eval_counts(server: FakeServer) -> None:
    server.script(Reply(text="done", usage={"prompt_tokens": 57, "completion_tokens": 3}))
    completion = make(server.root).complete(ask())
    assert completion.text == "done"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (57, 3)
    assert completion.usage.estimated is False
    assert completion.latency_sec > 0
    assert completion.finish_reason == "stop"


def test_missing_counts_are_estimated(server: FakeServer) -> None:
    server.script(Reply(text="done", usage=None))
    completion = make(server.root).complete(ask())
    assert completion.usage.estimated is True
    assert completion.usage.prompt_tokens > 0


def test_done_reason_length(server: FakeServer) -> None:
    server.script(Reply(text="cut sho", finish_reason="length"))
    assert make(server.root).complete(ask(max_tokens=2)).finish_reason == "length"


@pytest.mark.parametrize("style", ["500", "400", "413"])
def test_overflow_is_context_exceeded_without_retry(style: OverflowStyle) -> None:
    with FakeServer(context_limit=4096, overflow=style) as server:
        with pytest.raises(ContextExceeded):
            make(server.root, window=4096, max_retries=3).complete(ask("x" * 16_000))
        assert server.count == 1


def test_500_then_success(server: FakeServer) -> None:
    server.script(Reply(status=500, error="llama runner process has terminated"), Reply(text="ok"))
    assert make(server.root).complete(ask()).text == "ok"
    assert server.count == 2


def test_500_every_time_is_bad_response_after_bounded_retries(server: FakeServer) -> None:
    server.default = Reply(status=500, error="internal error")
    with pytest.raises(BadResponse, match="internal error"):
        make(server.root, max_retries=2).complete(ask())
    assert server.count == 1 + 2


def test_missing_model_is_unavailable(server: FakeServer) -> None:
    server.script(Reply(status=404, error="model 'qwen' not found, try pulling it first"))
    with pytest.raises(ModelUnavailable, match="ollama pull qwen"):
        make(server.root).complete(ask())
    assert server.count == 1


def test_slow_server_is_a_timeout(server: FakeServer) -> None:
    server.script(Reply(text="late", delay=3.0))
    with pytest.raises(ModelTimeout):
        make(server.root, timeout=0.3, max_retries=0).complete(ask())


def test_nothing_listening_is_unavailable() -> None:
    with pytest.raises(ModelUnavailable, match="cannot reach"):
        make(f"http://127.0.0.1:{closed_port()}", max_retries=0).complete(ask())


def test_answer_without_message_is_bad_response(server: FakeServer) -> None:
    server.script(Reply(raw='{"done": true}'))
    with pytest.raises(BadResponse, match="without a message"):
        make(server.root).complete(ask())


# -- known bugs (strict: they start failing once fixed) --------------------------------------


def test_non_json_answer_is_bad_response(server: FakeServer) -> None:
    server.script(Reply(raw="<html>proxy page</html>"))
    with pytest.raises(BadResponse):
        make(server.root).complete(ask())


def test_ollamas_own_overflow_wording_is_context_exceeded(server: FakeServer) -> None:
    # Ollama's message for input over num_ctx where it refuses rather than truncates.
    server.script(Reply(status=400, error="the input length exceeds the context length"))
    with pytest.raises(ContextExceeded):
        make(server.root).complete(ask())
