"""Does nothing: every task must fail under it (a check that tests are not trivially true)."""

from __future__ import annotations

from hillclimber.agents.base import AgentOutcome
from hillclimber.context import AgentContext


class NopAgent:
    name = "nop"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        return AgentOutcome()
