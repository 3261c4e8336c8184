"""A template's fields that offer a choice (`harness/checks/fields.py`): each phrasing reads its
alternatives, a copied template or a value off the list fails, and a slash that is part of one
value (`text/plain`, a path, a date) is never read as a choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_shape_checks import form_checks, outcome

from hillclimber.harness.checks.fields import FileHasFields, choices
from hillclimber.harness.checks.lines import FileLineCount

CHOICE_PHRASINGS = [
    # a template quoted as "these lines", its choices explained in quotes after it
    "Save your analysis to /app/findings.txt.\n\nThe file must have exactly these two lines:\n"
    "```\nvulnerable: yes/no\nrisk: none/low/high\n```\n\nWhere:\n"
    '- vulnerable: "yes" if any session used cipher 0\n- risk: "high" if root was affected',
    # `KEY=a|b` in a format block, the choice named in backticks
    "Write the verdict to /app/findings.txt in this format:\n```\nvulnerable=yes|no\n"
    "risk=none|low|high\n```\nUse `no` when nothing is found; `risk` is `none` then.",
    # angle-bracketed alternatives, single quotes
    "Write the report to /app/findings.txt using the template below:\n```\nvulnerable: <yes/no>\n"
    "risk: <none/low/high>\n```\nWrite 'yes' only when a session was accepted.",
]


@pytest.mark.parametrize("instruction", CHOICE_PHRASINGS)
def test_a_template_offers_a_choice(instruction: str, tmp_path: Path) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileHasFields)]
    sep = "=" if "vulnerable=" in instruction else ":"
    assert dict(check.offered) == {
        f"vulnerable{sep}": ("yes", "no"),
        f"risk{sep}": ("none", "low", "high"),
    }
    line = "{}{} {}\n" if sep == ":" else "{}{}{}\n"
    right = line.format("vulnerable", sep, "yes") + line.format("risk", sep, "high")
    assert outcome(check, tmp_path, right) == (True, "")
    copied = line.format("vulnerable", sep, "yes/no") + line.format("risk", sep, "high")
    passed, why = outcome(check, tmp_path, copied)
    assert not passed and "not one of yes, no" in why
    assert not outcome(check, tmp_path, right.replace("high", "medium"))[0]


def test_a_quoted_template_with_choices_is_no_text_to_write(tmp_path: Path) -> None:
    """ "exactly these lines:" over a template is no demand to write the template itself."""
    sandbox_checks = form_checks(CHOICE_PHRASINGS[0], tmp_path)
    assert not any("holds the text" in check.name for check in sandbox_checks)
    assert [c.lines for c in sandbox_checks if isinstance(c, FileLineCount)] == [2]


@pytest.mark.parametrize(
    "block",
    [
        "content_type: text/plain\nencoding: utf-8",  # a MIME type is one value
        "path: /var/log/app\nmode: 0644",  # a path
        "date: 2024/01/15\nhost: db1",  # a date
        "status: pass/fail\ncount: 3",  # alternatives the instruction never names on their own
    ],
)
def test_a_slash_in_one_value_is_no_choice(block: str) -> None:
    prose = "Write the result to /app/out.txt in this format. Use utf-8 and `db1`."
    assert choices(block, prose) == ()


@pytest.mark.parametrize(
    ("instruction", "lines"),
    [
        ("Save the counts to /app/report.txt.\n\nThe file must contain exactly two lines in "
         "this format:\n```\ntables=2\nrows=847\n```", 2),
        ("Write /app/report.txt with exactly the following three lines: the mean, the median "
         "and the mode.", 3),
        ("Create /app/report.txt. It has exactly these 2 lines:\n```\na=1\nb=2\n```", 2),
    ],
)  # fmt: skip
def test_a_line_count_said_with_its_format(instruction: str, lines: int, tmp_path: Path) -> None:
    found = [c.lines for c in form_checks(instruction, tmp_path) if isinstance(c, FileLineCount)]
    assert found == [lines]
