"""Events the loop emits, one frozen dataclass per kind; the trajectory writer, logs and any
display subscribe and read their fields. The loop itself prints nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hillclimber.models.base import FinishReason, Message, Usage


@dataclass(frozen=True)
class TurnStarted:
    turn: int


@dataclass(frozen=True)
class ModelAnswered:
    turn: int
    role: str
    """worker (the turn's answer), candidate (an alternative asked for while climbing),
    supervisor (the planner)."""
    text: str
    prompt: tuple[Message, ...]
    usage: Usage
    latency_sec: float
    finish_reason: FinishReason
    seconds: float = 0.0
    """Wall time of the call, waiting included."""
    again: bool = False
    """Asked again under the schema: no parser could read the free answer (`free_first`)."""


@dataclass(frozen=True)
class PromptShrunk:
    """The back end said the prompt overflowed its window: the next one is built smaller."""

    turn: int


@dataclass(frozen=True)
class CallRead:
    """The answer was read as a call (`repaired`: fixes its JSON needed)."""

    turn: int
    tool: str
    repaired: int


@dataclass(frozen=True)
class ParseFailed:
    turn: int
    reason: str
    detail: str


@dataclass(frozen=True)
class GuardVerdict:
    """A guard rule refused the call (deny) or warned about it (warn)."""

    turn: int
    action: str
    rule: str
    reason: str


@dataclass(frozen=True)
class ToolRan:
    turn: int
    by: str
    """model: the model's call (or the candidate chosen for it)."""
    tool: str
    arguments: dict[str, Any]
    success: bool
    output: str
    metadata: dict[str, Any]
    summary: str
    duration_sec: float


@dataclass(frozen=True)
class CandidateLine:
    call: dict[str, Any]
    result: str
    origin: str = "model"
    """model (its own call), tool (another tool asked), reading (of a call), plan (a step)."""
    passing: int = -1
    """The checks it passed; -1 when it failed to run."""


@dataclass(frozen=True)
class CandidatesTried:
    turn: int
    passing_before: int
    own_refused: bool
    candidates: tuple[CandidateLine, ...]
    chosen: int | None
    """Index into `candidates` of the one applied; None when none was."""
    total: int = 0
    """The checks there are."""


@dataclass(frozen=True)
class Verified:
    turn: int
    why: str
    passed: bool
    passing: int
    total: int
    digest: str
    label: str = "tests"
    """What ran: the task's tests, or the acceptance checks."""


@dataclass(frozen=True)
class Measured:
    """The checks run on the untouched workspace before the first turn (climbing's baseline)."""

    turn: int
    passing: int
    total: int
    label: str = "tests"


@dataclass(frozen=True)
class ChecksMade:
    """The acceptance checks, frozen before the first action."""

    turn: int
    checks: tuple[dict[str, Any], ...]
    """Each kept check: name, goal (or invariant), origin (extracted or proposed)."""
    dropped: tuple[tuple[str, str], ...]
    """(name, why) of the checks not kept."""
    usable: bool
    """At least one goal check: the loop climbs on them."""


@dataclass(frozen=True)
class PlanMade:
    turn: int
    steps: tuple[str, ...]


@dataclass(frozen=True)
class FinalizeAsked:
    """A signal that the task may be done (task_complete, repetition, no progress, …)."""

    turn: int
    reason: str


@dataclass(frozen=True)
class LoopEnded:
    turn: int
    exit: str
    reason: str
    stats: dict[str, Any] = field(default_factory=dict)


Event = (
    TurnStarted
    | ModelAnswered
    | PromptShrunk
    | CallRead
    | ParseFailed
    | GuardVerdict
    | ToolRan
    | CandidatesTried
    | Verified
    | Measured
    | ChecksMade
    | PlanMade
    | FinalizeAsked
    | LoopEnded
)
Listener = Callable[[Event], None]


def on_tool_ran(then: Callable[[ToolRan], None]) -> Listener:
    """A listener that hands each `ToolRan` to `then`, and nothing else."""

    def listen(event: Event) -> None:
        if isinstance(event, ToolRan):
            then(event)

    return listen


class EventBus:
    def __init__(self, *listeners: Listener) -> None:
        self.listeners = list(listeners)

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def emit(self, event: Event) -> None:
        for listener in self.listeners:
            listener(event)
