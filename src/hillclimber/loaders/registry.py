"""Harbor's dataset registry (`registry.json`): a JSON list of datasets, each a name, a version
and its tasks, a task being a folder (`path`) or a folder in a git repository (`git_url`,
`git_commit_id`, `path`). Tasks in local folders load; a git task cannot be fetched here (no
network) and is reported as an invalid task.

`--dataset registry.json` loads the registry's only dataset; with several, name one:
`--dataset 'registry.json#NAME'` or `'registry.json#NAME@VERSION'`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hillclimber.errors import TaskLoadError
from hillclimber.loaders._common import Lenient, from_validation, load_error


class RegistryTask(Lenient):
    name: str
    path: str
    git_url: str | None = None
    git_commit_id: str | None = None


class RegistryDataset(Lenient):
    name: str
    version: str | None = None
    description: str = ""
    tasks: list[RegistryTask]

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}" if self.version else self.name


@dataclass
class RegistryEntry:
    name: str
    description: str
    folders: list[Path] = field(default_factory=list)
    errors: list[TaskLoadError] = field(default_factory=list)


def is_registry(data: Any) -> bool:
    """A JSON list of objects that have tasks: Harbor's registry, not our manifest."""
    return isinstance(data, list) and all(isinstance(x, dict) and "tasks" in x for x in data)


def read_registry(path: Path, data: list[Any], want: str | None) -> RegistryEntry:
    """The dataset `want` names (or the only one) of the registry at `path`."""
    datasets: list[RegistryDataset] = []
    for index, raw in enumerate(data):
        try:
            datasets.append(RegistryDataset.model_validate(raw))
        except ValidationError as exc:
            raise from_validation(path, exc, prefix=[index]) from None
    chosen = _choose(path, datasets, want)
    entry = RegistryEntry(name=chosen.label, description=chosen.description)
    for index, task in enumerate(chosen.tasks):
        where = f"tasks[{index}]"
        if task.git_url:
            entry.errors.append(
                load_error(
                    path,
                    where,
                    f"task '{task.name}' is in a git repository ({task.git_url}), which cannot "
                    "be fetched here; clone it and give the folder as the task's path",
                )
            )
            continue
        folder = (path.parent / task.path).resolve()
        if not folder.is_dir():
            entry.errors.append(load_error(path, where, f"no task folder at {folder}"))
            continue
        entry.folders.append(folder)
    return entry


def _choose(path: Path, datasets: list[RegistryDataset], want: str | None) -> RegistryDataset:
    if want is None and len(datasets) == 1:
        return datasets[0]
    found = [d for d in datasets if want in (d.name, d.label)]
    if want is not None and found:
        return found[-1]
    names = ", ".join(d.label for d in datasets) or "none"
    problem = f"no dataset '{want}'" if want is not None else "it holds several datasets"
    raise load_error(path, None, f"{problem}: name one as FILE#NAME or FILE#NAME@VERSION ({names})")
