"""Reading the instruction (`harness/instruction.py`): one resolver for the paths it names,
in whatever folder the task works."""

from __future__ import annotations

import pytest

from hillclimber.harness.instruction import named_paths, protected_files


@pytest.mark.parametrize("workdir", ["/app", "/workspace", "/home/agent"])
def test_a_relative_path_is_in_the_tasks_own_folder(workdir: str) -> None:
    text = "Read data/input.csv and write out.txt. Do not change data/input.csv."
    assert named_paths(text, workdir) == [f"{workdir}/data/input.csv", f"{workdir}/out.txt"]
    assert protected_files(text, workdir) == {f"{workdir}/data/input.csv"}


def test_absolute_paths_stay_as_written() -> None:
    text = "Save /tmp/result.json. Never modify /etc/app.conf."
    assert named_paths(text, "/workspace") == ["/tmp/result.json", "/etc/app.conf"]
    assert protected_files(text, "/workspace") == {"/etc/app.conf"}


def test_a_trailing_full_stop_is_not_part_of_the_name() -> None:
    assert named_paths("Write the count to count.txt.") == ["/app/count.txt"]
