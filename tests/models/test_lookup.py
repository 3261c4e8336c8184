"""Lookup decoding: what the drafter proposes, that the setting turns it on and off, and that
the real 0.5B answers the same with it as without it at temperature 0."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from hillclimber.errors import ModelUnavailable
from hillclimber.models import CompletionRequest, Message, ModelConfig, OutputConstraint, make_model
from hillclimber.models.local import LocalModel

from conftest import IN_CI

pytestmark = pytest.mark.model  # lookup.py is built on llama.cpp's binding: the whole install's


def drafter(**settings: int) -> Any:
    """A `PromptLookup`, imported when a test runs."""
    from hillclimber.models.lookup import PromptLookup

    return PromptLookup(**settings)


def ids(*tokens: int) -> np.ndarray:
    return np.array(tokens, dtype=np.intc)


def test_the_draft_follows_the_longest_match_and_is_as_long_as_it_is_sure() -> None:
    draft = drafter(ngram=3, draft=4)
    # (1, 2, 3) is found twice; before the second, 9 matches too: 4 tokens, a draft of 2
    text = ids(1, 2, 3, 4, 5, 6, 9, 1, 2, 3, 7, 8, 9, 9, 1, 2, 3)
    assert draft(text).tolist() == [7, 8]
    # equally long matches: the latest wins
    assert draft(ids(5, 1, 2, 3, 7, 6, 1, 2, 3, 8, 0, 1, 2, 3)).tolist() == [8]


def test_a_copy_in_progress_drafts_more_the_longer_it_has_run() -> None:
    shown = list(range(100, 140))
    draft = drafter(ngram=3, draft=15)
    sizes = [len(draft(ids(*shown, 7, *shown[:copied]))) for copied in (3, 5, 9, 17, 30)]
    assert sizes == [1, 3, 7, 15, 15]
    assert draft(ids(*shown, 7, *shown[:9])).tolist() == shown[9:16]


def test_nothing_is_drafted_without_a_run_of_three_seen_before() -> None:
    draft = drafter(ngram=3, draft=4)
    assert draft(ids(1, 2, 3, 9, 2, 3)).tolist() == []
    assert draft(ids(2, 3)).tolist() == []


def _model(lookup: bool | None) -> LocalModel:
    try:
        loaded = make_model(ModelConfig(spec="local", lookup=lookup))
    except ModelUnavailable as err:
        if IN_CI:
            pytest.fail(f"CI must have the embedded model: {err}")
        pytest.skip(str(err))
    assert isinstance(loaded, LocalModel)
    return loaded


def test_the_setting_builds_the_model_with_lookup_decoding_on_or_off() -> None:
    on, off, default = _model(True), _model(False), _model(None)
    from hillclimber.models.lookup import PromptLookup as Drafter

    assert on.lookup and isinstance(on._state.llm.draft_model, Drafter)
    assert not off.lookup and off._state.llm.draft_model is None
    assert default.lookup is False  # the 0.5B's own default: see benchmarks/speed.py
    assert on._state is not off._state  # two instances, each with its own prompt state


FILE_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
}


def _copy_request(constrained: bool) -> CompletionRequest:
    """A prompt whose answer copies a file it shows: what lookup decoding speeds."""
    script = "\n".join(
        f"def step_{n}(value):\n    return value * {n} + {n * n}\n" for n in range(1, 5)
    )
    ask = (
        "Answer as JSON with the keys path (steps_copy.py) and content (the text of the "
        "file, unchanged)."
        if constrained
        else "Reply with the file only, unchanged."
    )
    return CompletionRequest(
        messages=[
            Message(role="system", content="You copy files exactly."),
            Message(role="user", content=f"This is steps.py:\n{script}\n{ask}"),
        ],
        max_tokens=120,
        temperature=0.0,
        constraint=OutputConstraint(json_schema=FILE_SCHEMA) if constrained else None,
    )


@pytest.mark.parametrize("constrained", [False, True], ids=["free", "json-schema"])
def test_the_same_answer_with_and_without_lookup_at_temperature_0(constrained: bool) -> None:
    request = _copy_request(constrained)
    plain = _model(False).complete(request)
    drafted = _model(True).complete(request)
    assert drafted.text == plain.text
    assert drafted.finish_reason == plain.finish_reason
    assert drafted.usage.prompt_tokens == plain.usage.prompt_tokens
    assert drafted.usage.completion_tokens == plain.usage.completion_tokens
    assert "step_4" in plain.text  # the answer copies the file: the drafts were used
    if constrained:
        # the grammar lets raw newlines into the JSON string: read it leniently
        assert json.loads(plain.text, strict=False)["path"] == "steps_copy.py"
