"""Reading run folders back: configs, trials, the numbers that compare runs, trajectories as
steps, comparison folders, and one-line errors for paths that are not runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from hillclimber.errors import HillclimberError
from hillclimber.models import ModelConfig, window_of
from hillclimber.report.rundata import COMPARISON_FILE, Comparison, load_runs
from hillclimber.report.steps import read_steps, shorten, tail
from hillclimber.report.tables import (
    DASH,
    ends_table,
    grade_rows,
    how_close,
    markdown,
    matrix_rows,
    stats_row,
    task_matrix,
    trial_end,
)
from hillclimber.results import ExitReason

from rundirs import CLIMBER_ANSWERS, NAIVE_ANSWERS, bench, comparison, scripted


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("runs")
    bench(base / "oracle-run", "oracle", n_attempts=2)
    bench(base / "nop-run", "nop", tasks=["fx-hello"])
    compare = base / "cmp"
    comparison(
        compare,
        {
            "baseline": scripted(compare / "a", "naive", NAIVE_ANSWERS),
            "climbing": scripted(compare / "b", "climber", CLIMBER_ANSWERS),
        },
    )
    return base


def test_oracle_run_numbers_and_what_it_does_not_record(runs_dir: Path) -> None:
    [run] = load_runs([runs_dir / "oracle-run"])
    assert run.label == "oracle"
    assert [t.trial for t in run.trials][:2] == ["fx-fix-script.1", "fx-fix-script.2"]
    stats = run.stats()
    assert (stats.tasks, stats.trials, stats.solved) == (3, 6, 3)
    assert stats.pass_rate == 1.0 and stats.pass_at_k == {1: 1.0, 2: 1.0}
    assert stats.model_calls is None and stats.mean_turns is None
    assert stats.prompt_tokens_per_solved is None and stats.feedback == "none"
    assert stats.trial_seconds > 0
    row = stats_row(run)
    assert row[:3] == ["oracle", "3/3", "100%"]
    assert row[4:11] == [DASH] * 7  # turns, calls, tokens, parse, denials, shrinks
    assert run.trajectory(run.trials[0]) is None


def test_nop_fails_and_an_unfinished_trial_shows_as_not_run(runs_dir: Path) -> None:
    [run] = load_runs([runs_dir / "nop-run"])
    stats = run.stats()
    assert (stats.solved, stats.pass_rate, stats.seconds_per_solved) == (0, 0.0, None)
    assert matrix_rows([run]) == [["fx-hello", "✗"]]
    [trial] = run.trials  # how close it came: the tests it passed, beside its mark
    assert trial.evaluation is not None and trial.evaluation.total > 0
    near = f"0/{trial.evaluation.total}"
    assert how_close(run, "fx-hello") == near
    shown = Console(width=80, record=True)
    shown.print(task_matrix([run]))
    assert f"✗ {near}" in shown.export_text()
    run.trials.clear()  # as while the run is still going
    assert matrix_rows([run]) == [["fx-hello", "·"]]
    assert how_close(run, "fx-hello") == ""
    assert stats_row(run)[2] == DASH


def test_a_comparison_expands_to_its_runs_in_label_order(runs_dir: Path) -> None:
    runs = load_runs([runs_dir / "cmp", runs_dir / "oracle-run"])
    assert [r.label for r in runs] == ["baseline", "climbing", "oracle"]
    [alone] = load_runs([runs_dir / "cmp" / "b"])  # one of them shown alone: its label still
    assert alone.label == "climbing"
    naive, climber, _ = runs
    assert naive.config.harness is not None and naive.config.harness.preset == "naive"
    assert naive.feedback() == "none" and climber.feedback() == "tests"
    stats = naive.stats()
    assert stats.model_calls == 3 and stats.mean_turns == 3.0
    assert stats.parse_failures == 1 and stats.denials == 0
    assert stats.prompt_tokens is not None
    assert stats.prompt_tokens_per_solved == stats.prompt_tokens  # one task, solved
    climbed = climber.trials[0].agent_info["progress"]
    assert [p[1:] for p in climbed][-2:] == [[1, 2], [2, 2]]  # after each write


def test_a_trial_that_could_not_be_set_up_had_no_feedback(runs_dir: Path) -> None:
    """`self 154, none 1, not run 2`, as the split said it: a task that could not be set up
    ran no agent, and is no trial without feedback."""
    [_, climber] = load_runs([runs_dir / "cmp"])
    trial = climber.trials[0]
    unrun = trial.model_copy(update={"trial": "x.1", "exit_reason": ExitReason.SETUP_ERROR,
                                     "feedback": "none"})  # fmt: skip
    climber.trials.append(unrun)
    assert climber.feedback() == "tests, not run 1"
    climber.trials.append(trial.model_copy(update={"trial": "y.1", "feedback": "none"}))
    assert climber.feedback() == "tests 1, none 1, not run 1"
    climber.trials[:] = [unrun]
    assert climber.feedback() == "none"


def test_trajectory_steps_keep_the_model_text_verbatim(runs_dir: Path) -> None:
    naive, climber = load_runs([runs_dir / "cmp"])
    doc = naive.trajectory(naive.trials[0])
    assert doc is not None
    steps = read_steps(doc)
    first = steps[0]
    assert first.source == "agent" and first.turn == 1
    assert first.text == NAIVE_ANSWERS[0]
    assert first.parse_error is not None and not first.calls
    assert "Create a file /app/hello.txt" in first.last_user
    ran = steps[1]
    assert ran.calls[0]["function_name"] == "run_command" and ran.results[0]["success"]
    assert ran.tokens is not None and ran.tokens[0] > 0
    climbed = read_steps(climber.trajectory(climber.trials[0]) or {})
    checks = [s for s in climbed if s.verification is not None]
    assert [c.verification["passed"] for c in checks if c.verification] == [False, True]
    assert checks[0].turn == 1 and checks[0].source == "system"


def test_the_same_preset_twice_gets_the_run_id_and_then_a_number(runs_dir: Path) -> None:
    oracle = runs_dir / "oracle-run"
    assert [r.label for r in load_runs([oracle, oracle])] == [
        "oracle (oracle-run) #1",
        "oracle (oracle-run) #2",
    ]
    labels = [r.label for r in load_runs([oracle, runs_dir / "nop-run"])]
    assert labels == ["oracle", "nop"]


def test_what_is_not_a_run_is_one_line_naming_the_path(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "config.json").write_text("{}")
    cases = {
        tmp_path / "missing": "missing: no such folder",
        tmp_path: "not a run folder",
        tmp_path / "bad": "bad/config.json: not a RunConfig (field 'run_id'",
    }
    for path, named in cases.items():
        with pytest.raises(HillclimberError) as err:
            load_runs([path])
        assert named in str(err.value) and "\n" not in str(err.value)


def test_a_run_recorded_with_a_setting_removed_since_still_reads(
    runs_dir: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old"
    shutil.copytree(runs_dir / "cmp" / "b", old)
    config = json.loads((old / "config.json").read_text())
    config["harness"]["completion"]["agreement"] = True  # removed on 2026-11-28
    (old / "config.json").write_text(json.dumps(config))
    [run] = load_runs([old])
    assert run.config.harness is not None and run.config.harness.preset == "climber"
    config["agent"] = 3  # what is wrong, not only gone, is still an error
    (old / "config.json").write_text(json.dumps(config))
    with pytest.raises(HillclimberError, match="not a RunConfig"):
        load_runs([old])


def test_a_run_without_result_json_names_that_file(runs_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "r"
    run.mkdir()
    (run / "config.json").write_text((runs_dir / "nop-run" / "config.json").read_text())
    with pytest.raises(HillclimberError, match=r"r/result\.json: missing"):
        load_runs([run])


def test_a_broken_comparison_names_its_file(tmp_path: Path) -> None:
    (tmp_path / COMPARISON_FILE).write_text(json.dumps({"run_id": "x"}))
    with pytest.raises(HillclimberError, match=r"compare\.json: not a Comparison \(field 'labels'"):
        load_runs([tmp_path])
    good = Comparison(run_id="x", labels=["a"], runs={}, model="m", source="s")
    (tmp_path / COMPARISON_FILE).write_text(good.model_dump_json())
    with pytest.raises(HillclimberError, match="label 'a' has no run"):
        load_runs([tmp_path])


def test_a_comparison_still_running_shows_the_settings_that_started(
    runs_dir: Path, tmp_path: Path
) -> None:
    """Its later settings have no run folder yet: they are left out, not an error."""
    cmp = tmp_path / "cmp"
    shutil.copytree(runs_dir / "cmp", cmp, symlinks=True)
    comparison = Comparison.model_validate_json((cmp / COMPARISON_FILE).read_text())
    later = comparison.model_copy(
        update={"labels": [*comparison.labels, "later"], "runs": {**comparison.runs, "later": "l"}}
    )
    (cmp / COMPARISON_FILE).write_text(later.model_dump_json())
    assert [r.label for r in load_runs([cmp])] == ["baseline", "climbing"]


def test_shorten_keeps_head_and_tail_and_tail_keeps_the_end() -> None:
    text = "a" * 50 + "b" * 50
    assert shorten(text, 200) == text
    assert shorten(text, 20) == "a" * 10 + "\n… [80 characters left out] …\n" + "b" * 10
    assert tail(text, 10) == "… [90 characters left out] …\n" + "b" * 10


def test_each_grade_counts_its_trials_and_those_the_tests_failed(runs_dir: Path) -> None:
    """The harness's own evidence per trial, against the tests: the oracle and nop have no
    checks (unchecked, the tests pass the one and fail the other); the climber's last check in
    the loop passed (verified, right). A grade that is not "done" is never called wrong: the
    table says how many of its trials the tests passed."""
    oracle, nop, baseline, climbing = load_runs(
        [runs_dir / "oracle-run", runs_dir / "nop-run", runs_dir / "cmp"]
    )
    assert oracle.stats().grades == {"unchecked": (6, 0)}
    assert nop.stats().grades == {"unchecked": (1, 1)}
    assert climbing.stats().grades == {"verified": (1, 0)}
    assert climbing.stats().done_wrong == (0, 1) and nop.stats().done_wrong == (0, 0)
    rows = grade_rows([oracle, nop, climbing])
    assert rows[0] == ["verified", DASH, DASH, "1, 0 wrong (0%)"]
    assert rows[1] == ["unchecked", "6, 6 passed the tests", "1, 0 passed the tests", DASH]
    assert rows[-1] == ["said done", DASH, DASH, "1, 0 wrong (0%)"]
    assert baseline.trials[0].grade is not None


def test_every_run_says_the_window_its_model_had(runs_dir: Path) -> None:
    """A peer at an eighth of its model's window is not the peer at its best: the window is
    a row of its own, the setting's or the back end's default."""
    climbing = load_runs([runs_dir / "cmp" / "b"])[0]
    assert climbing.window() == "4,096"  # the scripted model's
    assert load_runs([runs_dir / "oracle-run"])[0].window() == "–"  # no model


@pytest.mark.parametrize(
    ("spec", "given", "tokens"),
    [
        ("local", None, 4096),
        ("local:qwen2.5-coder-1.5b", 32768, 32768),
        ("openai:qwen", None, 8192),
        ("fm", None, 4096),
    ],
)
def test_the_window_of_a_model_is_known_without_loading_it(
    spec: str, given: int | None, tokens: int
) -> None:
    assert window_of(ModelConfig(spec=spec, context_window=given)) == tokens


def test_how_each_trial_ended_is_the_agents_own_word_its_calls_and_time(
    runs_dir: Path,
) -> None:
    naive, climber, oracle = load_runs([runs_dir / "cmp", runs_dir / "oracle-run"])
    [said] = naive.trials
    assert trial_end(said).startswith(f"{said.agent_info['loop_exit']}, 3 calls, ")
    first = oracle.trials_of(oracle.trials[0].task_id)[0]  # no loop: the trial's own exit
    assert trial_end(first).startswith("passed, ") and "calls" not in trial_end(first)
    mini_swe = {"agent_info": {"loop_exit": "TimeExceeded", "model_calls": 10}}  # its record
    peer = said.model_copy(update={**mini_swe, "timings": {"agent": 904.5}})
    assert trial_end(peer) == "TimeExceeded, 10 calls, 15m04s"
    climber.trials.clear()  # not run yet: a dot, as in the matrix
    shown = Console(width=200, record=True)
    shown.print(ends_table([naive, climber, oracle]))
    text = shown.export_text()
    assert "how each trial ended" in text and f"{said.agent_info['loop_exit']}, 3 calls" in text
    oracle_row = next(line for line in text.splitlines() if oracle.trials[0].task_id in line)
    assert oracle_row.count("passed, ") == 2  # both attempts, one cell
    assert "·" in next(line for line in text.splitlines() if said.task_id in line)


def test_a_table_as_markdown_keeps_every_cell_whole_and_plain() -> None:
    """What a terminal clips and colours, the Markdown has whole: a long task name, the marks
    without their markup, a bar in a cell escaped so the row keeps its columns."""
    from rich.table import Table

    table = Table("task", "climber", title="tasks × runs")
    long_name = "mysql_innodb_corruption_recovery_medium"
    table.add_row(long_name, "[green]✓[/] [dim]7/7[/]")
    table.add_row("pipes", "a | b\nover two lines")
    assert markdown(table).splitlines() == [
        "**tasks × runs**",
        "",
        "| task | climber |",
        "| --- | --- |",
        f"| {long_name} | ✓ 7/7 |",
        "| pipes | a \\| b over two lines |",
    ]
