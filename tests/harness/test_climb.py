"""Climbing's parts: putting the workspace back, and which candidate is applied."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hillclimber.harness.acting.tools import ACTING_TOOLS, ToolCall, ToolResult
from hillclimber.harness.climbing.candidate import Candidate, pick
from hillclimber.harness.climbing.reasking import Target
from hillclimber.harness.climbing.step import Climb, FileState, _printed, targets
from hillclimber.harness.prompting.templates import shipped
from hillclimber.sandbox.workspace import fits, kept_files, lines_lost, restored
from hillclimber.verify.verifier import Evaluation

from conftest import host_sandbox


def candidate(
    name: str,
    passing: int,
    success: bool = True,
    lost: int = 0,
    origin: str = "model",
    weak: tuple[int, int] = (0, 0),
) -> Candidate:
    return Candidate(
        ToolCall(name=name), "", success, passing, 4, lost=lost, origin=origin,
        weak=weak[0], weak_total=weak[1], borrowed=origin in ("tool", "plan"),
    )  # fmt: skip


def test_the_workspace_is_put_back_exactly(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "sub").mkdir(parents=True)
    (root / "keep.txt").write_text("one\n")
    (root / "sub" / "run.sh").write_text("echo hi\n")
    (root / "sub" / "run.sh").chmod(0o755)
    (root / "link").symlink_to("keep.txt")
    with restored(sandbox, "/app"):
        (root / "keep.txt").write_text("changed\n")
        (root / "new.txt").write_text("new\n")
        (root / "sub" / "run.sh").unlink()
        (root / "link").unlink()
        (root / "newdir").mkdir()
    assert sorted(p.name for p in root.iterdir()) == ["keep.txt", "link", "sub"]
    assert (root / "keep.txt").read_text() == "one\n"
    assert os.readlink(root / "link") == "keep.txt"
    assert (root / "sub" / "run.sh").stat().st_mode & 0o777 == 0o755


def test_the_workspace_is_put_back_when_the_attempt_raises(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "a.txt").write_text("a")
    with pytest.raises(RuntimeError), restored(sandbox, "/app"):
        (root / "a.txt").unlink()
        raise RuntimeError("boom")
    assert (root / "a.txt").read_text() == "a"


def test_the_files_a_task_names_elsewhere_are_put_back(tmp_path: Path) -> None:
    """The files a task names outside its working folder (an answer under /solution, an input
    under /data) are put back after a try too: a changed one, one made where none was, a
    folder made where none was."""
    sandbox, root = host_sandbox(tmp_path)
    (root / "input.db").write_bytes(b"SQLite format 3\x00rows")
    paths = ["/app/input.db", "/app/answer.txt", "/app/restore/db"]
    with kept_files(sandbox, paths):
        (root / "input.db").write_text("CREATE TABLE t (a);\n")
        (root / "answer.txt").write_text("42\n")
        (root / "restore" / "db").mkdir(parents=True)
        (root / "restore" / "db" / "f").write_text("x")
    assert (root / "input.db").read_bytes() == b"SQLite format 3\x00rows"
    assert not (root / "answer.txt").exists() and not (root / "restore" / "db").exists()


def test_large_workspaces_are_not_copied(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "big.bin").write_bytes(b"x" * 2048)
    assert fits(sandbox, "/app")
    assert not fits(sandbox, "/app", max_bytes=1024)
    assert not fits(sandbox, "/app", max_files=0)


def test_pick_takes_the_candidate_that_passes_more_tests() -> None:
    tried = [candidate("edit_file", 1), candidate("run_command", 3), candidate("write_file", 3)]
    assert pick(tried, 1) is tried[1]


def test_pick_keeps_the_models_own_call_when_nothing_is_better() -> None:
    tried = [candidate("read_file", 1, success=False), candidate("run_command", 1)]
    assert pick(tried, 1) is tried[0]  # its failure is worth showing to the model


def test_pick_never_applies_a_step_that_loses_tests() -> None:
    tried = [candidate("run_command", 0), candidate("write_file", 2)]
    assert pick(tried, 2) is tried[1]
    assert pick([candidate("run_command", 0), candidate("write_file", 1, False)], 2) is None
    assert pick([], 0) is None


def test_pick_after_a_refused_call_applies_only_a_gain() -> None:
    assert pick([candidate("write_file", 1)], 1, own=False) is None
    gain = candidate("write_file", 2)
    assert pick([candidate("run_command", 1), gain], 1, own=False) is gain


def test_after_a_refused_call_a_borrowed_gain_of_weak_checks_only_is_not_applied() -> None:
    """The 1.5B's edit of an input was refused; another tool's answer wrote `... (heatmap
    content here) ...` as the PNG and passed "exists" (weak), not "is a PNG file" (form)."""
    # checks: exists (weak), a PNG file (form), the input left as it was (weak, passing)
    stub = candidate("write_file", 2, origin="tool", weak=(2, 2))
    assert pick([stub], 1, own=False, strong_now=0) is None
    png = candidate("run_command", 3, origin="tool", weak=(2, 2))  # a real PNG: one more strong
    assert pick([stub, png], 1, own=False, strong_now=0) is png
    reading = candidate("write_file", 2, origin="reading", weak=(2, 2))  # of the model's own
    assert pick([reading], 1, own=False, strong_now=0) is reading


def test_a_step_that_gains_nothing_may_not_remove_lines() -> None:
    """The 0.5B's own edit APP_PORT -> 9090 broke a line and passed no more tests."""
    damage = candidate("edit_file", 3, lost=1)
    assert pick([damage], 3) is None
    new_file = candidate("write_file", 3)  # a plateau step that destroys nothing is fine
    assert pick([damage, new_file], 3) is new_file
    fix = candidate("edit_file", 4, lost=1)  # removing lines is fine when tests gain
    assert pick([damage, fix], 3) is fix


def test_a_gain_of_weak_checks_only_does_not_replace_the_models_harmless_call() -> None:
    """word-count with the 0.5B: its own `wc -w` was replaced by a write of the input's text to
    count.txt, which passed "exists and is not empty" and nothing that shows the count."""
    # checks: 2 weak (exists, a number) and 2 that show more (holds only 36, input unchanged)
    look = candidate("run_command", 1, weak=(0, 2))
    garbage = candidate("write_file", 2, origin="tool", weak=(1, 2))
    assert pick([look, garbage], 1) is look
    answer = candidate("write_file", 4, origin="tool", weak=(2, 2))
    assert pick([look, garbage, answer], 1) is answer
    # another tool's weak gain is not applied where the model's call damages or fails either
    # (on unseen tasks it was the instruction's example, or a stub, written to pass "exists");
    # where the model's call is refused, it is
    assert pick([look, garbage], 1, own=False) is garbage
    damage = candidate("edit_file", 1, lost=3, weak=(0, 2))
    assert pick([damage, garbage], 1) is None
    failed = candidate("run_command", 1, False, weak=(0, 2))
    assert pick([failed, garbage], 1) is failed
    # a reading of the model's own failed call is what it meant: its weak gain is applied
    meant = candidate("write_file", 2, origin="reading", weak=(1, 2))
    assert pick([failed, meant], 1) is meant
    # where every check is weak, weak checks are all there is to climb on
    assert (
        pick(
            [candidate("run_command", 1, weak=(1, 4)), candidate("write_file", 2, weak=(2, 4))], 1
        ).passing
        == 2
    )


def test_of_the_gains_the_one_that_shows_more_is_applied() -> None:
    more_weak = candidate("write_file", 3, weak=(3, 3))
    one_strong = candidate("edit_file", 2, weak=(1, 3))
    assert pick([more_weak, one_strong], 1) is one_strong


def test_of_equal_steps_the_one_that_destroys_less_is_applied() -> None:
    overwrite = candidate("write_file", 1, lost=5)
    append = candidate("run_command", 1)
    assert pick([overwrite, append], 0) is append


def test_lines_lost_counts_removed_lines_and_deleted_files(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)

    def lost(before: dict[str, bytes], after: dict[str, bytes]) -> int:
        for name, data in before.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        with restored(sandbox, "/app") as saved:
            for name in before:
                (root / name).unlink()
            for name, data in after.items():
                (root / name).write_bytes(data)
            return lines_lost(saved, sandbox, "/app")

    before = {"log.txt": b"a\nb\nc\n", "gone.txt": b"x\ny\n"}
    after = {"log.txt": b"a\nc\n[DONE]\n", "new.txt": b"new\n"}  # b removed, a line added
    assert lost(before, after) == 3
    # neither git's files nor binary files have lines anybody would miss
    before |= {".git/ORIG_HEAD": b"before\n", "data.bin": b"DIRC\0\x01a\nb\n"}
    after |= {".git/ORIG_HEAD": b"after\n", "data.bin": b"DIRC\0\x02c\n"}
    assert lost(before, after) == 3


def test_targets_are_the_other_tools_and_the_other_files_the_task_names() -> None:
    own = ToolCall(name="edit_file", arguments={"path": "/app/app.ini"})
    files: list[FileState] = [
        ("/app/app.ini", "file"),
        ("/app/docker.env", "file"),
        ("/app/report.csv", "missing"),
        ("/app/91.5", "missing"),  # a number in the text, not a file name
        ("/app/data", "other"),
    ]
    pool = targets(own, "/app/app.ini", set(ACTING_TOOLS), files)
    assert pool == [
        Target("run_command"),
        Target("write_file"),
        Target("edit_file", "/app/docker.env"),
        Target("write_file", "/app/report.csv"),
    ]
    assert targets(own, "/app/app.ini", {"run_command"}, files) == [Target("run_command")]


def test_the_least_asked_targets_come_first(tmp_path: Path) -> None:
    def no_tests() -> Evaluation:
        raise AssertionError("not run here")

    sandbox, _ = host_sandbox(tmp_path)
    climb = Climb(sandbox, "/app", lambda call: ToolResult(True, ""), no_tests)
    pool = [Target("run_command"), Target("write_file"), Target("edit_file", "/app/b.txt")]
    assert climb.order(pool) == pool
    climb.asked[Target("run_command")] += 1
    climb.asked[Target("write_file")] += 1
    assert climb.order(pool)[0] == Target("edit_file", "/app/b.txt")


def test_what_the_tests_write_is_not_counted_against_a_candidate(tmp_path: Path) -> None:
    """The tests may write into the workspace themselves (git refreshes its files on
    `git status`): a candidate is charged only with what it did."""
    sandbox, root = host_sandbox(tmp_path)
    (root / "notes.txt").write_text("one\ntwo\n")

    def tests_that_write() -> Evaluation:
        (root / "notes.txt").write_text("rewritten by the tests\n")
        return Evaluation(passed=False, passing=1, total=2)

    climb = Climb(sandbox, "/app", lambda call: ToolResult(True, ""), tests_that_write)
    tried = climb.attempt(ToolCall(name="run_command", arguments={"command": "true"}), "")
    assert tried.lost == 0 and tried.passing == 1
    assert (root / "notes.txt").read_text() == "one\ntwo\n"  # put back


def test_a_failing_call_gives_way_to_a_reading_of_it_that_succeeds_and_harms_nothing() -> None:
    own = candidate("run_command", 1, success=False)
    elsewhere = candidate("run_command", 1, origin="reading")
    other_tool = candidate("write_file", 1, origin="tool")
    assert pick([own, other_tool, elsewhere], 1) is elsewhere
    assert pick([own, other_tool], 1) is own  # only a reading says what the model meant
    damaging = candidate("run_command", 1, lost=3, origin="reading")
    assert pick([own, damaging], 1) is own


def test_what_a_command_tried_and_not_applied_printed_is_shown() -> None:
    """The plan's `grep` found the setting the task asks about; the model never ran it."""
    write = candidate("write_file", 2)
    grep = Candidate(
        ToolCall(name="run_command", arguments={"command": "grep timeout nginx.conf"}),
        "", True, 1, 4, output="proxy_read_timeout 60s;\n", origin="plan",
    )  # fmt: skip
    silent = Candidate(ToolCall(name="run_command", arguments={"command": "true"}), "", True, 1, 4)
    assert _printed([write, silent, grep], write, shipped()) == (
        "Tried too, not applied: `grep timeout nginx.conf` printed:\nproxy_read_timeout 60s;"
    )
    assert _printed([write, grep], grep, shipped()) == ""
    assert _printed([write], write, shipped()) == ""
