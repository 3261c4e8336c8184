"""Task loaders: Terminal-Bench 2 and 1 task folders, JSON manifests, datasets and suites.

Every loader produces the one `hillclimber.task.Task` model, and every malformed input becomes
a one-line `TaskLoadError` naming the file and the field.
"""

from hillclimber.loaders.dataset import (
    Dataset,
    load_dataset,
    load_task,
    select_tasks,
    shard_of,
    task_format,
)
from hillclimber.loaders.manifest import Manifest, load_manifest
from hillclimber.loaders.suite import builtin_suites, load_suite
from hillclimber.loaders.tb1 import load_tb1_task
from hillclimber.loaders.tb2 import load_tb2_task

__all__ = [
    "Dataset",
    "Manifest",
    "builtin_suites",
    "load_dataset",
    "load_manifest",
    "load_suite",
    "load_task",
    "load_tb1_task",
    "load_tb2_task",
    "select_tasks",
    "shard_of",
    "task_format",
]
