"""The agent loop's logic, driven by the scripted model in a real sandbox with a real task and
its real verifier. (The scripted model tests the loop; it claims nothing about any model.)"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from hillclimber.agents.base import AgentOutcome
from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.errors import ContextExceeded
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import preset
from hillclimber.loaders import load_task
from hillclimber.models import ModelProfile, ScriptedModel
from hillclimber.sandbox import create_sandbox, pick_sandbox_kind, trial_layout
from hillclimber.task import Task
from hillclimber.verify.verifier import Evaluation, verify

from conftest import FIXTURES

HELLO = FIXTURES / "tb2" / "fx-hello"


def call(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


WRITE_OK = call("write_file", path="/app/hello.txt", content="Hello, world!\n")
WRITE_BAD = call("write_file", path="/app/hello.txt", content="Hello world\n")
DONE = call("task_complete")


FILE_GUARDS = ("protected_files", "overwrites")
"""The guards of fm and climber without the rules on commands and sequences."""


def quiet(config: HarnessConfig, **extra: Any) -> HarnessConfig:
    """The preset without the parts that would add model calls of their own (the planner),
    checking its work with the task's tests (the loop's logic is the same on either kind of
    checks; test_checks.py covers the harness's own)."""
    settings = {"planner": False, "probe_commands": False, "feedback": "tests", **extra}
    return config.with_settings(settings)


def run_agent(
    tmp_path: Path,
    config: HarnessConfig,
    answers: list[Any],
    *,
    task: Task | None = None,
    with_verifier: bool = True,
    profile: ModelProfile | None = None,
    files: dict[str, str] | None = None,
) -> tuple[AgentOutcome, ScriptedModel, list[Evaluation]]:
    task = task or load_task(HELLO)
    kind, _ = pick_sandbox_kind()
    sandbox = create_sandbox(kind, trial_layout(tmp_path / "trial"))
    for path, text in (files or {}).items():  # the task's environment, laid by hand
        sandbox.write_file(path, text.encode())
    evaluations: list[Evaluation] = []

    def check() -> Evaluation:
        evaluation = verify(task, sandbox, tmp_path / "checks")
        evaluations.append(evaluation)
        return evaluation

    model = ScriptedModel(answers, profile)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(
        task, sandbox, time.monotonic() + 300, log_dir, verify=check if with_verifier else None
    )
    outcome = HarnessAgent(model, config).run(ctx)
    return outcome, model, evaluations


def prompts_text(model: ScriptedModel, index: int) -> str:
    return "\n".join(m.content for m in model.requests[index].messages)


def recorded_steps(tmp_path: Path) -> list[dict[str, Any]]:
    """The steps of the trajectory `run_agent` wrote."""
    doc: dict[str, Any] = json.loads((tmp_path / "log" / "trajectory.json").read_text())
    return list(doc["steps"])


def model_roles(tmp_path: Path) -> list[str]:
    """Who asked each model call of the trial, in order (`worker`: the loop's own turn)."""
    return [s["extra"]["role"] for s in recorded_steps(tmp_path) if s["source"] == "agent"]


def test_task_complete_after_the_work_is_verified(tmp_path: Path) -> None:
    outcome, model, evaluations = run_agent(tmp_path, quiet(preset("fm")), [WRITE_OK, DONE])
    assert outcome.info["loop_exit"] == "verified"
    assert len(evaluations) == 1 and evaluations[0].passed
    model.assert_complete()
    assert (tmp_path / "log" / "trajectory.json").exists()


def test_the_working_folder_is_shown_as_it_is_each_turn_where_asked(tmp_path: Path) -> None:
    """`view.show_folder`: the working folder's entries, now, under their own title."""
    config = quiet(preset("fm"), show_folder=True)
    _, model, _ = run_agent(tmp_path, config, [WRITE_BAD, DONE, WRITE_OK, DONE])
    assert "Working folder:\n/app: empty" in prompts_text(model, 0)
    assert "Working folder:\n/app: hello.txt" in prompts_text(model, 1)
    _, plain, _ = run_agent(tmp_path / "off", quiet(preset("fm")), [WRITE_OK, DONE])
    assert "Working folder" not in prompts_text(plain, 0)


def test_a_premature_complete_is_verified_fed_back_and_the_loop_goes_on(tmp_path: Path) -> None:
    outcome, model, evaluations = run_agent(tmp_path, quiet(preset("fm")), [DONE, WRITE_OK, DONE])
    assert outcome.info["loop_exit"] == "verified"
    assert [e.passed for e in evaluations] == [False, True]
    assert "Verification failed" in prompts_text(model, 1)
    assert "test_file_exists" in prompts_text(model, 1)  # the failing checks are named
    model.assert_complete()


def test_exactly_max_verify_retries_verifications_then_failure(tmp_path: Path) -> None:
    config = quiet(preset("fm"), max_verify_retries=2)
    outcome, model, evaluations = run_agent(tmp_path, config, [WRITE_BAD, DONE, DONE])
    assert outcome.info["loop_exit"] == "verification_failed"
    assert len(evaluations) == 2 and not any(e.passed for e in evaluations)
    model.assert_complete()


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        (
            [WRITE_BAD, call("run_command", command="ls")]
            + [call("run_command", command="ls")] * 2,
            "same action repeated",
        ),
        (
            [WRITE_BAD] + [call("read_file", path=f"/app/missing{i}.txt") for i in range(3)],
            "failures after a success",
        ),
    ],
    ids=["same-action", "failures-after-success"],
)
def test_stuck_signals_end_through_verification(
    tmp_path: Path, answers: list[str], reason: str
) -> None:
    config = quiet(preset("fm"), rules=FILE_GUARDS, max_verify_retries=1)
    outcome, model, evaluations = run_agent(tmp_path, config, answers)
    assert outcome.info["loop_reason"] == reason
    assert outcome.info["loop_exit"] == "verification_failed"
    assert len(evaluations) == 1
    model.assert_complete()


def test_no_progress_ends_through_verification(tmp_path: Path) -> None:
    config = quiet(preset("fm"), rules=FILE_GUARDS, no_progress_turns=3, max_verify_retries=1)
    answers = ["not a tool call at all", "still nothing", "nope"]
    outcome, model, evaluations = run_agent(tmp_path, config, answers)
    assert outcome.info["loop_reason"] == "no progress"
    assert len(evaluations) == 1
    model.assert_complete()


def test_max_turns_ends_with_a_verification_that_can_pass(tmp_path: Path) -> None:
    config = quiet(preset("fm"), max_turns=2, complexity=False, no_progress_turns=None)
    answers = [WRITE_OK, call("run_command", command="cat /app/hello.txt")]
    outcome, _model, evaluations = run_agent(tmp_path, config, answers)
    assert outcome.info["loop_exit"] == "verified" and outcome.info["loop_reason"] == "max_turns"
    assert len(evaluations) == 1


def test_without_a_verifier_the_models_word_ends_the_loop(tmp_path: Path) -> None:
    outcome, _, evaluations = run_agent(tmp_path, quiet(preset("fm")), [DONE], with_verifier=False)
    assert outcome.info["loop_exit"] == "completed"
    assert evaluations == []


def test_the_effective_record_says_what_was_on_and_why_the_rest_was_off(tmp_path: Path) -> None:
    config = quiet(preset("climber"))
    outcome, _, _ = run_agent(tmp_path, config, [WRITE_OK])
    assert outcome.info["effective"] == {
        "checks": "on, the task's tests (feedback tests)",
        "planner": "off, not in the setting",
        "climbing": f"on, {config.climbing.candidates} candidates",
        "hints": "off, the suite's file says nothing",  # a task of no suite
        "turns": "on, 15, a simple task",
    }
    outcome, _, _ = run_agent(tmp_path / "alone", config, [DONE], with_verifier=False)
    effective = outcome.info["effective"]
    assert effective["checks"] == "off, the task's tests (feedback tests)"
    assert effective["climbing"] == "off, nothing to check with"


def test_without_a_verifier_a_repeated_action_ends_the_loop_as_done(tmp_path: Path) -> None:
    """`hillclimber run`: asking again for what was just done is the model's way of saying
    it is done, and with nothing to check the work the harness takes it at its word."""
    config = quiet(preset("fm"), rules=FILE_GUARDS)
    again = call("run_command", command="printf 'Hello, world!\\n' > /app/hello.txt")
    outcome, model, _ = run_agent(tmp_path, config, [again] * 3, with_verifier=False)
    assert outcome.info["loop_exit"] == "completed"
    assert outcome.info["loop_reason"] == "same action repeated"
    model.assert_complete()


def test_a_write_that_changes_nothing_ends_through_verification(tmp_path: Path) -> None:
    """A small model that has finished rarely says so: it writes the same content again."""
    config = quiet(preset("fm"), rules=FILE_GUARDS)
    outcome, model, evaluations = run_agent(tmp_path, config, [WRITE_OK, WRITE_OK])
    assert outcome.info["loop_exit"] == "verified"
    assert outcome.info["loop_reason"] == "nothing changed" and len(evaluations) == 1
    model.assert_complete()


def test_an_edit_that_changes_nothing_is_verified_and_fed_back(tmp_path: Path) -> None:
    same = call("edit_file", path="/app/hello.txt", old_text="Hello", new_text="Hello")
    config = quiet(preset("fm"), rules=FILE_GUARDS)
    outcome, model, evaluations = run_agent(tmp_path, config, [WRITE_BAD, same, WRITE_OK, DONE])
    assert [e.passed for e in evaluations] == [False, True]
    assert "Verification failed" in prompts_text(model, 2)
    assert outcome.info["loop_exit"] == "verified"
    model.assert_complete()


def test_naive_trusts_task_complete_even_with_a_verifier(tmp_path: Path) -> None:
    outcome, _, evaluations = run_agent(tmp_path, preset("naive"), [DONE])
    assert outcome.info["loop_exit"] == "completed" and evaluations == []


def test_no_path_passes_without_a_passing_verification(tmp_path: Path) -> None:
    """Every ending reached with bad work: none is `verified`."""
    endings = {
        "task_complete": [WRITE_BAD, DONE, DONE],
        "same_action": [WRITE_BAD] + [call("run_command", command="true")] * 6,
        "max_turns": [WRITE_BAD, call("run_command", command="true")],
    }
    for name, answers in endings.items():
        config = quiet(preset("fm"), rules=FILE_GUARDS, max_turns=len(answers), complexity=False)
        outcome, _, evaluations = run_agent(tmp_path / name, config, answers)
        assert outcome.info["loop_exit"] != "verified", name
        assert evaluations and not any(e.passed for e in evaluations), name


def test_auto_verify_after_a_write_ends_as_soon_as_tests_pass(tmp_path: Path) -> None:
    outcome, model, evaluations = run_agent(tmp_path, quiet(preset("climber")), [WRITE_OK])
    assert outcome.info["loop_exit"] == "verified"
    assert outcome.info["progress"][-1][1:] == (2, 2)
    assert evaluations and not outcome.self_checked  # the task's tests, not its own checks
    model.assert_complete()


def test_auto_verify_shows_progress_to_the_model(tmp_path: Path) -> None:
    answers = [WRITE_BAD, WRITE_OK]
    outcome, model, _ = run_agent(tmp_path, quiet(preset("climber"), candidates=1), answers)
    assert "tests 1/2 passing" in prompts_text(model, 1)
    assert outcome.info["loop_exit"] == "verified"


def test_climbing_tries_another_tool_when_the_call_does_not_help(tmp_path: Path) -> None:
    answers = [
        call("edit_file", path="/app/hello.txt", old_text="Hello", new_text="Hi"),  # no file yet
        call("run_command", command="printf 'Hello, world!\\n' > /app/hello.txt"),
    ]
    profile = ModelProfile(name="constrained", context_window=8192, supports_constraint=True)
    outcome, model, _ = run_agent(tmp_path, quiet(preset("climber")), answers, profile=profile)
    assert outcome.info["loop_exit"] == "verified"
    assert outcome.info["candidates"] == 1
    forced = model.requests[1].constraint
    assert forced is not None and forced.json_schema["properties"]["name"] == {
        "const": "run_command"
    }
    assert model.requests[1].messages == model.requests[0].messages  # the same question
    steps = recorded_steps(tmp_path)
    tried = next(s["extra"]["candidates"] for s in steps if "candidates" in s.get("extra", {}))
    assert tried["chosen"] == 1 and [c["result"] for c in tried["candidates"]] == [
        "edit_file: failed",
        "run_command: tests 2/2",
    ]
    assert [c["passing"] for c in tried["candidates"]] == [-1, 2] and tried["total"] == 2
    model.assert_complete()


def test_climbing_stops_asking_other_tools_once_their_answers_went_unapplied(
    tmp_path: Path,
) -> None:
    """Two answers asked of other tools in turn 1 change nothing and are not applied: with
    `unpaid_asks` 2 the trial asks no more, so turn 2's answer is the model's own turn."""
    nothing = [call("run_command", command=c) for c in ("true", "ls /", "pwd", "echo hi")]
    answers = [*nothing, WRITE_OK]
    config = quiet(preset("climber"), unpaid_asks=2, stall_turns=None)
    outcome, model, _ = run_agent(tmp_path, config, answers)
    assert outcome.info["loop_exit"] == "verified"
    assert model_roles(tmp_path) == ["worker", "candidate", "candidate", "worker", "worker"]
    model.assert_complete()


def test_climbing_asks_other_tools_each_turn_without_a_limit(tmp_path: Path) -> None:
    nothing = [call("run_command", command=c) for c in ("true", "ls /", "pwd")]
    answers = [*nothing, call("run_command", command="echo hi"), "x", WRITE_OK]
    config = quiet(preset("climber"), unpaid_asks=0, stall_turns=None)
    outcome, model, _ = run_agent(tmp_path, config, answers)
    assert outcome.info["loop_exit"] == "verified"
    assert model_roles(tmp_path) == [
        "worker",
        "candidate",
        "candidate",
        "worker",
        "candidate",
        "candidate",
    ]
    model.assert_complete()


def test_climbing_tries_other_tools_when_the_models_call_is_refused(tmp_path: Path) -> None:
    answers = [call("run_command", command="rm -rf /"), WRITE_OK]
    outcome, model, _ = run_agent(tmp_path, quiet(preset("climber")), answers)
    assert outcome.info["denials"] == 1 and outcome.info["candidates"] == 1
    assert outcome.info["loop_exit"] == "verified"
    model.assert_complete()


def test_climbing_tries_another_reading_of_the_models_call(tmp_path: Path) -> None:
    """The 0.5B model writes a command's text where its output belongs: the harness also
    tries running it into the file, and the tests choose."""
    answers = [call("write_file", path="/app/hello.txt", content="echo Hello, world!")]
    config = quiet(preset("climber"), candidates=2)
    outcome, model, _ = run_agent(tmp_path, config, answers)
    assert outcome.info["readings"] == 1 and outcome.info["candidates"] == 0
    assert outcome.info["loop_exit"] == "verified"
    model.assert_complete()


def test_climbing_also_tries_the_readings_of_another_tools_answer(tmp_path: Path) -> None:
    """The model's own call fails; the answer it gives when asked for write_file is a
    command's text written into the file; that answer's other reading is what works."""
    answers = [
        call("run_command", command="cat /app/hello.txt"),
        call("write_file", path="/app/hello.txt", content="echo Hello, world!"),
    ]
    profile = ModelProfile(name="constrained", context_window=8192, supports_constraint=True)
    outcome, model, _ = run_agent(tmp_path, quiet(preset("climber")), answers, profile=profile)
    assert outcome.info["candidates"] == 1 and outcome.info["readings"] == 1
    assert outcome.info["loop_exit"] == "verified"
    model.assert_complete()


def two_file_task(tmp_path: Path) -> Task:
    """fx-hello turned into a task that changes two files."""
    folder = tmp_path / "two-files"
    shutil.copytree(HELLO, folder)
    (folder / "instruction.md").write_text("Set A=1 in /app/a.txt and B=1 in /app/b.txt.\n")
    (folder / "tests" / "test_outputs.py").write_text(
        "from pathlib import Path\n\n\n"
        "def test_a():\n    assert Path('/app/a.txt').read_text() == 'A=1\\n'\n\n\n"
        "def test_b():\n    assert Path('/app/b.txt').read_text() == 'B=1\\n'\n"
    )
    return load_task(folder)


def test_climbing_asks_for_the_other_file_the_task_names(tmp_path: Path) -> None:
    """A model fixed on one file: the harness asks for an edit of the other one too."""
    edit_a = call("edit_file", path="/app/a.txt", old_text="A=0", new_text="A=1")
    answers = [
        edit_a,  # turn 1, the model's own: tests 1/2
        call("run_command", command="true"),  # asked for run_command
        call("write_file", path="/app/c.txt", content="C"),  # asked for write_file
        edit_a,  # turn 2, the model's own again: fails, A=0 is gone
        call("edit_file", path="/app/b.txt", old_text="B=0", new_text="B=1"),  # asked for b.txt
    ]
    profile = ModelProfile(name="constrained", context_window=8192, supports_constraint=True)
    task = two_file_task(tmp_path)
    files = {"/app/a.txt": "A=0\n", "/app/b.txt": "B=0\n"}
    outcome, model, _ = run_agent(
        tmp_path, quiet(preset("climber")), answers, task=task, profile=profile, files=files
    )
    assert outcome.info["loop_exit"] == "verified"
    pinned = model.requests[4].constraint
    assert pinned is not None
    arguments = pinned.json_schema["properties"]["arguments"]["properties"]
    assert arguments["path"] == {"const": "/app/b.txt"}
    model.assert_complete()


def test_a_read_of_what_was_read_reads_the_other_named_file(tmp_path: Path) -> None:
    """`rereading`: the model reads a.txt again, unchanged; the harness reads b.txt, which the
    task names and the model had not read, and says so."""
    read_a = call("read_file", path="/app/a.txt")
    answers = [
        read_a,
        read_a,  # read as /app/b.txt
        call("edit_file", path="/app/a.txt", old_text="A=0", new_text="A=1"),
        call("edit_file", path="/app/b.txt", old_text="B=0", new_text="B=1"),
        DONE,
    ]
    files = {"/app/a.txt": "A=0\n", "/app/b.txt": "B=0\n"}
    config = quiet(preset("full"))
    outcome, model, _ = run_agent(
        tmp_path, config, answers, task=two_file_task(tmp_path), files=files
    )
    assert outcome.info["loop_exit"] == "verified"
    model.assert_complete()
    told = prompts_text(model, 2)
    assert "B=0\n" in told and "NOTE: /app/a.txt is as you read it before" in told
    steps = recorded_steps(tmp_path)
    guarded = [
        s for s in steps if (s.get("extra") or {}).get("guard", {}).get("rule") == "rereading"
    ]
    assert [s["extra"]["guard"]["action"] for s in guarded] == ["redirect"]
    assert guarded[0]["tool_calls"][0]["arguments"] == {"path": "/app/b.txt"}


def test_climbing_never_applies_a_step_that_loses_tests(tmp_path: Path) -> None:
    answers = [
        WRITE_BAD,  # tests 1/2: kept
        call("run_command", command="true"),  # the other tool's idea: tests 1/2, no gain
        call("run_command", command="rm /app/hello.txt"),  # tests 0/2
        call("write_file", path="/app/hello.txt/x", content="x"),  # fails
        WRITE_OK,
    ]
    config = quiet(preset("climber"), candidates=2)
    outcome, model, _ = run_agent(tmp_path, config, answers)
    assert "REJECTED: no way tried keeps the 1 passing tests" in prompts_text(model, 4)
    assert "Hello world" in prompts_text(model, 4)  # the file was put back, as the model sees
    assert prompts_text(model, 3).endswith("(use write_file)")  # no schema: asked in words
    assert outcome.info["loop_exit"] == "verified"
    assert outcome.info["progress"][0][1:] == (0, 2)  # the baseline, before any action
    model.assert_complete()


def offered(model: ScriptedModel, index: int) -> str:
    """The tools a request offered: the turn's own where they are fewer than the trial's,
    said at its end; else all the rules list."""
    messages = model.requests[index].messages
    if "This turn you may call ONLY: " in messages[-1].content:
        return messages[-1].content.split("This turn you may call ONLY: ")[1].split(".")[0]
    return messages[0].content.split("The ONLY tools you may call are: ")[1].split(".")[0]


def test_dynamic_tools_follow_the_state(tmp_path: Path) -> None:
    """After a write (without auto-verify) only checking is offered; after turns without
    progress, no more looking around: every acting tool, no read_file."""
    writes = [call("write_file", path="/app/hello.txt", content=f"try {n}\n") for n in range(4)]
    config = quiet(preset("climber"), candidates=1, auto_verify=False, drop_reads_after=2)
    check = call("verify_progress")
    answers = [writes[0], check, writes[1], check, writes[2], check, WRITE_OK, DONE]
    _, model, _ = run_agent(tmp_path / "sequence", config, answers)
    assert offered(model, 0).startswith("read_file, write_file, edit_file, run_command")
    assert offered(model, 1) == "verify_progress, task_complete"
    assert "read_file" in offered(model, 4)  # one check without a gain
    stuck = offered(model, 6)  # two checks without a gain
    assert "read_file" not in stuck and "run_command" in stuck and "write_file" in stuck
    # the rules stay the same all trial long: a back end reuses what it computed for them
    assert len({request.messages[0].content for request in model.requests}) == 1


def test_a_denied_action_is_fed_back_and_not_run(tmp_path: Path) -> None:
    answers = [call("run_command", command="rm -rf /"), WRITE_OK, DONE]
    outcome, model, _ = run_agent(tmp_path, quiet(preset("fm")), answers)
    assert "REJECTED: run_command" in prompts_text(model, 1)
    assert outcome.info["denials"] == 1 and outcome.info["loop_exit"] == "verified"


def test_a_parse_failure_is_fed_back_specifically(tmp_path: Path) -> None:
    answers = [call("delete_everything", path="x"), WRITE_OK, DONE]
    outcome, model, _ = run_agent(tmp_path, quiet(preset("fm")), answers)
    second = prompts_text(model, 1)
    assert "delete_everything" in second and "write_file" in second
    assert outcome.info["parse_failures"] == 1 and outcome.info["loop_exit"] == "verified"


def test_the_model_sees_what_it_read(tmp_path: Path) -> None:
    """The original system's summaries hid file contents from the model: not here."""
    answers = [
        call("run_command", command="printf 'secret-token-42\\n' > /app/note.txt"),
        call("read_file", path="/app/note.txt"),
        WRITE_OK,
        DONE,
    ]
    _, model, _ = run_agent(tmp_path, quiet(preset("fm")), answers)
    assert "secret-token-42" in prompts_text(model, 2)


LONG = (
    (HELLO / "instruction.md").read_text()
    + "\n"
    + "\n".join(
        f"- Requirement {i}: the file /app/out{i}.csv must have columns id,name,score in that "
        f"exact order and be sorted by score, ties by name; write it with a header line."
        for i in range(40)
    )
)


@pytest.mark.parametrize("preset_name", ["fm", "climber", "full"])
def test_prompts_stay_within_a_4096_token_window_over_30_turns(
    tmp_path: Path, preset_name: str
) -> None:
    assert len(LONG) > 4000
    task = load_task(HELLO).model_copy(update={"instruction": LONG})
    profile = ModelProfile(name="fm-like", context_window=4096, chars_per_token=3.0)
    noisy = [call("run_command", command=f"seq {i} 200000") for i in range(15)]
    reads = [call("read_file", path=f"/app/big{i}.txt") for i in range(14)]
    setup = call(
        "run_command", command="for i in $(seq 0 13); do seq 1 90000 > /app/big$i.txt; done"
    )
    answers = [setup] + [a for pair in zip(noisy, reads, strict=False) for a in pair] + noisy[-1:]
    config = quiet(
        preset(preset_name),
        max_turns=30,
        complexity=False,
        rules=FILE_GUARDS,
        verify_between_writes=False,  # without tool_sequence it would do nothing: refused
        no_progress_turns=None,
        auto_verify=False,
        max_verify_retries=1,
        same_action_limit=99,
        candidates=1,
    )
    _, model, _ = run_agent(tmp_path, config, answers, task=task, profile=profile)
    assert len(model.requests) == 30
    for request in model.requests:
        used = profile.count_messages(request.messages) + request.max_tokens
        assert used <= 4096, used


def test_an_overflow_the_back_end_reports_shrinks_the_prompt_and_asks_again(
    tmp_path: Path,
) -> None:
    """The budget keeps prompts in the window, but a back end's own count may differ: the
    turn is asked again with a smaller prompt instead of failing the task."""
    answers: list[Any] = [ContextExceeded("Exceeded model context window size"), WRITE_OK]
    outcome, model, _ = run_agent(tmp_path, quiet(preset("climber")), answers)
    assert outcome.info["context_shrinks"] == 1
    assert outcome.info["loop_exit"] == "verified"
    first, second = (prompts_text(model, i) for i in range(2))
    assert len(second) <= len(first)
    model.assert_complete()


def test_an_overflow_that_persists_ends_as_context_exceeded(tmp_path: Path) -> None:
    answers: list[Any] = [ContextExceeded("still too long")] * 3
    outcome, model, _ = run_agent(tmp_path, quiet(preset("fm")), answers)
    assert outcome.info["loop_exit"] == "context_exceeded"
    assert outcome.info["context_shrinks"] == 2 and outcome.info["turns"] == 1
    model.assert_complete()


def test_the_plain_history_is_never_shrunk(tmp_path: Path) -> None:
    """naive: an overflow ends the trial at once (no help is its point)."""
    answers: list[Any] = [ContextExceeded("n_ctx exceeded")]
    outcome, model, _ = run_agent(tmp_path, preset("naive"), answers)
    assert outcome.info["loop_exit"] == "context_exceeded"
    assert outcome.info["context_shrinks"] == 0
    model.assert_complete()


def test_a_trial_with_no_news_for_stall_turns_ends_through_one_last_check(tmp_path: Path) -> None:
    """No check newly passing and no action that had not succeeded before: the rest of the
    budget would be spent the same way."""
    config = quiet(
        preset("fm"),
        rules=FILE_GUARDS,
        stall_turns=3,
        no_progress_turns=None,
        same_action_limit=99,
        max_turns=20,
        complexity=False,
    )
    again = call("run_command", command="true")
    outcome, model, evaluations = run_agent(
        tmp_path, config, [WRITE_BAD, again, again, again, again]
    )
    assert outcome.info["loop_reason"] == "stalled" and outcome.info["turns"] == 5
    assert outcome.info["loop_exit"] == "verification_failed" and len(evaluations) == 1
    model.assert_complete()


def test_free_first_asks_under_the_schema_only_when_the_free_answer_is_unreadable(
    tmp_path: Path,
) -> None:
    profile = ModelProfile(name="constrained", context_window=8192, supports_constraint=True)
    config = quiet(preset("fm"), free_first=True)
    answers = ["I would write the file.", WRITE_OK, DONE]
    outcome, model, _ = run_agent(tmp_path, config, answers, profile=profile)
    assert [r.constraint is not None for r in model.requests] == [False, True, False]
    assert outcome.info["constrained_retries"] == 1 and outcome.info["parse_failures"] == 0
    assert outcome.info["loop_exit"] == "verified"
    model.assert_complete()
