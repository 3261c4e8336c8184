"""Which tools are offered each turn. With dynamic tools the offer follows the state: after a
write that is not checked by itself, only checking; after a refused read, or an edit of a file
to leave alone, not that tool again until a call runs; when the checks stop improving, no more
looking around — every acting tool, but no read_file (a task done through commands needs
run_command most of all)."""

from __future__ import annotations

from dataclasses import dataclass

from hillclimber.harness.acting.tools import WRITES, ToolSpec, tool_list
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.state import LoopState


@dataclass(frozen=True)
class ToolOffer:
    """The tools a trial may offer, and how each turn's offer follows the state."""

    known: tuple[str, ...]
    """Every tool a turn of the trial may offer: the rules list these, the same all trial."""
    dynamic: bool = False
    sequences_writes: bool = False
    """After a write, only checking (`verify_between_writes` where it applies)."""
    drop_reads_after: int | None = None
    """Turns without improvement after which read_file is not offered."""

    @classmethod
    def of(cls, config: HarnessConfig, *, checks: bool) -> ToolOffer:
        """The offer a setting makes where there are (`checks`) or are not checks to call:
        verify_progress only where there are and they do not run after every change by
        themselves (`auto_verify`: on unseen tasks the 0.5B spent up to 7 of 10 turns asking
        for what it had been shown)."""
        asks = checks and not config.climbing.auto_verify
        return cls(
            known=tuple(n for n in config.tools if n != "verify_progress" or asks),
            dynamic=config.climbing.dynamic_tools,
            sequences_writes=config.sequences_writes(checks=checks),
            drop_reads_after=config.climbing.drop_reads_after,
        )

    def all(self) -> list[ToolSpec]:
        return tool_list(list(self.known))

    def turn(self, state: LoopState) -> list[ToolSpec]:
        """The tools of this turn."""
        names = list(self.known)
        if not self.dynamic:
            return tool_list(names)
        last = state.calls[-1].name if state.calls else None
        if self.sequences_writes and last in WRITES:
            names = [n for n in names if n in ("verify_progress", "task_complete")] or names
        elif (refused := _refused(state)) is not None:
            names = [n for n in names if n != refused] or names
        elif self.drop_reads_after and state.turns_since_improvement >= self.drop_reads_after:
            names = [n for n in names if n != "read_file"] or names
        return tool_list(names)


_LEFT_ALONE = ("protected_files", "inputs_read_only")


def _refused(state: LoopState) -> str | None:
    """The tool not to offer after a refusal, until a call runs: read_file after a refused
    read (the 1.5B asked 7 times more, each refused); edit_file after an edit of a file to
    leave alone (the 0.5B tried up to 13 times to edit the input it was to read)."""
    tool, rule = state.refused_call or ("", "")
    if tool == "read_file" or (tool == "edit_file" and rule in _LEFT_ALONE):
        return tool
    return None
