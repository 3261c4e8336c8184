"""The values an instruction's example makes up: names and codes (`"Alice Smith"`,
`ORD-1042`) that stand for the real ones. A result that holds one, where no input does, took it
from the example instead of working it out (the 1.5B wrote the example and changed one number).

Plain words (`active`, `high`) are left out: they are as often the kinds a value may take as
made-up data. So are numbers (a count may well come out as the example's), but for one made
by counting (`12345678`), paths, and sentences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence

from hillclimber.harness.checks.fields import field
from hillclimber.harness.checks.kinds import holds
from hillclimber.harness.checks.stand_ins import COUNTING, leaves, strings

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
    found = dict.fromkeys(
        v
        for v in _leaves(block, numbers=True)
        if (_MADE_UP.match(v) or COUNTING.search(v)) and v not in told
    )
    return tuple(v for v in found if not _PLACEHOLDER.search(v))


_TOKEN = re.compile(r"^(?=\S*[A-Za-z])(?=\S*[\d_.:@-])[\w.:@+-]{3,}$")
"""A value of one token with a letter and a digit or a separator in it: `proxy_read_timeout`,
`60s`, `pg-main.service`. Not a plain word (`bridge`, `sda`, `failed`): those are as often the
kinds a value may take, found in any data, as the answer."""


def from_the_data(block: str, texts: Sequence[str]) -> bool:
    """Whether an example's values are the task's own: at least two of its one-token values,
    and two in three of them, are in the task's files. Such an example may be the answer
    itself (the directive a configuration really has, and its value), so a copy of it is no
    sign of work left undone."""
    tokens = [v for v in dict.fromkeys(_leaves(block)) if _TOKEN.match(v)]
    tokens = [v for v in tokens if not _PLACEHOLDER.search(v)]
    held = [v for v in tokens if any(holds(text, v) for text in texts)]
    return len(held) >= 2 and 3 * len(held) >= 2 * len(tokens)


def _leaves(block: str, *, numbers: bool = False) -> Iterator[str]:
    """An example's values: its JSON leaves (strings; with `numbers`, numbers too, as written
    by `json`), or the values of its `KEY: value` lines."""
    try:
        value = json.loads(block)
    except ValueError:
        for line in block.splitlines():
            parts = field(line)
            if parts is not None:
                yield parts[2].strip().strip("\"'")
        return
    yield from (text.strip() for text in strings(value))
    if numbers:
        numeric = (n for n in leaves(value) if isinstance(n, (int, float)))
        yield from (json.dumps(n) for n in numeric if not isinstance(n, bool))


def unheld(values: Iterable[str], texts: Iterable[str]) -> tuple[str, ...]:
    """The values no text holds."""
    pending = list(values)
    for text in texts:
        pending = [v for v in pending if v not in text]
        if not pending:
            break
    return tuple(pending)
