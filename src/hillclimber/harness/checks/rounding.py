"""Values the instruction says are rounded ("- `avg_celsius`: the mean, rounded to 1 decimal
place", "All numeric values should be rounded to 2 decimal places"): the answer's numbers
there have no more decimals than that. The 1.5B wrote `"avg_celsius": 21.45678901234567`, and a
second computation that printed 21.5 agreed with it to the precision it was written with.

A field is read from the sentence's own code span (the bullet that names it); without one, only
a sentence about all the values ("all numeric values") speaks of the whole file. JSON is read
as JSON (a number inside a string is no value); numbers in e-notation are left alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from hillclimber.harness.checks.base import Check, Outcome, Said, said
from hillclimber.harness.checks.kinds import TextCheck
from hillclimber.harness.checks.scope import said_of
from hillclimber.harness.checks.text import Sentence
from hillclimber.verify.verifier import Strength

_ROUNDED = re.compile(
    r"\bround(?:ed)?\s+(?:to|at)\s+(?P<n>\d|one|two|three|four|five|six)\s+"
    r"(?:decimal(?:\s+place)?s?|digits?\s+after\s+the\s+decimal(?:\s+point)?)\b",
    re.I,
)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_ALL_VALUES = re.compile(
    r"\ball\s+(?:the\s+)?(?:numeric(?:al)?\s+|number\s+)?values\b|\ball\s+numbers\b", re.I
)


@dataclass(frozen=True)
class NumbersRounded(TextCheck):
    """The numbers of a field (or, with no field, of the whole file) have at most `places`
    decimals."""

    strength: ClassVar[Strength] = "form"

    places: int
    field: str = ""

    @property
    def words(self) -> Said:
        key = "check.rounded" + ("_field" if self.field else "")
        key += "_one" if self.places == 1 else ""
        return said(key, path=self.path, field=self.field, places=self.places)

    def judge(self, text: str) -> Outcome:
        numbers = _json_numbers(text, self.field)
        for number in _text_numbers(text, self.field) if numbers is None else numbers:
            if "e" in number.lower():
                continue  # 1.5e-05: no decimal places to count
            decimals = len(number.partition(".")[2])
            if decimals > self.places:
                places = self.places
                return Outcome(False, said("failed.decimals", number=number, decimals=decimals,
                                           places=places))  # fmt: skip
        return Outcome(True)


class _Written(str):
    """A JSON number with a fraction, as the file writes it."""


def _json_numbers(text: str, field: str) -> list[str] | None:
    """The numbers with a fraction of JSON `text` (those of `field`, at any depth, when one is
    given), as written; None when it is no JSON."""
    try:
        data = json.loads(text, parse_float=_Written)
    except ValueError:
        return None
    found: list[str] = []

    def walk(value: object, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for item in value:
                walk(item, key)
        elif isinstance(value, _Written) and (not field or key == field):
            found.append(str(value))

    walk(data, "")
    return found


def _text_numbers(text: str, field: str) -> list[str]:
    """The numbers with a fraction of lines of text: of `field`'s lines (`field=1.25`,
    `field: 1.25`), else all that stand alone (not a time's seconds, a version, an address)."""
    if field:
        pattern = rf"\b{re.escape(field)}\s*[:=]\s*\"?(-?\d+\.\d+)(?![\d.])"
    else:
        pattern = r"(?<![\w.:/-])(-?\d+\.\d+)(?![\w.:/-])"
    return re.findall(pattern, text)


def rounding_checks(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """A check for each sentence that says values are rounded, of the file it makes: the one it
    names, else the one file the instruction makes."""
    for sentence in said:
        match = _ROUNDED.search(sentence.text)
        if match is None:
            continue
        output, field = said_of(sentence, new_files)
        if output is None or not (field or _ALL_VALUES.search(sentence.text)):
            continue
        n = match.group("n").lower()
        yield NumbersRounded(output, int(_WORDS.get(n, n)), field)
