"""Each preset's scripted run gives the trajectory recorded in tests/golden/: a change in the
loop's behaviour shows as a diff here (record again with scripts/record_golden.py when the
change is meant)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from golden import GOLDEN, SCRIPTS, run, text


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_the_trajectory_is_the_golden_one(name: str, tmp_path: Path) -> None:
    expected = (GOLDEN / f"{name}.json").read_text()
    got = text(run(name, tmp_path))
    if got != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), got.splitlines(), "golden", "now", lineterm="", n=2
        )
        pytest.fail(
            f"the {name} trajectory changed (record again with scripts/record_golden.py if "
            "that is meant):\n" + "\n".join(list(diff)[:80])
        )
