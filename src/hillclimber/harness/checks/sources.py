"""A program the task has the agent make or change must at least parse in its own language.

Nothing here reads the instruction: the checks are made for the files other rules already
found to make or change (`extract`), by their extension. Of the Python files the 1.5B wrote on
Terminal-Bench 2, five of seven did not parse, and a trial said done on one, checked only as "there
and not empty"; whatever a task's tests do with a program, they cannot pass one that does not
parse.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from hillclimber.harness.checks.base import CheckContext, Outcome, Said, said
from hillclimber.harness.checks.kinds import NO_TEXT, TextCheck
from hillclimber.harness.parsing.source import python_error
from hillclimber.sandbox import run_within

Language = Literal["Python", "bash"]
LANGUAGES: dict[str, Language] = {".py": "Python", ".sh": "bash", ".bash": "bash"}
_NOT_FOUND = 127

_IN_SANDBOX: dict[Language, str] = {
    "Python": "python3 -c 'import ast, sys; ast.parse(open(sys.argv[1], \"rb\").read())'",
    "bash": "bash -n",
}
"""Parse only, in the task's own interpreter: its Python may take syntax newer than the
harness's, and bash is not read on the host."""


@dataclass(frozen=True)
class SourceParses(TextCheck):
    """Weak, as a file parsing as JSON is: a program that parses can still do anything."""

    language: Language = "Python"

    @property
    def words(self) -> Said:
        return said("check.parses", path=self.path, format=self.language)

    def run(self, ctx: CheckContext) -> Outcome:
        """Python is parsed here first, and in the sandbox only where this interpreter refuses
        it; bash in the sandbox. Where the sandbox has no such interpreter, what is known here
        stands."""
        here = super().run(ctx)
        if here.why == NO_TEXT or (self.language == "Python" and here.passed):
            return here
        ran = run_within(
            ctx.sandbox,
            f"{_IN_SANDBOX[self.language]} {shlex.quote(self.path)}",
            remaining=ctx.remaining,
            timeout=ctx.command_timeout,
            linger=False,
        )
        if ran.exit_code == _NOT_FOUND or ran.timed_out:
            return here
        if ran.ok:
            return Outcome(True)
        if self.language == "Python":
            return here  # this interpreter's message names the line
        last = ran.output.strip().splitlines()[-1:] or [""]
        return Outcome(False, said("failed.no_parse", error=last[0][:100]))

    def judge(self, text: str) -> Outcome:
        """Python by this interpreter; bash is left to the sandbox's (`run`)."""
        error = python_error(text) if self.language == "Python" else None
        return Outcome(error is None, said("failed.no_parse", error=error))


def source_checks(made: Iterable[str], changed: Iterable[str]) -> Iterator[SourceParses]:
    """A parse check for each program among the files to make (a goal: there is none yet) and
    the files to change (an invariant: it parsed before the work and must after; one that did
    not parse at the start is dropped by `build_checks`, as every invariant failing then is)."""
    for paths, goal in ((made, True), (changed, False)):
        for path in sorted(set(paths)):
            language = LANGUAGES.get(posixpath.splitext(path)[1])
            if language is not None:
                yield SourceParses(path, language=language, goal=goal)
