"""What one trial hands its agent: the task, its sandbox, the time it has, where to write, and
the task's tests to check with where the setting lets it."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hillclimber.sandbox import CommandResult, Sandbox, run_within
from hillclimber.task import Task
from hillclimber.verify.verifier import Evaluation


@dataclass
class AgentContext:
    task: Task
    sandbox: Sandbox
    deadline: float
    """time.monotonic() by which the agent must stop."""
    log_dir: Path
    """Where the agent writes its log and trajectory."""
    workdir: str = "/app"
    """Where commands start: the task's final WORKDIR."""
    verify: Callable[[], Evaluation] | None = None
    """Runs the task's tests on the workspace as it is now (fresh copy of the tests)."""
    suite_hints: str | None = None
    """The suite's declared hint policy ("on"/"off"), if any."""
    suite_source: str | None = None
    """The suite's name or path, for the hint policy's fallback."""
    trial_name: str = ""

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        cwd: str = "",
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run a command within the agent's remaining time, from `cwd` (default: the task's
        working folder) with `env` added to the sandbox's environment; raise AgentTimeout when
        the time is up."""
        return run_within(
            self.sandbox, command, remaining=self.remaining, timeout=timeout,
            cwd=cwd or self.workdir, env=env,
        )  # fmt: skip
