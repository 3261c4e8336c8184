"""The plain method: coordinate ascent over the space, scored on the train tasks only.

First the noise: the starting setting is run `repeats` times with other seeds (the warmer
turns of a stuck model draw differently), and the spread of its scores is the noise. Then each
setting of the space in turn: every value not already in place is tried on top of the best
setting so far, and the best of them is kept only if it solves more train tasks than the best
so far by more than the noise. Two runs that agree do not show a setting's score never moves,
so the noise is at least `min_noise` tasks (the climb's default is one). Passes over the space
repeat until one changes nothing or the budget is spent. The held-out tasks are not seen here:
`search` is handed a function that scores on train only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError

from hillclimber.climb.space import Dimension
from hillclimber.climb.store import PathStep, SettingScore, changes_key, described
from hillclimber.errors import HillclimberError
from hillclimber.harness.config import HarnessConfig

NOISE_SEED_STEP = 1000
"""Repeat r of the starting setting runs with seed r × this: the warmer turns are seeded by
seed + turn, so these never draw what another repeat draws."""


SEES_TESTS = "the agent may not see the tests that score it (feedback tests)"


class Evaluate(Protocol):
    def __call__(
        self, changes: dict[str, Any], *, seed: int = 0, bar: float | None = None
    ) -> SettingScore:
        """The setting's score on the train tasks; with `bar`, it may stop (pruned) once it
        can no longer solve more than `bar`."""


@dataclass
class Budget:
    """What the search may spend on train trials (the noise repeats included; the held-out
    runs at the end come on top): trials, or seconds of the trials' own time."""

    trials: int | None = None
    seconds: float | None = None
    spent_trials: int = 0
    spent_seconds: float = 0.0

    def allows(self, trials: int) -> bool:
        if self.trials is not None and self.spent_trials + trials > self.trials:
            return False
        return self.seconds is None or self.spent_seconds < self.seconds

    def spend(self, done: SettingScore) -> None:
        self.spent_trials += done.finished
        self.spent_seconds += done.seconds

    def describe(self) -> str:
        if self.trials is not None:
            return f"{self.trials} trials"
        return f"{self.seconds:.0f} s of trials" if self.seconds is not None else "no limit"


def parse_budget(text: str | None) -> Budget:
    """`200` (train trials) or a time: `90m`, `3h`, `45s`."""
    if not text:
        return Budget()
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if found is None:
        raise HillclimberError(f"--budget {text}: expected a number of trials, or a time (90m, 3h)")
    number, unit = float(found[1]), found[2]
    if not unit:
        return Budget(trials=int(number))
    return Budget(seconds=number * {"s": 1, "m": 60, "h": 3600}[unit])


@dataclass
class Climbed:
    """What a climb found: the start's scores and their spread, the best setting and its score,
    why it stopped, and each step it took."""

    start_scores: list[int]
    noise: int
    best: dict[str, Any]
    best_score: float
    stopped: str
    budget: Budget
    steps: list[PathStep] = field(default_factory=list)


@dataclass
class _Climb:
    space: Sequence[Dimension]
    start: HarnessConfig
    evaluate: Evaluate
    budget: Budget
    train_size: int
    record: Callable[[PathStep], None]
    steps: list[PathStep] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    """Every setting met, tried or skipped."""

    def step(self, kind: Any, changes: dict[str, Any], setting: str, score: float | None,
             best: float | None, kept: bool, note: str = "") -> None:  # fmt: skip
        made = PathStep(len(self.steps) + 1, kind, changes, setting, score, best, kept, note)
        self.steps.append(made)
        self.record(made)

    def score(self, changes: dict[str, Any], bar: float) -> SettingScore | None:
        """The candidate evaluated on train; None when the budget cannot pay for it."""
        if not self.budget.allows(self.train_size):
            return None
        done = self.evaluate(changes, seed=0, bar=bar)
        self.budget.spend(done)
        self.seen.add(changes_key(changes))
        return done

    def normal(self, changes: dict[str, Any]) -> dict[str, Any]:
        """The changes without those that set the starting setting's own value."""
        return {k: v for k, v in changes.items() if value_of(self.start, k) != v}

    def invalid(self, changes: dict[str, Any]) -> str | None:
        try:
            config = self.start.with_settings(changes)
        except ValidationError as err:
            return str(err.errors()[0]["msg"])
        return SEES_TESTS if config.feedback == "tests" else None


def value_of(config: HarnessConfig, key: str) -> Any:
    group, _, name = key.rpartition(".")
    return getattr(getattr(config, group) if group else config, name)


def noise(evaluate: Evaluate, repeats: int, budget: Budget, train_size: int) -> list[SettingScore]:
    """The starting setting's scores over `repeats` seeds."""
    if not budget.allows(repeats * train_size):
        raise HillclimberError(
            f"--budget {budget.describe()}: the noise alone needs {repeats} × {train_size} "
            "train trials"
        )
    runs = []
    for repeat in range(repeats):
        done = evaluate({}, seed=repeat * NOISE_SEED_STEP)
        budget.spend(done)
        runs.append(done)
    return runs


def search(
    space: Sequence[Dimension],
    start: HarnessConfig,
    evaluate: Evaluate,
    *,
    train_size: int,
    repeats: int = 2,
    min_noise: int = 0,
    budget: Budget | None = None,
    record: Callable[[PathStep], None] = lambda step: None,
) -> Climbed:
    """Coordinate ascent from `start` (see the module's doc)."""
    budget = budget or Budget()
    climb = _Climb(space, start, evaluate, budget, train_size, record)
    starts = noise(evaluate, repeats, budget, train_size)
    scores = [done.solved for done in starts]
    measured = max(scores) - min(scores)
    spread = max(measured, min_noise)
    best: dict[str, Any] = {}
    best_score = sum(scores) / len(scores)
    climb.seen.add(changes_key({}))
    note = f"{len(scores)} runs: {', '.join(map(str, scores))}; noise {spread}"
    if spread > measured:
        note += f" (measured {measured}, at least {min_noise})"
    climb.step("noise", {}, "start", best_score, best_score, True, note)
    stopped = ""
    while not stopped:
        changed = False
        for dim in space:
            if best_score + spread >= train_size:
                stopped = "no setting can solve more than the best by more than the noise"
                break
            winner, stopped = _dimension(climb, dim, best, best_score, spread)
            if winner is not None:
                best, best_score, changed = winner[0], winner[1], True
            if stopped:
                break
        if not changed and not stopped:
            stopped = "a whole pass over the space kept nothing"
    return Climbed(scores, spread, best, best_score, stopped, budget, climb.steps)


def _dimension(
    climb: _Climb, dim: Dimension, best: dict[str, Any], best_score: float, spread: int
) -> tuple[tuple[dict[str, Any], float] | None, str]:
    """The best value of one setting on top of `best`, if one solves more than `best_score`
    by more than the noise; and why the search stops, if it does."""
    bar = best_score + spread
    current = value_of(climb.start.with_settings(best), dim.key)
    winner: tuple[dict[str, Any], float] | None = None
    tried: list[tuple[dict[str, Any], str, SettingScore]] = []
    stopped = ""
    for value in dim.values:
        if value == current:
            continue
        changes = climb.normal({**best, dim.key: value})
        if changes_key(changes) in climb.seen:
            continue  # tried before, under a lower bar (it cannot win now), or skipped
        label = described({dim.key: value})
        if (why := climb.invalid(changes)) is not None:
            climb.step("skip", changes, label, None, None, False, why)
            climb.seen.add(changes_key(changes))
            continue
        done = climb.score(changes, winner[1] if winner else bar)
        if done is None:
            stopped = f"a budget of {climb.budget.describe()}, spent"
            break
        tried.append((changes, label, done))
        if not done.pruned and done.solved > (winner[1] if winner else bar):
            winner = (changes, float(done.solved))
    for changes, label, done in tried:
        kept = winner is not None and changes == winner[0]
        note = f"pruned after {done.finished} of {done.total}" if done.pruned else ""
        after = winner[1] if kept and winner else best_score
        climb.step("try", changes, label, done.solved, after, kept, note)
    return winner, stopped
