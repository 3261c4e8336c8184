"""The values an instruction's example makes up: names and codes (`"Alice Smith"`,
`ORD-1042`) that stand for the real ones. A result that holds one, where no input does, took it
from the example instead of working it out (the 1.5B wrote the example and changed one number).

Plain words (`active`, `high`) are left out: they are as often the kinds a value may take as
made-up data. So are numbers (a count may well come out as the example's), paths, and
sentences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from hillclimber.harness.checks.fields import field

_MADE_UP = re.compile(
    r"^(?:[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}"  # a person's or a thing's name: Alice Smith
    r"|(?=[^/\s]*\d)(?=[^/\s]*[A-Za-z])[^/\s]*\w[-_.:]\w[^/\s]*"  # a code: INV-2024-001
    r"|[\w.+-]+@[\w-]+\.[\w.]+)$"  # an address
)
"""Made-up data: a name of two or three capitalised words, a code of letters and digits with a
separator (`INV-2024-001`, a date, a UUID), an e-mail address. Not a path, nor one word
(`python3` and `enp0s3` may well be the real answer)."""
_PLACEHOLDER = re.compile(r"<[^>]*>|\{[^}]*\}|\.\.\.|…|^(?:string|text|value|name|example)", re.I)


def example_values(block: str, told: str) -> tuple[str, ...]:
    """The made-up values of an example block (JSON leaves, or `KEY: value` lines), but not
    those the instruction's prose (`told`) names too: those are real."""
    found = dict.fromkeys(v for v in _leaves(block) if _MADE_UP.match(v) and v not in told)
    return tuple(v for v in found if not _PLACEHOLDER.search(v))


def _leaves(block: str) -> Iterator[str]:
    try:
        value = json.loads(block)
    except ValueError:
        for line in block.splitlines():
            parts = field(line)
            if parts is not None:
                yield parts[2].strip().strip("\"'")
        return
    yield from _strings(value)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value.strip()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def unheld(values: Iterable[str], texts: Iterable[str]) -> tuple[str, ...]:
    """The values no text holds."""
    pending = list(values)
    for text in texts:
        pending = [v for v in pending if v not in text]
        if not pending:
            break
    return tuple(pending)
