"""The structure of a JSON input in one line, for prompts that ask for code reading it.

The first lines of a JSON file do not say what it is: the 1.5B's programs indexed a list of
records as an object (`snapshot[node]`), took a list for an object of `nodes` and `edges`, and
guessed keys the records do not have. An outline names the containers, counts and keys:

    [24 × {"node_type": str, "node_id": str}, 30 × {"node_type": str, "source": str, "target": str}]

Lists are summed up by the kinds of items they hold (at most three kinds, the most common
first); an object keyed by data (hosts, dates, ids: many keys, all holding the same kind of
value) is shown by one of its keys; deep or long parts end in `…`.
"""

from __future__ import annotations

import json
from collections import Counter

MAX_CHARS = 400
"""The outline's length at most."""
_DEPTH = 4
_KEYS = 12
"""Keys shown of an object."""
_KINDS = 3
"""Kinds of items shown of a list."""
_KEY_CHARS = 40
_SAMPLE = 200
"""Items of a list looked at."""


def outline(text: str) -> str:
    """The outline of JSON `text` (or of JSON Lines: its first record, and how many), or ""
    where it is neither, or a bare value."""
    try:
        value = json.loads(text)
    except ValueError:
        lines = [line for line in text.splitlines() if line.strip()]
        try:
            records = [json.loads(line) for line in lines[:_SAMPLE]]
        except ValueError:
            return ""
        if len(lines) < 2 or not all(isinstance(r, dict | list) for r in records):
            return ""
        return _clipped(f"JSON Lines, {len(lines)} records: {_items(records, 0)}")
    if not isinstance(value, dict | list):
        return ""
    return _clipped(f"JSON: {_shape(value, 0)}")


def _shape(value: object, depth: int) -> str:
    if isinstance(value, dict):
        return _object(value, depth)
    if isinstance(value, list):
        return f"[{_items(value, depth)}]" if value else "[]"
    if value is None:
        return "null"
    return type(value).__name__


def _object(value: dict[str, object], depth: int) -> str:
    if not value:
        return "{}"
    if depth >= _DEPTH:
        return "{…}"
    if _keyed_by_data(value):
        key, item = next(iter(value.items()))
        return f"{{{len(value)} keys like {_key(key)}: {_shape(item, depth + 1)}}}"
    shown = [f"{_key(k)}: {_shape(v, depth + 1)}" for k, v in list(value.items())[:_KEYS]]
    more = ", …" if len(value) > _KEYS else ""
    return "{" + ", ".join(shown) + more + "}"


def _items(items: list[object], depth: int) -> str:
    """`N × kind` for each kind of item (by its shape), the most common first."""
    if depth >= _DEPTH:
        return f"{len(items)} × …"
    looked = items[:_SAMPLE]
    kinds = Counter(_shape(item, depth + 1) for item in looked)
    scale = len(items) / len(looked)
    shown = [f"{round(n * scale)} × {kind}" for kind, n in kinds.most_common(_KINDS)]
    more = ", …" if len(kinds) > _KINDS else ""
    return ", ".join(shown) + more


def _keyed_by_data(value: dict[str, object]) -> bool:
    """Many keys that all hold the same kind of container: records keyed by their names."""
    if len(value) <= _KEYS // 2:
        return False
    kinds = {_shape(v, 1) for v in value.values()}
    return len(kinds) == 1 and isinstance(next(iter(value.values())), dict | list)


def _key(key: str) -> str:
    return json.dumps(key if len(key) <= _KEY_CHARS else key[: _KEY_CHARS - 1] + "…")


def _clipped(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"
