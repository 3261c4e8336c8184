"""Skills learned from a finished run: a skill from every trial whose checks passed, read from the
run's folders (`result.json`, the trajectory, the run's `config.json` for the tasks)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from hillclimber.errors import HillclimberError
from hillclimber.harness.instruction import named_paths
from hillclimber.loaders.suite import load_suite
from hillclimber.report.steps import read_steps
from hillclimber.results import RunConfig, TrialResult
from hillclimber.skills.learn import ToolStep, distill
from hillclimber.skills.store import SkillStore
from hillclimber.task import Task

JudgedBy = Literal["own", "tests"]


@dataclass(frozen=True)
class Harvested:
    trial: Path
    skill_id: str | None
    """None: the trial passed, but no command of it changed anything (nothing to learn)."""
    new: bool


def passed(result: TrialResult, by: JudgedBy) -> bool:
    """`own`: the trial's own checks passed in its loop (the task's tests with feedback tests,
    the acceptance checks with self); `tests`: the task's tests passed after it stopped."""
    if by == "tests":
        return result.passed
    return result.feedback != "none" and result.agent_info.get("loop_exit") in (
        "verified",
        "agreed",  # runs from before second answers were removed
    )


def harvest(run_dir: Path, store: SkillStore, *, by: JudgedBy = "own") -> list[Harvested]:
    """Learn from every passed trial under `run_dir` (a run, or a comparison of runs)."""
    found: list[Harvested] = []
    tasks: dict[Path, dict[str, Task]] = {}
    for path in sorted(run_dir.glob("**/result.json")):
        try:
            result = TrialResult.model_validate_json(path.read_text())
        except (ValidationError, ValueError):
            continue  # a run's summary, not a trial's
        if not passed(result, by):
            continue
        task = _tasks(path.parent.parent, tasks).get(result.task_id)
        trajectory = path.parent / "logs" / "agent" / "trajectory.json"
        if task is None or not trajectory.exists():
            continue
        steps = steps_from_trajectory(json.loads(trajectory.read_text()))
        named = named_paths(task.instruction)
        skill = distill(task.instruction, steps, task_id=task.id, named=named)
        new = skill is not None and store.add(skill)
        found.append(Harvested(path.parent, skill.id if skill else None, new))
    return found


def _tasks(run_dir: Path, cache: dict[Path, dict[str, Task]]) -> dict[str, Task]:
    """The tasks of the run in `run_dir`, by id, from the source its config.json names."""
    if run_dir not in cache:
        config_path = run_dir / "config.json"
        try:
            config = RunConfig.model_validate_json(config_path.read_text())
        except (OSError, ValidationError, ValueError) as err:
            raise HillclimberError(f"{config_path}: not a run's config: {err}") from None
        cache[run_dir] = {task.id: task for task in load_suite(config.source).tasks}
    return cache[run_dir]


def steps_from_trajectory(doc: Mapping[str, Any]) -> list[ToolStep]:
    """The tool calls of a trajectory written by `TrajectoryWriter`, with their success."""
    return [
        ToolStep(str(call.get("function_name", "")), call.get("arguments") or {}, result["success"])
        for step in read_steps(dict(doc))
        for call, result in zip(step.calls, step.results, strict=False)
    ]
