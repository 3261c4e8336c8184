"""Checks of a change to an existing file: what it changes from is gone (`FileLacks`), nothing
but that changed (`FileOnlyReplaced`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hillclimber.harness.checks.base import Outcome
from hillclimber.harness.checks.kinds import TextCheck


@dataclass(frozen=True)
class FileLacks(TextCheck):
    """`text` is no longer in the file as a word of its own (`8080`, not in `18080`). Where the
    instruction says what it becomes (`becomes`), a failure shows the line as it should read."""

    text: str
    becomes: str = field(default="", kw_only=True)

    @property
    def name(self) -> str:
        return f"{self.path} no longer holds {self.text!r}"

    def judge(self, text: str) -> Outcome:
        word = _word(self.text)
        left = [line.strip() for line in text.splitlines() if word.search(line)]
        if not left:
            return Outcome(True)
        detail = f"still in {left[0][:60]!r}"
        if self.becomes and len(left[0]) <= 200:
            detail += (
                f"; with {self.becomes!r} for it: {word.sub(lambda _: self.becomes, left[0])!r}"
            )
        return Outcome(False, detail)


@dataclass(frozen=True)
class FileOnlyReplaced(TextCheck):
    """Each line is the line that was there at the start, or that line with `old` (a word of
    its own) made `new`: a change "from A to B" where nothing else may change. An
    invariant."""

    old: str
    new: str
    before: str = field(repr=False)
    goal: bool = field(default=False, kw_only=True)

    @property
    def name(self) -> str:
        return f"{self.path} differs from its start only where {self.old!r} became {self.new!r}"

    def judge(self, text: str) -> Outcome:
        now, was = text.splitlines(), self.before.splitlines()
        if len(now) != len(was):
            return Outcome(False, f"{len(now)} lines, not {len(was)}")
        word = _word(self.old)
        either = f"(?:{re.escape(self.old)}|{re.escape(self.new)})"
        for line, old_line in zip(now, was, strict=True):
            pieces = map(re.escape, word.split(old_line))
            if line != old_line and not re.fullmatch(either.join(pieces), line):
                return Outcome(False, f"another change: {line.strip()[:60]!r}")
        return Outcome(True)


def _word(text: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)")
