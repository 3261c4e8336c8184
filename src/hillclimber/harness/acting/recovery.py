"""Error recovery: each failed command diagnosed, and the third identical failure escalated.

The same failure of the same command a third time escalates: the feedback says how often it
failed and asks for a completely different approach. What the failure is and what to do about
it is in `failures.py`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from hillclimber.harness.acting.failures import FailureKind, classify
from hillclimber.harness.acting.tools import ToolResult

ESCALATE_AT = 3
_STATUS_LINE = re.compile(r"^\[(?:exit code -?\d+|timed out)[^\]\n]*\]\n?")
"""The sandbox's own first line, which is no part of what the command printed."""


@dataclass(frozen=True)
class Diagnosis:
    kind: FailureKind
    suggestion: str
    repeats: int
    """How often this command has now failed this way (1 the first time)."""
    escalate: bool

    def feedback(self) -> str:
        text = f"Error: {self.kind.label} — {self.suggestion}"
        if self.escalate:
            text = text.rstrip(".") + (
                f". This has failed {self.repeats} times the same way:"
                " try a completely different approach."
            )
        return text


@dataclass
class RecoveryTracker:
    """Counts failures by (command, kind) over a trial, to escalate the third identical one."""

    counts: Counter[tuple[str, FailureKind]] = field(default_factory=Counter)

    def record(self, command: str, result: ToolResult) -> Diagnosis | None:
        """The diagnosis of a failed command (None for a success)."""
        if result.success:
            return None
        exit_code = result.metadata.get("exit_code")
        kind, suggestion = classify(
            command,
            exit_code if isinstance(exit_code, int) else 1,
            _STATUS_LINE.sub("", result.output),
            timed_out=bool(result.metadata.get("timed_out", False)),
        )
        key = (" ".join(command.split()), kind)
        self.counts[key] += 1
        repeats = self.counts[key]
        return Diagnosis(kind, suggestion, repeats, repeats >= ESCALATE_AT)
