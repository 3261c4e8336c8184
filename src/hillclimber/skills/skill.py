"""A skill: a short reference approach for a kind of terminal work, shown to the model as an
example (never as a tool). The bootstrap library ships as TOML files in `skills/library/`, one
per topic; learned skills live in the store (`store.py`)."""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hillclimber.errors import HillclimberError

LIBRARY = resources.files("hillclimber.skills") / "library"

Source = Literal["bootstrap", "learned", "user"]


class SkillError(HillclimberError):
    """A skill file or entry that cannot be read; names the file and the field."""


class Skill(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=80)
    description: str = Field(min_length=10, max_length=200)
    """What to do and the one trick that matters; shown to the model (without the id)."""
    when: str = Field(default="", max_length=300)
    """Words a task's instruction uses when the skill applies."""
    example: str = Field(min_length=1, max_length=800)
    """A few commands or a short file body."""
    topic: str = ""
    source: Source = "bootstrap"
    source_task: str | None = None
    """The task a learned skill came from: it is never shown on that task."""
    source_digest: str | None = None
    """The digest of that task's instruction (the same task under another id)."""

    def text(self) -> str:
        """What the ranker indexes."""
        return " ".join((self.id.replace("-", " "), self.description, self.when, self.example))

    def learned_from(self, task_id: str | None, instruction: str) -> bool:
        """Whether this skill came from the task at hand (never shown on it)."""
        if self.source_task is not None and self.source_task == task_id:
            return True
        return self.source_digest is not None and self.source_digest == digest(instruction)


def digest(instruction: str) -> str:
    """A stable digest of an instruction (whitespace does not count)."""
    return hashlib.sha256(" ".join(instruction.split()).encode()).hexdigest()[:16]


def load_file(path: Path | Traversable, topic: str | None = None) -> list[Skill]:
    """The skills of one TOML file (`[[skill]]` tables); errors name the file and the field."""
    name = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise SkillError(f"{name}: cannot read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise SkillError(f"{name}: not valid TOML: {err}") from None
    entries = data.get("skill", [])
    if not isinstance(entries, list):
        raise SkillError(f"{name}: field 'skill': expected [[skill]] tables")
    topic = topic if topic is not None else re.sub(r"\.toml$", "", path.name)
    skills = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise SkillError(f"{name}: skill {i + 1}: expected a table")
        try:
            skills.append(Skill.model_validate({"topic": topic, **entry}))
        except ValidationError as err:
            first = err.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            who = entry.get("id", i + 1)
            raise SkillError(f"{name}: skill {who}: field '{field}': {first['msg']}") from None
    return skills


def _library_files() -> Iterator[Traversable]:
    yield from sorted(
        (p for p in LIBRARY.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name
    )


def bootstrap() -> list[Skill]:
    """The library shipped in the package."""
    skills = [skill for path in _library_files() for skill in load_file(path)]
    seen: set[str] = set()
    for skill in skills:
        if skill.id in seen:
            raise SkillError(f"{LIBRARY}: skill {skill.id}: field 'id': used twice")
        seen.add(skill.id)
    return skills
