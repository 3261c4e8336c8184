"""Sandboxes: where a trial's commands run, with the task's files at /app."""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from hillclimber.errors import SandboxUnavailable
from hillclimber.sandbox.base import (
    APP,
    HOME,
    STANDARD_PATH,
    TMP,
    CommandResult,
    FileInfo,
    Layout,
    Mount,
    OutsideSandbox,
    Sandbox,
    SandboxKind,
    Snapshot,
    run_within,
    walk,
)
from hillclimber.sandbox.bwrap import BwrapSandbox
from hillclimber.sandbox.host import HostSandbox
from hillclimber.sandbox.limits import ResourceLimits
from hillclimber.sandbox.local import LocalSandbox, rewrite_paths
from hillclimber.sandbox.namespace import NamespaceSandbox

__all__ = [
    "APP",
    "HOME",
    "HOST_KINDS",
    "SHIMS",
    "TMP",
    "CommandResult",
    "FileInfo",
    "HostSandbox",
    "Layout",
    "Mount",
    "OutsideSandbox",
    "Sandbox",
    "SandboxKind",
    "Snapshot",
    "create_sandbox",
    "pick_sandbox_kind",
    "rewrite_paths",
    "run_within",
    "trial_layout",
    "walk",
]

_BACKENDS: dict[SandboxKind, type[BwrapSandbox | NamespaceSandbox | LocalSandbox]] = {
    SandboxKind.BWRAP: BwrapSandbox,
    SandboxKind.NAMESPACE: NamespaceSandbox,
    SandboxKind.LOCAL: LocalSandbox,
}
HOST_KINDS = tuple(_BACKENDS)
"""The back ends over this machine's folders (`--sandbox`); `harbor` is one Harbor hands us."""


def trial_layout(
    root: Path,
    *,
    network: bool = False,
    workspace: Path | None = None,
    hidden: Sequence[str] = (),
    limits: ResourceLimits | None = None,
) -> Layout:
    """Fresh folders for one trial under `root`: workspace at /app (or the host folder
    `workspace`, worked on where it is), its own /tmp and /root. Each of the `hidden` sandbox
    paths shows an empty read-only folder instead of what is there (a run's own record inside
    the folder it works on)."""
    root = root.resolve()
    folders = {"workspace": "/app", "tmp": "/tmp", "home": "/root"}
    for name in [*folders, "scratch"]:
        if name != "workspace" or workspace is None:
            (root / name).mkdir(parents=True, exist_ok=True)
    _write_shims(root / "home" / ".local" / "bin")
    hosts = {name: root / name for name in folders}
    if workspace is not None:
        hosts["workspace"] = workspace.resolve()
    mounts = tuple(Mount(target, hosts[name]) for name, target in folders.items())
    if hidden:
        (root / "hidden").mkdir(exist_ok=True)
        mounts += tuple(Mount(path, root / "hidden", readonly=True) for path in hidden)
    return Layout(
        mounts=mounts,
        network=network,
        scratch=root / "scratch",
        limits=limits or ResourceLimits(),
    )


SHIMS = {"python": 'exec python3 "$@"', "pip": 'exec python3 -m pip "$@"'}


def _write_shims(folder: Path) -> None:
    """`python` and `pip` where the system has only `python3` (Debian): task images built
    `FROM python:*` have both, and their solutions and tests call them."""
    for name, line in SHIMS.items():
        if shutil.which(name, path=STANDARD_PATH) is None:
            folder.mkdir(parents=True, exist_ok=True)
            shim = folder / name
            shim.write_text(f"#!/bin/sh\n{line}\n")
            shim.chmod(0o755)


def create_sandbox(kind: SandboxKind, layout: Layout) -> HostSandbox:
    """A sandbox of `kind` over `layout`, in a session of its own where the kind holds one:
    `close` it (or use it as a context manager) when its trial ends."""
    return _BACKENDS[kind](layout)


@functools.cache
def _works(kind: SandboxKind) -> str | None:
    """None if this back end runs a trivial command here, else why not."""
    probe_root = Path(__import__("tempfile").mkdtemp(prefix="hc-probe-"))
    try:
        with create_sandbox(kind, trial_layout(probe_root)) as sandbox:
            result = sandbox.run("test -d /app && echo ok", timeout=20)
        if result.ok and result.stdout.strip() == "ok":
            return None
        return (
            (result.stderr or result.stdout).strip().splitlines()[-1:][0]
            if (result.stderr or result.stdout).strip()
            else f"exit code {result.exit_code}"
        )
    except (SandboxUnavailable, OSError, subprocess.SubprocessError) as err:
        return str(err)
    finally:
        shutil.rmtree(probe_root, ignore_errors=True)


def pick_sandbox_kind(requested: SandboxKind | None = None) -> tuple[SandboxKind, list[str]]:
    """The requested back end if it works, else the best that does; with notes on why."""
    if requested is not None:
        problem = _works(requested)
        if problem is not None:
            raise SandboxUnavailable(f"sandbox '{requested}' does not work here: {problem}")
        return requested, []
    notes: list[str] = []
    for kind in (SandboxKind.BWRAP, SandboxKind.NAMESPACE):
        problem = _works(kind)
        if problem is None:
            return kind, notes
        notes.append(f"{kind}: {problem}")
    notes.append("falling back to the local sandbox: no isolation, /app paths are rewritten")
    return SandboxKind.LOCAL, notes
