"""Independent agreement: a second answer to the same question, obtained another way.

When the harness's own checks pass but none shows the values are right (only form or weak
checks), the answer file could hold anything of the right shape. The harness then asks the
model one small question apart from the loop — one shell command (or a short Python program,
`ask.code`) that works the answer out again from the task's input, without reading the answer
file, and prints it — runs it with the answer file gone and the workspace and answer files put
back afterwards, and compares what it prints (or, printing nothing, wrote to the answer file)
with the file:
- they agree: value evidence; the trial ends `agreed`;
- they differ: a failing check, shown to the model with both answers, that fails for as long
  as the answer file holds what the second answer disagreed with (`counted`: climbing sees a
  change of the answer as a gain, and a done-signal on it fails);
- no usable second answer (no command, an error, nothing printed, the answer file read, a
  command the model already ran, one that only echoes a text written into it, one whose
  output fails the checks the answer passes): the model is asked once more, told why; if that
  one is no better, nothing is learnt, and the gate goes on as without it.

Each content of the answer file is judged once. Once `max_asks` are spent, a new content is
judged by the last command that disagreed, run again without asking. An answer that says what
a disagreeing command printed (shown to the model) was made by that command: it is no second
way to that answer, so another one is asked for, and once the asks are spent nothing is
learnt (one computation agreeing with itself is no evidence).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field

from hillclimber.harness.asking import Asker
from hillclimber.harness.checks.base import digest
from hillclimber.harness.climbing.workspace import kept_files
from hillclimber.harness.completion.same_answer import laid_out_as, same
from hillclimber.harness.programs import CodeAsk, is_program, named, run_program, said
from hillclimber.harness.prompting.summary import clip, first_lines
from hillclimber.harness.recording.events import SecondAnswer
from hillclimber.sandbox import Sandbox, run_within
from hillclimber.sandbox.files import read_bytes, read_text
from hillclimber.shell.reader import commands
from hillclimber.verify.verifier import Evaluation

SYSTEM = (
    "You check an answer by working it out again in another way. Reply with one shell command"
    " and nothing else."
)
PROGRAM_SYSTEM = (
    "You check an answer by working it out again in another way. Reply with one short Python 3"
    " program and nothing else."
)
MAX_CHARS = 2000
"""An answer file longer than this is not a computed result to compare."""
MAX_LINES = 40
CODE = (".py", ".sh", ".bash", ".c", ".h", ".cpp", ".js", ".ts", ".go", ".rs", ".java", ".rb",
        ".pl", ".r", ".R", ".yml", ".yaml", ".toml", ".ini", ".conf", ".cfg", ".html", ".xml",
        ".sql", ".md", ".mk")  # fmt: skip
"""Files written rather than computed: a second program would not print them."""


@dataclass(frozen=True)
class Verdict:
    path: str
    command: str
    printed: str
    held: str
    agrees: bool

    def feedback(self) -> str:
        """What the model is told of a disagreement: both answers line by line (flattened
        into one line, three lines of the second answer were copied as one line)."""
        return (
            f"A second computation disagrees with {self.path}: the {named(self.command)}"
            f" printed:\n{_shown(self.printed)}\nbut {self.path} holds:\n{_shown(self.held)}\n"
            f"One of them is wrong: work out which, fix {self.path} if it is, then call"
            " task_complete."
        )


def _shown(text: str, lines: int = 8, chars: int = 400) -> str:
    body = text.strip("\n")
    kept = first_lines(body, lines, chars)
    return kept + ("\n…" if len(kept) < len(body) else "")


@dataclass
class Agreement:
    """Asks for, runs and compares second answers for the files the checks name as the
    answer (`answers`: new files, in the order the instruction names them)."""

    asker: Asker
    instruction: str
    sandbox: Sandbox
    workdir: str
    answers: Sequence[str]
    keep: Callable[[], AbstractContextManager[object]] | None
    """Puts the workspace back after the second command; None: it is too big to, and no
    command is run."""
    checks: Callable[[], Evaluation] | None = None
    """The harness's own checks: a second answer that disagrees must pass them as the answer
    does, else it is no answer at all."""
    max_asks: int = 3
    tries: int = 2
    """Questions for one content of the answer file: an answer that teaches nothing is asked
    again, told why (the 1.5B's first commands failed or printed nothing), within `max_asks`."""
    command_timeout: float = 30.0
    remaining: Callable[[], float] = lambda: float("inf")
    code: Callable[[], CodeAsk] = CodeAsk
    """How the second answer is asked for (a program or a command; `harness/programs.py`),
    worked out when first needed."""
    asks: int = 0
    judged: set[str] = field(default_factory=set)
    """Digests of the answer file's contents a second answer was asked for."""
    disputed: set[str] = field(default_factory=set)
    """Those a second answer disagreed with."""
    reference: str = ""
    """The last second command that disagreed: once the asks are spent, each new answer is
    judged by running it again (a changed answer is not evidence that the dispute is over)."""
    shown: list[tuple[str, str]] = field(default_factory=list)
    """(what it printed, the command) of each second answer shown to the model as disagreeing:
    an answer that says what one printed is a copy of it, and that command agreeing with it
    would be one computation agreeing with itself (the 1.5B wrote the second program's output
    into the answer file, and the same program, asked again, 'agreed')."""
    computed: set[str] = field(default_factory=set)
    """Digests of the answer file's contents a command the harness asked for wrote
    (`climbing/computed.py`): the model did not make them, so its word on them is no
    evidence; only a second computation agreeing is."""

    def harness_wrote(self) -> None:
        """The answer file as it is now was written by a computed answer."""
        found = self._answer()
        if found is not None:
            self.computed.add(digest(found[1].encode()) or "")

    def unconfirmable(self) -> bool:
        """Whether the answer file holds what a computed answer wrote."""
        found = self._answer()
        return found is not None and digest(found[1].encode()) in self.computed

    def judge(self, tried: Sequence[str], turn: int) -> Verdict | None:
        """A second answer compared with the answer file, or None when none could be had."""
        found = self._answer()
        if found is None or self.keep is None:
            return None
        path, held = found
        key = digest(held.encode()) or ""
        if key in self.judged:
            return None  # asked already: nothing new to learn
        self.judged.add(key)
        copied = [command for printed, command in self.shown if same(held, printed)]
        if self.asks >= self.max_asks:
            # independent when it was asked: the model may have run it since
            if not self.reference or copied:
                return None
            outcome = self._attempt(path, held, self.reference, (), turn)
            return outcome if isinstance(outcome, Verdict) else None
        tried = (*tried, *copied)  # the answer was made that way: another way is asked
        why = ""
        for _ in range(self.tries):
            if self.asks >= self.max_asks:
                break
            self.asks += 1
            command = self._ask(path, turn, why)
            outcome = self._attempt(path, held, command, tried, turn)
            if isinstance(outcome, Verdict):
                return outcome
            what = self.code().what
            why = f"{named(command)} {outcome}" if command else f"answer held no {what}"
        return None

    def _attempt(
        self, path: str, held: str, command: str, tried: Sequence[str], turn: int
    ) -> Verdict | str:
        """`command`'s answer compared with `held`, or why it teaches nothing (said in a
        SecondAnswer event either way)."""
        printed: str | None = None
        if not command:
            why = "is no command"
        elif _ran_before(command, tried):
            why = "is the way the answer was made, not another"
        elif _reads(unredirected(command), path) and not is_program(command):
            why = f"reads {path}"  # sending its output there is no reading
        elif _prints_itself(command):
            why = "only prints text written into it, worked out from no input file"
        else:
            printed, why = self._run(command, path)
        agrees = printed is not None and same(held, printed)
        if printed is not None and not agrees:
            why = self._not_an_answer(path, held, printed)
            printed = None if why else printed
        if printed is None:
            self.asker.events.emit(SecondAnswer(turn, path, command, "", False, why))
            return why
        verdict = Verdict(path, command, printed, held, agrees)
        if not verdict.agrees:
            self.disputed.add(digest(held.encode()) or "")
            self.reference = command
            self.shown.append((printed, command))
        self.asker.events.emit(
            SecondAnswer(turn, path, command, clip(printed, 300), verdict.agrees)
        )
        return verdict

    def _not_an_answer(self, path: str, held: str, printed: str) -> str:
        """Why what the second command printed could not be the answer, or "": written to the
        answer file in the answer's layout (and put back after), it must pass the checks the
        answer passes. On log-summary (mini-33) the 0.5B's second command printed every word of
        the log, and as the judge of every later answer it would have failed the right one too;
        on sqlite-query (mini-34) its query printed the right customers as `name|total`, which
        as it was failed "fields separated by ','", and a made-up answer was left unjudged."""
        if self.checks is None or self.keep is None:
            return ""
        with self._kept():
            self.sandbox.write_file(path, laid_out_as(held, printed).encode())
            evaluation = self.checks()
        if evaluation.passed:
            return ""
        return f"printed what cannot be the answer ({clip(evaluation.digest, 160)})"

    @contextmanager
    def _kept(self) -> Iterator[None]:
        """The workspace put back after, and the answer files too (they may lie outside it:
        /solution, /root)."""
        assert self.keep is not None
        with self.keep(), kept_files(self.sandbox, self.answers):
            yield

    def _run(self, command: str, path: str) -> tuple[str | None, str]:
        """What the command prints (or, printing nothing, writes to the answer file), run with
        the answer file gone (a program that reads it fails) and all put back after; None and
        why if it fails or gives nothing."""
        with self._kept():
            self.sandbox.run(f"rm -f -- {shlex.quote(path)}", timeout=30)
            result = run_within(
                self.sandbox,
                command,
                remaining=self.remaining,
                timeout=self.command_timeout,
                cwd=self.workdir,
                linger=False,
            )
            printed = result.stdout.strip()  # else what it wrote to the answer file is read
            wrote = "" if printed else read_text(self.sandbox, path, max_bytes=MAX_CHARS * 2)
        if result.timed_out:
            return None, f"ran over {self.command_timeout:.0f} s"
        if result.exit_code != 0:
            told = said(result.stderr.strip() or result.stdout.strip(), program=is_program(command))
            return None, f"failed (exit {result.exit_code})" + (f": {told}" if told else "")
        if not printed:
            return (wrote, "") if wrote and wrote.strip() else (None, "printed nothing")
        return result.stdout, ""

    def disputes(self) -> bool:
        """Whether the answer file holds now what a second answer disagreed with."""
        found = self._answer()
        return found is not None and digest(found[1].encode()) in self.disputed

    def counting(self, verify: Callable[[], Evaluation]) -> Callable[[], Evaluation]:
        """`verify` with the second answer among its checks (see `counted`)."""
        return lambda: self.counted(verify())

    def counted(self, evaluation: Evaluation) -> Evaluation:
        """`evaluation` with the second answer as one more check once one has disagreed:
        failing while the answer file holds what it disagreed with."""
        if not self.disputed:
            return evaluation
        disputed = self.disputes()
        failing = "a second computation agrees with the answer: it disagrees" if disputed else ""
        return evaluation.model_copy(
            update={
                "passed": evaluation.passed and not disputed,
                "tests_total": evaluation.tests_total + 1,
                "tests_passing": evaluation.tests_passing + (0 if disputed else 1),
                "digest": "; ".join(filter(None, (evaluation.digest, failing))),
            }
        )

    def _answer(self) -> tuple[str, str] | None:
        """The first answer file that holds a short computed result, and its text."""
        for path in self.answers:
            if path.endswith(CODE):
                continue
            data = read_bytes(self.sandbox, path)
            text = data.decode(errors="replace") if data else ""
            if text.strip() and len(text) <= MAX_CHARS and text.count("\n") <= MAX_LINES:
                return path, text
        return None

    def _ask(self, path: str, turn: int, why: str = "") -> str:
        """The model's command (a program's, run from a here-document); asked again (`why`:
        what was wrong with the last one), at the temperature for a stuck turn."""
        code = self.code()
        again = f"\nYour last {why}. Write a different {code.what}." if why else ""
        prompt = (
            f"Task:\n{clip(self.instruction, 1500)}{code.shown()}\n\n"
            f"Someone wrote the answer to {path}. Write {code.one} that works out the"
            f" same answer again from the task's input files, in a different way, and prints it"
            f" exactly as {path} should hold it. Do not read {path}."
            f" Reply with the {code.what} only.{again}"
        )
        system = PROGRAM_SYSTEM if code.program else SYSTEM
        answer = self.asker.apart(system, prompt, role="second", turn=turn,
                                  max_tokens=code.max_tokens, stuck=bool(why))  # fmt: skip
        source = code.source(answer)
        return run_program(source) if source else command_in(answer)


_FENCE = re.compile(r"```[\w-]*\n(.*?)```", re.DOTALL)
_OPENED = re.compile(r"\s*```[\w-]*[ \t]*(?:\n|$)")
"""A fence never closed: the answer stopped, or was cut off, inside it (the 1.5B's `sh` block,
read as the command "```sh" in 3 of 13 second answers of its first 12 TermiGen trials)."""
_INLINE = re.compile(r"`([^`\n]+)`")
_PROSE = re.compile(r"[A-Z][a-z]+,?\s+[a-z`]")
"""A sentence's start (`The command …`, `Use …`): no command begins so."""


def command_in(answer: str) -> str:
    """The command of an answer: a fenced block's (closed or not), the one quoted in a
    sentence, or the first line (prompt signs and backticks around it taken off; a line ending
    in `\\`, or in an open quote, goes on). Comment lines are no command (the 1.5B's `sh`
    blocks opened with `# Check if the file exists`, and 4 held comments only); a sentence
    ("Sure, I can help you with that.") is none either."""
    fenced = _FENCE.search(answer)
    opened = None if fenced else _OPENED.match(answer)
    text = fenced.group(1) if fenced else answer[opened.end() :] if opened else answer
    lines = [line.strip() for line in text.strip().splitlines() if _not_comment(line)]
    if not lines:
        return ""
    command = lines[0]
    quoted = _INLINE.findall(command)
    if not fenced and quoted and _PROSE.match(command):  # "The command `awk …` is correct"
        return str(max(quoted, key=len)).strip()
    if not fenced and not quoted and _ADDRESSED.match(command):
        return ""
    for line in lines[1:]:
        if command.endswith("\\"):
            command = command[:-1].rstrip() + " " + line
        elif _open_quote(command) or _open_block(command):  # `awk '` and its program after
            command += "\n" + line  # it; `if …; then` and its lines up to `fi`
        else:
            break
    command = command.removeprefix("$ ").strip()
    wrapped = len(command) > 1 and command[0] == command[-1] == "`"
    command = command[1:-1].strip() if wrapped else command
    return command if _not_comment(command) else ""


_ADDRESSED = re.compile(r"[A-Z][a-z]*,\s")
"""A sentence to the reader (`Sure, I can …`, `Yes, this …`): no program's name ends in a comma."""


def _not_comment(line: str) -> bool:
    """A line that is not blank nor a comment (nor `#!/bin/bash`: one command is asked for)."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_KEYWORD = re.compile(
    r"(?:^|[;&|(]|\bthen|\bdo|\belse)\s*(if|for|while|until|case|fi|done|esac)\b", re.M
)


def _open_block(command: str) -> bool:
    """Whether `command` opens an `if`, a loop or a `case` it does not close (quotes left out:
    `python3 -c 'import sys; for …'` opens nothing)."""
    words = _KEYWORD.findall(_QUOTED.sub("''", command))
    closes = sum(word in ("fi", "done", "esac") for word in words)
    return len(words) - closes > closes  # more opened than closed


def _open_quote(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:
        return True
    return False


def _reads(command: str, path: str) -> bool:
    return posixpath.basename(path) in command


_PRINTERS = frozenset({"echo", "printf", "cat", "true", ":"})


def _prints_itself(command: str) -> bool:
    """A command of nothing but echo/printf (and `cat` of a heredoc), or a program that opens
    no file: what it prints is the model's answer written out again, not one worked out another
    way (`echo '^\\d{4}$'` for a regex, `echo 12`); once it disagreed, it would be the one
    answer ever passed."""
    if is_program(command):
        return _READS.search(command) is None
    found = list(commands(command))
    return bool(found) and all(
        c.name in _PRINTERS and (c.name != "cat" or len(c.args) == 1) for c in found
    )


_READS = re.compile(
    r"\bopen\(|\.read|\bload\(|read_(?:csv|json|table|excel|parquet)|Path\(|glob|listdir|"
    r"scandir|walk\(|subprocess|os\.popen|stdin|connect\(|fileinput"
)
"""What a program that reads a file or runs a command has in it."""


_REDIRECT = re.compile(r"\s*(?:>>?|\|\s*tee(?:\s+-a)?)\s*\S+\s*$")


_GROUP = re.compile(r"^\{\s*(.*?);?\s*\}$", re.DOTALL)


def unredirected(command: str) -> str:
    """The command without the redirect of its output, nor the group around it (`{ a; b; } >
    file`), its spacing made plain."""
    bare = _REDIRECT.sub("", command).strip()
    grouped = _GROUP.match(bare)
    return " ".join((grouped.group(1) if grouped else bare).split())


def _ran_before(command: str, tried: Sequence[str]) -> bool:
    """The command the model ran to make the answer (or the harness, computing it), its
    output no longer redirected: the same way, not another."""
    plain = unredirected(command)
    return any(unredirected(t) == plain for t in tried)
