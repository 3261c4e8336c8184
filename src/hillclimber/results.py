"""What a run leaves on disk: one `result.json` per trial, and one for the whole run."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from hillclimber.grades import Grade
from hillclimber.harness.config import HarnessConfig
from hillclimber.image.build import ImageRecord
from hillclimber.models import ModelConfig
from hillclimber.sandbox.limits import ResourceLimits
from hillclimber.tries.choice import TriesRecord
from hillclimber.verify.verifier import Evaluation


class ExitReason(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    AGENT_TIMEOUT = "agent_timeout"
    VERIFIER_TIMEOUT = "verifier_timeout"
    UNSUPPORTED = "unsupported"
    SETUP_ERROR = "setup_error"
    RESOURCE_LIMIT = "resource_limit"  # failed, and a command of the agent hit a resource limit
    VERIFIED_SELF = "verified_self"  # no tests, but every acceptance check the harness made passes
    UNVERIFIED = "unverified"  # no tests, and no checks or not all of them pass
    ERROR = "error"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TrialResult(BaseModel):
    trial: str
    task_id: str
    attempt: int
    agent: str
    sandbox: str
    sandbox_isolated: bool
    exit_reason: ExitReason
    passed: bool
    evaluation: Evaluation | None = None
    message: str = ""
    """Why the trial ended as it did, in a line (the error, the unsupported reasons, ...)."""
    feedback: Literal["none", "tests", "self"] = "none"
    """What checked the work during the agent's run: the task's `tests` (they ran), the
    harness's own acceptance checks (`self`), or nothing (`none`)."""
    checked: Evaluation | None = None
    """The harness's own checks, run on the answer after the agent stopped (where it made
    any): what `grade` rests on."""
    grade: Grade | None = None
    """What the harness's own evidence said of the answer before the task's tests ran
    (`grades.py`): agreed, verified, plausible, disputed, unchecked or failed."""
    tries: TriesRecord | None = None
    """The tries of the trial, where it ran several (`tries.n`): each one's answer, the groups
    of equal answers, which was kept and why. The task's tests scored the kept one only."""
    agent_info: dict[str, Any] = Field(default_factory=dict)
    image: ImageRecord | None = None
    """The task's image, where the trial ran in it."""
    timings: dict[str, float] = Field(default_factory=dict)
    """Seconds per phase: setup, agent, verifier, total."""
    started_at: str = ""
    finished_at: str = ""
    commit: str | None = None
    """The git commit of the code that ran the trial (`provenance.source_commit`), where known."""


class RunConfig(BaseModel):
    run_id: str
    source: str
    """The suite name or dataset path the tasks came from."""
    task_ids: list[str]
    agent: str
    sandbox: str
    images: bool = False
    """Tasks whose Dockerfile cannot be followed without an engine ran in their image
    (sandbox `container`); `sandbox` is where the others ran."""
    drop_images: bool = False
    """Each task image this run built was removed once the task's trials were done (a
    collection larger than the disk); images found built were left."""
    n_attempts: int
    n_concurrent: int
    agent_timeout_multiplier: float = 1.0
    model: ModelConfig | None = None
    """The model, for agents that use one."""
    harness: HarnessConfig | None = None
    """The full harness configuration (its preset and every setting)."""
    task_harness: dict[str, HarnessConfig] = Field(default_factory=dict)
    """Tasks that ran with another setting than `harness`: the one a climb remembered for
    them (`bench --memory`)."""
    suite_hints: str | None = None
    """The suite's declared hint policy."""
    workspace: str | None = None
    """A host folder worked on where it is (`hillclimber run`), instead of a fresh one."""
    unsafe: bool = False
    """The local sandbox ran a model's commands on this machine (`--unsafe`)."""
    limits: ResourceLimits = Field(default_factory=ResourceLimits)
    """What each command of a trial may use."""
    limits_enforced: dict[str, str] = Field(default_factory=dict)
    """How this machine enforced each limit (cgroup v2/v1, prlimit, not enforced)."""
    hillclimber_version: str
    commit: str | None = None
    """The git commit of the code that started the run, where known (each trial says its own)."""
    created_at: str = Field(default_factory=now)


class RunTotals(BaseModel):
    trials: int
    finished: int
    passed: int
    pass_rate: float
    """Passed over finished trials."""
    pass_at_k: dict[int, float]
    """Unbiased pass@k over tasks, for k up to the attempts each task had."""
    by_reason: dict[str, int]
    mean_seconds: dict[str, float]


class RunResult(BaseModel):
    run_id: str
    state: Literal["running", "finished", "interrupted"]
    totals: RunTotals
    tasks: dict[str, list[str]]
    """Per task, the exit reason of each finished attempt."""
    invalid_tasks: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    updated_at: str = Field(default_factory=now)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k attempts drawn from n (c of them passed) passes."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_at_k_by_task(passes: list[list[bool]]) -> dict[int, float]:
    """Mean pass@k over tasks (one list of attempt outcomes each), for k up to the fewest
    attempts any task had."""
    max_k = min((len(p) for p in passes), default=0)
    return {
        k: sum(pass_at_k(len(p), sum(p), k) for p in passes) / len(passes)
        for k in range(1, max_k + 1)
    }


def summarize(
    run_id: str,
    results: list[TrialResult],
    n_trials: int,
    state: Literal["running", "finished", "interrupted"],
    invalid_tasks: list[str] | None = None,
    notes: list[str] | None = None,
) -> RunResult:
    per_task: dict[str, list[TrialResult]] = defaultdict(list)
    for result in results:
        per_task[result.task_id].append(result)
    pass_k = pass_at_k_by_task([[r.passed for r in v] for v in per_task.values()])
    phases: dict[str, list[float]] = defaultdict(list)
    for result in results:
        for phase, seconds in result.timings.items():
            phases[phase].append(seconds)
    passed = sum(r.passed for r in results)
    return RunResult(
        run_id=run_id,
        state=state,
        totals=RunTotals(
            trials=n_trials,
            finished=len(results),
            passed=passed,
            pass_rate=passed / len(results) if results else 0.0,
            pass_at_k=pass_k,
            by_reason=dict(Counter(r.exit_reason.value for r in results)),
            mean_seconds={p: round(sum(v) / len(v), 3) for p, v in phases.items()},
        ),
        tasks={
            t: [r.exit_reason.value for r in sorted(v, key=lambda r: r.attempt)]
            for t, v in sorted(per_task.items())
        },
        invalid_tasks=invalid_tasks or [],
        notes=notes or [],
    )


def read_trial(path: Path) -> TrialResult | None:
    try:
        return TrialResult.model_validate_json(path.read_text())
    except (OSError, ValueError):
        return None
