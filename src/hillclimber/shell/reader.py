"""Every piece of code a shell script runs, read: the script itself, the bodies of its
`$(…)`, backticks and `<(…)`, the code it hands to `sh -c`, `eval` or `find -exec`, and the code
it pipes into a shell (heredocs, here-strings, `echo … | sh`) — each split into pipelines of
commands, so that a check can look at every command wherever it hides.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hillclimber.sandbox.base import APP
from hillclimber.shell.command import (
    DOWNLOAD,
    DOWNLOADERS,
    SHELLS,
    SUBST,
    Command,
    Scope,
    inner_code,
    program,
    read_command,
)
from hillclimber.shell.split import (
    HEREDOC,
    SimpleCommand,
    heredoc_end,
    line_end,
    pipelines,
    split_commands,
)
from hillclimber.shell.words import operands, read_words

MAX_DEPTH = 6


@dataclass(frozen=True)
class Level:
    """One piece of shell code (a command line, a `-c` string, a `$(…)` body), read."""

    text: str
    pipelines: tuple[tuple[Command, ...], ...]
    too_deep: bool = False


def levels(script: str, cwd: str | None = APP, depth: int = 0) -> Iterator[Level]:
    """Every piece of code `script` runs, each read into pipelines of commands."""
    if depth > MAX_DEPTH:
        yield Level(script, (), too_deep=True)
        return
    text, bodies = lift(script)
    for body in bodies:
        yield from levels(body, cwd, depth + 1)
    scope = Scope(cwd)
    groups: list[tuple[Command, ...]] = []
    inner: list[tuple[str, str | None]] = []
    for group in pipelines(text):
        cmds = [read_command(sc.text, scope) for sc in group]
        for cmd in cmds:
            if cmd is not None:
                inner += [(code, cmd.cwd) for code in inner_code(cmd)]
        inner += [(code, scope.cwd) for code in _piped_code(text, group, cmds)]
        groups.append(tuple(c for c in cmds if c is not None))
    yield Level(text, tuple(groups))
    for code, where in inner:
        yield from levels(code, where, depth + 1)


def commands(script: str) -> Iterator[Command]:
    """Every simple command `script` runs, at every level."""
    for level in levels(script):
        for pipeline in level.pipelines:
            yield from pipeline


def lift(script: str, quotes: bool = True) -> tuple[str, list[str]]:
    """`script` with each `$(…)`, backtick and `<(…)`/`>(…)` swapped for a placeholder word
    (they would confuse the word reader), and their bodies, which run too. Comments are
    dropped (they run nothing); heredoc bodies are kept as they are, their substitutions
    lifted only where the shell expands them (unquoted delimiter)."""
    out: list[str] = []
    bodies: list[str] = []
    heredocs: list[tuple[str, bool, bool]] = []
    i, n, in_double = 0, len(script), False
    while i < n:
        ch = script[i]
        span = _substitution_at(script, i, in_double or not quotes)
        if span is not None:
            body = script[span[0] : span[1]]
            bodies.append(body)
            out.append(DOWNLOAD if _downloads(body) else SUBST)
            i = span[2]
        elif ch == "\\":
            out.append(script[i : i + 2])
            i += 2
        elif not quotes:
            out.append(ch)
            i += 1
        elif ch == "'" and not in_double:
            end = script.find("'", i + 1)
            end = n if end < 0 else end + 1
            out.append(script[i:end])
            i = end
        elif ch == "#" and not in_double and (i == 0 or script[i - 1] in " \t\n;&|()"):
            end = script.find("\n", i)
            i = n if end < 0 else end
        elif ch == "\n" and heredocs and not in_double:
            i = _lift_heredocs(script, i + 1, heredocs, out, bodies)
        elif script.startswith("<<<", i):  # a here-string: no heredoc, no body to lift
            out.append("<<<")
            i += 3
        else:
            if ch == '"':
                in_double = not in_double
            elif script.startswith("<<", i) and not in_double:
                heredocs.extend(_heredoc_opening(script, i))
            out.append(ch)
            i += 1
    return "".join(out), bodies


def _heredoc_opening(script: str, i: int) -> list[tuple[str, bool, bool]]:
    """(delimiter, strip tabs, body expanded) of a heredoc opened at `i`, if one is."""
    match = HEREDOC.match(script, i)
    if match is None:
        return []
    return [(match.group(3), match.group(1) == "-", match.group(2) == "")]


def _lift_heredocs(
    script: str,
    i: int,
    heredocs: list[tuple[str, bool, bool]],
    out: list[str],
    bodies: list[str],
) -> int:
    """Copy the bodies of the heredocs opened on the line before `i`; return where they end."""
    out.append("\n")
    for delimiter, strip_tabs, expands in heredocs:
        start = i
        _, i = heredoc_end(script, i, delimiter, strip_tabs)
        body = script[start:i]
        if expands:
            body, found = lift(body, quotes=False)
            bodies.extend(found)
        out.append(body)
    heredocs.clear()
    return i


def _substitution_at(script: str, i: int, in_double: bool) -> tuple[int, int, int] | None:
    """(body start, body end, end) of a command substitution starting at `i`, if one does."""
    if script.startswith("$((", i):
        return None  # arithmetic
    if script.startswith("$(", i):
        close = _closing_paren(script, i + 1)
        return i + 2, close, min(close + 1, len(script))
    if script[i] == "`":
        close = i + 1
        while close < len(script) and script[close] != "`":
            close += 2 if script[close] == "\\" else 1
        return i + 1, close, min(close + 1, len(script))
    if not in_double and script[i] in "<>" and script.startswith("(", i + 1):
        close = _closing_paren(script, i + 1)
        return i + 2, close, min(close + 1, len(script))
    return None


def _closing_paren(script: str, i: int) -> int:
    """Index of the `)` that closes the `(` at `i` (quotes respected), or the end."""
    depth, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "'\"":
            end = script.find(ch, i + 1)
            i = n if end < 0 else end + 1
            continue
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return i
        i += 1
    return n


def _downloads(body: str) -> bool:
    """Whether a substitution's body downloads something (its output is then remote code)."""
    for sc in split_commands(body):
        words = read_words(sc.text)
        if words is not None and words.name in DOWNLOADERS:
            return True
    return False


def _piped_code(
    text: str, group: Sequence[SimpleCommand], cmds: Sequence[Command | None]
) -> list[str]:
    """Code a pipeline feeds to a shell on stdin: heredocs, here-strings, echo/printf."""
    shells = [
        i
        for i, c in enumerate(cmds)
        if c is not None and c.name in SHELLS and program(c) == ("stdin", "")
    ]
    if not shells:
        return []
    code: list[str] = []
    for j in range(shells[-1] + 1):
        sc, cmd = group[j], cmds[j]
        if sc.replace_end > sc.end:
            code.append(_bodies(sc.text, text[sc.end : sc.replace_end]))
        code += _here_strings(sc.text)
        if j < shells[-1] and cmd is not None and cmd.name in ("echo", "printf"):
            code.append(" ".join(operands(cmd.args[1:])).replace("\\n", "\n"))
    return code


def _bodies(command: str, after: str) -> str:
    """The heredoc bodies that follow `command`, without the lines that close them."""
    closing = {m.group(3) for m in HEREDOC.finditer(command)}
    lines = after.splitlines(keepends=True)
    return "".join(line for line in lines if line.strip("\t\n") not in closing)


def _here_strings(text: str) -> list[str]:
    found: list[str] = []
    for part in text.split("<<<")[1:]:
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        found += words[:1]
    return found


def heredoc_bodies(script: str) -> list[str]:
    """The body of each heredoc in `script` as written: what `cat > run.py <<'EOF'` writes,
    what `python3 - <<EOF` runs."""
    bodies: list[str] = []
    i = 0
    while i < len(script):
        end = line_end(script, i)
        line, i = script[i:end], end
        for strip, _, delimiter in [] if "<<<" in line else HEREDOC.findall(line):
            body_end, after = heredoc_end(script, i, delimiter, strip == "-")
            bodies.append(script[i:body_end])
            i = after
    return bodies
