"""The tasks a climb trains on or is judged on: items `SOURCE[:TASKS]` (a built-in suite's
name or a path to tasks, then task ids or globs, comma-separated), or `@FILE` with one such
item per line (`#` starts a comment). Tasks of several sources make one set: `mini:a,b` and
`../termigen-dev:x,y`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hillclimber.errors import HillclimberError
from hillclimber.loaders import load_suite, select_tasks
from hillclimber.task import Task


@dataclass(frozen=True)
class Group:
    """The tasks of one source: they run as one run of the runner."""

    source: str
    tasks: tuple[Task, ...]
    hints: str | None = None


def load_tasks(items: Sequence[str], name: str) -> list[Group]:
    """The groups the items name (`name`: the option, for errors). A task named twice, or in
    two sources under the same id, is an error: the set's score would count it twice."""
    lines = [line for item in items for line in _expanded(item, name)]
    if not lines:
        raise HillclimberError(f"{name}: no tasks named")
    groups: dict[str, list[Task]] = {}
    hints: dict[str, str | None] = {}
    for line in lines:
        source, _, ids = line.partition(":")
        try:
            data = load_suite(source.strip())
            chosen = select_tasks(data.tasks, _ids(ids), None)
        except HillclimberError as err:
            raise HillclimberError(f"{name}: {source}: {err}") from None
        groups.setdefault(source.strip(), []).extend(chosen)
        hints[source.strip()] = data.hints
    seen: set[str] = set()
    for tasks in groups.values():
        for task in tasks:
            if task.id in seen:
                raise HillclimberError(f"{name}: task {task.id} is named twice")
            seen.add(task.id)
    return [Group(source, tuple(tasks), hints[source]) for source, tasks in groups.items()]


def task_ids(groups: Sequence[Group]) -> list[str]:
    return [task.id for group in groups for task in group.tasks]


def overlap(train: Sequence[Group], held_out: Sequence[Group]) -> list[str]:
    """Task ids in both sets: a held-out task the climb trained on judges nothing."""
    return sorted(set(task_ids(train)) & set(task_ids(held_out)))


def _expanded(item: str, name: str) -> list[str]:
    if not item.startswith("@"):
        return [item]
    path = Path(item[1:])
    try:
        text = path.read_text()
    except OSError as err:
        raise HillclimberError(f"{name}: {path}: cannot read it ({err.strerror})") from err
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [line for line in lines if line]


def _ids(text: str) -> list[str] | None:
    ids = [part.strip() for part in text.split(",") if part.strip()]
    return ids or None
