"""Checks of the form an instruction states for a file it asks for: the structure of a JSON
example it shows (keys, the kinds of values, an array of objects), the `KEY=value` or
`Label: value` lines of an example, a stated number of lines. A pass shows the answer has the
asked-for form, not that its values are right: these checks are of `form` strength.

An example is read as one when it is shown after a sentence that speaks of the result's form
(`format`, `example`, `structure`, `like`, `following`…) — never of the input — and one new file
is in scope: named in that sentence, or the nearest file to make named before it. The example's
own values are never demanded (they stand for the real ones); where its keys look like data (a
date, a host, `user1`) the object is read as a map and only its values' form is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from hillclimber.harness.checks.base import Check, Outcome, Said, said
from hillclimber.harness.checks.fields import FileHasFields, choices, fields
from hillclimber.harness.checks.kinds import TextCheck
from hillclimber.harness.checks.lines import (
    FileHasHeader,
    FileLineCount,
    FileLinesDelimited,
    FileLinesLike,
    csv_header,
    delimited,
    line_shape,
)
from hillclimber.harness.checks.scope import INPUT, LOOK_BACK, is_code, output_of
from hillclimber.harness.checks.stand_ins import stand_in, stand_ins
from hillclimber.harness.checks.stated import line_forms, orders, stated_headers
from hillclimber.harness.checks.text import Sentence
from hillclimber.verify.verifier import Strength

_FORM_WORDS = re.compile(
    r"\b(?:format|formatted|example|structure|schema|like this|look like|looks like|following|"
    r"(?:in|of|with)\s+the\s+form|in\s+this\s+form|"
    r"as follows|template|exactly|should contain|must contain|will contain|contain)\b",
    re.I,
)
_ILLUSTRATIVE = re.compile(
    r"\b(?:actual|real)\b[^.]{0,40}\b(?:will|may|might|can|could|are|is)\s+(?:be\s+)?"
    r"(?:different|differ|vary)\b",
    re.I,
)
"""Said after an example: its names are not the real ones."""

_WORDS = "zero one two three four five six seven eight nine ten eleven twelve"
_NUMBERS = {word: n for n, word in enumerate(_WORDS.split())}
_N = r"(?P<n>\d{1,6}|" + "|".join(_NUMBERS) + r")"
_PER = (
    r"(?!\s+(?:per|for each|for every|of|from)\b)"
    r"(?!\s+in\b(?!\s+(?:this|that|the\s+(?:following|same|given))\b))"
)
"""Not "exactly one line per edge", nor "in each file": a count of something else ("exactly
two lines in this format" is the file's)."""
_LINES = re.compile(
    rf"\b(?:exactly\s+(?:these\s+|the\s+following\s+)?{_N}|(?P<one>a\s+single|only\s+one))"
    r"\s+(?:non-?empty\s+|non-?blank\s+)?"
    rf"lines?\b{_PER}",
    re.I,
)
_EACH = re.compile(r"\b(?:each|every|per)\b", re.I)
"""A sentence of one line for each thing ("each record is a single line") counts the things."""
_ITEMS = re.compile(
    rf"\bexactly\s+{_N}\s+(?:entries|items|objects|records|elements|results)\b{_PER}", re.I
)


def shape_checks(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """The form checks of an instruction's examples and stated line counts."""
    counts = dict(_stated_counts(said, new_files, _ITEMS))
    shown: dict[tuple[str, str], str] = {}
    """Each form an example showed, without its file, and that file: a form shown again (the
    template, then "Example output format:") is the first file's, whatever file the sentences
    between name (a field's description names the binary whose size it holds)."""
    for index, output in examples(said, new_files):
        if any(_ILLUSTRATIVE.search(later.text) for later in said[index + 1 : index + 3]):
            continue  # "the actual field names will be different"
        block = said[index].block or ""
        json_wanted = _json_wanted(said, index, output)
        for check in _example_checks(block, output, json_wanted, counts.get(output), prose(said)):
            form = (type(check).__name__, check.name.replace(output, ""))
            if shown.setdefault(form, output) == output:
                yield check
    stated = [*_stated_counts(said, new_files, _LINES), *_counted_lines(said, new_files)]
    for output, lines in dict(stated).items():
        if not is_code(output):  # "prints exactly 4 lines" of a script: its output's
            yield FileLineCount(output, lines)
    yield from orders(said, new_files)
    yield from stated_headers(said, new_files)
    yield from line_forms(said, new_files)


def examples(said: list[Sentence], new_files: set[str]) -> Iterator[tuple[int, str]]:
    """(index of the sentence, the new file) of each block that shows the form of a result
    file: after a sentence about a form, not the input, of data (not a program's code), and
    not the very text to write ("exactly:", unless it offers choices: `status: yes/no`)."""
    for index, sentence in enumerate(said):
        if not sentence.block or literal(sentence, said) or not _about_the_result(said, index):
            continue
        output = output_of(said, index, new_files)
        if output is not None and sentence.language in _DATA_LANGUAGES and not is_code(output):
            yield index, output


def literal(sentence: Sentence, said: list[Sentence]) -> bool:
    """Whether a sentence's block is the very text to write: said so ("exactly:", "these
    lines:"), and no template whose fields offer choices (`vulnerable: yes/no`)."""
    return sentence.quotes_content and not choices(sentence.block or "", prose(said))


def prose(said: list[Sentence]) -> str:
    """The instruction's sentences without their blocks."""
    return " ".join(sentence.text for sentence in said)


def _example_checks(
    block: str, output: str, json_wanted: bool, items: int | None, told: str
) -> list[Check]:
    """The form an example shows, read as the first of these that fits: JSON, `KEY=value`
    lines, a CSV table with a header, lines of one shape, lines of as many delimited fields."""
    if _DESCRIBED.search(block):
        return []  # "Line 1: the driver's name": what each line is, not an example of it
    example = _json_example(block)
    if example is not None:
        empty = _EMPTY_ALLOWED.search(told) is not None
        nulls = _NULLS.search(told) is not None
        shown = json.dumps(example)
        return [FileMatchesJson(output, shown, items, empty, nulls)] if json_wanted else []
    if labels := fields(block):
        return [FileHasFields(output, labels, choices(block, told))]
    if output.endswith(".csv") and (header := csv_header(block)):
        return [FileHasHeader(output, header)]
    if shape := line_shape(block):
        return [FileLinesLike(output, shape)]
    if split := delimited(block):
        return [FileLinesDelimited(output, *split)]
    return []


_EMPTY_ALLOWED = re.compile(
    r"\bempty\b|\[\s*\]|\bif\s+(?:there\s+(?:are|is)\s+)?none\b|\bnone\s+(?:are\s+|is\s+)?found\b",
    re.I,
)
"""The instruction allows an empty result."""
_NULLS = re.compile(r"\bnull\b|\bNone\b|\bnil\b")
"""The instruction speaks of a null value (`null if not found`)."""
_DESCRIBED = re.compile(r"(?im)^\s*(?:line|row|field|column|part|step)\s*\d+\s*[:=-]")


_DATA_LANGUAGES = ("", "json", "text", "txt", "plain", "plaintext", "csv", "output", "console")
"""Fence tags of examples of data; a block of code (`sql`, `bash`) shows a program, whose form
is the language's, not a line pattern."""


def _about_the_result(said: list[Sentence], index: int) -> bool:
    """The sentence before an example speaks of a form, and not of the input."""
    text = said[index].text
    return _FORM_WORDS.search(text) is not None and INPUT.search(text) is None


def _json_wanted(said: list[Sentence], index: int, output: str) -> bool:
    nearby = " ".join(s.text for s in said[max(0, index - LOOK_BACK) : index + 1])
    return output.endswith(".json") or re.search(r"\bJSON\b", nearby) is not None


def _stated_counts(
    said: list[Sentence], new_files: set[str], phrase: re.Pattern[str]
) -> Iterator[tuple[str, int]]:
    """("the file has exactly 4 lines", the file) for each such sentence about one new file."""
    for index, sentence in enumerate(said):
        match = phrase.search(sentence.text)
        if match is None or INPUT.search(sentence.text):
            continue
        one = match.groupdict().get("one")
        if one and _EACH.search(sentence.text):
            continue
        output = output_of(said, index, new_files)
        word = "1" if one else match.group("n").lower()
        count = int(word) if word.isdigit() else _NUMBERS[word]
        if output is not None and count > 0:
            yield output, count


_PER_LINE = re.compile(r"\bone\s+(?P<noun>[a-z]{3,20})\s+per\s+line\b", re.I)
_A_LINE = re.compile(r"\b(?:each|every)\s+(?:line|row|entry|record)\b", re.I)
_HOLDS = r"\b(?:contains?|containing|has|have|holds?|lists?|with)\s+exactly\s+"


def _counted_lines(said: list[Sentence], new_files: set[str]) -> Iterator[tuple[str, int]]:
    """ "one string per line" and "the file contains exactly 15 (unique) strings", both of one
    new file: that many lines."""
    nouns: dict[str, str] = {}
    for index, sentence in enumerate(said):
        output = output_of(said, index, new_files)
        for match in _PER_LINE.finditer(sentence.text):
            if output is not None and not INPUT.search(sentence.text):
                nouns[match.group("noun").lower()] = output
    for index, sentence in enumerate(said):
        if _A_LINE.search(sentence.text):
            continue  # "each line contains exactly one username": a line's, not the file's
        for noun, output in nouns.items():
            held = re.search(rf"{_HOLDS}{_N}\s+(?:\w+\s+)?{noun}s?\b", sentence.text, re.I)
            if held and output_of(said, index, new_files) == output:
                word = held.group("n").lower()
                yield output, int(word) if word.isdigit() else _NUMBERS[word]


# -- JSON examples ----------------------------------------------------------------------------

_COMMENT = re.compile(r"(?m)(?:^|(?<=[,\[{]))\s*(?://|#).*$")
_ELLIPSIS = re.compile(r"(?m)^\s*(?:\.\.\.|…)\s*,?\s*$|,\s*(?:\.\.\.|…)(?=\s*[\]}])")
_EMPTIED = re.compile(r"([\[{])\s*(?:\.\.\.|…)\s*([\]}])")
"""`[...]`, `{...}`: an array or object of any items."""
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")
_BARE_PLACEHOLDER = re.compile(r"(?<=[:\[,])(\s*)<[^<>\"\n]{1,40}>(?=\s*[,\]}\n])")


WANTED = "<a value>"
"""What a bare placeholder (`<number>`) of an example is read as: any value but null."""


def _json_example(block: str) -> dict[str, object] | list[object] | None:
    """The object or array an example shows, with its comments and `...` left out, and a
    bare placeholder (`<number>`) read as any value (`WANTED`)."""
    text = _ELLIPSIS.sub("", _COMMENT.sub("", _EMPTIED.sub(r"\1\2", block)))
    text = _TRAILING_COMMA.sub(r"\1", text)
    text = _BARE_PLACEHOLDER.sub(rf'\1"{WANTED}"', text)
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict | list) and found else None


def _kind(value: object) -> str:
    """The kind of a JSON value, as the key of its words (`checks.value.number`)."""
    if value is None:
        return "null"
    if value == WANTED:
        return "any"  # a list of it and of strings is of no one kind
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _a(value: object) -> Said:
    return said(f"value.{_kind(value)}")


def _at(where: str) -> Said:
    """The place in the JSON: `the top.files[0]` (`where` is what follows the top)."""
    return said("value.top", path=where)


_SCHEMA_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?<![0-9])$")


def _is_map(example: dict[str, object]) -> bool:
    """An object whose keys are data (`2024-01-15`, `10.0.0.1`, `user1`), not field names."""
    return any(not _SCHEMA_KEY.match(key) for key in example)


def _mismatch(example: object, found: object, where: str, nulls: bool = False) -> Said | None:
    """Where `found` lacks the form of `example` (None: it has it). A null in the example
    allows anything; a number is a number, int or float. A null where the example asks for a
    value (`<line number>`, `"<name>"`) is no answer, unless the instruction speaks of nulls."""
    if found is None and not nulls and _asks_a_value(example):
        return said("failed.json_null_at", where=_at(where))
    if example is None or found is None:
        return None
    if example == WANTED:
        return None
    if _kind(example) != _kind(found):
        return said("failed.json_kind", where=_at(where), found=_a(found), wanted=_a(example))
    if isinstance(example, dict) and isinstance(found, dict):
        return _object_mismatch(example, found, where, nulls)
    if isinstance(example, list) and isinstance(found, list) and example:
        item = _common(example)
        for position, value in enumerate(found):
            wrong = _mismatch(item, value, f"{where}[{position}]", nulls)
            if wrong:
                return wrong
    return None


def _asks_a_value(example: object) -> bool:
    return example == WANTED or (isinstance(example, str) and example.startswith("<")
                                 and stand_in(example))  # fmt: skip


def _object_mismatch(
    example: dict[str, object], found: dict[str, object], where: str, nulls: bool
) -> Said | None:
    if _is_map(example):
        item = _common(list(example.values()))
        wrongs = (_mismatch(item, v, f"{where}[{k!r}]", nulls) for k, v in found.items())
        return next((w for w in wrongs if w), None)
    missing = [key for key in example if key not in found]
    if missing:
        key = "failed.json_lacks_keys" if len(missing) > 1 else "failed.json_lacks_key"
        return said(key, where=_at(where), keys=", ".join(missing))
    wrongs = (_mismatch(v, found[k], f"{where}.{k}", nulls) for k, v in example.items())
    return next((w for w in wrongs if w), None)


def _common(items: list[object]) -> object:
    """What every item of an example's array (or every value of a map) has: of objects, the
    keys they all share, each with what all their values there have; else the first item when
    all are of one kind, else anything (None)."""
    if items and all(isinstance(item, dict) for item in items):
        dicts = [item for item in items if isinstance(item, dict)]
        shared = [k for k in dicts[0] if all(k in d for d in dicts)]
        return {k: _common([d[k] for d in dicts]) for k in shared}
    return items[0] if items and len({_kind(item) for item in items}) == 1 else None


@dataclass(frozen=True)
class FileMatchesJson(TextCheck):
    """The file is JSON with the structure of the instruction's example: its keys, its kinds of
    values, arrays whose items have the form of the example's items (and as many items as the
    instruction states, when it does)."""

    strength: ClassVar[Strength] = "form"

    example: str
    """The example, as JSON text (a frozen check holds no mutable value)."""
    items: int | None = None
    empty: bool = False
    """An empty array is an answer (the instruction speaks of one: "empty if none")."""
    nulls: bool = False
    """A null is an answer where the example asks for a value (the instruction speaks of
    one)."""

    @property
    def words(self) -> Said:
        shown = json.loads(self.example)
        if isinstance(shown, list) and self.items:
            return said("check.json_array_of", path=self.path, items=self.items)
        if isinstance(shown, list):
            return said("check.json_array", path=self.path)
        if _is_map(shown):
            return said("check.json_map", path=self.path)
        return said("check.json_keys", path=self.path, keys=", ".join(list(shown)[:6]))

    def judge(self, text: str) -> Outcome:
        try:
            found = json.loads(text)
        except ValueError as err:
            return Outcome(False, said("failed.not_json", error=str(err)[:60]))
        example = json.loads(self.example)
        if found is None and example is not None:  # a null inside may be a missing value
            return Outcome(False, said("failed.json_null", wanted=_a(example)))
        wrong = _mismatch(example, found, "", self.nulls)
        if not wrong and self.items and isinstance(found, list) and len(found) != self.items:
            wrong = said("failed.item_count", count=len(found), items=self.items)
        if not wrong and found == [] and example and not self.empty:
            wrong = said("failed.empty_array")
        elif not wrong and _hollow(found) and not _hollow(example) and not self.empty:
            wrong = said("failed.hollow")
        held = next(stand_ins(found, example), None) if not wrong else None
        if held is not None:
            wrong = said("failed.json_stand_in", held=repr(held[:40]))
        return Outcome(not wrong, wrong)


def _hollow(value: object) -> bool:
    """JSON with no value in it: only empty arrays and objects (`{"results": []}`). One of a
    list's values may rightly be empty; all of them, where the example shows some, is a
    skeleton of the answer."""
    if isinstance(value, dict):
        return all(_hollow(v) for v in value.values())
    if isinstance(value, list):
        return all(_hollow(v) for v in value)
    return False
