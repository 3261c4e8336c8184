"""Resource limits per command: memory, processes, file size, output and the trial's folders,
each ended with its reason in words, in each isolating sandbox; and at the run's level, a trial
whose command allocates 30 GB ends `resource_limit` while the other trials go on."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from hillclimber.sandbox import Sandbox, SandboxKind, create_sandbox, trial_layout
from hillclimber.sandbox.limits import ResourceLimits, enforcement, group_folders

from conftest import FIXTURES, IN_CI, hc, require_sandbox

ISOLATING = [SandboxKind.BWRAP, SandboxKind.NAMESPACE]
GRADUAL = "python3 -c \"a = []\nfor _ in range(30000): a.append(b'x' * (1 << 20))\""
AT_ONCE = "python3 -c \"b = b'x' * (30 << 30)\""
SMALL = ResourceLimits(memory_mb=512, processes=64, file_mb=64, output_mb=4, workspace_mb=200)


def sandbox(kind: SandboxKind, root: Path, limits: ResourceLimits = SMALL) -> Sandbox:
    require_sandbox(kind)
    return create_sandbox(kind, trial_layout(root, limits=limits))


def test_every_limit_is_enforced_here() -> None:
    """What the machine can enforce is recorded with every run; CI's machines enforce all."""
    found = enforcement()
    assert set(found) == {"memory", "processes", "file size"}
    if IN_CI:
        assert "not enforced" not in found.values(), found


@pytest.mark.parametrize("kind", ISOLATING, ids=str)
@pytest.mark.parametrize(
    ("command", "words"),
    [
        (GRADUAL, "memory limit (512 MiB)"),
        (AT_ONCE, "memory limit (512 MiB)"),
        ("head -c 100M /dev/zero > /app/big", "file over the size limit (64 MiB)"),
        ("yes", "output limit (4 MiB)"),
        (
            "sleep 1.5; for i in 1 2 3 4 5; do head -c 60M /dev/zero > /tmp/part$i; done; sleep 5",
            "folders past their limit (200 MiB more)",
        ),
    ],
    ids=["memory-gradual", "memory-at-once", "file-size", "output", "folders"],
)
def test_a_command_over_a_limit_is_ended_with_the_reason(
    kind: SandboxKind, command: str, words: str, tmp_path: Path
) -> None:
    result = sandbox(kind, tmp_path).run(command, timeout=60)
    assert result.limit is not None and words in result.limit, (result.limit, result.output)
    assert not result.ok and not result.timed_out


def test_a_fork_bomb_meets_the_process_limit(tmp_path: Path) -> None:
    result = sandbox(SandboxKind.BWRAP, tmp_path).run(
        "bomb() { bomb | bomb & }; bomb; sleep 2", timeout=30
    )
    if "not enforced" not in enforcement()["processes"]:
        assert result.limit is not None and "process limit (64" in result.limit
    assert not result.timed_out


@pytest.mark.parametrize("kind", ISOLATING, ids=str)
def test_commands_within_the_limits_are_untouched(kind: SandboxKind, tmp_path: Path) -> None:
    box = sandbox(kind, tmp_path)
    result = box.run("python3 -c \"b = b'x' * (50 << 20); print(len(b))\"", timeout=30)
    assert (result.ok, result.stdout.strip(), result.limit) == (True, str(50 << 20), None)
    again = box.run("seq 1 100000 | tail -1", timeout=30)
    assert again.ok and again.stdout.strip() == "100000"


def test_no_limits_when_asked(tmp_path: Path) -> None:
    unlimited = dataclasses.replace(
        SMALL, memory_mb=None, processes=None, file_mb=None, output_mb=None, workspace_mb=None
    )
    result = sandbox(SandboxKind.BWRAP, tmp_path, unlimited).run(
        "head -c 10M /dev/zero | wc -c", timeout=30
    )
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


def test_no_control_group_is_left_behind(tmp_path: Path) -> None:
    """Each command's group is removed after it, even when its processes are still exiting;
    one that holds what a command left running, when the trial (its session) ends."""
    parents = group_folders()

    def ours() -> set[Path]:
        return {child for parent in parents for child in parent.glob("hc-*")}

    before = ours()
    with create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path, limits=SMALL)) as box:
        for _ in range(20):
            box.run("echo hi & sleep 0.01", timeout=10)
        box.run(GRADUAL, timeout=60)  # killed by the kernel
    deadline = time.monotonic() + 5  # another run's command on this machine has its own a while
    while (left := ours() - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == set()
