"""Where a task can run here: laid out in bwrap without an engine, in its image, or not at all.

Two ways to set a task up, each for a reason: following the Dockerfile without an engine
(`hillclimber.setup`) takes milliseconds and needs nothing installed, but reproduces only tasks
whose files live under /app and that install nothing this machine lacks, and in it nothing can
be installed system-wide (the host's system folders are read-only there); building the task's
image takes seconds to minutes once (then it is cached) and reproduces everything its
Dockerfile does, and a trial in it is root in a layer of its own, as in a container: `apt-get`
and `pip` install into that layer. A task goes to its image when the first way cannot lay it
out, or when its reference solution installs what this machine lacks or writes outside /app:
the task asks for a machine of its own, and an agent solving it will likely need one too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from hillclimber.errors import HillclimberError, TaskLoadError
from hillclimber.image.base import DEBIAN_12, release_for
from hillclimber.image.build import TaskImage, build_image
from hillclimber.image.engine import Podman, find_engine
from hillclimber.image.reach import reachable, registry_of, unreachable, unreachable_downloads
from hillclimber.setup.dockerfile import parse_dockerfile
from hillclimber.setup.fetches import solution_fetches, tests_fetches
from hillclimber.setup.plan import check_task, plan_environment, solution_analysis, solution_needs
from hillclimber.setup.requirements import apt_pins
from hillclimber.task import Task
from hillclimber.verify.verifier import verifier_needs

Where = Literal["bwrap", "image", "no"]
_UNREACHED = "which no trial here reaches"


@dataclass(frozen=True)
class Placement:
    where: Where
    reasons: list[str] = field(default_factory=list)
    """Why not (`no`), or why the task needs its image (`image`)."""
    image: TaskImage | None = None
    """The image, when it was built (or found built) to check."""
    build_failed: bool = False
    """`no` because its image was built and the build failed."""


def image_needs(task: Task, engine: Podman | str | None = None) -> list[str]:
    """Why the task cannot run in its image here whatever is built (empty: it may): a GPU it
    asks for, a host its Dockerfile downloads from that no build here reaches, apt versions it
    pins to a base a local one stands in for, or tests that cannot run even there."""
    gpus = [f"{task.environment.gpus} GPU(s): none here"] if task.environment.gpus else []
    tests = verifier_needs(task, in_image=True) + tests_unreached(task)
    return gpus + _build_needs(task, engine) + tests


def tests_unreached(task: Task) -> list[str]:
    """Each host the task's tests download from while they run that no trial here reaches:
    they cannot pass here as written."""
    found = unreachable(tests_fetches(task)).items()
    return [f"the tests download from {host}, {_UNREACHED} ({need})" for host, need in found]


def _build_needs(task: Task, engine: Podman | str | None) -> list[str]:
    """What the build asks that no build here gives: a host it downloads from that is not
    reached, apt versions of a base a local one stands in for; a Dockerfile that cannot be read
    (or names files its context lacks) builds nowhere, and says why."""
    if task.environment.dockerfile is None:
        return []
    try:
        plan = plan_environment(task)
    except TaskLoadError as err:
        return [f"unreadable environment: {err}"]
    return unreachable_downloads(plan.needs) + _pinned_build(task, plan.pinned, engine)


def _pinned_build(task: Task, pinned: list[str], engine: Podman | str | None) -> list[str]:
    """The build's own apt versions, where a local base stands in for the one they are of: no
    such build gets them (the oracle's pins are `oracle_blockers`). The engine is asked for
    only where there are pins."""
    base = _declared_base(task) if pinned else None
    if base is None or not _pins_missing(base, find_engine() if engine is None else engine):
        return []
    return [f"the build {_pins(base, pinned)}"]


def _pins(base: str, pins: list[str]) -> str:
    return (
        f"pins apt versions of {base} ({', '.join(dict.fromkeys(pins))}); "
        f"a local {DEBIAN_12.name} base stands in for {base} here"
    )


def oracle_blockers(task: Task, engine: Podman | str) -> list[str]:
    """What the reference solution does that its image here cannot give, so the oracle will
    fail though the task runs: a download from a host no trial here reaches, and apt versions
    pinned to a distribution whose image a local base stands in for."""
    analysis = solution_analysis(task)
    if analysis is None:
        return []
    commands = [need for group, need in analysis.needs if group is None]
    downloads = unreachable([*commands, *solution_fetches(task)])
    found = {
        host: f"downloads from {host}, {_UNREACHED} ({need})" for host, need in downloads.items()
    }
    pins = apt_pins(analysis.needs)
    base = _declared_base(task)
    if pins and base and _pins_missing(base, engine):
        found["pins"] = _pins(base, pins)
    return list(found.values())


def _declared_base(task: Task) -> str | None:
    if task.environment.dockerfile is None:
        return None
    try:
        return parse_dockerfile(task.environment.dockerfile).image
    except TaskLoadError:
        return None


def _pins_missing(base: str, engine: Podman | str) -> bool:
    """Whether apt versions of `base` are missing from what a build here installs from: a
    local base stands in for it, and its name says no release a base is made of
    (`release_for`), so Debian 12 stands in."""
    return release_for(base) is None and _stood_in(base, engine)


def _stood_in(image: str, engine: Podman | str) -> bool:
    """Whether a build here would put a local base in `image`'s place: it is not here and its
    registry does not answer."""
    if not isinstance(engine, str) and engine.exists(image):
        return False
    return not reachable(registry_of(image), 443)


def image_reasons(task: Task) -> list[str]:
    """Why the task runs in its image where one can be built (empty: in bwrap): what its
    Dockerfile does that cannot be followed without an engine, else what its reference
    solution needs that bwrap cannot give."""
    host_needs = check_task(task)
    if host_needs:
        return host_needs
    solution = solution_needs(task)
    return [f"its reference solution needs {'; '.join(solution)}"] if solution else []


def needs_image(task: Task) -> bool:
    """Whether the task runs in its image where images can be built (`image_reasons`)."""
    return bool(image_reasons(task))


def place(task: Task, engine: Podman | str, *, build: bool = False) -> Placement:
    """Where `task` runs here; with `build`, an image task's image is built (or found) to be
    sure, and a failed build says its step. `engine` is the engine, or why there is none."""
    reasons = image_reasons(task)
    followed = not check_task(task)  # the Dockerfile can be followed without an engine
    if not reasons or (followed and isinstance(engine, str)):  # bwrap, the oracle may fail
        tests = verifier_needs(task) + tests_unreached(task)
        return Placement("no", tests) if tests else Placement("bwrap")
    if isinstance(engine, str):
        return Placement("no", [*reasons, f"no image can be built: {engine}"])
    needs = image_needs(task, engine)
    if needs:
        return Placement("no", needs)
    if not build:
        return Placement("image", reasons)
    try:
        image = build_image(task, engine)
    except HillclimberError as err:
        return Placement("no", [str(err)], build_failed=True)
    return Placement("image", reasons, image)
