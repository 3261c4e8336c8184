"""A read of lines read before, unchanged since, shows nothing new: the harness reads a file
the task names and the model has not read in its place.

The 1.5B read a file it had just read, unchanged, 67 times in 58 of the first 96 tasks of the
TermiGen dev split (135 of its 287 reads were of lines it had read, unchanged since), while
the task named files it never read: on a replica-set task it read the first member's
configuration three times and never the election log the plan's step was about. Where every
file the task names has been read, the read runs as asked (`tool_sequence` refuses a third).
"""

from __future__ import annotations

import posixpath

from hillclimber.harness.acting.tools import WRITES, ToolCall
from hillclimber.harness.guards.base import Situation, Verdict, worded
from hillclimber.harness.guards.sequence import earlier_reads
from hillclimber.harness.prompting.shown import shown_whole


def rereading(call: ToolCall, situation: Situation) -> Verdict | None:
    """A read of unchanged lines read before becomes a read of a file the task names and the
    model has not read (first one the prompt cannot show whole)."""
    if call.name != "read_file" or earlier_reads(call, situation) == 0:
        return None
    again = situation.target(call)
    other = _unread(situation, again)
    if other is None:
        return None
    instead = ToolCall(name="read_file", arguments={"path": other})
    return worded("redirect", "rereading", situation, instead=instead, path=again, other=other)


def _unread(situation: Situation, again: str) -> str | None:
    """The first text file the instruction names that no call has read, written or named, nor
    is an answer file; a file the prompt shows cut (`shown.shown_whole`) before one shown
    whole. (A file the model wrote holds its own words: on TB2 the 1.5B, reading a README
    that was not there, was shown the number it had just written in its answer file.)"""
    seen = {
        situation.target(past)
        for past in situation.history
        if past.name == "read_file" or past.name in WRITES
    }
    commands = [str(c.arguments.get("command", "")) for c in situation.history]
    fresh: list[tuple[bool, str]] = []
    for path in dict.fromkeys(situation.named):
        if path in seen or path == again or path in situation.answers:
            continue
        if any(_names(command, path) for command in commands):
            continue
        text = situation.read(path)
        if text is not None and text.strip():
            fresh.append((shown_whole(text), path))
    return min(fresh, key=lambda item: item[0])[1] if fresh else None


def _names(command: str, path: str) -> bool:
    """Whether a command names the file (by its path, or by its name after a `cd`)."""
    return path in command or posixpath.basename(path) in command.split()
