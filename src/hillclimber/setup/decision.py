"""What to do with one simple command of a setup script, and the checks every command gets:
does it write outside the sandbox's folders, and is the command it runs installed here?
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from hillclimber.sandbox.base import APP
from hillclimber.setup.presence import command_available
from hillclimber.shell.words import ASSIGNMENT, Words, operands

WRITABLE = (APP, "/tmp", "/root")
"""Sandbox folders that setup steps may write and that persist for the trial."""


def name_set(text: str) -> frozenset[str]:
    """A set of names written as one space-separated string (keeps long lists compact)."""
    return frozenset(text.split())


Action = Literal["run", "skip", "need"]


@dataclass
class Decision:
    """What to do with one simple command.

    `skip`: replace it by `true` (already satisfied, or meaningless here); `run`: run it as is;
    `need`: the task cannot run here. `needs` items are (group, name) — grouped ones render as
    `apt: a, b`; group None is a reason of its own.
    """

    action: Action = "run"
    needs: list[tuple[str | None, str]] = field(default_factory=list)
    satisfied: list[str] = field(default_factory=list)

    @classmethod
    def skip(cls, note: str) -> Decision:
        return cls("skip", [], [note])

    @classmethod
    def need(cls, group: str | None, *names: str) -> Decision:
        return cls("need", [(group, name) for name in names])


@dataclass(frozen=True)
class Context:
    """Where a command runs and how to find files it names (for `pip install -r`)."""

    cwd: str = APP
    env: Mapping[str, str] = field(default_factory=dict)
    find_file: Callable[[str], Path | None] = lambda _path: None
    functions: frozenset[str] = frozenset()
    """Shell functions the script defines: commands that need no installing."""


def installs(group: str, names: Sequence[str], present: Callable[[str], str | None]) -> Decision:
    """Skip if every name is present (noting versions), else need the missing ones."""
    missing = [name for name in names if present(name) is None]
    if missing:
        return Decision.need(group, *missing)
    notes = [f"{group}: {name} {present(name)}".rstrip() for name in names]
    return Decision("skip", [], [f"{note} (installed)" for note in notes])


def merge(first: Decision, second: Decision) -> Decision:
    """Both verdicts' needs and notes; skipped only if `second` is and nothing is needed."""
    needs = first.needs + second.needs
    action: Action = "need" if needs else ("skip" if second.action == "skip" else "run")
    return Decision(action, needs, first.satisfied + second.satisfied)


def dynamic(word: str) -> bool:
    """The word is computed when the script runs (variables, globs): it cannot be checked."""
    return any(mark in word for mark in ("$", "`", "*", "?"))


def writable(path: str) -> bool:
    """Setup may write `path` here: it is in a writable folder, or a device (`/dev/null`)."""
    norm = posixpath.normpath(path)
    return any(norm == root or norm.startswith(root + "/") for root in WRITABLE) or (
        norm.startswith(("/dev/", "/proc/")) or norm == "/dev"
    )


_BUILTINS = name_set(
    "cd export echo set unset source . [ [[ test true false printf read exit return umask "
    "ulimit alias shift eval exec trap wait type command hash pushd popd declare local let "
    "shopt : break continue for case select function getopts readonly times"
)
_COMMAND_NAME = re.compile(r"[A-Za-z0-9_.+-]+")


def plain_command(words: Words, ctx: Context) -> Decision:
    """A plain command: runs as is, unless it writes outside the sandbox or is not installed."""
    outside = [t for t in _write_targets(words) if not writable(t)]
    if outside:
        made = [_link(words, t) for t in outside] if words.name == "ln" else outside
        if words.name in ("mkdir", "ln") and all(Path(t).exists() for t in made):
            return Decision.skip(f"{words.name} {' '.join(outside)} (already exists here)")
        return Decision.need(None, *[f"writes {t}, outside {APP}" for t in outside])
    name = words.args[0]
    if (
        "/" not in name
        and _COMMAND_NAME.fullmatch(name)
        and name not in ctx.functions
        and name not in _BUILTINS
        and not dynamic(name)
        and not ASSIGNMENT.match(name)
        and not command_available(name)
        and not _path_has_writable(ctx.env)
    ):
        return Decision.need("commands", name)
    return Decision()


def _link(words: Words, target: str) -> str:
    """The link `ln … SOURCE TARGET` makes: in TARGET where it is a folder (`ln -s x /usr/bin/`
    makes /usr/bin/x), else TARGET itself."""
    sources = operands(words.args[1:], frozenset({"-t", "--target-directory"}))[:-1]
    if len(sources) == 1 and (target.endswith("/") or Path(target).is_dir()):
        return posixpath.join(target, posixpath.basename(sources[0].rstrip("/")))
    return target


def _write_targets(words: Words) -> list[str]:
    """Absolute paths a file-making command writes (destination of cp/mv/ln, mkdir args...)."""
    name, args = words.name, words.args[1:]
    positional = operands(args, frozenset({"-m", "--mode", "-t", "--target-directory"}))
    if name in ("mkdir", "touch", "tee"):
        targets = positional
    elif (
        (name in ("cp", "mv", "ln", "install", "rsync") and len(positional) >= 2)
        or name == "virtualenv"
        or (re.fullmatch(r"python[0-9.]*", name) and args[:2] == ("-m", "venv"))
    ):
        targets = positional[-1:]
    else:
        targets = []
    return [t for t in [*targets, *words.redirects] if t.startswith("/") and not dynamic(t)]


def _path_has_writable(env: Mapping[str, str]) -> bool:
    """The step's PATH includes a folder the build itself can fill (then a command may be new)."""
    return any(writable(p) for p in env.get("PATH", "").split(":") if p)
