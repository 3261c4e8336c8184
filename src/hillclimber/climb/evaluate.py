"""Scoring a setting on a set of tasks: the runner's own trials, one run per source of tasks,
scored by the tasks' tests after the agent stopped (the agent's feedback during the run is the
setting's own: `self` or `none`). Each evaluation is written to the store as it ends and read
back when asked for again, so a resumed climb pays for nothing twice; its trials resume in
their run folders like any run's.

A candidate scored against a bar runs first the tasks the start solved least often (its
noise runs): it is pruned as soon as it could no longer beat the bar, and the tasks the start
fails are the ones a candidate most likely fails too, so it is pruned sooner. The order is
one over all sources: each source's run is resumed for each batch of its tasks. The order
changes no decision: a candidate that runs to its end runs every task, and one pruned could
not have won in any order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hillclimber.climb.store import ClimbStore, SettingScore, Split, changes_key
from hillclimber.climb.tasks import Group
from hillclimber.compare import folder_name
from hillclimber.harness.config import HarnessConfig
from hillclimber.results import RunConfig, TrialResult
from hillclimber.runner import Run, RunEvents
from hillclimber.trial import TrialSpec


class Pruned(Exception):
    """The setting can no longer beat the bar: the rest of its trials would change nothing."""


@dataclass
class _Tally:
    total: int
    bar: float | None
    passed: dict[str, bool] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def solved(self) -> int:
        return sum(self.passed.values())

    def add(self, result: TrialResult) -> None:
        self.passed[result.task_id] = result.passed
        self.seconds += result.timings.get("total", 0.0)
        left = self.total - len(self.passed)
        if self.bar is not None and left and self.solved + left <= self.bar:
            raise Pruned


def folder(changes: dict[str, Any], seed: int) -> str:
    """The evaluation's run folder: `start-s0`, or a short hash of the changes."""
    name = "start" if not changes else hashlib.sha1(changes_key(changes).encode()).hexdigest()[:10]
    return f"{name}-s{seed}"


@dataclass
class Evaluator:
    """Scores settings, made from `start` by their changes, on the tasks of each split."""

    store: ClimbStore
    start: HarnessConfig
    base: RunConfig
    """The model, sandbox and limits of every run (its tasks and setting are replaced)."""
    splits: dict[Split, Sequence[Group]]
    runs_dir: Path
    watch: RunEvents = field(default_factory=RunEvents)
    asked: list[tuple[Split, str]] = field(default_factory=list)
    """Every evaluation asked for, in order (the tests check held-out comes last)."""

    def size(self, split: Split) -> int:
        return sum(len(group.tasks) for group in self.splits[split])

    def train(
        self, changes: dict[str, Any], *, seed: int = 0, bar: float | None = None
    ) -> SettingScore:
        return self.evaluate(changes, "train", seed=seed, bar=bar)

    def evaluate(
        self, changes: dict[str, Any], split: Split, *, seed: int = 0, bar: float | None = None
    ) -> SettingScore:
        self.asked.append((split, changes_key(changes)))
        stored = self.store.evaluation(changes, split, seed)
        if stored is not None:
            return stored
        setting = self.start.with_settings({**changes, **({"ask.seed": seed} if seed else {})})
        tally = _Tally(self.size(split), bar)
        where = self.runs_dir / split / folder(changes, seed)
        runs = {group.source: self._run_of(group, setting, where) for group in self.splits[split]}
        events = self._events(tally)
        order: Sequence[tuple[str, list[str] | None]] = [
            (g.source, None) for g in self.splits[split]
        ]
        if bar is not None:
            order = self.hardest_first(split)
        try:
            for source, tasks in order:
                runs[source].execute(events, only=tasks)
        except Pruned:
            pruned = True
        else:
            pruned = False
        done = SettingScore(
            changes, split, seed, tally.solved, len(tally.passed), tally.total, pruned,
            tally.seconds, tally.passed, str(where),
        )  # fmt: skip
        self.store.add_evaluation(done)
        return done

    def hardest_first(self, split: Split) -> list[tuple[str, list[str]]]:
        """The split's tasks in the order of the start's passes on them (those it never solved
        first), as batches of one source each: (source, task ids). Ties keep the order of the
        sources by the share of their tasks the start never solved, then the split's order."""
        passes: dict[str, int] = {}
        for done in self.store.evaluations():
            if done.split == split and not done.changes:
                for task, passed in done.passed.items():
                    passes[task] = passes.get(task, 0) + passed
        groups = sorted(
            self.splits[split],
            key=lambda g: -sum(not passes.get(t.id) for t in g.tasks) / len(g.tasks),
        )
        tasks = sorted(
            ((g.source, t.id) for g in groups for t in g.tasks), key=lambda st: passes.get(st[1], 0)
        )
        batches: list[tuple[str, list[str]]] = []
        for source, task in tasks:
            if batches and batches[-1][0] == source:
                batches[-1][1].append(task)
            else:
                batches.append((source, [task]))
        return batches

    def _run_of(self, group: Group, setting: HarnessConfig, where: Path) -> Run:
        config = self.base.model_copy(
            update={
                "run_id": f"{self.base.run_id}/{where.parent.name}/{where.name}",
                "source": group.source,
                "task_ids": [task.id for task in group.tasks],
                "harness": setting,
                "suite_hints": group.hints,
            }
        )
        return Run(config, group.tasks, where / folder_name(group.source))

    def _events(self, tally: _Tally) -> RunEvents:
        """The watcher's events, each trial's end also counted in the tally."""
        watch = self.watch

        def ended(spec: TrialSpec, result: TrialResult) -> None:
            watch.on_end(spec, result)
            tally.add(result)

        def skipped(spec: TrialSpec, result: TrialResult) -> None:
            watch.on_skip(spec, result)
            tally.add(result)

        return RunEvents(on_start=watch.on_start, on_end=ended, on_skip=skipped)
