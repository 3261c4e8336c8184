"""A candidate action tried on the workspace, and which one to apply: the rules climbing
keeps to (never lose a passing check, nor destroy lines for nothing; a borrowed step must gain
more than a file being there)."""

from __future__ import annotations

from dataclasses import dataclass

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.prompting.templates import Prompts


@dataclass
class Candidate:
    call: ToolCall
    text: str
    """The model's raw answer."""
    success: bool
    passing: int
    total: int
    output: str = ""
    lost: int = 0
    """Lines of existing files the call removed: of two equally good steps, the one that
    destroys less is kept."""
    origin: str = "model"
    """model: the model's own call; reading: another reading of it (readings.py); tool: the
    model's answer when asked for another tool; plan: a step of the model's plan that is a
    command; computed: a command asked for apart from the loop, its output sent to the answer
    file (computed.py)."""
    label: str = "tests"
    """What scored it: the task's tests, or the harness's acceptance checks."""
    weak: int = 0
    weak_total: int = 0
    """Of the checks passing, and of all, those that only show a file is there, parses or
    changed (`Evaluation.weak_passing`)."""
    borrowed: bool = False
    """Not the model's own call nor a reading of it: another tool's answer, a step of its plan,
    a computed answer, or a reading of those."""
    failing: str = ""
    """The checks it failed, as the verifier says them."""

    @property
    def strong(self) -> int:
        """Checks passing that show more than that a file is there (all the task's tests)."""
        return self.passing - self.weak

    def rank(self) -> tuple[int, int, int]:
        if not self.success:
            return (-1, -1, -self.lost)
        return (self.strong, self.passing, -self.lost)

    def noun(self) -> str:
        return "test" if self.label == "tests" else "check"

    def line(self, say: Prompts) -> str:
        """What was tried and what the checks said of it (`feedback.climbing.candidate`)."""
        counts = {"label": self.label, "passing": self.passing, "total": self.total}
        state = say("feedback.climbing.checks", **counts) if self.success else None
        removes = say("feedback.climbing.removes", lines=self.lost) if self.lost else ""
        how = say(f"feedback.climbing.{self.origin}") if self.origin in _KINDS else ""
        return say("feedback.climbing.candidate", tool=self.call.name, how=how,
                   state=state or say("feedback.climbing.failed"), removes=removes)  # fmt: skip


_KINDS = ("reading", "plan", "computed")
"""The candidates that are not the model's own call, each said apart."""


def pick(
    candidates: list[Candidate], passing_now: int, own: bool = True, strong_now: int = 0
) -> Candidate | None:
    """The candidate to apply, or None when nothing is worth applying.

    Of those that pass more tests than now, the one that passes the most that show more than a
    file being there, then the most in all, then the one that removes the fewest lines, then the
    first — unless all it gains on the model's own harmless call is such weak checks
    (`weak_gain`); another tool's answer or a plan step whose gain is only such checks is never
    applied (`_borrowed_weak_gain`). Otherwise a step that gains nothing: when the model's own
    call (the first, when `own`) failed, a reading of it that succeeds and keeps every test and
    line (what the model meant), else the failed call (its error is worth showing); the model's
    call if it keeps every test and every existing line; else the first candidate that does
    both. A step that gains no test may not remove lines: the tests cannot tell a fix on the way
    from damage, and a tiny model's are mostly damage. When the model's own call was refused
    (`own` False) only a candidate that gains tests is applied, and a borrowed one only if it
    passes more checks that show more than weak ones than the `strong_now` passing now."""
    if not candidates:
        return None
    first = candidates[0]
    if own:
        candidates = [c for c in candidates if not _borrowed_weak_gain(c, first, passing_now)]
    else:  # nothing of the model's own to weigh it against: the workspace as it is now
        candidates = [c for c in candidates if not (c.borrowed and c.strong <= strong_now)]
    gains = [c for c in candidates if c.success and c.passing > passing_now]
    if gains:
        best = max(gains, key=Candidate.rank)
        if own and best is not first and harmless(first, passing_now) and weak_gain(best, first):
            return first
        return best
    if not own:
        return None
    if not first.success:
        readings = (c for c in candidates if c.origin == "reading" and harmless(c, passing_now))
        return next(readings, first)
    if harmless(first, passing_now):
        return first
    return next((c for c in candidates if harmless(c, passing_now)), None)


def _borrowed_weak_gain(candidate: Candidate, own: Candidate, passing_now: int) -> bool:
    """Another tool's answer, a plan step or a reading of those, that gains on the model's own
    call only weak checks: on unseen tasks those were mostly the instruction's example, or a
    stub program, written to pass "exists"."""
    return candidate.borrowed and candidate.passing > passing_now and weak_gain(candidate, own)


def weak_gain(best: Candidate, own: Candidate) -> bool:
    """`best` gains on the model's own call only checks that a file is there, parses or
    changed, where checks that show more exist: that is no evidence of progress, so it does
    not replace what the model chose to do (a tiny model's `wc -w` on the input was replaced
    by a write of the input's text to the answer file, which passed "exists")."""
    return best.total > best.weak_total and best.strong <= own.strong


def harmless(candidate: Candidate, passing_now: int) -> bool:
    """Keeps every test that passes now and every line of the files there now."""
    return candidate.success and candidate.passing >= passing_now and candidate.lost == 0


def solved(candidate: Candidate) -> bool:
    return candidate.success and candidate.total > 0 and candidate.passing == candidate.total
