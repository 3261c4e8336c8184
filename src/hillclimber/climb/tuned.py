"""The tuned setting as a settings file (`--preset tuned.toml` everywhere), its evidence in
comments at the top. Written by hand: the values are the settings' scalars and lists of
names, and a TOML library would not write the comments."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from hillclimber.climb.tune import Summary
from hillclimber.harness.config import GROUPS, HarnessConfig
from hillclimber.harness.presets import load_harness, preset_names


def base_preset(start: str) -> str | None:
    """The shipped preset a start names (`climber`, `climber@tests`), None for a file."""
    name = start.rpartition("@")[0] if "@" in start else start
    return name if name in preset_names() else None


def settings_file(summary: Summary, tuned: HarnessConfig, model: str) -> str:
    base_name = base_preset(summary.start)
    base = load_harness(base_name) if base_name else HarnessConfig()
    changes = _differences(tuned.model_dump(), base.model_dump())
    lines = [*_evidence(summary, model), ""]
    if base_name:
        lines.append(f"preset = {_value(base_name)}")
    lines += [f"{name} = {_value(value)}" for name, value in changes.items() if name not in GROUPS]
    for group in GROUPS:
        if group in changes:
            lines += ["", f"[{group}]"]
            lines += [f"{name} = {_value(value)}" for name, value in changes[group].items()]
    return "\n".join(lines) + "\n"


def _evidence(summary: Summary, model: str) -> list[str]:
    scores = ", ".join(map(str, summary.start_train))
    changed = ", ".join(f"{k}={_value(v)}" for k, v in summary.changes.items()) or "none"
    verdict = "beats" if summary.beats_noise() else "does not beat"
    return [
        f"# Tuned by `hillclimber climb` for model {model} on {date.today()}, from "
        f"{summary.start}.",
        f"# Changes kept: {changed}.",
        f"# Train ({summary.train_size} tasks, scored by their tests after the agent stopped):",
        f"#   the start solved {scores} (noise {summary.noise}); tuned {summary.tuned_train:g}.",
        f"# Held-out ({summary.held_out_size} tasks, run once at the end, never used to choose):",
        f"#   start {summary.start_held_out}, tuned {summary.tuned_held_out}: the tuned setting "
        f"{verdict} the start by more than the noise.",
        f"# Trials: {summary.train_trials} on train ({summary.stopped}), "
        f"{summary.held_out_trials} on held-out.",
    ]


def _differences(tuned: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in tuned.items():
        if key == "preset":
            continue
        if isinstance(value, dict):
            inner = {k: v for k, v in value.items() if base[key].get(k) != v}
            if inner:
                found[key] = inner
        elif base.get(key) != value:
            found[key] = value
    return found


def _value(value: Any) -> str:
    """A TOML value; no value is the string "none", as settings files write it."""
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    return json.dumps(str(value))
