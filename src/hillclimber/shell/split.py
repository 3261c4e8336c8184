"""Splitting shell text into simple commands, keeping where each sits in the text (so that a
command can be replaced in place), and grouping them into pipelines."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command of a script, with where it sits in the text."""

    start: int
    end: int
    """End of the command text; `replace_end` also covers heredoc bodies it opened."""
    replace_end: int
    text: str


_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")")
_RESERVED = re.compile(r"(?:if|then|else|elif|do|while|until|fi|done|esac|time|!|\{|\})(?=\s|$)")
HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([^\s'\"<>;&|()]+)\2")
"""A heredoc's opening: (strip tabs `-`, quote, delimiter)."""


def _skip(script: str, i: int) -> int:
    """Index after the quoted part, backticks or `$(...)`/`${...}` that starts at `i`."""
    n = len(script)
    ch = script[i]
    if ch == "'":
        end = script.find("'", i + 1)
        return n if end < 0 else end + 1
    if ch in '"`':
        j = i + 1
        while j < n:
            if script[j] == "\\":
                j += 2
            elif script[j] == ch:
                return j + 1
            elif ch == '"' and (script.startswith("$(", j) or script.startswith("${", j)):
                j = _skip(script, j)
            else:
                j += 1
        return n
    depth, j = 1, i + 2
    while j < n and depth:
        c = script[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"`" or script.startswith("$(", j) or script.startswith("${", j):
            j = _skip(script, j)
            continue
        depth += c in "({"
        depth -= c in ")}"
        j += 1
    return j


def _operator_at(script: str, i: int) -> str | None:
    """The control operator at `i`, if any (not the `&`/`|` of a redirection like `2>&1`)."""
    for op in _OPERATORS:
        if script.startswith(op, i):
            prev = script[i - 1] if i else ""
            if op in ("&", "|") and prev in "<>":
                return None
            if op == "&" and script.startswith("&>", i):
                return None
            return op
    return None


def line_end(script: str, i: int) -> int:
    """Where the line that holds `i` ends: after its newline, or at the script's end."""
    end = script.find("\n", i)
    return len(script) if end < 0 else end + 1


def heredoc_end(script: str, i: int, delimiter: str, strip_tabs: bool) -> tuple[int, int]:
    """(where the body ends, where its delimiter's line ends) of a heredoc whose body starts at
    `i`; the script's end for both when no line closes it. Lines end at a newline only, as
    the shell's do."""
    while i < len(script):
        end = line_end(script, i)
        line = script[i:end].rstrip("\n")
        if (line.lstrip("\t") if strip_tabs else line) == delimiter:
            return i, end
        i = end
    return i, i


def _skip_heredoc_bodies(script: str, i: int, pending: list[tuple[str, bool]]) -> int:
    """Skip the bodies of heredocs opened on the line that ended just before `i`."""
    for delim, strip_tabs in pending:
        _, i = heredoc_end(script, i, delim, strip_tabs)
    pending.clear()
    return i


_CASE_IN = re.compile(r"\s*case\s+[^\n]+?\s+in")
"""A case's head, up to its first pattern."""
_CASE_OPEN = re.compile(r"(?:^|[\s;&|(])case\s")
_PATTERN = re.compile(r"(?!esac\b)\(?[^\n;&()]*\)")
"""A case's pattern and its `)`, on one line (`esac` ends the case instead)."""
_BEFORE_ARITHMETIC = frozenset({"", "if", "elif", "while", "until", "then", "do", "else", "!"})


def split_commands(script: str) -> list[SimpleCommand]:
    """The simple commands of a shell script, at every level of `&&`, `||`, `;`, `|`, newlines.

    Compound commands are cut into their parts (`if a; then b; fi` gives `a` and `b`), so that
    an install inside one is found too; quotes, `$(...)`, comments and heredocs are respected.
    Each part keeps its position so that it can be replaced in the original text.
    """
    commands: list[SimpleCommand] = []
    pending: list[tuple[str, bool]] = []
    start, i, n = 0, 0, len(script)
    pattern = False
    """A case's pattern may come next (after `case … in` or `;;`)."""

    def cut(end: int, replace_end: int) -> None:
        _add_command(commands, script, start, end, replace_end)

    while i < n:
        ch = script[i]
        if pattern and not ch.isspace():
            pattern = False
            if (found := _PATTERN.match(script, i)) is not None:  # `x86_64)`, `a|b)`: no command
                start = i = found.end()
                continue
        if ch.isspace() and _CASE_IN.fullmatch(script, start, i):
            cut(i, i)
            start, pattern = i, True
        if ch == "\\":
            i += 2
        elif ch in "'\"`" or script.startswith("$(", i) or script.startswith("${", i):
            i = _skip(script, i)
        elif ch == "#" and (i == 0 or script[i - 1] in " \t\n;&|()"):
            cut(i, i)
            end = script.find("\n", i)
            start = i = n if end < 0 else end
        elif ch == "\n":
            after = _skip_heredoc_bodies(script, i + 1, pending) if pending else i + 1
            cut(i, after if after > i + 1 else i)
            start = i = after
        elif script.startswith("<<<", i):  # a here-string: no heredoc, no body to skip
            i += 3
        elif script.startswith("<<", i):
            match = HEREDOC.match(script, i)
            if match is None:
                i += 2
            else:
                pending.append((match.group(3), match.group(1) == "-"))
                i = match.end()
        elif script.startswith("((", i) and script[start:i].strip() in _BEFORE_ARITHMETIC:
            # `(( a > b ))` is arithmetic, not a subshell of a command named `a`
            cut(i, i)
            end = script.find("))", i + 2)
            start = i = n if end < 0 else end + 2
        elif (op := _operator_at(script, i)) is not None:
            cut(i, i)
            start = i = i + len(op)
            pattern = op == ";;" and _CASE_OPEN.search(script, 0, i) is not None
        else:
            i += 1
    cut(n, n)
    return commands


def _add_command(
    commands: list[SimpleCommand], script: str, start: int, end: int, replace_end: int
) -> None:
    """Record script[start:end] as a command, without reserved words and surrounding blanks.

    `replace_end` goes past `end` only when the command opened heredocs, whose bodies follow.
    """
    while True:
        while start < end and (script[start] in " \t\r\n" or script.startswith("\\\n", start)):
            start += 2 if script[start] == "\\" else 1
        match = _RESERVED.match(script, start, end)
        if match is None:
            break
        start = match.end()
    stop = end
    while stop > start and (
        script[stop - 1] in " \t\r\n"
        or (script[stop - 1] == "\\" and script[stop : stop + 1] == "\n")
    ):
        stop -= 1
    if stop > start:
        heredocs_end = replace_end if replace_end > end else stop
        commands.append(SimpleCommand(start, stop, heredocs_end, script[start:stop]))


_PIPE_NOISE = re.compile(r"[\s(){}!]|\b(?:while|until|if|then|do|else|elif|time)\b")


def pipelines(text: str) -> list[list[SimpleCommand]]:
    """The simple commands of `text`, grouped into pipelines (`a | b` is one group)."""
    groups: list[list[SimpleCommand]] = []
    previous: SimpleCommand | None = None
    for sc in split_commands(text):
        between = text[previous.replace_end : sc.start] if previous else ""
        if previous is not None and _PIPE_NOISE.sub("", between) in ("|", "|&"):
            groups[-1].append(sc)
        else:
            groups.append([sc])
        previous = sc
    return groups
