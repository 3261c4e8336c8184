"""An append with its text quoted is checked as a value: the file is what it was with that
text after its last line, and nothing else (no blank line, no second copy, no line lost)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.harness.checks import build_checks
from hillclimber.harness.checks.edits import FileAppended

from conftest import host_sandbox

LOG = "09:14 start\n09:16 checksum ok\n"

APPENDS = [
    ("/app/log.txt is a log file with a few lines. Append a line containing exactly `[DONE]` at "
     "the end, so that it becomes the last line of the file.", "[DONE]"),
    ("Append the line `[DONE]` to /app/log.txt.", "[DONE]"),
    ("Please append `[DONE]` to /app/log.txt as its final line.", "[DONE]"),
    ("Append these lines to /app/log.txt:\n\n```\n09:20 stop\n[DONE]\n```", "09:20 stop\n[DONE]"),
]  # fmt: skip


def _appended(instruction: str, tmp_path: Path) -> list[FileAppended]:
    sandbox, root = host_sandbox(tmp_path)
    (root / "log.txt").write_text(LOG)
    return [c for c in build_checks(instruction, sandbox).checks if isinstance(c, FileAppended)]


@pytest.mark.parametrize(("instruction", "added"), APPENDS)
def test_an_append_with_its_text_quoted_is_a_value_check(
    instruction: str, added: str, tmp_path: Path
) -> None:
    [check] = _appended(instruction, tmp_path)
    assert check.added == added and check.strength == "value"
    assert check.judge(LOG + added + "\n").passed
    assert check.judge(LOG + added).passed  # no newline at the end: the same lines


@pytest.mark.parametrize(
    "instruction",
    [
        "Append a line to /app/log.txt with `echo` and `>>`.",  # a way to do it, not the text
        "Append the current time to /app/log.txt, e.g. `09:30`.",  # an example, not the text
        "Append the lines `a` and `b` to /app/log.txt.",  # two texts: which order is not said
        "Add a summary line to /app/log.txt.",  # nothing quoted
        "Append a line containing `ERROR` and the time to /app/log.txt.",  # the line holds more
    ],
)
def test_no_append_check_where_the_text_to_add_is_not_quoted_alone(
    instruction: str, tmp_path: Path
) -> None:
    assert _appended(instruction, tmp_path) == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (LOG + "\n[DONE]\n", "a blank line before it"),
        (LOG + "[DONE]\n[DONE]\n", "added twice"),
        ("09:14 start\n[DONE]\n", "a line lost"),
        ("[DONE]\n" + LOG, "at the start"),
        (LOG.rstrip("\n") + "[DONE]\n", "joined to the last line"),
    ],
)
def test_anything_but_the_text_after_the_old_lines_fails(text: str, why: str) -> None:
    assert not FileAppended("/app/log.txt", LOG, "[DONE]").judge(text).passed, why
