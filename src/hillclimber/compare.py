"""`compare`: several harness settings on the same tasks, with the same model and seeds, in one
run folder — one ordinary run per setting beside a `compare.json` that names them.

A setting is a preset name (`naive`, `fm`, `climber`, `full`) or a settings file (`.toml` or
`.json`, see `harness/presets.py`). Re-running the same run id resumes every setting's run;
settings named after the earlier ones are added to the comparison.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from hillclimber.errors import HillclimberError
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import load_harness
from hillclimber.report.rundata import COMPARISON_FILE, Comparison
from hillclimber.results import RunConfig, write_json
from hillclimber.runner import Run
from hillclimber.task import Task


def load_setting(item: str, sets: Sequence[str] = ()) -> tuple[str, HarnessConfig]:
    """A label (the preset's name, or the settings file's) and the harness configuration for
    one `--presets` item."""
    return Path(item).stem, load_harness(item, sets)


def folder_name(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", label).strip("-") or "setting"


def plan(
    base: RunConfig,
    settings: list[tuple[str, HarnessConfig]],
    tasks: list[Task],
    run_dir: Path,
    *,
    redo: bool = False,
    retry_errors: bool = False,
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
        if labels[: len(before.labels)] != before.labels:
            raise HillclimberError(
                f"{existing}: run {base.run_id} compared {', '.join(before.labels)}; "
                "use the same --presets (more may follow them) to resume it, or another --run-id"
            )
        added = {label: comparison.runs[label] for label in labels[len(before.labels) :]}
        comparison = before.model_copy(update={"labels": labels, "runs": {**before.runs, **added}})
    write_json(existing, comparison)
    runs = [
        Run(
            base.model_copy(update={"harness": config, "run_id": f"{base.run_id}/{label}"}),
            tasks,
            run_dir / comparison.runs[label],
            redo=redo,
            retry_errors=retry_errors,
            invalid_tasks=invalid_tasks or [],
            notes=notes or [],
        )
        for label, config in settings
    ]
    return comparison, runs
