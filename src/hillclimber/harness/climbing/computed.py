"""A computed answer: one small question apart from the loop — one shell command that prints
what the answer file should hold, worked out from the task's input — and that command, its
output sent to the answer file, tried as a candidate like any other: climbing applies it only
if the checks gain, and the model sees what it did.

A tiny model asked to act in a loop writes a result by hand (made-up rows for a database
query, the input's lines for a count); asked for nothing but the command, it often writes a
working one (mini-33: the 0.5B's own answers to the shop query were invented names, while the
one SQL query it wrote when asked apart held the right customers and totals). Each ask after
the first says what was wrong with the last command (it failed, printed nothing, or what it
printed failed the checks), at the temperature for a stuck turn. At most `asks` a trial.

It may be asked as a short Python program instead, and the prompt shows the input files' first
lines (`ask.code`, `harness/programs.py`). Where the task asks for a Python script that writes
the answer file (`writes`), the program is that script: saved there, it writes the file itself.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.asking import Asker
from hillclimber.harness.checks.text import sentences
from hillclimber.harness.climbing.candidate import Candidate
from hillclimber.harness.programs import (
    CodeAsk,
    is_program,
    named,
    run_program,
    said,
    save_and_run,
)
from hillclimber.harness.prompting.templates import Prompts
from hillclimber.sandbox import APP
from hillclimber.shell.answer import command_in, unredirected
from hillclimber.text import clip

CODE = (".py", ".sh", ".bash", ".c", ".h", ".cpp", ".js", ".ts", ".go", ".rs", ".java", ".rb",
        ".pl", ".r", ".R", ".yml", ".yaml", ".toml", ".ini", ".conf", ".cfg", ".html", ".xml",
        ".sql", ".md", ".mk")  # fmt: skip
"""Files written rather than computed: a command would not print them."""
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
    workdir: str = APP
    asked: int = 0
    why: str = ""
    """What was wrong with the last command, for the next ask."""

    @property
    def path(self) -> str | None:
        return next((p for p in self.answers if not p.endswith(CODE)), None)

    @cached_property
    def script(self) -> str | None:
        """The Python script the task asks for that writes the answer file (`writes`), where a
        program is asked for: the program is saved as it and writes the answer file itself
        (the task's tests run the script; the 1.5B wrote the answer by hand, never the
        script)."""
        path = self.path
        if not self.code.program or path is None:
            return None
        scripts = [p for p in self.answers if p.endswith(".py")]
        return next((p for p in scripts if writes(self.instruction, p, path, self.workdir)), None)

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
            self.why = self.say("compute.held_none", what=self.what)
            return None
        if source and self.script:
            run = save_and_run(source, self.script)
        else:
            run = run_program(source, path) if source else into(command, path)
        return ToolCall(name="run_command", arguments={"command": run})

    def learn(self, candidate: Candidate, passing: int) -> None:
        """What the tried command showed, for the next ask (nothing when it gained)."""
        run = str(candidate.call.arguments.get("command", ""))
        ran = named(run if is_program(run) else unredirected(run))
        if not candidate.success:
            told = said(_told(candidate.output), program=is_program(run), prompts=self.say)
            why = "compute.failed_said" if told else "compute.failed"
            self.why = self.say(why, ran=ran, told=told)
        elif candidate.passing <= passing or candidate.passing < candidate.total:
            why = "compute.wrong_said" if candidate.failing else "compute.wrong"
            self.why = self.say(why, ran=ran, failing=clip(candidate.failing, 200))
        else:
            self.why = ""

    @property
    def say(self) -> Prompts:
        return self.asker.prompts

    @property
    def what(self) -> str:
        """The thing asked for, in the question's words."""
        return self.say(f"compute.{self.code.what}_what")

    def _ask(self, path: str, turn: int) -> str:
        code, say = self.code, self.say
        if self.script:
            does = say("compute.script", path=path, script=self.script)
        else:
            does = say("compute.prints", sent=say(f"compute.{code.what}_sent", path=path))
        ask = say("compute.ask", one=say(f"compute.{code.what}_one"), path=path, does=does,
                  what=self.what)  # fmt: skip
        if self.why:
            ask += "\n" + say("compute.again", why=self.why, what=self.what)
        task = say("compute.task", instruction=clip(self.instruction, 1500))
        system = say("compute.program_system" if code.program else "compute.system")
        prompt = f"{task}{code.shown(say)}\n\n{ask}"
        return self.asker.apart(system, prompt, role="compute", turn=turn,
                                max_tokens=code.max_tokens, stuck=bool(self.why))  # fmt: skip


_WRITING = re.compile(
    r"\b(?:it|that|which|script|program)\s+(?:\w+\s+)?"
    r"(?:writes?|saves?|outputs?|generates?|produces?|creates?|stores?)\b",
    re.I,
)
"""The script as the one writing: "that writes", "ensure it generates", "it also saves"."""
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")


def writes(instruction: str, script: str, path: str, workdir: str = APP) -> bool:
    """Whether the instruction says the script writes `path`: in one line, the script named
    first and then as the one writing ("save it in solve.py and ensure it generates
    solutions.json"), or `path` in a list item under a line about the script that opens the
    list ("The script must:" … "- Write results to results.txt"). Not a report made after
    the script ("After creating X.py, save a report to perf.json")."""
    opener = ""
    for line, paths in _lines(instruction, workdir):
        item = _ITEM.match(line) is not None
        if not item:
            opener = line if line.rstrip().endswith(":") else ""
        if path not in paths:
            continue
        if script in paths and _WRITING.search(line.split(posixpath.basename(script), 1)[-1]):
            return True
        about = _named(opener, [script]) or re.search(r"\b(?:script|program)\b", opener)
        if item and about:
            return True
    return False


def _lines(instruction: str, workdir: str) -> list[tuple[str, list[str]]]:
    """Each line of the instruction's sentences, with the paths it names."""
    found = []
    for sentence in sentences(instruction, workdir):
        for line in sentence.text.splitlines():
            found.append((line, _named(line, sentence.paths)))
    return found


def _named(line: str, paths: Sequence[str]) -> list[str]:
    """Those of `paths` that `line` names (whole, or by file name)."""
    return [p for p in paths if p in line or posixpath.basename(p) in line]


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
