"""Checking our files with Harbor's own models (`tests/harbor_check.py` run by the Python of
`.venv-harbor`, which `scripts/install.sh dev` makes where Python 3.12+ is found)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import REPO, missing

HARBOR_PYTHON = REPO / ".venv-harbor" / "bin" / "python"
CHECK = REPO / "tests" / "harbor_check.py"


def require_harbor() -> Path:
    """Harbor's Python; skipped where it is not installed (never in CI, where it must be)."""
    if not HARBOR_PYTHON.exists():
        message = "no .venv-harbor (bash scripts/install.sh dev makes it, with Python 3.12+)"
        missing(message)
    return HARBOR_PYTHON


def harbor_errors(kind: str, *paths: Path) -> dict[str, list[str]]:
    """{file: Harbor's errors} for trajectories (`trajectory`) or job folders (`job`)."""
    done = subprocess.run(
        [str(require_harbor()), str(CHECK), kind, *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, list[str]] = json.loads(done.stdout)
    return report
