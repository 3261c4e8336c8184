"""Checks of a commit the instruction asks for, in a git repository it names (or the working
folder): the last commit's message is the one quoted ("whose message is exactly `X`"), and each
file the work makes or changes in the repository is committed as it is now — a file fixed after
the commit is not (git-commit, mini-34: the 0.5B committed its file, corrected a line, and
stopped with the correction uncommitted).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hillclimber.harness.checks.base import Check, CheckContext, Outcome
from hillclimber.harness.checks.kinds import CommandSucceeds, FileCheck
from hillclimber.harness.checks.text import Sentence
from hillclimber.sandbox import run_within
from hillclimber.sandbox.files import is_file

_MESSAGE = re.compile(r"message\s+(?:is\s+|of\s+)?(?:exactly\s+)?`([^`]+)`", re.I)
_ASKED = re.compile(r"(?:^\W*|\b(?:and|then|to|please)\s+)commit\b", re.I)
"""Commit as a verb asked for ("Commit it …", "… and commit the change"), not a noun ("the
last commit must stay as it is")."""
_NOT = re.compile(r"\b(?:not|never|n't|without)\s+(?:\w+\s+){0,2}commit", re.I)


def commit_checks(
    said: list[Sentence], there: Callable[[str], bool], workdir: str, made: Iterable[str]
) -> list[Check]:
    """The commit's checks, where a sentence says to commit (`there`: whether a path exists at
    the start; `made`: the files the work makes or changes)."""
    repos = [p for s in said for p in s.paths if there(f"{p}/.git")]
    if not repos and there(f"{workdir}/.git"):
        repos = [workdir]
    committing = [s for s in said if _commits(s)]
    if not repos or not committing:
        return []
    checks: list[Check] = []
    for sentence in committing:
        if message := _MESSAGE.search(sentence.text):
            log = f"git -C {shlex.quote(repos[0])} log -1 --format=%s"
            checks.append(CommandSucceeds(log, output=message.group(1)))
    for path in dict.fromkeys(made):
        repo = next((r for r in repos if path.startswith(r.rstrip("/") + "/")), None)
        if repo is not None and "/.git/" not in path:
            checks.append(FileCommitted(path, repo=repo))
    return checks


def _commits(sentence: Sentence) -> bool:
    """Whether the sentence asks for a commit: one with its message quoted, or commit as a
    verb asked for; never one it forbids ("Do not commit")."""
    text = " ".join(sentence.text.split())
    if _NOT.search(text):
        return False
    quoted = _MESSAGE.search(text) is not None and sentence.has("commit", "commits")
    return quoted or _ASKED.search(text) is not None


@dataclass(frozen=True)
class FileCommitted(FileCheck):
    """The file is in the repository's last commit as it is now: `git status` shows no change
    of it, staged or not, and it is tracked."""

    repo: str = ""

    @property
    def name(self) -> str:
        return f"{self.path} is committed as it is now"

    def run(self, ctx: CheckContext) -> Outcome:
        if not is_file(ctx.sandbox, self.path):
            return Outcome(False, "no such file")
        inside = posixpath.relpath(self.path, self.repo)
        command = f"git -C {shlex.quote(self.repo)} status --porcelain -- {shlex.quote(inside)}"
        result = run_within(
            ctx.sandbox, command, remaining=ctx.remaining, timeout=ctx.command_timeout
        )
        if result.timed_out:
            return Outcome(False, "timed out", timed_out=True)
        if result.exit_code != 0:
            return Outcome(False, f"git status failed: {result.output.strip()[:80]}")
        shown = result.stdout.strip()
        return Outcome(not shown, f"git status shows {shown.splitlines()[0]!r}" if shown else "")
