"""Terminal-Bench 2 / Harbor task folders.

Layout: `instruction.md`, `task.toml`, `environment/Dockerfile` (+ build context),
`solution/solve.sh`, `tests/test.sh` (+ `tests/test_outputs.py` and whatever it needs).
Checks run in that order, so a task with several faults reports the first a user would fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from hillclimber.loaders._common import (
    Lenient,
    Seconds,
    load_error,
    optional_dockerfile,
    optional_file,
    read_text,
    read_toml,
)
from hillclimber.task import (
    Environment,
    Limits,
    Metadata,
    Task,
    TaskFormat,
    Verification,
    VerificationKind,
)

MARKERS = ("task.toml", "instruction.md")

NetworkMode = Literal["public", "no-network", "allowlist"]
StrictBool = Annotated[bool, Field(strict=True)]


class _Meta(Lenient):
    difficulty: str | None = None
    category: str | None = None
    tags: list[str] = Field(default_factory=list)
    author_name: str | None = None


class _Author(Lenient):
    name: str | None = None


class _TaskSection(Lenient):
    """`[task]` of newer Harbor schemas, whose `keywords`/`authors` replace tags/author_name."""

    keywords: list[str] = Field(default_factory=list)
    authors: list[_Author] = Field(default_factory=list)


class _Verifier(Lenient):
    timeout_sec: Seconds | None = None


class _Agent(Lenient):
    timeout_sec: Seconds | None = None
    network_mode: NetworkMode | None = None


class _Env(Lenient):
    build_timeout_sec: Seconds | None = None
    docker_image: str | None = None
    gpus: int | None = None
    allow_internet: StrictBool | None = None
    """Harbor's older spelling; `network_mode` replaces it."""
    network_mode: NetworkMode | None = None


class TaskToml(Lenient):
    metadata: _Meta = _Meta()
    task: _TaskSection = _TaskSection()
    verifier: _Verifier = _Verifier()
    agent: _Agent = _Agent()
    environment: _Env = _Env()

    @property
    def network(self) -> bool:
        """Network only when the task asks for it. Harbor itself defaults to on, but a sandbox
        that lets a small model reach the internet unasked is the wrong default here."""
        mode = self.agent.network_mode or self.environment.network_mode
        if mode is not None:
            return mode != "no-network"
        return self.environment.allow_internet is True

    @property
    def image_network(self) -> bool:
        """In the task's image, the network Harbor gives its container: public unless the
        task says no."""
        mode = self.agent.network_mode or self.environment.network_mode
        if mode is not None:
            return mode != "no-network"
        return self.environment.allow_internet is not False


def is_tb2_task(folder: Path) -> bool:
    return any((folder / name).is_file() for name in MARKERS)


def read_task_toml(path: Path) -> TaskToml:
    text = read_text(path, None, "a Terminal-Bench 2 task needs task.toml")
    return read_toml(path, text, TaskToml)


def load_tb2_task(folder: Path) -> Task:
    """Load one TB2 task folder; the task id is the folder's name."""
    folder = folder.resolve()
    instruction = read_text(
        folder / "instruction.md", "instruction", "it holds the task's instruction"
    ).strip()
    if not instruction:
        raise load_error(folder / "instruction.md", "instruction", "is empty")
    config = read_task_toml(folder / "task.toml")
    tests = folder / "tests"
    script = tests / "test.sh"
    if not script.is_file():
        raise load_error(script, "tests", "file missing (the verifier runs tests/test.sh)")

    dockerfile = optional_dockerfile(folder / "environment" / "Dockerfile")
    defaults = Limits()
    authors = [a.name for a in config.task.authors if a.name]
    return Task(
        id=folder.name,
        instruction=instruction,
        format=TaskFormat.TB2,
        source=folder,
        environment=Environment(
            dockerfile=dockerfile,
            context=dockerfile.parent if dockerfile else None,
            network=config.network,
            image_network=config.image_network,
            image=config.environment.docker_image,
            gpus=config.environment.gpus or 0,
        ),
        verification=Verification(kind=VerificationKind.TB2, script=script, tests_dir=tests),
        solution=optional_file(folder / "solution" / "solve.sh"),
        limits=Limits(
            agent_timeout_sec=config.agent.timeout_sec or defaults.agent_timeout_sec,
            verifier_timeout_sec=config.verifier.timeout_sec or defaults.verifier_timeout_sec,
            setup_timeout_sec=config.environment.build_timeout_sec or defaults.setup_timeout_sec,
        ),
        metadata=Metadata(
            category=config.metadata.category,
            difficulty=config.metadata.difficulty,
            tags=tuple(config.metadata.tags or config.task.keywords),
            author=config.metadata.author_name or (authors[0] if authors else None),
        ),
    )
