"""Rules on the order of calls: a check between writes, no third read of the same lines, not the
same action a third time."""

from __future__ import annotations

from collections.abc import Sequence

from hillclimber.harness.acting.tools import MAX_LINES, WRITES, ToolCall
from hillclimber.harness.guards.base import Situation, Verdict, worded


def tool_sequence(call: ToolCall, situation: Situation) -> Verdict | None:
    """With `verify_between_writes`: a check between writes, so every change gets feedback.
    Always: a third read of the same lines shows nothing new."""
    if call.name in WRITES and situation.verify_between_writes and _unverified_write(situation):
        return worded("deny", "tool_sequence", situation, ("writes", "writes_suggestion"))
    if call.name == "read_file" and earlier_reads(call, situation) >= 2:
        path = str(call.arguments.get("path", ""))
        return worded("deny", "tool_sequence", situation, ("reads", "reads_suggestion"), path=path)
    return None


def _unverified_write(situation: Situation) -> bool:
    for past in reversed(situation.history):
        if past.name == "verify_progress":
            return False
        if past.name in WRITES:
            return not situation.last_write_failed
    return False


def earlier_reads(call: ToolCall, situation: Situation) -> int:
    """Reads of the same path with overlapping lines since it last changed (a write of it, or
    any command, which may have rewritten it); reading other parts of a long file is fine."""
    path = situation.target(call)
    lines = _line_range(call)
    count = 0
    for past in reversed(situation.history):
        if past.name == "run_command":
            break
        same = situation.target(past) == path
        if past.name in WRITES and same:
            break
        if past.name == "read_file" and same and _overlap(lines, _line_range(past)):
            count += 1
    return count


def _line_range(call: ToolCall) -> tuple[int, int]:
    """The lines a read asked for; one without an end shows one piece from its start, at most
    `MAX_LINES` lines (the next piece it points to may begin before those are over)."""
    start, end = call.arguments.get("start"), call.arguments.get("end")
    first = start if isinstance(start, int) else 1
    return (first, end if isinstance(end, int) else first + MAX_LINES - 1)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def repetition(call: ToolCall, situation: Situation) -> Verdict | None:
    """The same action twice in the last three gives the same result a third time; a write
    in between (other than this very one) can change it, so only calls after it count. Test
    runs change nothing and the loop adds one after every write, so they are not counted
    (except against another test run): three identical writes are caught while climbing too."""
    signature = call.signature()
    counted = _counted(call, situation.history)
    recent = counted[-3:]
    for k in range(len(recent) - 1, -1, -1):
        if recent[k].name in WRITES and recent[k].signature() != signature:
            recent = recent[k + 1 :]
            break
    if sum(past.signature() == signature for past in recent) < 2:
        return None
    return worded("deny", "repetition", situation)


def _counted(call: ToolCall, history: Sequence[ToolCall]) -> list[ToolCall]:
    return [c for c in history if c.name != "verify_progress" or c.name == call.name]
