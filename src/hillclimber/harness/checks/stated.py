"""Forms a sentence states for a result in words or in a quoted line rather than by an example
block: a table's header ("the header `city,name,email`"), the order of its lines ("sorted
alphabetically", "no duplicates"), and the form of each line ("one line per level in the form
`LEVEL count`", "Format: `<string>|<encoding>`"). Form strength: a pass shows the shape, not
the values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hillclimber.harness.checks.base import Check
from hillclimber.harness.checks.lines import (
    FileHasHeader,
    FileLinesDelimited,
    FileLinesLike,
    FileLinesSorted,
    FileLinesUnique,
    delimited,
    header_names,
    template_shape,
)
from hillclimber.harness.checks.scope import INPUT, is_code, output_of
from hillclimber.harness.checks.text import Sentence

_HEADER = re.compile(r"\bheader(?:\s+(?:line|row))?\s+(?:is\s+)?`([^`]+)`", re.I)


def stated_headers(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """ "the header `city,name,email`" of a new table: its first row, every row as wide."""
    for index, sentence in enumerate(said):
        match = _HEADER.search(sentence.text)
        if match is None or INPUT.search(sentence.text):
            continue
        output = output_of(said, index, new_files)
        header = header_names(match.group(1).split(","))
        if output is not None and output.endswith(".csv") and header:
            yield FileHasHeader(output, header)


# -- sorted, unique ---------------------------------------------------------------------------

SORTED = re.compile(
    r"\bsorted\s+(?:alphabetically|in\s+(?:ascending|alphabetical)\s+order)\b|"
    r"\b(?:in|into)\s+alphabetical\s+order\b",
    re.I,
)
_UNIQUE = re.compile(
    r"\bno\s+duplicate(?:s|d)?\b|\bwithout\s+duplicates\b|"
    r"\b(?:appears?|listed|included|occurs?)\s+only\s+once\b",
    re.I,
)
OTHER_ORDER = re.compile(
    r"\b(?:descending|reverse|numerically|by\s+(?:count|size|date|time))\b", re.I
)


def orders(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """ "sorted alphabetically", "no duplicates" of a file of lines (not JSON, a table or a
    program, whose order and items are not its lines)."""
    for index, sentence in enumerate(said):
        sort = SORTED.search(sentence.text) and not OTHER_ORDER.search(sentence.text)
        unique = _UNIQUE.search(sentence.text)
        if not (sort or unique) or INPUT.search(sentence.text):
            continue
        output = output_of(said, index, new_files)
        if output is None or is_code(output) or output.endswith((".json", ".csv", ".tsv")):
            continue
        if sort:
            yield FileLinesSorted(output)
        if unique:
            yield FileLinesUnique(output)


# -- a line's form, quoted in a sentence -------------------------------------------------------

_LINE_FORM = re.compile(
    r"\b(?:(?:in|of|with|using)\s+the\s+(?:following\s+)?(?:form|format)(?:\s+of)?|"
    r"formatted\s+as|format)\s*:?\s*`(?P<form>[^`\n]+)`",
    re.I,
)
_FILE_NAME = re.compile(r"[\w-]+\.\w{1,5}")
_PARTS = re.compile(r"[^\w.-]")
"""What a line's form has between its parts: a space or a mark (`LEVEL count`, `row,col`)."""
_OTHER_LINES = re.compile(
    r"\b(?<!no\s)(?<!without\s)headers?\b|"
    r"\b(?:first|last|final|summary|total)\s+(?:line|row)\b|"
    r"\bfollowed\s+by\b|\b(?:end|ends|begin|begins|start|starts)\s+with\b",
    re.I,
)
"""Lines the file has beside those of the form: a header, a first or a last line."""


def line_forms(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """Every line of a new file of data has the form a sentence quotes for it: its delimited
    fields (`row,col`), else its shape (`LEVEL count`: a word, a space, a number). Not where
    the file has other lines too (a header, a total line), nor where two forms are stated for
    one file."""
    forms: dict[str, set[str]] = {}
    for index, sentence in enumerate(said):
        match = _LINE_FORM.search(sentence.text)
        if match is None or INPUT.search(sentence.text):
            continue
        form = match.group("form").strip()
        output = output_of(said, index, new_files)
        if output is None or is_code(output) or output.endswith(".json"):
            continue
        if _is_form(form):
            forms.setdefault(output, set()).add(form)
    for output, stated in forms.items():
        if len(stated) != 1 or _has_other_lines(said, output, new_files):
            continue
        form = stated.pop()
        if split := delimited(re.sub(r"<[^<>]*>", "x", form)):
            yield FileLinesDelimited(output, *split)
        elif shape := template_shape(form):
            yield FileLinesLike(output, shape, form=form)


def _is_form(form: str) -> bool:
    """Parts with a space or a mark between them; not a path nor a file's name (`as
    /workspace/x.py`), nor one word (`the format `json``)."""
    return "/" not in form and not _FILE_NAME.fullmatch(form) and _PARTS.search(form) is not None


def _has_other_lines(said: list[Sentence], output: str, new_files: set[str]) -> bool:
    return any(
        _OTHER_LINES.search(sentence.text) and output_of(said, index, new_files) == output
        for index, sentence in enumerate(said)
    )
