"""Run folders made by the real runner (oracle, nop, or the harness with the scripted model),
and comparison folders around them, for the tests of reading runs back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hillclimber import __version__
from hillclimber.harness.presets import preset
from hillclimber.loaders import load_dataset
from hillclimber.models import ModelConfig
from hillclimber.paths import write_json
from hillclimber.report.rundata import COMPARISON_FILE, Comparison
from hillclimber.results import RunConfig
from hillclimber.runner import Run
from hillclimber.sandbox import pick_sandbox_kind

from conftest import FIXTURES

TB2 = FIXTURES / "tb2"


def call(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


# naive: a reply that is no tool call, then a shell write, then done (passes)
NAIVE_ANSWERS = [
    "Let me think about <this> first & then act.",
    call("run_command", command="printf 'Hello, world!\\n' > /app/hello.txt"),
    call("task_complete"),
]
# climber: a wrong write (tests fail), then the right one (auto_verify passes it)
CLIMBER_ANSWERS = [
    call("write_file", path="/app/hello.txt", content="<b>Hello</b> world\n"),
    call("write_file", path="/app/hello.txt", content="Hello, world!\n"),
    call("task_complete"),
]


def bench(
    run_dir: Path,
    agent: str,
    *,
    tasks: list[str] | None = None,
    n_attempts: int = 1,
    answers: list[str] | None = None,
    preset_name: str = "fm",
    feedback: str = "tests",
    tries: int = 1,
    dataset: Path = TB2,
) -> Path:
    """Run the tb2 fixture tasks (or some of them, or of another `dataset`) and leave a run
    folder at `run_dir`."""
    chosen = [t for t in load_dataset(dataset).tasks if tasks is None or t.id in tasks]
    model = harness = None
    if agent == "harness":
        script = run_dir.parent / f"{run_dir.name}.answers.json"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(json.dumps(answers or []))
        model = ModelConfig(spec=f"scripted:{script}")
        # no planner, no probing, no candidates: one model call per turn, one answer each
        harness = preset(
            preset_name,
            planner=False,
            probe_commands=False,
            candidates=1,
            feedback=feedback,
            **{"tries.n": tries},
        )
    config = RunConfig(
        run_id=run_dir.name,
        source="tb2-fixtures",
        task_ids=[t.id for t in chosen],
        agent=agent,
        sandbox=pick_sandbox_kind()[0].value,
        n_attempts=n_attempts,
        n_concurrent=2,
        model=model,
        harness=harness,
        hillclimber_version=__version__,
    )
    Run(config, chosen, run_dir).execute()
    return run_dir


def scripted(
    run_dir: Path,
    preset_name: str,
    answers: list[str],
    n_attempts: int = 1,
    feedback: str = "tests",
    tries: int = 1,
    dataset: Path = TB2,
) -> Path:
    return bench(
        run_dir,
        "harness",
        tasks=["fx-hello"],
        dataset=dataset,
        n_attempts=n_attempts,
        answers=answers,
        preset_name=preset_name,
        feedback=feedback,
        tries=tries,
    )


def comparison(folder: Path, runs: dict[str, Path], model: str = "scripted") -> Path:
    """A comparison folder around run folders that are already inside it."""
    write_json(
        folder / COMPARISON_FILE,
        Comparison(
            run_id=folder.name,
            labels=list(runs),
            runs={label: path.name for label, path in runs.items()},
            model=model,
            source="tb2-fixtures",
        ),
    )
    return folder
