"""Interop with Harbor, checked by Harbor's own code (in `.venv-harbor`): our trajectories are
valid ATIF for Harbor's validator and `Trajectory` model."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden import SCRIPTS, run_raw
from harbor_venv import harbor_errors


@pytest.mark.slow
def test_the_trajectory_of_every_preset_is_valid_atif(tmp_path: Path) -> None:
    paths = [run_raw(name, tmp_path / name) for name in SCRIPTS]
    assert harbor_errors("trajectory", *paths) == {str(p): [] for p in paths}
