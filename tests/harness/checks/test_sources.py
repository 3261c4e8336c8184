"""A program to make or change must parse in its own language (`checks/sources.py`), and a
Python string literal a line break cut in two is joined again (`parsing/source.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.harness.checks import build_checks
from hillclimber.harness.checks.sources import SourceParses
from hillclimber.harness.parsing.source import python_error, rejoined

from conftest import isolated_sandbox


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        (  # the 1.5B on Terminal-Bench 2: `split('\n')` in its write_file's JSON
            "lines = text.split('\n')\nfirst = lines[0].split('\n')[0]\n",
            "lines = text.split('\\n')\nfirst = lines[0].split('\\n')[0]\n",
        ),
        ("print(f'{n}\n')\n", "print(f'{n}\\n')\n"),
        ('out.write("a\n\n")\n', 'out.write("a\\n\\n")\n'),
    ],
)
def test_a_string_literal_cut_by_a_line_break_is_joined_by_the_escape(
    written: str, meant: str
) -> None:
    assert python_error(written) is not None
    assert rejoined(written) == meant
    assert python_error(meant) is None


@pytest.mark.parametrize(
    "text",
    [
        "print('fine')\n",  # parses: nothing to mend
        "doc = '''two\nlines'''\n",  # a triple-quoted string holds line breaks
        "for i in x: for j in y:\n    pass\n",  # another error: not this one's to mend
        "x = 'open\n",  # joining mends nothing: the literal never closes
    ],
)
def test_only_a_cut_literal_that_joining_mends_is_mended(text: str) -> None:
    assert rejoined(text) is None


def test_a_python_file_to_make_must_parse_and_one_to_change_must_still_parse(
    tmp_path: Path,
) -> None:
    sandbox, root = isolated_sandbox(tmp_path)
    (root / "tool.py").write_text("def main():\n    return 1\n")
    (root / "notes.txt").write_text("x\n")
    built = build_checks(
        "Write a script /app/count.py that prints the number of lines of /app/notes.txt. "
        "Fix /app/tool.py so that main returns 2. Write the count to /app/count.txt.",
        sandbox,
    )
    sources = {c.path: c for c in built.checks if isinstance(c, SourceParses)}
    assert set(sources) == {"/app/count.py", "/app/tool.py"}
    assert sources["/app/count.py"].goal and not sources["/app/tool.py"].goal
    assert sources["/app/count.py"].rule == "sources.SourceParses"
    assert sources["/app/count.py"].name == "/app/count.py is valid Python"

    (root / "count.py").write_text("print(len(open('/app/notes.txt').readlines())\n")
    (root / "tool.py").write_text("def main():\n    return 2\n")
    failing = built.evaluate().failing
    assert "/app/count.py is valid Python" in failing
    assert "/app/tool.py is valid Python" not in failing
    (root / "count.py").write_text("print(len(open('/app/notes.txt').readlines()))\n")
    (root / "tool.py").write_text("def main(:\n    return 2\n")
    failing = built.evaluate().failing
    assert "/app/count.py is valid Python" not in failing
    assert "/app/tool.py is valid Python" in failing


def test_a_shell_script_is_parsed_by_the_sandboxs_bash(tmp_path: Path) -> None:
    sandbox, root = isolated_sandbox(tmp_path)
    built = build_checks("Create a script /app/run.sh that prints hello.", sandbox)
    [check] = [c for c in built.checks if isinstance(c, SourceParses)]
    assert check.language == "bash" and check.goal
    (root / "run.sh").write_text('if true; then\n  echo "hello"\n')
    outcome = check.run(built.context)
    assert not outcome.passed and outcome.detail.startswith("does not parse:")
    (root / "run.sh").write_text('if true; then\n  echo "hello"\nfi\n')
    assert check.run(built.context).passed


def test_a_program_that_did_not_parse_at_the_start_is_not_held_to_it(tmp_path: Path) -> None:
    """An invariant failing before the work is dropped, as every such invariant is: the task
    may be to mend it, and a rule cannot tell."""
    sandbox, root = isolated_sandbox(tmp_path)
    (root / "app.py").write_text("def f(:\n    pass\n")
    built = build_checks("Fix the bug in /app/app.py.", sandbox)
    assert not [c for c in built.checks if isinstance(c, SourceParses)]
    assert ("/app/app.py is valid Python", "fails before any work") in built.dropped
