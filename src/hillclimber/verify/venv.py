"""Cached Python environments for running a task's tests without the internet.

Terminal-Bench test scripts install pytest (and friends) with uv from the internet at test time.
We make one virtual environment per set of packages, from the same Python interpreter the
sandbox's `python3` is, install the packages from PyPI once, and mount it read-only into the
sandbox at `/verifier-env` for every later verification. Where a task's image has another
Python than this machine's (Ubuntu 24.04's 3.12), its environment is made inside the image, by
the image's own `python3` (`env_for`), once per trial, in the trial's folder: the trial's python3
and pip are as its agent left them, and what they write is no other trial's.

Tests also import what the task's image and the agent installed: the environment sees the
system's packages (after its own, so its pytest wins), and a `.pth` hook appends the trial's
user site (`pip install --user` by the agent) named by `HC_USER_SITE`, each as a site folder
whose own `.pth` files are read (a package may put its code elsewhere and name it there). The
user site is never put first, so nothing the agent installs can stand in for pytest.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from hillclimber import paths
from hillclimber.errors import VerifierError
from hillclimber.sandbox.base import Mount, Sandbox, SandboxKind

MOUNT_TARGET = "/verifier-env"
BASE_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")


LAYOUT = "4"
USER_SITE_VAR = "HC_USER_SITE"
_USER_SITE_HOOK = (
    "import os, site; p = os.environ.get('HC_USER_SITE', ''); "
    "os.path.isdir(p) and site.addsitedir(p)\n"
)
"""Appended as a site folder, its own `.pth` files read: a package may put its code elsewhere and
name it there (eigenpy's `cmeel.pth`), as the image's Python reads them in its own folders."""


_VERSION = "import sys; print('%d.%d' % sys.version_info[:2])"


def user_site(version: str | None = None) -> str:
    """Where `pip install --user` of a python3 of that version (default: this machine's) puts
    packages, with HOME=/root."""
    return f"/root/.local/lib/python{version or host_version()}/site-packages"


@functools.cache
def host_version() -> str:
    """The version (`3.11`) of the interpreter environments are made from here."""
    return subprocess.run(
        [base_python(), "-c", _VERSION], capture_output=True, text=True, check=True
    ).stdout.strip()


def sandbox_version(sandbox: Sandbox) -> str | None:
    """The version of the sandbox's own python3; None where it has none."""
    result = sandbox.run(f"python3 -c {shlex.quote(_VERSION)}", timeout=60)
    return result.stdout.strip() if result.ok else None


def base_python() -> str:
    """An interpreter that isolated sandboxes can see (they show /usr read-only)."""
    for candidate in BASE_PYTHONS:
        if Path(candidate).exists():
            return candidate
    return sys.executable


def env_dir(
    packages: Iterable[str],
    standalone: bool = False,
    image_python: str = "",
    under: Path | None = None,
) -> Path:
    """Where the environment for these packages lives: this machine's cache, or `under` (a
    trial's own folder, for one made inside its image)."""
    wanted = sorted(set(packages))
    # LAYOUT changes whenever the way environments are made changes: old ones are not reused
    made_by = f"python{image_python} of an image" if image_python else base_python()
    parts = [LAYOUT, made_by, *(["standalone"] if standalone else []), *wanted]
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return (under or paths.home()) / "verifier-envs" / key


SYSTEM_SITES = ("/usr/local/lib/python{v}/dist-packages", "/usr/lib/python3/dist-packages")
"""Where a Debian image keeps its Python packages: a standalone environment looks there after
its own."""


def env_for(packages: Iterable[str], sandbox: Sandbox) -> Path:
    """The environment a sandbox's tests run with: for a task's image standalone, and made
    inside the image by its own python3 where that is another version than this machine's."""
    if sandbox.kind is not SandboxKind.CONTAINER:
        return ensure_env(packages)
    version = sandbox_version(sandbox)
    if version is None or version == host_version():
        return ensure_env(packages, standalone=True)
    return ensure_env(packages, standalone=True, inside=sandbox, image_python=version)


def ensure_env(
    packages: Iterable[str],
    timeout: float = 900,
    standalone: bool = False,
    inside: Sandbox | None = None,
    image_python: str = "",
) -> Path:
    """The environment for these packages, made on first use (safe across processes).

    `standalone`: for a task's image, whose system packages are not this machine's: every
    dependency of the packages lives in the environment, and the image's own packages are
    looked up after them (`SYSTEM_SITES`). `inside`: made in that sandbox by its python3 (of
    version `image_python`), at the path it is mounted at later, in the trial's own folder."""
    wanted = sorted(set(packages))
    # one made inside an image is the trial's own: the trial's python3 and pip made it, as the
    # agent left them, and no other trial's tests may run with what they wrote
    under = (inside.layout.scratch or Path(tempfile.mkdtemp())) if inside else None
    target = env_dir(wanted, standalone, image_python if inside else "", under)
    done = target / ".hillclimber-complete"
    if done.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return target
        shutil.rmtree(target, ignore_errors=True)
        if inside is None:
            _make_here(target, wanted, standalone, timeout)
        else:
            _make_inside(inside, target, wanted, timeout)
        (target / "packages.txt").write_text("\n".join(wanted) + "\n")
        for site in target.glob("lib/python*/site-packages"):
            (site / "hillclimber-user-site.pth").write_text(_USER_SITE_HOOK)
            if standalone:
                version = site.parent.name.removeprefix("python")
                sites = tuple(path.format(v=version) for path in SYSTEM_SITES)
                # no comprehension: a .pth line runs in exec, whose names a nested scope misses
                add = f"list(map(site.addsitedir, filter(os.path.isdir, {sites!r})))"
                (site / "hillclimber-system-sites.pth").write_text(f"import os, site; {add}\n")
        done.touch()
    return target


def _make_here(target: Path, wanted: list[str], standalone: bool, timeout: float) -> None:
    """The environment made by this machine's interpreter."""
    isolation = [] if standalone else ["--system-site-packages"]
    steps = [
        [base_python(), "-m", "venv", *isolation, str(target)],
        [str(target / "bin" / "python"), "-m", "pip", "install", *_PIP_QUIET, *wanted],
    ]
    for argv in steps:
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as err:
            raise VerifierError(f"making the verifier environment timed out: {argv}") from err
        if proc.returncode != 0:
            _failed(wanted, proc.stderr or proc.stdout)


def _make_inside(sandbox: Sandbox, target: Path, wanted: list[str], timeout: float) -> None:
    """The environment made by the sandbox's python3 at `MOUNT_TARGET`, where every
    verification sees it, with the network (to PyPI, as a build has it) for this step only."""
    target.mkdir(parents=True)
    layout = sandbox.layout.with_mounts(Mount(MOUNT_TARGET, target))
    maker = sandbox.with_layout(replace(layout, network=True))
    packages = " ".join(shlex.quote(package) for package in wanted)
    script = (
        f"python3 -m venv {MOUNT_TARGET} && "
        f"{MOUNT_TARGET}/bin/python -m pip install {' '.join(_PIP_QUIET)} {packages}"
    )
    result = maker.run(script, timeout=timeout)
    if result.timed_out:
        raise VerifierError(f"making the verifier environment timed out: {script}")
    if not result.ok:
        _failed(wanted, result.output)


_PIP_QUIET = ("-q", "--disable-pip-version-check")


def _failed(wanted: list[str], output: str) -> NoReturn:
    tail = output.strip().splitlines()[-3:]
    raise VerifierError(
        f"could not make the verifier environment ({' '.join(wanted)}): " + " | ".join(tail)
    )
