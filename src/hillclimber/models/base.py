"""The one small protocol every model back end speaks, and the profile that says what a model
can hold and do.

The agent loop builds a `CompletionRequest`, calls `model.complete(request)`, and gets a
`Completion` or one of the typed errors in `hillclimber.errors` (`ContextExceeded`,
`ModelUnavailable`, `ModelTimeout`, `BadResponse`). The loop sizes its prompts with
`model.profile`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from hillclimber.errors import ModelTimeout

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "repeating", "error"]
"""`repeating`: cut off because the answer had begun to say the same thing over and over."""

MESSAGE_OVERHEAD_TOKENS = 5
"""Tokens a chat template adds per message (role markers, separators), when not measured."""


class Message(BaseModel):
    role: Role
    content: str


class OutputConstraint(BaseModel):
    """Constrain the answer to JSON matching this schema (one tool call)."""

    json_schema: dict[str, Any]
    name: str = "tool_call"


class CompletionRequest(BaseModel):
    messages: list[Message]
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int | None = 0
    stop: list[str] = Field(default_factory=list)
    constraint: OutputConstraint | None = None
    deadline: float | None = None
    """`time.monotonic()` by which the answer must be in (the agent's time): the back end stops
    waiting, or generating, then and raises ModelTimeout."""
    aside: bool = False
    """A question apart from the main run of prompts (a computed answer, a re-plan): a back end
    that keeps the last prompt's computed state keeps the main one's across it, so the next
    prompt of the main run pays only for what changed (the embedded model)."""

    @classmethod
    def from_prompt(
        cls, prompt: str, system: str | None = None, **kwargs: Any
    ) -> CompletionRequest:
        messages = [Message(role="system", content=system)] if system else []
        messages.append(Message(role="user", content=prompt))
        return cls(messages=messages, **kwargs)


def time_left(request: CompletionRequest, limit: float | None) -> float | None:
    """Seconds this request may take: its back end's own limit, cut to the deadline. Raises
    ModelTimeout when the deadline has passed."""
    if request.deadline is None:
        return limit
    left = request.deadline - time.monotonic()
    if left <= 0:
        raise ModelTimeout("no time left to answer: the agent's time is up")
    return left if limit is None else min(limit, left)


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    estimated: bool = False
    """True when the numbers are estimates, not the back end's or the tokenizer's count."""
    cached_prompt_tokens: int | None = None
    """Prompt tokens the back end did not have to process again (prefix cache), if it says."""


class Completion(BaseModel):
    text: str
    finish_reason: FinishReason
    usage: Usage
    latency_sec: float
    model: str
    constrained: bool = False
    """Whether the answer was produced under the request's output constraint."""


def estimate_tokens(text: str, chars_per_token: float) -> int:
    return math.ceil(len(text) / chars_per_token) if text else 0


@dataclass
class ModelProfile:
    """What the harness needs to know about a model to size prompts and pick strategies."""

    name: str
    context_window: int
    """Tokens for prompt and answer together."""
    supports_constraint: bool = False
    """JSON-schema / grammar constrained output."""
    native_tool_calls: bool = False
    chars_per_token: float = 3.5
    """Used when there is no tokenizer; small on purpose (estimates must not undercount)."""
    tokenizer: Callable[[str], int] | None = None
    """Exact token count of a text, where the back end has its tokenizer."""
    overflow_markers: tuple[str, ...] = (
        "context_length_exceeded",
        "exceeded_context_window_size",
        "exceeded model context window size",
        "maximum context length",
        "exceeds the context window",
        "exceeds the context length",
        "context window",
    )
    """Lower-case substrings of an error message that mean the context was exceeded."""
    samples: bool = True
    """Whether answers are drawn with the request's temperature and seed, so two requests at
    a temperature above zero could answer differently. A back end that replays or always
    answers the same (the scripted model) does not: tries of it that agree prove nothing."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return self.tokenizer is not None

    def count_tokens(self, text: str) -> int:
        if self.tokenizer is not None:
            return self.tokenizer(text)
        return estimate_tokens(text, self.chars_per_token)

    def count_messages(self, messages: Sequence[Message]) -> int:
        return sum(self.count_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in messages)

    def fits(self, request: CompletionRequest) -> bool:
        """Whether the prompt and room for the answer fit the window."""
        return self.count_messages(request.messages) + request.max_tokens <= self.context_window

    def is_overflow(self, message: str) -> bool:
        lower = message.lower()
        return any(marker in lower for marker in self.overflow_markers)


class Model(Protocol):
    profile: ModelProfile

    def complete(self, request: CompletionRequest) -> Completion:
        """One answer, or a typed error from `hillclimber.errors`."""
        ...
