"""`climb`: the harness's settings tuned to a model on train tasks and judged on held-out ones;
`climb show`: the path a climb took."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from hillclimber.cli.app import commands, console, fail
from hillclimber.cli.options import (
    BaseUrlOpt,
    MaxTurnsOpt,
    SandboxChoice,
    SandboxOpt,
    SetOpt,
    UnsafeOpt,
    WindowOpt,
    concurrency,
    harness,
    images_here,
    pick_sandbox,
    run_config,
    setting_changes,
)
from hillclimber.climb.evaluate import Evaluator
from hillclimber.climb.search import SEES_TESTS, parse_budget
from hillclimber.climb.space import load_space
from hillclimber.climb.store import ARGUMENTS, STORE, ClimbStore, open_store, store_file
from hillclimber.climb.tasks import load_tasks, overlap, task_ids
from hillclimber.climb.tune import tune
from hillclimber.climb.tuned import settings_file
from hillclimber.errors import HillclimberError
from hillclimber.models import ModelConfig, make_model
from hillclimber.results import TrialResult
from hillclimber.runner import RunEvents
from hillclimber.trial import TrialSpec

climb_app = commands(
    "climb",
    "Tune the harness's settings to a model on train tasks, and judge the result once on "
    "held-out tasks (docs/climb.md). With --dir alone, resume a climb; `climb show DIR` prints "
    "the path it took.",
    no_args_is_help=False,
)

SpecOpt = Annotated[
    list[str] | None,
    typer.Option(
        help="Tasks: SOURCE[:TASKS] (a suite or a path, then ids or globs), or @FILE; "
        "repeat for more sources."
    ),
]
ClimbModelOpt = Annotated[
    str | None, typer.Option("--model", "-m", help="The model to tune for (default local).")
]
StartOpt = Annotated[str | None, typer.Option(help="The setting to start from (default climber).")]
SpaceOpt = Annotated[
    Path | None, typer.Option(help="The settings and values to try (TOML; default shipped).")
]
RepeatsOpt = Annotated[
    int | None, typer.Option(min=1, help="Runs of the start that measure the noise (default 2).")
]
MinNoiseOpt = Annotated[
    int | None,
    typer.Option(min=0, help="The least noise, in tasks, whatever the repeats show (default 1)."),
]
BudgetOpt = Annotated[
    str | None,
    typer.Option(help="Train trials (200), or their time (3h), the search may spend."),
]
DirOpt = Annotated[
    Path | None, typer.Option("--dir", help="The climb's folder; the same one resumes it.")
]
OutOpt = Annotated[
    Path | None, typer.Option(help="The tuned settings file (default DIR/tuned.toml).")
]
DbArg = Annotated[
    Path, typer.Argument(metavar="DB", help="A climb's store (DIR/climb.db), or DIR.")
]


@climb_app.callback(invoke_without_command=True)
def climb(
    ctx: typer.Context,
    model: ClimbModelOpt = None,
    train: SpecOpt = None,
    held_out: SpecOpt = None,
    start: StartOpt = None,
    sets: SetOpt = None,
    max_turns: MaxTurnsOpt = None,
    space: SpaceOpt = None,
    repeats: RepeatsOpt = None,
    min_noise: MinNoiseOpt = None,
    budget: BudgetOpt = None,
    climb_dir: DirOpt = None,
    out: OutOpt = None,
    base_url: BaseUrlOpt = None,
    context_window: WindowOpt = None,
    sandbox: SandboxOpt = SandboxChoice.AUTO,
    unsafe: UnsafeOpt = False,
) -> None:
    """Search the harness settings for a model on the train tasks, run the starting and the
    tuned setting once on the held-out tasks, and write the tuned setting as a settings file
    with its evidence. Scored by the tasks' tests after the agent stops; the agent's feedback
    stays the setting's own."""
    if ctx.invoked_subcommand is not None:
        return
    folder = climb_dir or Path("climbs") / datetime.now().strftime("%Y-%m-%d__%H-%M-%S")
    if not (folder / STORE).exists() and not (train and held_out):
        fail(NEEDS_TASKS)  # before the store, which would leave an empty folder behind
    store = ClimbStore(folder / STORE)
    given = {"model": model, "train": train, "held_out": held_out, "start": start,
             "sets": setting_changes(sets, max_turns) or None, "space": space and str(space),
             "repeats": repeats, "min_noise": min_noise}  # fmt: skip
    args = _arguments(store, given)
    if budget is not None:
        store.put("budget", budget)  # a resume may give the climb more, or less
    budget = store.get("budget")
    try:
        tuned_path = out or folder / "tuned.toml"
        summary = _climb(store, folder, args, budget, base_url, context_window, sandbox, unsafe)
        tuned_path.parent.mkdir(parents=True, exist_ok=True)
        tuned_path.write_text(summary)
    except KeyboardInterrupt:
        fail(f"interrupted: what was evaluated is kept; resume with --dir {folder}", 130)
    finally:
        store.close()
    console.print("\n".join(line for line in summary.splitlines() if line.startswith("#")),
                  highlight=False, markup=False)  # fmt: skip
    console.print(f"tuned setting: {tuned_path}", highlight=False)


NEEDS_TASKS = "climb: give --train and --held-out (tasks to tune on, and to judge on)"
DEFAULTS: dict[str, Any] = {"model": "local", "start": "climber", "sets": [], "space": None,
                            "repeats": 2, "min_noise": 1}  # fmt: skip
OLD_CLIMB: dict[str, Any] = {"min_noise": 0}
"""Arguments a climb begun before they existed ran without (a resume keeps its rule)."""


def _arguments(store: ClimbStore, given: dict[str, Any]) -> dict[str, Any]:
    """The climb's arguments: a new climb's, or a resumed one's (what is given must match)."""
    stored = store.get(ARGUMENTS)
    if stored is None:
        args = {key: DEFAULTS.get(key) if value is None else value for key, value in given.items()}
        return args  # stored once they all load (`_climb`)
    stored = {**OLD_CLIMB, **stored}
    for key, value in given.items():
        if value is not None and value != stored[key]:
            fail(f"{store.path}: this climb was started with {key} {stored[key]}; resume it "
                 f"with the same (or none), or start another with another --dir")  # fmt: skip
    return stored


def _climb(store: ClimbStore, folder: Path, args: dict[str, Any], budget: str | None,
           base_url: str | None, context_window: int | None, sandbox: SandboxChoice,
           unsafe: bool) -> str:  # fmt: skip
    """The climb run (or resumed) to its end; the tuned settings file's text."""
    try:
        space = load_space(Path(args["space"]) if args["space"] else None)
        train, held = (
            load_tasks(args["train"], "--train"),
            load_tasks(args["held_out"], "--held-out"),
        )
        start = harness(args["start"], args["sets"], None)
        model = ModelConfig(spec=args["model"], base_url=base_url, context_window=context_window)
        make_model(model)
        spending = parse_budget(budget)
    except HillclimberError as err:
        fail(str(err))
    if start.feedback == "tests":
        fail(f"--start {args['start']}: {SEES_TESTS}; climb from feedback self or none")
    if shared := overlap(train, held):
        fail(
            f"--held-out: {', '.join(shared)} also in --train: held-out tasks judge only if unseen"
        )
    kind, _ = pick_sandbox(sandbox, unsafe=unsafe)
    store.put(ARGUMENTS, args)
    tasks = [task for group in train for task in group.tasks]
    base = run_config(folder.name, "climb", tasks, agent="harness", sandbox=kind, model=model,
                      harness=start, n_concurrent=concurrency(None, args["model"]),
                      unsafe=unsafe, images=images_here(sandbox))  # fmt: skip
    evaluator = Evaluator(store, start, base, {"train": train, "held-out": held},
                          folder / "runs", watch=_watch())  # fmt: skip
    console.print(
        f"climb {folder}: {args['model']} from {args['start']}; train {len(task_ids(train))} "
        f"tasks, held-out {len(task_ids(held))}; {len(space)} settings to try; budget "
        f"{spending.describe()}",
        highlight=False,
    )
    summary = tune(space, evaluator, start_name=args["start"], repeats=args["repeats"],
                   min_noise=args["min_noise"], budget=spending)  # fmt: skip
    return settings_file(summary, start.with_settings(summary.changes), args["model"])


def _watch() -> RunEvents:
    def ended(spec: TrialSpec, result: TrialResult) -> None:
        mark = "[green]✓[/]" if result.passed else "[red]✗[/]"
        console.print(f"  {mark} {spec.run_dir.parent.parent.name}/{spec.run_dir.parent.name} "
                      f"{result.task_id}: {result.exit_reason.value}", highlight=False)  # fmt: skip

    return RunEvents(on_end=ended)


@climb_app.command("show")
def show(
    db: DbArg,
    html: Annotated[Path | None, typer.Option(help="Also write the path as an HTML page.")] = None,
) -> None:
    """Print the path a climb took.

    The noise, each setting tried and kept, the held-out scores."""
    from hillclimber.report.climbpath import evaluations_table, path_table, write_climb_page

    try:
        store = open_store(store_file(db), must_exist=True)
    except HillclimberError as err:
        fail(str(err))
    console.print(path_table(store))
    console.print(evaluations_table(store))
    if html is not None:
        console.print(f"page: {write_climb_page(store, html)}", highlight=False)
    store.close()
