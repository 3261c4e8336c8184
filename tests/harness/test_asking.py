"""Asking the model (`harness/asking.py`): the prompt built from the turn's view, a smaller one
after the back end says it overflowed, the answer under the schema only when the free one
cannot be read, and the temperature raised when the model is stuck."""

from __future__ import annotations

import pytest

from hillclimber.errors import ContextExceeded
from hillclimber.harness.acting.tools import tool_list
from hillclimber.harness.asking import Asker
from hillclimber.harness.config import Asking
from hillclimber.harness.prompting.budget import PromptBudget
from hillclimber.harness.prompting.prompters import MicroPrompter, TurnView
from hillclimber.harness.recording.events import EventBus, ModelAnswered, PromptShrunk
from hillclimber.models import ModelProfile, ScriptedModel

CALL = '{"name": "task_complete", "arguments": {}}'
TOOLS = tool_list(["write_file", "task_complete"])
VIEW = TurnView(instruction="Write hello.txt.", tools=TOOLS, history=[], turn=3, max_turns=9)


def asker(answers: list[object], constrains: bool = False, **settings: object):  # type: ignore[no-untyped-def]
    profile = ModelProfile(name="m", context_window=4096, supports_constraint=constrains)
    model = ScriptedModel(answers, profile)  # type: ignore[arg-type]
    seen: list[object] = []
    prompter = MicroPrompter(PromptBudget(profile, answer_tokens=128))
    return Asker(Asking(**settings), model, prompter, EventBus(seen.append)), model, seen  # type: ignore[arg-type]


def test_the_prompt_is_the_turns_view() -> None:
    ask, model, seen = asker([CALL])
    answer = ask.ask(VIEW, stuck=False)
    assert answer.text == CALL and "Write hello.txt." in answer.request.messages[-1].content
    assert "Turn 3 of 9" in answer.request.messages[-1].content
    [event] = seen
    assert isinstance(event, ModelAnswered) and event.turn == 3 and not event.again
    model.assert_complete()


def test_an_overflow_is_asked_again_smaller() -> None:
    ask, model, seen = asker([ContextExceeded("too long"), CALL])
    assert ask.ask(VIEW, stuck=False).text == CALL
    assert [type(e) for e in seen] == [PromptShrunk, ModelAnswered]
    model.assert_complete()


def test_three_overflows_end_the_asking() -> None:
    ask, _, _ = asker([ContextExceeded("too long")] * 3)
    with pytest.raises(ContextExceeded):
        ask.ask(VIEW, stuck=False)


def test_the_schema_only_when_the_free_answer_cannot_be_read() -> None:
    ask, model, seen = asker(["I would write the file now.", CALL], constrains=True)
    assert ask.ask(VIEW, stuck=False).text == CALL
    free, constrained = model.requests
    assert free.constraint is None and constrained.constraint is not None
    assert [e.again for e in seen if isinstance(e, ModelAnswered)] == [False, True]


def test_stuck_asks_warmer_seeded_by_the_turn() -> None:
    ask, model, _ = asker([CALL, CALL], temperature=0.0, retry_temperature=0.8)
    ask.ask(VIEW, stuck=False)
    ask.ask(VIEW, stuck=True)
    calm, warm = model.requests
    assert (calm.temperature, calm.seed) == (0.0, 0) and (warm.temperature, warm.seed) == (0.8, 3)


def test_another_seed_is_another_draw_of_the_warmer_turns() -> None:
    ask, model, _ = asker([CALL, CALL], retry_temperature=0.8, seed=1000)
    ask.ask(VIEW, stuck=False)
    ask.ask(VIEW, stuck=True)
    assert [request.seed for request in model.requests] == [1000, 1003]
