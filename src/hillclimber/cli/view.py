"""`show`, `report` and `export`: a run's numbers in the terminal, one HTML page of several
runs, or a run in another tool's format (a Harbor job folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hillclimber.cli.app import app, console, fail
from hillclimber.errors import HillclimberError
from hillclimber.report.rundata import load_runs
from hillclimber.report.tables import ends_table, grades_table, markdown, stats_table, task_matrix


@app.command()
def show(
    targets: Annotated[
        list[str],
        typer.Argument(
            metavar="RUN... [TASK]",
            help="Run or comparison folders (several: each setting's runs read as one, as the "
            "tenths of a split run with --shard), then a task to show step by step.",
        ),
    ],
    totals: Annotated[
        bool,
        typer.Option(
            "--totals", help="The totals and grades only: no task named (a validation split)."
        ),
    ] = False,
    ends: Annotated[
        bool,
        typer.Option(
            "--ends",
            help="Also how each trial's agent stopped: its exit, model calls and time.",
        ),
    ] = False,
    as_markdown: Annotated[
        bool,
        typer.Option("--markdown", help="The tables as Markdown, to paste into a README."),
    ] = False,
) -> None:
    """Show a run's numbers and task matrix; with TASK, each trial of it step by step.

    Several runs are pooled by setting: `show runs/val-1 runs/val-2 --totals` gives the totals
    of both tenths, one column per setting. `--totals` shows what a run of held-out tasks may
    show: its totals, no task by name."""
    from hillclimber.report.trajview import trial_view

    run_paths, task = _runs_and_task(targets)
    if totals and task is not None:
        fail("--totals names no task: give TASK or --totals, not both")
    try:
        runs = load_runs(run_paths, pool=True)
    except HillclimberError as err:
        fail(str(err))
    tables = [stats_table(runs), grades_table(runs)]
    if not totals:
        tables += [task_matrix(runs), *([ends_table(runs)] if ends else [])]
    for table in tables:
        if as_markdown:
            console.print(markdown(table) + "\n", markup=False, highlight=False, soft_wrap=True)
        else:
            console.print(table)
    if task is None or totals:
        return
    trials = [(run, trial) for run in runs for trial in run.trials_of(task)]
    if not trials:
        fail(f"no finished trial of task '{task}' in {', '.join(map(str, run_paths))}")
    for run, trial in trials:
        console.print(trial_view(run, trial))


def _runs_and_task(targets: list[str]) -> tuple[list[Path], str | None]:
    """The folders given, and the task after them: the last of two or more that is not a
    folder and no path (`show runs/x word-count`; `runs/val-6` is a folder not there)."""
    task = None
    if len(targets) > 1 and not Path(targets[-1]).is_dir() and "/" not in targets[-1]:
        *targets, task = targets
    return [Path(target) for target in targets], task


@app.command()
def report(
    run_paths: Annotated[
        list[Path], typer.Argument(metavar="RUN", help="Run or comparison folders.")
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Default: RUN/report.html (the first).")
    ] = None,
) -> None:
    """Write one self-contained HTML file of runs, or of a climb.

    Numbers, plots and every trial's trajectory; of a climb's folder, the path it took."""
    from hillclimber.climb.store import STORE, open_store
    from hillclimber.report.html import write_report  # imports matplotlib: only when asked

    if (run_paths[0] / STORE).is_file():
        from hillclimber.report.climbpath import write_climb_page

        store = open_store(run_paths[0] / STORE, must_exist=True)
        page = write_climb_page(store, output or run_paths[0] / "report.html")
        console.print(f"report: {page}", highlight=False)
        return
    try:
        runs = load_runs(run_paths)
        path = write_report(runs, output or run_paths[0] / "report.html")
    except (HillclimberError, OSError) as err:
        fail(str(err))
    console.print(f"report: {path}", highlight=False)


@app.command()
def export(
    run_path: Annotated[Path, typer.Argument(metavar="RUN", help="A run or comparison folder.")],
    to: Annotated[str, typer.Option("--to", help="The format: harbor (a Harbor job folder).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The folder to write.")],
) -> None:
    """Write a run in another tool's format: `--to harbor` makes a Harbor job folder."""
    from hillclimber.harbor.export import export_harbor

    if to != "harbor":
        fail(f"--to {to}: the formats are: harbor")
    try:
        exported = export_harbor(run_path, output)
    except (HillclimberError, OSError) as err:
        fail(str(err))
    console.print(f"harbor job: {exported.job_dir} ({exported.trials} trials)", highlight=False)
