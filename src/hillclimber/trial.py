"""One trial (a task, an attempt): its workspace set up in a sandbox, the agent run, the task's
tests run after it, the result written to the trial's folder.

`run_trial` is a plain function of a `TrialSpec` that leaves everything in the trial's folder,
so trials can run in threads here or in other processes later (`runner.py` runs a whole set).
"""

from __future__ import annotations

import contextlib
import shutil
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hillclimber import process
from hillclimber.agents import Agent, AgentMaker, agent_maker
from hillclimber.context import AgentContext
from hillclimber.errors import (
    AgentTimeout,
    HillclimberError,
    SetupError,
    TaskLoadError,
    Unsupported,
    VerifierError,
)
from hillclimber.grades import grade
from hillclimber.harness.config import Feedback, HarnessConfig
from hillclimber.image import image_needs, image_sandbox
from hillclimber.image.build import ImageRecord
from hillclimber.models import ModelConfig
from hillclimber.paths import write_json
from hillclimber.provenance import source_commit
from hillclimber.results import (
    ExitReason,
    TrialResult,
    now,
)
from hillclimber.sandbox import Sandbox, SandboxKind, create_sandbox, trial_layout
from hillclimber.sandbox.container import undo_mounts
from hillclimber.sandbox.limits import ResourceLimits
from hillclimber.setup.build import build_workspace
from hillclimber.setup.plan import plan_environment
from hillclimber.task import Task
from hillclimber.tries.run import TRIES, Started, Tried, adopt, run_tries
from hillclimber.verify.verifier import Evaluation, verifier_needs, verify


@dataclass(frozen=True)
class TrialSpec:
    task: Task
    attempt: int
    run_dir: Path
    agent: str
    sandbox: SandboxKind
    agent_timeout_multiplier: float = 1.0
    model: ModelConfig | None = None
    harness: HarnessConfig | None = None
    suite_hints: str | None = None
    suite_source: str | None = None
    workspace: Path | None = None
    """A host folder to work in instead of a fresh one (`hillclimber run` in the user's
    folder)."""
    hidden: tuple[str, ...] = ()
    """Sandbox paths the agent must not see (the run's own record inside `workspace`)."""
    limits: ResourceLimits = field(default_factory=ResourceLimits)

    @property
    def name(self) -> str:
        return f"{self.task.id}.{self.attempt}"

    @property
    def trial_dir(self) -> Path:
        return self.run_dir / self.name


class Interrupted(HillclimberError):
    """The run is stopping; this trial leaves no result and runs again on resume."""


def run_trial(spec: TrialSpec) -> TrialResult:
    """Set up, run the agent, verify; write `result.json`. Never raises for a task's fault."""
    trial_dir = spec.trial_dir
    undo_mounts(trial_dir.resolve())  # what a killed run left mounted in it, before it goes
    shutil.rmtree(trial_dir, ignore_errors=True)
    result = TrialResult(
        trial=spec.name,
        task_id=spec.task.id,
        attempt=spec.attempt,
        agent=spec.agent,
        sandbox=spec.sandbox.value,
        sandbox_isolated=spec.sandbox is not SandboxKind.LOCAL,
        exit_reason=ExitReason.ERROR,
        passed=False,
        started_at=now(),
        commit=source_commit(),
    )
    phases = _Phases()
    try:
        with contextlib.ExitStack() as held:
            _run_phases(spec, held, result, phases)
        if result.tries is not None:
            adopt(trial_dir, result.tries)
    except Interrupted:
        raise
    except Unsupported as err:
        result.exit_reason = ExitReason.UNSUPPORTED
        result.message = f"unsupported here: {err}"
    except (SetupError, TaskLoadError) as err:  # the task's own fault, found while setting up
        result.exit_reason = ExitReason.SETUP_ERROR
        result.message = str(err)
    except VerifierError as err:
        result.exit_reason = ExitReason.ERROR
        result.message = f"verifier: {err}"
    except Exception as err:  # a bug or a machine problem: keep it, and keep the other trials
        if process.stopping():
            raise Interrupted("stopping") from err
        result.exit_reason = ExitReason.ERROR
        result.message = f"{type(err).__name__}: {err}"
        trial_dir.mkdir(parents=True, exist_ok=True)  # it may have failed before its folder
        (trial_dir / "error.txt").write_text(traceback.format_exc())
    result.timings = phases.total()
    result.finished_at = now()
    _tidy(trial_dir)
    write_json(trial_dir / "result.json", result)
    return result


class _Phases:
    """Seconds per phase (each try's added up); the end of each phase is also where a stopping
    run leaves the trial."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.monotonic()
        self._phase_start = self._start

    def done(self, name: str) -> None:
        seconds = time.monotonic() - self._phase_start  # tries add up their phases
        self.timings[name] = round(self.timings.get(name, 0.0) + seconds, 3)
        self._phase_start = time.monotonic()
        if process.stopping():  # a stopping run leaves the trial between its phases
            raise Interrupted("stopping")

    def total(self) -> dict[str, float]:
        self.timings["total"] = round(time.monotonic() - self._start, 3)
        return self.timings


def _run_phases(
    spec: TrialSpec, held: contextlib.ExitStack, result: TrialResult, phases: _Phases
) -> None:
    """Fill `result` phase by phase; failures are raised for `run_trial` to map to an exit.
    What the trial holds while it runs (its images' layers) is let go by `held`."""
    task = spec.task
    make, samples = agent_maker(spec.agent, spec.model, spec.harness)
    n = spec.harness.tries.n if spec.agent == "harness" and spec.harness else 1
    if n == 1:
        tried = _try(spec, held, spec.trial_dir, make(spec.harness), phases)
    else:
        tried = _tries(spec, held, make, phases, samples=samples, result=result)
    result.agent_info, result.feedback = tried.info, tried.feedback
    result.message, result.image = tried.message, tried.image
    tries = result.tries
    agreed, disputed = (tries.agreed, tries.disputed) if tries else (False, False)
    result.grade = grade(tried.evidence, agreed=agreed, disputed=disputed)
    result.checked = tried.evidence if tried.checks is not None else None
    sandbox, workdir = tried.sandbox, tried.workdir
    if task.has_verifier:
        evaluation = verify(task, sandbox, spec.trial_dir, cwd=workdir)
        phases.done("verifier")
        _record_evaluation(result, evaluation, tried)
    elif tried.checks is not None:  # `hillclimber run`: the harness's own checks, run afresh
        evaluation = tried.evidence or tried.checks()
        phases.done("verifier")
        result.evaluation = evaluation
        # a pass of form or weak checks only cannot vouch for the values
        conclusive = evaluation.passed and evaluation.conclusive
        result.exit_reason = ExitReason.VERIFIED_SELF if conclusive else ExitReason.UNVERIFIED
        said = ""
        if evaluation.passed and not conclusive:
            said = f" ({evaluation.strength} checks only: they cannot tell the values are right)"
        result.message = result.message or evaluation.summary() + said
    else:
        result.exit_reason = ExitReason.UNVERIFIED
        ended = tried.ended.exit or "the agent stopped"
        result.message = result.message or f"no tests and no checks to check it ({ended})"


def _try(
    spec: TrialSpec,
    held: contextlib.ExitStack,
    folder: Path,
    agent: Agent,
    phases: _Phases,
    started: Started | None = None,
    fresh: _Fresh | None = None,
) -> Tried:
    """Set up a fresh workspace under `folder` (from the start the tries share, where there
    is one) and run `agent` in it."""
    image = None
    if spec.sandbox is SandboxKind.CONTAINER:  # a fresh layer of the same image each try
        sandbox, workdir, image = _set_up_image(spec, held, folder)
    elif fresh is not None and fresh.ready:
        sandbox, workdir = fresh.copy_to(spec, held, folder)
    else:
        sandbox, workdir = _set_up(spec, held, folder)
        if fresh is not None:
            fresh.keep(folder, sandbox, workdir)
    if started is not None:
        started(sandbox, workdir)
    phases.done("setup")
    tried = _run_agent(spec, agent, sandbox, workdir, folder)
    tried.image = image
    phases.done("agent")
    return tried


def _tries(
    spec: TrialSpec,
    held: contextlib.ExitStack,
    make: AgentMaker,
    phases: _Phases,
    *,
    samples: bool,
    result: TrialResult,
) -> Tried:
    """Several tries of the task, each from a fresh start in `tries/<n>` of the trial; the
    kept one's workspace and trajectory become the trial's (`tries/run.py`)."""
    assert spec.harness is not None
    harness = spec.harness
    if spec.workspace is not None:
        raise Unsupported(["tries need a fresh workspace each, and this trial works in a folder"])

    fresh = _Fresh(spec.trial_dir / TRIES / "start")

    def one(index: int, folder: Path, started: Started) -> Tried:
        return _try(spec, held, folder, make(harness.for_try(index)), phases, started, fresh)

    tried, record = run_tries(
        one, harness, spec.trial_dir, instruction=spec.task.instruction, samples=samples
    )
    result.tries = record
    return tried


@dataclass
class _Fresh:
    """The start the tries of a trial share in a host-folder sandbox: set up once, and its
    folders copied for each try, so every try starts from the same state (a setup step that
    draws at random draws once) and the setup's cost is paid once."""

    folder: Path
    env: Mapping[str, str] | None = None
    workdir: str = ""
    FOLDERS = ("workspace", "tmp", "home")

    @property
    def ready(self) -> bool:
        return self.env is not None

    def keep(self, folder: Path, sandbox: Sandbox, workdir: str) -> None:
        """Copy the folders of a try just set up, before its agent runs."""
        for name in self.FOLDERS:
            shutil.copytree(folder / name, self.folder / name, symlinks=True)
        self.env, self.workdir = dict(sandbox.layout.env), workdir

    def copy_to(
        self, spec: TrialSpec, held: contextlib.ExitStack, folder: Path
    ) -> tuple[Sandbox, str]:
        assert self.env is not None
        for name in self.FOLDERS:
            shutil.rmtree(folder / name, ignore_errors=True)
            shutil.copytree(self.folder / name, folder / name, symlinks=True)
        layout = trial_layout(folder, network=spec.task.environment.network, limits=spec.limits)
        sandbox = held.enter_context(create_sandbox(spec.sandbox, layout.with_env(self.env)))
        return sandbox, self.workdir


def _set_up(spec: TrialSpec, held: contextlib.ExitStack, folder: Path) -> tuple[Sandbox, str]:
    """The Dockerfile followed without an engine in a fresh workspace under `folder`: refuse
    before any step what cannot run here (the tests' needs too), then build. The sandbox and
    working folder."""
    task = spec.task
    layout = trial_layout(
        folder,
        network=task.environment.network,
        workspace=spec.workspace,
        hidden=spec.hidden,
        limits=spec.limits,
    )
    sandbox = held.enter_context(create_sandbox(spec.sandbox, layout))  # its session: the trial's
    plan = plan_environment(task)
    needs = plan.needs + verifier_needs(task)
    if needs:
        raise Unsupported(needs)
    report = build_workspace(plan, sandbox, timeout=task.limits.setup_timeout_sec)
    return sandbox.with_layout(sandbox.layout.with_env(report.env)), report.workdir


def _set_up_image(
    spec: TrialSpec, held: contextlib.ExitStack, folder: Path
) -> tuple[Sandbox, str, ImageRecord]:
    """The task's image, built by the engine (or found built), with a layer of its own under
    `folder`; what was built and which base stood in, for the result."""
    needs = image_needs(spec.task)
    if needs:
        raise Unsupported(needs)
    sandbox, image = held.enter_context(
        image_sandbox(spec.task, folder, hidden=spec.hidden, limits=spec.limits)
    )
    return sandbox, image.config.workdir, ImageRecord.of(image)


def _run_agent(
    spec: TrialSpec, agent: Agent, sandbox: Sandbox, workdir: str, folder: Path
) -> Tried:
    """Run the agent, then its own checks on what it left. Records the feedback the agent
    had: `tests` whenever the task's tests ran during its run, whatever was asked."""
    task = spec.task
    log_dir = folder / "logs" / "agent"
    log_dir.mkdir(parents=True, exist_ok=True)
    budget = task.limits.agent_timeout_sec * spec.agent_timeout_multiplier
    tests_ran = 0

    def check_now() -> Evaluation:
        """The task's tests in the loop (`feedback: tests`), within the agent's time."""
        nonlocal tests_ran
        left = ctx.remaining()
        if left <= 0:
            raise AgentTimeout("agent time is up")
        tests_ran += 1
        timeout = min(task.limits.verifier_timeout_sec, left)
        evaluation = verify(task, sandbox, folder / "checks", timeout=timeout, cwd=workdir)
        if evaluation.timed_out and ctx.remaining() <= 0:
            raise AgentTimeout("agent time is up (while the tests ran)")
        return evaluation

    ctx = AgentContext(
        task,
        sandbox,
        time.monotonic() + budget,
        log_dir,
        workdir,
        verify=check_now if task.has_verifier else None,
        suite_hints=spec.suite_hints,
        suite_source=spec.suite_source,
        trial_name=spec.name,
    )
    try:
        outcome = agent.run(ctx)
    except AgentTimeout as err:  # an agent that keeps no record of its own (the oracle)
        feedback: Feedback = "tests" if tests_ran else "none"
        return Tried(sandbox, workdir, True, None, None, {}, feedback, str(err))
    feedback = "tests" if tests_ran else "self" if outcome.self_checked else "none"
    checks = outcome.checks
    # the agent has stopped (its time may be up): its checks run on what it left within the
    # verifier's time, as the task's tests will
    ctx.deadline = time.monotonic() + task.limits.verifier_timeout_sec
    evidence = checks() if checks is not None else outcome.tests_at_end
    message = f"agent time is up ({budget:.0f} s)" if outcome.timed_out else ""
    return Tried(
        sandbox, workdir, outcome.timed_out, checks, evidence, outcome.info, feedback, message,
        ended=outcome.ended,
    )  # fmt: skip


def _record_evaluation(result: TrialResult, evaluation: Evaluation, tried: Tried) -> None:
    """A pass counts even after a timeout; a failure says first whose time ran out, or the
    resource limit a command hit."""
    result.evaluation = evaluation
    result.passed = evaluation.passed
    if evaluation.passed:
        result.exit_reason = ExitReason.PASSED
    elif evaluation.timed_out:
        result.exit_reason = ExitReason.VERIFIER_TIMEOUT
    elif tried.ended.limit is not None:
        result.exit_reason = ExitReason.RESOURCE_LIMIT
        result.message = result.message or f"a command {tried.ended.limit}"
    elif tried.timed_out:
        result.exit_reason = ExitReason.AGENT_TIMEOUT
    else:
        result.exit_reason = ExitReason.FAILED
    result.message = result.message or evaluation.summary()


def _tidy(trial_dir: Path) -> None:
    """Keep the final workspaces and the logs; drop the trial's scratch folders (and those of
    its tries, and the start they shared)."""
    shutil.rmtree(trial_dir / TRIES / "start", ignore_errors=True)
    for folder in [trial_dir, *(trial_dir / TRIES).glob("*")]:
        for name in ("tmp", "home", "scratch", "tests", "checks", "container", "hidden"):
            shutil.rmtree(folder / name, ignore_errors=True)
