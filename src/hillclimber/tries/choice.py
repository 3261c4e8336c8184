"""Which try's answer a trial keeps: tries that left equal answers form a group; the group kept
is the one on which no check fails, then the largest, then the one with more checks passing
that show the values right, then the one that took fewer turns. Tries stop early once two
agree and no check fails on their answer (`settled`).

Agreement counts only between tries that could have differed: sampled on a back end that samples
(`independent`), on an answer the instruction does not spell out line for line (`copied`: an
example, or a text it demands, is in the prompt every try reads).

A check that fails is sound evidence against an answer (the checks are rules that pass the
reference solutions: `benchmarks/checks.py`), so it outranks numbers: two tries agreeing on an
answer a check fails do not outvote one whose checks pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field


class TryRecord(BaseModel):
    """One try of a trial: how it was sampled, what it left and what its checks said."""

    index: int
    """1, 2, …: its folder is `tries/<index>` of the trial."""
    seed: int
    temperature: float
    varied: dict[str, Any] = Field(default_factory=dict)
    """The settings changed for this try (`tries.vary`), as written there."""
    answer: str
    """The digest of its answer (`answer.Answer.digest`); empty: it left nothing."""
    parts: dict[str, str] = Field(default_factory=dict)
    """What was compared → its digest."""
    copied: bool = False
    """Its answer is nothing but lines of the instruction (`answer.Answer.copied`): tries
    agreeing on it could not have differed."""
    checks: str | None = None
    """Its checks after it stopped (`acceptance checks 3/4`), None without checks."""
    checks_passed: bool | None = None
    value_passing: int = 0
    """Checks passing that show the values right."""
    turns: int = 0
    loop_exit: str = ""
    model_seconds: float = 0.0
    seconds: float = 0.0
    """The try's time, set-up to answer read."""

    @property
    def fails(self) -> bool:
        return self.checks_passed is False


class TriesRecord(BaseModel):
    """The tries of a trial, the groups of equal answers, and which was kept and why."""

    planned: int
    stop: str
    independent: bool
    """Each try sampled above temperature zero with its own seed, on a back end that samples:
    only then does agreement count."""
    tries: list[TryRecord]
    groups: list[list[int]] = Field(default_factory=list)
    """The tries of each distinct answer, the kept one first."""
    chosen: int = 1
    agreed: bool = False
    """Two or more independent tries left the kept answer, one the instruction does not spell
    out, and no check fails on it."""
    disputed: bool = False
    """Independent tries left other answers and none left the kept one again (tries that
    left nothing do not count)."""
    why: str = ""


def groups_of(tries: Sequence[TryRecord]) -> list[list[TryRecord]]:
    """Tries with equal answers together; a try that left nothing stands alone. Best first."""
    by_answer: dict[str, list[TryRecord]] = {}
    alone: list[list[TryRecord]] = []
    for one in tries:
        if one.answer:
            by_answer.setdefault(one.answer, []).append(one)
        else:
            alone.append([one])
    return sorted([*by_answer.values(), *alone], key=_rank)


def _rank(group: list[TryRecord]) -> tuple[int, int, int, int, int]:
    """Smaller is better: no failing check, more tries, an answer at all, more value checks
    passing, fewer turns (the earliest try breaks what is left)."""
    return (
        any(one.fails for one in group),
        -len(group),
        not group[0].answer,
        -max(one.value_passing for one in group),
        min(one.turns for one in group),
    )


def settled(tries: Sequence[TryRecord]) -> bool:
    """Two tries left the same answer and no check fails on it: the next would not change
    the choice (at most a tie)."""
    best = groups_of(tries)[0]
    return len(best) >= 2 and bool(best[0].answer) and not any(one.fails for one in best)


def choose(
    tries: Sequence[TryRecord], *, planned: int, stop: str, independent: bool
) -> TriesRecord:
    """The record of the tries, with the kept one and why."""
    groups = groups_of(tries)
    best = groups[0]
    kept = min(best, key=lambda one: (-one.value_passing, one.turns, one.index))
    same = len(best) >= 2 and bool(kept.answer) and not kept.fails
    copied = any(one.copied for one in best)  # equal answers, one of them the prompt's lines
    agreed = same and not copied
    others = any(one.answer and one.answer != kept.answer for one in tries)
    disputed = len(best) == 1 and bool(kept.answer) and others
    return TriesRecord(
        planned=planned,
        stop=stop,
        independent=independent,
        tries=list(tries),
        groups=[[one.index for one in group] for group in groups],
        chosen=kept.index,
        agreed=agreed and independent,
        disputed=disputed and independent,
        why=_why(groups, kept, same=same, copied=copied, independent=independent),
    )


def _why(
    groups: list[list[TryRecord]], kept: TryRecord, *, same: bool, copied: bool, independent: bool
) -> str:
    best = groups[0]
    ran = sum(len(group) for group in groups)
    if not kept.answer:
        return f"no try of {ran} left an answer (or only blank files): try {kept.index} kept"
    if same:
        said = f"{len(best)} of {ran} tries left the same answer"
        if not independent:
            said += " (not independent: the back end does not sample, so it counts for nothing)"
        elif copied:
            said += " (lines of the instruction, copied: it counts for nothing)"
        return said + f"; try {kept.index} kept"
    if kept.fails:
        return f"every answer fails a check; try {kept.index} kept ({kept.checks})"
    failing = [one for group in groups[1:] for one in group if one.fails]
    others = f", {len(failing)} failing a check" if failing else ""
    return f"{ran} tries left {len(groups)} different answers{others}: try {kept.index} kept"
