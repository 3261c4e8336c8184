"""The completion gate: every way the loop can end goes through `finalize`.

With checks at hand it runs them: a conclusive pass (the task's tests, or the harness's checks
with a value check among them) ends the trial as verified; a failure is said to the model, the
counters start afresh and the loop goes on, up to `max_verify_retries` checks (the counter
really counts). A pass of form or weak checks only (the answer has the stated shape, or is only
there: any values pass them) never ends a trial by itself: the model is shown what the checks
looked at beside the task and asked to confirm or fix it, and only its next done-signal, with
nothing changed, ends the trial (`confirmed`) — unless the setting says the model's word ends
nothing (`completion.confirm`); then the trial goes on. (Whether independent tries of the task
agree is the trial's to find: `hillclimber/tries/`.)
Without checks, the model's word is trusted. See docs/loop.md.

The gate decides and writes nothing of the loop's: an end is a `LoopEnd` raised, anything else
is a `Told` returned (what the model must hear), which the loop records; the checks it runs are
`Verified` events, which the loop's state records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from hillclimber.harness.config import CompletionSettings
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.harness.recording.events import EventBus, FinalizeAsked, Verified
from hillclimber.harness.state import LoopEnd, LoopExit, LoopState
from hillclimber.text import clip
from hillclimber.verify.verifier import Evaluation


@dataclass(frozen=True)
class Told:
    """What the gate decided the model must hear, the trial going on."""

    kind: Literal["failed", "weak"]
    """failed: the checks fail; weak: they pass, none showing the values right, and the model
    is asked to judge the result."""
    message: str
    evaluation: Evaluation


class Gate:
    def __init__(
        self,
        settings: CompletionSettings,
        check: Callable[[], Evaluation] | None,
        state: LoopState,
        events: EventBus,
        prompts: Prompts | None = None,
    ) -> None:
        self.settings = settings
        self.prompts = prompts or shipped()
        """What the model is told (`feedback.toml`, [verification])."""
        self.check = check
        self.state = state
        self.events = events
        self.checks_at_signals = 0
        """Checks run at done-signals: `max_verify_retries` of them failing ends the trial."""

    def signals(self, *, plan_done: bool) -> Iterator[tuple[str, bool]]:
        """The signals after a turn that the model thinks it is done, or is stuck, each to be
        checked: (reason, last chance), in order, each read after the one before was checked
        (a check may bring news)."""
        settings, state = self.settings, self.state
        if state.repeats >= settings.same_action_limit:
            yield "same action repeated", False
        elif state.had_success and state.consecutive_failures >= settings.failures_after_success:
            yield "failures after a success", False
        elif settings.no_progress_turns and state.turns_since_success >= settings.no_progress_turns:
            yield "no progress", False
        elif plan_done:
            yield "plan done", False
        if settings.stall_turns and state.turns_since_news >= settings.stall_turns:
            yield "stalled", True

    def finalize(self, reason: str, turn: int, *, last_chance: bool = False) -> Told | None:
        """Raise LoopEnd if the task is done (or may not go on); else what the model must hear
        (None when nothing was checked), the loop going on."""
        self.events.emit(FinalizeAsked(turn, reason))
        if not self.settings.verify_gated:  # only the model's word or the budget ends it
            if reason == "task_complete":
                raise LoopEnd(LoopExit.COMPLETED, reason)
            if last_chance:
                raise LoopEnd(LoopExit.MAX_TURNS, reason)
            return None
        if self.check is None:  # nothing to check with: trust the signal
            raise LoopEnd(LoopExit.MAX_TURNS if last_chance else LoopExit.COMPLETED, reason)
        self.checks_at_signals += 1
        evaluation = self.verify(reason, turn)
        if evaluation.passed and evaluation.conclusive:
            raise LoopEnd(LoopExit.VERIFIED, reason, evaluation)
        if evaluation.passed:
            return self.inconclusive(evaluation, reason, turn, last_chance=last_chance)
        if last_chance or self.checks_at_signals >= self.settings.max_verify_retries:
            raise LoopEnd(LoopExit.VERIFICATION_FAILED, reason, evaluation)
        say = self.prompts
        message = [say("feedback.verification.failed", summary=evaluation.summary())]
        if self.settings.show_failing_checks and evaluation.digest:
            message.append(
                say("feedback.verification.failing", digest=clip(evaluation.digest, 300))
            )
        # where the harness checked by itself, naming task_complete, it was called next
        fix = "fix_then_complete" if reason == "task_complete" else "fix"
        message.append(say(f"feedback.verification.{fix}"))
        return Told("failed", " ".join(message), evaluation)

    def inconclusive(
        self, evaluation: Evaluation, reason: str, turn: int, *, last_chance: bool
    ) -> Told:
        """The checks pass, none showing the values right: the model's word after it saw the
        result ends the trial, where the setting lets it."""
        confirmable = self.settings.confirm
        if self.state.weak_shown and confirmable:
            raise LoopEnd(LoopExit.CONFIRMED, reason, evaluation)
        if last_chance:
            raise LoopEnd(LoopExit.UNCONFIRMED, reason, evaluation)
        return Told("weak", self.weak_pass(evaluation, confirmable=confirmable), evaluation)

    def weak_pass(self, evaluation: Evaluation, *, confirmable: bool = True) -> str:
        """Form or weak checks passed: what shows the model what they looked at and asks it
        to judge; where its word cannot end the trial (`confirmable` False: the setting), to
        check the values with a command of its own."""
        say = self.prompts
        shown = say(
            "feedback.verification." + ("form" if evaluation.strength == "form" else "there")
        )
        message = say("feedback.verification.weak", label=evaluation.label, shown=shown)
        if evaluation.evidence:
            message += f"\n{evaluation.evidence}\n"
        then = "confirm" if confirmable else "check_yourself"
        return f"{message} {say(f'feedback.verification.{then}')}"

    def verify(self, why: str, turn: int) -> Evaluation:
        """Run the checks on the workspace as it is now, and say what they say."""
        assert self.check is not None
        evaluation = self.check()
        self.events.emit(
            Verified(
                turn,
                why,
                evaluation.passed,
                evaluation.passing,
                evaluation.total,
                evaluation.digest,
                evaluation.label,
            )
        )
        return evaluation
