"""A simple command as it will run: its words with the wrappers looked through, the folder it
runs in and the variables set before it in the same script, so that the paths it names can be
resolved; and the code it runs itself (`sh -c`, `eval`, `find -exec`, an interpreter's `-c`).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from hillclimber.sandbox.base import HOME
from hillclimber.shell.words import ASSIGNMENT, operands, read_words

DOWNLOAD = "@@download@@"
"""Placeholder for a substitution whose output is downloaded (`$(curl …)`, `<(wget -O- …)`)."""
SUBST = "@@subst@@"
"""Placeholder for any other substitution: its output is not known."""
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish"})
INTERPRETERS = frozenset({"python", "python2", "python3", "perl", "ruby", "node", "php"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch"})
_KNOWN_VARS = frozenset({"PATH", "TERM", "LANG", "LC_ALL", "USER", "SHELL", "OLDPWD", "HOSTNAME"})

ProgramSource = tuple[Literal["code", "file", "stdin"], str]
"""Where a shell or interpreter gets its program: `-c` code, a file, or stdin."""


@dataclass(frozen=True)
class Command:
    """One simple command as it will run: wrappers (sudo, env, timeout, xargs…) looked through."""

    args: tuple[str, ...]
    redirects: tuple[str, ...]
    cwd: str | None
    """Where it runs; None after a `cd` that could not be followed."""
    env: Mapping[str, str | None]
    """Variables set earlier in the same script (None: set, value unknown)."""
    sudo: bool = False
    xargs: bool = False
    """Run through xargs: more operands arrive on stdin."""

    @property
    def name(self) -> str:
        return posixpath.basename(self.args[0]) if self.args else ""

    def path(self, word: str) -> str | None:
        """The absolute path `word` names here, or None when it cannot be known."""
        return resolve(word, self.cwd, self.env)


@dataclass
class Scope:
    """What earlier commands of the same script changed: the folder and the variables."""

    cwd: str | None
    env: dict[str, str | None] = field(default_factory=dict)


def read_command(text: str, scope: Scope) -> Command | None:
    """One simple command read into words in `scope`, which it then updates (cd, export)."""
    words = read_words(text)
    if words is None:
        return None
    for word in words.assignments:
        _assign(word, scope)
    cmd = Command(words.args, words.redirects, scope.cwd, dict(scope.env), words.sudo, words.xargs)
    _follow(cmd, scope)
    return cmd


def _assign(word: str, scope: Scope) -> None:
    name, _, value = word.partition("=")
    known = value and "$" not in value and "@@" not in value and "`" not in value
    scope.env[name] = value if known else None


def _follow(cmd: Command, scope: Scope) -> None:
    """What a command changes for the commands after it: the folder, variables."""
    if cmd.name in ("cd", "pushd"):
        targets = operands(cmd.args[1:])
        target = targets[0] if targets else "~"
        scope.cwd = None if target == "-" else cmd.path(target)
    elif cmd.name in ("export", "declare", "local", "readonly", "typeset"):
        for word in cmd.args[1:]:
            if ASSIGNMENT.match(word):
                _assign(word, scope)
    elif cmd.name == "for" and len(cmd.args) > 1:
        scope.env[cmd.args[1]] = None
    elif cmd.name == "read":
        for word in operands(cmd.args[1:], frozenset({"-p", "-d", "-n", "-N", "-t", "-u"})):
            scope.env[word] = None


_VARIABLE = re.compile(r"\$\{(\w+)\}|\$(\w+)|" + re.escape(SUBST) + "|" + re.escape(DOWNLOAD))


def resolve(word: str, cwd: str | None, env: Mapping[str, str | None]) -> str | None:
    """The absolute, normalised path a word names, or None when it cannot be known.

    Every command runs in a fresh shell, so a variable the script did not set is empty:
    `rm -rf "$OUT"/*` is `rm -rf /*`, and is read so.
    """
    if word == "~" or word.startswith("~/"):
        word = HOME + word[1:]
    unknown = False

    def value(match: re.Match[str]) -> str:
        nonlocal unknown
        found = _variable(match.group(1) or match.group(2), cwd, env)
        unknown = unknown or found is None
        return found or ""

    path = _VARIABLE.sub(value, word)
    if unknown or not path or "$" in path or "`" in path:
        return None
    if not path.startswith("/"):
        if cwd is None:
            return None
        path = posixpath.join(cwd, path)
    return normal(path)


def _variable(name: str | None, cwd: str | None, env: Mapping[str, str | None]) -> str | None:
    """A variable's value: "" when unset, None when set to something unknown (or a `$(…)`)."""
    if name is None:
        return None
    if name == "HOME":
        return HOME
    if name == "PWD":
        return cwd
    if name in env:
        return env[name]
    return None if name in _KNOWN_VARS else ""


def normal(path: str) -> str:
    """An absolute path without `.`, `..` or doubled slashes."""
    return "/" + posixpath.normpath(path).lstrip("/")


def inside(path: str, folders: Sequence[str]) -> bool:
    """Whether `path` is one of `folders` or under one (the root `/` holds every path)."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _shell_program(args: Sequence[str]) -> ProgramSource:
    rest = list(args[1:])
    code = False
    while rest and rest[0][:1] in ("-", "+") and len(rest[0]) > 1:
        option = rest.pop(0)
        if option == "--":
            break
        if option in ("-o", "+o", "-O", "+O"):
            rest = rest[1:]
        elif not option.startswith("--"):
            if option[0] == "-" and "s" in option[1:]:
                return "stdin", ""
            code = code or "c" in option[1:]
    if code:
        return "code", rest[0] if rest else ""
    if rest and rest[0] != "-":
        return "file", rest[0]
    return "stdin", ""


def _interpreter_program(args: Sequence[str]) -> ProgramSource:
    rest = list(args[1:])
    for i, word in enumerate(rest):
        if word in ("-c", "-e", "-E", "-r", "-p", "-m"):
            return ("code" if word != "-m" else "file"), (rest[i + 1] if i + 1 < len(rest) else "")
        if word == "-":
            return "stdin", ""
        if not word.startswith("-"):
            return "file", word
    return "stdin", ""


def program(cmd: Command) -> ProgramSource | None:
    """Where a shell or an interpreter (python, perl, node…) gets its program; None for other
    commands."""
    if cmd.name in SHELLS:
        return _shell_program(cmd.args)
    if cmd.name in INTERPRETERS or re.fullmatch(r"python[\d.]*", cmd.name):
        return _interpreter_program(cmd.args)
    return None


def inner_code(cmd: Command) -> list[str]:
    """Shell code a command runs from its arguments: `sh -c`, `eval`, `find -exec`."""
    if cmd.name in SHELLS:
        kind, text = _shell_program(cmd.args)
        return [text] if kind == "code" else []
    if cmd.name == "eval":
        return [" ".join(cmd.args[1:])]
    if cmd.name == "find":
        return [shlex.join(part) for part in _find_actions(cmd.args)]
    return []


def _find_actions(args: Sequence[str]) -> list[list[str]]:
    """The commands of `find … -exec CMD {} \\;` (and -execdir, -ok)."""
    actions: list[list[str]] = []
    current: list[str] | None = None
    for word in args[1:]:
        if current is None:
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                current = []
        elif word in (";", "+"):
            actions.append(current)
            current = None
        else:
            current.append(word)
    return actions + ([current] if current else [])
