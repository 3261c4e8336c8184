"""The kinds of acceptance checks: what a file must be (there, changed, left alone, holding a
text, parsing as a format, executable) and a command that must succeed. That a new file is
*not* a copy of what the task gave is `copies.py`."""

from __future__ import annotations

import csv
import json
import posixpath
import re
import shlex
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import yaml

from hillclimber.harness.checks.base import (
    CheckContext,
    Origin,
    Outcome,
    Said,
    digest,
    said,
)
from hillclimber.harness.checks.stand_ins import only_stand_ins, tool_said
from hillclimber.sandbox import APP, run_within
from hillclimber.sandbox.files import read_bytes, read_text
from hillclimber.verify.verifier import Strength


@dataclass(frozen=True)
class FileCheck:
    """What every file check has: the file, where the check came from, and whether it is a
    goal (fails until the work is done) or an invariant."""

    path: str
    origin: Origin = field(default="extracted", kw_only=True)
    goal: bool = field(default=True, kw_only=True)
    rule: str = field(default="", kw_only=True, compare=False)
    """The rule that made it (`base.made_by`), for counting where each rule fires."""
    strength: ClassVar[Strength] = "weak"
    """Weak unless the kind says otherwise: a file there, parsing or changed can hold anything."""

    @property
    def words(self) -> Said:
        raise NotImplementedError

    @property
    def name(self) -> str:
        return self.words.text()


NO_TEXT = said("failed.no_text")


@dataclass(frozen=True)
class TextCheck(FileCheck):
    """A check of what a text file holds: it fails when there is no text file, else it is
    the kind's `judge` of the text."""

    def run(self, ctx: CheckContext) -> Outcome:
        found = read_text(ctx.sandbox, self.path)
        return Outcome(False, NO_TEXT) if found is None else self.judge(found)

    def judge(self, text: str) -> Outcome:
        raise NotImplementedError


@dataclass(frozen=True)
class FileExists(FileCheck):
    """There and not empty: not blank, nor a line a tool said, nor stand-ins only (but for
    those the instruction says itself, `told`)."""

    told: tuple[str, ...] = field(default=(), kw_only=True)

    @property
    def words(self) -> Said:
        return said("check.exists", path=self.path)

    def run(self, ctx: CheckContext) -> Outcome:
        data = read_bytes(ctx.sandbox, self.path)
        if data is None:
            return Outcome(False, said("failed.no_file"))
        if not data.strip():
            return Outcome(False, said("failed.empty"))
        text = data[:4096].decode(errors="replace")
        if (told := tool_said(text)) is not None:
            return Outcome(False, said("failed.tool_said", said=repr(told[:50])))
        markup = posixpath.splitext(self.path)[1].lower() in _MARKUP  # `<root/>` is XML
        held = only_stand_ins(text, self.told) if len(data) < 4096 and not markup else None
        if held is not None:
            return Outcome(False, said("failed.stand_in", held=repr(held[:40])))
        return Outcome(True)


_MARKUP = (".xml", ".html", ".htm", ".xhtml", ".svg")


@dataclass(frozen=True)
class FileChanged(FileCheck):
    @property
    def words(self) -> Said:
        return said("check.changed", path=self.path)

    def run(self, ctx: CheckContext) -> Outcome:
        data = read_bytes(ctx.sandbox, self.path)
        if data is None:
            return Outcome(False, said("failed.no_file"))
        return Outcome(digest(data) != ctx.start.get(self.path), said("failed.as_it_was"))


@dataclass(frozen=True)
class FileUnchanged(FileCheck):
    goal: bool = field(default=False, kw_only=True)

    @property
    def words(self) -> Said:
        return said("check.unchanged", path=self.path)

    def run(self, ctx: CheckContext) -> Outcome:
        now = digest(read_bytes(ctx.sandbox, self.path))
        return Outcome(now == ctx.start.get(self.path), said("failed.changed"))


def holds(text: str, value: str) -> bool:
    """Whether `text` holds `value` on its own (`req_1` is not in `req_10`)."""
    return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text) is not None


@dataclass(frozen=True)
class FileHasText(TextCheck):
    """The file holds `text`: as a whole line when it is one line, else as a block of lines;
    with `only`, nothing else (blank lines around it aside)."""

    strength: ClassVar[Strength] = "value"

    text: str
    only: bool = False

    @property
    def words(self) -> Said:
        shown = self.text if len(self.text) <= 40 else self.text[:39] + "…"
        key = ("only_" if self.only else "") + ("lines" if "\n" in self.text else "line")
        return said(f"check.{key}", path=self.path, text=repr(shown))

    def judge(self, text: str) -> Outcome:
        lines = [line.rstrip("\r") for line in text.splitlines()]
        wanted = self.text.splitlines()
        if self.only:
            held, wanted = _trimmed(lines), _trimmed(wanted)
            if held == wanted:
                return Outcome(True)
            blank = next((i for i, line in enumerate(lines) if line.strip()), 0)
            return Outcome(False, _differs(held, wanted, blank + 1))
        found = any(lines[i : i + len(wanted)] == wanted for i in range(len(lines)))
        if found or not wanted:
            return Outcome(found, said("failed.not_there"))
        starts = [i for i, line in enumerate(lines) if line == wanted[0]]
        if not starts:
            return Outcome(False, said("failed.no_line_exactly", line=_whole(wanted[0])))
        start = starts[0]
        return Outcome(False, _differs(lines[start : start + len(wanted)], wanted, start + 1))


def _differs(held: list[str], wanted: list[str], first: int = 1) -> Said:
    """Where `held` (the file's lines from line `first`) first is not `wanted`, both lines
    shown whole: the check's name clips the text, and the 0.5B wrote the clipped text, `…`
    and all, into the file."""
    for number, (have, want) in enumerate(zip(held, wanted, strict=False), first):
        if have != want:
            return said("failed.line_is", number=number, have=_whole(have), want=_whole(want))
    if len(held) < len(wanted):
        end = first + len(held) - 1
        return said("failed.ends_at", end=end, next=end + 1, want=_whole(wanted[len(held)]))
    return said("failed.more_after", line=first + len(wanted) - 1, more=_whole(held[len(wanted)]))


def _whole(line: str, limit: int = 200) -> str:
    return repr(line if len(line) <= limit else line[: limit - 1] + "…")


def _trimmed(lines: list[str]) -> list[str]:
    """`lines` without blank lines at the start and the end."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


@dataclass(frozen=True)
class FileContains(TextCheck):
    """The file holds `text` somewhere (`9090`, `DEBUG=true`)."""

    strength: ClassVar[Strength] = "value"

    text: str

    @property
    def words(self) -> Said:
        return said("check.contains", path=self.path, text=repr(self.text))

    def judge(self, text: str) -> Outcome:
        return Outcome(self.text in text, said("failed.not_there"))


Format = Literal["json", "csv", "toml", "yaml"]


@dataclass(frozen=True)
class FileParses(TextCheck):
    format: Format

    @property
    def words(self) -> Said:
        return said("check.parses", path=self.path, format=self.format.upper())

    def judge(self, text: str) -> Outcome:
        if not text.strip():
            return Outcome(False, said("failed.empty"))
        try:
            _PARSERS[self.format](text)
        except _Unfit as unfit:
            return Outcome(False, said("failed.no_parse", error=said(f"failed.{unfit.args[0]}")))
        except Exception as err:  # any parser's error means the same here
            error = str(err).splitlines()[0][:80]
            return Outcome(False, said("failed.no_parse", error=error))
        return Outcome(True)


class _Unfit(ValueError):
    """It parses, yet holds none of the data asked for: the key of the words saying why."""


def _csv(text: str) -> None:
    rows = list(csv.reader(text.splitlines()))
    if not rows or len({len(row) for row in rows if row}) > 1:
        raise _Unfit("csv_widths")


def _json(text: str) -> None:
    data = json.loads(text)
    if data is None or isinstance(data, str):
        raise _Unfit("json_no_data")


def _yaml(text: str) -> None:
    """Every document a mapping or a list (`---` may part several): a plain line of words is
    valid YAML too ("Your corrected playbook content here"), and never the file asked for."""
    documents = [d for d in yaml.safe_load_all(text) if d is not None]
    if not documents or not all(isinstance(d, dict | list) for d in documents):
        raise _Unfit("yaml_plain")


_PARSERS: dict[str, Callable[[str], object]] = {
    "json": _json,
    "toml": tomllib.loads,
    "csv": _csv,
    "yaml": _yaml,
}


@dataclass(frozen=True)
class FileExecutable(FileCheck):
    """The file may be run as a program (a script the instruction calls executable)."""

    @property
    def words(self) -> Said:
        return said("check.executable", path=self.path)

    def run(self, ctx: CheckContext) -> Outcome:
        found = ctx.sandbox.run(f"test -x {shlex.quote(self.path)}", timeout=10)
        return Outcome(found.ok, said("failed.not_executable"))


@dataclass(frozen=True)
class CommandSucceeds:
    """`command` exits 0 (and prints `output`, when given), run at `cwd`."""

    command: str
    output: str | None = None
    cwd: str = APP
    origin: Origin = "extracted"
    goal: bool = True
    rule: str = field(default="", compare=False)

    @property
    def strength(self) -> Strength:
        """Value only when it must print something: a command that merely runs shows little."""
        return "weak" if self.output is None else "value"

    @property
    def words(self) -> Said:
        if self.output:
            return said("check.command_prints", command=self.command, output=repr(self.output))
        return said("check.command", command=self.command)

    @property
    def name(self) -> str:
        return self.words.text()

    def run(self, ctx: CheckContext) -> Outcome:
        result = run_within(  # a check only looks: what it starts ends with it
            ctx.sandbox,
            self.command,
            remaining=ctx.remaining,
            timeout=ctx.command_timeout,
            cwd=self.cwd,
            linger=False,
        )
        if result.timed_out:
            return Outcome(False, said("failed.timed_out"), timed_out=True)
        if result.exit_code != 0:
            last = result.output.strip().splitlines()[-1:] or [""]
            wrong = said("failed.exit_code", code=result.exit_code, last=last[0][:80])
            return Outcome(False, wrong)
        if self.output and self.output not in result.stdout:
            return Outcome(False, said("failed.printed", printed=repr(result.stdout.strip()[:60])))
        return Outcome(True)
