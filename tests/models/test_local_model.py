"""The real embedded model (llama.cpp in-process). Skipped locally with -m 'not model' or when
the model is not installed; in CI the model must be there and these always run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from hillclimber import process
from hillclimber.errors import ContextExceeded, ModelTimeout, ModelUnavailable
from hillclimber.models import CompletionRequest, Message, OutputConstraint, make_model
from hillclimber.models.check import SYSTEM, TOOL_CALL_SCHEMA
from hillclimber.models.local import LocalModel

from conftest import missing

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def model() -> LocalModel:
    try:
        loaded = make_model("local")
    except ModelUnavailable as err:
        missing(f"the embedded model: {err}")
    assert isinstance(loaded, LocalModel)
    return loaded


def hello_request(constrained: bool = True) -> CompletionRequest:
    return CompletionRequest(
        messages=[
            Message(role="system", content=SYSTEM),
            Message(role="user", content="Create a file hello.txt containing Hello, world!"),
        ],
        max_tokens=96,
        constraint=OutputConstraint(json_schema=TOOL_CALL_SCHEMA) if constrained else None,
    )


def test_a_constrained_tool_call_parses(model: LocalModel) -> None:
    answer = model.complete(hello_request())
    call = json.loads(answer.text)
    assert call["name"] in ("write_file", "run_command")
    assert isinstance(call["arguments"], dict)
    assert "hello.txt" in json.dumps(call["arguments"])
    assert answer.constrained and answer.finish_reason == "stop"
    assert answer.usage.prompt_tokens > 20 and not answer.usage.estimated


def test_a_second_call_reuses_the_prompt_cache_and_is_deterministic(model: LocalModel) -> None:
    first = model.complete(hello_request())
    second = model.complete(hello_request())
    assert second.text == first.text
    assert second.usage.cached_prompt_tokens is not None
    # all of the prompt but the last token or so comes from the cache
    assert second.usage.cached_prompt_tokens >= second.usage.prompt_tokens - 2


def _task_request(turn: int) -> CompletionRequest:
    """A loop's prompt at a turn: a long shared part, then the turn's own line."""
    files = "\n".join(
        f"line {n}: the inventory holds {n * 7} units of part P-{n:03d}" for n in range(40)
    )
    return CompletionRequest(
        messages=[
            Message(role="system", content=SYSTEM),
            Message(role="user", content=f"Files:\n{files}\n\nTurn {turn}. Write total.txt."),
        ],
        max_tokens=48,
        constraint=OutputConstraint(json_schema=TOOL_CALL_SCHEMA),
    )


def test_a_question_aside_keeps_the_main_prompts_state(model: LocalModel) -> None:
    """Across a question asked aside, the main prompt's computed state is put back: the next
    main prompt computes only what changed, and answers as it would have without the aside."""
    aside = CompletionRequest.from_prompt("Reply with the word yes.", max_tokens=4, aside=True)
    model.complete(aside)  # whatever came before: the state is now the aside's
    model.complete(_task_request(1))
    model.complete(aside)
    after = model.complete(_task_request(2))
    assert after.usage.cached_prompt_tokens is not None
    assert after.usage.cached_prompt_tokens >= after.usage.prompt_tokens - 20
    model.complete(hello_request())  # another prompt: nothing of the task's is held now
    fresh = model.complete(_task_request(2))
    assert (fresh.usage.cached_prompt_tokens or 0) < fresh.usage.prompt_tokens // 2
    assert after.text == fresh.text
    # the same prompt again after an aside: its last token is computed again, the same answer
    model.complete(aside)
    again = model.complete(_task_request(2))
    assert again.text == fresh.text
    assert (again.usage.cached_prompt_tokens or 0) >= again.usage.prompt_tokens - 2


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_memory_stays_flat_over_many_distinct_prompts(model: LocalModel) -> None:
    """A climbing trial sends hundreds of different prompts. Kept states once held a hidden
    copy of the logits each (~311 MB at 512 tokens) and a run grew to 24 GB."""
    filler = " ".join(f"line {n}: value {n * 37 % 101}" for n in range(60))  # ~500 tokens
    for question in range(2):
        model.complete(CompletionRequest.from_prompt(f"{question} {filler} Sum?", max_tokens=4))
    before = _rss_mb()
    for question in range(2, 10):
        model.complete(CompletionRequest.from_prompt(f"{question} {filler} Sum?", max_tokens=4))
    assert _rss_mb() - before < 200


def test_token_counts_are_exact_and_overflow_is_typed(model: LocalModel) -> None:
    assert model.profile.exact and model.profile.context_window == 4096
    assert model.profile.count_tokens("Hello, world!") == 4
    huge = CompletionRequest.from_prompt("word " * 5000, max_tokens=16)
    with pytest.raises(ContextExceeded):
        model.complete(huge)


def test_models_check_prints_a_real_completion() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hillclimber", "models", "check", "local"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "constrained answer parses as JSON: yes" in result.stdout
    assert "tokens/s" in result.stdout


def test_an_answer_that_loops_is_cut_off_early(model: LocalModel) -> None:
    """The 0.5B model loops on 'repeat' prompts until max_tokens; the loop is stopped once the
    end of the answer is one block said over and over, and the counts say what was generated."""
    request = CompletionRequest.from_prompt(
        "Write the line 'DB_PORT=5432 METRICS_PORT=9100' 200 times, one per line.",
        max_tokens=512,
    )
    answer = model.complete(request)
    assert answer.finish_reason == "repeating", answer.text[-200:]
    assert "DB_PORT=5432" in answer.text
    assert 60 < answer.usage.completion_tokens < 300
    assert answer.usage.prompt_tokens > 20


def test_token_counts_match_llama_cpp_own_usage(model: LocalModel) -> None:
    request = hello_request(constrained=False)
    answer = model.complete(request)
    reference = model._state.llm.create_chat_completion(
        messages=[m.model_dump() for m in request.messages],
        max_tokens=request.max_tokens,
        temperature=0.0,
        seed=0,
    )
    assert isinstance(reference, dict)
    assert reference["choices"][0]["message"]["content"] == answer.text
    assert answer.usage.prompt_tokens == reference["usage"]["prompt_tokens"]
    assert answer.usage.completion_tokens == reference["usage"]["completion_tokens"]
    short = model.complete(hello_request(constrained=False).model_copy(update={"max_tokens": 5}))
    assert short.finish_reason == "length" and short.usage.completion_tokens == 5


def test_the_deadline_stops_an_answer_between_two_tokens(model: LocalModel) -> None:
    """The agent's time holds inside a model call: llama.cpp is stopped between tokens."""
    request = CompletionRequest(
        messages=[Message(role="user", content="Count from 1 to 1000, one number a line.")],
        max_tokens=3000,
        deadline=time.monotonic() + 1.0,
    )
    start = time.monotonic()
    with pytest.raises(ModelTimeout, match="ran out while the model was answering"):
        model.complete(request)
    # not the minutes 3,000 tokens take here (15 s failed with the CPU shared by another model)
    assert time.monotonic() - start < 60
    assert model.complete(hello_request()).text  # the model answers the next request


def test_a_stopping_run_stops_an_answer_between_two_tokens(model: LocalModel) -> None:
    """A Ctrl-C holds inside a model call too: the run does not wait for a long answer."""
    request = CompletionRequest(
        messages=[Message(role="user", content="Count from 1 to 1000, one number a line.")],
        max_tokens=3000,
    )
    counted: list[bool] = []

    def stop_after_a_while() -> None:
        time.sleep(1.0)
        counted.append(True)
        process.stop_all()

    threading.Thread(target=stop_after_a_while).start()
    try:
        with pytest.raises(process.Stopped):
            model.complete(request)
        assert counted  # it answered until the stop, not before
    finally:
        process.resume()
    assert model.complete(hello_request()).text  # the model answers the next request
