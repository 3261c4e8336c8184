"""`KEY=value` and `Label: value` lines: the fields an instruction's example shows, and the
values a template offers to choose from (`vulnerable: yes/no`, `status: PASS|FAIL`).

A template's alternatives are read as choices only when the instruction names one of them on
its own elsewhere, in quotes (`"yes" if any session…`): `type: text/plain` is one value,
not two to choose from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from hillclimber.harness.checks.base import Outcome, Said, said
from hillclimber.harness.checks.kinds import TextCheck
from hillclimber.harness.checks.stand_ins import stand_in
from hillclimber.verify.verifier import Strength

_FIELD = (
    r"^\s*(?P<label>[A-Za-z_][A-Za-z0-9_.-]*)\s*(?P<sep>=)\s*(?P<value>\S.*)$|"
    r"^\s*(?P<label2>[A-Za-z][A-Za-z0-9_ ()/-]{{0,40}}?)\s*(?P<sep2>:){space}(?P<value2>\S.*)$"
)
_EXAMPLE_FIELD = re.compile(_FIELD.format(space=r"\s+"))
"""In an example, `Label: value` has its space (`chr1:1523` is a value, not a field)."""
_ANSWER_FIELD = re.compile(_FIELD.format(space=r"\s*"))
_GENERIC = re.compile(r"^(?:value|val|values|string|number|text|something|x)$", re.I)
_PLACEHOLDER = re.compile(r"^<[^>]*>$|^\[[^\]]*\]$|^\{[^}]*\}$|^\.\.\.$|^…$")
_ALTERNATIVES = re.compile(
    r"^[<\[(]?(?P<words>[A-Za-z][\w-]*(?:\s*[/|]\s*[A-Za-z][\w-]*){1,5})[>\])]?$"
)


def field(line: str, form: re.Pattern[str] = _EXAMPLE_FIELD) -> tuple[str, str, str] | None:
    """(label, separator, value) of a `LABEL=value` or `Label: value` line."""
    match = form.match(line)
    if match is None:
        return None
    if match.group("label"):
        return match.group("label"), "=", match.group("value").strip()
    return match.group("label2").strip(), ":", match.group("value2").strip()


def fields(block: str) -> tuple[str, ...]:
    """The labels of an example made of `KEY=value` (or `Label: value`) lines, each label once,
    all with one separator, most of its lines such fields; else none."""
    lines = [line for line in block.splitlines() if line.strip()]
    found = [f for f in map(field, lines) if f is not None]
    if any(_GENERIC.match(value) for _, _, value in found):
        return ()  # "CONFIG_OPTION_NAME=value": a template of lines, not their labels
    labels = [label for label, _, _ in found]
    if not found or len(set(labels)) != len(labels) or len({sep for _, sep, _ in found}) != 1:
        return ()
    if len(found) < max(1, (len(lines) + 1) // 2) or (len(lines) > 1 and len(found) < 2):
        return ()
    return tuple(f"{label}{found[0][1]}" for label in labels)


Choices = tuple[tuple[str, tuple[str, ...]], ...]
"""(label with its separator, the values it may hold), per field that offers a choice."""


def choices(block: str, prose: str) -> Choices:
    """The fields of a template whose value is alternatives (`yes/no`), once `prose` (the
    instruction without its blocks) quotes one alternative of the template on its own."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for line in block.splitlines():
        parts = field(line)
        match = _ALTERNATIVES.match(parts[2]) if parts else None
        if parts is None or match is None:
            continue
        words = tuple(w.strip() for w in re.split(r"[/|]", match.group("words")))
        if len({w.lower() for w in words}) == len(words):
            found.append((parts[0] + parts[1], words))
    named = any(_quoted(word, prose) for _, words in found for word in words)
    return tuple(found) if named else ()


def labelled(text: str) -> tuple[str, ...]:
    """The labels, each with its separator, of `text`'s `KEY=value` and `Label: value` lines."""
    found = (field(line, _ANSWER_FIELD) for line in text.splitlines())
    return tuple(dict.fromkeys(f[0] + f[1] for f in found if f is not None))


def one_field_a_line(held: str, text: str) -> str:
    """`text` with a line for each field, where `held` has its fields on lines of their own and
    a line of `text` runs several of them together: a program that prints `print(f"COUNT={n}
    FILE={f}")` says what the lines `COUNT=6` and `FILE=…` say (the 1.5B's second programs did,
    and were taken for answers with a field missing). Only the labels `held` has are split at."""
    labels = labelled(held)
    if len(labels) < 2:
        return text
    at_label = re.compile(
        r"[ \t]+(?=" + "|".join(rf"{re.escape(label[:-1])}\s*{label[-1]}" for label in labels) + ")"
    )
    return "\n".join(at_label.sub("\n", line) for line in text.splitlines())


def _placeholder(value: str) -> bool:
    return _PLACEHOLDER.match(value) is not None or stand_in(value.strip("\"'"))


def _quoted(word: str, prose: str) -> bool:
    return re.search(rf"([\"'`“‘]){re.escape(word)}[\"'`”’]", prose, re.I) is not None


@dataclass(frozen=True)
class FileHasFields(TextCheck):
    """The file has a line for each of the example's `KEY=` (or `Label:`) fields, in any
    order, each with a value that is not the example's placeholder (`<job_name>`) and, where
    the template offers a choice, one of its values."""

    strength: ClassVar[Strength] = "form"

    labels: tuple[str, ...]
    """Each label with its separator: `FAILED_JOB=`, `Total requests:`."""
    offered: Choices = ()

    @property
    def words(self) -> Said:
        choices = tuple(
            said("check.field_choice", label=label, words=", ".join(words))
            for label, words in self.offered
        )
        return said("check.fields", path=self.path, labels=" ".join(self.labels), choices=choices)

    def judge(self, text: str) -> Outcome:
        values: dict[str, str] = {}
        for line in text.splitlines():
            found = field(line, _ANSWER_FIELD)
            if found is not None:
                values.setdefault(found[0] + found[1], found[2])
        missing = [label for label in self.labels if label not in values]
        if missing:
            return Outcome(False, said("failed.no_field", labels=" ".join(missing)[:80]))
        offered = {w.lower() for _, words in self.offered for w in words}  # `TODO` offered is one
        empty = [
            label
            for label in self.labels
            if _placeholder(values[label]) and values[label].lower() not in offered
        ]
        if empty:
            return Outcome(False, said("failed.field_placeholder", label=empty[0]))
        for label, words in self.offered:
            held = values.get(label, "")
            if label in values and held.lower() not in {w.lower() for w in words}:
                wrong = said("failed.field_choice", label=label, held=repr(held[:40]),
                             words=", ".join(words))  # fmt: skip
                return Outcome(False, wrong)
        return Outcome(True)
