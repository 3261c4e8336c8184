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

It may be asked as a short Python program instead, and the prompt shows the input files' first
lines (`ask.code`, `harness/programs.py`).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.asking import Asker
from hillclimber.harness.climbing.candidate import Candidate
from hillclimber.harness.completion.agreement import CODE, command_in, unredirected
from hillclimber.harness.programs import CodeAsk, is_program, named, run_program, said
from hillclimber.harness.prompting.summary import clip

SYSTEM = (
    "You work a task's answer out from its input files with one shell command. Reply with the"
    " command only."
)
PROGRAM_SYSTEM = (
    "You work a task's answer out from its input files with a short Python 3 program. Reply"
    " with the program only."
)
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
    code: CodeAsk = field(default_factory=CodeAsk)
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
        answer = self._ask(path, turn)
        source = self.code.source(answer)
        command = _command(answer) if not source else ""  # a command where one came instead
        if not source and not command:
            self.why = f"answer held no {self.code.what}"
            return None
        run = run_program(source, path) if source else into(command, path)
        return ToolCall(name="run_command", arguments={"command": run})

    def learn(self, candidate: Candidate, passing: int) -> None:
        """What the tried command showed, for the next ask (nothing when it gained)."""
        run = str(candidate.call.arguments.get("command", ""))
        ran = named(run if is_program(run) else unredirected(run))
        if not candidate.success:
            told = said(_told(candidate.output), program=is_program(run))
            self.why = f"{ran} failed" + (f": {told}" if told else "")
        elif candidate.passing <= passing or candidate.passing < candidate.total:
            failing = f": {clip(candidate.failing, 200)}" if candidate.failing else ""
            self.why = f"{ran} printed what fails the checks{failing}"
        else:
            self.why = ""

    def _ask(self, path: str, turn: int) -> str:
        code = self.code
        again = f"\nYour last {self.why}. Write a better {code.what}." if self.why else ""
        system, sent = (
            (PROGRAM_SYSTEM, f"its output is written to {path} for you")
            if code.program
            else (SYSTEM, f"it is written to {path} for you")
        )
        prompt = (
            f"Task:\n{clip(self.instruction, 1500)}{code.shown()}\n\n"
            f"Write {code.one} that works out from the task's input files what {path} should"
            f" hold, and prints exactly that ({sent}). Reply with the {code.what} only.{again}"
        )
        return self.asker.apart(system, prompt, role="compute", turn=turn,
                                max_tokens=code.max_tokens, stuck=bool(self.why))  # fmt: skip


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
