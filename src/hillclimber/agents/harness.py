"""The harness agent: a model driven by the agent loop with a `HarnessConfig`
(assembled in `harness/assemble.py`)."""

from __future__ import annotations

from typing import Any

from hillclimber.agents.base import AgentOutcome, Ended
from hillclimber.context import AgentContext
from hillclimber.harness.assemble import assemble
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.recording.events import Listener
from hillclimber.harness.state import LoopExit
from hillclimber.models.base import Model


class HarnessAgent:
    def __init__(self, model: Model, config: HarnessConfig, *listeners: Listener) -> None:
        self.model = model
        self.config = config
        self.listeners = listeners
        self.name = f"harness:{config.preset}"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        config, task = self.config, ctx.task
        built = assemble(config, self.model, ctx, *self.listeners)
        result = built.loop.run()
        checks = built.checks
        learned = built.skills.finish(
            passed=result.exit is LoopExit.VERIFIED,
            feedback=config.feedback if built.verify is not None else "none",
            trial=ctx.trial_name or task.id,
        )
        info: dict[str, Any] = {
            "preset": config.preset,
            "model": self.model.profile.name,
            "loop_exit": result.exit.value,
            "loop_reason": result.reason,
            "turns": result.turns,
            "complexity": built.kind.value,
            "effective": built.effective.record(),
            "budget_shrinks": built.budget.shrinks,
            "skills": built.skills.ids,
            "skill_learned": learned,
            **result.stats.record(),
            **(checks.record(built.proposer) if checks else {}),
        }
        checked = result.stats.verifications + result.stats.candidate_verifications > 0
        stats = result.stats
        return AgentOutcome(
            Ended(result.exit.value, result.turns, stats.limit, stats.model_seconds),
            info=info,
            self_checked=checks is not None and checks.verify is not None and checked,
            checks=checks.verify if checks else None,
            timed_out=result.exit is LoopExit.TIMED_OUT,
            tests_at_end=result.evaluation if built.verify is ctx.verify else None,
        )
