"""Each preset's scripted run does what its digest in tests/golden/ says (the tools called,
the refusals, the verdicts, the end): a change in the loop's behaviour fails here; a change in
its words alone is shown as a warning with the diff, for review (record again with
scripts/record_golden.py when the change is meant)."""

from __future__ import annotations

import difflib
import warnings
from pathlib import Path

import pytest

from golden import GOLDEN, SCRIPTS, digest, run, text


def _diff(expected: str, got: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(), got.splitlines(), "golden", "now", lineterm="", n=2
    )
    return "\n".join(list(lines)[:80])


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_the_trajectory_is_the_golden_one(name: str, tmp_path: Path) -> None:
    trajectory = run(name, tmp_path)
    expected = (GOLDEN / f"{name}.digest.txt").read_text()
    if digest(trajectory) != expected:
        pytest.fail(
            f"what the {name} loop did changed (record again with scripts/record_golden.py if "
            "that is meant):\n" + _diff(expected, digest(trajectory))
        )
    words = (GOLDEN / f"{name}.json").read_text()
    if text(trajectory) != words:  # the same steps in other words: for review, not a failure
        warnings.warn(
            f"the {name} trajectory's text changed (its steps did not); review it and record "
            "again with scripts/record_golden.py:\n" + _diff(words, text(trajectory)),
            stacklevel=1,
        )
