"""A task's image, built from its own Dockerfile and build context by a real engine.

The build has the network (the package archives), the trial never does unless the task asks.
Images are cached by content: the tag holds a hash of the Dockerfile as built, the bases' image
ids and every file of the context, so a second build of an unchanged task is one `image exists`.
A `FROM` image that cannot be pulled is replaced by a local base (`base`), and the image says so
(`TaskImage.substituted`). A failed build is a `SetupError` naming the Dockerfile line of the
failing step, with the step's last lines of output.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from hillclimber.errors import SetupError, TaskLoadError
from hillclimber.image.base import base_image, release_for, release_of, stand_in
from hillclimber.image.engine import ImageConfig, Podman, store_lock
from hillclimber.process import last_lines
from hillclimber.setup.dockerfile import parse_dockerfile
from hillclimber.setup.instructions import Dockerfile
from hillclimber.task import Task

_NO_DOCKERFILE = "FROM {base}\nWORKDIR /app\n"
"""What a task without a Dockerfile gets: the plain base with its files at /app."""


@dataclass(frozen=True)
class TaskImage:
    tag: str
    config: ImageConfig
    declared: str
    """The image the task's final stage names (`FROM`), as written."""
    substituted: dict[str, str]
    """Image named by the task → the local base that stood in for it."""
    build_sec: float
    cached: bool

    def note(self) -> str:
        """One line for the trial's record: which base stood in, if any."""
        if not self.substituted:
            return f"image {self.tag} (FROM {self.declared})"
        return "base: local " + ", ".join(
            f"{release_of(base)} ({base}) instead of {name}{_unlike(name, base)}"
            for name, base in self.substituted.items()
        )


def _unlike(image: str, base: str) -> str:
    """Where the base is not of the release `image` names: that one could not be made here."""
    wanted = release_for(image)
    if wanted is None or wanted.name == release_of(base):
        return ""
    return f" ({wanted.name} could not be made here)"


_pulls: dict[str, str | None] = {}
_pull_lock = threading.Lock()


def _stand_in(engine: Podman, image: str) -> str | None:
    """The local base for `image` when it is neither here nor pullable; None to use it."""
    with _pull_lock:
        if image not in _pulls:
            _pulls[image] = None if engine.exists(image) else engine.pull(image)
        problem = _pulls[image]
    return None if problem is None else stand_in(engine, image)


def build_image(task: Task, engine: Podman, timeout: float | None = None) -> TaskImage:
    """The task's image, built now or found in the cache."""
    started = time.monotonic()
    timeout = timeout if timeout is not None else task.limits.setup_timeout_sec
    dockerfile_path, context = _sources(task)
    swaps: dict[str, str] = {}
    if dockerfile_path is None:
        base = base_image(engine, "plain")
        text, declared = _NO_DOCKERFILE.format(base=base), base
    else:
        text, declared, swaps = _substituted(engine, dockerfile_path)
    bases = [engine.inspect(image).id for image in swaps.values()]
    tag = f"localhost/hillclimber/task-{task_slug(task.id)}:{_content_hash(text, bases, context)}"
    cached = engine.exists(tag)
    if not cached:
        with store_lock(exclusive=False):  # no image is removed under a build
            _build(engine, tag, text, context, dockerfile_path, timeout)
    return TaskImage(
        tag=tag,
        config=engine.inspect(tag),
        declared=declared,
        substituted=swaps,
        build_sec=round(time.monotonic() - started, 3),
        cached=cached,
    )


def _sources(task: Task) -> tuple[Path | None, Path | None]:
    environment = task.environment
    if environment.dockerfile is None:
        return None, None
    return environment.dockerfile, environment.context or environment.dockerfile.parent


def _substituted(engine: Podman, path: Path) -> tuple[str, str, dict[str, str]]:
    """The Dockerfile's text with each external `FROM` image that cannot be had replaced by a
    local base; the final stage's declared image; what was replaced."""
    text = _read(path)
    parsed = parse_dockerfile(path, text=text)
    lines = text.splitlines()
    swaps: dict[str, str] = {}
    for stage, image in _external_bases(parsed):
        base = _stand_in(engine, image)
        if base is None:
            continue
        swaps[image] = base
        lines[stage - 1] = _FROM_IMAGE.sub(rf"\g<1>{base}", lines[stage - 1], count=1)
    return "\n".join(lines) + "\n", parsed.image, swaps


_FROM_IMAGE = re.compile(r"^(\s*FROM\s+(?:--\S+\s+)*)(\S+)", re.IGNORECASE)


def _external_bases(parsed: Dockerfile) -> list[tuple[int, str]]:
    """(line, image) of every stage that starts from an image rather than an earlier stage."""
    names: set[str] = set()
    found = []
    for stage in parsed.stages:
        if stage.parent is None and stage.base.lower() not in names and stage.base != "scratch":
            found.append((stage.line, stage.base))
        if stage.name:
            names.add(stage.name.lower())
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise TaskLoadError(path, None, f"cannot read Dockerfile: {err}") from err


def task_slug(task_id: str) -> str:
    """The task's part of its image's name (`localhost/hillclimber/task-<slug>:<hash>`)."""
    slug = re.sub(r"[^a-z0-9_.-]+", "-", task_id.lower()).strip("-.")
    return slug[:80] or "task"


def _content_hash(text: str, bases: list[str], context: Path | None) -> str:
    """What decides the image: the Dockerfile as built, its bases, every file of the context
    (path, mode, content; symlinks by target)."""
    digest = hashlib.sha256(text.encode())
    for base in bases:
        digest.update(base.encode())
    if context is not None and context.is_dir():
        for root, dirs, files in os.walk(context):
            dirs.sort()
            for name in sorted(files) + [d for d in dirs if Path(root, d).is_symlink()]:
                path = Path(root, name)
                relative = path.relative_to(context).as_posix()
                info = path.lstat()
                digest.update(f"\0{relative}\0{info.st_mode:o}\0".encode())
                if path.is_symlink():
                    digest.update(os.readlink(path).encode())
                else:
                    digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _build(
    engine: Podman,
    tag: str,
    text: str,
    context: Path | None,
    dockerfile: Path | None,
    timeout: float,
) -> None:
    with tempfile.TemporaryDirectory(prefix="hc-build-") as tmp:
        file = Path(tmp) / "Dockerfile"
        file.write_text(text)
        where = str(context) if context is not None else tmp
        result = engine.run(
            "build", "--network", "host", "-f", str(file), "-t", tag, where, timeout=timeout
        )
    if result.ok:
        return
    if result.timed_out:
        problem = f"the image build ran out of time ({timeout:g} s)"
    else:
        problem = _failed_step(result.output, text, dockerfile)
    # the engine's own last line only repeats the step: the step's output ends the message
    lines = [ln for ln in result.output.splitlines() if not _ENGINE_ERROR.match(ln)]
    tail = last_lines("\n".join(lines))
    raise SetupError(f"{problem}\n{tail}".rstrip())


_ENGINE_ERROR = re.compile(r"^(Error: building at STEP|error building at STEP)")


_STEP = re.compile(r"^STEP (\d+)/(\d+): (.*)$", re.MULTILINE)


def _failed_step(output: str, text: str, dockerfile: Path | None) -> str:
    """`Dockerfile:LINE: INSTRUCTION failed` for the last step the engine started."""
    steps = _STEP.findall(output)
    where = str(dockerfile or "Dockerfile")
    if not steps:
        return f"{where}: the image build failed"
    number, _, instruction = steps[-1]
    step = " ".join(instruction.split())[:200]
    line = _instruction_line(text, int(number))
    return f"{where}:{line}: `{step}` failed" if line else f"{where}: step {number} `{step}` failed"


def _instruction_line(text: str, number: int) -> int | None:
    """The line where the Dockerfile's `number`-th instruction starts (1-based, as the engine
    counts its steps: every instruction of every stage)."""
    count = 0
    continued = False
    for index, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        starts = not continued and stripped and not stripped.startswith("#")
        continued = raw.rstrip().endswith("\\") if not stripped.startswith("#") else continued
        if starts:
            count += 1
            if count == number:
                return index
    return None


class ImageRecord(BaseModel):
    """The image a trial ran in (sandbox `container`)."""

    tag: str
    declared: str
    """The image the task's Dockerfile names."""
    substituted: dict[str, str] = Field(default_factory=dict)
    """Image named by the task → the local base that stood in for it (none could be pulled)."""
    note: str = ""
    build_sec: float = 0.0
    cached: bool = False
    """Found built: the task and its bases had not changed."""

    @classmethod
    def of(cls, image: TaskImage) -> ImageRecord:
        return cls(
            tag=image.tag,
            declared=image.declared,
            substituted=image.substituted,
            note=image.note(),
            build_sec=image.build_sec,
            cached=image.cached,
        )
