"""The tries of one trial: each from the same fresh start in a folder of its own
(`tries/<n>`), its answer read, the tries stopped once two agree, one answer kept. The trial
then runs the task's tests once, on the kept try's workspace; afterwards that try's workspace
and trajectory become the trial's (`adopt`), the others stay in their folders for review.
"""

from __future__ import annotations

import contextlib
import json
import posixpath
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hillclimber.agents.base import Ended
from hillclimber.harness.config import Feedback, HarnessConfig
from hillclimber.harness.task_paths import TaskPaths
from hillclimber.image.build import ImageRecord
from hillclimber.paths import write_json
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import read_bytes
from hillclimber.shell.command import inside
from hillclimber.tries.answer import MAX_BYTES, Answer, Files, files_now, read_answer
from hillclimber.tries.choice import TriesRecord, TryRecord, choose, settled
from hillclimber.verify.verifier import Evaluation

TRIES = "tries"
OUTSIDE = "outside"
"""Where a try's named files outside its working folder are kept, and the kept try's in the
trial's folder."""
COSTS = ("model_calls", "prompt_tokens", "completion_tokens", "model_seconds", "tool_seconds",
         "parse_failures", "denials", "context_shrinks", "checks_model_calls")  # fmt: skip
"""What a trial's record adds up over its tries: what the trial cost, not only the kept try."""


@dataclass
class Tried:
    """One run of the agent in a workspace of its own, and what it left."""

    sandbox: Sandbox
    workdir: str
    timed_out: bool
    checks: Callable[[], Evaluation] | None
    """The agent's own checks, to run again on the workspace as it is now."""
    evidence: Evaluation | None
    """Its checks run on what it left (or the task's tests as they last ran in the loop)."""
    info: dict[str, Any]
    feedback: Feedback
    message: str = ""
    image: ImageRecord | None = None
    ended: Ended = field(default_factory=Ended)
    """How the agent's run ended (typed; `info` is its record)."""


Started = Callable[[Sandbox, str], None]
"""Told the sandbox and working folder of a try once set up, before the agent runs."""
OneTry = Callable[[int, Path, Started], Tried]
"""Runs try `index` (0-based) with its workspace under the folder given."""


@dataclass
class _Start:
    """The fresh start of a try: the task's paths and every file, to tell what it changed."""

    paths: TaskPaths | None = None
    files: Files | None = None


def run_tries(
    one: OneTry, harness: HarnessConfig, trial_dir: Path, *, instruction: str, samples: bool
) -> tuple[Tried, TriesRecord]:
    """Run the tries `harness.tries` asks for (stopping early where it may); the kept try,
    with the costs of all of them in its `info`, and the record of them all."""
    settings = harness.tries
    tried: list[Tried] = []
    records: list[TryRecord] = []
    for index in range(settings.n):
        clock = time.monotonic()
        start = _Start()

        def started(sandbox: Sandbox, workdir: str, start: _Start = start) -> None:
            start.paths = TaskPaths.read(instruction, sandbox, workdir)
            outside = [p for p in start.paths.named if not inside(p, [workdir])]
            start.files = files_now(sandbox, workdir, outside)

        attempt = one(index, trial_dir / TRIES / str(index + 1), started)
        assert start.paths is not None and start.files is not None
        answer = read_answer(attempt.sandbox, attempt.workdir, start.paths, start.files,
                             instruction)  # fmt: skip
        _keep_outside(attempt, start.paths, trial_dir / TRIES / str(index + 1))
        tried.append(attempt)
        records.append(_record(index, attempt, answer, harness, clock))
        if settings.stop == "agreement" and settled(records):
            break
    record = choose(records, planned=settings.n, stop=settings.stop, independent=samples)
    kept = tried[record.chosen - 1]
    kept.info = {**kept.info, **_costs(tried), "tries": len(tried)}
    feedbacks = {t.feedback for t in tried}
    kept.feedback = "tests" if "tests" in feedbacks else "self" if "self" in feedbacks else "none"
    return kept, record


def _keep_outside(attempt: Tried, paths: TaskPaths, folder: Path) -> None:
    """The files the task names outside the working folder, other than its inputs and the
    files to leave alone, as the try left them, in `folder/outside` (a workspace alone does
    not hold them): what a reviewer reads beside the digests in the record."""
    for path in paths.answers:  # what the task gave is no try's answer: not copied each try
        if inside(path, [attempt.workdir]):
            continue
        data = read_bytes(attempt.sandbox, path, limit=MAX_BYTES)
        if data is None:
            continue
        kept = folder / OUTSIDE / posixpath.normpath("/" + path).lstrip("/")  # never above it
        with contextlib.suppress(OSError):  # a named file inside another named file, say
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_bytes(data)


def _record(
    index: int, attempt: Tried, answer: Answer, harness: HarnessConfig, clock: float
) -> TryRecord:
    evidence, ended = attempt.evidence, attempt.ended
    setting, vary = harness.for_try(index), harness.tries.vary
    return TryRecord(
        index=index + 1,
        seed=setting.ask.seed,
        temperature=setting.ask.temperature,
        varied=dict(vary[index]) if index < len(vary) else {},
        answer=answer.digest,
        parts=dict(answer.parts),
        copied=answer.copied,
        checks=evidence.summary() if evidence is not None else None,
        checks_passed=evidence.passed if evidence is not None else None,
        value_passing=evidence.values_shown if evidence is not None else 0,
        turns=ended.turns,
        loop_exit=ended.exit,
        model_seconds=ended.model_seconds,
        seconds=round(time.monotonic() - clock, 3),
    )


def _costs(tried: list[Tried]) -> dict[str, float]:
    """The costs of every try added up."""
    totals: dict[str, float] = {}
    for key in COSTS:
        values = [t.info[key] for t in tried if isinstance(t.info.get(key), int | float)]
        if values:
            totals[key] = sum(values)
    return totals


def adopt(trial_dir: Path, record: TriesRecord) -> None:
    """The kept try's workspace, named files outside it and agent logs become the trial's
    (where `show`, `report` and `export` look), its trajectory with the record of every try
    in `extra.tries`."""
    kept = trial_dir / TRIES / str(record.chosen)
    if (kept / "workspace").is_dir():
        shutil.rmtree(trial_dir / "workspace", ignore_errors=True)
        shutil.move(kept / "workspace", trial_dir / "workspace")
    if (kept / OUTSIDE).is_dir():
        shutil.rmtree(trial_dir / OUTSIDE, ignore_errors=True)
        shutil.copytree(kept / OUTSIDE, trial_dir / OUTSIDE)
    logs = trial_dir / "logs" / "agent"
    if (kept / "logs" / "agent").is_dir():
        shutil.rmtree(logs, ignore_errors=True)
        shutil.copytree(kept / "logs" / "agent", logs)
    trajectory = logs / "trajectory.json"
    try:
        doc = json.loads(trajectory.read_text())
    except (OSError, ValueError):
        return
    doc.setdefault("extra", {})["tries"] = record.model_dump(mode="json")
    write_json(trajectory, doc)
