"""Apple's on-device Foundation Model: in-process through Apple's `apple-fm-sdk` (macOS 26+),
or through a local OpenAI-compatible bridge. Both share one profile: 4,096 tokens for prompt
plus answer, no tokenizer, constrained output.

SDK facts this file relies on (apple.github.io/python-apple-fm-sdk): `SystemLanguageModel()`
with `is_available() -> (bool, reason)` and a `context_size` property; a
`LanguageModelSession(instructions=..., model=...)` keeps a transcript, so we make a fresh one
per request; `await session.respond(prompt, json_schema=..., options=GenerationOptions(...))`
returns `str`, or `GeneratedContent` (`.to_json()`) under a schema. Temperature 0 asks for
greedy sampling: the SDK's random sampling does not reliably apply a seed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

from hillclimber.errors import (
    BadResponse,
    ContextExceeded,
    HillclimberError,
    ModelTimeout,
    ModelUnavailable,
)
from hillclimber.models.base import (
    Completion,
    CompletionRequest,
    FinishReason,
    ModelProfile,
    Usage,
    time_left,
)
from hillclimber.models.openai_compat import DEFAULT_TIMEOUT_SEC, OpenAICompatModel

FM_CONTEXT_WINDOW = 4096
FM_MODEL_NAME = "apple-foundation-model"
BRIDGE_URL = "http://127.0.0.1:11435/v1"
INSTALL_HINT = (
    "Apple's Foundation Model SDK is not available: it needs macOS 26+ with Apple Intelligence "
    "on, and `pip install 'hillclimber[apple]'`"
)
FM_OVERFLOW_MARKERS = (
    "exceededcontextwindowsize",  # the SDK's ExceededContextWindowSizeError, Swift's case name
    "exceeded model context window size",  # bridges: HTTP 500
    "exceeded_context_window_size",  # bridges: HTTP 413
    "context_length_exceeded",  # bridges: HTTP 400, OpenAI's code
    "context_too_large",
    "maximum context length",
    "context window",  # "Input exceeds context window", "Context window exceeded", ...
)

SCHEMA_ERRORS = {"InvalidGenerationSchemaError", "UnsupportedGuideError"}

SessionFactory = Callable[[str | None], Any]
"""Makes a session from the instructions (the system message), or None."""


def fm_profile(context_window: int = FM_CONTEXT_WINDOW) -> ModelProfile:
    return ModelProfile(
        name=FM_MODEL_NAME,
        context_window=context_window,
        supports_constraint=True,
        chars_per_token=3.0,  # no tokenizer; undercounting would overflow the 4k window
        overflow_markers=FM_OVERFLOW_MARKERS,
    )


class FMBridgeModel(OpenAICompatModel):
    """The Foundation Model behind a local OpenAI-compatible bridge (the original system's)."""

    def __init__(
        self,
        base_url: str = BRIDGE_URL,
        model: str = FM_MODEL_NAME,
        *,
        context_window: int = FM_CONTEXT_WINDOW,
        timeout: float = DEFAULT_TIMEOUT_SEC,
        max_retries: int = 3,
    ) -> None:
        super().__init__(
            model, base_url, fm_profile(context_window), timeout=timeout, max_retries=max_retries
        )


class FMSdkModel:
    """The Foundation Model in-process, through `apple_fm_sdk` (imported only when used)."""

    def __init__(
        self,
        session_factory: SessionFactory | None = None,
        sdk: Any = None,
        *,
        context_window: int | None = None,
        timeout: float | None = DEFAULT_TIMEOUT_SEC,
    ) -> None:
        self.sdk = sdk if sdk is not None else _import_sdk()
        self.timeout = timeout
        if not hasattr(self.sdk, "GenerationOptions"):
            raise ModelUnavailable(
                "apple-fm-sdk is too old to set temperature and answer length "
                "(no GenerationOptions); upgrade it"
            )
        system_model = self.sdk.SystemLanguageModel()
        available = system_model.is_available()
        ok, reason = available if isinstance(available, tuple) else (available, None)
        if not ok:
            raise ModelUnavailable(f"Apple's Foundation Model is not available: {reason}")
        self.profile = fm_profile(context_window or _context_size(system_model))
        self.session_factory: SessionFactory = session_factory or (
            lambda instructions: self.sdk.LanguageModelSession(
                instructions=instructions, model=system_model
            )
        )

    def complete(self, request: CompletionRequest) -> Completion:
        system = [m.content for m in request.messages if m.role == "system"]
        rest = [m for m in request.messages if m.role != "system"]
        if len(rest) == 1 and rest[0].role == "user":
            prompt = rest[0].content
        else:  # one prompt carries the whole conversation: the session is fresh each time
            prompt = "\n\n".join(f"[{m.role}]\n{m.content}" for m in rest)
        instructions = "\n\n".join(system) or None
        options = self._options(request)
        constraint = request.constraint if self.profile.supports_constraint else None

        async def ask() -> Any:
            session = self.session_factory(instructions)
            if constraint is None:
                return await session.respond(prompt, options=options)
            schema = {"title": constraint.name, **constraint.json_schema}
            return await session.respond(prompt, json_schema=schema, options=options)

        start = time.monotonic()
        try:
            result = _run(asyncio.wait_for(ask(), time_left(request, self.timeout)))
        except TimeoutError as err:
            raise ModelTimeout(f"Foundation Model: no answer in {self.timeout} s") from err
        except Exception as err:
            if constraint is not None and _names(err) & SCHEMA_ERRORS:
                # The SDK cannot take this schema: remember it and ask again freely.
                self.profile.supports_constraint = False
                return self.complete(request)
            raise self._map_error(err) from err
        latency = time.monotonic() - start
        text = _answer_text(result)
        completion_tokens = self.profile.count_tokens(text)
        # The SDK stops silently at maximum_response_tokens and does not say so.
        cut = constraint is None and completion_tokens >= request.max_tokens
        finish: FinishReason = "length" if cut else "stop"
        return Completion(
            text=text,
            finish_reason=finish,
            usage=Usage(
                prompt_tokens=self.profile.count_messages(request.messages),
                completion_tokens=completion_tokens,
                estimated=True,
            ),
            latency_sec=latency,
            model=FM_MODEL_NAME,
            constrained=constraint is not None,
        )

    def _options(self, request: CompletionRequest) -> Any:
        kwargs: dict[str, Any] = {
            "temperature": request.temperature,
            "maximum_response_tokens": request.max_tokens,
        }
        sampling = getattr(self.sdk, "SamplingMode", None)
        if request.temperature == 0 and sampling is not None:
            kwargs["sampling"] = sampling.greedy()
        return self.sdk.GenerationOptions(**kwargs)

    def _map_error(self, err: Exception) -> Exception:
        names = _names(err)
        message = f"{type(err).__name__}: {err}"
        if "ExceededContextWindowSizeError" in names or self.profile.is_overflow(message):
            return ContextExceeded(message)
        if "AssetsUnavailableError" in names:
            return ModelUnavailable(f"Foundation Model assets unavailable: {message}")
        return BadResponse(f"Foundation Model: {message}")


def make_fm_model(
    route: str = "auto",
    *,
    base_url: str | None = None,
    context_window: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_SEC,
) -> FMSdkModel | FMBridgeModel:
    """`sdk`, `bridge`, or `auto`: the SDK where it runs, else the bridge."""
    if route not in ("auto", "sdk", "bridge"):
        raise HillclimberError(f"model 'fm:{route}': use fm, fm:sdk or fm:bridge")
    if route == "sdk":
        return FMSdkModel(context_window=context_window, timeout=timeout)
    if route == "auto" and base_url is None:  # a given URL means the bridge
        try:
            return FMSdkModel(context_window=context_window, timeout=timeout)
        except ModelUnavailable:
            pass
    return FMBridgeModel(
        base_url or BRIDGE_URL, context_window=context_window or FM_CONTEXT_WINDOW, timeout=timeout
    )


def _names(err: Exception) -> set[str]:
    """Class names of the error and its bases: matches the SDK's classes and stand-ins alike."""
    return {cls.__name__ for cls in type(err).__mro__}


def _import_sdk() -> Any:
    try:
        import apple_fm_sdk  # type: ignore[import-not-found,unused-ignore]
    except (ImportError, OSError) as err:  # not installed, or not macOS 26 (no native library)
        raise ModelUnavailable(INSTALL_HINT) from err
    return apple_fm_sdk


def _context_size(system_model: Any) -> int:
    """The model's real window where the SDK tells it (macOS 26.4+), else 4,096."""
    try:
        size = getattr(system_model, "context_size", None)
    except Exception:  # the property throws when it cannot be determined
        return FM_CONTEXT_WINDOW
    return size if isinstance(size, int) and size > 0 else FM_CONTEXT_WINDOW


def _answer_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    if hasattr(result, "to_json"):  # GeneratedContent
        return str(result.to_json())
    if isinstance(result, dict | list):
        return json.dumps(result)
    return str(result)


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to its end, also when the caller is itself inside an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
