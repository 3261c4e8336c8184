"""Writes stay in the task's folder: a file tool's path, and every file a command would write
(redirects, `cp`/`mv` targets, `touch`, `rm`, `dd of=`…) wherever it hides in the command line.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from hillclimber.harness.acting.tools import WRITES, ToolCall
from hillclimber.harness.guards.base import Situation, Verdict, worded
from hillclimber.sandbox.base import APP, TMP
from hillclimber.shell.command import Command, inside
from hillclimber.shell.writes import written_paths

RULE = "workspace_bounds"


def workspace_bounds(call: ToolCall, situation: Situation) -> Verdict | None:
    """Writes stay in the task's places (its working folder and the outputs it names;
    commands may also use /tmp): anything written elsewhere is lost to the tests, or damages
    the system the tests run on."""
    workdir = situation.workdir
    if call.name in WRITES:
        raw = str(call.arguments.get("path", ""))
        path = situation.target(call)
        if not inside(path, situation.places()):
            keys = ("outside", "input" if situation.read(path) is not None else "write_under")
            example = posixpath.join(workdir, posixpath.basename(path))
            return worded("deny", RULE, situation, keys, path=raw, workdir=workdir, example=example)
    if call.name == "run_command":
        script = str(call.arguments.get("command", ""))
        found = next(command_writes(script, situation.places()), None)
        if found is not None:
            command, path = found[0].name, found[1]
            keys = ("command", "command_suggestion")
            return worded(
                "deny", RULE, situation, keys, command=command, path=path, workdir=workdir, tmp=TMP
            )
    return None


def command_writes(script: str, places: tuple[str, ...] = (APP,)) -> Iterator[tuple[Command, str]]:
    """(command, path) for every path a command would write outside the task's places and
    /tmp."""
    for cmd, path in written_paths(script):
        if path is not None and not inside(path, (*places, TMP)):
            yield cmd, path
