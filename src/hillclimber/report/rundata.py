"""Run folders read back for `show`, `report` and `compare`: configs, results, trials, and
the numbers that compare runs (a trajectory as readable steps: `steps.py`).

A path is a run folder (`config.json`, `result.json`, one folder per trial) or a comparison
folder (`compare.json` naming one run folder per label).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from hillclimber.errors import HillclimberError
from hillclimber.grades import DONE, Grade
from hillclimber.models import window_of
from hillclimber.results import (
    ExitReason,
    RunConfig,
    RunResult,
    TrialResult,
    now,
    pass_at_k_by_task,
    read_trial,
)

COMPARISON_FILE = "compare.json"
_NOT_RUN = (ExitReason.SETUP_ERROR, ExitReason.UNSUPPORTED)
"""Trials whose task could not be set up here: no agent ran."""

_Model = TypeVar("_Model", bound=BaseModel)


class Comparison(BaseModel):
    """`compare.json`: the runs of one comparison, same tasks, model and seeds."""

    run_id: str
    labels: list[str]
    """The order the runs are shown in."""
    runs: dict[str, str]
    """Per label, the name of its run folder inside the comparison folder."""
    model: str
    source: str
    """The suite name or dataset path the tasks came from."""
    created_at: str = Field(default_factory=now)


@dataclass
class RunData:
    path: Path
    label: str
    """The harness preset, the agent name (oracle, nop), or the comparison's label."""
    config: RunConfig
    result: RunResult
    trials: list[TrialResult]
    """Finished trials, by task then attempt."""
    pooled: tuple[Path, ...] = ()
    """The other run folders of this setting read as one with it (`load_runs(pool=True)`: the
    shards of a split, run apart)."""

    def trial_dir(self, trial: TrialResult) -> Path:
        homes = (self.path / trial.trial, *(path / trial.trial for path in self.pooled))
        return next((home for home in homes if home.is_dir()), homes[0])

    def trials_of(self, task_id: str) -> list[TrialResult]:
        return [t for t in self.trials if t.task_id == task_id]

    def trajectory(self, trial: TrialResult) -> dict[str, Any] | None:
        """The trial's ATIF trajectory, or None (oracle and nop write none)."""
        path = self.trial_dir(trial) / "logs" / "agent" / "trajectory.json"
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def feedback(self) -> str:
        """What checked the work during the trials: one kind (`tests`, `self`, `none`) when
        they all had the same, else each kind with its count (`self 15, none 4`) — kinds are
        never mixed without saying so. A trial whose task could not be set up had no agent and
        no feedback: it is counted apart (`self 154, none 1, not run 2`)."""
        ran = [t for t in self.trials if t.exit_reason not in _NOT_RUN]
        counts = Counter(t.feedback for t in ran)
        if len(counts) <= 1:
            said = next(iter(counts), "none")
        else:
            said = ", ".join(f"{kind} {n}" for kind, n in counts.most_common())
        skipped = len(self.trials) - len(ran)
        return f"{said}, not run {skipped}" if skipped and ran else said

    def window(self) -> str:
        """The model's window in tokens, as the run set it or its back end gave it ("–" for
        an agent with no model: the oracle, nop)."""
        return f"{window_of(self.config.model):,}" if self.config.model else "–"

    def stats(self) -> RunStats:
        return RunStats.of(self)


def _read(path: Path, model: type[_Model]) -> _Model:
    try:
        text = path.read_text()
        return model.model_validate_json(text)
    except OSError as err:
        raise HillclimberError(f"{path}: cannot read it ({err.strerror or err})") from None
    except ValidationError as err:
        if all(error["type"] == "extra_forbidden" for error in err.errors()):
            return _without_removed(text, err, model)
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        detail = f"field '{where}': {first['msg']}" if where else first["msg"]
        raise HillclimberError(f"{path}: not a {model.__name__} ({detail})") from None


def _without_removed(text: str, err: ValidationError, model: type[_Model]) -> _Model:
    """A record written by an older version, read without the settings removed since (a run
    from before `completion.agreement` went still shows): a record is history, and what no
    longer exists changed nothing that is read from it."""
    data = json.loads(text)
    for error in err.errors():
        *parents, key = error["loc"]
        holder = data
        for step in parents:
            holder = holder[step]
        del holder[key]
    return model.model_validate(data)


def default_label(config: RunConfig) -> str:
    return config.harness.preset if config.agent == "harness" and config.harness else config.agent


def load_run(path: Path, label: str | None = None) -> RunData:
    if not (path / "config.json").is_file():
        raise HillclimberError(f"{path}: not a run folder (no config.json) nor a comparison")
    config = _read(path / "config.json", RunConfig)
    if not (path / "result.json").is_file():
        raise HillclimberError(f"{path / 'result.json'}: missing (the run never got going?)")
    result = _read(path / "result.json", RunResult)
    trials = [
        trial
        for child in sorted(path.iterdir())
        if child.is_dir() and (trial := read_trial(child / "result.json")) is not None
    ]
    trials.sort(key=lambda t: (t.task_id, t.attempt))
    label = label or _compared_as(path) or default_label(config)
    return RunData(path, label, config, result, trials)


def _compared_as(path: Path) -> str | None:
    """The label a comparison gave this run folder, where it is one of a comparison's (shown
    alone, a settings file's run is `climber-tries3`, not its preset `climber`)."""
    holder = path.resolve().parent / COMPARISON_FILE
    if not holder.is_file():
        return None
    comparison = _read(holder, Comparison)
    return next((k for k, v in comparison.runs.items() if v == path.resolve().name), None)


def load_comparison(path: Path) -> list[RunData]:
    comparison = _read(path / COMPARISON_FILE, Comparison)
    runs = []
    for label in comparison.labels:
        if label not in comparison.runs:
            raise HillclimberError(f"{path / COMPARISON_FILE}: label '{label}' has no run")
        folder = path / comparison.runs[label]
        if not (folder / "config.json").is_file():
            continue  # a comparison still running: this setting has not started yet
        runs.append(load_run(folder, label))
    return runs


def load_runs(paths: list[Path], *, pool: bool = False) -> list[RunData]:
    """Each path a run folder or a comparison folder (expanded to its runs, in label order).
    Labels that would clash get the run id added; with `pool`, the runs of one label are read
    as one run instead (`_pooled`)."""
    runs: list[RunData] = []
    for path in paths:
        if not path.is_dir():
            raise HillclimberError(f"{path}: no such folder")
        if (path / COMPARISON_FILE).is_file():
            runs.extend(load_comparison(path))
        else:
            runs.append(load_run(path))
    if pool:
        runs = _pooled(runs)
    _unclash(runs, lambda run, place: f"{run.label} ({run.config.run_id})")
    _unclash(runs, lambda run, place: f"{run.label} #{place}")  # the same run given twice
    return runs


def _pooled(runs: list[RunData]) -> list[RunData]:
    """The runs of each label as one, in the order the labels first come: the trials of all,
    over the tasks of all (a split's tenths, run apart with `--shard`, read as the split)."""
    groups: dict[str, dict[Path, RunData]] = {}
    for run in runs:  # a folder given twice (itself, and in its comparison) is read once
        groups.setdefault(run.label, {}).setdefault(run.path.resolve(), run)
    pooled = []
    for label, by_folder in groups.items():
        first, *rest = by_folder.values()
        task_ids = list(dict.fromkeys(t for run in by_folder.values() for t in run.config.task_ids))
        trials = sorted(
            (t for run in by_folder.values() for t in run.trials),
            key=lambda t: (t.task_id, t.attempt),
        )
        config = first.config.model_copy(update={"task_ids": task_ids})
        others = tuple(run.path for run in rest)
        pooled.append(RunData(first.path, label, config, first.result, trials, others))
    return pooled


def _unclash(runs: list[RunData], rename: Callable[[RunData, int], str]) -> None:
    counts = Counter(run.label for run in runs)
    for place, run in enumerate(runs, 1):
        if counts[run.label] > 1:
            run.label = rename(run, place)


def _total(trials: list[TrialResult], key: str) -> int | None:
    """The sum of an agent_info count, or None when no trial has it (oracle, nop)."""
    values = [t.agent_info[key] for t in trials if isinstance(t.agent_info.get(key), int | float)]
    return int(sum(values)) if values else None


def _per(total: int | float | None, count: int) -> float | None:
    return total / count if total is not None and count else None


def _elapsed(trials: list[TrialResult]) -> float | None:
    """Seconds from the first trial's start to the last one's end."""
    try:
        starts = [datetime.fromisoformat(t.started_at) for t in trials]
        ends = [datetime.fromisoformat(t.finished_at) for t in trials]
    except ValueError:
        return None
    return (max(ends) - min(starts)).total_seconds() if starts else None


@dataclass(frozen=True)
class RunStats:
    """The numbers that compare runs. None: the agent does not record it (shown as "–")."""

    tasks: int
    trials: int
    """Finished trials."""
    solved: int
    """Tasks with at least one passing attempt."""
    pass_rate: float
    """Passed over finished trials."""
    pass_at_k: dict[int, float]
    mean_turns: float | None
    model_calls: int | None
    prompt_tokens: int | None
    completion_tokens: int | None
    prompt_tokens_per_solved: float | None
    completion_tokens_per_solved: float | None
    parse_failures: int | None
    parse_recovered: int | None
    denials: int | None
    context_shrinks: int | None
    trial_seconds: float
    """The trials' own times added up (what the run would take one at a time)."""
    elapsed_seconds: float | None
    """Wall time from the first trial's start to the last one's end (None for runs pooled:
    their trials ran apart)."""
    seconds_per_solved: float | None
    feedback: str
    model_seconds: float | None = None
    """Seconds the model spent answering, over every trial (and every try of each)."""
    grades: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per grade the harness gave (`grades.py`): trials, and how many of them the task's
    tests failed."""

    @property
    def done_wrong(self) -> tuple[int, int]:
        """Of the trials the harness called done (agreed, verified, plausible), how many the
        tests failed, and how many there were."""
        counts = [self.grades.get(g, (0, 0)) for g in DONE]
        return sum(wrong for _, wrong in counts), sum(n for n, _ in counts)

    @classmethod
    def of(cls, run: RunData) -> RunStats:
        trials = run.trials
        per_task: dict[str, list[TrialResult]] = defaultdict(list)
        for trial in trials:
            per_task[trial.task_id].append(trial)
        solved = sum(any(t.passed for t in v) for v in per_task.values())
        pass_k = pass_at_k_by_task([[t.passed for t in v] for v in per_task.values()])
        turns = [
            t.agent_info["turns"] for t in trials if isinstance(t.agent_info.get("turns"), int)
        ]
        prompt, completion = _total(trials, "prompt_tokens"), _total(trials, "completion_tokens")
        seconds = sum(t.timings.get("total", 0.0) for t in trials)
        return cls(
            tasks=len(set(run.config.task_ids) | set(per_task)),
            trials=len(trials),
            solved=solved,
            pass_rate=sum(t.passed for t in trials) / len(trials) if trials else 0.0,
            pass_at_k=pass_k,
            mean_turns=sum(turns) / len(turns) if turns else None,
            model_calls=_total(trials, "model_calls"),
            prompt_tokens=prompt,
            completion_tokens=completion,
            prompt_tokens_per_solved=_per(prompt, solved),
            completion_tokens_per_solved=_per(completion, solved),
            parse_failures=_total(trials, "parse_failures"),
            parse_recovered=_total(trials, "parse_recovered"),
            denials=_total(trials, "denials"),
            context_shrinks=_total(trials, "context_shrinks"),
            trial_seconds=seconds,
            elapsed_seconds=None if run.pooled else _elapsed(trials),
            seconds_per_solved=_per(seconds, solved),
            feedback=run.feedback(),
            model_seconds=_seconds(trials, "model_seconds"),
            grades=_grades(trials),
        )


def _seconds(trials: list[TrialResult], key: str) -> float | None:
    values = [t.agent_info[key] for t in trials if isinstance(t.agent_info.get(key), int | float)]
    return float(sum(values)) if values else None


def _grades(trials: list[TrialResult]) -> dict[str, tuple[int, int]]:
    """Per grade, in the grades' order: trials, and how many of them the tests failed (trials
    that ran the task's tests; a trial with no grade is not counted)."""
    counts: dict[str, tuple[int, int]] = {}
    for grade in Grade:
        graded = [t for t in trials if t.grade is grade and t.evaluation is not None]
        if graded:
            counts[grade.value] = (len(graded), sum(not t.passed for t in graded))
    return counts
