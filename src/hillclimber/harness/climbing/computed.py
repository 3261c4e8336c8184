"""A computed answer: one small question apart from the loop — one shell command that prints
what the answer file should hold, worked out from the task's input — and that command, its
output sent to the answer file, tried as a candidate like any other: climbing applies it only
if the checks gain, and the model sees what it did.

A tiny model asked to act in a loop writes a result by hand (made-up rows for a database
query, the input's lines for a count); asked for nothing but the command, it often writes a
working one (mini-33: the 0.5B's own answers to the shop query were invented names, while the
one SQL query it wrote as a second answer held the right customers and totals). Each ask after
the first says what was wrong with the last command (it failed, printed nothing, or what it
printed failed the checks), at the temperature for a stuck turn. At most `asks` a trial.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.asking import Asker
from hillclimber.harness.climbing.candidate import Candidate
from hillclimber.harness.completion.agreement import CODE, command_in, unredirected
from hillclimber.harness.prompting.summary import clip, first_lines

SYSTEM = (
    "You work a task's answer out from its input files with one shell command. Reply with the"
    " command only."
)
MAX_COMMAND_TOKENS = 256
_SEVERAL = re.compile(r"[;\n]|&&|\|\|")
"""A command of several parts: its output is sent to the file only when grouped."""


@dataclass
class Computer:
    """Asks for commands that compute the first answer file the checks name (`answers`: the
    new files, in the order the instruction names them; a program or a configuration is
    written, not computed)."""

    asker: Asker
    instruction: str
    answers: Sequence[str]
    asks: int = 3
    asked: int = 0
    why: str = ""
    """What was wrong with the last command, for the next ask."""

    @property
    def path(self) -> str | None:
        return next((p for p in self.answers if not p.endswith(CODE)), None)

    def call(self, turn: int) -> ToolCall | None:
        """A run_command that writes a computed answer to the answer file, or None (no asks
        left, no answer file, no command in the answer)."""
        path = self.path
        if path is None or self.asked >= self.asks:
            return None
        self.asked += 1
        command = _command(self._ask(path, turn))
        if not command:
            self.why = "answer held no command"
            return None
        return ToolCall(name="run_command", arguments={"command": into(command, path)})

    def learn(self, candidate: Candidate, passing: int) -> None:
        """What the tried command showed, for the next ask (nothing when it gained)."""
        command = clip(unredirected(str(candidate.call.arguments.get("command", ""))), 120)
        if not candidate.success:
            said = first_lines(_told(candidate.output), 1, 160)
            self.why = f"command `{command}` failed" + (f": {said}" if said else "")
        elif candidate.passing <= passing or candidate.passing < candidate.total:
            failing = f": {clip(candidate.failing, 200)}" if candidate.failing else ""
            self.why = f"command `{command}` printed what fails the checks{failing}"
        else:
            self.why = ""

    def _ask(self, path: str, turn: int) -> str:
        again = f"\nYour last {self.why}. Write a better command." if self.why else ""
        prompt = (
            f"Task:\n{clip(self.instruction, 1500)}\n\n"
            f"Write ONE shell command that works out from the task's input files what {path}"
            f" should hold, and prints exactly that (it is written to {path} for you)."
            f" Reply with the command only.{again}"
        )
        return self.asker.apart(SYSTEM, prompt, role="compute", turn=turn,
                                max_tokens=MAX_COMMAND_TOKENS, stuck=bool(self.why))  # fmt: skip


def _told(output: str) -> str:
    """What a command said, without the status line the tool puts first (`[exit code 1]`),
    unless that is all there is."""
    lines = output.strip().splitlines()
    rest = lines[1:] if lines and lines[0].startswith("[") and lines[0].endswith("]") else lines
    return "\n".join(rest or lines)


def _command(answer: str) -> str:
    """The command of an answer; a small model used to tool calls may answer with one (its
    run_command's command is the command; another tool's call holds none)."""
    try:
        call = json.loads(answer)
    except ValueError:
        call = None
    if not isinstance(call, dict):
        return command_in(answer)
    arguments = call.get("arguments")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    return command.strip() if isinstance(command, str) else ""


def into(command: str, path: str) -> str:
    """`command` with its output sent to `path` (grouped where it has several parts)."""
    command = _REDIRECTED.sub("", command.strip())
    target = shlex.quote(path)
    return f"{{ {command}; }} > {target}" if _SEVERAL.search(command) else f"{command} > {target}"


_REDIRECTED = re.compile(r"\s+>>?\s*\S+\s*$")
"""A command that writes a file itself (`… > out.txt`): the harness sends its output to the
answer file instead."""
