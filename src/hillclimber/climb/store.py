"""The climb's record, one SQLite file: the climb's arguments, every evaluation (a setting on
a set of tasks: each task's outcome, the trials and seconds spent), the path the search took,
and the result. Evaluations are written as each ends, so a climb stopped by Ctrl-C or a kill
resumes where it was: the search is replayed, and what was already evaluated is read back.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from hillclimber.errors import HillclimberError

Split = Literal["train", "held-out"]
STORE = "climb.db"
"""The store's file in a climb's folder."""
ARGUMENTS = "arguments"
"""The store's key for the climb's arguments (`climb` writes them, the rest reads them)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS climb (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluations (
    changes TEXT NOT NULL,
    split TEXT NOT NULL,
    seed INTEGER NOT NULL,
    solved INTEGER NOT NULL,
    finished INTEGER NOT NULL,
    total INTEGER NOT NULL,
    pruned INTEGER NOT NULL,
    seconds REAL NOT NULL,
    passed TEXT NOT NULL,
    run_dir TEXT NOT NULL,
    PRIMARY KEY (changes, split, seed)
);
CREATE TABLE IF NOT EXISTS steps (
    n INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    changes TEXT NOT NULL,
    setting TEXT NOT NULL,
    score REAL,
    best REAL,
    kept INTEGER NOT NULL,
    note TEXT NOT NULL
);
"""


def changes_key(changes: dict[str, Any]) -> str:
    """The one text a setting's changes (from the starting setting) are stored under."""
    return json.dumps(changes, sort_keys=True)


def described(changes: dict[str, Any]) -> str:
    """Changes in words, as a settings file writes values: `view.previous_steps=5,
    planning.planner=false`; `start` for none."""
    return ", ".join(f"{key}={_word(value)}" for key, value in changes.items()) or "start"


def _word(value: Any) -> str:
    if value is None:
        return "none"
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class SettingScore:
    """A setting on a set of tasks, scored by the tasks' own tests after the agent stopped."""

    changes: dict[str, Any]
    """The setting, as its changes from the starting setting."""
    split: Split
    seed: int
    solved: int
    finished: int
    """Trials run (fewer than `total` where the evaluation was pruned)."""
    total: int
    pruned: bool
    """Stopped once it could no longer beat the bar, even solving every task left."""
    seconds: float
    """The trials' own time, summed (the same whether or not the climb was resumed)."""
    passed: dict[str, bool] = field(default_factory=dict)
    run_dir: str = ""


@dataclass(frozen=True)
class PathStep:
    """One step of the path: the noise measured, a setting tried (kept or not) or skipped, a
    held-out score."""

    n: int
    kind: Literal["noise", "try", "skip", "held-out"]
    changes: dict[str, Any]
    setting: str
    """What the step tried, in words: `completion.confirm=false`, `start`, `tuned`."""
    score: float | None
    best: float | None
    """The best train score after the step."""
    kept: bool
    note: str = ""


class ClimbStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(path)
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as err:
            raise HillclimberError(f"{path}: not a climb store ({err})") from err

    def close(self) -> None:
        self.db.close()

    def get(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM climb WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO climb (key, value) VALUES (?, ?)", (key, json.dumps(value))
            )

    def evaluation(self, changes: dict[str, Any], split: Split, seed: int) -> SettingScore | None:
        row = self.db.execute(
            "SELECT changes, split, seed, solved, finished, total, pruned, seconds, passed, "
            "run_dir FROM evaluations WHERE changes = ? AND split = ? AND seed = ?",
            (changes_key(changes), split, seed),
        ).fetchone()
        return None if row is None else _evaluation(row)

    def evaluations(self) -> list[SettingScore]:
        rows = self.db.execute(
            "SELECT changes, split, seed, solved, finished, total, pruned, seconds, passed, "
            "run_dir FROM evaluations ORDER BY rowid"
        )
        return [_evaluation(row) for row in rows]

    def add_evaluation(self, done: SettingScore) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO evaluations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    changes_key(done.changes),
                    done.split,
                    done.seed,
                    done.solved,
                    done.finished,
                    done.total,
                    int(done.pruned),
                    done.seconds,
                    json.dumps(done.passed),
                    done.run_dir,
                ),
            )

    def start_path(self) -> None:
        """The path is written anew as the search (re)plays it."""
        with self.db:
            self.db.execute("DELETE FROM steps")

    def add_step(self, step: PathStep) -> None:
        row = asdict(step)
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row["n"],
                    row["kind"],
                    changes_key(row["changes"]),
                    row["setting"],
                    row["score"],
                    row["best"],
                    int(row["kept"]),
                    row["note"],
                ),
            )

    def steps(self) -> list[PathStep]:
        rows = self.db.execute(
            "SELECT n, kind, changes, setting, score, best, kept, note FROM steps ORDER BY n"
        )
        return [
            PathStep(n, kind, json.loads(changes), setting, score, best, bool(kept), note)
            for n, kind, changes, setting, score, best, kept, note in rows
        ]


def _evaluation(row: tuple[Any, ...]) -> SettingScore:
    changes, split, seed, solved, finished, total, pruned, seconds, passed, run_dir = row
    return SettingScore(
        json.loads(changes), split, seed, solved, finished, total, bool(pruned), seconds,
        json.loads(passed), run_dir,
    )  # fmt: skip


def store_file(path: Path) -> Path:
    """A climb's store: `path` itself, or the store in it where it is a climb's folder."""
    return path / STORE if path.is_dir() else path


def open_store(path: Path, *, must_exist: bool = False) -> ClimbStore:
    if must_exist and not path.is_file():
        raise HillclimberError(f"{path}: no such climb store")
    return ClimbStore(path)
