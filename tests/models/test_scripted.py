"""The scripted model: replays answers, records requests, complains when over- or under-used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hillclimber.errors import (
    BadResponse,
    ContextExceeded,
    HillclimberError,
    ModelTimeout,
    ModelUnavailable,
    ScriptExhausted,
)
from hillclimber.models import CompletionRequest, ScriptedModel, make_model


def test_replays_in_order_and_records_requests() -> None:
    model = ScriptedModel(["first", "second"])
    a = model.complete(CompletionRequest.from_prompt("one", system="sys"))
    b = model.complete(CompletionRequest.from_prompt("two"))
    assert (a.text, b.text) == ("first", "second")
    assert [r.messages[-1].content for r in model.requests] == ["one", "two"]
    assert model.requests[0].messages[0].role == "system"
    assert a.usage.estimated and a.usage.prompt_tokens > 0
    model.assert_complete()


def test_running_out_raises_and_leftovers_fail_assert_complete() -> None:
    model = ScriptedModel(["only"])
    model.complete(CompletionRequest.from_prompt("x"))
    with pytest.raises(ScriptExhausted, match="answer 2 but has 1"):
        model.complete(CompletionRequest.from_prompt("y"))
    leftover = ScriptedModel(["a", "b"])
    leftover.complete(CompletionRequest.from_prompt("x"))
    with pytest.raises(AssertionError, match="1 unused"):
        leftover.assert_complete()


def test_from_file_json_list_and_jsonl(tmp_path: Path) -> None:
    listed = tmp_path / "a.json"
    listed.write_text(json.dumps(["x", {"text": "y"}]))
    lines = tmp_path / "b.jsonl"
    lines.write_text('"x"\n{"text": "y"}\n')
    for path in (listed, lines):
        model = make_model(f"scripted:{path}")
        assert isinstance(model, ScriptedModel)
        assert model.answers == ["x", "y"]
    bad = tmp_path / "c.json"
    bad.write_text("[1, 2]")
    with pytest.raises(HillclimberError, match="must be a string"):
        ScriptedModel.from_file(bad)


def test_an_answer_may_be_an_error_to_raise() -> None:
    overflow = ContextExceeded("the prompt does not fit")
    model = ScriptedModel([overflow, "after"])
    with pytest.raises(ContextExceeded, match="does not fit"):
        model.complete(CompletionRequest.from_prompt("x"))
    assert model.complete(CompletionRequest.from_prompt("y")).text == "after"
    assert len(model.requests) == 2  # the failed request is recorded too
    model.assert_complete()


def test_a_script_file_names_errors_to_raise(tmp_path: Path) -> None:
    path = tmp_path / "faults.jsonl"
    path.write_text(
        '{"raise": "timeout", "message": "slow"}\n{"raise": "context_exceeded"}\n'
        '{"raise": "unavailable"}\n{"raise": "bad_response"}\n"garbage {{{"\n'
    )
    model = ScriptedModel.from_file(path)
    for expected in (ModelTimeout, ContextExceeded, ModelUnavailable, BadResponse):
        with pytest.raises(expected):
            model.complete(CompletionRequest.from_prompt("x"))
    assert model.complete(CompletionRequest.from_prompt("x")).text == "garbage {{{"
    unknown = tmp_path / "unknown.json"
    unknown.write_text('[{"raise": "meteor"}]')
    with pytest.raises(HillclimberError, match=r"unknown.json.*'raise'"):
        ScriptedModel.from_file(unknown)


def test_a_missing_file_of_answers_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(HillclimberError, match=r"nothing\.json: cannot read the answers"):
        ScriptedModel.from_file(tmp_path / "nothing.json")
