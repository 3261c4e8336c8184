"""A model that replays canned answers: for deterministic tests of the agent loop, ours and
users' own (to check a config does what they think before spending a real model on it).

An answer is a text, a whole `Completion`, or an error to raise in its place (a model error
such as `ContextExceeded` or `ModelTimeout`), so failure paths are as easy to script as
successes. It records every request, raises `ScriptExhausted` when asked for more answers than
it has, and `assert_complete()` fails while answers are left unused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hillclimber.errors import (
    BadResponse,
    ContextExceeded,
    HillclimberError,
    ModelError,
    ModelTimeout,
    ModelUnavailable,
    ScriptExhausted,
)
from hillclimber.models.base import Completion, CompletionRequest, ModelProfile, Usage

Answer = str | Completion | ModelError

RAISES: dict[str, type[ModelError]] = {
    "context_exceeded": ContextExceeded,
    "timeout": ModelTimeout,
    "unavailable": ModelUnavailable,
    "bad_response": BadResponse,
}
"""The errors a script file may name: `{"raise": "timeout", "message": "..."}`."""


WINDOW = 4096
"""The window a scripted model says it has."""


class ScriptedModel:
    def __init__(self, answers: Iterable[Answer], profile: ModelProfile | None = None) -> None:
        self.answers = list(answers)
        self.profile = profile or ModelProfile(
            name="scripted", context_window=WINDOW, samples=False
        )
        self.requests: list[CompletionRequest] = []

    @classmethod
    def from_file(cls, path: Path, profile: ModelProfile | None = None) -> ScriptedModel:
        """A JSON list of answers, or JSON Lines with one answer each, or {"answers": [...],
        "samples": true} for a script that stands for a model drawing its answers (whose tries
        may count as independent). An answer is a string, {"text": ...}, or {"raise": KIND,
        "message": ...} with KIND one of RAISES."""
        try:
            text = path.read_text()
        except OSError as err:
            raise HillclimberError(f"{path}: cannot read the answers ({err.strerror})") from err
        samples = False
        try:
            data = json.loads(text)
            if isinstance(data, dict) and isinstance(data.get("answers"), list):
                samples = data.get("samples") is True
                data = data["answers"]
            items = data if isinstance(data, list) else [data]
        except json.JSONDecodeError:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        if profile is None:
            profile = ModelProfile(name="scripted", context_window=WINDOW, samples=samples)
        return cls([_answer(item, path) for item in items], profile)

    @property
    def remaining(self) -> int:
        return len(self.answers) - len(self.requests)

    def complete(self, request: CompletionRequest) -> Completion:
        index = len(self.requests)
        self.requests.append(request)
        if index >= len(self.answers):
            last = request.messages[-1].content[:200] if request.messages else ""
            raise ScriptExhausted(
                f"scripted model asked for answer {index + 1} but has {len(self.answers)}; "
                f"last message: {last!r}"
            )
        answer = self.answers[index]
        if isinstance(answer, ModelError):
            raise answer
        if isinstance(answer, Completion):
            return answer
        return Completion(
            text=answer,
            finish_reason="stop",
            usage=Usage(
                prompt_tokens=self.profile.count_messages(request.messages),
                completion_tokens=self.profile.count_tokens(answer),
                estimated=not self.profile.exact,
            ),
            latency_sec=0.0,
            model="scripted",
            constrained=request.constraint is not None,
        )

    def assert_complete(self) -> None:
        if self.remaining > 0:
            raise AssertionError(f"scripted model has {self.remaining} unused answer(s) left")


def _answer(item: Any, path: Path) -> Answer:
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return str(item["text"])
    if isinstance(item, dict) and item.get("raise") in RAISES:
        return RAISES[item["raise"]](str(item.get("message", "scripted error")))
    raise HillclimberError(
        f"{path}: every answer must be a string, {{'text': ...}} or "
        f"{{'raise': one of {', '.join(RAISES)}}}"
    )
