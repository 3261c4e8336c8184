"""A run (or a comparison of runs) written as a Harbor job folder, for Harbor's tools
(`harbor view`, its database, its result readers):

    DIR/config.json                 JobConfig
    DIR/result.json                 JobResult: per-eval pass@k, mean reward, reward stats,
                                    exceptions, tokens
    DIR/<trial>/config.json         TrialConfig
    DIR/<trial>/result.json         TrialResult: rewards, the agent's tokens and our record
                                    under `agent_result.metadata`, exit reasons that are not a
                                    verdict as `exception_info`
    DIR/<trial>/agent/trajectory.json   our ATIF trajectory
    DIR/<trial>/verifier/           reward.txt, test-stdout.txt, ctrf.json

Harbor itself is not needed: the files follow its pydantic models (harbor 0.24), and the tests
check them with those models.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import uuid
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hillclimber import __version__
from hillclimber.errors import HillclimberError
from hillclimber.harness.recording.trajectory import upgrade
from hillclimber.loaders.suite import load_suite
from hillclimber.paths import write_json
from hillclimber.report.rundata import RunData, load_runs
from hillclimber.results import ExitReason, TrialResult, now, pass_at_k_by_task
from hillclimber.task import Task

AGENT_IMPORT_PATH = "hillclimber.harbor:HillclimberAgent"

EXCEPTIONS = {
    ExitReason.AGENT_TIMEOUT: "AgentTimeoutError",
    ExitReason.VERIFIER_TIMEOUT: "VerifierTimeoutError",
    ExitReason.SETUP_ERROR: "EnvironmentSetupError",
    ExitReason.UNSUPPORTED: "UnsupportedTaskError",
    ExitReason.ERROR: "HillclimberError",
}
"""Exit reasons that are no verdict on the work, as Harbor's `exception_info` types (Harbor's
own names where it has one)."""
VERDICTS = (ExitReason.PASSED, ExitReason.FAILED, ExitReason.RESOURCE_LIMIT)
"""Exit reasons that are the tests' verdict on the work (a limit hit: failed, and why)."""


@dataclass(frozen=True)
class Exported:
    job_dir: Path
    trials: int


def export_harbor(run_dir: Path, out: Path) -> Exported:
    """Write the run (or every run of a comparison) at `run_dir` as a Harbor job at `out`."""
    runs = load_runs([run_dir])
    job_id = str(uuid.uuid5(uuid.NAMESPACE_URL, str(run_dir.resolve())))
    out.mkdir(parents=True, exist_ok=True)
    trial_docs: list[dict[str, Any]] = []
    for run in runs:
        tasks = _tasks(run)
        for trial in run.trials:
            folder = tasks[trial.task_id].source if trial.task_id in tasks else None
            doc = _trial(run, trial, folder, out, job_id)
            task = tasks.get(trial.task_id)
            instruction = task.instruction if task else ""
            _copy_logs(run.path / trial.trial, out / doc["trial_name"], instruction)
            write_json(out / doc["trial_name"] / "config.json", doc["config"])
            write_json(out / doc["trial_name"] / "result.json", doc)
            trial_docs.append(doc)
    write_json(out / "config.json", _job_config(runs, out, job_id))
    write_json(out / "result.json", _job_result(runs, trial_docs, job_id))
    return Exported(out, len(trial_docs))


def agent_name(run: RunData) -> str:
    return f"hillclimber-{run.label}" if run.label else "hillclimber"


def _tasks(run: RunData) -> dict[str, Task]:
    try:
        return {task.id: task for task in load_suite(run.config.source).tasks}
    except HillclimberError:  # the source moved or is gone: the tasks are named by id only
        return {}


def _agent_config(run: RunData) -> dict[str, Any]:
    model = run.config.model.spec if run.config.model else None
    kwargs: dict[str, Any] = {}
    if run.config.harness is not None:
        kwargs = {"preset": run.config.harness.preset, "feedback": run.config.harness.feedback}
    return {
        "name": None if run.config.agent == "harness" else run.config.agent,
        "import_path": AGENT_IMPORT_PATH if run.config.agent == "harness" else None,
        "model_name": model,
        "kwargs": kwargs,
    }


def _trial(
    run: RunData, trial: TrialResult, task_dir: Path | None, out: Path, job_id: str
) -> dict[str, Any]:
    name = f"{trial.task_id}__{run.label or 'run'}__{trial.attempt}"
    task = {"path": str(task_dir or trial.task_id), "source": run.config.source}
    config: dict[str, Any] = {
        "task": task,
        "trial_name": name,
        "trials_dir": str(out),
        "agent_timeout_multiplier": run.config.agent_timeout_multiplier,
        "agent": _agent_config(run),
        "job_id": job_id,
    }
    info = trial.agent_info
    model = run.config.model.spec if run.config.model else None
    doc: dict[str, Any] = {
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{job_id}/{name}")),
        "task_name": trial.task_id,
        "trial_name": name,
        "trial_uri": (out / name).resolve().as_uri(),
        "task_id": {"path": task["path"]},
        "source": run.config.source,
        "task_checksum": _digest(task_dir),
        "config": config,
        "agent_info": {
            "name": agent_name(run),
            "version": __version__,
            "model_info": {"name": model} if model else None,
        },
        "agent_result": {
            "n_input_tokens": info.get("prompt_tokens"),
            "n_output_tokens": info.get("completion_tokens"),
            "metadata": {
                "exit_reason": trial.exit_reason.value,
                "feedback": trial.feedback,
                "message": trial.message,
                **info,
            },
        },
        "started_at": trial.started_at or None,
        "finished_at": trial.finished_at or None,
    }
    reward = {"rewards": {"reward": _reward(trial)}}
    if trial.evaluation is not None and trial.exit_reason in VERDICTS:
        doc["verifier_result"] = reward
    elif trial.exit_reason in EXCEPTIONS:
        doc["exception_info"] = {
            "exception_type": EXCEPTIONS[trial.exit_reason],
            "exception_message": trial.message or trial.exit_reason.value,
            "exception_traceback": "",
            "occurred_at": trial.finished_at or now(),
        }
        if trial.evaluation is not None:  # a timed-out agent's work is still scored
            doc["verifier_result"] = reward
    return doc


def _reward(trial: TrialResult) -> float:
    reward = trial.evaluation.reward if trial.evaluation is not None else None
    return float(trial.passed) if reward is None else float(reward)


def _digest(task_dir: Path | None) -> str:
    """sha256 over the task folder's files, in path order (Harbor's own is dirhash's)."""
    digest = hashlib.sha256()
    if task_dir is not None and task_dir.is_dir():
        for path in sorted(p for p in task_dir.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(task_dir)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _copy_logs(trial_dir: Path, target: Path, instruction: str) -> None:
    (target / "agent").mkdir(parents=True, exist_ok=True)
    trajectory = trial_dir / "logs" / "agent" / "trajectory.json"
    if trajectory.exists():  # one written before 0.2 is brought to the current layout
        doc = upgrade(json.loads(trajectory.read_text()), instruction)
        write_json(target / "agent" / "trajectory.json", doc)
    verifier = trial_dir / "logs" / "verifier"
    (target / "verifier").mkdir(parents=True, exist_ok=True)
    for ours, theirs in (
        ("reward.txt", "reward.txt"),
        ("output.txt", "test-stdout.txt"),
        ("ctrf.json", "ctrf.json"),
    ):
        if (verifier / ours).exists():
            shutil.copyfile(verifier / ours, target / "verifier" / theirs)


def _job_config(runs: list[RunData], out: Path, job_id: str) -> dict[str, Any]:
    first = runs[0].config
    tasks: dict[str, Path] = {}
    for run in runs:
        tasks.update({i: t.source for i, t in _tasks(run).items() if t.source is not None})
    return {
        "job_name": out.name,
        "jobs_dir": str(out.parent),
        "n_attempts": first.n_attempts,
        "n_concurrent_trials": first.n_concurrent,
        "agent_timeout_multiplier": first.agent_timeout_multiplier,
        "agents": [_agent_config(run) for run in runs],
        "tasks": [{"path": str(path), "source": first.source} for path in tasks.values()],
    }


def _job_result(runs: list[RunData], trials: list[dict[str, Any]], job_id: str) -> dict[str, Any]:
    evals: dict[str, dict[str, Any]] = {}
    for run in runs:
        mine = [t for t in trials if t["agent_info"]["name"] == agent_name(run)]
        model = run.config.model.spec if run.config.model else None
        key = "__".join(p for p in (agent_name(run), model, run.config.source) if p)
        evals[key] = _eval_stats(run, mine)
    tokens_in = [t["agent_result"]["n_input_tokens"] for t in trials]
    tokens_out = [t["agent_result"]["n_output_tokens"] for t in trials]
    starts = sorted(t["started_at"] for t in trials if t["started_at"])
    ends = sorted(t["finished_at"] for t in trials if t["finished_at"])
    errored = sum("exception_info" in t for t in trials)
    return {
        "id": job_id,
        "started_at": starts[0] if starts else now(),
        "finished_at": ends[-1] if ends else None,
        "n_total_trials": sum(r.result.totals.trials for r in runs),
        "stats": {
            "n_completed_trials": len(trials),
            "n_errored_trials": errored,
            "n_pending_trials": sum(r.result.totals.trials for r in runs) - len(trials),
            "evals": evals,
            "n_input_tokens": sum(t for t in tokens_in if t is not None) if trials else None,
            "n_output_tokens": sum(t for t in tokens_out if t is not None) if trials else None,
        },
    }


def _eval_stats(run: RunData, trials: list[dict[str, Any]]) -> dict[str, Any]:
    rewards: dict[str, list[str]] = defaultdict(list)
    exceptions: dict[str, list[str]] = defaultdict(list)
    scored = []
    for trial in trials:
        verifier = trial.get("verifier_result")
        if verifier is not None:
            value = verifier["rewards"]["reward"]
            rewards[str(value)].append(trial["trial_name"])
            scored.append(value)
        if "exception_info" in trial:
            exceptions[trial["exception_info"]["exception_type"]].append(trial["trial_name"])
    per_task: dict[str, list[bool]] = defaultdict(list)
    for result in run.trials:
        per_task[result.task_id].append(result.passed)
    return {
        "n_trials": len(scored),
        "n_errors": sum(len(v) for v in exceptions.values()),
        "metrics": [{"mean": sum(scored) / len(trials)}] if trials else [],
        "pass_at_k": pass_at_k_by_task(list(per_task.values())),
        "reward_stats": {"reward": dict(rewards)},
        "exception_stats": dict(exceptions),
    }
