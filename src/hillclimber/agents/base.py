"""The `Agent` protocol and the context a trial hands it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hillclimber.sandbox import CommandResult, Sandbox, run_within
from hillclimber.task import Task
from hillclimber.verify.verifier import Evaluation


@dataclass
class AgentContext:
    task: Task
    sandbox: Sandbox
    deadline: float
    """time.monotonic() by which the agent must stop."""
    log_dir: Path
    """Where the agent writes its log and trajectory."""
    workdir: str = "/app"
    """Where commands start: the task's final WORKDIR."""
    verify: Callable[[], Evaluation] | None = None
    """Runs the task's tests on the workspace as it is now (fresh copy of the tests)."""
    suite_hints: str | None = None
    """The suite's declared hint policy ("on"/"off"), if any."""
    suite_source: str | None = None
    """The suite's name or path, for the hint policy's fallback."""
    trial_name: str = ""

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def run(self, command: str, *, timeout: float | None = None) -> CommandResult:
        """Run a command within the agent's remaining time; raise AgentTimeout when it is up."""
        return run_within(
            self.sandbox, command, remaining=self.remaining, timeout=timeout, cwd=self.workdir
        )


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
