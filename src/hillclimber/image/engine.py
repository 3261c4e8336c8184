"""The container engine that builds task images: podman, driven through its command line.

Only the engine's build and storage are used: an image is built from the task's own Dockerfile,
and its root folder is mounted on the host (`podman image mount`) so that trials run over it
with bubblewrap and an overlay of their own (`sandbox/container.py`), a bwrap command's cost
where `podman exec` costs 2–3 times as much (`benchmarks/containers.py`). The engine runs
containers only while building.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from hillclimber import paths
from hillclimber.errors import SandboxUnavailable
from hillclimber.process import ProcessResult, run_process
from hillclimber.sandbox.base import STANDARD_PATH

ENGINE_ENV = {"PATH": STANDARD_PATH, "HOME": "/root", "LANG": "C.UTF-8"}
"""The engine's own environment: nothing of the runner's (API keys) reaches a build."""


@dataclass(frozen=True)
class ImageConfig:
    """What a built image says about how its commands run."""

    id: str
    env: dict[str, str]
    workdir: str


class Podman:
    """podman as root, with storage on this machine (`/var/lib/containers`)."""

    def __init__(self, binary: str) -> None:
        self.binary = binary

    def run(self, *args: str, timeout: float = 120) -> ProcessResult:
        return run_process(
            [self.binary, *args], timeout=timeout, env=ENGINE_ENV, output_cap=4 << 20
        )

    def exists(self, image: str) -> bool:
        return self.run("image", "exists", image, timeout=60).exit_code == 0

    def pull(self, image: str, timeout: float = 300) -> str | None:
        """None when the image is here after the pull, else the engine's reason (one line)."""
        result = self.run("pull", "-q", image, timeout=timeout)
        if result.ok:
            return None
        lines = (result.stderr or result.stdout).strip().splitlines()
        return lines[-1] if lines else f"exit code {result.exit_code}"

    def inspect(self, image: str) -> ImageConfig:
        result = self.run("image", "inspect", image, timeout=60)
        if not result.ok:
            raise SandboxUnavailable(f"podman image inspect {image}: {result.stderr.strip()}")
        data = json.loads(result.stdout)[0]
        config = data.get("Config") or {}
        env = dict(item.split("=", 1) for item in config.get("Env") or [] if "=" in item)
        return ImageConfig(
            id=data["Id"],
            env=env,
            workdir=config.get("WorkingDir") or "/",
        )

    def mount(self, image: str) -> Path:
        """The image's root folder on the host, read-only by use (trials lay an overlay on
        it). Mounting again is cheap and gives the same folder."""
        result = self.run("image", "mount", image, timeout=120)
        if not result.ok:
            raise SandboxUnavailable(f"podman image mount {image}: {result.stderr.strip()}")
        return Path(result.stdout.strip())

    def remove(self, image: str) -> bool:
        """Remove an image (its layers no other image shares go with it), once no build is
        running (`store_lock`); False when the engine would not (an image in use)."""
        with store_lock(exclusive=True):
            return self.run("rmi", image, timeout=300).ok

    def import_tar(self, tar: Path, image: str) -> None:
        result = self.run("import", str(tar), image, timeout=600)
        if not result.ok:
            raise SandboxUnavailable(f"podman import {tar}: {result.stderr.strip()}")


@contextmanager
def images_lock(name: str, exclusive: bool = True) -> Iterator[None]:
    """The lock `name` of hillclimber's images, held across threads and processes (a lock file
    in hillclimber's home): shared, or one holder alone."""
    path = paths.home() / "images" / f"{name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield


def store_lock(exclusive: bool) -> AbstractContextManager[None]:
    """Builds share the image store; a removal has it alone. A build reuses cached layers of
    other images, and an image removed while it runs takes with it layers the build was about
    to use (podman: `layer not known`; two trials at a time with `--drop-images`)."""
    return images_lock("store", exclusive)


@functools.cache
def find_engine() -> Podman | str:
    """The engine to build with, or why there is none. Root only: the trial's overlay and the
    image mounts need it (rootless podman keeps its storage in a namespace of its own)."""
    binary = shutil.which("podman", path=STANDARD_PATH)
    if binary is None:
        return "podman is not installed (bash scripts/install.sh)"
    if os.geteuid() != 0:
        return "building task images needs root (podman's storage is mounted on the host)"
    engine = Podman(binary)
    probe = engine.run("info", "--format", "{{.Store.GraphDriverName}}", timeout=60)
    if not probe.ok:
        lines = (probe.stderr or probe.stdout).strip().splitlines()
        return "podman does not work here: " + (lines[-1] if lines else "no output")
    if shutil.which("bwrap", path=STANDARD_PATH) is None:
        return "bwrap is not installed (apt-get install bubblewrap): trials run with it"
    return engine


def engine() -> Podman:
    """The engine, or SandboxUnavailable saying why there is none."""
    found = find_engine()
    if isinstance(found, str):
        raise SandboxUnavailable(found)
    return found
