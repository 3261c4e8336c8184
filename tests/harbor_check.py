"""Validate files with Harbor's own models; run with the Python of `.venv-harbor` (Harbor needs
3.12+), not ours. Prints one JSON object: {path: [error, ...]} (no errors: an empty list).

    .venv-harbor/bin/python tests/harbor_check.py trajectory FILE...
    .venv-harbor/bin/python tests/harbor_check.py job JOB_DIR...   (result.json, config.json,
                                                                    every trial's result.json
                                                                    and trajectory)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def trajectory_errors(path: Path) -> list[str]:
    from harbor.models.trajectories import Trajectory
    from harbor.utils.trajectory_validator import TrajectoryValidator

    validator = TrajectoryValidator()
    if validator.validate(path, validate_images=False):
        Trajectory.model_validate_json(path.read_text())  # the model itself, not only the check
        return []
    return list(validator.errors)


def _model_errors(model: type, path: Path) -> list[str]:
    from pydantic import ValidationError

    try:
        model.model_validate_json(path.read_text())
    except ValidationError as err:
        return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors()]
    return []


def job_errors(job: Path) -> dict[str, list[str]]:
    from harbor.models.job.config import JobConfig
    from harbor.models.job.result import JobResult
    from harbor.models.trial.config import TrialConfig
    from harbor.models.trial.result import TrialResult

    found = {
        str(job / "config.json"): _model_errors(JobConfig, job / "config.json"),
        str(job / "result.json"): _model_errors(JobResult, job / "result.json"),
    }
    for trial in sorted(p for p in job.iterdir() if (p / "result.json").exists()):
        found[str(trial / "config.json")] = _model_errors(TrialConfig, trial / "config.json")
        found[str(trial / "result.json")] = _model_errors(TrialResult, trial / "result.json")
        trajectory = trial / "agent" / "trajectory.json"
        if trajectory.exists():
            found[str(trajectory)] = trajectory_errors(trajectory)
    return found


def main() -> None:
    kind, paths = sys.argv[1], [Path(p) for p in sys.argv[2:]]
    report: dict[str, list[str]] = {}
    for path in paths:
        if kind == "trajectory":
            report[str(path)] = trajectory_errors(path)
        else:
            report.update(job_errors(path))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
