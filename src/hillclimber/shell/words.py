"""One simple command read into words: its arguments, where it redirects output, the variables
set in front of it, and the real command behind wrappers such as `sudo`, `env`, `timeout` or
`xargs`. Also the small helpers every reader of a command line needs (operands, option values).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Words:
    """A simple command read as words."""

    args: tuple[str, ...]
    """The command that runs and its arguments, wrappers looked through."""
    redirects: tuple[str, ...] = ()
    """Files the command's output is redirected to."""
    assignments: tuple[str, ...] = ()
    """`NAME=value` words in front of the command."""
    sudo: bool = False
    """Run through sudo, doas or su."""
    xargs: bool = False
    """Run through xargs: more operands arrive on stdin."""

    @property
    def name(self) -> str:
        return posixpath.basename(self.args[0]) if self.args else ""


def read_words(text: str) -> Words | None:
    """Words of one simple command (None if it cannot be read, e.g. unbalanced quotes)."""
    head = text.split("<<", 1)[0] if "<<" in text and "<<<" not in text else text
    head, arithmetic = _arithmetic_out(head.replace("\\\n", " "))
    lexer = shlex.shlex(head, posix=True, punctuation_chars="<>&|;()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = [_ARITHMETIC.sub(lambda m: arithmetic[int(m[1])], t) for t in lexer]
    except ValueError:
        return None
    args: list[str] = []
    redirects: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token and set(token) <= set("<>&|") and ("<" in token or ">" in token):
            if args and args[-1].isdigit():
                args.pop()
            if i + 1 < len(tokens) and ">" in token and not token.endswith("&"):
                redirects.append(tokens[i + 1])
            i += 2
            continue
        args.append(token)
        i += 1
    assignments: list[str] = []
    while args and ASSIGNMENT.match(args[0]):
        assignments.append(args.pop(0))
    command, sudo, xargs = unwrap(args)
    return Words(tuple(command), tuple(redirects), tuple(assignments), sudo, xargs)


_ARITHMETIC = re.compile(r"@@arithmetic(\d+)@@")


def _arithmetic_out(text: str) -> tuple[str, list[str]]:
    """`text` with each `$((…))` put aside as a placeholder (its parentheses would cut it into
    words), and what was put aside."""
    found: list[str] = []
    out: list[str] = []
    i = 0
    while (start := text.find("$((", i)) >= 0:
        depth, j = 0, start + 1
        while j < len(text):
            depth += (text[j] == "(") - (text[j] == ")")
            j += 1
            if depth == 0:
                break
        if depth:  # never closed: left as it is, so no word after it is hidden
            break
        out.append(text[i:start] + f"@@arithmetic{len(found)}@@")
        found.append(text[start:j])
        i = j
    out.append(text[i:])
    return "".join(out), found


_WRAPPERS: dict[str, frozenset[str]] = {
    # wrapper → its options that take a value
    "sudo": frozenset({"-u", "-g", "-p", "-C", "-D", "-h", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "setsid": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset(
        {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs"}
    ),
}


def unwrap(args: Sequence[str]) -> tuple[list[str], bool, bool]:
    """The command behind `sudo -u x env A=1 timeout 5 xargs rm …`: (args, sudo, xargs)."""
    rest, sudo, xargs = list(args), False, False
    while rest:
        name = posixpath.basename(rest[0])
        if ASSIGNMENT.match(rest[0]):
            rest = rest[1:]
        elif name == "su":
            code = option_value(rest[1:], ("-c", "--command"))
            return (["sh", "-c", code] if code is not None else []), True, xargs
        elif name in _WRAPPERS:
            if name == "command" and ("-v" in rest or "-V" in rest):
                return [], sudo, xargs  # a lookup runs nothing
            sudo = sudo or name in ("sudo", "doas")
            xargs = xargs or name == "xargs"
            rest = drop_options(rest[1:], _WRAPPERS[name])
            if name == "timeout":
                rest = rest[1:]  # the duration
        else:
            break
    return rest, sudo, xargs


def drop_options(args: Sequence[str], with_value: frozenset[str]) -> list[str]:
    """`args` after the leading options (and the values of those that take one)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            return list(args[i + 1 :])
        i += 2 if args[i] in with_value else 1
    return list(args[i:])


def operands(args: Sequence[str], with_value: frozenset[str] = frozenset()) -> list[str]:
    """The non-option words of `args` (and not the values of options in `with_value`); all
    words after `--`."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return out + list(args[i + 1 :])
        if word.startswith("-") and word != "-":
            i += 2 if word in with_value else 1
            continue
        out.append(word)
        i += 1
    return out


def option_value(args: Sequence[str], names: Sequence[str]) -> str | None:
    """The value given to the first of `names` (`-o VALUE` or `--name=VALUE`)."""
    for i, word in enumerate(args[:-1]):
        if word in names:
            return args[i + 1]
    for word in args:
        for name in names:
            if name.startswith("--") and word.startswith(name + "="):
                return word[len(name) + 1 :]
    return None
