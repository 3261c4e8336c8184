"""Datasets: one task folder, a folder of task folders, or a JSON manifest, read as one set.

A dataset never stops at a bad task: each failure becomes a `TaskLoadError` in
`Dataset.errors` and the rest load. Only a dataset that cannot be read at all (no such path,
no tasks in it, a manifest that is not JSON) raises.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hillclimber.errors import HillclimberError, TaskLoadError
from hillclimber.loaders._common import (
    Hints,
    HintsSetting,
    Lenient,
    load_error,
    read_text,
    read_toml,
)
from hillclimber.loaders.manifest import load_manifest, read_json
from hillclimber.loaders.registry import is_registry, read_registry
from hillclimber.loaders.tb1 import is_tb1_task, load_tb1_task
from hillclimber.loaders.tb2 import is_tb2_task, load_tb2_task
from hillclimber.task import Task, TaskFormat

SUITE_FILE = "suite.toml"


@dataclass
class Dataset:
    """A named set of tasks, sorted by id, with the errors of the tasks that did not load."""

    name: str
    source: Path
    tasks: list[Task] = field(default_factory=list)
    errors: list[TaskLoadError] = field(default_factory=list)
    hints: Hints | None = None
    """The suite's declared hint policy; None when it does not declare one."""
    description: str | None = None

    @property
    def ids(self) -> list[str]:
        return [task.id for task in self.tasks]

    def get(self, task_id: str) -> Task | None:
        return next((task for task in self.tasks if task.id == task_id), None)


class SuiteToml(Lenient):
    name: str | None = None
    description: str | None = None
    hints: HintsSetting = None


def task_format(folder: Path) -> TaskFormat | None:
    """Which task format a folder holds, from its marker files (TB2 wins if both are there)."""
    if not folder.is_dir():
        return None
    if is_tb2_task(folder):
        return TaskFormat.TB2
    if is_tb1_task(folder):
        return TaskFormat.TB1
    return None


def load_task(path: Path) -> Task:
    """Load one task folder (Terminal-Bench 2 or 1)."""
    path = Path(path)
    if not path.exists():
        raise load_error(path, None, "no such task folder")
    kind = task_format(path)
    if kind is TaskFormat.TB2:
        return load_tb2_task(path)
    if kind is TaskFormat.TB1:
        return load_tb1_task(path)
    raise load_error(
        path,
        None,
        "not a task folder: expected task.toml + instruction.md (Terminal-Bench 2) "
        "or task.yaml (Terminal-Bench 1)",
    )


def _read_suite_toml(path: Path) -> SuiteToml:
    return read_toml(path, read_text(path, None, "the suite's settings"), SuiteToml)


def _task_folders(folder: Path) -> list[Path]:
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        raise load_error(folder, None, f"cannot list: {exc.strerror or exc}") from None
    return [
        child
        for child in children
        if not child.name.startswith(".") and task_format(child) is not None
    ]


def _finish(dataset: Dataset) -> Dataset:
    """Sort by id and turn a repeated id into an error, keeping its first holder."""
    seen: dict[str, Task] = {}
    for task in dataset.tasks:
        if task.id in seen:
            where = task.source or dataset.source
            first = seen[task.id].source or dataset.source
            dataset.errors.append(
                load_error(where, "id", f"duplicate task id '{task.id}' (also in {first})")
            )
        else:
            seen[task.id] = task
    dataset.tasks = sorted(seen.values(), key=lambda task: task.id)
    return dataset


def _with_tasks(dataset: Dataset, folders: Iterable[Path]) -> Dataset:
    """`dataset` with the task of each folder, or the error that kept it out."""
    for folder in folders:
        try:
            dataset.tasks.append(load_task(folder))
        except TaskLoadError as exc:
            dataset.errors.append(exc)
    return dataset


def _load_registry(path: Path, data: list[Any], want: str | None) -> Dataset:
    entry = read_registry(path, data, want)
    dataset = Dataset(
        name=entry.name, source=path, errors=entry.errors, description=entry.description
    )
    return _with_tasks(dataset, entry.folders)


def _load_folder(folder: Path) -> Dataset:
    suite = SuiteToml()
    if (folder / SUITE_FILE).is_file():
        suite = _read_suite_toml(folder / SUITE_FILE)
    dataset = Dataset(
        name=suite.name or folder.name,
        source=folder,
        hints=suite.hints,
        description=suite.description,
    )
    if task_format(folder) is not None:
        children = [folder]
    else:
        children = _task_folders(folder)
        if not children:
            raise load_error(
                folder,
                None,
                "no task folders in it (a task folder holds task.toml + instruction.md "
                "or task.yaml)",
            )
    return _with_tasks(dataset, children)


def load_dataset(path: Path) -> Dataset:
    """Load a task folder, a folder of task folders (with an optional `suite.toml`; a folder
    `harbor download` made is one), a `.json` manifest, or a Harbor `registry.json`
    (`FILE#NAME[@VERSION]` for one of several datasets)."""
    given, _, want = str(path).partition("#")
    path = Path(given).resolve()
    if not path.exists():
        raise load_error(path, None, "no such dataset: not a folder or a .json manifest")
    if path.is_dir():
        return _finish(_load_folder(path))
    if path.suffix.lower() != ".json":
        raise load_error(path, None, "not a dataset: give a task folder or a .json manifest")
    data = read_json(path)
    if is_registry(data):
        return _finish(_load_registry(path, data, want or None))
    manifest = load_manifest(path)
    if not manifest.tasks and not manifest.errors:
        raise load_error(path, "tasks", "the manifest lists no tasks")
    return _finish(
        Dataset(
            name=manifest.name,
            source=path,
            tasks=manifest.tasks,
            errors=manifest.errors,
            hints=manifest.hints,
            description=manifest.description,
        )
    )


TAG = "tag:"
"""A task pattern that names a tag, not an id."""


def _patterns(values: Iterable[str] | None) -> list[str]:
    """Patterns from the command line may come comma-separated (`--tasks a,b`)."""
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def select_tasks(
    tasks: Sequence[Task], include: list[str] | None, exclude: list[str] | None
) -> list[Task]:
    """Keep tasks whose id matches an include pattern (all if none), minus excluded ones.

    Patterns are ids or fnmatch globs (`regex-*`), or `tag:` and a tag or glob of tags
    (`tag:tier-1`: the tasks the task files tag so). An include pattern that matches nothing is
    an error: a typo must not silently shrink a benchmark run. An exclude pattern that matches
    nothing is harmless and ignored.
    """
    ids = [task.id for task in tasks]
    wanted = _patterns(include)
    chosen = set(ids)
    if wanted:
        chosen = set()
        for pattern in wanted:
            matched = _matching(tasks, pattern)
            if not matched:
                raise HillclimberError(_no_match(pattern, ids))
            chosen.update(matched)
    for pattern in _patterns(exclude):
        chosen.difference_update(_matching(tasks, pattern))
    return [task for task in tasks if task.id in chosen]


def shard_of(tasks: Sequence[Task], spec: str) -> list[Task]:
    """The tasks of shard `I/N` (`2/5`): every Nth of them in id order, from the Ith. The N
    shards of one set of tasks are disjoint, cover it, and differ in size by one at most, so a
    long run splits into pieces run on other machines or days, each named without listing (or
    reading) its tasks. A different set of tasks shards differently."""
    index, _, count = spec.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise HillclimberError(f"--shard {spec}: give I/N, 1 ≤ I ≤ N (e.g. 2/5)")
    ordered = sorted(tasks, key=lambda task: task.id)
    return ordered[int(index) - 1 :: int(count)]


def _matching(tasks: Sequence[Task], pattern: str) -> list[str]:
    tag = pattern.removeprefix(TAG)
    if tag != pattern:
        return [t.id for t in tasks if any(fnmatch.fnmatchcase(x, tag) for x in t.metadata.tags)]
    return [task.id for task in tasks if fnmatch.fnmatchcase(task.id, pattern)]


def _no_match(pattern: str, ids: list[str]) -> str:
    if not ids:
        return f"task pattern '{pattern}' matches no task: the dataset has no tasks"
    shown = ", ".join(ids[:8]) + (f", … ({len(ids)} in all)" if len(ids) > 8 else "")
    return f"task pattern '{pattern}' matches no task; available: {shown}"
