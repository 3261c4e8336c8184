"""What every guard rule shares: the one verdict type, and the situation a call is judged in."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.sandbox.base import APP, HOME

Action = Literal["allow", "deny", "warn", "redirect"]


@dataclass(frozen=True)
class Verdict:
    """Allow, warn (the call runs and the warning is shown), deny (it does not run), with why
    and what to do instead; or redirect (the call `instead` runs in its place, and why is
    shown)."""

    action: Action
    rule: str = ""
    reason: str = ""
    suggestion: str = ""
    instead: ToolCall | None = None

    def feedback(self, tool: str, prompts: Prompts | None = None) -> str:
        """The text fed back to the model (`feedback.toml`, [guard]; "" for allow)."""
        if self.action == "allow":
            return ""
        reason = self.reason.rstrip(". ")
        said = (prompts or shipped())(
            f"feedback.guard.{self.action}", tool=tool, reason=reason, suggestion=self.suggestion
        )
        return said.rstrip()


ALLOW = Verdict("allow")


def plain_path(path: str, workdir: str = APP) -> str:
    """A tool's path argument as a sandbox path, without looking at any files (`~` is the home
    folder the model meant)."""
    if path == "~" or path.startswith("~/"):
        path = HOME + path[1:]
    return posixpath.normpath(posixpath.join(workdir, path))


@dataclass(frozen=True)
class Situation:
    """What the rules may look at besides the call itself."""

    history: Sequence[ToolCall]
    """Calls executed so far, in order (auto-verifications appear as `verify_progress`)."""
    resolve: Callable[[str], str] = plain_path
    """A tool's path argument → the sandbox path it means (the tools' own rule)."""
    read: Callable[[str], str | None] = lambda path: None
    """A sandbox path → the text of the file there now, or None."""
    verify_between_writes: bool = False
    """A write must be checked (verify_progress) before the next write."""
    last_write_failed: bool = False
    """The latest write/edit failed: it changed nothing, so retrying it needs no verify first."""
    protected: frozenset[str] = frozenset()
    """Sandbox paths the task says not to change."""
    inputs: frozenset[str] = frozenset()
    """Data files the task names only to read (`instruction.read_inputs`)."""
    answers: tuple[str, ...] = ()
    """The files the checks take for the task's answer (new files it names), if known."""
    named: tuple[str, ...] = ()
    """The paths the instruction names, in its order (`instruction.named_paths`)."""
    workdir: str = APP
    """The task's working folder: its files, where writes belong."""
    outputs: frozenset[str] = frozenset()
    """Other places the task's work may write: the files its instruction names outside the
    working folder (`/solution/password.txt`), with their folder where they are not there
    yet."""
    climbing: bool = False
    """Candidates are tried and scored by checks: those judge what a write destroys."""
    refused: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    """(rule, call signature) of calls refused before: some rules let a call asked for again
    through."""
    prompts: Prompts = field(default_factory=shipped)
    """The words the rules say (`prompts/guards.toml`), the trial's own where it has them."""

    def say(self, rule: str, key: str, /, **fields: object) -> str:
        """Text `key` of `rule`'s table in `guards.toml`, filled in."""
        return self.prompts(f"guards.{rule}.{key}", **fields)

    def write_instead(self) -> str:
        """Where the result goes, said to a model that tried to write a file to leave alone."""
        if len(self.answers) == 1:
            return self.say("write_instead", "one", path=self.answers[0])
        if self.answers:
            return self.say("write_instead", "several", paths=", ".join(self.answers))
        return self.say("write_instead", "unknown")

    def places(self) -> tuple[str, ...]:
        """Where the task's files may be written."""
        return (self.workdir, *sorted(self.outputs))

    def target(self, call: ToolCall) -> str:
        """The sandbox path a file tool's call works on."""
        return self.resolve(str(call.arguments.get("path", "")))


def worded(
    action: Action,
    rule: str,
    situation: Situation,
    keys: tuple[str, str] = ("reason", "suggestion"),
    instead: ToolCall | None = None,
    **fields: object,
) -> Verdict:
    """`rule`'s verdict in its own words: the texts `keys` (the reason, then what to do
    instead) of its table in `guards.toml`, filled in with `fields`."""
    reason, suggestion = (situation.say(rule, key, **fields) for key in keys)
    return Verdict(action, rule, reason, suggestion, instead)


Rule = Callable[[ToolCall, Situation], Verdict | None]
"""A guard rule: a verdict on the call, or None when it has nothing to say."""
