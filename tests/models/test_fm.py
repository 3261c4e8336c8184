"""Apple's Foundation Model: the bridge route against a real HTTP server with the 4,096-token
limit, and the in-process SDK route with a stand-in for `apple_fm_sdk`."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from hillclimber.errors import BadResponse, ContextExceeded, HillclimberError, ModelUnavailable
from hillclimber.models import ModelConfig, make_model
from hillclimber.models.base import CompletionRequest, Message, OutputConstraint
from hillclimber.models.fm import BRIDGE_URL, FMBridgeModel, FMSdkModel, fm_profile, make_fm_model

from openai_server import FakeServer, OverflowStyle, Reply

CALL = {"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello, world!"}}
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
    "required": ["name", "arguments"],
}


def ask(prompt: str = "Create hello.txt", **kwargs: Any) -> CompletionRequest:
    return CompletionRequest.from_prompt(prompt, system="You are an agent.", **kwargs)


# -- profile -------------------------------------------------------------------------------


def test_profile_is_4096_conservative_and_constrained() -> None:
    profile = fm_profile()
    assert profile.context_window == 4096
    assert profile.chars_per_token == 3.0
    assert profile.supports_constraint is True
    assert profile.tokenizer is None
    assert profile.is_overflow("ExceededContextWindowSizeError: too long")
    assert profile.is_overflow("Exceeded model context window size (4096)")
    assert profile.is_overflow('{"code": "exceeded_context_window_size"}')
    assert profile.is_overflow("context_length_exceeded")
    assert profile.is_overflow("Input exceeds context window")  # bridges' own wordings
    assert profile.is_overflow("exceededContextWindowSize(Context(debugDescription: ...))")
    assert not profile.is_overflow("internal error")


# -- the bridge: an OpenAI-compatible server with Apple's 4,096-token limit ----------------


@pytest.fixture
def bridge_server() -> Iterator[FakeServer]:
    with FakeServer(context_limit=4096, overflow="500") as fake:
        yield fake


def test_bridge_defaults() -> None:
    model = FMBridgeModel()
    assert model.base_url == BRIDGE_URL == "http://127.0.0.1:11435/v1"
    assert model.model == "apple-foundation-model"
    assert model.profile.context_window == 4096


def test_bridge_small_request_works_and_sends_its_settings(bridge_server: FakeServer) -> None:
    bridge_server.script(Reply(text="done"))
    model = FMBridgeModel(bridge_server.url)
    completion = model.complete(ask(temperature=0.3, max_tokens=200))
    assert completion.text == "done"
    [body] = bridge_server.bodies()
    # The original system's bridge dropped both: they must reach the server.
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 200
    assert body["model"] == "apple-foundation-model"


@pytest.mark.parametrize("style", ["500", "400", "413"])
def test_bridge_overflow_is_context_exceeded_without_retry(style: OverflowStyle) -> None:
    with FakeServer(context_limit=4096, overflow=style) as server:
        model = FMBridgeModel(server.url, max_retries=3)
        with pytest.raises(ContextExceeded):
            model.complete(ask("x" * 16_000, max_tokens=512))  # ~4,000 + 512 tokens
        assert server.count == 1


def test_bridge_answer_room_counts_towards_the_limit(bridge_server: FakeServer) -> None:
    model = FMBridgeModel(bridge_server.url, max_retries=0)
    model.complete(ask("x" * 12_000, max_tokens=512))  # ~3,000 + 512: fits
    with pytest.raises(ContextExceeded):
        model.complete(ask("x" * 12_000, max_tokens=1_200))  # ~3,000 + 1,200: does not


def test_bridge_sends_schema_and_returns_the_call(bridge_server: FakeServer) -> None:
    bridge_server.script(Reply(text=json.dumps(CALL)))
    model = FMBridgeModel(bridge_server.url)
    completion = model.complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    assert bridge_server.bodies()[0]["response_format"]["json_schema"]["schema"] == SCHEMA
    assert json.loads(completion.text) == CALL


# -- the SDK: a stand-in for apple_fm_sdk that records what it was given --------------------


class FoundationModelsError(Exception):
    pass


class GenerationError(FoundationModelsError):
    pass


class ExceededContextWindowSizeError(GenerationError):
    pass


class AssetsUnavailableError(GenerationError):
    pass


class GuardrailViolationError(GenerationError):
    pass


class ConcurrentRequestsError(GenerationError):
    pass


class InvalidGenerationSchemaError(FoundationModelsError):
    pass


@dataclass
class SamplingMode:
    mode_type: str

    @classmethod
    def greedy(cls) -> SamplingMode:
        return cls("greedy")


@dataclass
class GenerationOptions:
    sampling: SamplingMode | None = None
    temperature: float | None = None
    maximum_response_tokens: int | None = None


class GeneratedContent:
    def __init__(self, value: dict[str, Any]) -> None:
        self._value = value

    def to_json(self) -> str:
        return json.dumps(self._value)


@dataclass
class Call:
    prompt: str
    json_schema: dict[str, Any] | None
    options: GenerationOptions | None


class FakeSession:
    def __init__(self, sdk: FakeSDK, instructions: str | None, model: object) -> None:
        self.sdk, self.instructions, self.model = sdk, instructions, model
        self.calls: list[Call] = []

    async def respond(
        self,
        prompt: str,
        generating: object = None,
        *,
        json_schema: dict[str, Any] | None = None,
        options: GenerationOptions | None = None,
    ) -> Any:
        assert generating is None
        self.calls.append(Call(prompt, json_schema, options))
        answer = self.sdk.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if json_schema is not None:
            return GeneratedContent(answer if isinstance(answer, dict) else json.loads(answer))
        return answer if isinstance(answer, str) else json.dumps(answer)


class FakeSDK:
    """Module-like: the attributes FMSdkModel uses from `apple_fm_sdk`."""

    FoundationModelsError = FoundationModelsError
    GenerationError = GenerationError
    ExceededContextWindowSizeError = ExceededContextWindowSizeError
    AssetsUnavailableError = AssetsUnavailableError
    GuardrailViolationError = GuardrailViolationError
    ConcurrentRequestsError = ConcurrentRequestsError
    InvalidGenerationSchemaError = InvalidGenerationSchemaError
    GenerationOptions = GenerationOptions
    SamplingMode = SamplingMode

    def __init__(
        self, *answers: Any, available: bool = True, context_size: int | None = 4096
    ) -> None:
        self.answers = list(answers)
        self.sessions: list[FakeSession] = []
        sdk = self

        class SystemLanguageModel:
            def is_available(self) -> tuple[bool, str | None]:
                return (True, None) if available else (False, "APPLE_INTELLIGENCE_NOT_ENABLED")

            @property
            def context_size(self) -> int:
                if context_size is None:
                    raise GenerationError("context size cannot be determined")
                return context_size

        self.SystemLanguageModel = SystemLanguageModel

        def session(instructions: str | None = None, model: object = None) -> FakeSession:
            sdk.sessions.append(FakeSession(sdk, instructions, model))
            return sdk.sessions[-1]

        self.LanguageModelSession = session

    @property
    def calls(self) -> list[Call]:
        return [call for s in self.sessions for call in s.calls]


def test_sdk_system_message_becomes_instructions_and_the_rest_the_prompt() -> None:
    sdk = FakeSDK("done")
    completion = FMSdkModel(sdk=sdk).complete(ask())
    [session] = sdk.sessions
    assert session.instructions == "You are an agent."
    assert [c.prompt for c in session.calls] == ["Create hello.txt"]
    assert completion.text == "done"
    assert completion.finish_reason == "stop"
    assert completion.model == "apple-foundation-model"
    assert completion.latency_sec > 0
    assert completion.usage.estimated is True
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens == 2  # "done": 4 chars / 3.0


def test_sdk_uses_a_fresh_session_per_request_and_carries_the_conversation() -> None:
    sdk = FakeSDK("first", "second")
    model = FMSdkModel(sdk=sdk)
    model.complete(ask())
    model.complete(
        CompletionRequest(
            messages=[
                Message(role="system", content="You are an agent."),
                Message(role="user", content="Create hello.txt"),
                Message(role="assistant", content="first"),
                Message(role="user", content="Now check it."),
            ]
        )
    )
    assert len(sdk.sessions) == 2
    prompt = sdk.sessions[1].calls[0].prompt
    assert "You are an agent." not in prompt
    positions = [prompt.index(s) for s in ("Create hello.txt", "first", "Now check it.")]
    assert positions == sorted(positions)


def test_sdk_passes_temperature_and_answer_length() -> None:
    sdk = FakeSDK("a", "b")
    model = FMSdkModel(sdk=sdk)
    model.complete(ask(temperature=0.6, max_tokens=99))
    model.complete(ask(temperature=0.0, max_tokens=300))
    warm, cold = (c.options for c in sdk.calls)
    assert warm == GenerationOptions(temperature=0.6, maximum_response_tokens=99)
    # The SDK drops the seed of random sampling: temperature 0 asks for greedy decoding.
    assert cold == GenerationOptions(
        sampling=SamplingMode("greedy"), temperature=0.0, maximum_response_tokens=300
    )


def test_sdk_guided_generation_when_constrained() -> None:
    sdk = FakeSDK(CALL)
    model = FMSdkModel(sdk=sdk)
    completion = model.complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    [call] = sdk.calls
    assert call.json_schema is not None
    assert call.json_schema["properties"] == SCHEMA["properties"]
    assert call.json_schema["title"] == "tool_call"
    assert completion.constrained is True
    assert json.loads(completion.text) == CALL


def test_sdk_unconstrained_request_is_free_text() -> None:
    sdk = FakeSDK("just text")
    FMSdkModel(sdk=sdk).complete(ask())
    assert sdk.calls[0].json_schema is None


def test_sdk_schema_it_cannot_take_falls_back_to_free_text() -> None:
    sdk = FakeSDK(InvalidGenerationSchemaError("bad format"), json.dumps(CALL))
    model = FMSdkModel(sdk=sdk)
    completion = model.complete(ask(constraint=OutputConstraint(json_schema=SCHEMA)))
    assert [c.json_schema is None for c in sdk.calls] == [False, True]
    assert model.profile.supports_constraint is False
    assert completion.constrained is False
    assert json.loads(completion.text) == CALL


def test_sdk_long_free_answer_reports_length() -> None:
    sdk = FakeSDK("word " * 60)
    assert FMSdkModel(sdk=sdk).complete(ask(max_tokens=50)).finish_reason == "length"


def test_sdk_context_exceeded() -> None:
    sdk = FakeSDK(ExceededContextWindowSizeError("4096 tokens exceeded"))
    with pytest.raises(ContextExceeded, match="ExceededContextWindowSizeError"):
        FMSdkModel(sdk=sdk).complete(ask())


@pytest.mark.parametrize(
    "error", [GuardrailViolationError("unsafe"), ConcurrentRequestsError("busy")]
)
def test_sdk_other_errors_are_bad_responses(error: Exception) -> None:
    with pytest.raises(BadResponse, match=type(error).__name__):
        FMSdkModel(sdk=FakeSDK(error)).complete(ask())


def test_sdk_missing_assets_is_unavailable() -> None:
    with pytest.raises(ModelUnavailable):
        FMSdkModel(sdk=FakeSDK(AssetsUnavailableError("downloading"))).complete(ask())


def test_sdk_unavailable_model() -> None:
    with pytest.raises(ModelUnavailable, match="APPLE_INTELLIGENCE_NOT_ENABLED"):
        FMSdkModel(sdk=FakeSDK(available=False))


def test_sdk_reads_the_real_context_size() -> None:
    assert FMSdkModel(sdk=FakeSDK(context_size=8192)).profile.context_window == 8192
    assert FMSdkModel(sdk=FakeSDK(context_size=None)).profile.context_window == 4096


def test_sdk_too_old_for_generation_options() -> None:
    new = FakeSDK()
    old = SimpleNamespace(  # apple-fm-sdk 0.1.0: no way to pass temperature or answer length
        SystemLanguageModel=new.SystemLanguageModel,
        LanguageModelSession=new.LanguageModelSession,
    )
    with pytest.raises(ModelUnavailable, match="GenerationOptions"):
        FMSdkModel(sdk=old)


def test_sdk_session_factory_is_used() -> None:
    sdk = FakeSDK("ok")
    made: list[str | None] = []

    def factory(instructions: str | None) -> FakeSession:
        made.append(instructions)
        return FakeSession(sdk, instructions, None)

    assert FMSdkModel(factory, sdk=sdk).complete(ask()).text == "ok"
    assert made == ["You are an agent."]


def test_sdk_works_from_inside_an_event_loop() -> None:
    model = FMSdkModel(sdk=FakeSDK("ok"))

    async def caller() -> str:
        return model.complete(ask()).text

    assert asyncio.run(caller()) == "ok"


def test_without_the_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "apple_fm_sdk", None)  # import fails, as off macOS
    with pytest.raises(ModelUnavailable) as info:
        FMSdkModel()
    message = str(info.value)
    assert "pip install 'hillclimber[apple]'" in message
    assert "macOS 26" in message
    assert "\n" not in message


# -- choosing the route ------------------------------------------------------------------------


def test_route_bridge_with_its_url(bridge_server: FakeServer) -> None:
    model = make_fm_model("bridge", base_url=bridge_server.url)
    assert isinstance(model, FMBridgeModel)
    assert model.complete(ask()).text == "ok"


def test_route_auto_without_the_sdk_is_the_bridge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "apple_fm_sdk", None)
    model = make_fm_model("auto", context_window=2048)
    assert isinstance(model, FMBridgeModel)
    assert model.base_url == BRIDGE_URL
    assert model.profile.context_window == 2048


def test_route_sdk_without_the_sdk_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "apple_fm_sdk", None)
    with pytest.raises(ModelUnavailable, match="hillclimber\\[apple\\]"):
        make_fm_model("sdk")


def test_unknown_route() -> None:
    with pytest.raises(HillclimberError, match="fm:sdk or fm:bridge"):
        make_fm_model("cloud")


def test_model_spec_reaches_the_bridge(bridge_server: FakeServer) -> None:
    model = make_model(ModelConfig(spec="fm:bridge", base_url=bridge_server.url))
    assert model.complete(ask()).text == "ok"
    assert bridge_server.bodies()[0]["model"] == "apple-foundation-model"
