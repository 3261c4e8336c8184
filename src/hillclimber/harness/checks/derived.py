"""Checks whose expected content the harness worked out itself from the task's input, before
the first action: an answer obtained independently of the model's. When the model's result
agrees with it, that is strong evidence; when it disagrees, the check fails and says what it
found. (`meaning.py` reads from the instruction which of these apply.)"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

from hillclimber.harness.checks.base import Outcome
from hillclimber.harness.checks.kinds import TextCheck
from hillclimber.verify.verifier import Strength


@dataclass(frozen=True)
class FileHoldsValue(TextCheck):
    """The file holds one of `values` and nothing else (surrounding blank space aside): a value
    worked out from the input (a count of its words or lines); several values where a reading
    is open (lines with or without a last newline)."""

    strength: ClassVar[Strength] = "value"

    values: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.path} holds only {' or '.join(self.values)}"

    def judge(self, text: str) -> Outcome:
        return Outcome(text.strip() in self.values, f"it holds {text.strip()[:40]!r}")


@dataclass(frozen=True)
class FileHasRecords(TextCheck):
    """The file is a JSON array of `count` objects, each with exactly the `keys` (a table's
    header) — a conversion of that table, record for record."""

    strength: ClassVar[Strength] = "value"

    keys: tuple[str, ...]
    count: int

    @property
    def name(self) -> str:
        return (
            f"{self.path} is a JSON array of {self.count} objects with keys {', '.join(self.keys)}"
        )

    def judge(self, text: str) -> Outcome:
        try:
            data = json.loads(text)
        except ValueError:
            return Outcome(False, "not JSON")
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            return Outcome(False, "not an array of objects")
        if len(data) != self.count:
            return Outcome(False, f"{len(data)} objects, the table has {self.count} rows")
        wrong = next((item for item in data if set(item) != set(self.keys)), None)
        if wrong is not None:
            return Outcome(False, f"an object has keys {', '.join(map(str, wrong))[:60]}")
        return Outcome(True)


@dataclass(frozen=True)
class FileListsNames(TextCheck):
    """The file holds, one per line, the names of a folder's entries as they were (in any
    order); `optional` names may be there or not (the listing file itself, made by the
    command that lists)."""

    strength: ClassVar[Strength] = "value"

    names: tuple[str, ...]
    optional: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.path} lists the {len(self.names)} names, one per line"

    def judge(self, text: str) -> Outcome:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        found = set(lines) - set(self.optional)
        missing = sorted(set(self.names) - found)
        extra = sorted(found - set(self.names))
        if missing or extra or len(lines) != len(set(lines)):
            detail = f"missing {', '.join(missing)[:40]}" if missing else ""
            detail += f" extra {', '.join(extra)[:40]}" if extra else ""
            return Outcome(False, detail.strip() or "a name twice")
        return Outcome(True)
