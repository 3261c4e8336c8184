"""Which code ran a trial: the commit of a checkout, recorded in every result."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hillclimber import provenance


def test_a_checkout_names_its_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "a.py").write_text("x = 1\n")

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(tmp_path), *args], check=True,
                              capture_output=True, text=True)  # fmt: skip
        return done.stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    monkeypatch.setattr(provenance, "SOURCE", package)
    provenance.source_commit.cache_clear()
    assert provenance.source_commit() == git("rev-parse", "--short=12", "HEAD")
    (package / "a.py").write_text("x = 2\n")
    provenance.source_commit.cache_clear()
    assert re.fullmatch(r"[0-9a-f]{12}\+changes", provenance.source_commit() or "")
    provenance.source_commit.cache_clear()


def test_outside_a_checkout_there_is_no_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provenance, "SOURCE", tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    provenance.source_commit.cache_clear()
    assert provenance.source_commit() is None
    provenance.source_commit.cache_clear()
