"""One trial (a task, an attempt): its workspace set up in a sandbox, the agent run, the task's
tests run after it, the result written to the trial's folder.

`run_trial` is a plain function of a `TrialSpec` that leaves everything in the trial's folder,
so trials can run in threads here or in other processes later (`runner.py` runs a whole set).
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hillclimber.agents import AgentContext, make_agent
from hillclimber.errors import (
    AgentTimeout,
    HillclimberError,
    SetupError,
    TaskLoadError,
    Unsupported,
    VerifierError,
)
from hillclimber.harness.config import HarnessConfig
from hillclimber.image import image_needs, image_sandbox
from hillclimber.models import ModelConfig
from hillclimber.provenance import source_commit
from hillclimber.results import (
    ExitReason,
    ImageRecord,
    TrialResult,
    now,
    write_json,
)
from hillclimber.sandbox import Sandbox, SandboxKind, create_sandbox, trial_layout
from hillclimber.sandbox.limits import ResourceLimits
from hillclimber.setup.build import build_workspace
from hillclimber.setup.plan import plan_environment
from hillclimber.task import Task
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


STOPPING = threading.Event()
"""Set while the run stops: a trial between its phases leaves no result (`Interrupted`)."""


def run_trial(spec: TrialSpec) -> TrialResult:
    """Set up, run the agent, verify; write `result.json`. Never raises for a task's fault."""
    trial_dir = spec.trial_dir
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
        if STOPPING.is_set():
            raise Interrupted("stopping") from err
        result.exit_reason = ExitReason.ERROR
        result.message = f"{type(err).__name__}: {err}"
        (trial_dir / "error.txt").write_text(traceback.format_exc())
    result.timings = phases.total()
    result.finished_at = now()
    _tidy(trial_dir)
    write_json(trial_dir / "result.json", result)
    return result


class _Phases:
    """Seconds per phase; the end of each phase is also where a stopping run leaves the trial."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.monotonic()
        self._phase_start = self._start

    def done(self, name: str) -> None:
        self.timings[name] = round(time.monotonic() - self._phase_start, 3)
        self._phase_start = time.monotonic()
        if STOPPING.is_set():
            raise Interrupted("stopping")

    def total(self) -> dict[str, float]:
        self.timings["total"] = round(time.monotonic() - self._start, 3)
        return self.timings


def _run_phases(
    spec: TrialSpec, held: contextlib.ExitStack, result: TrialResult, phases: _Phases
) -> None:
    """Fill `result` phase by phase; failures are raised for `run_trial` to map to an exit.
    What the trial holds while it runs (its image's layer) is let go by `held`."""
    task = spec.task
    if spec.sandbox is SandboxKind.CONTAINER:
        sandbox, workdir = _set_up_image(spec, held, result)
    else:
        sandbox, workdir = _set_up(spec)
    phases.done("setup")
    agent_timed_out, own_checks = _run_agent(spec, sandbox, workdir, result)
    phases.done("agent")
    if task.has_verifier:
        evaluation = verify(task, sandbox, spec.trial_dir, cwd=workdir)
        phases.done("verifier")
        _record_evaluation(result, evaluation, agent_timed_out=agent_timed_out)
    elif own_checks is not None:  # `hillclimber run`: the harness's own checks, run afresh
        evaluation = own_checks()
        phases.done("verifier")
        result.evaluation = evaluation
        # a pass of form or weak checks only cannot vouch for the values, unless a second
        # computation agreed with them as the loop ended
        agreed = result.agent_info.get("loop_exit") == "agreed"
        conclusive = evaluation.passed and (evaluation.conclusive or agreed)
        result.exit_reason = ExitReason.VERIFIED_SELF if conclusive else ExitReason.UNVERIFIED
        if agreed and conclusive:
            said = " and a second computation agreed"
        elif evaluation.passed and not conclusive:
            said = f" ({evaluation.strength} checks only: they cannot tell the values are right)"
        else:
            said = ""
        result.message = result.message or evaluation.summary() + said
    else:
        result.exit_reason = ExitReason.UNVERIFIED
        ended = result.agent_info.get("loop_exit", "the agent stopped")
        result.message = result.message or f"no tests and no checks to check it ({ended})"


def _set_up(spec: TrialSpec) -> tuple[Sandbox, str]:
    """The Dockerfile followed without an engine in a fresh workspace: refuse before any step
    what cannot run here (the tests' needs too), then build. The sandbox and working folder."""
    task = spec.task
    layout = trial_layout(
        spec.trial_dir,
        network=task.environment.network,
        workspace=spec.workspace,
        hidden=spec.hidden,
        limits=spec.limits,
    )
    sandbox = create_sandbox(spec.sandbox, layout)
    plan = plan_environment(task)
    needs = plan.needs + verifier_needs(task)
    if needs:
        raise Unsupported(needs)
    report = build_workspace(plan, sandbox, timeout=task.limits.setup_timeout_sec)
    return sandbox.with_layout(sandbox.layout.with_env(report.env)), report.workdir


def _set_up_image(
    spec: TrialSpec, held: contextlib.ExitStack, result: TrialResult
) -> tuple[Sandbox, str]:
    """The task's image, built by the engine (or found built), with a layer of the trial's
    own; what was built and which base stood in go into the result."""
    needs = image_needs(spec.task)
    if needs:
        raise Unsupported(needs)
    sandbox, image = held.enter_context(
        image_sandbox(spec.task, spec.trial_dir, hidden=spec.hidden, limits=spec.limits)
    )
    result.image = ImageRecord.of(image)
    return sandbox, image.config.workdir


def _run_agent(
    spec: TrialSpec, sandbox: Sandbox, workdir: str, result: TrialResult
) -> tuple[bool, Callable[[], Evaluation] | None]:
    """Run the agent; whether its time ran out (its work is still verified), and its own
    checks if it made any. Records the feedback the agent had: `tests` whenever the task's
    tests ran during its run, whatever was asked."""
    task = spec.task
    trial_dir = spec.trial_dir
    agent = make_agent(spec.agent, spec.model, spec.harness)
    log_dir = trial_dir / "logs" / "agent"
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
        evaluation = verify(task, sandbox, trial_dir / "checks", timeout=timeout, cwd=workdir)
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
        result.message = str(err)
        result.feedback = "tests" if tests_ran else "none"
        return True, None
    result.agent_info = outcome.info
    result.feedback = "tests" if tests_ran else "self" if outcome.self_checked else "none"
    if outcome.timed_out:
        result.message = f"agent time is up ({budget:.0f} s)"
    return outcome.timed_out, outcome.checks


def _record_evaluation(
    result: TrialResult, evaluation: Evaluation, *, agent_timed_out: bool
) -> None:
    """A pass counts even after a timeout; a failure says first whose time ran out."""
    result.evaluation = evaluation
    result.passed = evaluation.passed
    if evaluation.passed:
        result.exit_reason = ExitReason.PASSED
    elif evaluation.timed_out:
        result.exit_reason = ExitReason.VERIFIER_TIMEOUT
    elif result.agent_info.get("limits_hit"):
        result.exit_reason = ExitReason.RESOURCE_LIMIT
        result.message = result.message or f"a command {result.agent_info.get('limit')}"
    elif agent_timed_out:
        result.exit_reason = ExitReason.AGENT_TIMEOUT
    else:
        result.exit_reason = ExitReason.FAILED
    result.message = result.message or evaluation.summary()


def _tidy(trial_dir: Path) -> None:
    """Keep the final workspace and the logs; drop the trial's scratch folders."""
    for name in ("tmp", "home", "scratch", "tests", "checks", "container", "hidden"):
        shutil.rmtree(trial_dir / name, ignore_errors=True)
