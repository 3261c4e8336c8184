"""Small models declare victory untested: a warning (not a denial) when nothing was checked
since the last change."""

from __future__ import annotations

from hillclimber.harness.acting.tools import WRITES, ToolCall
from hillclimber.harness.guards.base import Situation, Verdict, worded
from hillclimber.sandbox.base import APP
from hillclimber.shell.command import Command, program
from hillclimber.shell.reader import commands


def test_before_submit(call: ToolCall, situation: Situation) -> Verdict | None:
    if call.name != "task_complete":
        return None
    for past in reversed(situation.history):
        if past.name == "verify_progress" or (
            past.name == "run_command" and is_check(str(past.arguments.get("command", "")))
        ):
            return None
        if past.name in WRITES:
            break
    return worded("warn", "test_before_submit", situation)


_LOOKS = frozenset(
    {"pytest", "py.test", "cat", "head", "tail", "wc", "diff", "cmp", "test", "[", "grep"}
)
_TEST_RUNNERS = frozenset({"npm", "yarn", "pnpm", "cargo", "go", "dotnet", "mvn", "gradle"})


def is_check(script: str) -> bool:
    """Whether a command looks at the result: tests, running the program, reading output."""
    return any(_checks(cmd) for cmd in commands(script))


def _checks(cmd: Command) -> bool:
    name, rest = cmd.name, cmd.args[1:]
    if name in _LOOKS:
        return not cmd.redirects or name == "pytest"
    if name == "make":
        return bool({"test", "check"} & set(rest))
    if name in _TEST_RUNNERS:
        return "test" in rest
    source = program(cmd)
    if source is not None:
        return source[0] != "stdin" and source[1] not in ("pip", "ensurepip", "venv")
    return bool(cmd.args) and cmd.args[0].startswith(("./", APP + "/"))
