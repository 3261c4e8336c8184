"""The completion gate (`harness/completion/gate.py`) on its own: every way a done-signal ends
or goes on, with the checks a plain function (the weak and form passes are in
tests/harness/test_weak_checks.py)."""

from __future__ import annotations

import pytest

from hillclimber.harness.completion.gate import Gate
from hillclimber.harness.config import CompletionSettings
from hillclimber.harness.recording.events import EventBus, FinalizeAsked, Verified
from hillclimber.harness.state import LoopEnd, LoopExit, LoopState
from hillclimber.verify.verifier import Evaluation

FAILING = Evaluation(passed=False, passing=1, total=3, digest="b.txt: not there")


def gate(evaluation: Evaluation | None, **settings: object) -> tuple[Gate, LoopState, list[object]]:
    state, seen = LoopState(), []
    check = (lambda: evaluation) if evaluation is not None else None
    return Gate(CompletionSettings(**settings), check, state, EventBus(seen.append)), state, seen  # type: ignore[arg-type]


def ends(gate: Gate, reason: str = "task_complete", **kwargs: bool) -> LoopEnd:
    with pytest.raises(LoopEnd) as ended:
        gate.finalize(reason, 4, **kwargs)
    return ended.value


def test_a_failing_check_is_said_and_the_trial_goes_on_until_the_retries_are_spent() -> None:
    checked, state, seen = gate(FAILING, max_verify_retries=2)
    told = checked.finalize("task_complete", 3)
    assert told is not None and told.kind == "failed" and told.evaluation == FAILING
    assert told.message.startswith("Verification failed (tests 1/3): the task is NOT done.")
    assert "Failing: b.txt: not there" in told.message
    assert [type(e) for e in seen] == [FinalizeAsked, Verified]
    assert state.feedback == []  # the gate decides; the loop records (`AgentLoop._tell`)
    assert ends(checked).exit is LoopExit.VERIFICATION_FAILED  # the second check at a signal


def test_the_failing_checks_are_not_named_when_the_setting_says_so() -> None:
    checked, _, _ = gate(FAILING, show_failing_checks=False)
    told = checked.finalize("no progress", 3)
    assert told is not None and "b.txt" not in told.message


def test_a_last_chance_that_fails_ends_the_trial_at_once() -> None:
    checked, _, _ = gate(FAILING, max_verify_retries=5)
    assert ends(checked, "stalled", last_chance=True).exit is LoopExit.VERIFICATION_FAILED


def test_without_checks_the_signal_is_trusted() -> None:
    unchecked, _, _ = gate(None)
    assert ends(unchecked).exit is LoopExit.COMPLETED
    assert ends(unchecked, "max_turns", last_chance=True).exit is LoopExit.MAX_TURNS


def test_ungated_only_the_models_word_or_the_budget_ends_it() -> None:
    ungated, _, seen = gate(FAILING, verify_gated=False)
    assert ungated.finalize("same action repeated", 2) is None  # no check ran
    assert [type(e) for e in seen] == [FinalizeAsked]
    assert ends(ungated).exit is LoopExit.COMPLETED


def test_the_signals_of_a_turn_in_order_the_stall_last_and_read_after_the_first() -> None:
    checked, state, _ = gate(FAILING, same_action_limit=3, stall_turns=4, no_progress_turns=8)
    assert list(checked.signals(plan_done=False)) == []
    assert list(checked.signals(plan_done=True)) == [("plan done", False)]
    state.repeats, state.turns_since_news = 3, 4
    signals = checked.signals(plan_done=True)
    assert next(signals) == ("same action repeated", False)  # one reason of the four, the first
    state.turns_since_news = 0  # the check it led to brought news: no stall after all
    assert list(signals) == []
    state.repeats, state.turns_since_news = 0, 4
    assert list(checked.signals(plan_done=False)) == [("stalled", True)]


def test_signals_the_setting_leaves_out_are_never_raised() -> None:
    checked, state, _ = gate(FAILING, no_progress_turns=None, stall_turns=None)
    state.turns_since_success, state.turns_since_news = 50, 50
    assert list(checked.signals(plan_done=False)) == []
