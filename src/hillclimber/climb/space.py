"""The search space: the settings a climb tries and the values worth trying for each, read
from a TOML file grouped as a settings file is (`[completion]`, `[view]`, …), or a setting by
its own name at the top. The order of the file is the order of the climb. The shipped
`space.toml` is the default; a user passes their own with `--space`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError

from hillclimber.errors import HillclimberError
from hillclimber.harness.config import GROUPS, HarnessConfig, setting_path

SHIPPED = resources.files("hillclimber.climb") / "space.toml"


@dataclass(frozen=True)
class Dimension:
    """One setting of the space and the values to try for it."""

    key: str
    """Dotted: `completion.max_verify_retries` (or a top-level setting's name)."""
    values: tuple[Any, ...]


def load_space(path: Path | None = None) -> list[Dimension]:
    """The space in `path`, or the shipped one. Errors are one line naming the file and the
    setting."""
    where = str(path) if path else "the shipped space.toml"
    try:
        text = path.read_text() if path else SHIPPED.read_text()
        data = tomllib.loads(text)
    except OSError as err:
        raise HillclimberError(f"{where}: cannot read it ({err.strerror})") from err
    except tomllib.TOMLDecodeError as err:
        raise HillclimberError(f"{where}: not valid TOML: {err}") from err
    space = [_dimension(key, values, where) for key, values in _flat(data)]
    if not space:
        raise HillclimberError(f"{where}: no settings to try")
    return space


def _flat(data: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(dotted key, values) in the file's order: groups' tables opened."""
    items: list[tuple[str, Any]] = []
    for key, value in data.items():
        if key in GROUPS and isinstance(value, Mapping):
            items.extend((f"{key}.{name}", values) for name, values in value.items())
        else:
            items.append((key, value))
    return items


def _dimension(key: str, values: Any, where: str) -> Dimension:
    try:
        group, name = setting_path(key)
    except ValueError as err:
        raise HillclimberError(f"{where}: {key}: {err}") from None
    if not isinstance(values, list) or not values:
        raise HillclimberError(f"{where}: {key}: expected a list of values to try")
    owner = HarnessConfig if group is None else HarnessConfig.model_fields[group].annotation
    field = owner.model_fields[name]  # type: ignore[union-attr]
    typed: Any = field.annotation
    if field.metadata:
        typed = Annotated[(typed, *field.metadata)]
    adapter: TypeAdapter[Any] = TypeAdapter(typed)
    read = []
    for value in values:
        value = None if isinstance(value, str) and value.lower() == "none" else value
        try:
            read.append(adapter.validate_python(value))
        except ValidationError as err:
            message = err.errors()[0]["msg"]
            raise HillclimberError(f"{where}: {key}: {value!r}: {message}") from None
    dotted = name if group is None else f"{group}.{name}"
    return Dimension(dotted, tuple(dict.fromkeys(read)))
