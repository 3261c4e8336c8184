"""Lists of a JSON answer the instruction says are sorted ("Device names must be sorted
alphabetically within each array", "The `invalid_instances` array …, sorted alphabetically",
"- `elevated_risk_districts`: Array of district IDs …, sorted in ascending order"): each such
list is in that order. The 1.5B wrote `"failed": ["sde", "sdd", "sdc", "sdb", "sda"]`, and a
second computation agreed with it (sets of the same names).

The list is the field the sentence names in code; without one, every list, where the sentence
speaks of each or all of them. A list of text is in alphabetical order (with or without case),
one of numbers in ascending order; lists of objects or of mixed items are left alone (the
key they are sorted by is not said). Form strength: the order, not the items.
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
from hillclimber.harness.checks.stated import OTHER_ORDER, SORTED
from hillclimber.harness.checks.text import Sentence
from hillclimber.verify.verifier import Strength

_EACH_LIST = re.compile(r"\b(?:each|every|all|both)\s+(?:\w+\s+)?(?:arrays?|lists?)\b", re.I)


@dataclass(frozen=True)
class ListsSorted(TextCheck):
    """The JSON file's lists (those of `field`, at any depth, when one is given) are sorted."""

    strength: ClassVar[Strength] = "form"

    field: str = ""

    @property
    def words(self) -> Said:
        if self.field:
            return said("check.list_sorted", path=self.path, field=self.field)
        return said("check.lists_sorted", path=self.path)

    def judge(self, text: str) -> Outcome:
        try:
            data = json.loads(text)
        except ValueError:
            return Outcome(True)  # whether it parses is another check's to say
        for key, items in _lists(data, ""):
            if self.field and key != self.field:
                continue
            if not _in_order(items):
                shown = json.dumps(items)
                shown = shown if len(shown) <= 80 else shown[:79] + "…"
                if key:
                    return Outcome(False, said("failed.list_unsorted", field=key, shown=shown))
                return Outcome(False, said("failed.a_list_unsorted", shown=shown))
        return Outcome(True)


def _lists(value: object, key: str) -> Iterator[tuple[str, list[object]]]:
    """Each list in JSON `value`, with the key it is under ("" at the top)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _lists(v, k)
    elif isinstance(value, list):
        yield key, value
        for item in value:
            yield from _lists(item, key)


def _in_order(items: list[object]) -> bool:
    """Whether a list of text is in alphabetical order, one of numbers ascending; any other
    list is taken as in order."""
    if all(isinstance(i, str) for i in items):
        texts = [str(i) for i in items]
        return texts in (sorted(texts), sorted(texts, key=str.lower))
    if all(isinstance(i, int | float) and not isinstance(i, bool) for i in items):
        numbers = [float(str(i)) for i in items]
        return numbers == sorted(numbers)
    return True


def sorted_lists(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """A check for each sentence that says lists of a new JSON file are sorted (ascending or
    alphabetically), of the file it names, else the one file the instruction makes."""
    for sentence in said:
        if not SORTED.search(sentence.text) or OTHER_ORDER.search(sentence.text):
            continue
        output, field = said_of(sentence, new_files)
        if output is None or not output.endswith(".json"):
            continue
        if field or _EACH_LIST.search(sentence.text):
            yield ListsSorted(output, field)
