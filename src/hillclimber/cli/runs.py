"""The commands that run trials: `bench` (a suite or dataset with one setting), `compare`
(several settings side by side) and `run` (one instruction of the user's own)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from hillclimber.agents import AGENTS, PEERS
from hillclimber.cli.app import app, console, err_console, fail
from hillclimber.cli.options import (
    AttemptsOpt,
    BaseUrlOpt,
    ConcurrentOpt,
    DatasetOpt,
    DropImagesOpt,
    ExcludeOpt,
    LookupOpt,
    MaxTurnsOpt,
    MemoryOpt,
    ModelOpt,
    PresetOpt,
    RedoOpt,
    RetryErrorsOpt,
    RunIdOpt,
    RunsDirOpt,
    SandboxChoice,
    SandboxOpt,
    SetOpt,
    ShardOpt,
    SuiteOpt,
    TasksOpt,
    TimeScaleOpt,
    UnsafeOpt,
    WindowOpt,
    compared,
    concurrency,
    harness,
    images_here,
    new_run_id,
    pick_sandbox,
    run_config,
    select,
    uses_model,
    where_tasks_run,
)
from hillclimber.compare import plan as plan_comparison
from hillclimber.compare import served
from hillclimber.errors import HillclimberError
from hillclimber.models import ModelConfig, make_model, window_of
from hillclimber.paths import home
from hillclimber.report.progress import LiveProgress
from hillclimber.report.rundata import load_runs
from hillclimber.report.tables import grades_table, stats_table, task_matrix
from hillclimber.results import RunConfig, RunResult, read_trial
from hillclimber.runner import Run
from hillclimber.sandbox import APP
from hillclimber.task import Environment, Task, TaskFormat


def _print_summary(summary: RunResult, run_dir: Path) -> None:
    totals = summary.totals
    pass_at = ", ".join(f"pass@{k} {v:.2f}" for k, v in totals.pass_at_k.items())
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(totals.by_reason.items()))
    console.print(
        f"[bold]{totals.passed}/{totals.finished} passed[/] ({totals.pass_rate:.0%}); "
        f"{pass_at}; {reasons}",
        highlight=False,
    )
    loaded = load_runs([run_dir])
    if any(trial.grade is not None for run in loaded for trial in run.trials):
        console.print(grades_table(loaded))
    console.print(f"results: {run_dir / 'result.json'}", highlight=False)


def _execute(run: Run, total: int, resume_id: str | None = None) -> RunResult:
    progress = LiveProgress(console, total=total)
    try:
        with progress:
            return run.execute(progress.events())
    except KeyboardInterrupt:
        err_console.print(
            f"[yellow]interrupted[/]: finished trials are kept; "
            f"resume with --run-id {resume_id or run.config.run_id}"
        )
        raise typer.Exit(130) from None


def _print_comparison(run_dir: Path) -> None:
    loaded = load_runs([run_dir])
    console.print(stats_table(loaded))
    console.print(grades_table(loaded))
    console.print(task_matrix(loaded))
    console.print(f"results: {run_dir}", highlight=False)


def _model(
    spec: str, base_url: str | None, context_window: int | None, lookup: bool | None = None
) -> ModelConfig:
    config = ModelConfig(spec=spec, base_url=base_url, context_window=context_window, lookup=lookup)
    make_model(config)  # fail now, with one clear line, if the model is missing
    return config


@app.command()
def bench(
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
    tasks: TasksOpt = None,
    exclude: ExcludeOpt = None,
    shard: ShardOpt = None,
    agent: Annotated[str, typer.Option(help=f"Who acts: {', '.join(AGENTS)}.")] = "harness",
    model: ModelOpt = "local",
    preset_name: PresetOpt = "climber",
    sets: SetOpt = None,
    max_turns: MaxTurnsOpt = None,
    base_url: BaseUrlOpt = None,
    context_window: WindowOpt = None,
    lookup: LookupOpt = None,
    sandbox: SandboxOpt = SandboxChoice.AUTO,
    unsafe: UnsafeOpt = False,
    n_attempts: AttemptsOpt = 1,
    n_concurrent: ConcurrentOpt = None,
    run_id: RunIdOpt = None,
    runs_dir: RunsDirOpt = Path("runs"),
    redo: RedoOpt = False,
    retry_errors: RetryErrorsOpt = False,
    drop_images: DropImagesOpt = False,
    agent_timeout_multiplier: TimeScaleOpt = 1.0,
    memory: MemoryOpt = None,
) -> None:
    """Run tasks of a suite or dataset and verify each with its own tests."""
    model_acts = uses_model(agent)
    data, invalid, chosen = select(suite, dataset, tasks, exclude, shard)
    setting = harness(preset_name, sets, max_turns) if agent == "harness" else None
    kind, notes = pick_sandbox(sandbox, model_acts=model_acts, unsafe=unsafe)
    model_config = _model(model, base_url, context_window, lookup) if model_acts else None
    run_id = new_run_id(run_id)
    config = run_config(
        run_id,
        str(dataset) if dataset else (suite or "mini"),
        chosen,
        agent=agent,
        sandbox=kind,
        model=model_config,
        harness=setting,
        n_attempts=n_attempts,
        n_concurrent=concurrency(n_concurrent, model if model_acts else None),
        suite_hints=data.hints,
        agent_timeout_multiplier=agent_timeout_multiplier,
        unsafe=unsafe,
        images=images_here(sandbox),
        drop_images=drop_images,
    )
    if memory is not None:
        config, notes = _remembered(config, chosen, memory, notes)
    run = Run(config, chosen, runs_dir / run_id, redo=redo, retry_errors=retry_errors,
              invalid_tasks=invalid, notes=notes)  # fmt: skip
    who = f"agent {agent}"
    if model_config is not None:
        who = f"{model} (window {window_of(model_config):,})"
        who += f" with setting {setting.preset}" if setting else f" by {agent}"
    _say(f"run [bold]{run_id}[/]: {len(chosen)} tasks × {n_attempts} attempts, {who}, "
         f"{where_tasks_run(kind, config.images)}, {config.n_concurrent} at a time "
         f"→ {run.run_dir}")  # fmt: skip
    with served(run) as job:  # a peer on the embedded model reaches it over HTTP
        summary = _execute(job, len(chosen) * n_attempts)
    _print_summary(summary, run.run_dir)
    if invalid:
        raise typer.Exit(2)


def _say(line: str) -> None:
    """What a run is about to do, in one line."""
    console.print(line, highlight=False)


def _remembered(
    config: RunConfig, tasks: list[Task], memory: Path, notes: list[str]
) -> tuple[RunConfig, list[str]]:
    """The run with the climb's remembered setting for each task it solved, and a note that
    says so."""
    from hillclimber.climb.memory import task_settings

    if config.agent != "harness" or config.model is None:
        fail("--memory: only the harness's runs have settings to remember")
    try:
        settings = task_settings(memory, config.model.spec)
    except HillclimberError as err:
        fail(str(err))
    chosen = {task.id: settings[task.id] for task in tasks if task.id in settings}
    note = (
        f"per-task memory from {memory}: {len(chosen)} of {len(tasks)} tasks ran with the "
        "setting that solved them there; no measure of unseen tasks"
    )
    console.print(f"[yellow]note:[/] {note}", highlight=False)
    return config.model_copy(update={"task_harness": chosen}), [*notes, note]


PRESETS_HELP = (
    "Settings to compare, comma-separated: presets, .toml files, or another tool's agent "
    f"({', '.join(PEERS)})."
)


@app.command()
def compare(
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
    tasks: TasksOpt = None,
    exclude: ExcludeOpt = None,
    shard: ShardOpt = None,
    model: ModelOpt = "local",
    presets: Annotated[str, typer.Option(help=PRESETS_HELP)] = "naive,fm,climber,full",
    sets: SetOpt = None,
    max_turns: MaxTurnsOpt = None,
    base_url: BaseUrlOpt = None,
    context_window: WindowOpt = None,
    lookup: LookupOpt = None,
    sandbox: SandboxOpt = SandboxChoice.AUTO,
    unsafe: UnsafeOpt = False,
    n_attempts: AttemptsOpt = 1,
    n_concurrent: ConcurrentOpt = None,
    run_id: RunIdOpt = None,
    runs_dir: RunsDirOpt = Path("runs"),
    redo: RedoOpt = False,
    retry_errors: RetryErrorsOpt = False,
    drop_images: DropImagesOpt = False,
    agent_timeout_multiplier: TimeScaleOpt = 1.0,
) -> None:
    """Run several harness settings on the same tasks, model and seeds, side by side.

    `--set` changes every one of them."""
    data, invalid, chosen = select(suite, dataset, tasks, exclude, shard)
    settings = compared(presets, sets, max_turns)
    kind, notes = pick_sandbox(sandbox, unsafe=unsafe)
    run_id = new_run_id(run_id)
    model_config = _model(model, base_url, context_window, lookup)
    base = run_config(
        run_id,
        str(dataset) if dataset else (suite or "mini"),
        chosen,
        agent="harness",
        sandbox=kind,
        model=model_config,
        harness=None,
        n_attempts=n_attempts,
        n_concurrent=concurrency(n_concurrent, model),
        suite_hints=data.hints,
        agent_timeout_multiplier=agent_timeout_multiplier,
        unsafe=unsafe,
        images=images_here(sandbox),
        drop_images=drop_images,
    )
    run_dir = runs_dir / run_id
    _, runs = plan_comparison(base, settings, chosen, run_dir, redo=redo, notes=notes,
                              retry_errors=retry_errors, invalid_tasks=invalid)  # fmt: skip
    labels = ", ".join(setting.label for setting in settings)
    _say(f"comparison [bold]{run_id}[/]: {labels} on {len(chosen)} tasks × {n_attempts} "
         f"attempts, {model} (window {window_of(model_config):,}), "
         f"{where_tasks_run(kind, base.images)} → {run_dir}")  # fmt: skip
    for setting, planned in zip(settings, runs, strict=True):
        console.print(f"[bold]{setting.label}[/]", highlight=False)
        with served(planned) as job:
            _execute(job, len(chosen) * n_attempts, resume_id=run_id)
    _print_comparison(run_dir)
    if invalid:
        raise typer.Exit(2)


@app.command()
def run(
    instruction: Annotated[
        str, typer.Argument(metavar="INSTRUCTION", help="What to do, in words.")
    ],
    workdir: Annotated[
        Path | None,
        typer.Option(help="The folder to work on, seen at /app (default: the current one)."),
    ] = None,
    model: ModelOpt = "local",
    preset_name: PresetOpt = "climber",
    sets: SetOpt = None,
    max_turns: MaxTurnsOpt = None,
    base_url: BaseUrlOpt = None,
    context_window: WindowOpt = None,
    lookup: LookupOpt = None,
    runs_dir: Annotated[
        Path | None,
        typer.Option(help="Where the run's record goes (default: hillclimber's home, not here)."),
    ] = None,
    network: Annotated[bool, typer.Option(help="Let commands use the network.")] = False,
    unsafe: UnsafeOpt = False,
) -> None:
    """Do one instruction in a folder, checked by the harness itself.

    The folder is the current one by default, seen at /app; the rest of the machine stays out
    of reach. With no tests of its own, the harness checks its work with acceptance checks it
    makes from the instruction, and ends `verified_self` when every one passes, else
    `unverified`."""
    folder = (workdir or Path.cwd()).resolve()
    if not folder.is_dir():
        fail(f"--workdir {folder}: not a folder")
    setting = harness(preset_name, sets, max_turns)
    if setting.tries.n > 1:
        fail("tries.n: `run` works in your folder, and tries need a fresh workspace each")
    kind, _ = pick_sandbox(None, unsafe=unsafe)
    task = Task(
        id="run",
        instruction=instruction,
        format=TaskFormat.INLINE,
        environment=Environment(network=network),
    )
    run_id = new_run_id(None, prefix="run__")
    config = run_config(
        run_id,
        "run",
        [task],
        agent="harness",
        sandbox=kind,
        model=_model(model, base_url, context_window, lookup),
        harness=setting,
        unsafe=unsafe,
    ).model_copy(update={"workspace": str(folder)})
    job = Run(config, [task], (runs_dir or home() / "runs") / run_id)
    _execute(job, 1)
    _print_run(job.run_dir / "run.1", folder)


def _print_run(trial: Path, folder: Path) -> None:
    """The checks the harness made, how each ends, and where the record is."""
    result = read_trial(trial / "result.json")
    if result is None:
        return
    info = result.agent_info
    checks = info.get("checks") or []
    console.print(f"acceptance checks made: {len(checks)}", highlight=False)
    failing = result.evaluation.failing if result.evaluation else []
    for check in checks:
        mark = "✗" if check["name"] in failing else "✓"
        kind = "" if check["goal"] else " (leave as is)"
        named = in_folder(check["name"], folder)
        console.print(f"  {mark} {named}{kind}", highlight=False, markup=False, soft_wrap=True)
    # paths whole on one line (the terminal wraps them, not rich): a user copies them
    console.print(f"worked on: {folder}", highlight=False, soft_wrap=True)
    trajectory = trial / "logs" / "agent" / "trajectory.json"
    console.print(f"trajectory: {trajectory}", highlight=False, soft_wrap=True)
    grade = f"; grade {result.grade.value}" if result.grade is not None else ""
    console.print(  # last: what the harness's own evidence says of the work
        f"[bold]{result.exit_reason.value}[/] after {info.get('turns', '?')} turns "
        f"({escape(in_folder(result.message, folder))}); feedback {result.feedback}{grade}",
        highlight=False,
        soft_wrap=True,
    )


def in_folder(text: str, folder: Path) -> str:
    """`text` with the sandbox's `/app` said as the user's folder it stands for."""
    return re.sub(rf"(?<![\w/.-]){APP}(?=/|\b|$)", str(folder), text)
