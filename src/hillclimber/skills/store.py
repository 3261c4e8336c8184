"""The skill store: learned and added skills, and every use of any skill with its outcome, in
one SQLite file (`skills.store`, default `<hillclimber home>/skills.db`).

A skill's standing comes from its uses: `demoted` (ranked at half its score) after 3 uses
with fewer than a third passing, `retired` (never shown) after 6 uses with fewer than one in
six passing. Bootstrap skills are counted too; their text stays in the package.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from hillclimber.paths import home
from hillclimber.skills.skill import Skill

Standing = Literal["active", "demoted", "retired"]

DEMOTE_AFTER, DEMOTE_BELOW = 3, 1 / 3
RETIRE_AFTER, RETIRE_BELOW = 6, 1 / 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS skills (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    added TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS uses (
    skill_id TEXT NOT NULL,
    task TEXT NOT NULL,
    trial TEXT NOT NULL,
    passed INTEGER NOT NULL,
    judged_by TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS uses_skill ON uses (skill_id);
"""


def standing(uses: int, passes: int) -> Standing:
    if uses >= RETIRE_AFTER and passes < uses * RETIRE_BELOW:
        return "retired"
    if uses >= DEMOTE_AFTER and passes < uses * DEMOTE_BELOW:
        return "demoted"
    return "active"


@dataclass(frozen=True)
class Record:
    """A skill's uses and passes, and the standing they give it."""

    skill_id: str
    uses: int
    passes: int

    @property
    def standing(self) -> Standing:
        return standing(self.uses, self.passes)


def default_path() -> Path:
    return home() / "skills.db"


class SkillStore:
    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            yield db

    def add(self, skill: Skill) -> bool:
        """Store a skill (replacing one with its id); False when the same text was there."""
        body = skill.model_dump_json()
        with self._connect() as db:
            row = db.execute("SELECT body FROM skills WHERE id = ?", (skill.id,)).fetchone()
            if row is not None and row[0] == body:
                return False
            db.execute(
                "INSERT OR REPLACE INTO skills (id, body, added) VALUES (?, ?, ?)",
                (skill.id, body, _now()),
            )
        return True

    def remove(self, skill_id: str) -> bool:
        with self._connect() as db:
            return db.execute("DELETE FROM skills WHERE id = ?", (skill_id,)).rowcount > 0

    def skills(self) -> list[Skill]:
        """Every stored skill (learned and added), in the order they were added."""
        with self._connect() as db:
            rows = db.execute("SELECT body FROM skills ORDER BY added, id").fetchall()
        return [Skill.model_validate_json(body) for (body,) in rows]

    def ids(self) -> set[str]:
        with self._connect() as db:
            return {row[0] for row in db.execute("SELECT id FROM skills")}

    def record_uses(
        self, skill_ids: Sequence[str], *, task: str, trial: str, passed: bool, judged_by: str
    ) -> None:
        """One use per skill shown in a trial, with the trial's outcome."""
        with self._connect() as db:
            db.executemany(
                "INSERT INTO uses (skill_id, task, trial, passed, judged_by, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(sid, task, trial, int(passed), judged_by, _now()) for sid in skill_ids],
            )

    def records(self, skill_ids: Iterable[str] | None = None) -> dict[str, Record]:
        """Uses and passes per skill that has any."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT skill_id, COUNT(*), SUM(passed) FROM uses GROUP BY skill_id"
            ).fetchall()
        wanted = set(skill_ids) if skill_ids is not None else None
        return {
            sid: Record(sid, uses, passes or 0)
            for sid, uses, passes in rows
            if wanted is None or sid in wanted
        }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
