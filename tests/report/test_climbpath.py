from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hillclimber.climb.store import SettingScore, open_store
from hillclimber.paths import write_json
from hillclimber.report.climbpath import climb_page, under_way, versus_start
from hillclimber.results import ExitReason, TrialResult


def _done(changes: dict[str, object], seed: int, passed: dict[str, bool]) -> SettingScore:
    return SettingScore(changes, "train", seed, sum(passed.values()), len(passed), 3, False, 60.0,
                      passed)  # fmt: skip


START_A = _done({}, 0, {"a": True, "b": True, "c": False})
START_B = _done({}, 1000, {"a": True, "b": False, "c": False})
TRIED = _done({"planning.planner": False}, 0, {"a": False, "b": True, "c": True})


def test_a_change_is_told_by_the_tasks_it_gained_and_lost_against_every_run_of_the_start() -> None:
    evaluations = [START_A, START_B, TRIED]
    # c: solved by no run of the start; a: by both; b: by one only, so it is neither
    assert versus_start(TRIED, evaluations) == "+c -a"
    assert versus_start(START_A, evaluations) == "+b"
    assert versus_start(START_B, evaluations) == "-b"


def test_without_another_run_of_the_start_there_is_nothing_to_compare_with() -> None:
    assert versus_start(START_A, [START_A, TRIED]) == ""
    held_out = replace(_done({}, 0, {"a": False, "b": False, "c": True}), split="held-out")
    assert versus_start(TRIED, [START_A, held_out, TRIED]) == "+c -a"  # held-out is not train


def test_the_page_lists_every_evaluation(tmp_path: Path) -> None:
    store = open_store(tmp_path / "climb.db")
    for done in (START_A, START_B, TRIED):
        store.add_evaluation(done)
    page = climb_page(store)
    store.close()
    assert page.count("<h2>evaluations</h2>") == 1
    assert "planning.planner=false" in page and "+c -a" in page


def _trial(run: Path, task: str, passed: bool, loop_exit: str) -> None:
    result = TrialResult(trial=f"{task}.1", task_id=task, attempt=1, agent="harness",
                         sandbox="bwrap", sandbox_isolated=True, exit_reason=ExitReason.PASSED
                         if passed else ExitReason.FAILED, passed=passed, feedback="self",
                         agent_info={"loop_exit": loop_exit})  # fmt: skip
    write_json(run / "..-shared-suite" / f"{task}.1" / "result.json", result)


def test_a_gain_the_agents_own_checks_had_failed_is_marked(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "train" / "tried"
    _trial(run, "c", True, "verification_failed")  # the tests passed what its checks failed
    tried = replace(TRIED, run_dir=str(run))
    assert versus_start(tried, [START_A, START_B, tried]) == "+c* -a"
    _trial(run, "c", True, "verified")
    assert versus_start(tried, [START_A, START_B, tried]) == "+c -a"


def test_an_evaluation_begun_and_not_ended_is_shown_with_its_trials_so_far(tmp_path: Path) -> None:
    store = open_store(tmp_path / "climb.db")
    runs = tmp_path / "runs" / "train"
    start = {"harness": {"planning": {"planner": True}, "ask": {"seed": 0}}}
    tried = {"harness": {"planning": {"planner": False}, "ask": {"seed": 0}}}
    for folder, config in (("start-s0", start), ("1a2b3c4d5e-s0", tried)):
        write_json(runs / folder / "mini" / "config.json", config)
    store.add_evaluation(replace(START_A, run_dir=str(runs / "start-s0")))
    _trial(runs / "1a2b3c4d5e-s0", "a", True, "verified")
    _trial(runs / "1a2b3c4d5e-s0", "b", False, "verification_failed")
    rows = under_way(store, store.evaluations())
    store.close()
    assert rows == [["train", "planning.planner=false", "0", "1", "2 so far, under way", "0.0", ""]]


def test_run_folders_are_found_from_the_store_wherever_the_climb_ran(tmp_path: Path) -> None:
    store = open_store(tmp_path / "climb.db")
    for done in (START_A, START_B):
        store.add_evaluation(done)
    store.add_evaluation(replace(TRIED, run_dir="climbs/x/runs/train/tried"))  # `--dir climbs/x`
    _trial(tmp_path / "runs" / "train" / "tried", "c", True, "verification_failed")
    page = climb_page(store)
    store.close()
    assert "+c* -a" in page and "under way" not in page
