"""Carry an environment plan out in a sandbox: make its folders, copy its files in, run its
steps, all within the setup time limit. What to do was decided by `plan.plan_environment`.
"""

from __future__ import annotations

import os
import stat
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hillclimber.errors import SetupError, Unsupported
from hillclimber.process import last_lines
from hillclimber.sandbox.base import OutsideSandbox, Sandbox
from hillclimber.sandbox.host import copy_file
from hillclimber.setup.plan import CopyStep, EnvironmentPlan, MakeDirStep, RunStep, Step


@dataclass(frozen=True)
class StepRecord:
    """One step carried out, and how long it took (for the trial's record)."""

    origin: str
    description: str
    duration_sec: float


@dataclass(frozen=True)
class SetupReport:
    """What setting the workspace up did, and what every later command needs from it."""

    steps: tuple[StepRecord, ...]
    env: dict[str, str]
    """ENV values to set for every later command (the layout's env)."""
    workdir: str
    satisfied: tuple[str, ...]
    duration_sec: float


def build_workspace(plan: EnvironmentPlan, sandbox: Sandbox, timeout: float) -> SetupReport:
    """Run the plan's steps in order in `sandbox`, all within `timeout` seconds together.

    Raises Unsupported when the plan has needs, SetupError when a step fails or time runs out.
    """
    if plan.needs:
        raise Unsupported(list(plan.needs))
    started = time.monotonic()
    deadline = started + timeout
    records = []
    for step in plan.steps:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SetupError(
                f"setup ran out of time ({timeout:g}s) before {step.origin}: {step.describe()}"
            )
        step_start = time.monotonic()
        _carry_out(step, sandbox, remaining)
        records.append(StepRecord(step.origin, step.describe(), time.monotonic() - step_start))
    return SetupReport(
        steps=tuple(records),
        env=dict(plan.env),
        workdir=plan.workdir,
        satisfied=tuple(plan.satisfied),
        duration_sec=time.monotonic() - started,
    )


def _carry_out(step: Step, sandbox: Sandbox, remaining: float) -> None:
    try:
        if isinstance(step, MakeDirStep):
            sandbox.mkdir(step.path)
        elif isinstance(step, CopyStep):
            _copy(step, sandbox)
        else:
            _run(step, sandbox, remaining)
    except OutsideSandbox as err:
        raise SetupError(f"{step.origin}: {step.describe()}: {err}") from err
    except (OSError, tarfile.TarError) as err:
        raise SetupError(f"{step.origin}: {step.describe()} failed: {err}") from err


def _run(step: RunStep, sandbox: Sandbox, remaining: float) -> None:
    sandbox.mkdir(step.cwd)
    result = sandbox.run(step.command, timeout=remaining, cwd=step.cwd, env=step.env)
    if result.ok:
        return
    tail = last_lines(result.output)
    if result.timed_out:
        problem = f"timed out after {result.duration_sec:.0f}s (the setup time limit)"
    else:
        problem = f"failed with exit code {result.exit_code}"
    raise SetupError(f"{step.origin}: `{step.summary}` {problem}\n{tail}".rstrip())


def _copy(step: CopyStep, sandbox: Sandbox) -> None:
    """Lay the step's files out on the host as they must land, then upload them: into `dest`
    as a folder (folder sources, archives, several files, a trailing `/`, an existing folder),
    or as the file `dest`."""
    existing = sandbox.stat(step.dest)
    as_folder = step.into_dir or (existing is not None and existing.kind == "dir")
    with tempfile.TemporaryDirectory(prefix="hc-copy-") as tmp:
        folder = Path(tmp) / "folder"
        single = Path(tmp) / "file"
        files = [(source, source.name) for source in step.sources if not source.is_dir()]
        for source in step.sources:
            if source.is_dir():
                _copy_tree(source, folder, step.excluded, step.chmod)
                as_folder = True
            elif step.extract and tarfile.is_tarfile(source):
                folder.mkdir(parents=True, exist_ok=True)
                with tarfile.open(source) as archive:
                    archive.extractall(folder, filter="data")
                as_folder = True
                files.remove((source, source.name))
        for name, content in step.inline:
            staged = Path(tmp) / "inline" / name
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_text(content, encoding="utf-8")
            files.append((staged, name))
        for source, name in files:
            _copy_file(source, folder / name if as_folder else single, step.chmod)
            if not as_folder:
                sandbox.upload(single, step.dest)
        if folder.exists():
            sandbox.upload(folder, step.dest)
    # Scripts copied in name /app paths; the local sandbox must point them at the workspace.
    sandbox.localize(step.dest)


def _copy_file(source: Path, target: Path, chmod: int | None) -> None:
    """One file copied with its mode, as Docker's COPY keeps it, plus its owner's write bit
    unless the step sets a mode: in a container root writes a read-only file all the same
    (it may override permissions), and the sandbox's root here has no capabilities."""
    copy_file(source, target)
    if target.is_symlink():
        return
    target.chmod(chmod if chmod is not None else target.stat().st_mode | stat.S_IWUSR)


def _copy_tree(source: Path, dest: Path, excluded: frozenset[Path], chmod: int | None) -> None:
    """Copy a folder's contents into `dest`, merging with what is there, as Docker COPY does."""
    dest.mkdir(parents=True, exist_ok=True)
    for root, dirs, files in os.walk(source):
        here = Path(root)
        dirs[:] = [d for d in dirs if here / d not in excluded or _has_kept(here / d, excluded)]
        target_dir = dest / here.relative_to(source)
        target_dir.mkdir(parents=True, exist_ok=True)
        for name in files:
            if here / name not in excluded:
                _copy_file(here / name, target_dir / name, chmod)
        for name in dirs:
            if (here / name).is_symlink() and here / name not in excluded:
                _copy_file(here / name, target_dir / name, chmod)


def _has_kept(folder: Path, excluded: frozenset[Path]) -> bool:
    """An excluded folder may still hold files a `!pattern` brought back."""
    return any(
        Path(root) / name not in excluded for root, _, files in os.walk(folder) for name in files
    )
