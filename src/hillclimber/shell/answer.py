"""A shell command as a model writes it in an answer: the command in it (`command_in`: a fenced
block, one quoted in a sentence, or the first line and what continues it), and a command
without the redirect of its output (`unredirected`). Used where the harness asks the model for
one command apart from the loop (`harness/climbing/computed.py`)."""

from __future__ import annotations

import re
import shlex

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


_REDIRECT = re.compile(r"\s*(?:(?<![\d&>])>>?|\|\s*tee(?:\s+-a)?)\s*\S+\s*$")
"""The redirect of a command's output at its end (not of another descriptor: `2>/dev/null`)."""


_GROUP = re.compile(r"^\{\s*(.*?);?\s*\}$", re.DOTALL)


def unredirected(command: str) -> str:
    """The command without the redirect of its output, nor the group around it (`{ a; b; } >
    file`), its spacing made plain."""
    bare = _REDIRECT.sub("", command).strip()
    grouped = _GROUP.match(bare)
    return " ".join((grouped.group(1) if grouped else bare).split())
