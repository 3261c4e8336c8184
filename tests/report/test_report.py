"""The HTML report: self-contained, everything escaped, the model's text verbatim, plots inline;
and a real browser renders it."""

from __future__ import annotations

import base64
import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hillclimber.report.html import build_report, write_report
from hillclimber.report.rundata import load_runs
from hillclimber.report.steps import read_steps
from hillclimber.report.tables import STATS_COLUMNS, stats_table, task_matrix
from hillclimber.report.trajview import verification_text

from conftest import REPO, missing
from rundirs import CLIMBER_ANSWERS, NAIVE_ANSWERS, bench, comparison, scripted

ARTIFACTS = REPO / "tests" / "artifacts"


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("runs")
    compare = base / "cmp"
    comparison(
        compare,
        {
            "naive": scripted(compare / "naive", "naive", NAIVE_ANSWERS, n_attempts=2),
            "climber": scripted(compare / "climber", "climber", CLIMBER_ANSWERS, n_attempts=2),
        },
    )
    bench(base / "oracle", "oracle")
    bench(base / "nop", "nop")
    return base


def images(page: str) -> list[bytes]:
    return [
        base64.b64decode(data)
        for data in re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    ]


def test_the_report_has_the_tables_plots_and_every_trial(runs_dir: Path) -> None:
    runs = load_runs([runs_dir / "cmp", runs_dir / "oracle", runs_dir / "nop"])
    page = build_report(runs)
    assert "<h2>Summary</h2>" in page and "<h2>Tasks</h2>" in page
    assert "climber (feedback: tests, window 4,096)" in page
    assert "naive (window 4,096)" in page
    assert '<td class="pass">✓✓</td>' in page  # each scripted run passes both attempts
    plots = images(page)
    assert len(plots) == 4  # pass rate, per task, progress (climber), tokens and time
    assert all(png.startswith(b"\x89PNG") and len(png) > 2000 for png in plots)
    # 2 + 2 scripted trials, 3 oracle, 3 nop: each folded on its own
    assert page.count('<details class="trial">') == 10
    assert "no trajectory (agent oracle)" in page and "oracle.log" in page


def test_the_model_text_is_verbatim_and_escaped(runs_dir: Path) -> None:
    page = build_report(load_runs([runs_dir / "cmp"]))
    # the model's raw answers, exactly as written, only escaped
    for answer in [NAIVE_ANSWERS[0], CLIMBER_ANSWERS[0]]:
        assert html.escape(answer) in page
    assert "<this>" not in page and "<b>Hello</b>" not in page
    assert "parse error" in page and "verification (auto_verify) failed" in page


def test_a_prompt_message_shown_before_in_the_trial_is_named_not_repeated(runs_dir: Path) -> None:
    runs = load_runs([runs_dir / "cmp"])
    page = build_report(runs)
    [climber] = [run for run in runs if run.label == "climber"]
    [system] = {
        step.prompt[0]["content"]
        for trial in climber.trials
        if (doc := climber.trajectory(trial)) is not None
        for step in read_steps(doc)
        if step.prompt
    }
    # shown once per trial (two trials of climber), named in each later call of that trial
    assert page.count(html.escape(system)) == 2
    assert page.count("the same as in turn 1 · worker") >= 2


def test_the_report_needs_nothing_from_outside(runs_dir: Path) -> None:
    page = build_report(load_runs([runs_dir / "cmp"]))
    assert "<script" not in page and "<link" not in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "url(" not in page


def test_without_progress_the_climb_plot_is_left_out(runs_dir: Path) -> None:
    page = build_report(load_runs([runs_dir / "oracle", runs_dir / "nop"]))
    assert len(images(page)) == 3


def test_tables_have_a_row_per_run_and_per_task(runs_dir: Path) -> None:
    runs = load_runs([runs_dir / "cmp", runs_dir / "oracle"])
    stats = stats_table(runs)
    assert len(stats.columns) == 4  # the figure's name + 3 runs
    assert stats.row_count == len(STATS_COLUMNS) + 1  # feedback, window, every figure but the label
    matrix = task_matrix(runs)
    assert matrix.row_count == 3 and len(matrix.columns) == 4  # task + 3 runs


def chromium() -> str | None:
    return next(
        (path for name in ("chromium", "chromium-browser") if (path := shutil.which(name))),
        None,
    )


@pytest.mark.slow
def test_a_headless_browser_renders_the_report(runs_dir: Path, tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        missing("no chromium binary on PATH (bash scripts/install.sh dev installs it)")
    report = write_report(
        load_runs([runs_dir / "cmp", runs_dir / "oracle"]), tmp_path / "report.html"
    )
    screenshot = tmp_path / "report.png"
    common = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,2000",
    ]
    shot = subprocess.run(
        [*common, f"--screenshot={screenshot}", report.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert screenshot.read_bytes().startswith(b"\x89PNG")
    assert screenshot.stat().st_size > 30_000  # a blank page is a few kB
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(screenshot, ARTIFACTS / "report.png")
    dom = subprocess.run(
        [*common, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=180
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<table" in dom.stdout and "climber (feedback: tests, window 4,096)" in dom.stdout
    assert len(re.findall(r'<img src="data:image/png;base64,', dom.stdout)) == 4


def test_a_verification_says_whether_the_tasks_tests_or_the_harnesss_checks_ran() -> None:
    ran = {"passed": False, "passing": 1, "total": 3, "why": "task_complete"}
    assert verification_text({**ran, "label": "checks"}) == "(task_complete) failed, checks 1/3"
    assert verification_text(ran) == "(task_complete) failed, tests 1/3"  # recorded before labels
