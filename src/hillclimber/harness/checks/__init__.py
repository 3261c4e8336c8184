"""Acceptance checks: how the harness checks its own work when nobody hands it the task's tests
(`feedback: self`). They are built before the first action from the instruction and the
starting workspace only — extracted by generic rules (`extract.py`) and proposed by the model
(`propose.py`) — and frozen: the agent cannot see or change them, only their names and results.

A goal check that already passes on the untouched workspace tells nothing and is dropped;
invariants (files to leave alone) are kept. The checks are usable only with at least one goal
check. `AcceptanceChecks.evaluate` gives an `Evaluation` like the task's tests do, so the gate,
auto-verify and climbing work on them unchanged. See docs/presets.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from hillclimber.harness.checks.base import (
    Check,
    CheckContext,
    Outcome,
    describe,
    digest,
    said,
    strongest,
)
from hillclimber.harness.checks.extract import extract
from hillclimber.harness.checks.kinds import CommandSucceeds
from hillclimber.harness.checks.propose import ModelProposer
from hillclimber.harness.instruction import Where
from hillclimber.harness.prompting.summary import first_lines
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.sandbox import APP, Sandbox
from hillclimber.sandbox.files import read_bytes
from hillclimber.sandbox.workspace import fits, restored
from hillclimber.verify.verifier import Evaluation, Strength

__all__ = ["LABEL", "AcceptanceChecks", "Check", "build_checks"]

LABEL = "acceptance checks"


@dataclass
class AcceptanceChecks:
    checks: tuple[Check, ...]
    """The kept checks, frozen before the first action."""
    context: CheckContext
    dropped: list[tuple[str, str]] = field(default_factory=list)
    """(check name, why it was not kept)."""
    prompts: Prompts = field(default_factory=shipped)
    """The templates the checks' words are shown in (`checks.toml`)."""

    @property
    def usable(self) -> bool:
        """At least one goal check: something the work must make true."""
        return any(check.goal for check in self.checks)

    @property
    def strength(self) -> Strength:
        """What their passing shows: as much as the strongest goal check among them."""
        return strongest(self.checks)

    @property
    def answers(self) -> tuple[str, ...]:
        """The files the goal checks say the work makes (not there at the start): where the
        answer is, in the order the checks name them."""
        made = (p for c in self.checks if c.goal for p in _paths(c))
        return tuple(dict.fromkeys(p for p in made if self.context.start.get(p, "") is None))

    def results(self) -> list[tuple[Check, Outcome]]:
        """Every check run on the workspace as it is now: the files first, then the commands
        (the workspace put back after them)."""
        return _results(self.checks, self.context)

    def evaluate(self) -> Evaluation:
        start = time.monotonic()
        results = self.results()
        failing = [self._failure(c, o) for c, o in results if not o.passed]
        strength = self.strength
        weak_pass = not failing and strength != "value"
        weak = [o.passed for c, o in results if c.strength == "weak"]
        values = [o.passed for c, o in results if c.strength == "value" and c.goal]
        return Evaluation(
            passed=not failing,
            passing=len(results) - len(failing),
            total=len(results),
            digest="; ".join(failing)[:600],
            duration_sec=time.monotonic() - start,
            label=LABEL,
            strength=strength,
            evidence=self.evidence() if weak_pass else "",
            weak_passing=sum(weak),
            weak_total=len(weak),
            value_passing=sum(values),
            failing=[c.name for c, o in results if not o.passed],
        )

    def _failure(self, check: Check, outcome: Outcome) -> str:
        name = check.words.text(self.prompts)
        return f"{name}: {outcome.why.text(self.prompts)}" if outcome.why else name

    def evidence(self, lines: int = 12, chars: int = 600) -> str:
        """What the weak goal checks look at, as it is now: the first lines of each file, for
        the model to judge against the instruction (nothing else can)."""
        shown: list[str] = []
        for path in dict.fromkeys(p for c in self.checks if c.goal for p in _paths(c)):
            data = read_bytes(self.context.sandbox, path)
            if data is None:
                continue
            text = data.decode(errors="replace")
            head = first_lines(text, lines, chars)
            more = len(head) < len(text.rstrip("\n"))
            key = "checks.evidence.holds_more" if more else "checks.evidence.holds"
            shown.append(self.prompts(key, path=path, head=head))
        return "\n".join(shown)


def _results(checks: Sequence[Check], ctx: CheckContext) -> list[tuple[Check, Outcome]]:
    commands = [check for check in checks if isinstance(check, CommandSucceeds)]
    outcomes = {id(check): _run(check, ctx) for check in checks if check not in commands}
    if commands:
        with ctx.keep() if ctx.keep else nullcontext():
            outcomes |= {id(check): _run(check, ctx) for check in commands}
    return [(check, outcomes[id(check)]) for check in checks]


def _run(check: Check, ctx: CheckContext) -> Outcome:
    try:
        return check.run(ctx)
    except OSError as err:
        return Outcome(False, said("failed.os_error", kind=type(err).__name__, error=err))


Proposer = Callable[[str, Sandbox, str], Sequence[Check]]
"""The model's own checks for an instruction (see `propose.py`)."""


def build_checks(
    instruction: str,
    sandbox: Sandbox,
    workdir: str = APP,
    *,
    propose: Proposer | None = None,
    remaining: Callable[[], float] = lambda: float("inf"),
    where: Where | None = None,
    prompts: Prompts | None = None,
) -> AcceptanceChecks:
    """The checks for `instruction`, from the workspace as it is now (before any action);
    `where`: the bare names found outside the working folder, if already looked up; `prompts`:
    the templates their words are shown in (the shipped ones if None)."""
    found = extract(instruction, sandbox, workdir, where)
    if propose is not None:
        found = [*found, *propose(instruction, sandbox, workdir)]
    unique: dict[str, Check] = {}
    for check in found:
        unique.setdefault(check.name, check)  # each once, the first kept
    found = list(unique.values())
    paths = {path for check in found for path in _paths(check)}
    start = {path: digest(read_bytes(sandbox, path)) for path in paths}
    keep = (lambda: restored(sandbox, workdir)) if fits(sandbox, workdir) else None
    context = CheckContext(sandbox, start, remaining=remaining, keep=keep)
    kept: list[Check] = []
    dropped: list[tuple[str, str]] = []
    for check, outcome in _results(found, context):
        if outcome.timed_out:
            dropped.append((check.name, "takes too long to run on every change"))
        elif check.goal and outcome.passed:
            dropped.append((check.name, "passes before any work: it tells nothing"))
        elif not check.goal and not outcome.passed:
            dropped.append((check.name, "fails before any work"))
        else:
            kept.append(check)
    return AcceptanceChecks(tuple(kept), context, dropped, prompts or shipped())


def _paths(check: Check) -> list[str]:
    return [getattr(check, name) for name in ("path", "source") if hasattr(check, name)]


class SelfChecks:
    """The acceptance checks as the loop and the runner use them."""

    def __init__(self, built: AcceptanceChecks) -> None:
        self.built = built
        self.verify: Callable[[], Evaluation] | None = built.evaluate if built.usable else None

    def record(self, proposer: ModelProposer | None) -> dict[str, Any]:
        """What the trial's result keeps of them."""
        return {
            "checks": [describe(check) for check in self.built.checks],
            "checks_dropped": [list(pair) for pair in self.built.dropped],
            "checks_model_calls": proposer.calls if proposer else 0,
            "checks_prompt_tokens": proposer.prompt_tokens if proposer else 0,
            "checks_refused": [list(pair) for pair in proposer.refused] if proposer else [],
        }
