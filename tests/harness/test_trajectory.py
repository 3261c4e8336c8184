"""The trajectory writer (`harness/recording/trajectory.py`): the loop's events in, ATIF out,
written after every event so a crash loses nothing."""

from __future__ import annotations

import json
from pathlib import Path

from hillclimber.harness.recording.events import (
    GuardVerdict,
    LoopEnded,
    ModelAnswered,
    ToolRan,
    Verified,
)
from hillclimber.harness.recording.trajectory import SCHEMA, TrajectoryWriter
from hillclimber.models.base import Message, Usage


def test_events_become_atif_steps(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    writer = TrajectoryWriter(path, "s1", "m", {"preset": "fm"}, instruction="Write a.txt.")
    prompt = (Message(role="user", content="Task: Write a.txt."),)
    writer(
        ModelAnswered(
            1,
            "worker",
            '{"name": "write_file"}',
            prompt,
            Usage(prompt_tokens=12, completion_tokens=3),
            0.1,
            "stop",
        )
    )
    written = json.loads(path.read_text())  # there after one event
    assert written["schema_version"] == SCHEMA and len(written["steps"]) == 2
    writer(GuardVerdict(1, "warn", "test_before_submit", "nothing checked yet"))
    writer(ToolRan(1, "model", "write_file", {"path": "a.txt"}, True, "ok", {}, "Wrote", 0.01))
    writer(Verified(1, "auto_verify", True, 2, 2, "", "acceptance checks"))
    writer(LoopEnded(1, "verified", "checks pass", {"model_calls": 1}))
    doc = json.loads(path.read_text())
    user, agent, check = doc["steps"]
    assert user["source"] == "user" and user["message"] == "Write a.txt."
    assert agent["metrics"] == {"prompt_tokens": 12, "completion_tokens": 3}
    assert agent["extra"]["guard"]["rule"] == "test_before_submit"
    [call] = agent["tool_calls"]
    assert call["function_name"] == "write_file" and call["arguments"] == {"path": "a.txt"}
    [result] = agent["observation"]["results"]
    assert result["source_call_id"] == call["tool_call_id"] and result["content"] == "ok"
    assert check["source"] == "system" and check["message"] == "verification"
    assert check["extra"]["label"] == "acceptance checks"
    final = doc["final_metrics"]
    assert final["total_prompt_tokens"] == 12 and final["extra"]["exit"] == "verified"
    assert final["extra"]["final"] is True and final["extra"]["stats"] == {"model_calls": 1}


def test_the_harness_acting_alone_is_a_step_without_a_model_call(tmp_path: Path) -> None:
    writer = TrajectoryWriter(tmp_path / "t.json", "s", "m", {})
    writer(ToolRan(2, "harness", "run_command", {"command": "ls"}, True, "", {}, "Ran", 0.0))
    [step] = json.loads((tmp_path / "t.json").read_text())["steps"]
    assert step["llm_call_count"] == 0 and step["message"] == "harness: run_command"
