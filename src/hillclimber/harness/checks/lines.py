"""Form checks of a file's lines (the kinds `shape.py` reads from an instruction): as many
lines as stated, a table's header, every line of an example's shape or of its number of
delimited fields, sorted, no line twice."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from hillclimber.harness.checks.base import Outcome, Said, said
from hillclimber.harness.checks.kinds import TextCheck
from hillclimber.verify.verifier import Strength


@dataclass(frozen=True)
class FileLineCount(TextCheck):
    """The file has the number of (non-blank) lines the instruction states."""

    strength: ClassVar[Strength] = "form"

    lines: int

    @property
    def words(self) -> Said:
        key = "check.line_count" if self.lines > 1 else "check.line_count_one"
        return said(key, path=self.path, lines=self.lines)

    def judge(self, text: str) -> Outcome:
        count = sum(1 for line in text.splitlines() if line.strip())
        every = len(text.splitlines())  # a line may be empty where the instruction allows it
        return Outcome(self.lines in (count, every), said("failed.has_count", count=count))


# -- tables and lines of one shape ------------------------------------------------------------

_HEADER_NAME = re.compile(r"^[A-Za-z_][\w .()%/-]*$")


def csv_header(block: str) -> tuple[str, ...]:
    """The column names of an example table: a first row of names, and every row as wide."""
    rows = [line.split(",") for line in block.splitlines() if line.strip() and line.strip() not
            in ("...", "…")]  # fmt: skip
    if len(rows) < 2 or len({len(row) for row in rows}) != 1:
        return ()
    return header_names(rows[0])


def header_names(row: list[str]) -> tuple[str, ...]:
    """The column names of a header row: two or more, each a name (not a value)."""
    header = tuple(name.strip() for name in row)
    ok = len(header) >= 2 and all(_HEADER_NAME.match(name) for name in header)
    return header if ok else ()


@dataclass(frozen=True)
class FileHasHeader(TextCheck):
    """The file is a table whose first row is the example's header, every row as wide."""

    strength: ClassVar[Strength] = "form"

    header: tuple[str, ...]

    @property
    def words(self) -> Said:
        return said("check.header", path=self.path, header=",".join(self.header))

    def judge(self, text: str) -> Outcome:
        rows = [row for row in csv.reader(io.StringIO(text)) if row]
        if not rows or tuple(name.strip() for name in rows[0]) != self.header:
            first = repr(",".join(rows[0])[:60] if rows else "")
            return Outcome(False, said("failed.first_row", row=first))
        narrow = next((i for i, row in enumerate(rows) if len(row) != len(self.header)), None)
        if narrow is None:
            return Outcome(True)
        return Outcome(False, said("failed.row_width", row=narrow + 1, fields=len(rows[narrow])))


_TOKEN = re.compile(
    r"(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.])|(?P<word>[\w][\w.-]*)|"
    r"(?P<space>\s+)|(?P<mark>\S)"
)


def line_shape(block: str) -> str:
    """A pattern that every line of an example has (`chr1:1523`, `Parent -> Child: STATUS`,
    `42`): numbers, words, spacing and marks in the same order. Only when at least two lines
    show it, and not a placeholder (`<name>`) among them."""
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    lines = [line for line in lines if line not in ("...", "…")]
    if len(lines) < 2 or any("<" in line or "..." in line for line in lines):
        return ""
    shapes = {_shape(line) for line in lines}
    return shapes.pop() if len(shapes) == 1 else ""


def _shape(line: str) -> str:
    """Numbers where the line has numbers; where it has a word, anything but spaces and the
    line's own marks (a value may hold any character: `d4v1dL33!`); spaces beside a mark
    optional."""
    tokens = list(_TOKEN.finditer(line))
    marks = "".join(sorted({t.group("mark") for t in tokens if t.group("mark")}))
    word = rf"[^\s{re.escape(marks)}]+" if marks else r"\S+"
    parts = []
    for index, token in enumerate(tokens):
        if token.group("num"):
            parts.append(_NUM)
        elif token.group("word"):
            parts.append(word)
        elif token.group("space"):
            beside = [tokens[i] for i in (index - 1, index + 1) if 0 <= i < len(tokens)]
            parts.append(r"\s*" if any(t.group("mark") for t in beside) else r"\s+")
        else:
            parts.append(re.escape(token.group("mark")))
    return "".join(parts)


_NUM = r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"


@dataclass(frozen=True)
class FileLinesLike(TextCheck):
    """Every line of the file has the shape of the example's lines (`chr1:1523`): a number
    where they show a number, a word where they show a word, the same marks between."""

    strength: ClassVar[Strength] = "form"

    shape: str
    """A regular expression a whole line matches."""
    form: str = ""
    """The form as the instruction quotes it in a sentence (`LEVEL count`); "" for an
    example's lines."""

    @property
    def words(self) -> Said:
        if self.form:
            return said("check.lines_like", path=self.path, form=self.form)
        return said("check.lines_like_example", path=self.path)

    def judge(self, text: str) -> Outcome:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        wrong = next((line for line in lines if not re.fullmatch(self.shape, line)), None)
        if wrong is None:
            return Outcome(True)
        if self.form:
            return Outcome(False, said("failed.unlike", line=repr(wrong[:60]), form=self.form))
        return Outcome(False, said("failed.unlike_example", line=repr(wrong[:60])))


_PLACEHOLDER = re.compile(r"<([^<>\n]{1,40})>|\b([A-Za-z_]\w*)\b")
_NUMBER_WORDS = frozenset(
    ("n", "num", "number", "count", "total", "sum", "amount", "quantity", "qty", "size", "bytes",
     "port", "pid", "age", "year", "index", "lineno", "line_number", "percent", "percentage",
     "int", "integer", "float", "decimal", "digits")
)  # fmt: skip
"""Words that stand for a number in a quoted form (`LEVEL count`, `port=<number>`)."""


def template_shape(form: str) -> str:
    """The shape of the lines a form quoted in a sentence stands for (`LEVEL count`,
    `key=<value>`): a number where it names one, any word where it has a word or a
    placeholder, its marks and spacing as they are."""

    def stand_in(match: re.Match[str]) -> str:
        word = (match.group(1) or match.group(2)).strip().lower()
        return "0" if word in _NUMBER_WORDS else "x"

    return _shape(_PLACEHOLDER.sub(stand_in, form.strip()))


_DELIMITERS = (",", "|", ";", "\t")


def delimited(block: str) -> tuple[str, int] | None:
    """(delimiter, fields) of an example whose lines are all split into the same number of
    fields (2 to 20, none empty or long) by the one delimiter it uses: `name,total`,
    `id|host|port`. Read from a single line too: a field count binds no value, where a line's
    shape would bind its words and spacing."""
    lines = [line for line in _lines(block) if line not in ("...", "…")]
    used = [mark for mark in _DELIMITERS if any(mark in line for line in lines)]
    if len(used) != 1:
        return None
    rows = [_fields(line, used[0]) for line in lines]
    widths = {len(row) for row in rows}
    if len(widths) != 1 or any(not f.strip() or len(f) > 40 for row in rows for f in row):
        return None
    fields = widths.pop()
    return (used[0], fields) if 2 <= fields <= 20 else None


def _fields(line: str, delimiter: str) -> list[str]:
    """A line's fields at a delimiter, quoted ones as CSV quotes them."""
    return next(csv.reader([line], delimiter=delimiter, skipinitialspace=True), [])


def _mark(delimiter: str) -> Said | str:
    return said("value.tab") if delimiter == "\t" else f"'{delimiter}'"


@dataclass(frozen=True)
class FileLinesDelimited(TextCheck):
    """Every line of the file has the example's number of fields at its delimiter."""

    strength: ClassVar[Strength] = "form"

    delimiter: str
    fields: int

    @property
    def words(self) -> Said:
        mark = _mark(self.delimiter)
        return said("check.delimited", path=self.path, fields=self.fields, mark=mark)

    def judge(self, text: str) -> Outcome:
        for line in _lines(text):
            found = len(_fields(line, self.delimiter))
            if found != self.fields:
                wrong = said("failed.line_fields", line=repr(line[:60]), found=found,
                             mark=_mark(self.delimiter), fields=self.fields)  # fmt: skip
                return Outcome(False, wrong)
        return Outcome(True)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class FileLinesSorted(TextCheck):
    """The file's lines are in alphabetical order (with or without case)."""

    strength: ClassVar[Strength] = "form"

    @property
    def words(self) -> Said:
        return said("check.sorted_lines", path=self.path)

    def judge(self, text: str) -> Outcome:
        lines = _lines(text)
        ordered = lines in (sorted(lines), sorted(lines, key=str.lower))
        return Outcome(ordered, said("failed.unsorted"))


@dataclass(frozen=True)
class FileLinesUnique(TextCheck):
    """No line of the file is there twice."""

    strength: ClassVar[Strength] = "form"

    @property
    def words(self) -> Said:
        return said("check.unique_lines", path=self.path)

    def judge(self, text: str) -> Outcome:
        counts = Counter(_lines(text))
        twice = next((line for line, n in counts.items() if n > 1), None)
        if twice is None:
            return Outcome(True)
        return Outcome(False, said("failed.twice", line=repr(twice[:60])))
