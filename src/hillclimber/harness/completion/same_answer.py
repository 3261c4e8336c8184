"""Whether two answers say the same (`same`): the answer file and what a second computation
printed (`agreement.py`) — equal text, equal JSON, the same lines in any order, their fields
split at spaces or a delimiter, numbers to the precision written. A second program that
prints a Python dict or list (`print(result)`: single quotes, `True`, `None`) where the answer
is JSON is read as the JSON it stands for (the 1.5B's did, and was taken for malformed JSON)."""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation

from hillclimber.harness.checks.fields import labelled, one_field_a_line
from hillclimber.harness.parsing.literal import python_data


def same(held: str, printed: str) -> bool:
    """Whether two answers say the same: equal text; equal JSON; the same lines in the same or
    any order, their fields split at spaces or a delimiter (`,` `|` `;` tab: the form is the
    form checks' to judge, the values are this one's); numbers equal to the precision the less
    precise one is written with."""
    first, second = held.strip(), one_field_a_line(held, printed).strip()
    if not first or not second:
        return False
    if first == second:
        return True
    one, other = _json(first), _json(second, literal=True)
    if one is not _NOT_JSON and other is not _NOT_JSON:
        return _close(one, other)
    lines = [_fields(line) for line in first.splitlines() if line.strip()]
    others = [_fields(line) for line in second.splitlines() if line.strip()]
    if len(lines) != len(others):
        return False
    in_order = all(_close(a, b) for a, b in zip(lines, others, strict=True))
    return in_order or sorted(map(tuple, lines)) == sorted(map(tuple, others))


_DELIMITER = re.compile(r"[,|;\t]")


def laid_out_as(held: str, printed: str) -> str:
    """`printed` with each line's fields joined as `held`'s lines join theirs (the delimiter
    its lines share, else a space): the layout is the form checks' to judge, and `same` looks
    past it, so a second answer is judged by its values (`sqlite3` prints `Ann|5` where the
    answer file holds `Ann,5`). JSON, and lines that split as they are, are left alone; so are
    lines of the fields `held` has (`COUNT=6`), but one line running several of them together
    is made a line for each (`fields.one_field_a_line`)."""
    lines = [line for line in held.strip().splitlines() if line.strip()]
    marks = [set(_DELIMITER.findall(line)) for line in lines]
    shared = set.intersection(*marks) if marks else set()
    joint = sorted(shared)[0] if len(shared) == 1 else " "
    if _json(printed.strip()) is not _NOT_JSON or not lines:
        return printed
    value = _json(printed.strip(), literal=True)
    if value is not _NOT_JSON and _json(held.strip()) is not _NOT_JSON:
        return json.dumps(value, indent=2) + "\n"  # a Python literal, where JSON is held
    labels = set(labelled(held))
    laid = (
        line if labels & set(labelled(line)) else joint.join(_fields(line))
        for line in one_field_a_line(held, printed).strip().splitlines()
    )
    return "\n".join(laid) + "\n"


def _fields(line: str) -> list[str]:
    """A line's fields: split at its delimiters where it has one, else at spaces."""
    if _DELIMITER.search(line):
        return [" ".join(field.split()) for field in _DELIMITER.split(line.strip())]
    return line.split()


_NOT_JSON = object()


def _json(text: str, *, literal: bool = False) -> object:
    """The JSON value of `text`; with `literal`, also a Python dict or list written as Python
    writes it."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    value = python_data(text) if literal else None
    return _NOT_JSON if value is None else value


def _close(a: object, b: object) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        places = min(_places(x), _places(y))
        return abs(x - y) <= (Decimal(5) / 10 ** (places + 1) if places else 0)
    return a == b


def _number(value: object) -> Decimal | None:
    if isinstance(value, int | float):
        value = repr(value)
    if not isinstance(value, str):
        return None
    try:
        number = Decimal(value.replace(",", "").rstrip("%"))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _places(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0
