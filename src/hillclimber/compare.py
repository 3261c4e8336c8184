"""`compare`: several harness settings on the same tasks, with the same model and seeds, in one
run folder — one ordinary run per setting beside a `compare.json` that names them.

A setting is a preset name (`naive`, `fm`, `climber`, `full`), a settings file (`.toml` or
`.json`, see `harness/presets.py`), or a peer (`mini-swe-agent`: another tool's agent on the
same sandbox, tasks, limits and verifier, the embedded model served to it). Re-running the
same run id resumes every setting's run; settings named after the earlier ones are added to the
comparison.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from hillclimber.agents import PEERS
from hillclimber.errors import HillclimberError
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import load_harness
from hillclimber.models.serve import serve
from hillclimber.paths import write_json
from hillclimber.report.rundata import COMPARISON_FILE, Comparison
from hillclimber.results import RunConfig
from hillclimber.runner import Run
from hillclimber.task import Task


@dataclass(frozen=True)
class Setting:
    """One `--presets` item: a harness setting, or a peer's agent (`PEERS`)."""

    label: str
    """The preset's name, the settings file's, or the peer's."""
    harness: HarnessConfig | None
    agent: str = "harness"


def load_setting(item: str, sets: Sequence[str] = ()) -> Setting:
    """The setting one `--presets` item names (`--set` changes apply to harness settings; a
    peer keeps its own)."""
    if item in PEERS:
        return Setting(item, None, item)
    return Setting(Path(item).stem, load_harness(item, sets))


@contextmanager
def served(run: Run) -> Iterator[Run]:
    """The run as planned, or for a peer on an embedded model the run with that model served
    to it over HTTP (`models serve`) while it lasts: a peer reaches its model as other tools
    do."""
    model = run.config.model
    if run.config.agent not in PEERS or model is None or not model.spec.startswith("local"):
        yield run
        return
    with serve(model.spec, context_window=model.context_window, threads=model.threads) as server:
        window = server.context_window  # the served window, not an HTTP back end's default
        http = model.model_copy(
            update={"spec": server.spec(), "base_url": server.base_url, "context_window": window}
        )
        yield replace(run, config=run.config.model_copy(update={"model": http}))


def folder_name(label: str) -> str:
    """A folder for a setting or a source of tasks, never hidden: `../shared/tasks` is
    `up-shared-tasks`, `./my.toml` is `my.toml`."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", label)
    name = re.sub(r"^\.\.(?=-|$)", "up", name).lstrip(".")
    return name.strip("-") or "setting"


def plan(
    base: RunConfig,
    settings: list[Setting],
    tasks: list[Task],
    run_dir: Path,
    *,
    redo: bool = False,
    retry_errors: bool = False,
    invalid_tasks: list[str] | None = None,
    notes: list[str] | None = None,
) -> tuple[Comparison, list[Run]]:
    """One run per setting inside `run_dir`, and the comparison written beside them."""
    labels = [setting.label for setting in settings]
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
            base.model_copy(
                update={
                    "agent": setting.agent,
                    "harness": setting.harness,
                    "run_id": f"{base.run_id}/{setting.label}",
                }
            ),
            tasks,
            run_dir / comparison.runs[setting.label],
            redo=redo,
            retry_errors=retry_errors,
            invalid_tasks=invalid_tasks or [],
            notes=notes or [],
        )
        for setting in settings
    ]
    return comparison, runs
