"""Whole climbs on real trials (the runner, the sandbox, the tasks' tests) with the scripted
model: a planted better setting found, the start kept when nothing beats the noise, a killed
climb resumed, the held-out tasks run only at the end."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hillclimber import __version__
from hillclimber.climb.evaluate import Evaluator
from hillclimber.climb.search import Budget
from hillclimber.climb.space import load_space
from hillclimber.climb.store import ClimbStore, SettingScore
from hillclimber.climb.tasks import load_tasks
from hillclimber.climb.tune import tune
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import load_harness
from hillclimber.models import ModelConfig
from hillclimber.results import RunConfig
from hillclimber.runner import RunEvents
from hillclimber.sandbox import pick_sandbox_kind

from conftest import FIXTURES, hc, user_env

pytestmark = pytest.mark.slow


def _call(name: str, **arguments: str) -> str:
    return json.dumps({"name": name, "arguments": arguments})


# a wrong answer on the first turn, the right one on the second: one turn fails, three pass
ANSWERS = [
    _call("run_command", command="printf 'Hi\\n' > /app/hello.txt"),
    _call("run_command", command="printf 'Hello, world!\\n' > /app/hello.txt"),
    *[_call("task_complete")] * 3,
]
PLANTED = "max_turns = [1, 3]\n[view]\noutput_chars = [1000, 3000]\n"
IDLE = "[view]\noutput_chars = [1000, 3000]\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Copies of the hello fixture (e in neither set), the script, a start of one turn."""
    for name in "abcde":
        shutil.copytree(FIXTURES / "tb2" / "fx-hello", tmp_path / "tasks" / f"hello-{name}")
    (tmp_path / "answers.json").write_text(json.dumps(ANSWERS))
    (tmp_path / "start.toml").write_text('preset = "naive"\nmax_turns = 1\n')
    return tmp_path


def _args(home: Path, space: str, folder: str = "climb") -> list[str]:
    (home / "space.toml").write_text(space)
    tasks = home / "tasks"
    return [
        "climb", "--model", f"scripted:{home / 'answers.json'}",
        "--train", f"{tasks}:hello-a,hello-b", "--held-out", f"{tasks}:hello-c,hello-d",
        "--start", str(home / "start.toml"), "--space", str(home / "space.toml"),
        "--dir", str(home / folder),
    ]  # fmt: skip


def test_a_climb_finds_a_planted_better_setting(home: Path) -> None:
    done = hc(*_args(home, PLANTED))
    assert done.returncode == 0, done.stderr
    assert "Changes kept: max_turns=3." in done.stdout
    assert "start 0, tuned 2: the tuned setting beats the start" in done.stdout
    tuned = load_harness(str(home / "climb" / "tuned.toml"))
    assert (tuned.max_turns, tuned.feedback, tuned.tools) == (
        3,
        "none",
        ("run_command", "task_complete"),
    )
    shown = hc("climb", "show", str(home / "climb"), "--html", str(home / "path.html"))
    assert shown.returncode == 0, shown.stderr
    assert "max_turns=3" in shown.stdout and "held-out" in shown.stdout
    assert "data:image/png;base64," in (home / "path.html").read_text()
    reported = hc("report", str(home / "climb"))
    assert reported.returncode == 0, reported.stderr
    assert "max_turns=3" in (home / "climb" / "report.html").read_text()


def test_a_climb_keeps_the_start_when_nothing_beats_the_noise(home: Path) -> None:
    done = hc(*_args(home, IDLE))
    assert done.returncode == 0, done.stderr
    assert "Changes kept: none." in done.stdout and "does not beat" in done.stdout
    tuned = load_harness(str(home / "climb" / "tuned.toml"))
    start = load_harness(str(home / "start.toml"))
    assert tuned.model_dump(exclude={"preset"}) == start.model_dump(exclude={"preset"})


def _evaluations(db: Path) -> list[tuple[str, str, int]]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as con:
            return list(con.execute("SELECT changes, split, seed FROM evaluations ORDER BY rowid"))
    except sqlite3.OperationalError:
        return []


def test_a_killed_climb_resumes_where_it_was(home: Path) -> None:
    command = [sys.executable, "-m", "hillclimber", *_args(home, PLANTED)]
    job = subprocess.Popen(
        command, env=user_env(), stdout=subprocess.DEVNULL, start_new_session=True
    )
    db = home / "climb" / "climb.db"
    deadline = time.monotonic() + 120
    while not _evaluations(db) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(job.pid, signal.SIGKILL)
    assert job.wait() == -signal.SIGKILL
    before = _evaluations(db)
    assert before and len(before) < 5
    moved = home / "elsewhere"  # a climb's folder is whole: moved (or packed), it resumes
    shutil.move(home / "climb", moved)
    first = moved / "runs" / "train" / "start-s0"
    stamps = {p: p.stat().st_mtime_ns for p in first.rglob("result.json")}
    again = hc("climb", "--dir", str(moved))
    assert again.returncode == 0, again.stderr
    assert "Changes kept: max_turns=3." in again.stdout
    assert _evaluations(moved / "climb.db")[: len(before)] == before
    assert {p: p.stat().st_mtime_ns for p in first.rglob("result.json")} == stamps


def test_a_resumed_climb_must_keep_its_tasks(home: Path) -> None:
    assert hc(*_args(home, IDLE)).returncode == 0
    other = hc("climb", "--dir", str(home / "climb"), "--train", f"{home / 'tasks'}:hello-a")
    assert other.returncode == 2 and "started with train" in other.stderr


def _base(home: Path, start: HarnessConfig, n_concurrent: int) -> RunConfig:
    """The model (the script), sandbox and limits of an evaluator's runs."""
    return RunConfig(
        run_id="climb", source="climb", task_ids=[], agent="harness",
        sandbox=pick_sandbox_kind()[0].value, n_attempts=1, n_concurrent=n_concurrent,
        model=ModelConfig(spec=f"scripted:{home / 'answers.json'}"), harness=start,
        hillclimber_version=__version__,
    )  # fmt: skip


def test_the_held_out_tasks_run_only_at_the_end(home: Path) -> None:
    (home / "space.toml").write_text(PLANTED)
    tasks = home / "tasks"
    store = ClimbStore(home / "climb.db")
    start = load_harness(str(home / "start.toml"))
    base = _base(home, start, n_concurrent=2)
    splits = {
        "train": load_tasks([f"{tasks}:hello-a,hello-b"], "--train"),
        "held-out": load_tasks([f"{tasks}:hello-c,hello-d"], "--held-out"),
    }
    evaluator = Evaluator(store, start, base, splits, home / "runs")  # type: ignore[arg-type]
    summary = tune(load_space(home / "space.toml"), evaluator, start_name="start", repeats=2,
                   budget=Budget())  # fmt: skip
    splits_asked = [split for split, _ in evaluator.asked]
    first_held = splits_asked.index("held-out")
    assert "train" not in splits_asked[first_held:] and splits_asked.count("held-out") == 2
    assert (summary.start_held_out, summary.tuned_held_out) == (0, 2)


def test_a_climb_may_not_start_from_the_tests(home: Path) -> None:
    args = _args(home, IDLE)
    args[args.index("--start") + 1] = "climber@tests"
    done = hc(*args)
    assert done.returncode == 2 and "may not see the tests" in done.stderr


def test_a_task_reruns_with_the_setting_a_climb_remembered_for_it(home: Path) -> None:
    assert hc(*_args(home, PLANTED)).returncode == 0
    bench = [
        "bench", "--dataset", str(home / "tasks"), "--tasks", "hello-a,hello-e",
        "--model", f"scripted:{home / 'answers.json'}", "--preset", str(home / "start.toml"),
        "--runs-dir", str(home / "runs"), "--run-id", "again",
    ]  # fmt: skip
    done = hc(*bench, "--memory", str(home / "climb"))
    assert done.returncode == 0, done.stderr
    assert "1 of 2 tasks ran with the setting that solved them there" in done.stdout
    config = json.loads((home / "runs" / "again" / "config.json").read_text())
    assert list(config["task_harness"]) == ["hello-a"]
    assert config["task_harness"]["hello-a"]["max_turns"] == 3
    result = json.loads((home / "runs" / "again" / "result.json").read_text())
    assert result["totals"]["passed"] == 1  # hello-a with 3 turns; hello-e with the start's 1
    shutil.copy(home / "answers.json", home / "other.json")
    other = hc(*bench, "--run-id", "other", "--model", f"scripted:{home / 'other.json'}",
               "--memory", str(home / "climb"))  # fmt: skip
    assert other.returncode == 2 and "that climb tuned for model scripted:" in other.stderr


def test_a_climb_whose_tasks_do_not_load_can_be_started_again_in_its_folder(home: Path) -> None:
    args = _args(home, IDLE)
    bad = [*args[: args.index("--train") + 1], f"{home / 'tasks'}:hello-zz",
           *args[args.index("--train") + 2 :]]  # fmt: skip
    failed = hc(*bad)
    assert failed.returncode == 2 and "hello-zz" in failed.stderr
    assert hc(*args).returncode == 0


def test_a_climb_without_tasks_leaves_no_folder_behind(home: Path) -> None:
    done = hc("climb", "--model", f"scripted:{home / 'answers.json'}", cwd=home)
    assert done.returncode == 2 and "give --train and --held-out" in done.stderr
    assert not (home / "climbs").exists()


def test_a_climb_begun_before_the_least_noise_resumes_without_it(tmp_path: Path) -> None:
    from hillclimber.cli.climb import _arguments
    from hillclimber.climb.store import ARGUMENTS

    store = ClimbStore(tmp_path / "climb.db")
    old = {"model": "local", "train": ["a"], "held_out": ["b"], "start": "climber", "sets": [],
           "space": None, "repeats": 2}  # fmt: skip
    store.put(ARGUMENTS, old)
    given = dict.fromkeys([*old, "min_noise"])
    assert _arguments(store, given)["min_noise"] == 0
    assert _arguments(ClimbStore(tmp_path / "new.db"), given)["min_noise"] == 1


def _two_sources(home: Path) -> tuple[Evaluator, list[str]]:
    """A train set of two sources (a, b, c and f, g), the start's two runs stored, the
    started tasks listed as they start."""
    for name in "fg":
        shutil.copytree(home / "tasks" / "hello-e", home / "more" / f"hello-{name}")
    splits = {
        "train": load_tasks(
            [f"{home / 'tasks'}:hello-a,hello-b,hello-c", f"{home / 'more'}:hello-f,hello-g"],
            "--train",
        ),
        "held-out": load_tasks([f"{home / 'tasks'}:hello-d"], "--held-out"),
    }
    store = ClimbStore(home / "climb.db")
    runs = [(0, {"a": 1, "b": 0, "c": 1, "f": 0, "g": 1}), (1000, {"a": 1, "b": 0, "g": 1})]
    for seed, passed in runs:
        outcome = {f"hello-{name}": bool(won) for name, won in passed.items()}
        store.add_evaluation(SettingScore({}, "train", seed, 2, 5, 5, False, 1.0, outcome))
    for turns in (3, 5):  # candidates' runs: not the start's, not read
        won = {"hello-b": True}
        store.add_evaluation(
            SettingScore({"max_turns": turns}, "train", 0, 1, 1, 5, True, 1.0, won)
        )
    start = load_harness(str(home / "start.toml"))
    base = _base(home, start, n_concurrent=1)
    started: list[str] = []
    watch = RunEvents(on_start=lambda spec: started.append(spec.task.id))
    return Evaluator(store, start, base, splits, home / "runs", watch), started  # type: ignore[arg-type]


def test_a_candidate_runs_the_tasks_the_start_solved_least_first(home: Path) -> None:
    evaluator, _ = _two_sources(home)
    order = [(Path(source).name, tasks) for source, tasks in evaluator.hardest_first("train")]
    # never solved: f (its source has the larger share never solved), b; once: c; twice: g, a
    assert order == [
        ("more", ["hello-f"]),
        ("tasks", ["hello-b", "hello-c"]),
        ("more", ["hello-g"]),
        ("tasks", ["hello-a"]),
    ]


def test_a_candidate_runs_its_tasks_in_that_order_across_sources(home: Path) -> None:
    evaluator, started = _two_sources(home)
    done = evaluator.train({"max_turns": 4}, bar=0)
    assert (done.solved, done.finished, done.pruned) == (5, 5, False)
    assert started == ["hello-f", "hello-b", "hello-c", "hello-g", "hello-a"]
    for source, tasks in (
        ("tasks", ["hello-a", "hello-b", "hello-c"]),
        ("more", ["hello-f", "hello-g"]),
    ):
        run = next(Path(done.run_dir).glob(f"*{source}"))
        assert json.loads((run / "config.json").read_text())["task_ids"] == tasks
        result = json.loads((run / "result.json").read_text())
        assert (result["state"], result["totals"]["finished"]) == ("finished", len(tasks))
