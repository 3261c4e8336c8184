"""Which tools are offered each turn. With dynamic tools the offer follows the state: after a
write that is not checked by itself, only checking; after a refused read, or an edit of a file
to leave alone, not that tool again until a call runs; when the checks stop improving, no more
looking around — every acting tool, but no read_file (a task done through commands needs
run_command most of all)."""

from __future__ import annotations

from hillclimber.harness.acting.tools import WRITES, ToolSpec, tool_list
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.state import LoopState


def offered_tools(config: HarnessConfig, state: LoopState, *, checks: bool) -> list[ToolSpec]:
    """The tools of this turn; verify_progress only where there are checks and they do not run
    after every change by themselves (`auto_verify`: on unseen tasks the 0.5B spent up to 7
    of 10 turns asking for what it had been shown)."""
    names = [t.name for t in known_tools(config, checks=checks)]
    if not config.climbing.dynamic_tools:
        return tool_list(names)
    last = state.calls[-1].name if state.calls else None
    no_progress = config.completion.no_progress_turns
    if config.sequences_writes(checks=checks) and last in WRITES:
        names = [n for n in names if n in ("verify_progress", "task_complete")] or names
    elif (refused := _refused(state)) is not None:
        names = [n for n in names if n != refused] or names
    elif no_progress and state.turns_since_improvement >= max(no_progress // 2, 2):
        names = [n for n in names if n != "read_file"] or names
    return tool_list(names)


def known_tools(config: HarnessConfig, *, checks: bool) -> list[ToolSpec]:
    """Every tool a turn of the trial may offer: the rules list these, the same all trial."""
    asks = checks and not config.climbing.auto_verify
    return tool_list([n for n in config.tools if n != "verify_progress" or asks])


_LEFT_ALONE = ("protected_files", "inputs_read_only")


def _refused(state: LoopState) -> str | None:
    """The tool not to offer after a refusal, until a call runs: read_file after a refused
    read (the 1.5B asked 7 times more, each refused); edit_file after an edit of a file to
    leave alone (the 0.5B tried up to 13 times to edit the input it was to read)."""
    tool, rule = state.refused_call or ("", "")
    if tool == "read_file" or (tool == "edit_file" and rule in _LEFT_ALONE):
        return tool
    return None
