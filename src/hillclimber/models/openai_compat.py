"""Any OpenAI-compatible endpoint: llama.cpp's server, vLLM, LM Studio, hosted APIs, and the
Apple Foundation Model bridges.

Retries are ours, not the client's: an overflow reported as HTTP 500 must become
`ContextExceeded` at once, never be retried as a server error.
"""

from __future__ import annotations

import os
import time
from typing import Any

import openai
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion

from hillclimber import process
from hillclimber.errors import BadResponse, ContextExceeded, ModelTimeout, ModelUnavailable
from hillclimber.models.base import (
    Completion,
    CompletionRequest,
    FinishReason,
    ModelProfile,
    Usage,
    time_left,
)

DEFAULT_TIMEOUT_SEC = 120.0
MAX_RETRIES = 3
BACKOFF_SEC = (0.5, 1.0, 2.0)


class OpenAICompatModel:
    def __init__(
        self,
        model: str,
        base_url: str,
        profile: ModelProfile,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SEC,
        max_retries: int = MAX_RETRIES,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.profile = profile
        self.max_retries = max_retries
        self.extra_body = extra_body or {}
        self.timeout = timeout
        key = api_key or os.environ.get("HILLCLIMBER_API_KEY") or os.environ.get("OPENAI_API_KEY")
        self.client = openai.OpenAI(
            base_url=base_url, api_key=key or "not-needed", timeout=timeout, max_retries=0
        )

    def complete(self, request: CompletionRequest) -> Completion:
        attempt = 0
        while True:
            try:
                return self._complete_once(request)
            except openai.APITimeoutError as err:
                # not retried: a model too slow once is too slow again, and time is the budget
                raise ModelTimeout(f"{self.base_url}: no answer in time") from err
            except (
                openai.RateLimitError,
                openai.InternalServerError,
                openai.APIConnectionError,
            ) as err:
                if isinstance(err, openai.APIStatusError) and self.profile.is_overflow(_text(err)):
                    raise ContextExceeded(_text(err)) from err
                if attempt >= self.max_retries:
                    if isinstance(err, openai.APIConnectionError):
                        raise ModelUnavailable(f"cannot reach {self.base_url}: {err}") from err
                    raise BadResponse(f"{self.base_url}: {_text(err)}") from err
                pause = BACKOFF_SEC[min(attempt, len(BACKOFF_SEC) - 1)]
                time.sleep(time_left(request, pause) or pause)
                attempt += 1

    def _complete_once(self, request: CompletionRequest) -> Completion:
        constrained = request.constraint is not None and self.profile.supports_constraint
        kwargs = self._request_kwargs(request, constrained)
        start = time.monotonic()
        try:
            timeout = time_left(request, self.timeout)
            response = process.unless_stopped(  # a Ctrl-C does not wait for the answer
                lambda: self.client.chat.completions.create(
                    **kwargs, extra_body=self.extra_body or None, timeout=timeout
                )
            )
        except (openai.BadRequestError, openai.UnprocessableEntityError) as err:
            message = _text(err)
            if self.profile.is_overflow(message):
                raise ContextExceeded(message) from err
            if constrained and "response_format" in message.lower():
                # This server does not take JSON schemas: remember it and ask again freely.
                self.profile.supports_constraint = False
                return self._complete_once(request)
            raise BadResponse(f"{self.base_url}: {message}") from err
        except openai.APIStatusError as err:
            mapped = self._status_error(err)
            if mapped is None:
                raise
            raise mapped from err
        except ValueError as err:  # a 200 whose body is not JSON (a proxy's page, ...)
            raise BadResponse(f"{self.base_url}: the answer is not JSON: {err}") from err
        latency = time.monotonic() - start
        return self._read_response(response, request, latency, constrained=constrained)

    def _request_kwargs(self, request: CompletionRequest, constrained: bool) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.stop:
            kwargs["stop"] = request.stop
        if constrained and request.constraint is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.constraint.name,
                    "schema": request.constraint.json_schema,
                },
            }
        return kwargs

    def _status_error(self, err: openai.APIStatusError) -> Exception | None:
        """Our error for a failed status, or None for one `complete` may retry (5xx, 429)."""
        message = _text(err)
        if err.status_code == 413 or self.profile.is_overflow(message):
            return ContextExceeded(message)
        if err.status_code in (401, 403, 404):
            return ModelUnavailable(f"{self.base_url}: {message}")
        if err.status_code >= 500 or err.status_code == 429:
            return None
        return BadResponse(f"{self.base_url}: {message}")

    def _read_response(
        self,
        response: ChatCompletion,
        request: CompletionRequest,
        latency: float,
        *,
        constrained: bool,
    ) -> Completion:
        """Check the answer's shape ourselves: some servers send a 200 without choices."""
        choices = getattr(response, "choices", None)
        if not choices:
            raise BadResponse(f"{self.base_url}: an answer without choices")
        choice = choices[0]
        said = getattr(choice, "message", None)
        if said is None:
            raise BadResponse(f"{self.base_url}: a choice without a message")
        text = said.content or ""
        finish: FinishReason = "length" if choice.finish_reason == "length" else "stop"
        return Completion(
            text=text,
            finish_reason=finish,
            usage=self._usage(response.usage, request, text),
            latency_sec=latency,
            model=self.model,
            constrained=constrained,
        )

    def _usage(
        self, counts: CompletionUsage | None, request: CompletionRequest, text: str
    ) -> Usage:
        """The server's token counts when it sent them, else our own estimate."""
        if (
            counts is not None
            and isinstance(counts.prompt_tokens, int)
            and isinstance(counts.completion_tokens, int)
        ):
            return Usage(
                prompt_tokens=counts.prompt_tokens, completion_tokens=counts.completion_tokens
            )
        return Usage(
            prompt_tokens=self.profile.count_messages(request.messages),
            completion_tokens=self.profile.count_tokens(text),
            estimated=not self.profile.exact,
        )


def _text(err: openai.APIError) -> str:
    """The error's message as the server wrote it (body first, then the client's text)."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            parts = [str(inner.get(k)) for k in ("message", "code", "type") if inner.get(k)]
            if parts:
                return " ".join(parts)
        elif isinstance(inner, str):
            return inner
    if isinstance(err, openai.APIStatusError):
        try:
            return err.response.text or str(err)
        except Exception:  # the body may not be readable
            return str(err)
    return str(err)
