"""Guards: rules checked before a proposed call runs. Each rule looks at the call and the
`Situation` and returns one `Verdict` (allow, warn, deny with a reason and a suggestion, or
redirect to another call); the first denial wins. The loop handles every verdict in one place:
a denial is fed back to the model instead of running the call, a warning is shown and the call
runs, a redirect runs its call in place of the model's and says so. See docs/loop.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.guards.base import ALLOW, Rule, Situation, Verdict, plain_path
from hillclimber.harness.guards.bounds import workspace_bounds
from hillclimber.harness.guards.danger import dangerous_commands
from hillclimber.harness.guards.files import inputs_read_only, no_write_to_protected, overwrites
from hillclimber.harness.guards.rereading import rereading
from hillclimber.harness.guards.sequence import repetition, tool_sequence
from hillclimber.harness.guards.submit import test_before_submit

__all__ = ["ALLOW", "RULES", "Guards", "Situation", "Verdict", "plain_path"]

RULES: dict[str, Rule] = {
    "protected_files": no_write_to_protected,
    "inputs_read_only": inputs_read_only,
    "overwrites": overwrites,
    "rereading": rereading,
    "tool_sequence": tool_sequence,
    "workspace_bounds": workspace_bounds,
    "dangerous_commands": dangerous_commands,
    "repetition": repetition,
    "test_before_submit": test_before_submit,
}
"""Every rule, in the order they run."""


class Guards:
    """The chosen rules, run in `RULES` order."""

    def __init__(self, rules: Iterable[str] = RULES) -> None:
        chosen = set(rules)
        unknown = chosen - set(RULES)
        if unknown:
            raise ValueError(f"unknown guard rules: {sorted(unknown)}; known: {list(RULES)}")
        self.rules = tuple(name for name in RULES if name in chosen)

    def verdicts(self, call: ToolCall, situation: Situation) -> list[Verdict]:
        """The warnings and the denial or redirect (at most one, last) the rules give; []
        means allowed."""
        found: list[Verdict] = []
        for name in self.rules:
            verdict = RULES[name](call, situation)
            if verdict is None:
                continue
            found.append(verdict)
            if verdict.action != "warn":
                break
        return found

    def decide(self, call: ToolCall, situation: Situation) -> Verdict:
        """The denial or redirect, else the first warning, else allow."""
        found = self.verdicts(call, situation)
        final = [v for v in found if v.action != "warn"]
        return (final or found or [ALLOW])[0]
