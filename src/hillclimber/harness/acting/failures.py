"""A failed command classified: its kind, and a concrete next step for the model.

A small model that sees only "command failed" retries the same thing; told "python is not
installed here: use python3" it moves on. The readers of each kind are in `suggestions.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from hillclimber.harness.acting import suggestions

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

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


Reader = Callable[[str, int, str], str | None]
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

_TIMEOUT = (
    "it took too long: check it does not wait for input; try a smaller input or a faster method"
)


def classify(
    command: str, exit_code: int, output: str, *, timed_out: bool = False
) -> tuple[FailureKind, str]:
    """The kind of a failure and a short, concrete suggestion (at most 120 chars)."""
    if timed_out or (exit_code == 124 and "timeout" in command):
        return FailureKind.TIMEOUT, _TIMEOUT
    for kind, read in _READERS:
        suggestion = read(command, exit_code, output)
        if suggestion is not None:
            return kind, suggestions.clip(suggestion, MAX_SUGGESTION)
    unknown = suggestions.unknown(command, exit_code, output)
    return FailureKind.UNKNOWN, suggestions.clip(unknown, MAX_SUGGESTION)
