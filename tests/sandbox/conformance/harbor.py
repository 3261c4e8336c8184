"""The list run over the Harbor bridge (`hillclimber.harbor.sandbox.EnvironmentSandbox`), with
Harbor's own Python (`.venv-harbor`: Harbor needs 3.12) and its own environment class: ours,
`hillclimber.harbor:SandboxEnvironment`, made by Harbor's factory as `harbor run -e` makes it,
started on an event loop of its own as Harbor's trial starts it, each trial the fixture task
`fx-hello` laid out afresh.

    PYTHONPATH=src:tests/sandbox .venv-harbor/bin/python -m conformance.harbor REPORT.json [NAME…]

runs every behaviour (or those NAMEd) and writes {behaviour: {"outcome": "passed" | "failed" |
"not here", "detail": …, "seconds": …}}; a behaviour the bridge declares it cannot try is not
run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harbor.environments.factory import EnvironmentFactory
from harbor.models.task.task import Task
from harbor.models.trial.paths import TrialPaths

from hillclimber.harbor.sandbox import EnvironmentSandbox
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.limits import ResourceLimits

from conformance import BEHAVIOURS, Behaviour, NotHere, Trials, cannot

TASK = Path(__file__).resolve().parents[2] / "fixtures" / "tb2" / "fx-hello"
ENVIRONMENT = "hillclimber.harbor:SandboxEnvironment"


class HarborTrials(Trials):
    """Each trial a Harbor environment of ours, started and stopped on `loop` (Harbor's), with
    the bridge over it as the agent in its worker thread has it."""

    kind = "harbor"

    def __init__(self, folder: Path, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(folder)
        self.loop = loop

    @contextlib.contextmanager
    def trial(self, folder: Path, network: bool, limits: ResourceLimits) -> Iterator[Sandbox]:
        if network or limits != ResourceLimits():
            raise NotImplementedError("the bridge asks for no network and sets no limits")
        task = Task(TASK)
        paths = TrialPaths(folder)
        paths.mkdir()
        environment = EnvironmentFactory.create_environment_from_import_path(
            ENVIRONMENT,
            environment_dir=task.paths.environment_dir,
            environment_name=task.short_name,
            session_id=f"{folder.name}__env",
            trial_paths=paths,
            task_env_config=task.config.environment,
        )
        self._wait(environment.start(force_build=False))
        try:
            yield EnvironmentSandbox(environment, self.loop)
        finally:
            self._wait(environment.stop(delete=True))

    def _wait(self, coroutine: Any) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(300)


def outcome(behaviour: Behaviour, folder: Path, loop: asyncio.AbstractEventLoop) -> dict[str, Any]:
    """How `behaviour` went on the bridge, and how long it took."""
    started = time.monotonic()
    try:
        with HarborTrials(folder, loop) as trials:
            behaviour(trials)
        found: dict[str, Any] = {"outcome": "passed", "detail": ""}
    except NotHere as err:
        found = {"outcome": "not here", "detail": str(err)}
    except Exception:
        found = {"outcome": "failed", "detail": traceback.format_exc()}
    return found | {"seconds": round(time.monotonic() - started, 2)}


def main(report: Path, names: list[str]) -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    found = {}
    for behaviour in BEHAVIOURS:
        gap = cannot(HarborTrials.kind, behaviour)
        asked = not names or behaviour.__name__ in names
        if asked and (gap is None or gap.tried):
            folder = report.parent / behaviour.__name__
            found[behaviour.__name__] = outcome(behaviour, folder, loop)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    report.write_text(json.dumps(found, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
