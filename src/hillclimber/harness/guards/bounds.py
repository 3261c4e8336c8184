"""Writes stay in the task's folder: a file tool's path, and every file a command would write
(redirects, `cp`/`mv` targets, `touch`, `rm`, `dd of=`…) wherever it hides in the command line.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from hillclimber.harness.acting.tools import WRITES, ToolCall
from hillclimber.harness.guards.base import Situation, Verdict, deny
from hillclimber.sandbox.base import APP, TMP
from hillclimber.shell.command import Command, inside
from hillclimber.shell.writes import written_paths


def workspace_bounds(call: ToolCall, situation: Situation) -> Verdict | None:
    """Writes stay in the task's places (its working folder and the outputs it names;
    commands may also use /tmp): anything written elsewhere is lost to the tests, or damages
    the system the tests run on."""
    workdir = situation.workdir
    if call.name in WRITES:
        raw = str(call.arguments.get("path", ""))
        path = situation.target(call)
        if not inside(path, situation.places()):
            instead = (
                "It is an input: read it, and write what the task asks for where it says."
                if situation.read(path) is not None
                else f"Write the task's files under {workdir}, e.g. "
                f"{posixpath.join(workdir, posixpath.basename(path))}."
            )
            return deny("workspace_bounds", f"{raw} is outside {workdir}", instead)
    if call.name == "run_command":
        script = str(call.arguments.get("command", ""))
        found = next(command_writes(script, situation.places()), None)
        if found is not None:
            return deny(
                "workspace_bounds",
                f"`{found[0].name}` would change {found[1]}, outside {workdir} and {TMP}",
                f"Create, change and delete files only under {workdir} (or {TMP} for scratch "
                "files).",
            )
    return None


def command_writes(script: str, places: tuple[str, ...] = (APP,)) -> Iterator[tuple[Command, str]]:
    """(command, path) for every path a command would write outside the task's places and
    /tmp."""
    for cmd, path in written_paths(script):
        if path is not None and not inside(path, (*places, TMP)):
            yield cmd, path
