"""Events the loop emits; the progress display, logs and the trajectory writer subscribe.
The loop itself prints nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

EventKind = Literal[
    "turn_started",
    "model_answered",
    "parse_failed",
    "monitor_verdict",
    "tool_ran",
    "verify_done",
    "finalize",
    "plan_made",
    "candidates_tried",
]


@dataclass(frozen=True)
class Event:
    kind: EventKind
    turn: int
    data: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[Event], None]


class EventBus:
    def __init__(self, *listeners: Listener) -> None:
        self.listeners = list(listeners)

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def emit(self, kind: EventKind, turn: int, **data: Any) -> None:
        event = Event(kind, turn, data)
        for listener in self.listeners:
            listener(event)
