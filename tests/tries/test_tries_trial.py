"""Tries in real trials (the scripted model, the real sandbox, the runner): every try starts
from the same fresh state, none sees another's work, the majority answer is kept, tries stop
once two agree, and the task's tests run once, on the kept answer, after the choice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hillclimber.trial as trial
from hillclimber.grades import Grade
from hillclimber.harness.presets import preset
from hillclimber.models import ModelConfig
from hillclimber.results import TrialResult, read_trial
from hillclimber.runner import Run
from hillclimber.task import (
    Environment,
    Limits,
    Task,
    TaskFormat,
    Verification,
    VerificationKind,
)

from conftest import run_config

TASK = Task(
    id="count",
    instruction="Write the number of lines of /app/in.txt to /app/count.txt.",
    format=TaskFormat.MANIFEST,
    # a start drawn at random: the tries must all see the same draw
    environment=Environment(setup=("printf 'a\\nb\\nc\\n' > in.txt", "echo $RANDOM > drawn.txt")),
    verification=Verification(kind=VerificationKind.CUSTOM, command='test "$(cat count.txt)" = 3'),
)


def command(text: str) -> str:
    return json.dumps({"name": "run_command", "arguments": {"command": text}})


DONE = json.dumps({"name": "task_complete", "arguments": {}})


def writes(*counts: int) -> list[list[str]]:
    """Tries that write each of `counts` as the answer."""
    return [one_try(f"echo {count} > count.txt") for count in counts]


def one_try(writes: str) -> list[str]:
    """A try that looks at what it started from, writes its answer and says it is done."""
    return [command("cat drawn.txt >> seen.txt; ls > listing.txt"), command(writes), DONE]


def run(
    tmp_path: Path,
    tries: list[list[str]],
    *,
    samples: bool = True,
    task: Task = TASK,
    preset_name: str = "naive",
    **settings: Any,
) -> TrialResult:
    script = tmp_path / "answers.json"
    answers = [answer for one in tries for answer in one]
    script.write_text(json.dumps({"answers": answers, "samples": samples}))
    harness = preset(preset_name, **{"tries.n": 3, **settings})
    config = run_config(
        [task], agent="harness", harness=harness, model=ModelConfig(spec=f"scripted:{script}")
    )
    Run(config, [task], tmp_path / "run").execute()
    result = read_trial(tmp_path / "run" / "count.1" / "result.json")
    assert result is not None, (tmp_path / "run" / "count.1" / "error.txt").read_text()
    return result


def test_the_majority_answer_is_kept_and_scored(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        [*writes(4, 3), one_try("printf '3\\n\\n' > count.txt")],
    )
    assert result.tries is not None
    assert result.tries.groups == [[2, 3], [1]] and result.tries.chosen == 2
    assert result.tries.agreed and result.grade is Grade.AGREED
    assert result.passed
    assert [t.index for t in result.tries.tries] == [1, 2, 3]
    assert len({t.seed for t in result.tries.tries}) == 3
    assert {t.temperature for t in result.tries.tries} == {0.5}


def test_tries_stop_once_two_agree(tmp_path: Path) -> None:
    result = run(tmp_path, [*writes(3, 3), one_try("x")])
    assert result.tries is not None and len(result.tries.tries) == 2
    assert result.agent_info["tries"] == 2
    trial_dir = tmp_path / "run" / "count.1"
    assert not (trial_dir / "tries" / "3").exists()
    # the kept try's workspace and trajectory are the trial's, with every try's record
    assert (trial_dir / "workspace" / "count.txt").read_text() == "3\n"
    trajectory = json.loads((trial_dir / "logs" / "agent" / "trajectory.json").read_text())
    assert trajectory["extra"]["tries"]["chosen"] == 1
    assert [t["answer"] for t in trajectory["extra"]["tries"]["tries"]] == [
        t.answer for t in result.tries.tries
    ]


def test_each_try_starts_from_the_same_fresh_state_and_sees_no_other_try(tmp_path: Path) -> None:
    run(
        tmp_path,
        writes(1, 2, 5),
    )
    trial_dir = tmp_path / "run" / "count.1"
    # the kept try's workspace is the trial's; the others stay in their folders
    workspaces = [
        trial_dir / "workspace",
        *(trial_dir / "tries" / str(n) / "workspace" for n in (2, 3)),
    ]
    seen = {(folder / "seen.txt").read_text() for folder in workspaces}
    assert len(seen) == 1  # the same draw, and each saw it once: no other try's seen.txt
    for folder in workspaces:
        listing = (folder / "listing.txt").read_text().split()
        assert "count.txt" not in listing  # no earlier try's answer was there


def test_a_back_end_that_does_not_sample_gets_no_agreed_grade(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        writes(3, 3),
        samples=False,
    )
    assert result.tries is not None and not result.tries.agreed
    assert result.grade is Grade.UNCHECKED
    assert result.passed  # the tests score the kept answer all the same


def test_stop_all_runs_every_try(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        writes(3, 3, 4),
        **{"tries.stop": "all"},
    )
    assert result.tries is not None and len(result.tries.tries) == 3
    assert result.tries.groups == [[1, 2], [3]]


def test_the_tests_run_once_after_the_choice_on_the_kept_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    real_tries, real_verify = trial.run_tries, trial.verify

    def tries(*args: Any, **kwargs: Any) -> Any:
        kept, record = real_tries(*args, **kwargs)
        order.append(f"chose {record.chosen}")
        return kept, record

    def verify(task: Task, sandbox: Any, work_dir: Path, **kwargs: Any) -> Any:
        order.append(f"tests on {sandbox.layout.workspace.parent.name}")
        return real_verify(task, sandbox, work_dir, **kwargs)

    monkeypatch.setattr(trial, "run_tries", tries)
    monkeypatch.setattr(trial, "verify", verify)
    result = run(
        tmp_path,
        writes(4, 3, 3),
    )
    assert order == ["chose 2", "tests on 2"]
    assert result.passed


def test_a_try_whose_time_ran_out_is_still_checked_and_chosen_among(tmp_path: Path) -> None:
    """The agent's time is up in the first try (its command outlasts it): its checks still run
    on what it left, within the verifier's time, and the trial goes on to the next tries."""
    instruction = TASK.instruction + " Then run `cat /app/count.txt` to see it."  # a command check
    task = TASK.model_copy(
        update={"instruction": instruction, "limits": Limits(agent_timeout_sec=3)}
    )
    slow = [command("echo 3 > count.txt; sleep 30")]
    confirmed = [[*one, DONE] for one in writes(3, 3)]  # fm: the model stands by a weak pass
    result = run(tmp_path, [slow, *confirmed], task=task, preset_name="fm", planner=False)
    assert result.exit_reason.value == "passed", result.message
    assert result.tries is not None and result.tries.groups == [[1, 2]]  # it wrote 3 in time
    assert result.tries.tries[0].loop_exit == "timed_out"
    assert result.tries.tries[0].checks is not None  # checked all the same


def test_a_named_file_outside_the_workspace_is_kept_with_each_try(tmp_path: Path) -> None:
    """The workspace alone would not show what a try wrote to a file the task names outside
    it: each try keeps it in `tries/<n>/outside`, and the kept try's is the trial's."""
    task = TASK.model_copy(
        update={
            "instruction": "Write the number of lines of /tmp/in.txt to /tmp/count.txt.",
            "environment": Environment(setup=("printf 'a\\nb\\nc\\n' > /tmp/in.txt",)),
        }
    )
    result = run(
        tmp_path,
        [one_try(f"echo {count} > /tmp/count.txt") for count in (4, 3, 3)],
        task=task,
    )
    assert result.tries is not None and result.tries.chosen == 2
    trial_dir = tmp_path / "run" / "count.1"
    left = [trial_dir / "tries" / str(n) / "outside" / "tmp" / "count.txt" for n in (1, 2, 3)]
    assert [path.read_text() for path in left] == ["4\n", "3\n", "3\n"]
    assert (trial_dir / "outside" / "tmp" / "count.txt").read_text() == "3\n"
    assert not list(trial_dir.glob("**/outside/tmp/in.txt"))  # the task's input is not copied


def test_a_try_runs_with_its_own_changes_and_its_record_says_which(tmp_path: Path) -> None:
    # the second try may take one turn only: it changes nothing in it, and ends there
    result = run(tmp_path, [*writes(3), [command("true")], *writes(3)],
                 **{"tries.vary": [{}, {"max_turns": 1}]})  # fmt: skip
    assert result.tries is not None
    first, second, third = result.tries.tries
    assert (first.varied, second.varied, third.varied) == ({}, {"max_turns": 1}, {})
    assert (first.turns, second.turns) == (3, 1) and not second.answer
    assert result.tries.groups[0] == [1, 3] and result.passed
