"""How much the harness's own evidence says a trial's answer is right, before the task's tests
say it: one grade per trial, recorded with its result, so a user can see how far each grade
is to be trusted (`show`, `report`: per grade, how often the tests agreed).

- `agreed`: two or more independent tries left the same answer, one the instruction does not
  spell out line for line, and no check fails on it;
- `verified`: a check that shows the values right passes (a stated value, an exact copy, a
  stated output; or the task's own tests, with `feedback: tests`), and none fails;
- `plausible`: every check passes, but they show only the form, or that something is there;
- `disputed`: as `plausible`, but independent tries left other answers and none left this one
  again: checks that pass on several different answers cannot say which is right, and a
  model that gives a different answer each time is not sure of any;
- `unchecked`: nothing checked the answer (no usable checks, `feedback: none`, another agent);
- `failed`: a check fails on the answer the trial ended with.

The first three are the harness saying "done".
"""

from __future__ import annotations

from enum import StrEnum

from hillclimber.verify.verifier import Evaluation


class Grade(StrEnum):
    AGREED = "agreed"
    VERIFIED = "verified"
    PLAUSIBLE = "plausible"
    DISPUTED = "disputed"
    UNCHECKED = "unchecked"
    FAILED = "failed"


DONE = (Grade.AGREED, Grade.VERIFIED, Grade.PLAUSIBLE)
"""The grades of a trial the harness calls done."""


def grade(evaluation: Evaluation | None, *, agreed: bool = False, disputed: bool = False) -> Grade:
    """The grade of an answer: `evaluation` is the checks run on it after the agent stopped
    (None: nothing to check with); `agreed`, whether independent tries left it too;
    `disputed`, whether they left other answers instead."""
    if evaluation is None:
        return grade_from(passed=None, conclusive=False, agreed=agreed, disputed=disputed)
    return grade_from(
        passed=evaluation.passed,
        conclusive=evaluation.passed and evaluation.conclusive,
        agreed=agreed,
        disputed=disputed,
    )


def grade_from(*, passed: bool | None, conclusive: bool, agreed: bool, disputed: bool) -> Grade:
    """The grade from the facts alone, for whoever holds them without an `Evaluation` (a
    try's record): whether the checks passed (None: nothing checked), whether a passing check
    shows the values, and what the independent tries said."""
    if passed is False:
        return Grade.FAILED
    if agreed:
        return Grade.AGREED
    if passed is None:
        return Grade.UNCHECKED
    if conclusive:
        return Grade.VERIFIED
    return Grade.DISPUTED if disputed else Grade.PLAUSIBLE
