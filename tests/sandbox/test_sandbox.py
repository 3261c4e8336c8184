"""What one back end does that the others do not (what they all do is the conformance list:
`test_conformance.py`): the local sandbox's path rewriting, and a folder worked on where it is
with the run's own record hidden in it."""

from __future__ import annotations

from pathlib import Path

from hillclimber.sandbox import (
    Layout,
    Mount,
    SandboxKind,
    create_sandbox,
    rewrite_paths,
    trial_layout,
)

from conftest import require_sandbox


def test_local_rewrites_sandbox_paths_as_whole_components(tmp_path):
    layout = Layout(mounts=(Mount("/app", tmp_path / "ws"), Mount("/tests", tmp_path / "t")))
    ws, t = tmp_path / "ws", tmp_path / "t"
    assert rewrite_paths("cat /app/x.txt", layout) == f"cat {ws}/x.txt"
    assert rewrite_paths("cd /app && ls", layout) == f"cd {ws} && ls"
    assert rewrite_paths("python3 /tests/t.py '/app'", layout) == f"python3 {t}/t.py '{ws}'"
    assert rewrite_paths("ls /application /data/app /app.bak", layout) == (
        "ls /application /data/app /app.bak"
    )


def test_a_folder_worked_on_where_it_is_with_its_run_record_hidden(tmp_path: Path) -> None:
    """`hillclimber run` works on the user's folder; its record under runs/ there is out of
    the model's sight and survives the workspace being put back."""
    require_sandbox(SandboxKind.BWRAP)
    folder = tmp_path / "project"
    (folder / "runs" / "r1").mkdir(parents=True)
    (folder / "runs" / "r1" / "result.json").write_text("{}")
    (folder / "main.py").write_text("print(1)\n")
    layout = trial_layout(tmp_path / "trial", workspace=folder, hidden=["/app/runs"])
    sandbox = create_sandbox(SandboxKind.BWRAP, layout)
    assert sandbox.run("ls -A /app/runs", timeout=10).stdout == ""
    assert not sandbox.run("touch /app/runs/x", timeout=10).ok
    assert sandbox.run("echo 2 > /app/new.txt", timeout=10).ok
    assert (folder / "new.txt").read_text() == "2\n"
    snapshot = sandbox.snapshot("/app")
    (folder / "main.py").unlink()
    (folder / "runs" / "r2").mkdir()  # the record grows while the workspace is tried
    snapshot.restore()
    snapshot.discard()
    assert (folder / "main.py").read_text() == "print(1)\n"
    assert sorted(p.name for p in (folder / "runs").iterdir()) == ["r1", "r2"]
