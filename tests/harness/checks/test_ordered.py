"""Lists of a JSON answer the instruction says are sorted (`checks/ordered.py`)."""

from __future__ import annotations

import pytest

from hillclimber.harness.checks.ordered import ListsSorted, sorted_lists
from hillclimber.harness.checks.text import sentences

DISKS = (
    "Save your results to `/tmp/disk_status.json`:\n```json\n"
    '{"failed": ["sda", "sdc"], "passed": ["sdb", "sdd"]}\n```\n\nRequirements:\n'
    "- Device names must be sorted alphabetically within each array\n"
    "- If a category has no drives, use an empty array\n"
)


def checks(instruction: str, new: set[str]) -> list[ListsSorted]:
    found = list(sorted_lists(sentences(instruction, "/app"), new))
    assert all(isinstance(c, ListsSorted) for c in found)
    return [c for c in found if isinstance(c, ListsSorted)]


def test_each_list_said_to_be_sorted_is_checked() -> None:
    [check] = checks(DISKS, {"/tmp/disk_status.json"})
    assert (check.path, check.field) == ("/tmp/disk_status.json", "")
    assert check.name == "/tmp/disk_status.json has each of its lists sorted"
    wrong = check.judge('{"failed": ["sde", "sdd", "sda"], "passed": []}')
    assert not wrong.passed
    assert wrong.detail == 'its failed list is not in ascending order: ["sde", "sdd", "sda"]'
    assert check.judge('{"failed": ["sda", "sdd", "sde"], "passed": []}').passed
    assert check.judge('{"failed": ["Sda", "sdb"], "passed": ["B", "a"]}').passed  # any case
    assert check.judge("not json").passed  # whether it parses is another check's to say


@pytest.mark.parametrize(
    ("instruction", "field", "wrong", "right"),
    [
        ("Write /app/report.json. The `invalid_instances` array should contain the IDs of all"
         " instances with problems, sorted alphabetically.", "invalid_instances",
         '{"invalid_instances": ["inst_b", "inst_a"], "steps": ["z", "a"]}',
         '{"invalid_instances": ["inst_a", "inst_b"], "steps": ["z", "a"]}'),
        ("Save the results to `/app/risk.json` with these fields:\n"
         "- `elevated_risk_districts`: Array of district IDs (integers 1-30) where the risk is"
         " elevated, sorted in ascending order\n", "elevated_risk_districts",
         '{"elevated_risk_districts": [12, 3, 27]}', '{"elevated_risk_districts": [3, 12, 27]}'),
    ],
)  # fmt: skip
def test_a_list_the_sentence_names_is_checked_and_no_other(
    instruction: str, field: str, wrong: str, right: str
) -> None:
    new = {p for p in ("/app/report.json", "/app/risk.json") if p in instruction}
    [check] = checks(instruction, new)
    assert check.field == field
    assert not check.judge(wrong).passed and check.judge(right).passed


@pytest.mark.parametrize(
    ("instruction", "new"),
    [
        # another order
        ("Write /app/top.json: the `users` list sorted alphabetically in reverse.",
         {"/app/top.json"}),
        ("Write /app/top.json with each list sorted by count.", {"/app/top.json"}),
        # no list named, and not each of them
        ("Write /app/top.json; the names sorted alphabetically.", {"/app/top.json"}),
        # not JSON: the lines' order is `stated.orders`' to check
        ("Write /app/names.txt with each list sorted alphabetically.", {"/app/names.txt"}),
    ],
)  # fmt: skip
def test_no_check_where_the_order_or_the_list_is_not_said(instruction: str, new: set[str]) -> None:
    assert checks(instruction, new) == []


def test_lists_of_objects_or_mixed_items_are_left_alone() -> None:
    check = ListsSorted("/app/r.json")
    assert check.judge('{"rows": [{"id": 2}, {"id": 1}], "mixed": ["b", 1, "a"]}').passed
    assert not check.judge('{"rows": [{"tags": ["b", "a"]}]}').passed  # a list inside them
