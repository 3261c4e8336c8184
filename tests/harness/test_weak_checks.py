"""A pass of weak checks only ("exists", "parses", "changed": any content passes them) never
ends a trial as verified: the model is shown what they looked at and asked to confirm or fix it,
and only its next done-signal, with nothing changed, ends the trial (`confirmed`)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hillclimber.agents.base import AgentOutcome
from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.harness.checks import build_checks
from hillclimber.harness.completion.gate import Gate
from hillclimber.harness.config import CompletionSettings
from hillclimber.harness.presets import preset
from hillclimber.harness.recording.events import EventBus
from hillclimber.harness.state import LoopEnd, LoopExit, LoopState
from hillclimber.models import ScriptedModel
from hillclimber.task import Task, TaskFormat
from hillclimber.verify.verifier import Evaluation

from conftest import host_sandbox

SUM = "Write the sum of the numbers in /app/numbers.txt to /app/total.txt."
DONE = '{"name": "task_complete", "arguments": {}}'


def write(path: str, content: str) -> str:
    return json.dumps({"name": "write_file", "arguments": {"path": path, "content": content}})


def run_agent(
    tmp_path: Path, setting: str, answers: list[str], **settings: object
) -> tuple[AgentOutcome, ScriptedModel]:
    sandbox, workspace = host_sandbox(tmp_path / "trial")
    (workspace / "numbers.txt").write_text("3\n4\n5\n")
    task = Task(id="sum", instruction=SUM, format=TaskFormat.INLINE)
    # the model's word after it saw the result
    config = preset(setting, planner=False, probe_commands=False, propose=False)
    config = config.with_settings(settings)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(task, sandbox, time.monotonic() + 60, log_dir)
    model = ScriptedModel(answers)
    return HarnessAgent(model, config).run(ctx), model


def test_the_sums_checks_are_weak_only(tmp_path: Path) -> None:
    sandbox, workspace = host_sandbox(tmp_path)
    (workspace / "numbers.txt").write_text("3\n4\n5\n")
    built = build_checks(SUM, sandbox)
    assert [c.name for c in built.checks] == [
        "/app/total.txt exists and is not empty",
        "/app/total.txt is not a copy of an input or of the instruction's example",
    ]
    assert built.usable and built.strength == "weak"
    (workspace / "total.txt").write_text("3+4+5\n")
    evaluation = built.evaluate()
    assert evaluation.passed and not evaluation.conclusive
    assert evaluation.evidence == "/app/total.txt now holds:\n3+4+5"


@pytest.mark.parametrize(
    ("setting", "dones"),
    [("climber", 1), ("fm", 2)],  # climber checks after the write; fm at the model's first done
)
def test_a_weak_pass_never_ends_the_trial_and_the_model_sees_the_result(
    tmp_path: Path, setting: str, dones: int
) -> None:
    answers = [write("/app/total.txt", "3+4+5\n"), *[DONE] * dones]
    outcome, model = run_agent(tmp_path, setting, answers)
    assert outcome.info["loop_exit"] == "confirmed"
    shown = [r for r in model.requests if "/app/total.txt now holds:\n3+4+5" in _text(r)]
    assert shown, "the model was never shown what the weak checks looked at"
    assert "only show that files are there or changed" in _text(shown[0])
    model.assert_complete()


def test_without_confirm_the_models_word_never_ends_the_trial(tmp_path: Path) -> None:
    """`completion.confirm = false`: shown the result, the model's done-signals go on being
    answered, and the trial runs to its last chance (`unconfirmed`), not `confirmed`."""
    answers = [write("/app/total.txt", "3+4+5\n"), DONE, DONE]
    outcome, model = run_agent(tmp_path, "fm", answers, confirm=False, max_turns=3)
    model.assert_complete()
    assert outcome.info["loop_exit"] == "unconfirmed"
    told = _text(model.requests[-1])
    assert "Check its values against the input with a command of your own" in told


def test_the_model_shown_a_wrong_result_fixes_it_then_confirms(tmp_path: Path) -> None:
    answers = [
        write("/app/total.txt", "3+4+5\n"),
        DONE,
        write("/app/total.txt", "12\n"),
        DONE,
        DONE,
    ]
    outcome, model = run_agent(tmp_path, "fm", answers)
    assert outcome.info["loop_exit"] == "confirmed"
    assert any("/app/total.txt now holds:\n12" in _text(r) for r in model.requests)
    model.assert_complete()


def _text(request: object) -> str:
    return "\n".join(m.content for m in request.messages)  # type: ignore[attr-defined]


def gate_with(evaluation: Evaluation) -> tuple[Gate, LoopState]:
    state = LoopState()
    gate = Gate(CompletionSettings(), lambda: evaluation, state, EventBus())
    return gate, state


WEAK = Evaluation(passed=True, passing=1, total=1, strength="weak", evidence="/app/x now holds:\n1")


def test_the_gate_asks_once_then_takes_the_models_word() -> None:
    gate, state = gate_with(WEAK)
    told = gate.finalize("task_complete", 1)
    assert told is not None and told.kind == "weak" and "/app/x now holds:\n1" in told.message
    state.weak_passed(told.message)  # as the loop records it
    with pytest.raises(LoopEnd) as ended:
        gate.finalize("task_complete", 1)
    assert ended.value.exit is LoopExit.CONFIRMED


def test_a_pass_of_form_checks_never_ends_a_trial_verified() -> None:
    """The answer has the stated form; its values may still be anything."""
    gate, state = gate_with(WEAK.model_copy(update={"strength": "form"}))
    told = gate.finalize("task_complete", 1)
    assert told is not None and "have the form the task states" in told.message
    state.weak_passed(told.message)
    with pytest.raises(LoopEnd) as ended:
        gate.finalize("task_complete", 1)
    assert ended.value.exit is LoopExit.CONFIRMED


def test_a_last_chance_on_a_weak_pass_never_shown_is_unconfirmed() -> None:
    gate, _ = gate_with(WEAK)
    with pytest.raises(LoopEnd) as ended:
        gate.finalize("max_turns", 1, last_chance=True)
    assert ended.value.exit is LoopExit.UNCONFIRMED


def test_a_conclusive_pass_ends_at_once() -> None:
    gate, _ = gate_with(WEAK.model_copy(update={"strength": "value", "evidence": ""}))
    with pytest.raises(LoopEnd) as ended:
        gate.finalize("task_complete", 1)
    assert ended.value.exit is LoopExit.VERIFIED


def test_writing_the_same_result_again_confirms_it(tmp_path: Path) -> None:
    """Shown its result, the model writes it again unchanged: that is its answer."""
    same = write("/app/total.txt", "3+4+5\n")
    outcome, model = run_agent(tmp_path, "fm", [same, DONE, same])
    assert outcome.info["loop_exit"] == "confirmed"
    model.assert_complete()
