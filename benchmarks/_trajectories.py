"""The finished trials under run folders, each with its trajectory: what the benchmarks that
read whole runs walk (`stalls.py`, `asides.py`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hillclimber.results import read_trial


def finished(folders: list[Path]) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    """For each trial the tests scored that has a readable trajectory: its folder (from its
    run or comparison folder), whether the tests passed, and the trajectory."""
    for folder in folders:
        for path in sorted(folder.glob("**/logs/agent/trajectory.json")):
            trial_dir = path.parents[2]
            result = read_trial(trial_dir / "result.json")
            if result is None or result.evaluation is None:
                continue
            try:
                doc = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            yield str(trial_dir.relative_to(folder)), result.passed, doc


def folders_given(parser: argparse.ArgumentParser, folders: list[Path]) -> None:
    """The parser's error for a run folder named on the command line that is not one."""
    for folder in folders:
        if not folder.is_dir():
            parser.error(f"{folder}: no such folder")
