"""Acceptance checks: what one check is, and what it runs against (the kinds of checks are in
`kinds.py`, and those of a change to an existing file in `edits.py`).

A check looks at the workspace through the sandbox (its file API, or a command) and passes or
fails with a short reason. A *goal* check fails until the work is done (the file exists, holds
the line, the command succeeds); an *invariant* passes from the start and must keep passing (a
file the task says to leave alone).

Evidence has strength, in three grades:
- *value*: a pass shows the content is right: the file holds the value or lines the
  instruction states (or the harness worked out from the input), is an exact copy, a command
  prints what it must;
- *form*: a pass shows the content has the form the instruction states (the structure of its
  JSON example, the `KEY=value` lines it shows, its number of lines), not that the values are
  right;
- *weak*: a pass shows only that something is there, parses or changed: any content passes.
Only a value check among the passing ones ends a trial by itself; a pass of form or weak checks
asks for more (see `harness/completion/gate.py`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.sandbox import Sandbox
from hillclimber.verify.verifier import STRENGTHS, Strength

Origin = Literal["extracted", "proposed"]


@dataclass(frozen=True)
class Said:
    """What a check says to the model (what it looks at, why it failed): a text of the
    `checks.toml` templates by its key, and the values that fill it in (a value may be words of
    its own). Put in words by the trial's templates where the model is shown them
    (`AcceptanceChecks.evaluate`), by the shipped ones in a check's `name` and in records."""

    key: str
    fields: tuple[tuple[str, object], ...] = ()

    def text(self, prompts: Prompts | None = None) -> str:
        words = prompts or shipped()
        return words(f"checks.{self.key}", **{k: _text(v, words) for k, v in self.fields})


def _text(value: object, prompts: Prompts) -> object:
    """A value as it fills a template in: words in words, several words one after another."""
    if isinstance(value, Said):
        return value.text(prompts)
    if isinstance(value, tuple) and all(isinstance(each, Said) for each in value):
        return "".join(each.text(prompts) for each in value)
    return value


def said(key: str, **fields: object) -> Said:
    """`checks.<key>` with `fields`: `said("failed.printed", printed="'3'")`."""
    return Said(key, tuple(fields.items()))


@dataclass(frozen=True)
class Outcome:
    passed: bool
    why: Said | None = None
    """Why it failed, in a few words (shown to the model)."""
    timed_out: bool = False

    @property
    def detail(self) -> str:
        """Why it failed, in the shipped words ("" when nothing is said)."""
        return self.why.text() if self.why else ""


@dataclass
class CheckContext:
    """What checks run against: the sandbox now, and the workspace as it was at the start."""

    sandbox: Sandbox
    start: Mapping[str, str | None]
    """Sandbox path → sha256 of the file's bytes before the first action (None: no file)."""
    remaining: Callable[[], float] = lambda: float("inf")
    """The agent's time left: a check never runs past it."""
    keep: Callable[[], AbstractContextManager[object]] | None = None
    """Puts the workspace back after commands (a check may not change what it checks)."""
    command_timeout: float = 10.0


class Check(Protocol):
    @property
    def words(self) -> Said:
        """What the model sees: `/app/hello.txt exists and is not empty`."""
        ...

    @property
    def name(self) -> str:
        """Its words as shipped: the check's identity in the trial and in records."""
        ...

    @property
    def goal(self) -> bool:
        """Fails until the work is done (else: an invariant that must keep passing)."""
        ...

    @property
    def strength(self) -> Strength:
        """What a pass shows: the values right, the form right, or only that it is there."""
        ...

    @property
    def origin(self) -> Origin: ...

    @property
    def rule(self) -> str:
        """The rule that made it: `finder.Kind` (`made_by`)."""
        ...

    def run(self, ctx: CheckContext) -> Outcome: ...


def strongest(checks: Iterable[Check]) -> Strength:
    """The grade of the strongest goal check among `checks` (weak when there is none)."""
    found = [STRENGTHS.index(c.strength) for c in checks if c.goal]
    return STRENGTHS[max(found, default=0)]


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def describe(check: Check) -> dict[str, object]:
    """A check as data, for the record."""
    return {
        "name": check.name,
        "goal": check.goal,
        "strength": check.strength,
        "origin": check.origin,
        "rule": check.rule,
    }


C = TypeVar("C", bound=Check)


def made_by(finder: str, checks: Iterable[C]) -> list[C]:
    """`checks`, each marked with the rule that made it (`finder.Kind`), unless a finder
    deeper down marked it already: where each rule fires, and whether it holds there, is
    counted per rule (`benchmarks/checks.py`)."""
    return [
        check if check.rule else replace(check, rule=f"{finder}.{type(check).__name__}")  # type: ignore[type-var]
        for check in checks
    ]
