"""What the harness benchmarks share: a task set up as a trial would be (its environment built
in a real sandbox, its real verifier), then the harness agent run on it with a given model.

Not a benchmark itself; `context.py` and `overhead.py` import it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hillclimber.agents.base import AgentOutcome
from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.errors import SetupError, TaskLoadError, Unsupported
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.prompting.templates import shipped
from hillclimber.harness.recording.events import Listener
from hillclimber.image import find_engine, image_sandbox, needs_image
from hillclimber.loaders import Dataset, load_suite, select_tasks
from hillclimber.models import Completion, CompletionRequest, ModelProfile, ScriptedModel
from hillclimber.sandbox import (
    APP,
    HOST_KINDS,
    Sandbox,
    SandboxKind,
    create_sandbox,
    pick_sandbox_kind,
    trial_layout,
)
from hillclimber.setup.build import build_workspace
from hillclimber.setup.plan import plan_environment
from hillclimber.task import Task
from hillclimber.verify.verifier import Evaluation, verifier_needs, verify


def call(name: str, **arguments: Any) -> str:
    """A tool call as the model should write it."""
    return json.dumps({"name": name, "arguments": arguments})


class PlanningScript:
    """Two scripted models behind one: supervisor (planner) requests get `plans`, worker
    requests get `answers`, in order; the one request for acceptance checks gets none. Every
    request is kept in `requests`."""

    def __init__(self, plans: list[str], answers: list[str], profile: ModelProfile) -> None:
        self.profile = profile
        self.supervisor = ScriptedModel(plans, profile)
        self.worker = ScriptedModel(answers, profile)
        self.requests: list[CompletionRequest] = []

    def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        system = request.messages[0].content if request.messages else ""
        if system == shipped()("checks.system"):  # asked once for acceptance checks: none
            return ScriptedModel(['{"checks": []}'], self.profile).complete(request)
        planning = system == shipped()("plan.system")
        return (self.supervisor if planning else self.worker).complete(request)


def run_parser(doc: str | None) -> argparse.ArgumentParser:
    """The arguments of a benchmark that reads a finished run again."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--run", type=Path, required=True, help="a finished run's folder")
    parser.add_argument("--dataset", help="where its tasks are (default: the run's source)")
    parser.add_argument("--tasks", help="task ids or globs, comma-separated (default: all)")
    parser.add_argument("--sandbox", type=SandboxKind, choices=HOST_KINDS)
    return parser


def run_tasks(args: argparse.Namespace) -> tuple[SandboxKind, dict[str, Task]]:
    """The sandbox kind and the run's tasks by id, as `run_parser`'s arguments say."""
    kind = args.sandbox or pick_sandbox_kind()[0]
    _, tasks = load_tasks("mini", args.dataset or run_source(args.run), args.tasks)
    return kind, {task.id: task for task in tasks}


def run_source(run: Path) -> str:
    """The suite or dataset a finished run's tasks came from, as its config says (read as
    JSON: a run made by an older harness may hold settings since removed)."""
    config = next(run.glob("**/config.json"), None)
    source = json.loads(config.read_text()).get("source") if config else None
    if not isinstance(source, str):
        raise SystemExit(
            f"{run}: no config.json with a source; say where the tasks are with --dataset"
        )
    return source


def load_tasks(suite: str, dataset: str | None, tasks: str | None) -> tuple[Dataset, list[Task]]:
    """The dataset (a built-in suite by name, or a path) and the tasks picked from it."""
    loaded = load_suite(dataset or suite)
    picked = select_tasks(loaded.tasks, [tasks] if tasks else None, None)
    return loaded, picked


@dataclass
class Prepared:
    """A task laid into a fresh sandbox, as a trial would lay it, or as near as this machine
    allows."""

    sandbox: Sandbox
    workdir: str
    verify: Callable[[], Evaluation] | None
    notes: list[str] = field(default_factory=list)
    """What could not be done as the task says (set up, verified), and why."""


def prepare(
    task: Task, root: Path, kind: SandboxKind, held: contextlib.ExitStack | None = None
) -> Prepared:
    """Set `task` up under `root`, in its image where it needs one and `held` can keep the
    image's layer until the caller is done (as the runner does; podman must work here). A
    task whose environment cannot be built here is measured on its instruction with an empty
    workspace; one whose tests cannot run here, without a verifier. Both say so in `notes`: a
    benchmark never stops at a task it cannot run."""
    if held is not None and needs_image(task) and not isinstance(find_engine(), str):
        return _prepare_image(task, root, held)
    made = create_sandbox(kind, trial_layout(root, network=task.environment.network))
    if held is not None:  # its session (what the trial leaves running) ends with the caller's
        held.enter_context(made)
    sandbox: Sandbox = made
    workdir, notes = APP, []
    try:
        report = build_workspace(plan_environment(task), sandbox, task.limits.setup_timeout_sec)
        sandbox, workdir = sandbox.with_layout(sandbox.layout.with_env(report.env)), report.workdir
    except (Unsupported, SetupError, TaskLoadError) as err:
        shutil.rmtree(root / "workspace", ignore_errors=True)
        (root / "workspace").mkdir()
        notes.append(f"set up here: no, an empty workspace instead ({one_line(err)})")
    return _with_verifier(task, root, sandbox, workdir, notes)


def _prepare_image(task: Task, root: Path, held: contextlib.ExitStack) -> Prepared:
    try:
        sandbox, image = held.enter_context(image_sandbox(task, root))
    except (Unsupported, SetupError, TaskLoadError) as err:
        (root / "workspace").mkdir(parents=True, exist_ok=True)
        empty = create_sandbox(SandboxKind.BWRAP, trial_layout(root))
        note = f"set up here: no, an empty workspace instead ({one_line(err)})"
        return Prepared(empty, APP, None, [note])
    return _with_verifier(task, root, sandbox, image.config.workdir, [], in_image=True)


def _with_verifier(
    task: Task, root: Path, sandbox: Sandbox, workdir: str, notes: list[str], in_image: bool = False
) -> Prepared:
    needs = verifier_needs(task, in_image=in_image) if task.has_verifier else ["no tests"]
    if needs:
        notes.append(f"tests run here: no, none in the loop ({'; '.join(needs)})")
        return Prepared(sandbox, workdir, None, notes)

    def check() -> Evaluation:
        return verify(task, sandbox, root / "checks", cwd=workdir)

    return Prepared(sandbox, workdir, check, notes)


def one_line(err: Exception) -> str:
    text = " ".join(str(err).split())
    return text if len(text) <= 160 else text[:159] + "…"


def run_harness(
    task: Task,
    dataset: Dataset,
    config: HarnessConfig,
    model: PlanningScript,
    root: Path,
    kind: SandboxKind,
    *listeners: Listener,
) -> tuple[AgentOutcome, list[str]]:
    """Set the task up in a fresh sandbox under `root` and run the harness agent on it; and
    the notes on what could not be set up or verified here."""
    prepared = prepare(task, root, kind)
    log_dir = root / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    ctx = AgentContext(
        task,
        prepared.sandbox,
        time.monotonic() + task.limits.agent_timeout_sec,
        log_dir,
        prepared.workdir,
        verify=prepared.verify,
        suite_hints=dataset.hints,
        suite_source=dataset.name,
        trial_name=task.id,
    )
    return HarnessAgent(model, config, *listeners).run(ctx), prepared.notes
