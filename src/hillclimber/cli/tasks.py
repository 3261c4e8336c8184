"""`tasks list|show|check`: what a suite or dataset holds, and what of it can run here."""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from hillclimber.cli.app import console, fail, tasks_app
from hillclimber.cli.options import (
    DatasetOpt,
    ExcludeOpt,
    SuiteOpt,
    TasksOpt,
    load,
    report_invalid,
    split,
)
from hillclimber.image import Placement, find_engine, place
from hillclimber.image.engine import Podman
from hillclimber.image.placement import oracle_blockers
from hillclimber.loaders import select_tasks
from hillclimber.setup.plan import solution_needs
from hillclimber.task import Task


@tasks_app.command("list")
def tasks_list(
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
    tasks: TasksOpt = None,
    exclude: ExcludeOpt = None,
) -> None:
    """List the tasks of a suite or dataset."""
    data = load(suite, dataset)
    invalid = report_invalid(data)
    table = Table("id", "difficulty", "category", "tags", "format", title=data.name)
    for task in select_tasks(data.tasks, split(tasks), split(exclude)):
        meta = task.metadata
        table.add_row(
            task.id,
            meta.difficulty or "",
            meta.category or "",
            ", ".join(meta.tags),
            task.format.value,
        )
    console.print(table)
    if invalid:
        raise typer.Exit(2)


@tasks_app.command("show")
def tasks_show(
    task_id: Annotated[str, typer.Argument(metavar="TASK")],
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
) -> None:
    """Show one task: instruction, limits, environment, verification."""
    data = load(suite, dataset)
    matches = [t for t in data.tasks if t.id == task_id]
    if not matches:
        fail(f"no task '{task_id}' in {data.name}")
    task = matches[0]
    console.rule(task.id)
    console.print(task.instruction, highlight=False, markup=False)
    console.rule()
    console.print_json(task.model_dump_json(exclude={"instruction"}))


@tasks_app.command("check")
def tasks_check(
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
    tasks: TasksOpt = None,
    exclude: ExcludeOpt = None,
    build: Annotated[
        bool,
        typer.Option(help="Build (or find built) the image of each task that needs one."),
    ] = False,
) -> None:
    """Say where each task can run here (bwrap, its image, or not), and why not."""
    data = load(suite, dataset)
    invalid = report_invalid(data)
    chosen = select_tasks(data.tasks, split(tasks), split(exclude))
    engine = find_engine()
    table = Table(
        "task",
        "runs in",
        "why not / why an image",
        "the reference solution needs, not here",
        title=f"{data.name}: where each task can run here",
    )
    counts: Counter[str] = Counter()
    built: Counter[str] = Counter()
    for task in chosen:
        placed = place(task, engine, build=build)
        counts[placed.where] += 1
        built[_build_outcome(placed)] += 1
        table.add_row(
            task.id,
            _WHERE[placed.where] + _built(placed),
            escape(_reasons(placed)),
            escape("; ".join(_oracle_needs(task, placed, engine))),
        )
    console.print(table)
    runnable = counts["bwrap"] + counts["image"]
    console.print(
        f"{runnable}/{len(chosen)} tasks can run here ({counts['bwrap']} in bwrap, "
        f"{counts['image']} in their image{_builds(built) if build else _UNBUILT})"
        + (f"; {len(invalid)} could not be read" if invalid else ""),
        highlight=False,
    )
    if isinstance(engine, str) and counts["no"]:
        console.print(f"no task image can be built here: {engine}", highlight=False)
    if invalid:
        raise typer.Exit(2)


def _oracle_needs(task: Task, placed: Placement, engine: Podman | str) -> list[str]:
    """Why the oracle will fail where the task runs: in bwrap, what its solution installs or
    downloads; in its image, what even the image cannot give (`oracle_blockers`)."""
    if placed.where == "bwrap":
        return solution_needs(task)
    return oracle_blockers(task, engine) if placed.where == "image" else []


_WHERE = {"bwrap": "[green]bwrap[/]", "image": "[green]image[/]", "no": "[yellow]no[/]"}


def _build_outcome(placed: Placement) -> str:
    """What building did for this task: built now, found built, failed, or nothing."""
    if placed.build_failed:
        return "failed"
    if placed.image is None:
        return ""
    return "cached" if placed.image.cached else "built"


_UNBUILT = ", built or found by --build"
"""Without `--build` nothing is looked up: whether an image is built is not known."""


def _builds(built: Counter[str]) -> str:
    """`: 3 built now, 5 found built; 2 failed to build`, as `--build` found them."""
    said = f": {built['built']} built now, {built['cached']} found built"
    return said + (f"; {built['failed']} failed to build" if built["failed"] else "")


def _built(placed: Placement) -> str:
    image = placed.image
    if image is None:
        return ""
    return " (cached)" if image.cached else f" (built in {image.build_sec:.0f} s)"


def _reasons(placed: Placement, most: int = 3) -> str:
    """The first reasons (a failed build's output cut to its first and last lines), and how
    many more there are."""
    lines: list[str] = []
    for reason in placed.reasons[:most]:
        parts = reason.splitlines()
        lines.append(parts[0] + (f" … {parts[-1]}" if len(parts) > 1 else ""))
    more = len(placed.reasons) - most
    return "; ".join(lines) + (f"; and {more} more" if more > 0 else "")
