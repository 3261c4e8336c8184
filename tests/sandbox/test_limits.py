"""Resource limits: each ended with its reason in words is in the conformance list
(`conformance/limits.py`); here, what the machine enforces, no limits when none are asked, no
control group left behind, and at the run's level, a trial whose command allocates 30 GB ends
`resource_limit` while the other trials go on."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hillclimber.sandbox import SandboxKind, create_sandbox, trial_layout
from hillclimber.sandbox.limits import NO_LIMITS, Confinement, enforcement, group_folders

from conformance.limits import GRADUAL, SMALL
from conftest import FIXTURES, IN_CI, hc, missing, require_sandbox


def test_every_limit_is_enforced_here() -> None:
    """What the machine can enforce is recorded with every run; CI's machines enforce all."""
    found = enforcement()
    assert set(found) == {"memory", "processes", "file size"}
    if IN_CI:
        assert "not enforced" not in found.values(), found


def test_no_limits_when_asked(tmp_path: Path) -> None:
    require_sandbox(SandboxKind.BWRAP)
    with create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path, limits=NO_LIMITS)) as box:
        result = box.run("head -c 10M /dev/zero | wc -c", timeout=30)
    assert result.ok and result.stdout.strip() == str(10 << 20)


@pytest.mark.slow
def test_a_trial_that_allocates_30_gb_ends_resource_limit_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    """One script for both trials: where the sales data is, the command asks for 30 GB;
    elsewhere it writes the greeting."""
    command = (
        "if [ -d /app/data ]; then python3 -c \"b = b'x' * (30 << 30)\"; "
        "else echo 'Hello, world!' > /app/hello.txt; fi"
    )
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            [
                json.dumps({"name": "run_command", "arguments": {"command": command}}),
                json.dumps({"name": "task_complete", "arguments": {}}),
            ]
        )
    )
    ran = hc(
        "bench", "--dataset", str(FIXTURES / "tb2"), "--tasks", "fx-hello,fx-sales-total",
        "--model", f"scripted:{answers}", "--preset", "naive", "-n", "1",
        "--run-id", "r", "--runs-dir", str(tmp_path / "runs"),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    run = tmp_path / "runs" / "r"
    summary = json.loads((run / "result.json").read_text())
    assert summary["tasks"] == {"fx-hello": ["passed"], "fx-sales-total": ["resource_limit"]}
    trial = json.loads((run / "fx-sales-total.1" / "result.json").read_text())
    assert "memory limit" in trial["message"]
    assert trial["agent_info"]["limits_hit"] == 1
    config = json.loads((run / "config.json").read_text())
    assert config["limits"]["memory_mb"] == 4096 and config["limits_enforced"]


def test_a_models_commands_never_run_unisolated_without_unsafe(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([json.dumps({"name": "task_complete", "arguments": {}})]))
    common = (
        "bench", "--dataset", str(FIXTURES / "tb2"), "--tasks", "fx-hello",
        "--model", f"scripted:{answers}", "--sandbox", "local", "--runs-dir", str(tmp_path),
    )  # fmt: skip
    refused = hc(*common, "--run-id", "refused")
    assert refused.returncode == 2 and "--unsafe" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "refused").exists()
    allowed = hc(*common, "--unsafe", "--run-id", "allowed")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads((tmp_path / "allowed" / "config.json").read_text())["unsafe"] is True
    oracle = hc("bench", "--dataset", str(FIXTURES / "tb2"), "--tasks", "fx-hello",
                "--agent", "oracle", "--sandbox", "local", "--run-id", "oracle",
                "--runs-dir", str(tmp_path))  # fmt: skip
    assert oracle.returncode == 0, oracle.stderr


def test_no_control_group_is_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command's group is removed after it, even when its processes are still exiting;
    one that holds what a command left running, when the trial (its session) ends."""
    require_sandbox(SandboxKind.BWRAP)
    if not group_folders():
        missing("control groups to make")
    made: list[Path] = []  # this test's groups only: other workers make their own meanwhile
    make = Confinement._make

    def recorded(self: Confinement, path: Path) -> Path | None:
        made.append(path)
        return make(self, path)

    monkeypatch.setattr(Confinement, "_make", recorded)
    with create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path, limits=SMALL)) as box:
        for _ in range(20):
            box.run("echo hi & sleep 0.01", timeout=10)
        box.run(GRADUAL, timeout=60)  # killed by the kernel
    assert len(made) >= 21
    deadline = time.monotonic() + 5
    while (left := {path for path in made if path.exists()}) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == set()
