"""What a trial's image layer leaves on the host: nothing, even after a run killed twice over."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hillclimber.loaders.dataset import load_task
from hillclimber.sandbox import SandboxKind
from hillclimber.sandbox.container import MOUNTS, undo_mounts
from hillclimber.trial import TrialSpec, run_trial

from conftest import FIXTURES, missing, require_sandbox


def mounted_under(folder: Path) -> list[str]:
    return [line.split()[1] for line in MOUNTS.read_text().splitlines() if str(folder) in line]


def test_mount_points_are_read_from_the_table_as_the_kernel_writes_them(tmp_path: Path) -> None:
    table = tmp_path / "mounts"
    trial = tmp_path / "a run" / "t.1"
    escaped = str(trial).replace(" ", "\\040")
    table.write_text(
        "proc /proc proc rw 0 0\n"
        f"overlay {escaped}/container/root overlay rw,lowerdir=/x 0 0\n"
        f"overlay {escaped}/tries/2/container/root overlay rw 0 0\n"
        f"overlay {escaped}.other/container/root overlay rw 0 0\n"  # another trial's
        "short\n"
    )
    found = undo_mounts(trial, table)  # none of them is mounted: umount fails, quietly
    assert found == [trial / "container" / "root", trial / "tries" / "2" / "container" / "root"]
    assert undo_mounts(trial, tmp_path / "no-table") == []


def test_a_layer_left_mounted_by_a_killed_run_is_undone_when_the_trial_runs_again(
    tmp_path: Path,
) -> None:
    """A second Ctrl-C, or `kill -9`, stops a run before it unmounts a trial's layer; the
    trial runs again on resume, and its folder must not be emptied through the mount."""
    if os.geteuid() != 0:
        missing("root, to mount")
    require_sandbox(SandboxKind.BWRAP)
    task = load_task(FIXTURES / "tb2" / "fx-hello")
    left = tmp_path / f"{task.id}.1" / "tries" / "1" / "container" / "root"
    left.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(left)], check=True)
    try:
        assert mounted_under(tmp_path)
        result = run_trial(TrialSpec(task, 1, tmp_path, "oracle", SandboxKind.BWRAP))
        assert result.passed, result.message
        assert mounted_under(tmp_path) == []
    finally:
        subprocess.run(["umount", "-l", str(left)], capture_output=True, check=False)
