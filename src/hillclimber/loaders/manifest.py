"""JSON suite manifests: the original system's format of small inline tasks.

    {"name": ..., "version": ..., "description": ..., "tasks": [
        {"id", "name"?, "description", "difficulty"?, "category"?, "setup"?: [cmd, ...],
         "verification": {"type": "custom", "script"} | {"type": "output", "command",
         "expected"} | {"type": "test", "command"},
         "timeout_seconds"?, "max_turns"?, "tags"?, "solution"?: script}]}

The file as a whole must parse; after that each task is checked on its own, so one bad task
is reported and the others still load.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from hillclimber.errors import TaskLoadError
from hillclimber.loaders._common import (
    Hints,
    HintsSetting,
    Lenient,
    PositiveInt,
    Seconds,
    from_validation,
    load_error,
    read_text,
)
from hillclimber.task import (
    Environment,
    Limits,
    Metadata,
    Task,
    TaskFormat,
    Verification,
    VerificationKind,
)

TASK_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
"""Ids name result folders, so they must be safe file names (no `/`, no `..`)."""

_NEEDS: dict[str, tuple[str, ...]] = {
    "custom": ("script",),
    "output": ("command", "expected"),
    "test": ("command",),
}


class ManifestVerification(Lenient):
    type: Literal["custom", "output", "test"]
    script: str | None = Field(default=None, validate_default=True)
    command: str | None = Field(default=None, validate_default=True)
    expected: str | None = Field(default=None, validate_default=True)

    @field_validator("script", "command", "expected")
    @classmethod
    def _needed_by_type(cls, value: str | None, info: ValidationInfo) -> str | None:
        """Each type needs its own fields; checked per field so the error names that field."""
        kind = info.data.get("type")
        if value is None and info.field_name in _NEEDS.get(str(kind), ()):
            raise PydanticCustomError(
                "missing_for_type", "Field required for type '{kind}'", {"kind": kind}
            )
        return value

    def to_verification(self) -> Verification:
        if self.type == "custom":
            return Verification(kind=VerificationKind.CUSTOM, command=self.script)
        if self.type == "output":
            return Verification(
                kind=VerificationKind.OUTPUT, command=self.command, expected=self.expected
            )
        return Verification(kind=VerificationKind.TEST, command=self.command)


class ManifestTask(Lenient):
    id: str = Field(pattern=TASK_ID_PATTERN)
    name: str | None = None
    description: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    difficulty: str | None = None
    category: str | None = None
    setup: list[str] = Field(default_factory=list)
    verification: ManifestVerification
    timeout_seconds: Seconds | None = None
    max_turns: PositiveInt | None = None
    tags: list[str] = Field(default_factory=list)
    solution: str | None = None

    def to_task(self, source: Path) -> Task:
        defaults = Limits()
        return Task(
            id=self.id,
            instruction=self.description,
            format=TaskFormat.MANIFEST,
            source=source,
            environment=Environment(setup=tuple(self.setup)),
            verification=self.verification.to_verification(),
            solution_inline=self.solution,
            limits=Limits(
                agent_timeout_sec=self.timeout_seconds or defaults.agent_timeout_sec,
                max_turns=self.max_turns,
            ),
            metadata=Metadata(
                category=self.category, difficulty=self.difficulty, tags=tuple(self.tags)
            ),
        )


class ManifestFile(Lenient):
    name: str | None = None
    description: str | None = None
    hints: HintsSetting = None
    tasks: list[Any]


@dataclass
class Manifest:
    """What a manifest file yields: the good tasks (in file order) and one error per bad one."""

    path: Path
    name: str
    description: str | None = None
    hints: Hints | None = None
    tasks: list[Task] = field(default_factory=list)
    errors: list[TaskLoadError] = field(default_factory=list)


def read_json(path: Path) -> Any:
    text = read_text(path, None, "expected a JSON suite manifest here")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise load_error(
            path, None, f"invalid JSON: {exc.msg} (at line {exc.lineno}, column {exc.colno})"
        ) from None


def load_manifest(path: Path) -> Manifest:
    """Read a manifest. Raises `TaskLoadError` only when the file as a whole is unusable."""
    path = path.resolve()
    data = read_json(path)
    if not isinstance(data, dict):
        raise load_error(path, None, "a suite manifest must be a JSON object with a 'tasks' list")
    try:
        header = ManifestFile.model_validate(data)
    except ValidationError as exc:
        raise from_validation(path, exc) from None

    manifest = Manifest(
        path=path,
        name=header.name or path.stem,
        description=header.description,
        hints=header.hints,
    )
    first_at: dict[str, int] = {}
    for index, raw in enumerate(header.tasks):
        try:
            task = ManifestTask.model_validate(raw).to_task(path)
        except ValidationError as exc:
            manifest.errors.append(from_validation(path, exc, ("tasks", index)))
            continue
        if task.id in first_at:
            problem = f"duplicate task id '{task.id}' (first used by tasks[{first_at[task.id]}])"
            manifest.errors.append(load_error(path, f"tasks[{index}].id", problem))
            continue
        first_at[task.id] = index
        manifest.tasks.append(task)
    return manifest
