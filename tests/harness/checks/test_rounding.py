"""Values the instruction says are rounded (`checks/rounding.py`)."""

from __future__ import annotations

import pytest

from hillclimber.harness.checks.rounding import NumbersRounded, rounding_checks
from hillclimber.harness.checks.text import sentences

RABBIT = (
    "Save the result to `/tmp/result.json` with these fields:\n"
    "- `valid_count`: the number of valid readings\n"
    "- `avg_celsius`: Average temperature in Celsius, rounded to 1 decimal place\n"
)


def checks(instruction: str, new: set[str]) -> list[NumbersRounded]:
    found = list(rounding_checks(sentences(instruction, "/app"), new))
    assert all(isinstance(c, NumbersRounded) for c in found)
    return [c for c in found if isinstance(c, NumbersRounded)]


def test_a_field_said_to_be_rounded_is_checked_in_the_file_made() -> None:
    [check] = checks(RABBIT, {"/tmp/result.json"})
    assert (check.path, check.places, check.field) == ("/tmp/result.json", 1, "avg_celsius")
    assert check.name == "/tmp/result.json has its avg_celsius values rounded to 1 decimal place"
    assert not check.judge('{"valid_count": 86, "avg_celsius": 21.456789}').passed
    assert check.judge('{"valid_count": 86, "avg_celsius": 21.5}').passed
    assert check.judge('{"valid_count": 86, "avg_celsius": 21}').passed
    assert check.judge('{"rows": [{"avg_celsius": 1.5}, {"avg_celsius": -0.25, "x": 3.14159}]}')\
        .detail == "-0.25 has 2 decimals, not 1"  # fmt: skip


@pytest.mark.parametrize(
    ("instruction", "new", "places"),
    [
        ("Write /app/out.txt. All numeric values should be rounded to 2 decimal places.",
         {"/app/out.txt"}, 2),
        ("Write the bits to /app/bits.json; all values rounded to two decimal places.",
         {"/app/bits.json"}, 2),
    ],
)  # fmt: skip
def test_all_values_said_to_be_rounded_are_the_whole_files(
    instruction: str, new: set[str], places: int
) -> None:
    [check] = checks(instruction, new)
    assert (check.places, check.field) == (places, "")
    assert check.judge("mean 2.25\nwhen 10:23:45.123 ip 10.0.0.1 v1.2.3 t 1e-05\n").passed
    assert not check.judge("mean 2.255\n").passed
    assert check.judge('{"when": "45.1234", "n": 3}').passed  # a number in a string is no value


@pytest.mark.parametrize(
    ("instruction", "new"),
    [
        # no field, no "all values": what is rounded is not known
        ("Use rates between 0 and 1, rounded to 2 decimal places. Write /app/r.json.",
         {"/app/r.json"}),
        # two files made, none named
        (RABBIT.replace("`/tmp/result.json`", "`/tmp/a.json` and `/tmp/b.json`"),
         {"/tmp/a.json", "/tmp/b.json"}),
        ("Round the mean. Write /app/m.txt.", {"/app/m.txt"}),
    ],
)  # fmt: skip
def test_no_check_where_the_rounded_values_are_not_known(instruction: str, new: set[str]) -> None:
    assert checks(instruction, new) == []


def test_a_field_of_key_value_lines() -> None:
    check = NumbersRounded("/app/r.txt", places=2, field="speedup")
    assert check.judge("speedup=2.45\nother=3.14159\n").passed
    assert not check.judge("speedup: 2.4567\n").passed
