"""Runs the task's reference solution: how we prove that tasks and the harness are right."""

from __future__ import annotations

import shutil

from hillclimber.agents.base import AgentOutcome
from hillclimber.context import AgentContext
from hillclimber.errors import Unsupported
from hillclimber.sandbox import Mount


class OracleAgent:
    name = "oracle"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        task = ctx.task
        if task.solution is not None:
            # The solution folder is seen at /solution, read-only, as Harbor lays it out.
            copy = ctx.log_dir / "solution"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(task.solution.parent, copy)
            layout = ctx.sandbox.layout.with_mounts(Mount("/solution", copy, readonly=True))
            ctx.sandbox = ctx.sandbox.with_layout(layout)
            ctx.sandbox.localize("/solution")
            command = f"bash /solution/{task.solution.name}"
        elif task.solution_inline is not None:
            command = task.solution_inline
        else:
            raise Unsupported(["the task has no reference solution"])
        result = ctx.run(command)
        (ctx.log_dir / "oracle.log").write_text(
            f"$ {command}\n[exit code {result.exit_code}, {result.duration_sec:.2f}s]\n"
            + result.output
        )
        return AgentOutcome(info={"exit_code": result.exit_code})
