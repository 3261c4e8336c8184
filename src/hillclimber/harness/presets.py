"""Loading a harness setting: a preset shipped in `harness/presets/` or a settings file, with
`KEY=VALUE` overrides. Every command (`bench`, `compare`, `run`) loads settings here.

A settings file is TOML (or JSON) of `HarnessConfig` fields, grouped as in the config
(`[completion]`, `[climbing]`, …) or each by its own name at the top (`candidates = 2`);
`preset = "NAME"` at its top starts from that preset. The string "none" stands for no value
(TOML has no null). Errors are one line naming the file and the field.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from hillclimber.errors import HillclimberError
from hillclimber.harness.config import Feedback, HarnessConfig, setting_path
from hillclimber.harness.prompting.templates import load_prompts

FEEDBACK = get_args(Feedback)

PRESET_FILES = resources.files("hillclimber.harness") / "presets"


def preset_names() -> list[str]:
    return sorted(
        p.name.removesuffix(".toml") for p in PRESET_FILES.iterdir() if p.name.endswith(".toml")
    )


def load_harness(spec: str, sets: Sequence[str] = ()) -> HarnessConfig:
    """The setting `spec` names (a preset name, `NAME@FEEDBACK` for a preset with another
    feedback kind, or a .toml/.json file), with `sets` (`KEY=VALUE`, KEY dotted or a setting's
    own name) applied last; its prompt templates checked."""
    config = _load(spec, sets)
    load_prompts(config.view.prompts)  # a mistake in them is said now, not in a trial
    return config


def _load(spec: str, sets: Sequence[str]) -> HarnessConfig:
    overrides = parse_sets(sets)
    name, at, feedback = spec.rpartition("@") if "@" in spec else (spec, "", "")
    if at and feedback in FEEDBACK and name in preset_names():
        data = {**_read_preset(name), "feedback": feedback}
        return _build(spec, data, overrides, where=f"preset {spec}")
    if spec in preset_names():
        return _build(spec, _read_preset(spec), overrides, where=f"preset {spec}")
    path = Path(spec)
    if path.suffix not in (".json", ".toml"):
        raise HillclimberError(
            f"'{spec}' is neither a preset ({', '.join(preset_names())}, or NAME@FEEDBACK with "
            "FEEDBACK tests, self or none) nor a .toml/.json settings file"
        )
    data = _grouped(_read_file(path), where=str(path))
    _beside(data, path)
    base = data.pop("preset", None)
    if base is not None and str(base) not in preset_names():
        raise HillclimberError(f"{path}: preset: no preset '{base}'")
    start = _read_preset(str(base)) if base is not None else {}
    return _build(str(base or path.stem), _merge(start, data), overrides, where=str(path))


def _beside(data: dict[str, Any], path: Path) -> None:
    """A settings file's prompt folder, where relative, is beside the file."""
    view = data.get("view")
    if not isinstance(view, dict):
        return
    folder = view.get("prompts")
    if isinstance(folder, str) and folder != "none" and not Path(folder).expanduser().is_absolute():
        view["prompts"] = str(path.parent / folder)


def preset(name: str, **overrides: Any) -> HarnessConfig:
    """A shipped preset with settings changed (keys as in `HarnessConfig.with_settings`)."""
    return load_harness(name).with_settings(overrides)


def parse_sets(sets: Sequence[str]) -> dict[str, Any]:
    """`KEY=VALUE` items as settings: lists comma-separated for list settings, "none" for no
    value; other values are left to the config's types to read ("8", "true", "0.5")."""
    found: dict[str, Any] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        try:
            group, name = setting_path(key.strip())
        except ValueError as err:
            raise HillclimberError(f"--set {item}: {err}") from None
        if not eq:
            raise HillclimberError(f"--set {item}: expected KEY=VALUE")
        owner = HarnessConfig if group is None else HarnessConfig.model_fields[group].annotation
        annotation = owner.model_fields[name].annotation  # type: ignore[union-attr]
        if value.strip().lower() == "none" and _optional(annotation):
            found[key.strip()] = None
        elif "tuple" in str(annotation):
            found[key.strip()] = [v.strip() for v in value.split(",") if v.strip()]
        else:
            found[key.strip()] = value
    return found


def _read_preset(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """A shipped preset's settings, laid over those of the preset it starts from (`preset =
    "fm"` at its top), grouped."""
    if name in seen:
        raise HillclimberError(f"preset {name}: starts from itself ({' > '.join(seen)})")
    data = _grouped(tomllib.loads((PRESET_FILES / f"{name}.toml").read_text()), f"preset {name}")
    base = data.pop("preset", None)
    return _merge(_read_preset(str(base), (*seen, name)), data) if base else data


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except OSError as err:
        raise HillclimberError(f"{path}: cannot read it ({err.strerror})") from err
    except ValueError as err:
        raise HillclimberError(f"{path}: not valid {path.suffix[1:].upper()}: {err}") from err
    if not isinstance(data, dict):
        raise HillclimberError(f"{path}: expected a table of harness settings")
    return data


def _grouped(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A file's settings with each one written by its own name at the top (`candidates = 2`)
    moved into its group (`[climbing]`)."""
    grouped: dict[str, Any] = {}
    for key, value in data.items():
        if key in HarnessConfig.model_fields or isinstance(value, Mapping):
            grouped[key] = (
                _merge(grouped.get(key, {}), value) if isinstance(value, Mapping) else value
            )
            continue
        try:
            group, name = setting_path(key)
        except ValueError as err:
            raise HillclimberError(f"{where}: {key}: {err}") from None
        if group is None:
            grouped[name] = value
        else:
            grouped.setdefault(group, {})[name] = value
    return grouped


def _merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `extra` laid over it, group tables merged key by key."""
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _nones(data: Mapping[str, Any], model: type[BaseModel] = HarnessConfig) -> dict[str, Any]:
    """The string "none" (any case) read as no value, for the settings that may have none."""
    read: dict[str, Any] = {}
    for key, value in data.items():
        field = model.model_fields.get(key)
        annotation = field.annotation if field is not None else None
        if isinstance(value, Mapping) and isinstance(annotation, type):
            read[key] = _nones(value, annotation) if issubclass(annotation, BaseModel) else value
        elif isinstance(value, str) and value.strip().lower() == "none" and _optional(annotation):
            read[key] = None
        else:
            read[key] = value
    return read


def _optional(annotation: Any) -> bool:
    return type(None) in get_args(annotation)


def _build(
    label: str, data: Mapping[str, Any], overrides: Mapping[str, Any], where: str
) -> HarnessConfig:
    config = _validated(
        lambda: HarnessConfig.model_validate({**_nones(data), "preset": label}), where
    )
    return _validated(lambda: config.with_settings(overrides), "--set")


def _validated(make: Callable[[], HarnessConfig], where: str) -> HarnessConfig:
    """`make()`, its validation error turned into one line that names `where` and the field."""
    try:
        return make()
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")  # a validator's own words
        said = f"{field}: {message}" if field else message  # a whole-setting rule names no field
        raise HillclimberError(f"{where}: {said}") from None
    except ValueError as err:
        raise HillclimberError(f"{where}: {err}") from None
