"""Ollama through its native `/api/chat`.

Ollama's OpenAI-compatible endpoint cannot set the context size per request, and Ollama's
default window is small: a longer prompt is cut silently. The native endpoint takes
`options.num_ctx`, so we send the profile's window with every request.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

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

DEFAULT_URL = "http://127.0.0.1:11434"
RETRY_STATUS = {429, 500, 502, 503, 504}
BACKOFF_SEC = (0.5, 1.0, 2.0)


class OllamaModel:
    def __init__(
        self,
        model: str,
        profile: ModelProfile,
        *,
        base_url: str = DEFAULT_URL,
        timeout: float = 300.0,
        max_retries: int = 3,
    ) -> None:
        self.model = model
        self.profile = profile
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        self.max_retries = max_retries
        self.timeout = timeout
        self.client = httpx.Client(base_url=self.base_url, timeout=timeout)

    def complete(self, request: CompletionRequest) -> Completion:
        options: dict[str, Any] = {
            "num_ctx": self.profile.context_window,
            "num_predict": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.seed is not None:
            options["seed"] = request.seed
        if request.stop:
            options["stop"] = request.stop
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
            "stream": False,
            "options": options,
        }
        constrained = request.constraint is not None and self.profile.supports_constraint
        if constrained and request.constraint is not None:
            body["format"] = request.constraint.json_schema
        start = time.monotonic()
        data = self._post(body, time_left(request, self.timeout))
        message = data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise BadResponse(f"{self.base_url}: an answer without a message")
        text = message["content"]
        finish: FinishReason = "length" if data.get("done_reason") == "length" else "stop"
        prompt_count, answer_count = data.get("prompt_eval_count"), data.get("eval_count")
        if isinstance(prompt_count, int) and isinstance(answer_count, int):
            usage = Usage(prompt_tokens=prompt_count, completion_tokens=answer_count)
        else:
            usage = Usage(
                prompt_tokens=self.profile.count_messages(request.messages),
                completion_tokens=self.profile.count_tokens(text),
                estimated=True,
            )
        return Completion(
            text=text,
            finish_reason=finish,
            usage=usage,
            latency_sec=time.monotonic() - start,
            model=self.model,
            constrained=constrained,
        )

    def _post(self, body: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        for attempt in range(self.max_retries + 1):
            try:
                response = process.unless_stopped(  # a Ctrl-C does not wait for the answer
                    lambda: self.client.post("/api/chat", json=body, timeout=timeout)
                )
            except httpx.TimeoutException as err:
                # not retried: a model too slow once is too slow again
                raise ModelTimeout(f"{self.base_url}: no answer in time") from err
            except httpx.TransportError as err:
                if attempt == self.max_retries:
                    raise ModelUnavailable(
                        f"cannot reach Ollama at {self.base_url}: {err}"
                    ) from err
            else:
                text = _error_text(response)
                if response.status_code == 200:
                    try:
                        data = response.json()
                    except ValueError as err:
                        raise BadResponse(f"{self.base_url}: the answer is not JSON") from err
                    if not isinstance(data, dict):
                        raise BadResponse(f"{self.base_url}: not a JSON object")
                    return data
                if self.profile.is_overflow(text) or response.status_code == 413:
                    raise ContextExceeded(text)
                if response.status_code == 404:
                    raise ModelUnavailable(
                        f"Ollama has no model '{self.model}' (ollama pull {self.model}): {text}"
                    )
                if response.status_code not in RETRY_STATUS or attempt == self.max_retries:
                    raise BadResponse(f"{self.base_url}: HTTP {response.status_code}: {text}")
            time.sleep(BACKOFF_SEC[min(attempt, len(BACKOFF_SEC) - 1)])
        raise AssertionError("unreachable")


def _error_text(response: httpx.Response) -> str:
    text: str = response.text
    try:
        data = response.json()
    except ValueError:
        return text
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        return str(data["error"])
    return text
