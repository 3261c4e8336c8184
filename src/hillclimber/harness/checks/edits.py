"""Checks of a change to an existing file: what it changes from is gone (`FileLacks`), nothing
but that changed (`FileOnlyReplaced`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hillclimber.harness.checks.base import Outcome, Said, said
from hillclimber.harness.checks.kinds import TextCheck


@dataclass(frozen=True)
class FileLacks(TextCheck):
    """`text` is no longer in the file as a word of its own (`8080`, not in `18080`). Where the
    instruction says what it becomes (`becomes`), a failure shows the line as it should read."""

    text: str
    becomes: str = field(default="", kw_only=True)

    @property
    def words(self) -> Said:
        return said("check.lacks", path=self.path, text=repr(self.text))

    def judge(self, text: str) -> Outcome:
        word = _word(self.text)
        left = [line.strip() for line in text.splitlines() if word.search(line)]
        if not left:
            return Outcome(True)
        line = repr(left[0][:60])
        if self.becomes and len(left[0]) <= 200:
            fixed = repr(word.sub(lambda _: self.becomes, left[0]))
            return Outcome(False, said("failed.still_becomes", line=line,
                                       becomes=repr(self.becomes), fixed=fixed))  # fmt: skip
        return Outcome(False, said("failed.still", line=line))


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
    def words(self) -> Said:
        return said("check.only_replaced", path=self.path, old=repr(self.old), new=repr(self.new))

    def judge(self, text: str) -> Outcome:
        now, was = text.splitlines(), self.before.splitlines()
        if len(now) != len(was):
            return Outcome(False, said("failed.line_total", now=len(now), was=len(was)))
        word = _word(self.old)
        either = f"(?:{re.escape(self.old)}|{re.escape(self.new)})"
        for line, old_line in zip(now, was, strict=True):
            pieces = map(re.escape, word.split(old_line))
            if line != old_line and not re.fullmatch(either.join(pieces), line):
                return Outcome(False, said("failed.another_change", line=repr(line.strip()[:60])))
        return Outcome(True)


def _word(text: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)")
