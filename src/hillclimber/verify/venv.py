"""Cached Python environments for running a task's tests without the internet.

Terminal-Bench test scripts install pytest (and friends) with uv from the internet at test time.
We make one virtual environment per set of packages, from the same Python interpreter the
sandbox's `python3` is, install the packages from PyPI once, and mount it read-only into the
sandbox at `/verifier-env` for every later verification.

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
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from hillclimber import paths
from hillclimber.errors import VerifierError

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


@functools.cache
def user_site() -> str:
    """Where `pip install --user` of the sandbox's python3 puts packages, with HOME=/root."""
    version = subprocess.run(
        [base_python(), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return f"/root/.local/lib/python{version}/site-packages"


def base_python() -> str:
    """An interpreter that isolated sandboxes can see (they show /usr read-only)."""
    for candidate in BASE_PYTHONS:
        if Path(candidate).exists():
            return candidate
    return sys.executable


def env_dir(packages: Iterable[str], standalone: bool = False) -> Path:
    wanted = sorted(set(packages))
    # LAYOUT changes whenever the way environments are made changes: old ones are not reused
    parts = [LAYOUT, base_python(), *(["standalone"] if standalone else []), *wanted]
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return paths.home() / "verifier-envs" / key


SYSTEM_SITES = ("/usr/local/lib/python{v}/dist-packages", "/usr/lib/python3/dist-packages")
"""Where a Debian image keeps its Python packages: a standalone environment looks there after
its own."""


def ensure_env(packages: Iterable[str], timeout: float = 900, standalone: bool = False) -> Path:
    """The environment for these packages, made on first use (safe across processes).

    `standalone`: for a task's image, whose system packages are not this machine's: every
    dependency of the packages lives in the environment, and the image's own packages are
    looked up after them (`SYSTEM_SITES`)."""
    wanted = sorted(set(packages))
    target = env_dir(wanted, standalone)
    done = target / ".hillclimber-complete"
    if done.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return target
        shutil.rmtree(target, ignore_errors=True)
        steps = [
            [
                base_python(),
                "-m",
                "venv",
                *([] if standalone else ["--system-site-packages"]),
                str(target),
            ],
            [
                str(target / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                *wanted,
            ],
        ]
        for argv in steps:
            try:
                proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired as err:
                raise VerifierError(f"making the verifier environment timed out: {argv}") from err
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
                raise VerifierError(
                    f"could not make the verifier environment ({' '.join(wanted)}): "
                    + " | ".join(tail)
                )
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
