"""Every preset drives the real embedded model through `hillclimber bench` on a two-task subset
of the built-in suite (the whole suite runs as a benchmark). These tests check that each preset
runs end to end and records honest results; they do not claim a pass rate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hillclimber.errors import ModelUnavailable
from hillclimber.models import embedded

from conftest import missing
from harbor_venv import harbor_errors

pytestmark = [pytest.mark.model, pytest.mark.slow]
TASKS = "hello-file,config-debug"


@pytest.fixture(scope="module", autouse=True)
def _model_installed() -> None:
    try:
        embedded.require(embedded.DEFAULT_MODEL)
    except ModelUnavailable as err:
        missing(f"the embedded model: {err}")


@pytest.mark.parametrize("preset", ["naive", "fm", "climber", "full"])
def test_each_preset_runs_the_real_model_end_to_end(preset: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "hillclimber",
            "bench",
            "--suite",
            "mini",
            "--tasks",
            TASKS,
            "--model",
            "local",
            "--preset",
            preset,
            "--max-turns",
            "8",
            "--run-id",
            preset,
            "--runs-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    run = tmp_path / preset
    summary = json.loads((run / "result.json").read_text())
    assert summary["state"] == "finished" and summary["totals"]["finished"] == 2
    config = json.loads((run / "config.json").read_text())
    assert config["harness"]["preset"] == preset and config["model"]["spec"] == "local"
    assert config["n_concurrent"] == 1  # one in-process model: one trial at a time
    for task in TASKS.split(","):
        trial = json.loads((run / f"{task}.1" / "result.json").read_text())
        # a verdict, or the task's time limit holding (a slow or busy machine)
        assert trial["exit_reason"] in ("passed", "failed", "agent_timeout")
        assert trial["agent_info"]["model_calls"] >= 1
        # bench checks the work with the harness's own acceptance checks unless told otherwise;
        # a trial whose time or turns ran out before any check ran had no feedback, and says so
        info = trial["agent_info"]
        checked = info.get("verifications", 0) + info.get("candidate_verifications", 0) > 0
        assert trial["feedback"] == ("self" if preset != "naive" and checked else "none")
        assert preset == "naive" or info["checks"]  # made before the first action, load or not
        path = run / f"{task}.1/logs/agent/trajectory.json"
        trajectory = json.loads(path.read_text())
        assert trajectory["schema_version"].startswith("ATIF")
        calls = [s for s in trajectory["steps"] if s.get("llm_call_count") == 1]
        assert calls and all(s["extra"]["prompt"] and "message" in s for s in calls)
        # valid by Harbor's own validator and Trajectory model
        assert harbor_errors("trajectory", path) == {str(path): []}


def test_run_one_instruction_with_the_default_model(tmp_path: Path) -> None:
    """`run` works on the folder it is started in, keeps its record under runs/ there (out of
    the model's sight), prints the checks it made and ends verified_self or unverified."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "hillclimber",
            "run",
            "Create a file hello.txt whose only line is exactly:\n\nHello, world!",
            "--max-turns",
            "6",
            "--runs-dir",
            str(tmp_path / "records"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "acceptance checks made:" in result.stdout and "trajectory:" in result.stdout
    assert f"{tmp_path}/hello.txt has only the line 'Hello, world!'" in result.stdout
    trial = json.loads(next(tmp_path.glob("records/run__*/run.1/result.json")).read_text())
    assert trial["exit_reason"] in ("verified_self", "unverified")
    assert trial["exit_reason"] != "verified_self" or (tmp_path / "hello.txt").is_file()
