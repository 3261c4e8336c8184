"""Which files does the harness take for a task's inputs — the data it computes an answer
from, checks a second answer against and keeps from being overwritten?

    python benchmarks/inputs.py [--suite mini | --dataset PATH] [--tasks a,b] [--list]

Every task is set up as a trial would be (in its image where it needs one) and its paths are
read as the loop reads them (`harness/task_paths.py`). Per task it prints how many inputs were
found (with `--list`, which); the last line has how many tasks have any. A task whose answer
must be worked out from data, with no input found, gets no computed answer and no second one.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from pathlib import Path

from _trial import load_tasks, prepare

from hillclimber.errors import HillclimberError
from hillclimber.harness.task_paths import TaskPaths
from hillclimber.sandbox import HOST_KINDS, SandboxKind, pick_sandbox_kind


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="mini")
    parser.add_argument("--dataset", help="a dataset path (instead of --suite)")
    parser.add_argument("--tasks", help="task ids or globs, comma-separated (default: all)")
    parser.add_argument("--sandbox", type=SandboxKind, choices=HOST_KINDS)
    parser.add_argument("--list", action="store_true", help="print each task's inputs")
    args = parser.parse_args()
    kind = args.sandbox or pick_sandbox_kind()[0]
    _, tasks = load_tasks(args.suite, args.dataset, args.tasks)
    found = failed = 0
    with tempfile.TemporaryDirectory(prefix="hc-inputs-") as tmp:
        for task in tasks:
            with contextlib.ExitStack() as held:
                try:
                    prepared = prepare(task, Path(tmp) / task.id, kind, held)
                except HillclimberError as err:
                    failed += 1
                    print(f"{task.id:55s} not set up: {str(err)[:80]}")
                    continue
                paths = TaskPaths.read(task.instruction, prepared.sandbox, prepared.workdir)
            found += bool(paths.inputs)
            shown = f": {', '.join(sorted(paths.inputs))}" if args.list and paths.inputs else ""
            print(f"{task.id:55s} {len(paths.inputs):3d} inputs{shown}")
    print(f"tasks with inputs: {found}/{len(tasks)} ({failed} not set up)")


if __name__ == "__main__":
    main()
