"""A dict or list written in Python's notation, where JSON was meant.

Small models write JSON as Python prints it: `{'n': 1, 'ok': True, 'x': None}` — the 1.5B wrote
it to a `.json` answer file, and its second programs `print(result)`. Read with
`ast.literal_eval`, which evaluates literals only (no names, calls or operators), so nothing a
model wrote runs.
"""

from __future__ import annotations

import ast
import json


def python_data(text: str) -> dict[object, object] | list[object] | None:
    """The dict or list `text` is in Python's notation, or None: no literal, another kind, or
    one JSON cannot hold (`[...]`, a placeholder, is a list of Ellipsis; sets, bytes)."""
    text = text.strip()
    if text[:1] not in ("{", "["):
        return None
    try:
        value = ast.literal_eval(text)
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None
