"""Where a task can run here: laid out in bwrap without an engine, in its image, or not at all.

Two ways to set a task up, each for a reason: following the Dockerfile without an engine
(`hillclimber.setup`) takes milliseconds and needs nothing installed, but reproduces only tasks
whose files live under /app and that install nothing this machine lacks; building the task's
image takes seconds to minutes once (then it is cached) and reproduces everything its
Dockerfile does. A task goes to its image only when the first way cannot lay it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from hillclimber.errors import HillclimberError
from hillclimber.image.build import TaskImage, build_image
from hillclimber.image.engine import Podman
from hillclimber.setup.plan import check_task
from hillclimber.task import Task
from hillclimber.verify.verifier import verifier_needs

Where = Literal["bwrap", "image", "no"]


@dataclass(frozen=True)
class Placement:
    where: Where
    reasons: list[str] = field(default_factory=list)
    """Why not (`no`), or why the task needs its image (`image`)."""
    image: TaskImage | None = None
    """The image, when it was built (or found built) to check."""


def image_needs(task: Task) -> list[str]:
    """Why the task cannot run in its image here whatever is built (empty: it may): a GPU it
    asks for, or tests that cannot run even there."""
    gpus = [f"{task.environment.gpus} GPU(s): none here"] if task.environment.gpus else []
    return gpus + verifier_needs(task, in_image=True)


def needs_image(task: Task) -> bool:
    """Whether the task must run in its image: the Dockerfile cannot be followed without an
    engine (it installs what this machine lacks, writes outside /app, …)."""
    return bool(check_task(task))


def place(task: Task, engine: Podman | str, *, build: bool = False) -> Placement:
    """Where `task` runs here; with `build`, an image task's image is built (or found) to be
    sure, and a failed build says its step. `engine` is the engine, or why there is none."""
    host_needs = check_task(task)
    if not host_needs:
        tests = verifier_needs(task)
        return Placement("no", tests) if tests else Placement("bwrap")
    if isinstance(engine, str):
        return Placement("no", [*host_needs, f"no image can be built: {engine}"])
    needs = image_needs(task)
    if needs:
        return Placement("no", needs)
    if not build:
        return Placement("image", host_needs)
    try:
        image = build_image(task, engine)
    except HillclimberError as err:
        return Placement("no", [str(err)])
    return Placement("image", host_needs, image)
