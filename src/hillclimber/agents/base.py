"""The `Agent` protocol and how an agent's run ended (the context a trial hands it is
`hillclimber/context.py`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hillclimber.context import AgentContext
from hillclimber.verify.verifier import Evaluation


@dataclass(frozen=True)
class Ended:
    """How an agent's run ended: what the runner and the tries decide by. (`AgentOutcome.info`
    is what is recorded and shown; nothing is decided from it.)"""

    exit: str = ""
    """The agent's own word for its end: a loop exit (`verified`, `max_turns`), a peer's."""
    turns: int = 0
    limit: str | None = None
    """The last resource limit one of its commands hit, in words (none: none did)."""
    model_seconds: float = 0.0


@dataclass
class AgentOutcome:
    ended: Ended = field(default_factory=Ended)
    info: dict[str, Any] = field(default_factory=dict)
    """What the agent wants recorded (turns, tokens, its own exit reason, ...), for display."""
    self_checked: bool = False
    """The agent's run looked at acceptance checks it made itself (`feedback: self`; whether
    the task's tests ran during the run, the runner sees for itself)."""
    checks: Callable[[], Evaluation] | None = None
    """The agent's own checks, for a task with no tests of its own (`hillclimber run`)."""
    timed_out: bool = False
    """The agent's time ran out; `info` holds what it did until then."""
    tests_at_end: Evaluation | None = None
    """The task's tests as they last ran in the loop (`feedback: tests`): what grades the
    answer where the harness made no checks of its own."""


class Agent(Protocol):
    name: str

    def run(self, ctx: AgentContext) -> AgentOutcome: ...
