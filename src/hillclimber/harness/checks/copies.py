"""A new file is not something the task gave, copied: a named input as it was at the start,
the instruction's illustration of the file, a value that illustration made up, or a value made
by counting (`stand_ins.counted`) that nothing the task gave holds. A small model writes the
document it was to count, or the example whose values it was to work out, into the answer."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from hillclimber.harness.checks.base import Check, CheckContext, Outcome, Said, said
from hillclimber.harness.checks.borrowed import example_values, from_the_data, unheld
from hillclimber.harness.checks.kinds import FileCheck, FileHasText, holds
from hillclimber.harness.checks.shape import examples, prose
from hillclimber.harness.checks.stand_ins import counted
from hillclimber.harness.checks.text import Sentence
from hillclimber.harness.checks.workspace import Workspace
from hillclimber.sandbox.files import read_text


def fingerprints(text: str) -> tuple[str, ...]:
    """A text's fingerprints: of its lines stripped, blank ones left out, and of its JSON
    value where it is JSON: two texts alike but for spacing or JSON layout share one."""
    kept = "\n".join(line.strip() for line in text.splitlines() if line.strip())
    found = [kept]
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict | list):
        found.append(json.dumps(value, sort_keys=True))
    return tuple(hashlib.sha256(each.encode()).hexdigest() for each in found)


EXAMPLE = "the instruction's example"


@dataclass(frozen=True)
class FileNotACopy(FileCheck):
    """A file the work makes is not something it was given, copied: a named input as it was
    at the start, or the instruction's example of the file (a small model writes the document
    it was to count, or the example whose values it was to work out, into the answer's file).
    Spacing and JSON layout aside. An invariant: no file passes it."""

    goal: bool = field(default=False, kw_only=True)
    sources: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(what it is, its fingerprints): an input's path, or "the instruction's example"."""
    borrowed: tuple[str, ...] = ()
    """Values the example makes up and no input holds (`checks/borrowed.py`)."""
    held_counts: tuple[str, ...] | None = None
    """The values made by counting (`stand_ins.counted`) that the task's files and prose hold:
    any other in the file was made up. None where a named input is missing (what it holds is
    not known)."""

    @property
    def words(self) -> Said:
        return said("check.not_a_copy", path=self.path)

    def run(self, ctx: CheckContext) -> Outcome:
        text = read_text(ctx.sandbox, self.path)
        if not text or not text.strip():
            return Outcome(True)
        found = set(fingerprints(text))
        copied = next((what for what, marks in self.sources if found & set(marks)), "")
        if not copied:
            taken = next((value for value in self.borrowed if holds(text, value)), None)
            if taken is not None:
                return Outcome(False, said("failed.example_value", value=repr(taken)))
            return self._made_up(text)
        if copied == EXAMPLE:
            return Outcome(False, said("failed.the_example"))
        return Outcome(False, said("failed.copy_of", source=copied))

    def _made_up(self, text: str) -> Outcome:
        """Fails a value made by counting that nothing the task gave holds (the 1.5B wrote
        `"commit_hash": "a1b2c3d4e5f6g7h8i9j0…"` and `"current_limit_bytes": 123456789`)."""
        if self.held_counts is None:
            return Outcome(True)
        made = next((t for t in counted(text) if t not in self.held_counts), None)
        if made is None:
            return Outcome(True)
        return Outcome(False, said("failed.counted", value=repr(made)))


_COPYING = re.compile(
    r"\b(?:cop(?:y|ies|ied|ying)|back(?:ed)?[\s-]?up|backups?|restored?|"
    r"identical|same\s+(?:content|contents|as))\b",
    re.I,
)
_SHOWN = re.compile(
    r"\b(?:example|format|formatted|template|structure|schema|sample|like|such\s+as|e\.g\.|"
    r"for\s+instance|in\s+the\s+form|fields|keys|columns|per\s+\w+)\b",
    re.I,
)
"""A block shown as an illustration of the form ("with exactly these fields per invoice:"),
not as the content to write ("should contain:")."""
_INPUT_BYTES = 1 << 20
_ABSOLUTE = re.compile(r"(?<![\w.:/~-])/(?:[\w.+-]+/)*[\w.+-]+")
"""Any absolute path, a folder or a file without an extension too."""


_SUPPOSED = re.compile(r"^(?:\*\*[^*\n]*\*\*\s*)?(?:if|given|suppose|when)\b", re.I)
"""A sentence supposing an input ("**Example:** If `ops.txt` contains:", "Given the input:")."""


def _after_a_supposed_input(said: list[Sentence], index: int, output: str) -> bool:
    """Whether the block of sentence `index` follows one shown for a supposed content of
    another file, an input: it is the output of that input, not of the task's ("If ops.txt
    contains: … Then results.txt should contain: …"; the 1.5B wrote that output as its
    answer). Not outcomes supposed ("If all rules pass: PASS"): one of them is the answer."""
    before = said[index - 1] if index > 0 else None
    if before is None or not before.block or _SUPPOSED.match(before.text) is None:
        return False
    return any(path != output for path in before.paths)


def not_copies(
    instruction: str, said: list[Sentence], new_files: set[str], here: Workspace, found: list[Check]
) -> list[Check]:
    """Each new file is not a named input copied, unless the instruction speaks of copies at
    all (a backup, a restored file, "identical"); nor the instruction's illustration of it,
    unless the block's text is demanded in the file; nor does it hold a value the illustration
    made up (`checks/borrowed.py`) that no file of the task holds, when every input the
    instruction names is there to tell. An illustration whose values are the task's own data,
    none of them made up, may be the answer itself: no copy check of it."""
    if not new_files:
        return []
    named = dict.fromkeys(p for s in said for p in s.paths)
    texts = [(p, t) for p in named if (t := read_text(here.sandbox, p, _INPUT_BYTES))]
    copying = _COPYING.search(instruction) is not None
    inputs = [] if copying else [(p, fingerprints(t)) for p, t in texts if t.strip()]
    demanded = {(c.path, c.text) for c in found if isinstance(c, FileHasText)}
    shown: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    made_up: dict[str, list[str]] = {}
    illustrations: list[tuple[str, str]] = []
    for index, output in examples(said, new_files):
        block = (said[index].block or "").strip("\n")
        shown_so = _SHOWN.search(said[index].text) or _after_a_supposed_input(said, index, output)
        if shown_so and (output, block) not in demanded:
            illustrations.append((output, block))
    if not inputs and not illustrations:
        return []  # nothing to compare a new file with: no check, and no folder walked
    places = dict.fromkeys(_ABSOLUTE.findall(instruction))  # `/usr/local/bin/tool` too
    held = [*(t for _, t in texts), *here.texts(_INPUT_BYTES, places)]
    for output, block in illustrations:
        invented = example_values(block, prose(said))
        if unheld(invented, held) or not from_the_data(block, held):
            shown.setdefault(output, []).append((EXAMPLE, fingerprints(block)))
            made_up.setdefault(output, []).extend(invented)
    missing = any(here.info(p) is None for p in named if p not in new_files)
    values = () if missing else dict.fromkeys(v for vs in made_up.values() for v in vs)
    borrowed = set(unheld(values, held))  # an input not there: what it holds is not known
    given = [*held, prose(said)]
    counts = None if missing else tuple(sorted({t for text in given for t in counted(text)}))
    return [
        FileNotACopy(
            path,
            sources=(*inputs, *shown.get(path, [])),
            borrowed=tuple(v for v in made_up.get(path, []) if v in borrowed),
            held_counts=counts,
        )
        for path in sorted(new_files)
        if inputs or shown.get(path)
    ]
