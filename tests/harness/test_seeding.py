"""A corrected version starts as the original (`harness/seeding.py`)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.harness.instruction import named_paths
from hillclimber.harness.presets import preset
from hillclimber.harness.seeding import corrected_versions
from hillclimber.models import ScriptedModel
from hillclimber.task import Task, TaskFormat

from conftest import host_sandbox


@pytest.mark.parametrize(
    ("original", "corrected"),
    [
        ("analyze_data.R", "fixed_analyze_data.R"),
        ("data_processor.py", "data_processor_fixed.py"),
        ("Dockerfile", "fixed_dockerfile.txt"),
        ("app_setup.yml", "app_setup-corrected.yml"),
    ],
)
def test_a_corrected_version_of_a_named_file(original: str, corrected: str, tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / original).write_text("x = 1\n")
    instruction = f"`/app/{original}` fails. Save the fixed version to `/app/{corrected}`."
    named = named_paths(instruction)
    found = corrected_versions(named, sandbox, [f"/app/{corrected}"])
    assert found == [(f"/app/{original}", f"/app/{corrected}")]


@pytest.mark.parametrize(
    ("files", "answer"),
    [
        ({"report.py": "x\n"}, "/app/report_summary.txt"),  # no word of fixing
        ({}, "/app/fixed_report.py"),  # the original is not there
        ({"report.py": "x\n", "fixed_report.py": "y\n"}, "/app/fixed_report.py"),  # made already
        ({"fixed.txt": "x\n"}, "/app/fixed.txt"),  # a name that is only the word
    ],
)
def test_no_copy_where_there_is_no_original_to_correct(
    files: dict[str, str], answer: str, tmp_path: Path
) -> None:
    sandbox, root = host_sandbox(tmp_path)
    for name, text in files.items():
        (root / name).write_text(text)
    instruction = f"Read `/app/report.py` and write `{answer}`."
    assert corrected_versions(named_paths(instruction), sandbox, [answer]) == []


def test_the_loop_starts_the_corrected_version_as_a_copy(tmp_path: Path) -> None:
    """The copy is the harness's step before the first turn, told to the model, which then
    only edits it."""
    sandbox, workspace = host_sandbox(tmp_path / "trial")
    (workspace / "greet.sh").write_text("echo Helo\n")
    instruction = "`/app/greet.sh` prints a typo. Save a fixed version to `/app/greet_fixed.sh`."
    task = Task(id="greet", instruction=instruction, format=TaskFormat.INLINE)
    edit = {"path": "/app/greet_fixed.sh", "old_text": "Helo", "new_text": "Hello"}
    answers = [
        json.dumps({"name": "edit_file", "arguments": edit}),
        json.dumps({"name": "task_complete", "arguments": {}}),
    ]
    chosen = {"planner": False, "probe_commands": False, "propose": False,
              "computed": 0, "candidates": 1, "code": "command", "seed_fixes": True}  # fmt: skip
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    model = ScriptedModel(answers)
    context = AgentContext(task, sandbox, time.monotonic() + 60, log_dir)
    HarnessAgent(model, preset("climber", **chosen)).run(context)
    assert (workspace / "greet_fixed.sh").read_text() == "echo Hello\n"
    assert (workspace / "greet.sh").read_text() == "echo Helo\n"
    first = model.requests[0].messages[-1].content
    assert "/app/greet_fixed.sh starts as a copy of /app/greet.sh (the harness made it)" in first
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    [seeded] = [s for s in steps if (s.get("extra") or {}).get("role") == "harness"]
    assert seeded["tool_calls"][0]["arguments"]["command"].startswith("cp -- /app/greet.sh ")
