"""Coordinate ascent on a scoring function planted by the test: what it keeps, what the noise
stops, what the budget stops, and that a replay takes the same path."""

from __future__ import annotations

from typing import Any

import pytest

from hillclimber.climb.search import NOISE_SEED_STEP, Budget, parse_budget, search
from hillclimber.climb.space import Dimension
from hillclimber.climb.store import SettingScore
from hillclimber.errors import HillclimberError
from hillclimber.harness.presets import load_harness

START = load_harness("climber")
TASKS = 10
SPACE = [
    Dimension("completion.confirm", (True, False)),
    Dimension("view.previous_steps", (1, 3, 5)),
    Dimension("planning.planner", (False, True)),
]


class Planted:
    """Scores: a base, plus a gain for each planted setting value; the start's repeats differ
    by `noise` (seed 0 scores the base)."""

    def __init__(self, base: int, gains: dict[tuple[str, Any], int], noise: int = 0) -> None:
        self.base, self.gains, self.noise = base, gains, noise
        self.calls: list[tuple[dict[str, Any], int, float | None]] = []

    def __call__(
        self, changes: dict[str, Any], *, seed: int = 0, bar: float | None = None
    ) -> SettingScore:
        self.calls.append((changes, seed, bar))
        score = self.base + sum(self.gains.get(item, 0) for item in changes.items())
        score += self.noise if seed == NOISE_SEED_STEP else 0
        pruned = bar is not None and score <= bar
        return SettingScore(changes, "train", seed, score, TASKS, TASKS, pruned, 60.0 * TASKS)


def test_a_planted_better_setting_is_found_and_kept() -> None:
    planted = Planted(3, {("view.previous_steps", 5): 2, ("planning.planner", False): 2})
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=2)
    assert outcome.best == {"view.previous_steps": 5, "planning.planner": False}
    assert (outcome.start_scores, outcome.noise, outcome.best_score) == ([3, 3], 0, 7)
    kept = [step.setting for step in outcome.steps if step.kept and step.kind == "try"]
    assert kept == ["view.previous_steps=5", "planning.planner=false"]


def test_the_start_is_kept_when_no_change_beats_the_noise() -> None:
    planted = Planted(3, {("view.previous_steps", 5): 1}, noise=1)
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=2)
    assert (outcome.start_scores, outcome.noise) == ([3, 4], 1)
    assert outcome.best == {} and outcome.stopped == "a whole pass over the space kept nothing"
    assert not [step for step in outcome.steps if step.kind == "try" and step.kept]


def test_a_gain_beyond_the_noise_is_kept() -> None:
    planted = Planted(3, {("view.previous_steps", 5): 3}, noise=1)
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=2)
    assert outcome.best == {"view.previous_steps": 5} and outcome.best_score == 6


def test_runs_that_agree_still_leave_the_least_noise_asked_for() -> None:
    planted = Planted(3, {("view.previous_steps", 5): 1})
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=2, min_noise=1)
    assert (outcome.start_scores, outcome.noise, outcome.best) == ([3, 3], 1, {})
    assert outcome.steps[0].note == "2 runs: 3, 3; noise 1 (measured 0, at least 1)"
    planted = Planted(3, {("view.previous_steps", 5): 2})
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=2, min_noise=1)
    assert outcome.best == {"view.previous_steps": 5}


def test_the_best_value_of_a_setting_wins_not_the_first_that_beats_the_bar() -> None:
    planted = Planted(3, {("view.previous_steps", 1): 1, ("view.previous_steps", 5): 3})
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=1)
    assert outcome.best == {"view.previous_steps": 5}


def test_each_candidate_may_stop_once_it_cannot_beat_the_bar() -> None:
    planted = Planted(3, {("completion.confirm", False): 2}, noise=1)
    search(SPACE, START, planted, train_size=TASKS, repeats=2)
    bars = [bar for _, seed, bar in planted.calls if seed == 0 and bar is not None]
    assert bars[0] == 3.5 + 1  # the start's mean, and the noise
    assert bars[-1] == 5 + 1  # after confirm=false was kept at 5


def test_the_start_runs_with_other_seeds_for_the_noise() -> None:
    planted = Planted(3, {})
    search(SPACE, START, planted, train_size=TASKS, repeats=3)
    assert [seed for changes, seed, _ in planted.calls if not changes][:3] == [0, 1000, 2000]


def test_the_budget_stops_the_search() -> None:
    planted = Planted(3, {("planning.planner", False): 5})
    budget = Budget(trials=2 * TASKS + 2 * TASKS)
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=2, budget=budget)
    assert outcome.best == {} and "budget" in outcome.stopped
    assert budget.spent_trials == 4 * TASKS


def test_a_budget_too_small_for_the_noise_is_one_clear_error() -> None:
    with pytest.raises(HillclimberError, match="the noise alone needs 2 × 10"):
        search(SPACE, START, Planted(3, {}), train_size=TASKS, budget=Budget(trials=15))


def test_a_setting_that_does_nothing_with_the_others_is_skipped_not_tried() -> None:
    space = [Dimension("view.previous_steps", (5,)), Dimension("view.mode", ("conversation",))]
    planted = Planted(3, {("view.previous_steps", 5): 1})
    outcome = search(space, START, planted, train_size=TASKS, repeats=1)
    [skip] = [step for step in outcome.steps if step.kind == "skip"]
    assert skip.setting == "view.mode=conversation" and "does nothing" in skip.note


def test_when_the_best_solves_all_no_more_is_tried() -> None:
    planted = Planted(3, {("completion.confirm", False): 7})
    outcome = search(SPACE, START, planted, train_size=TASKS, repeats=1)
    assert outcome.best_score == TASKS and "no setting can" in outcome.stopped
    assert len(planted.calls) == 2


def test_the_same_scores_take_the_same_path() -> None:
    gains = {("view.previous_steps", 1): 2, ("planning.planner", False): 1}
    first = search(SPACE, START, Planted(3, gains), train_size=TASKS)
    again = search(SPACE, START, Planted(3, gains), train_size=TASKS)
    assert first.steps == again.steps and first.best == again.best


@pytest.mark.parametrize(
    ("text", "trials", "seconds"),
    [("200", 200, None), ("90m", None, 5400.0), ("3h", None, 10800.0), (None, None, None)],
)
def test_a_budget_is_trials_or_a_time(text: str | None, trials: int, seconds: float) -> None:
    budget = parse_budget(text)
    assert (budget.trials, budget.seconds) == (trials, seconds)


def test_a_bad_budget_is_one_line() -> None:
    with pytest.raises(HillclimberError, match="--budget soon: expected"):
        parse_budget("soon")


def test_a_setting_that_shows_the_agent_the_tests_is_never_tried() -> None:
    space = [Dimension("feedback", ("tests", "none"))]
    outcome = search(space, START, Planted(3, {("feedback", "tests"): 5}), train_size=TASKS)
    [skip] = [step for step in outcome.steps if step.kind == "skip"]
    assert skip.setting == "feedback=tests" and "may not see the tests" in skip.note
