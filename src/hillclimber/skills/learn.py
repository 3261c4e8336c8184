"""Learning a skill from a solved task: the steps that changed the workspace, in order, with the
paths the instruction names made generic (`FILE1.txt`) and every output dropped. Only a task
solved with at least one command that changed something teaches a skill.

A learned skill keeps the task it came from (its id and its instruction's digest) so that it
is never shown on that task again.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hillclimber.shell.reader import commands
from hillclimber.shell.writes import written_paths
from hillclimber.skills.skill import Skill, digest
from hillclimber.text import clip

MAX_STEPS = 6
LINE_CHARS = 140

LOOKERS = frozenset(
    [
        "cat",
        "ls",
        "head",
        "tail",
        "wc",
        "grep",
        "egrep",
        "fgrep",
        "pwd",
        "test",
        "[",
        "diff",
        "cmp",
        "stat",
        "file",
        "which",
        "type",
        "du",
        "df",
        "tree",
        "echo",
        "printf",
        "sort",
        "uniq",
        "cut",
        "tr",
        "true",
        "false",
        "sha256sum",
        "md5sum",
        "jq",
        "od",
        "xxd",
        "hexdump",
        "less",
        "more",
        "id",
        "whoami",
        "date",
        "env",
        "printenv",
        "readlink",
        "realpath",
        "basename",
        "dirname",
        "nl",
        "column",
    ]
)
"""Commands that only look (unless a redirect or an option makes them write)."""


@dataclass(frozen=True)
class ToolStep:
    tool: str
    arguments: Mapping[str, Any]
    success: bool


def changed_workspace(step: ToolStep) -> bool:
    """Whether a successful step changed files: every write and edit, and a command unless
    it only looks."""
    if not step.success:
        return False
    if step.tool in ("write_file", "edit_file"):
        return True
    if step.tool != "run_command":
        return False
    script = str(step.arguments.get("command", ""))
    if any(True for _ in written_paths(script)):
        return True
    return any(cmd.name not in LOOKERS for cmd in commands(script))


def distill(
    instruction: str, steps: Iterable[ToolStep], *, task_id: str, named: Iterable[str]
) -> Skill | None:
    """A candidate skill from the changing steps of a solved task, or None when no command
    changed anything (the files written are the task's own data, and a weak check may have
    passed them: a recipe of commands is what carries over to other tasks). `named`: the
    paths the instruction names, made generic in it."""
    names = _placeholders(named)
    changing = [step for step in steps if changed_workspace(step)]
    if not any(step.tool == "run_command" for step in changing):
        return None  # only files written or edited: the task's data, not a way to do it
    lines: list[str] = []
    for step in changing:
        line = _generic(_describe(step), names)
        if not lines or lines[-1] != line:
            lines.append(line)
    summary = _generic(_first_sentence(instruction), names)
    words = re.findall(r"[a-z0-9]+", summary.lower())[:5]
    return Skill(
        id=f"learned-{'-'.join(words) or 'task'}-{digest(instruction)[:6]}",
        description=clip(f"Steps that solved a similar task: {summary}", 200),
        when=clip(_generic(" ".join(instruction.split()), names), 300),
        example="\n".join(lines[:MAX_STEPS]),
        topic="learned",
        source="learned",
        source_task=task_id,
        source_digest=digest(instruction),
    )


def _describe(step: ToolStep) -> str:
    args = step.arguments
    path = str(args.get("path", ""))
    if step.tool == "run_command":
        return clip(" ".join(str(args.get("command", "")).split("\n")[:1]), LINE_CHARS)
    if step.tool == "write_file":
        content = str(args.get("content", ""))
        first = content.split("\n", 1)[0]
        more = " …" if "\n" in content.rstrip("\n") else ""
        return clip(f"write_file {path}: {first}{more}", LINE_CHARS)
    old, new = str(args.get("old_text", "")), str(args.get("new_text", ""))
    return clip(f"edit_file {path}: {old!r} -> {new!r}", LINE_CHARS)


def _placeholders(named: Iterable[str]) -> dict[str, str]:
    """Each path the instruction names (absolute and as written) → FILE1.ext, FILE2.ext, …"""
    found: dict[str, str] = {}
    for i, path in enumerate(named, start=1):
        base = posixpath.basename(path)
        ext = posixpath.splitext(base)[1]
        generic = f"FILE{i}{ext}"
        found[path] = generic
        found.setdefault(base, generic)
    return found


def _generic(text: str, names: Mapping[str, str]) -> str:
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<![\w/.-]){re.escape(name)}(?![\w-])", names[name], text)
    return text


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(?:\s|$)", flat)
    return match.group(1) if match else flat
