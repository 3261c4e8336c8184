from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from hillclimber import __version__
from hillclimber.errors import SandboxUnavailable
from hillclimber.image import find_engine
from hillclimber.results import RunConfig
from hillclimber.sandbox import (
    HOST_KINDS,
    Sandbox,
    SandboxKind,
    create_sandbox,
    pick_sandbox_kind,
    trial_layout,
)
from hillclimber.task import Environment, Task, TaskFormat

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
DATA = REPO / "tests" / "data"
IN_CI = os.environ.get("CI") == "true"


def ctrl_c_acts() -> None:
    """For a child a test stops with Ctrl-C (`preexec_fn`): SIGINT acts in it even where the
    tests run as a background job, which ignores SIGINT, and its children with it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def missing(what: str) -> NoReturn:
    """Something a test needs is not here: skipped on a developer's machine (a non-root
    laptop, no model installed), a failure in CI, where everything must be."""
    if IN_CI:
        pytest.fail(f"CI must have it: {what}")
    pytest.skip(what)


def require_sandbox(kind: SandboxKind) -> None:
    """A back end that cannot run here is `missing`."""
    try:
        pick_sandbox_kind(kind)
    except SandboxUnavailable as err:
        missing(f"sandbox {kind}: {err}")


def require_images() -> None:
    """No task image can be built here (no podman, not root): `missing`."""
    found = find_engine()
    if isinstance(found, str):
        missing(f"task images: {found}")


@pytest.fixture(params=HOST_KINDS, ids=lambda k: k.value)
def sandbox_kind(request: pytest.FixtureRequest) -> SandboxKind:
    kind: SandboxKind = request.param
    require_sandbox(kind)
    return kind


def host_sandbox(root: Path) -> tuple[Sandbox, Path]:
    """A sandbox over fresh folders under `root`, and its workspace folder (seen at /app). The
    local kind: the file API is the one every host-folder sandbox shares."""
    layout = trial_layout(root)
    return create_sandbox(SandboxKind.LOCAL, layout), layout.workspace


def isolated_sandbox(root: Path) -> tuple[Sandbox, Path]:
    """Like `host_sandbox`, but commands see /app for real (bwrap, else namespace)."""
    kind, _ = pick_sandbox_kind()
    if kind is SandboxKind.LOCAL:
        require_sandbox(SandboxKind.BWRAP)
    layout = trial_layout(root)
    return create_sandbox(kind, layout), layout.workspace


def run_config(tasks: list[Task], agent: str = "oracle", **extra: object) -> RunConfig:
    """A run's configuration for `tasks` in the best sandbox here (`extra` overrides)."""
    kind, _ = pick_sandbox_kind()
    values: dict[str, object] = {
        "run_id": "t",
        "source": "test",
        "task_ids": [t.id for t in tasks],
        "agent": agent,
        "sandbox": kind.value,
        "n_attempts": 1,
        "n_concurrent": 2,
        "hillclimber_version": __version__,
    }
    values.update(extra)
    return RunConfig.model_validate(values)


def hc(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`hillclimber ARGS` as a user runs it: a fresh process, a wide terminal, a plain PATH."""
    return subprocess.run(
        [sys.executable, "-m", "hillclimber", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=user_env(),
    )


def user_env() -> dict[str, str]:
    """A user's shell: a wide terminal, a plain PATH; and PYTHONPATH where it is set, so the
    code under test runs, not whichever copy is installed."""
    env = {"COLUMNS": "200", "PATH": "/usr/local/bin:/usr/bin:/bin"}
    if "PYTHONPATH" not in os.environ:
        return env
    paths = [str(Path(path).resolve()) for path in os.environ["PYTHONPATH"].split(os.pathsep)]
    return env | {"PYTHONPATH": os.pathsep.join(paths)}  # absolute: a test may run elsewhere


def docker_task(folder: Path, dockerfile: str, files: dict[str, str] | None = None) -> Task:
    """A task whose environment/ holds `dockerfile` and `files` (relative path → text)."""
    context = folder / "environment"
    context.mkdir(parents=True, exist_ok=True)
    (context / "Dockerfile").write_text(dockerfile)
    for name, text in (files or {}).items():
        (context / name).parent.mkdir(parents=True, exist_ok=True)
        (context / name).write_text(text)
    return Task(
        id="t",
        instruction="x",
        format=TaskFormat.TB2,
        environment=Environment(dockerfile=context / "Dockerfile", context=context),
    )
