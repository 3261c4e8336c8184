"""The agent's time limit holds wherever the trial is (in a command, between turns, inside a
model call), and a trial that hits it keeps what it did: its stats in the result, its
trajectory with totals so far."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hillclimber.errors import ModelTimeout
from hillclimber.models.base import CompletionRequest, ModelProfile
from hillclimber.models.openai_compat import OpenAICompatModel

from conftest import FIXTURES, hc
from openai_server import FakeServer, Reply

LOOKING = json.dumps({"name": "run_command", "arguments": {"command": "ls /app"}})


def test_an_http_model_call_is_cut_at_the_deadline() -> None:
    with FakeServer() as server:
        server.script(Reply(text=LOOKING, delay=30))
        profile = ModelProfile(name="m", context_window=4096)
        model = OpenAICompatModel("m", server.url, profile, timeout=300, max_retries=0)
        request = CompletionRequest.from_prompt("hi", deadline=time.monotonic() + 1.5)
        start = time.monotonic()
        with pytest.raises(ModelTimeout):
            model.complete(request)
        assert time.monotonic() - start < 10
        late = CompletionRequest.from_prompt("hi", deadline=time.monotonic() - 1)
        with pytest.raises(ModelTimeout):
            model.complete(late)  # no request is sent once the time is up
        assert server.count == 1


@pytest.mark.slow
def test_a_slow_model_ends_the_trial_at_its_time_limit_with_its_record(tmp_path: Path) -> None:
    """6 s for the agent (fx-hello's 120 s × 0.05) and a model that takes 2 s an answer and
    never finishes: the trial ends agent_timeout within seconds of its limit, not at its turn
    budget, and keeps its turns, calls and tokens."""
    with FakeServer() as server:
        server.script(*[Reply(text=LOOKING, delay=2) for _ in range(40)])
        start = time.monotonic()
        ran = hc(
            "bench", "--dataset", str(FIXTURES / "tb2"), "--tasks", "fx-hello",
            "--model", "openai:m", "--base-url", server.url, "--preset", "naive",
            "--agent-timeout-multiplier", "0.05", "--run-id", "r", "--runs-dir", str(tmp_path),
        )  # fmt: skip
        elapsed = time.monotonic() - start
    assert ran.returncode == 0, ran.stderr
    trial = json.loads((tmp_path / "r" / "fx-hello.1" / "result.json").read_text())
    assert trial["exit_reason"] == "agent_timeout"
    assert trial["timings"]["agent"] < 6 + 5 and elapsed < 60
    info = trial["agent_info"]
    assert info["loop_exit"] == "timed_out" and info["model_calls"] >= 2
    assert info["turns"] >= 2 and info["prompt_tokens"] > 0
    trajectory = json.loads(
        (tmp_path / "r" / "fx-hello.1" / "logs/agent/trajectory.json").read_text()
    )
    assert trajectory["final_metrics"]["total_prompt_tokens"] == info["prompt_tokens"]
    assert trajectory["final_metrics"]["extra"]["exit"] == "timed_out"
