"""Options the commands share, and what they turn into: the tasks chosen, the sandbox, the
harness setting, the run's configuration."""

from __future__ import annotations

import secrets
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from hillclimber import __version__
from hillclimber.agents import AGENTS, PEERS
from hillclimber.cli.app import err_console, fail
from hillclimber.compare import Setting, load_setting
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import load_harness
from hillclimber.image import find_engine
from hillclimber.loaders import Dataset, load_dataset, load_suite, select_tasks, shard_of
from hillclimber.models import ModelConfig
from hillclimber.provenance import source_commit
from hillclimber.results import RunConfig
from hillclimber.sandbox import SandboxKind, pick_sandbox_kind
from hillclimber.sandbox.limits import enforcement
from hillclimber.task import Task


class SandboxChoice(StrEnum):
    AUTO = "auto"
    BWRAP = "bwrap"
    NAMESPACE = "namespace"
    LOCAL = "local"
    CONTAINER = "container"


SuiteOpt = Annotated[
    str | None, typer.Option("--suite", help="A built-in suite name (mini) or a suite path.")
]
DatasetOpt = Annotated[
    Path | None,
    typer.Option("--dataset", help="A folder of task folders, one task folder, or a manifest."),
]
TasksOpt = Annotated[
    str | None,
    typer.Option("--tasks", "-t", help="Task ids or globs, or tag:TAG, comma-separated."),
]
ExcludeOpt = Annotated[
    str | None, typer.Option("--exclude", "-x", help="Task ids, globs or tag:TAG to leave out.")
]
ShardOpt = Annotated[
    str | None,
    typer.Option(
        "--shard",
        help="I/N: only the Ith of N shards of the tasks chosen (every Nth, in id order).",
    ),
]
ModelOpt = Annotated[
    str, typer.Option("--model", "-m", help="local, local:NAME, ollama:NAME, openai:NAME, fm, ...")
]
PresetOpt = Annotated[
    str,
    typer.Option(
        "--preset", help="Harness setting: a preset (naive, fm, climber, full) or a .toml file."
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Change a harness setting: KEY=VALUE, KEY dotted (completion.max_verify_retries) "
        "or a setting's own name; lists comma-separated; none for no value.",
    ),
]
MaxTurnsOpt = Annotated[
    int | None, typer.Option(help="The turn budget (same as --set max_turns=N).")
]
BaseUrlOpt = Annotated[str | None, typer.Option(help="Endpoint for openai:/llamacpp:/ollama:/fm.")]
WindowOpt = Annotated[
    int | None, typer.Option(help="The model's window in tokens (prompt and answer).")
]
LookupOpt = Annotated[
    bool | None,
    typer.Option(
        help="The embedded model's lookup decoding (drafts from the prompt); not given: the "
        "model's own default."
    ),
]
SandboxOpt = Annotated[SandboxChoice, typer.Option(help="Where commands run.")]
UnsafeOpt = Annotated[
    bool,
    typer.Option(
        "--unsafe",
        help="Let the local sandbox (no isolation) run a model's commands on this machine.",
    ),
]
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
RunIdOpt = Annotated[str | None, typer.Option(help="Name of the run; re-use one to resume it.")]
RunsDirOpt = Annotated[Path, typer.Option(help="Where run folders go.")]
RedoOpt = Annotated[bool, typer.Option(help="Run finished trials again too.")]
TimeScaleOpt = Annotated[
    float,
    typer.Option(
        "--agent-timeout-multiplier",
        min=0.01,
        help="Scale every task's agent time (a slow or shared machine; recorded with the run).",
    ),
]
MemoryOpt = Annotated[
    Path | None,
    typer.Option(
        help="A climb's folder: each task it solved runs with the setting that solved it "
        "(a suite of your own, run again; no measure of unseen tasks)."
    ),
]
DropImagesOpt = Annotated[
    bool,
    typer.Option(
        help="Remove each task image the run builds once the task's trials are done (a "
        "collection larger than the disk)."
    ),
]
RetryErrorsOpt = Annotated[
    bool,
    typer.Option(help="On resume, run again the trials that ended in error or setup_error."),
]


def split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def load(suite: str | None, dataset: Path | None) -> Dataset:
    if suite and dataset:
        fail("give --suite or --dataset, not both")
    if dataset is not None:
        return load_dataset(dataset)
    return load_suite(suite or "mini")


def report_invalid(data: Dataset) -> list[str]:
    lines = [str(err) for err in data.errors]
    for line in lines:
        err_console.print(f"[red]invalid task:[/] {line}", highlight=False, soft_wrap=True)
    return lines


def select(
    suite: str | None,
    dataset: Path | None,
    tasks: str | None,
    exclude: str | None,
    shard: str | None = None,
) -> tuple[Dataset, list[str], list[Task]]:
    """The dataset, its invalid tasks (reported), and the tasks chosen from it: at least one
    (a run of no task is an error, not an empty result)."""
    data = load(suite, dataset)
    invalid = report_invalid(data)
    chosen = select_tasks(data.tasks, split(tasks), split(exclude))
    whole = len(chosen)
    if shard is not None:
        chosen = shard_of(chosen, shard)
    if not chosen:
        if whole and shard is not None:
            why = f"--shard {shard} leaves none of the {whole} chosen"
        elif data.tasks:
            why = "--exclude leaves none"
        else:
            why = f"{len(invalid)} could not be read (above)" if invalid else "none found"
        fail(f"{data.name}: no task to run: {why}")
    return data, invalid, chosen


def pick_sandbox(
    choice: SandboxChoice | None, *, model_acts: bool = True, unsafe: bool = False
) -> tuple[SandboxKind, list[str]]:
    """The sandbox to use, with any notes on why a better one was not (printed too). The
    `local` sandbox runs commands on this machine as the user: a model's commands only with
    `--unsafe` (the oracle's and nop's may)."""
    if choice is SandboxChoice.CONTAINER:
        found = find_engine()
        if isinstance(found, str):
            fail(f"--sandbox container: {found}")
        return SandboxKind.CONTAINER, []
    requested = None if choice in (None, SandboxChoice.AUTO) else SandboxKind(choice.value)
    kind, notes = pick_sandbox_kind(requested)
    if kind is SandboxKind.LOCAL and model_acts and not unsafe:
        why = "" if requested else " (no isolating sandbox works here: " + "; ".join(notes) + ")"
        fail(
            f"the local sandbox would run the model's commands on this machine as you{why}; "
            "install bubblewrap, or say --sandbox local --unsafe to allow it"
        )
    for note in notes:
        err_console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    return kind, notes


def images_here(choice: SandboxChoice | None) -> bool:
    """Whether tasks that cannot be laid out without an engine run in their image: by default
    wherever the engine works (`--sandbox container` runs every task in its image)."""
    return choice in (None, SandboxChoice.AUTO) and not isinstance(find_engine(), str)


def where_tasks_run(kind: SandboxKind, images: bool) -> str:
    """The opening line's word on where the tasks run: a task that needs its image runs in it
    when the engine works, whatever the sandbox of the others."""
    if images and kind is not SandboxKind.CONTAINER:
        return f"sandbox {kind.value}, or its image for a task that needs one"
    return f"sandbox {kind.value}"


def harness(spec: str, sets: list[str] | None, max_turns: int | None) -> HarnessConfig:
    """The harness setting a command names, with its overrides: the same on every command."""
    return load_harness(spec, setting_changes(sets, max_turns))


def compared(presets: str, sets: list[str] | None, max_turns: int | None) -> list[Setting]:
    """The settings `compare --presets` names, each with the same overrides (at least one)."""
    changes = setting_changes(sets, max_turns)
    named = [load_setting(item, changes) for item in split(presets) or []]
    if not named:
        fail("--presets: name at least one preset or settings file")
    return named


def uses_model(agent: str) -> bool:
    """Whether `agent` acts with a model: the harness (with a setting too) and the peers; an
    unknown agent is an error."""
    if agent not in AGENTS:
        fail(f"unknown agent '{agent}' (choose from: {', '.join(AGENTS)})")
    return agent == "harness" or agent in PEERS


def setting_changes(sets: list[str] | None, max_turns: int | None) -> list[str]:
    return [*(sets or []), *([f"max_turns={max_turns}"] if max_turns else [])]


def concurrency(n_concurrent: int | None, model: str | None) -> int:
    """The embedded model answers one request at a time: trials run side by side would only
    take turns, and their alternating prompts would defeat llama.cpp's reuse of the previous
    prompt (a naive turn re-read its whole conversation: 25 s instead of 3 s)."""
    if n_concurrent is not None:
        return n_concurrent
    return 1 if model is not None and model.split(":", 1)[0] == "local" else 2


def new_run_id(run_id: str | None, prefix: str = "") -> str:
    return run_id or prefix + datetime.now().strftime("%Y-%m-%d__%H-%M-%S__") + secrets.token_hex(2)


def run_config(
    run_id: str,
    source: str,
    tasks: list[Task],
    *,
    agent: str,
    sandbox: SandboxKind,
    model: ModelConfig | None,
    harness: HarnessConfig | None,
    n_attempts: int = 1,
    n_concurrent: int = 1,
    suite_hints: str | None = None,
    agent_timeout_multiplier: float = 1.0,
    unsafe: bool = False,
    images: bool = False,
    drop_images: bool = False,
) -> RunConfig:
    """The run's configuration: every command makes it here."""
    return RunConfig(
        run_id=run_id,
        source=source,
        task_ids=[t.id for t in tasks],
        agent=agent,
        sandbox=sandbox.value,
        images=images,
        drop_images=drop_images and images,
        n_attempts=n_attempts,
        n_concurrent=n_concurrent,
        agent_timeout_multiplier=agent_timeout_multiplier,
        model=model,
        harness=harness,
        suite_hints=suite_hints,
        unsafe=unsafe and sandbox is SandboxKind.LOCAL,
        limits_enforced=enforcement(),
        hillclimber_version=__version__,
        commit=source_commit(),
    )
