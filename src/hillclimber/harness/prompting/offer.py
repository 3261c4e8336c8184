"""Which tools are offered each turn. With dynamic tools the offer follows the state: after a
write that is not checked by itself, only checking; when the checks stop improving, or a read
was refused, no more looking around — every acting tool, but no read_file (a task done through
commands needs run_command most of all)."""

from __future__ import annotations

from hillclimber.harness.acting.tools import WRITES, ToolSpec, tool_list
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.state import LoopState


def offered_tools(config: HarnessConfig, state: LoopState, *, checks: bool) -> list[ToolSpec]:
    """The tools of this turn; verify_progress only where there are checks and they do not run
    after every change by themselves (`auto_verify`: on unseen tasks the 0.5B spent up to 7
    of 10 turns asking for what it had been shown)."""
    asks = checks and not config.climbing.auto_verify
    names = [n for n in config.tools if n != "verify_progress" or asks]
    if not config.climbing.dynamic_tools:
        return tool_list(names)
    last = state.calls[-1].name if state.calls else None
    no_progress = config.completion.no_progress_turns
    if config.sequences_writes(checks=checks) and last in WRITES:
        names = [n for n in names if n in ("verify_progress", "task_complete")] or names
    elif state.refused_tool == "read_file" or (
        no_progress and state.turns_since_improvement >= max(no_progress // 2, 2)
    ):  # a read refused last turn: the 1.5B asked for it 7 times more, each refused
        names = [n for n in names if n != "read_file"] or names
    return tool_list(names)
