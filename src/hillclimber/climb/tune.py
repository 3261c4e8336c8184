"""A whole climb: the search on the train tasks, then — once, at the end — the starting and
the tuned setting on the held-out tasks. The summary says the three figures that make it
honest: the train score, the noise, and both held-out scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from hillclimber.climb.evaluate import Evaluator
from hillclimber.climb.search import Budget, search
from hillclimber.climb.space import Dimension
from hillclimber.climb.store import PathStep

RESULT = "result"
"""The store's key for the summary of a finished climb."""


class Summary(BaseModel):
    start: str
    """The starting setting's name (a preset, or a settings file)."""
    changes: dict[str, Any]
    """The tuned setting: its changes from the start (none: the start is kept)."""
    train_size: int
    held_out_size: int
    start_train: list[int]
    """The starting setting's train scores, one per repeat."""
    noise: int
    tuned_train: float
    """The tuned setting's train score (the start's mean where nothing was kept)."""
    start_held_out: int
    tuned_held_out: int
    train_trials: int
    held_out_trials: int
    stopped: str

    def beats_noise(self) -> bool:
        """Whether the tuned setting beats the start on held-out by more than the noise."""
        return self.tuned_held_out - self.start_held_out > self.noise


def tune(
    space: Sequence[Dimension],
    evaluator: Evaluator,
    *,
    start_name: str,
    repeats: int,
    min_noise: int = 0,
    budget: Budget,
) -> Summary:
    store = evaluator.store
    store.start_path()
    outcome = search(
        space,
        evaluator.start,
        evaluator.train,
        train_size=evaluator.size("train"),
        repeats=repeats,
        min_noise=min_noise,
        budget=budget,
        record=store.add_step,
    )
    n = len(outcome.steps)
    start = evaluator.evaluate({}, "held-out")
    store.add_step(PathStep(n + 1, "held-out", {}, "start", start.solved, None, False))
    tuned = start
    if outcome.best:
        tuned = evaluator.evaluate(outcome.best, "held-out")
        store.add_step(PathStep(n + 2, "held-out", outcome.best, "tuned", tuned.solved, None, True))
    summary = Summary(
        start=start_name,
        changes=outcome.best,
        train_size=evaluator.size("train"),
        held_out_size=evaluator.size("held-out"),
        start_train=outcome.start_scores,
        noise=outcome.noise,
        tuned_train=outcome.best_score,
        start_held_out=start.solved,
        tuned_held_out=tuned.solved,
        train_trials=outcome.budget.spent_trials,
        held_out_trials=start.finished + (tuned.finished if tuned is not start else 0),
        stopped=outcome.stopped,
    )
    store.put(RESULT, summary.model_dump())
    return summary
