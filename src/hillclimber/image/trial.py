"""One trial in the task's image: built (or found) once, a fresh writable layer for the trial."""

from __future__ import annotations

import contextlib
import posixpath
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from hillclimber.image.build import TaskImage, build_image
from hillclimber.image.engine import engine
from hillclimber.sandbox.base import Layout, Mount, OutsideSandbox
from hillclimber.sandbox.container import ROOT, ContainerSandbox, trial_root
from hillclimber.sandbox.limits import ResourceLimits
from hillclimber.task import Task

KEPT_WORKSPACE = "workspace"
"""The trial folder's copy of the image's working folder as the agent left it."""


@contextlib.contextmanager
def image_sandbox(
    task: Task,
    folder: Path,
    *,
    hidden: Sequence[str] = (),
    limits: ResourceLimits | None = None,
) -> Iterator[tuple[ContainerSandbox, TaskImage]]:
    """The task's image as a sandbox for one trial whose files live in `folder`. When the
    trial ends, its session is closed (what its commands left running ends), its working
    folder is kept at `folder/workspace` and the layer thrown away."""
    podman = engine()
    image = build_image(task, podman)
    image_root = podman.mount(image.tag)
    with trial_root(image_root, folder / "container") as root:
        mounts: tuple[Mount, ...] = (Mount(ROOT, root.root),)
        if hidden:
            (folder / "hidden").mkdir(parents=True, exist_ok=True)
            mounts += tuple(Mount(path, folder / "hidden", readonly=True) for path in hidden)
        layout = Layout(
            mounts=mounts,
            env=image.config.env,
            network=task.environment.network or task.environment.image_network,
            scratch=folder / "scratch",
            limits=limits or ResourceLimits(),
            workdir=image.config.workdir,
            grows=(root.layer,),
        )
        sandbox = ContainerSandbox(layout)
        sandbox.mkdir(image.config.workdir)  # as `docker run` makes a WORKDIR the build did not
        try:
            yield sandbox, image
        finally:
            sandbox.close()  # every process of the trial gone before its layer goes
            _keep_workdir(sandbox, image.config.workdir, folder / KEPT_WORKSPACE)


def _keep_workdir(sandbox: ContainerSandbox, workdir: str, target: Path) -> None:
    """Copy the working folder out of the trial's root before the layer goes (not `/`: the
    whole image)."""
    if posixpath.normpath(workdir) == ROOT:
        return
    with contextlib.suppress(OSError, OutsideSandbox):
        source = sandbox.host_path(workdir)
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, symlinks=True)
