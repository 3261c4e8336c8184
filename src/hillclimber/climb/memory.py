"""Per-task memory: for a suite of one's own that is run again and again, the setting that
solved each task in a climb, reused for that task (`bench --memory CLIMB_DIR`).

That is what the original design did per task, and it is honest only as what it is: the
setting was chosen knowing the task's tests passed with it, so a run using the memory says
so, and its score on those tasks measures nothing about unseen ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hillclimber.climb.store import ARGUMENTS, ClimbStore, changes_key, open_store, store_file
from hillclimber.climb.tune import RESULT
from hillclimber.errors import HillclimberError
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import load_harness


def remembered(store: ClimbStore) -> dict[str, dict[str, Any]]:
    """Task id → the changes (from the climb's start) of the setting to use for it: the tuned
    setting where it solved the task, else the first setting that did, in the climb's order.
    Tasks no setting solved are left out."""
    result = store.get(RESULT)
    tuned = changes_key(result["changes"]) if result else None
    solved_by: dict[str, list[dict[str, Any]]] = {}
    for done in store.evaluations():
        for task, passed in done.passed.items():
            if passed:
                solved_by.setdefault(task, []).append(done.changes)
    return {
        task: next((c for c in settings if changes_key(c) == tuned), settings[0])
        for task, settings in solved_by.items()
    }


def task_settings(folder: Path, model: str) -> dict[str, HarnessConfig]:
    """The remembered setting of each task the climb in `folder` solved, for `model`."""
    store = open_store(store_file(folder), must_exist=True)
    try:
        args = store.get(ARGUMENTS)
        if args is None:
            raise HillclimberError(f"{store.path}: no climb was started there")
        if args["model"] != model:
            raise HillclimberError(
                f"--memory {folder}: that climb tuned for model {args['model']}, not {model}"
            )
        start = load_harness(args["start"], args["sets"])
        return {task: start.with_settings(c) for task, c in remembered(store).items()}
    finally:
        store.close()
