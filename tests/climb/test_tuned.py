"""The tuned settings file: loadable wherever a setting is, the same setting back, and its
evidence on top; and the store it is made from."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.climb.store import ClimbStore, PathStep, SettingScore
from hillclimber.climb.tune import Summary
from hillclimber.climb.tuned import settings_file
from hillclimber.errors import HillclimberError
from hillclimber.harness.presets import load_harness


def _summary(start: str, changes: dict[str, object], held: tuple[int, int] = (5, 8)) -> Summary:
    return Summary(
        start=start, changes=changes, train_size=19, held_out_size=20, start_train=[7, 8],
        noise=1, tuned_train=10, start_held_out=held[0], tuned_held_out=held[1],
        train_trials=120, held_out_trials=40, stopped="a whole pass over the space kept nothing",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("start", "sets"),
    [("climber", []), ("climber@tests", ["max_turns=10"]), ("fm", ["stall_turns=none"])],
)
def test_the_file_is_the_tuned_setting(tmp_path: Path, start: str, sets: list[str]) -> None:
    changes = {"view.previous_steps": 5, "completion.stall_turns": None, "planning.planner": False}
    tuned = load_harness(start, sets).with_settings(changes)
    path = tmp_path / "tuned.toml"
    path.write_text(settings_file(_summary(start, changes), tuned, "local"))
    again = load_harness(str(path))
    assert again.model_dump(exclude={"preset"}) == tuned.model_dump(exclude={"preset"})


def test_a_file_start_is_written_whole(tmp_path: Path) -> None:
    start = tmp_path / "mine.toml"
    start.write_text('preset = "naive"\nmax_turns = 4\n')
    tuned = load_harness(str(start)).with_settings({"max_turns": 6})
    path = tmp_path / "tuned.toml"
    path.write_text(settings_file(_summary(str(start), {"max_turns": 6}), tuned, "local"))
    assert "preset =" not in path.read_text()
    assert load_harness(str(path)).model_dump(exclude={"preset"}) == tuned.model_dump(
        exclude={"preset"}
    )


def test_the_evidence_says_all_three_figures() -> None:
    text = settings_file(
        _summary("climber", {"view.previous_steps": 5}), load_harness("climber"), "local"
    )
    head = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    assert "the start solved 7, 8 (noise 1); tuned 10" in head
    assert "start 5, tuned 8: the tuned setting beats the start by more than the noise" in head
    assert "Trials: 120 on train" in head and "40 on held-out" in head
    worse = settings_file(_summary("climber", {}, held=(5, 6)), load_harness("climber"), "local")
    assert "does not beat the start" in worse


def test_the_store_gives_back_what_it_was_given(tmp_path: Path) -> None:
    store = ClimbStore(tmp_path / "climb.db")
    done = SettingScore(
        {"view.previous_steps": 5}, "train", 0, 3, 4, 10, True, 61.5, {"a": True}, "r"
    )
    store.add_evaluation(done)
    store.put("arguments", {"train": ["mini:a"]})
    store.add_step(
        PathStep(1, "try", done.changes, "view.previous_steps=5", 3, 2.5, False, "pruned")
    )
    store.close()
    again = ClimbStore(tmp_path / "climb.db")
    assert again.evaluation({"view.previous_steps": 5}, "train", 0) == done
    assert again.evaluation({"view.previous_steps": 5}, "held-out", 0) is None
    assert again.get("arguments") == {"train": ["mini:a"]}
    assert [step.setting for step in again.steps()] == ["view.previous_steps=5"]


def test_a_file_that_is_no_store_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "climb.db"
    bad.write_text("not a database, just words " * 100)
    with pytest.raises(HillclimberError, match="not a climb store"):
        ClimbStore(bad)


def test_a_task_remembers_the_tuned_setting_where_it_solved_it_else_the_first(
    tmp_path: Path,
) -> None:
    from hillclimber.climb.memory import remembered

    store = ClimbStore(tmp_path / "climb.db")
    first, tuned = {"max_turns": 5}, {"max_turns": 9}
    for changes, passed in [
        ({}, {"a": False, "b": False, "c": False}),
        (first, {"a": True, "b": True, "c": False}),
        (tuned, {"a": True, "b": False, "c": False}),
    ]:
        store.add_evaluation(SettingScore(changes, "train", 0, 1, 3, 3, False, 1.0, passed, ""))
    store.put("result", {"changes": tuned})
    assert remembered(store) == {"a": tuned, "b": first}
