"""Checks of a change to an existing file: what it changes from is gone (`FileLacks`), nothing
but that changed (`FileOnlyReplaced`), every line it had is kept (`FileKeepsLines`), the text
to append is after its last line and nothing else (`FileAppended`); and the text an append
sentence quotes (`appended_text`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from hillclimber.harness.checks.base import Outcome
from hillclimber.harness.checks.kinds import TextCheck
from hillclimber.harness.checks.text import Sentence
from hillclimber.verify.verifier import Strength


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


@dataclass(frozen=True)
class FileKeepsLines(TextCheck):
    """Every line the file had at the start is still there, in the same order (what is added
    may go anywhere): an append keeps what was there. An invariant."""

    before: str = field(repr=False)
    goal: bool = field(default=False, kw_only=True)

    @property
    def name(self) -> str:
        return f"{self.path} keeps every line it had"

    def judge(self, text: str) -> Outcome:
        now = iter(text.splitlines())
        for line in self.before.splitlines():
            if not any(line == other for other in now):
                return Outcome(False, f"lost the line {line.strip()[:60]!r}")
        return Outcome(True)


@dataclass(frozen=True)
class FileAppended(TextCheck):
    """The file is what it was with `added` after its last line, and nothing else: no line
    lost or changed, no blank line or second copy added ("Append a line containing exactly
    `[DONE]`")."""

    strength: ClassVar[Strength] = "value"

    before: str = field(repr=False)
    added: str

    @property
    def name(self) -> str:
        shown = self.added if len(self.added) <= 40 else self.added[:39] + "…"
        return f"{self.path} is what it was with {shown!r} appended"

    def judge(self, text: str) -> Outcome:
        had, wanted = self.before.splitlines(), self.added.splitlines()
        now = [line.rstrip("\r") for line in text.splitlines()]
        while now and not now[-1].strip():
            now.pop()
        if now[: len(had)] != had:
            return Outcome(False, "the lines it had are not all kept as they were")
        extra = now[len(had) :]
        if extra == wanted:
            return Outcome(True)
        return Outcome(False, f"it has {extra[:3]!r} after its old lines, not only the new")


def _word(text: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)")


_APPENDED = re.compile(
    r"\bappend(?:s|ing)?\s+(?:(?:a|the|one)\s+(?:new\s+|final\s+|last\s+)?line\s+)?"
    r"(?:(?:containing|reading)\s+(?:exactly|only)\s+)?`([^`]+)`",
    re.I,
)
"""The text right after the verb: "append `X`", "append the line `X`", "append a line
containing exactly `X`" (a line merely "containing `X`" may hold more)."""
_LINE_TEXT = re.compile(
    r"(?:\bline\s+(?:(?:containing|reading)\s+(?:exactly|only)\s+)?|"
    r"\b(?:containing|contains|reading)\s+(?:exactly|only)\s+)`([^`]+)`",
    re.I,
)
"""A line's whole text quoted elsewhere in the sentence ("a line `X` at the end")."""


_THESE = re.compile(r"\b(?:these|this|the following)\s+(?:\w+\s+)?lines?\b.*:$", re.I | re.S)


def appended_text(sentence: Sentence) -> str | None:
    """The one text an append sentence quotes to add: `Append the line `X``, `a line
    containing exactly `X``, or "Append these lines:" and its block; none where it quotes
    several, or only a way to do it (`Append a line with `echo``: not after the verb)."""
    if sentence.block is not None and (sentence.quotes_content or _THESE.search(sentence.text)):
        return sentence.block.strip("\n")
    quoted = _APPENDED.findall(sentence.text) or _LINE_TEXT.findall(sentence.text)
    return quoted[0] if len(quoted) == 1 else None
