"""`verify_between_writes` only where there is something to verify (issue 24's second bug):
without checks verify_progress is never offered, so refusing a second write for want of it
left the model no way on; with auto-verify every write is checked already."""

from __future__ import annotations

import json
import time
from pathlib import Path

from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.harness.presets import preset
from hillclimber.models import ScriptedModel
from hillclimber.task import Task, TaskFormat

from conftest import host_sandbox


def write(path: str, content: str) -> str:
    return json.dumps({"name": "write_file", "arguments": {"path": path, "content": content}})


def test_a_check_between_writes_only_where_one_can_be_called() -> None:
    """`verify_between_writes` asks for verify_progress between writes: without checks it is
    never offered, and with auto-verify every write is checked already."""
    climber = preset("climber")
    manual = climber.with_settings({"auto_verify": False})
    assert manual.sequences_writes(checks=True)
    assert not manual.sequences_writes(checks=False)
    assert not climber.sequences_writes(checks=True)


def test_without_checks_a_second_write_is_not_refused(tmp_path: Path) -> None:
    sandbox, workspace = host_sandbox(tmp_path / "trial")
    config = preset("climber@none", planner=False, probe_commands=False)
    config = config.with_settings({"auto_verify": False})
    task = Task(id="two", instruction="Write /app/a.txt and /app/b.txt.", format=TaskFormat.INLINE)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(task, sandbox, time.monotonic() + 60, log_dir)
    writes = [write(f"/app/{name}.txt", name) for name in "ab"]
    model = ScriptedModel([*writes, '{"name": "task_complete", "arguments": {}}'])
    outcome = HarnessAgent(model, config).run(ctx)
    assert (workspace / "a.txt").read_text() == "a" and (workspace / "b.txt").read_text() == "b"
    assert outcome.info["denials"] == 0
    model.assert_complete()
