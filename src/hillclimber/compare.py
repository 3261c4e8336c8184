"""`compare`: several harness settings on the same tasks, with the same model and seeds, in one
run folder — one ordinary run per setting beside a `compare.json` that names them.

A setting is a preset name (`naive`, `fm`, `climber`, `full`) or a config file (`.json` or
`.toml`) of `HarnessConfig` fields; a file may name a `preset` to start from and override the
rest. Re-running the same run id resumes every setting's run.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hillclimber.errors import HillclimberError
from hillclimber.harness.config import PRESETS, HarnessConfig, preset
from hillclimber.results import RunConfig, write_json
from hillclimber.rundata import COMPARISON_FILE, Comparison
from hillclimber.runner import Run
from hillclimber.task import Task


def load_setting(item: str, overrides: dict[str, Any] | None = None) -> tuple[str, HarnessConfig]:
    """A label and the harness configuration for one `--presets` item."""
    overrides = overrides or {}
    if item in PRESETS:
        return item, preset(item, **overrides)
    path = Path(item)
    if path.suffix not in (".json", ".toml"):
        raise HillclimberError(
            f"'{item}' is neither a preset ({', '.join(PRESETS)}) nor a .json/.toml config file"
        )
    try:
        text = path.read_text()
        data: dict[str, Any] = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except OSError as err:
        raise HillclimberError(f"{path}: cannot read it ({err.strerror})") from err
    except ValueError as err:
        raise HillclimberError(f"{path}: not valid {path.suffix[1:].upper()}: {err}") from err
    if not isinstance(data, dict):
        raise HillclimberError(f"{path}: expected a table of harness settings")
    base = data.pop("preset", None)
    try:
        if base is not None:
            return path.stem, preset(str(base), **{**data, **overrides})
        return path.stem, HarnessConfig(preset=path.stem, **{**data, **overrides})
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise HillclimberError(f"{path}: {where}: {first['msg']}") from err


def folder_name(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", label).strip("-") or "setting"


def plan(
    base: RunConfig,
    settings: list[tuple[str, HarnessConfig]],
    tasks: list[Task],
    run_dir: Path,
    *,
    redo: bool = False,
    invalid_tasks: list[str] | None = None,
    notes: list[str] | None = None,
) -> tuple[Comparison, list[Run]]:
    """One run per setting inside `run_dir`, and the comparison written beside them."""
    labels = [label for label, _ in settings]
    if len(set(labels)) != len(labels):
        raise HillclimberError(f"each setting may be compared once: {', '.join(labels)}")
    comparison = Comparison(
        run_id=base.run_id,
        labels=labels,
        runs={label: folder_name(label) for label in labels},
        model=base.model.spec if base.model else base.agent,
        source=base.source,
    )
    existing = run_dir / COMPARISON_FILE
    if existing.exists() and not redo:
        try:
            before = Comparison.model_validate_json(existing.read_text())
        except ValueError as err:
            raise HillclimberError(f"{existing}: not a comparison file: {err}") from err
        if before.labels != labels:
            raise HillclimberError(
                f"{existing}: run {base.run_id} compared {', '.join(before.labels)}; "
                "use the same --presets to resume it, or another --run-id"
            )
        comparison = before
    write_json(existing, comparison)
    runs = [
        Run(
            base.model_copy(update={"harness": config, "run_id": f"{base.run_id}/{label}"}),
            tasks,
            run_dir / comparison.runs[label],
            redo=redo,
            invalid_tasks=invalid_tasks or [],
            notes=notes or [],
        )
        for label, config in settings
    ]
    return comparison, runs
