"""The tries of a trial as `show --trial` prints them (`report/trajview.py`)."""

from __future__ import annotations

from hillclimber.report.trajview import tries_note
from hillclimber.tries.choice import TryRecord, choose


def test_each_try_is_a_line_with_what_it_changed_and_the_kept_one_marked() -> None:
    tries = [
        TryRecord(index=1, seed=0, temperature=0.5, answer="aa", turns=3, loop_exit="done"),
        TryRecord(
            index=2,
            seed=7919,
            temperature=0.5,
            answer="aa",
            turns=2,
            loop_exit="done",
            varied={"view.show_folder": True},
        ),
    ]
    lines = tries_note(choose(tries, planned=3, stop="agreement", independent=True)).splitlines()
    assert lines[0] == "tries: 2 of 2 tries left the same answer; try 2 kept"
    assert lines[1].startswith("  try 1: answer aa, 3 turns, done, seed 0")
    assert "with" not in lines[1]
    assert lines[2].startswith("  try 2 (kept): answer aa, 2 turns")
    assert lines[2].endswith("at temperature 0.5, with view.show_folder=True")
