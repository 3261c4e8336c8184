"""Terminal-Bench 1 task folders.

Layout: `task.yaml`, `Dockerfile` at the top (build context = the task folder),
`solution.sh` or `solution.yaml`, `run-tests.sh`, `tests/` (laid at `$TEST_DIR`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError, model_validator

from hillclimber.loaders._common import (
    Lenient,
    Seconds,
    from_validation,
    load_error,
    optional_dockerfile,
    optional_file,
    read_text,
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

MARKERS = ("task.yaml",)

_SIMPLE_STEP_KEYS = {"command", "min_timeout_sec", "block", "append_enter"}


class _Description(Lenient):
    key: str = "base"
    description: str


class TaskYaml(Lenient):
    instruction: str
    difficulty: str | None = None
    category: str | None = None
    tags: list[str] = Field(default_factory=list)
    author_name: str | None = None
    max_agent_timeout_sec: Seconds | None = None
    max_test_timeout_sec: Seconds | None = None

    @model_validator(mode="before")
    @classmethod
    def _early_descriptions(cls, data: Any) -> Any:
        """Early TB1 tasks held `descriptions: [{key: base, description: ...}]` instead of
        `instruction`; take the `base` one so those tasks load too."""
        if isinstance(data, dict) and "instruction" not in data and "descriptions" in data:
            items = data["descriptions"]
            if isinstance(items, list):
                for item in items:
                    if isinstance(item, dict) and item.get("key", "base") == "base":
                        return {**data, "instruction": item.get("description")}
        return data


def is_tb1_task(folder: Path) -> bool:
    return (folder / "task.yaml").is_file()


def _yaml_problem(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return f"invalid YAML: {exc.problem} (at line {mark.line + 1}, column {mark.column + 1})"
    return f"invalid YAML: {exc}"


def read_task_yaml(path: Path) -> TaskYaml:
    text = read_text(path, None, "a Terminal-Bench 1 task needs task.yaml")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise load_error(path, None, _yaml_problem(exc)) from None
    if not isinstance(data, dict):
        raise load_error(path, None, "must be a YAML mapping with an 'instruction' key")
    try:
        return TaskYaml.model_validate(data)
    except ValidationError as exc:
        raise from_validation(path, exc) from None


def simple_solution(path: Path) -> str | None:
    """The commands of a `solution.yaml` as one script, when it is a plain list of blocking
    commands; interactive steps (`block: false`, keystrokes) cannot be replayed as a script,
    so such a solution is left out rather than recorded wrongly."""
    try:
        steps = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(steps, list) or not steps:
        return None
    commands: list[str] = []
    for step in steps:
        if not isinstance(step, dict) or not set(step) <= _SIMPLE_STEP_KEYS:
            return None
        command = step.get("command")
        if not isinstance(command, str) or step.get("block", True) is not True:
            return None
        commands.append(command)
    return "\n".join(commands) + "\n"


def load_tb1_task(folder: Path) -> Task:
    """Load one TB1 task folder; the task id is the folder's name."""
    folder = folder.resolve()
    config = read_task_yaml(folder / "task.yaml")
    instruction = config.instruction.strip()
    if not instruction:
        raise load_error(folder / "task.yaml", "instruction", "is empty")
    script = folder / "run-tests.sh"
    if not script.is_file():
        raise load_error(script, "tests", "file missing (the verifier runs run-tests.sh)")
    tests = folder / "tests"

    dockerfile = optional_dockerfile(folder / "Dockerfile")
    solution = optional_file(folder / "solution.sh")
    solution_yaml = optional_file(folder / "solution.yaml")
    inline = simple_solution(solution_yaml) if solution is None and solution_yaml else None
    defaults = Limits()
    return Task(
        id=folder.name,
        instruction=instruction,
        format=TaskFormat.TB1,
        source=folder,
        environment=Environment(dockerfile=dockerfile, context=folder if dockerfile else None),
        verification=Verification(
            kind=VerificationKind.TB1, script=script, tests_dir=tests if tests.is_dir() else None
        ),
        solution=solution,
        solution_inline=inline,
        limits=Limits(
            agent_timeout_sec=config.max_agent_timeout_sec or defaults.agent_timeout_sec,
            verifier_timeout_sec=config.max_test_timeout_sec or defaults.verifier_timeout_sec,
        ),
        metadata=Metadata(
            category=config.category,
            difficulty=config.difficulty,
            tags=tuple(config.tags),
            author=config.author_name,
        ),
    )
