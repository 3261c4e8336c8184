"""A failed command diagnosed: its kind, a concrete next step for the model, and the third
identical failure escalated.

A small model that sees only "command failed" retries the same thing; told "python is not
installed here: use python3" it moves on. The same failure of the same command a third time
escalates: the feedback says how often it failed and asks for a completely different approach.
The readers of each kind of output are in `suggestions.py`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from hillclimber.harness.acting import suggestions
from hillclimber.harness.acting.tools import ToolResult
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.text import clip

MAX_SUGGESTION = 120


class FailureKind(StrEnum):
    PERMISSION_DENIED = "permission_denied"
    NOT_FOUND = "not_found"
    COMMAND_NOT_FOUND = "command_not_found"
    SYNTAX_ERROR = "syntax_error"
    TIMEOUT = "timeout"
    COMPILE_ERROR = "compile_error"
    TEST_FAILURE = "test_failure"
    IMPORT_ERROR = "import_error"
    NETWORK = "network"
    READ_ONLY = "read_only"
    USAGE = "usage"
    UNKNOWN = "unknown"


Reader = Callable[[str, int, str], suggestions.Said | None]
"""(command, exit code, output) → the next step, or None when the output is not of its kind."""

_READERS: tuple[tuple[FailureKind, Reader], ...] = (
    (FailureKind.COMMAND_NOT_FOUND, suggestions.command_not_found),
    (FailureKind.READ_ONLY, suggestions.read_only),
    (FailureKind.NETWORK, suggestions.network),
    (FailureKind.IMPORT_ERROR, suggestions.import_error),
    (FailureKind.SYNTAX_ERROR, suggestions.syntax_error),
    (FailureKind.COMPILE_ERROR, suggestions.compile_error),
    (FailureKind.TEST_FAILURE, suggestions.tests_failed),
    (FailureKind.PERMISSION_DENIED, suggestions.permission),
    (FailureKind.NOT_FOUND, suggestions.not_found),
    (FailureKind.USAGE, suggestions.usage),
    (FailureKind.UNKNOWN, suggestions.quiet_false),
)
"""Tried in this order, the more specific first; exit 1 from grep or diff is no error at all."""


def classify(
    command: str,
    exit_code: int,
    output: str,
    *,
    timed_out: bool = False,
    prompts: Prompts | None = None,
) -> tuple[FailureKind, str]:
    """The kind of a failure and a short, concrete suggestion (at most 120 chars), in the
    words of `recovery.toml` (the shipped ones unless `prompts` are given)."""
    kind, (key, fields) = _read(command, exit_code, output, timed_out=timed_out)
    said = (prompts or shipped())(f"recovery.suggestion.{key}", **fields)
    return kind, clip(said, MAX_SUGGESTION)


def _read(
    command: str, exit_code: int, output: str, *, timed_out: bool
) -> tuple[FailureKind, suggestions.Said]:
    """The kind of a failure and the key of its next step, from the first reader that knows
    its output."""
    if timed_out or (exit_code == 124 and "timeout" in command):
        return FailureKind.TIMEOUT, ("timeout", {})
    for kind, read in _READERS:
        said = read(command, exit_code, output)
        if said is not None:
            return kind, said
    return FailureKind.UNKNOWN, suggestions.unknown(command, exit_code, output)


# -- escalation --------------------------------------------------------------------------------

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
    prompts: Prompts = field(default_factory=shipped, repr=False, compare=False)
    """The words it is said in (`recovery.toml`)."""

    def feedback(self) -> str:
        kind = self.prompts(f"recovery.kind.{self.kind.value}")
        text = self.prompts("recovery.error", kind=kind, suggestion=self.suggestion)
        if self.escalate:
            text = self.prompts("recovery.escalated", error=text.rstrip("."), repeats=self.repeats)
        return text


@dataclass
class RecoveryTracker:
    """Counts failures by (command, kind) over a trial, to escalate the third identical one."""

    prompts: Prompts = field(default_factory=shipped)
    """The words failures are said in (`recovery.toml`), the trial's own where it has them."""
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
            prompts=self.prompts,
        )
        key = (" ".join(command.split()), kind)
        self.counts[key] += 1
        repeats = self.counts[key]
        return Diagnosis(kind, suggestion, repeats, repeats >= ESCALATE_AT, self.prompts)
