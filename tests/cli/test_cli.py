"""The command line as a user meets it: one-line errors, exit codes, the main commands."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hillclimber.image import find_engine
from hillclimber.sandbox import SandboxKind

from conftest import FIXTURES, hc, require_sandbox, user_env


@pytest.mark.parametrize(
    ("bad", "names"),
    [
        ("bad-toml", ["bad-toml/task.toml", "line 2"]),
        ("missing-tests", ["missing-tests/tests/test.sh", "'tests'"]),
        ("no-instruction", ["no-instruction/instruction.md", "'instruction'"]),
        ("manifest-wrong-type.json", ["manifest-wrong-type.json", "tasks[0].timeout_seconds"]),
    ],
)
def test_bad_input_is_one_line_naming_file_and_field(bad: str, names: list[str]) -> None:
    result = hc("tasks", "list", "--dataset", str(FIXTURES / "bad" / bad))
    assert result.returncode == 2
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for name in names:
        assert name in lines[0]


def test_a_bad_task_in_a_suite_run_does_not_stop_the_others(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    dataset.mkdir()
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", dataset / "fx-hello")
    shutil.copytree(FIXTURES / "bad" / "no-instruction", dataset / "no-instruction")
    result = hc(
        "bench",
        "--agent",
        "oracle",
        "--dataset",
        str(dataset),
        "--run-id",
        "r",
        "--runs-dir",
        str(tmp_path / "runs"),
    )
    assert result.returncode == 2
    assert "no-instruction/instruction.md" in result.stderr
    summary = json.loads((tmp_path / "runs" / "r" / "result.json").read_text())
    assert summary["tasks"] == {"fx-hello": ["passed"]}
    assert len(summary["invalid_tasks"]) == 1


@pytest.mark.parametrize("sandbox", ["bwrap", "namespace", "local"])
def test_bench_on_the_tb2_fixtures_with_each_sandbox(sandbox: str, tmp_path: Path) -> None:
    require_sandbox(SandboxKind(sandbox))
    result = hc(
        "bench",
        "--agent",
        "oracle",
        "--dataset",
        str(FIXTURES / "tb2"),
        "--sandbox",
        sandbox,
        "--run-id",
        "r",
        "--runs-dir",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert "3/3 passed" in result.stdout
    summary = json.loads((tmp_path / "r" / "result.json").read_text())
    assert summary["totals"]["passed"] == 3
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["n_concurrent"] == 2  # no model to share: two trials at a time
    trial = json.loads((tmp_path / "r" / "fx-hello.1" / "result.json").read_text())
    assert trial["sandbox"] == sandbox
    assert trial["sandbox_isolated"] is (sandbox != "local")


def test_bench_tb1_and_manifest(tmp_path: Path) -> None:
    tb1 = hc(
        "bench",
        "--agent",
        "oracle",
        "--dataset",
        str(FIXTURES / "tb1"),
        "--run-id",
        "a",
        "--runs-dir",
        str(tmp_path),
    )
    assert tb1.returncode == 0 and "1/1 passed" in tb1.stdout
    # The fixture manifest has no reference solutions: the oracle says so, nop fails them all.
    manifest = str(FIXTURES / "json" / "mini-manifest.json")
    oracle = hc(
        "bench",
        "--agent",
        "oracle",
        "--dataset",
        manifest,
        "--run-id",
        "b",
        "--runs-dir",
        str(tmp_path),
    )
    assert oracle.returncode == 0 and "unsupported 3" in oracle.stdout
    assert "no reference solution" in oracle.stdout
    nop = hc(
        "bench",
        "--dataset",
        manifest,
        "--agent",
        "nop",
        "--run-id",
        "c",
        "--runs-dir",
        str(tmp_path),
    )
    assert nop.returncode == 0 and "0/3 passed" in nop.stdout and "failed 3" in nop.stdout


def test_tasks_list_show_and_check() -> None:
    listed = hc("tasks", "list", "--suite", "mini")
    assert listed.returncode == 0
    assert "hello-file" in listed.stdout and "tier-3" in listed.stdout
    shown = hc("tasks", "show", "word-count", "--suite", "mini")
    assert shown.returncode == 0 and "wc -w" in shown.stdout
    checked = hc("tasks", "check", "--dataset", str(FIXTURES / "tb2"))
    assert checked.returncode == 0 and "3/3 tasks can run here" in checked.stdout


def test_tasks_check_says_why_a_task_cannot_run(tmp_path: Path) -> None:
    task = tmp_path / "ds" / "needs-stuff"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", task)
    (task / "environment" / "Dockerfile").write_text(
        "FROM python:3.13-slim\nWORKDIR /app\n"
        "RUN apt-get update && apt-get install -y hc-fake-primer3 git\n"
        "RUN pip install hc-fake-package==1.0\n"
    )
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", tmp_path / "ds" / "fine")
    clones = tmp_path / "ds" / "clones"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", clones)
    (clones / "environment" / "Dockerfile").write_text(
        "FROM python:3.13-slim\nWORKDIR /app\nRUN git clone https://hc-nowhere.invalid/x.git\n"
    )
    checked = hc("tasks", "check", "--dataset", str(tmp_path / "ds"))
    assert checked.returncode == 0
    assert "hc-fake-primer3" in checked.stdout and "hc-fake-package" in checked.stdout
    assert "git" not in checked.stdout.split("hc-fake-primer3")[1].split("\n")[0]
    if isinstance(find_engine(), str):  # no engine: the packages are why it cannot run
        assert "1/3 tasks can run here" in checked.stdout
        return
    # with an engine the task goes to its image; the one whose build downloads from a host no
    # build reaches is told so, with the host, without building
    assert "downloads from hc-nowhere.invalid" in checked.stdout
    said = "2/3 tasks can run here (1 in bwrap, 1 in their image, built or found by --build)"
    assert said in checked.stdout
    built = hc("tasks", "check", "--dataset", str(tmp_path / "ds"), "--build")
    assert built.returncode == 0, built.stderr
    said = "1/3 tasks can run here (1 in bwrap, 0 in their image: 0 built now, 0 found built; "
    assert said + "1 failed to build)" in built.stdout
    assert "Dockerfile:3:" in built.stdout and "hc-fake-primer3" in built.stdout


def test_unknown_suite_agent_and_task_pattern_are_clear_errors() -> None:
    for args, words in [
        (("bench", "--suite", "nope"), "no suite 'nope'"),
        (("bench", "--agent", "nobody"), "unknown agent 'nobody'"),
        (("bench", "--set", "nope=1"), "--set nope=1"),
        (("bench", "--set", "tools=run_command,bogus"), "tools must be among"),
        (("bench", "--preset", "turbo"), "'turbo' is neither a preset"),
        (("bench", "--agent", "oracle", "--suite", "mini", "--tasks", "zzz-*"), "zzz-*"),
        (
            ("bench", "--agent", "oracle", "--suite", "mini", "--exclude", "*"),
            "mini: no task to run: --exclude leaves none",
        ),
        (("bench", "--agent", "oracle", "--suite", "mini", "--shard", "3/2"), "--shard 3/2"),
        (
            ("bench", "--agent", "oracle", "--suite", "mini", "-t", "hello-file", "--shard", "2/2"),
            "--shard 2/2 leaves none of the 1 chosen",
        ),
        (
            ("compare", "--dataset", str(FIXTURES / "bad" / "no-instruction")),
            "no task to run: 1 could not be read",
        ),
    ]:
        result = hc(*args)
        assert result.returncode == 2
        assert words in result.stderr and "Traceback" not in result.stderr


HELLO_INSTRUCTION = "Create a file hello.txt whose only line is exactly:\n\nHello, world!"


def call(name: str, **arguments: str) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def run_writing(
    folder: Path, instruction: str, path: str, content: str
) -> subprocess.CompletedProcess[str]:
    """`hillclimber run` in `folder` with a scripted model (fm, no planner, no proposals) that
    writes `content` to `path`, then says it is done twice."""
    script = folder.parent / "answers.json"
    done = call("task_complete")
    script.write_text(json.dumps([call("write_file", path=path, content=content), done, done]))
    return hc(
        "run", instruction, "--model", f"scripted:{script}", "--preset", "fm",
        "--set", "checks.propose=false", "--set", "planner=false",
        "--runs-dir", str(folder.parent / "records"), cwd=folder,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("content", "ends"),
    [("Hello, world!\n", "verified_self"), ("Hello world\n", "unverified")],
    ids=["right", "wrong"],
)
def test_run_works_on_the_folder_and_ends_on_its_own_checks(
    tmp_path: Path, content: str, ends: str
) -> None:
    """`run` has no tests: it makes acceptance checks, and ends verified_self only when every
    one passes — never a bare `completed`. It works on the folder it is started in, speaks of
    its files by their paths there, and keeps its record elsewhere."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.md").write_text("mine\n")
    result = run_writing(folder, HELLO_INSTRUCTION, "hello.txt", content)
    assert result.returncode == 0, result.stderr
    assert "acceptance checks made: 2" in result.stdout
    assert f"{folder}/hello.txt has only the line 'Hello, world!'" in result.stdout
    assert "/app" not in result.stdout
    assert f"{ends} after" in result.stdout and "completed" not in result.stdout
    grade = "verified" if ends == "verified_self" else "failed"
    assert result.stdout.strip().splitlines()[-1].endswith(f"feedback self; grade {grade}")
    assert (folder / "hello.txt").read_text() == content  # worked on where it stands
    assert (folder / "notes.md").read_text() == "mine\n"
    assert sorted(p.name for p in folder.iterdir()) == ["hello.txt", "notes.md"]
    trial = json.loads(next(tmp_path.glob("records/run__*/run.1/result.json")).read_text())
    assert trial["exit_reason"] == ends and trial["feedback"] == "self"
    assert trial["agent_info"]["checks_model_calls"] == 0


def test_run_with_weak_checks_only_is_never_verified_self(tmp_path: Path) -> None:
    """Its only check says the file is there: any content passes it, so `run` cannot vouch for
    it — the model confirms what it was shown, and the run ends `unverified`."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "numbers.txt").write_text("3\n4\n5\n")
    instruction = "Write the sum of the numbers in numbers.txt to total.txt."
    result = run_writing(folder, instruction, "total.txt", "12\n")
    assert result.returncode == 0, result.stderr
    trial = json.loads(next(tmp_path.glob("records/run__*/run.1/result.json")).read_text())
    assert trial["agent_info"]["loop_exit"] == "confirmed"
    assert trial["exit_reason"] == "unverified" and "weak checks only" in trial["message"]
    assert trial["grade"] == "plausible"
    assert result.stdout.strip().splitlines()[-1].endswith("grade plausible")


def test_run_keeps_its_record_in_hillclimbers_home_not_in_the_folder(tmp_path: Path) -> None:
    """A user's project (a git checkout, say) gets no `runs/` folder of ours."""
    folder = tmp_path / "project"
    folder.mkdir()
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([call("task_complete")] * 3))
    env = user_env() | {"HILLCLIMBER_HOME": str(tmp_path / "home")}
    ran = subprocess.run(
        [sys.executable, "-m", "hillclimber", "run", "Create notes.txt", "--model",
         f"scripted:{script}", "--preset", "fm", "--set", "planner=false"],
        cwd=folder, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert list(folder.iterdir()) == []
    assert list((tmp_path / "home" / "runs").glob("run__*/run.1/result.json"))


def test_the_prompts_are_copied_changed_checked_and_used(tmp_path: Path) -> None:
    """`prompts copy` writes the shipped templates; a changed one is checked, shown, and a
    mistake in one is a one-line error naming its file and key, before any trial."""
    mine = tmp_path / "mine"
    assert hc("prompts", "copy", str(mine)).returncode == 0
    again = hc("prompts", "copy", str(mine))
    assert again.returncode == 2 and "already there (--force replaces them)" in again.stderr
    rules = mine / "rules.toml"
    rules.write_text(rules.read_text().replace("a careful terminal agent", "a terse agent"))
    checked = hc("prompts", "check", str(mine))
    assert checked.returncode == 0 and "1 of" in checked.stdout and "rules.intro" in checked.stdout
    shown = hc("prompts", "show", "rules.intro", "--prompts", str(mine))
    assert "You are a terse agent. You act only through tools." in shown.stdout
    rules.write_text(rules.read_text().replace("$workdir;", "$folder;"))
    for call in (("prompts", "check", str(mine)), ("run", "echo", "--set", f"view.prompts={mine}")):
        failed = hc(*call)
        assert failed.returncode == 2 and "Traceback" not in failed.stderr
        assert [ln for ln in failed.stderr.splitlines() if ln.strip()] == [
            f"error: {rules}: paths: unknown placeholder $folder (offered: $workdir)"
        ]
