"""Interop with Harbor, checked by Harbor's own code (in `.venv-harbor`): our trajectories are
valid ATIF for Harbor's validator and `Trajectory` model, and an exported run is a job folder
Harbor's `JobConfig`, `JobResult`, `TrialConfig` and `TrialResult` read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hillclimber.harness.recording.trajectory import SCHEMA, upgrade

from conftest import FIXTURES, hc
from golden import SCRIPTS, run_raw
from harbor_venv import harbor_errors

pytestmark = pytest.mark.harbor  # Harbor's own validator, from .venv-harbor

TB2 = FIXTURES / "tb2"
WRITE = json.dumps(
    {"name": "write_file", "arguments": {"path": "/app/hello.txt", "content": "Hello, world!\n"}}
)
DONE = json.dumps({"name": "task_complete", "arguments": {}})


@pytest.mark.slow
def test_the_trajectory_of_every_preset_is_valid_atif(tmp_path: Path) -> None:
    paths = [run_raw(name, tmp_path / name) for name in SCRIPTS]
    assert harbor_errors("trajectory", *paths) == {str(p): [] for p in paths}


OLD = {  # the layout hillclimber wrote before (ATIF-v1.2 in name only)
    "schema_version": "ATIF-v1.2",
    "session_id": "t.1",
    "agent": {"name": "hillclimber", "version": "0.1.0", "model_name": "m", "extra": {}},
    "steps": [
        {
            "step_id": 1,
            "source": "agent",
            "turn": 1,
            "prompt": [{"role": "user", "content": "do it"}],
            "message": "{}",
            "metrics": {"prompt_tokens": 10, "completion_tokens": 2, "estimated": True},
            "tool_calls": [
                {"tool_call_id": "call_1_0", "function_name": "run_command", "arguments": {}}
            ],
            "observation": {"results": [{"content": "ok", "success": True, "metadata": {}}]},
            "extra": {"role": "worker"},
        },
        {
            "step_id": 2,
            "source": "system",
            "tool_calls": [
                {"tool_call_id": "call_2_0", "function_name": "verify_progress", "arguments": {}}
            ],
            "observation": {"results": [{"content": "1/1", "success": True}]},
        },
        {"step_id": 3, "source": "system", "message": "verification", "extra": {"passed": True}},
    ],
    "final_metrics": {"final": True, "exit": "verified"},
}


def test_an_old_trajectory_is_upgraded_to_valid_atif(tmp_path: Path) -> None:
    doc = upgrade(json.loads(json.dumps(OLD)), "Say hello.")
    assert doc["schema_version"] == SCHEMA and upgrade(doc) is doc
    assert [s["source"] for s in doc["steps"]] == ["user", "agent", "agent", "system"]
    assert doc["steps"][1]["extra"]["turn"] == 1 and "turn" not in doc["steps"][1]
    assert doc["steps"][2]["llm_call_count"] == 0
    assert doc["final_metrics"]["total_prompt_tokens"] == 10
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    assert harbor_errors("trajectory", path) == {str(path): []}


@pytest.mark.slow
def test_an_exported_run_is_a_harbor_job(tmp_path: Path) -> None:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([WRITE, DONE]))
    runs = tmp_path / "runs"
    for run_id, agent in (("harness", ["--model", f"scripted:{script}"]), ("oracle", [])):
        ran = hc(
            "bench", "--dataset", str(TB2), "--tasks", "fx-hello", *agent,
            "--agent", run_id, "--set", "planner=false", "--run-id", run_id,
            "--runs-dir", str(runs),
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
    # a trial whose agent ran out of time is an exception to Harbor, its work still scored
    oracle_trial = runs / "oracle" / "fx-hello.1" / "result.json"
    timed_out = json.loads(oracle_trial.read_text()) | {"exit_reason": "agent_timeout"}
    oracle_trial.write_text(json.dumps(timed_out))

    for run_id in ("harness", "oracle"):
        job = tmp_path / "jobs" / run_id
        exported = hc("export", str(runs / run_id), "--to", "harbor", "-o", str(job))
        assert exported.returncode == 0, exported.stderr
        errors = harbor_errors("job", job)
        assert errors and all(found == [] for found in errors.values()), errors
        assert (job / f"fx-hello__{'climber' if run_id == 'harness' else 'oracle'}__1").is_dir()

    harness = tmp_path / "jobs" / "harness"
    trial = json.loads((harness / "fx-hello__climber__1" / "result.json").read_text())
    assert trial["verifier_result"] == {"rewards": {"reward": 1.0}}
    assert trial["agent_result"]["n_input_tokens"] > 0
    assert trial["agent_result"]["metadata"]["feedback"] == "self"
    assert (harness / "fx-hello__climber__1" / "agent" / "trajectory.json").exists()
    assert (harness / "fx-hello__climber__1" / "verifier" / "reward.txt").exists()
    job = json.loads((harness / "result.json").read_text())
    (stats,) = job["stats"]["evals"].values()
    assert stats["pass_at_k"] == {"1": 1.0} and stats["reward_stats"]["reward"] == {
        "1.0": ["fx-hello__climber__1"]
    }

    oracle = json.loads((tmp_path / "jobs/oracle/fx-hello__oracle__1/result.json").read_text())
    assert oracle["exception_info"]["exception_type"] == "AgentTimeoutError"
    assert oracle["verifier_result"] == {"rewards": {"reward": 1.0}}

    wrong = hc("export", str(runs / "harness"), "--to", "inspect", "-o", str(tmp_path / "x"))
    assert wrong.returncode == 2 and "--to inspect" in wrong.stderr
    missing = hc("export", str(tmp_path / "nope"), "--to", "harbor", "-o", str(tmp_path / "y"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
