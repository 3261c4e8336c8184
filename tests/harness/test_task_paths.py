"""The paths of a task read against a real sandbox (`harness/task_paths.py`)."""

from __future__ import annotations

from pathlib import Path

from hillclimber.harness.task_paths import TaskPaths

from conftest import host_sandbox


def test_bare_names_and_folders_are_read_where_the_files_are(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "disk").mkdir()
    (root / "disk" / "df.txt").write_text("used 10\n")
    (root / "disk" / "du.txt").write_text("used 4\n")
    (root / "scans" / "2024").mkdir(parents=True)
    (root / "scans" / "2024" / "a.json").write_text("{}")
    instruction = (
        "The reports are in `/app/disk/`:\n- `df.txt`\n- `du.txt`\n\nThe scans are in "
        "`/app/scans/`. Write the gap to `/app/gap.txt`. Do not change `du.txt`."
    )
    paths = TaskPaths.read(instruction, sandbox, "/app")
    assert paths.named == (
        "/app/disk",
        "/app/disk/df.txt",
        "/app/disk/du.txt",
        "/app/scans",
        "/app/gap.txt",
    )
    assert paths.protected == {"/app/disk/du.txt"}
    assert paths.inputs == {"/app/disk/df.txt", "/app/scans/2024/a.json"}
    assert paths.outputs == frozenset()
