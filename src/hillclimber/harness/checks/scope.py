"""Which file a sentence of an instruction is about, and whether it speaks of the input: the
scope every rule reading a result's form from a sentence needs (`shape.py`, `stated.py`)."""

from __future__ import annotations

import re

from hillclimber.harness.checks.text import Sentence

INPUT = re.compile(r"\b(?:input|sample data|given data|existing|current(?:ly)?|log entr)", re.I)
"""A sentence about the input: a form it shows or states is the input's, not the result's."""
LOOK_BACK = 12
"""How many sentences before an example its file may be named in."""
_CODE = (".sh", ".bash", ".py", ".c", ".h", ".cc", ".cpp", ".js", ".ts", ".go", ".rs", ".java",
         ".rb", ".pl", ".r", ".sql", ".yml", ".yaml", ".toml")  # fmt: skip


def is_code(path: str) -> bool:
    """A program or a configuration: what an example near it shows is often what it prints,
    and its lines have the language's form."""
    return path.lower().endswith(_CODE)


def output_of(said: list[Sentence], index: int, new_files: set[str]) -> str | None:
    """The one new file a sentence is about: named in it, else the nearest one named before it
    (no other file named between)."""
    for sentence in reversed(said[max(0, index - LOOK_BACK) : index + 1]):
        made = list(dict.fromkeys(p for p in sentence.paths if p in new_files))
        if len(made) == 1:
            return made[0]
        if made or (sentence.paths and sentence is said[index]):
            return None  # two files, or a sentence about an input: not read
    return None


FIELD = re.compile(r"^[A-Za-z_][\w.-]*$")
"""A field's name as a sentence quotes it in code (`avg_celsius`, `invalid_instances`)."""


def said_of(sentence: Sentence, new_files: set[str]) -> tuple[str | None, str]:
    """The new file a sentence about a result's values speaks of (the one it names, else the
    one file of data the instruction makes) and the field it names first in code, if any."""
    named = [p for p in sentence.paths if p in new_files]
    made = sorted(p for p in new_files if not is_code(p))
    output = named[0] if named else (made[0] if len(made) == 1 else None)
    return output, next((c for c in sentence.code[:1] if FIELD.match(c)), "")
