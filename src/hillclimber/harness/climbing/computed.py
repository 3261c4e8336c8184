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

It may be asked as a short Python program instead (`climbing.compute_with`): a 1.5B's
one-liners joined loops and `with` blocks by `;` (a syntax error) or lost their quotes in
nested f-strings; a program of several lines has room for them. The program runs from a
here-document, so nothing is left in the workspace. Either way the prompt shows the first lines
of the input files, whose columns and separators the command must know.
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
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import is_binary, read_bytes

SYSTEM = (
    "You work a task's answer out from its input files with one shell command. Reply with the"
    " command only."
)
PROGRAM_SYSTEM = (
    "You work a task's answer out from its input files with a short Python 3 program. Reply"
    " with the program only."
)
MAX_COMMAND_TOKENS = 256
MAX_PROGRAM_TOKENS = 384
HEAD_LINES, HEAD_CHARS = 5, 400
"""How much of each input file the prompt shows."""
_END = "HILLCLIMBER_PROGRAM"
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
    program: bool = False
    """Ask for a Python program (run with python3) instead of a shell command."""
    heads: str = ""
    """The first lines of the input files (`input_heads`)."""
    modules: str = ""
    """For a program: which common modules python3 has (`acting/probe.py`)."""
    asked: int = 0
    why: str = ""
    """What was wrong with the last command, for the next ask."""

    @property
    def what(self) -> str:
        return "program" if self.program else "command"

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
        source = program_in(answer) if self.program else ""
        command = _command(answer) if not source else ""  # a command where one came instead
        if not source and not command:
            self.why = f"answer held no {self.what}"
            return None
        run = run_program(source, path) if source else into(command, path)
        return ToolCall(name="run_command", arguments={"command": run})

    def learn(self, candidate: Candidate, passing: int) -> None:
        """What the tried command showed, for the next ask (nothing when it gained)."""
        run = str(candidate.call.arguments.get("command", ""))
        ran = "program" if _END in run else f"command `{clip(unredirected(run), 120)}`"
        if not candidate.success:
            said = _said(candidate.output, last=_END in run)
            self.why = f"{ran} failed" + (f": {said}" if said else "")
        elif candidate.passing <= passing or candidate.passing < candidate.total:
            failing = f": {clip(candidate.failing, 200)}" if candidate.failing else ""
            self.why = f"{ran} printed what fails the checks{failing}"
        else:
            self.why = ""

    def _ask(self, path: str, turn: int) -> str:
        again = f"\nYour last {self.why}. Write a better {self.what}." if self.why else ""
        heads = f"\n\nThe input files begin:\n{self.heads}" if self.heads else ""
        if self.program:
            modules = f"{self.modules}\n" if self.modules else ""
            system, tokens, ask = PROGRAM_SYSTEM, MAX_PROGRAM_TOKENS, (
                f"{modules}Write a short Python 3 program that reads the task's input files, works"
                f" out what {path} should hold, and prints exactly that (its output is written to"
                f" {path} for you). Reply with the program only.")  # fmt: skip
        else:
            system, tokens, ask = SYSTEM, MAX_COMMAND_TOKENS, (
                f"Write ONE shell command that works out from the task's input files what {path}"
                f" should hold, and prints exactly that (it is written to {path} for you)."
                " Reply with the command only.")  # fmt: skip
        prompt = f"Task:\n{clip(self.instruction, 1500)}{heads}\n\n{ask}{again}"
        return self.asker.apart(system, prompt, role="compute", turn=turn, max_tokens=tokens,
                                stuck=bool(self.why))  # fmt: skip


def input_heads(sandbox: Sandbox, paths: Sequence[str], most: int = 4) -> str:
    """`--- path ---` and the first lines of each input file that is text (of `most`)."""
    blocks = []
    for path in list(paths)[:most]:
        head = read_bytes(sandbox, path, limit=HEAD_CHARS * 4)  # of a file of any size
        if head and not is_binary(head):
            text = first_lines(head.decode(errors="replace"), HEAD_LINES, HEAD_CHARS)
            blocks.append(f"--- {path} ---\n{text}")
    return "\n".join(blocks)


_PYTHON_FENCE = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)


def program_in(answer: str) -> str:
    """The program of an answer: its fenced block (closed or not; run even where it does not
    compile, so the error is said), else the answer itself where it compiles as Python; ""
    else (prose, or a command in a shell fence)."""
    fenced = _PYTHON_FENCE.search(answer)
    source = (fenced.group(1) if fenced else answer).strip("\n")
    if not source.strip() or _END in source:
        return ""
    if fenced:
        return source
    try:
        compile(source, "<answer>", "exec")
    except (SyntaxError, ValueError):
        return ""
    return source


def run_program(source: str, path: str) -> str:
    """A command that runs `source` with python3, its output sent to `path`."""
    return f"python3 - > {shlex.quote(path)} <<'{_END}'\n{source}\n{_END}"


def _said(output: str, *, last: bool) -> str:
    """A failed command's first line of what it said; a program's last (the traceback's
    error)."""
    told = _told(output).strip()
    if last:
        return clip(told.splitlines()[-1], 160) if told else ""
    return first_lines(told, 1, 160)


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
