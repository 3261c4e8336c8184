"""Rules that keep a small model from destroying files: the ones the task says to leave alone,
the data it only reads, and most of an existing file replaced by a write meant as a change."""

from __future__ import annotations

from hillclimber.harness.acting.tools import WRITES, ToolCall
from hillclimber.harness.guards.base import Situation, Verdict, worded
from hillclimber.shell.writes import written_paths


def no_write_to_protected(call: ToolCall, situation: Situation) -> Verdict | None:
    """No write to a file the task says not to change ("Do not change /app/source.txt")."""
    if call.name not in WRITES or (target := situation.target(call)) not in situation.protected:
        return None
    instead = situation.write_instead()
    return worded("deny", "protected_files", situation, path=target, write_instead=instead)


def inputs_read_only(call: ToolCall, situation: Situation) -> Verdict | None:
    """A write to a data file the task only reads (`Situation.inputs`) is refused once: small
    models edit the log they were asked to analyse, and the tests read it after them. The same
    call asked again goes through (the reading of the instruction may be wrong)."""
    if not situation.inputs or ("inputs_read_only", call.signature()) in situation.refused:
        return None
    if call.name in WRITES:
        touched = [situation.target(call)]
    elif call.name == "run_command":
        script = str(call.arguments.get("command", ""))
        touched = [path for _, path in written_paths(script) if path is not None]
    else:
        return None
    hit = next((path for path in touched if path in situation.inputs), None)
    if hit is None:
        return None
    instead = situation.write_instead()
    return worded("deny", "inputs_read_only", situation, path=hit, write_instead=instead)


def overwrites(call: ToolCall, situation: Situation) -> Verdict | None:
    """A write_file that would drop most lines of an existing file is refused once (small
    models overwrite files they were asked to change, and lose the rest); the same write asked
    again goes through. Off while climbing: there the checks judge what a write destroys."""
    if call.name != "write_file" or situation.climbing:
        return None
    if ("overwrites", call.signature()) in situation.refused:
        return None
    loss = lost_lines(situation.read(situation.target(call)), str(call.arguments.get("content")))
    if loss is None:
        return None
    path = call.arguments.get("path")
    return worded("deny", "overwrites", situation, lost=loss[0], lines=loss[1], path=path)


def lost_lines(old_text: str | None, new_text: str) -> tuple[int, int] | None:
    """(lines of `old_text` that `new_text` drops, old line count) when most of at least three
    non-blank lines would go; None otherwise."""
    if old_text is None:
        return None
    old = [line for line in old_text.splitlines() if line.strip()]
    new = set(new_text.splitlines())
    lost = sum(1 for line in old if line not in new)
    return (lost, len(old)) if len(old) >= 3 and lost * 2 > len(old) else None
