"""`hillclimber show` and `hillclimber report` as a user meets them, through typer's runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from hillclimber.cli import app
from hillclimber.provenance import source_commit

from rundirs import CLIMBER_ANSWERS, NAIVE_ANSWERS, bench, comparison, scripted


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("runs")
    compare = base / "cmp"
    comparison(
        compare,
        {
            "naive": scripted(compare / "naive", "naive", NAIVE_ANSWERS),
            "climber": scripted(compare / "climber", "climber", CLIMBER_ANSWERS),
        },
    )
    bench(base / "oracle", "oracle", tasks=["fx-hello"])
    bench(base / "oracle-2", "oracle", tasks=["fx-sales-total"])  # another shard, run apart
    return base


def hc(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def test_show_prints_the_numbers_and_the_task_matrix(runs_dir: Path) -> None:
    code, out, _ = hc("show", str(runs_dir / "cmp"))
    assert code == 0
    assert "climber" in out and "naive" in out
    feedback = next(line for line in out.splitlines() if "feedback" in line)
    assert [cell.strip() for cell in feedback.split("│")[2:4]] == ["none", "tests"]
    assert "fx-hello" in out and "✓" in out
    code, out, _ = hc("show", str(runs_dir / "oracle"))
    assert code == 0 and "oracle" in out and "–" in out
    assert "how each trial ended" not in out  # asked for with --ends
    code, out, _ = hc("show", str(runs_dir / "oracle"), "--ends")
    assert code == 0 and "how each trial ended" in out and "passed, " in out


def test_show_as_markdown_gives_the_same_tables_to_paste(runs_dir: Path) -> None:
    code, out, _ = hc("show", str(runs_dir / "cmp"), "--ends", "--markdown")
    assert code == 0 and "│" not in out  # no box drawing
    for title in ("runs", "the harness said → the tests said", "tasks × runs",
                  "how each trial ended"):  # fmt: skip
        assert f"**{title}**" in out
    assert "| feedback | none | tests |" in out
    assert "| fx-hello | ✓ | ✓ |" in out
    code, out, _ = hc("show", str(runs_dir / "cmp"), "--totals", "--markdown")
    assert code == 0 and "**runs**" in out and "fx-" not in out  # still no task by name


def test_show_totals_names_no_task(runs_dir: Path) -> None:
    code, out, _ = hc("show", str(runs_dir / "cmp"), "--totals")
    assert code == 0
    assert "climber" in out and "naive" in out and "feedback" in out  # the totals, per run
    assert "fx-" not in out and "tasks × runs" not in out  # no task by name, no matrix
    code, out, err = hc("show", str(runs_dir / "cmp"), "fx-hello", "--totals")
    assert code == 2 and "not both" in err and out == ""


def test_show_with_a_task_reads_each_trial_step_by_step(runs_dir: Path) -> None:
    code, out, _ = hc("show", str(runs_dir / "cmp"), "fx-hello")
    assert code == 0
    assert "fx-hello.1 · naive · passed" in out and "fx-hello.1 · climber · passed" in out
    commit = source_commit()  # which code ran each trial, where known
    assert commit is None or f"fx-hello.1 · naive · passed · {commit}" in out
    assert "answer: Let me think about <this> first & then act." in out  # verbatim
    assert "parse error: no_valid_format" in out
    assert 'call: write_file {"path": "/app/hello.txt"' in out
    assert "verification (auto_verify) failed, tests 1/2" in out
    assert "checks: on, the task's tests (feedback tests); planner: off" in out  # what was on
    code, out, _ = hc("show", str(runs_dir / "oracle"), "fx-hello")
    assert code == 0 and "no trajectory (agent oracle)" in out


def test_show_reads_the_runs_of_a_setting_given_together_as_one(runs_dir: Path) -> None:
    """The tenths of a split run apart (`--shard`) are one split: one column per setting."""
    code, out, _ = hc("show", str(runs_dir / "oracle"), str(runs_dir / "oracle-2"), "--totals")
    assert code == 0
    solved = next(line for line in out.splitlines() if "solved" in line)
    assert [cell.strip() for cell in solved.split("│")[2:-1]] == ["2/2"]
    elapsed = next(line for line in out.splitlines() if "elapsed" in line)
    assert "–" in elapsed  # trials run apart have no wall time together
    code, out, _ = hc("show", str(runs_dir / "oracle"), str(runs_dir / "oracle-2"))
    assert code == 0 and "fx-hello" in out and "fx-sales-total" in out
    code, out, _ = hc(
        "show", str(runs_dir / "oracle"), str(runs_dir / "oracle-2"), "fx-sales-total"
    )
    assert code == 0 and "fx-sales-total.1 · oracle · passed" in out
    code, out, _ = hc("show", str(runs_dir / "oracle"), str(runs_dir / "oracle"), "--totals")
    solved = next(line for line in out.splitlines() if "solved" in line)
    assert code == 0 and "1/1" in solved  # a folder given twice is read once
    code, out, err = hc("show", str(runs_dir / "oracle"), str(runs_dir / "oracle-3"))
    assert code == 2 and "oracle-3: no such folder" in err  # a typo, not a task
    code, out, _ = hc("show", str(runs_dir / "cmp"), str(runs_dir / "oracle"), "--totals")
    header = next(line for line in out.splitlines() if "climber" in line)
    assert "naive" in header and "oracle" in header  # settings apart stay apart


def test_report_writes_one_file_into_the_first_run_by_default(
    runs_dir: Path, tmp_path: Path
) -> None:
    code, out, _ = hc("report", str(runs_dir / "cmp"), str(runs_dir / "oracle"))
    assert code == 0
    default = runs_dir / "cmp" / "report.html"
    assert f"report: {default}" in out.replace("\n", "")
    assert "<h2>Summary</h2>" in default.read_text()
    code, _, _ = hc("report", str(runs_dir / "oracle"), "-o", str(tmp_path / "x" / "r.html"))
    assert code == 0 and (tmp_path / "x" / "r.html").is_file()


def test_bad_paths_are_one_line_errors_naming_the_file(runs_dir: Path, tmp_path: Path) -> None:
    half = tmp_path / "half"
    half.mkdir()
    (half / "config.json").write_text((runs_dir / "oracle" / "config.json").read_text())
    cases = [
        (("show", str(tmp_path / "nowhere")), "nowhere: no such folder"),
        (("report", str(tmp_path)), "not a run folder"),
        (("report", str(half)), "half/result.json: missing"),
        (("show", str(runs_dir / "oracle"), "no-such-task"), "no finished trial of task"),
    ]
    for args, named in cases:
        code, _, err = hc(*args)
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2, (args, err)
        assert len(lines) == 1 and named in lines[0], err
        assert "Traceback" not in err
