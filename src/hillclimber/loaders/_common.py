"""Helpers shared by the loaders: reading files and turning failures into one-line errors.

Every problem a user can cause must end as one `TaskLoadError` line that names the file and
the field, so these helpers never let an `OSError`, `UnicodeDecodeError` or pydantic
`ValidationError` escape with its multi-line text.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from hillclimber.errors import TaskLoadError
from hillclimber.sandbox.base import APP, STANDARD_PATH
from hillclimber.setup.dockerfile import parse_dockerfile

M = TypeVar("M", bound=BaseModel)

Seconds = Annotated[float, Field(strict=True, gt=0)]
"""A positive number of seconds; strict so that `"soon"` or `"60"` is an error, not a guess."""

PositiveInt = Annotated[int, Field(strict=True, gt=0)]

Hints = Literal["on", "off"]


def _hints_from_bool(value: Any) -> Any:
    """Accept `true`/`false` for `"on"`/`"off"`: both read naturally in a settings file."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return value


HintsSetting = Annotated[Hints | None, BeforeValidator(_hints_from_bool)]
"""A suite's hint policy; None means the suite does not say."""


class Lenient(BaseModel):
    """Base of the file-format models: unknown keys are allowed, as the formats grow."""

    model_config = ConfigDict(extra="allow", frozen=True)


def one_line(text: str) -> str:
    """Collapse whitespace so an error message never spans lines."""
    return " ".join(text.split())


def load_error(path: Path, field: str | None, problem: str) -> TaskLoadError:
    return TaskLoadError(path, field, one_line(problem))


def read_text(path: Path, field: str | None, why: str) -> str:
    """Read a required UTF-8 file; `why` says what the file is for when it is missing."""
    if not path.is_file():
        raise load_error(path, field, f"file missing ({why})")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise load_error(
            path, field, f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise load_error(path, field, f"cannot read: {exc.strerror or exc}") from None


def read_toml(path: Path, text: str, model: type[M]) -> M:
    """`text` (the file at `path`) read as TOML into `model`; one-line errors naming the file
    and the field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise load_error(path, None, f"invalid TOML: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_validation(path, exc) from None


def optional_file(path: Path) -> Path | None:
    return path if path.is_file() else None


def optional_dockerfile(path: Path) -> Path | None:
    """The task's Dockerfile if it has one, read now as its setup will read it: one that
    cannot be followed (a syntax error) is reported with the task, file and line, before any
    trial runs, not as an `error` in each of its trials."""
    found = optional_file(path)
    if found is not None:
        parse_dockerfile(found, initial_workdir=APP, base_env={"PATH": STANDARD_PATH})
    return found


def format_loc(loc: Sequence[int | str]) -> str:
    """`("tasks", 0, "timeout_seconds")` → `tasks[0].timeout_seconds`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def _shown_input(value: Any) -> str:
    if isinstance(value, dict | list):
        return ""
    text = repr(value)
    return f" (got {text[:40]}{'…' if len(text) > 40 else ''})"


_MISSING = ("missing", "missing_for_type")
_MAX_SHOWN = 3


def from_validation(
    path: Path, exc: ValidationError, prefix: Sequence[int | str] = ()
) -> TaskLoadError:
    """All of a pydantic error on one line, the first problem's location as the field.

    Wrong values come before missing fields: a value that is there but wrong is the clearer
    fault, and the one most likely just edited.
    """
    errors = sorted(exc.errors(include_url=False), key=lambda e: e["type"] in _MISSING)
    parts: list[tuple[str, str]] = []
    for error in errors[:_MAX_SHOWN]:
        problem = str(error["msg"])
        if error["type"] not in _MISSING:
            problem += _shown_input(error.get("input"))
        parts.append((format_loc([*prefix, *error["loc"]]), problem))
    field, problem = parts[0]
    for loc, more in parts[1:]:
        problem += f"; also field '{loc}': {more}"
    if len(errors) > _MAX_SHOWN:
        problem += f" (and {len(errors) - _MAX_SHOWN} more)"
    return load_error(path, field or None, problem)
