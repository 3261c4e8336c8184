"""Other readings of a small model's call: what it often means when it says something else.

Read from trajectories of the 0.5B model: it writes the text of a command into the file that
should hold the command's output; it overwrites a log with the one line it meant to add; it
swaps old_text and new_text; it runs a `.sh` file with python; it fills a script with the
sentence the script should print; it wraps a file's content in the Markdown fence the task
showed it in; it misremembers the line it edits; it runs a command (`git add docs/usage.md`)
in /app when the task named the folder it belongs in (/app/repo). While climbing, the harness
tries these readings beside the model's own call, on the workspace, and the task's tests decide —
a reading that is wrong passes no more tests and is not kept. Nothing here knows any task.
"""

from __future__ import annotations

import difflib
import posixpath
import re
import shlex
from collections.abc import Callable, Sequence

from hillclimber.harness.acting.tools import ToolCall

_COMMAND_WORDS = """
ls cat wc echo printf grep sort head tail find date pwd whoami uname cut awk sed tr uniq du df
env python python3 bash sh stat file md5sum sha256sum nl tac rev seq jq sqlite3 git diff comm
join paste
"""
COMMANDS = frozenset(_COMMAND_WORDS.split())
"""First words that make a one-line text a shell command rather than data."""
_PLANNED = COMMANDS | frozenset(
    ("gcc", "cc", "make", "chmod", "cp", "mv", "mkdir", "touch", "sed", "cd")
)
"""First words that make a step of the model's plan a command to run as it is."""
_SHELL_TEXT = "if then else fi for while do done case esac function set cd export source . [ test"
_SHELL_WORDS = frozenset(f"{_SHELL_TEXT} true false exit read local return cp mv rm mkdir".split())

SCRIPTS = (".sh", ".bash", ".py", ".pl", ".rb", ".js")
_INTERPRETERS = {".sh": "bash", ".bash": "bash", ".py": "python3"}


def readings(
    call: ToolCall, read: Callable[[str], str | None], folders: Sequence[str] = ()
) -> list[ToolCall]:
    """Readings of `call` worth trying besides it. `read(path)` gives a file's text now, or
    None when there is no such file; `folders` are the folders the task names."""
    args = call.arguments
    found: list[ToolCall] = []
    if call.name == "write_file":
        path, content = str(args.get("path", "")), str(args.get("content", ""))
        if (command := _command_output(path, content)) is not None:
            found.append(ToolCall(name="run_command", arguments={"command": command}))
        if (script := _printing_script(path, content)) is not None:
            found.append(ToolCall(name="write_file", arguments={"path": path, "content": script}))
        if (appended := _appended(read(path), content)) is not None:
            found.append(ToolCall(name="write_file", arguments={"path": path, "content": appended}))
        if (unfenced := _unfenced(content)) is not None:
            found.append(ToolCall(name="write_file", arguments={"path": path, "content": unfenced}))
    elif call.name == "edit_file":
        old, new = str(args.get("old_text", "")), str(args.get("new_text", ""))
        text = read(str(args.get("path", "")))
        if text is not None and old and new and old not in text:
            if new in text:
                found.append(
                    ToolCall(name="edit_file", arguments={**args, "old_text": new, "new_text": old})
                )
            elif (line := _closest_line(text, old)) is not None:
                for replacement in dict.fromkeys((_changed(line, old, new), new)):
                    found.append(
                        ToolCall(
                            name="edit_file",
                            arguments={**args, "old_text": line, "new_text": replacement},
                        )
                    )
    elif call.name == "run_command":
        command = str(args.get("command", ""))
        if (interpreted := _right_interpreter(command)) is not None:
            found.append(ToolCall(name="run_command", arguments={"command": interpreted}))
        for folder in _elsewhere(command, folders):
            found.append(ToolCall(name="run_command", arguments={"command": folder}))
    return found


def _command_output(path: str, content: str) -> str | None:
    """`write_file(out.txt, "ls /app")` → `ls /app > out.txt`: the output, not the text."""
    if posixpath.splitext(path)[1] in SCRIPTS or (line := _command_line(content, COMMANDS)) is None:
        return None
    return f"{line} > {shlex.quote(path)}"


def _printing_script(path: str, content: str) -> str | None:
    """A `.sh` file written with plain sentences: perhaps a script that prints them."""
    lines = [line for line in content.splitlines() if line.strip()]
    if posixpath.splitext(path)[1] not in (".sh", ".bash") or not lines:
        return None
    for line in lines:
        first = _first_word(line)
        if (
            first is None
            or line.lstrip().startswith("#")
            or first in COMMANDS
            or first in _SHELL_WORDS
        ):
            return None
    return "#!/bin/bash\n" + "".join(f"echo {shlex.quote(line)}\n" for line in lines)


def _closest_line(text: str, old: str) -> str | None:
    """The one line of `text` that a one-line `old_text` not in it most likely means (the model
    misremembered a number or the spaces: `APP_PORT=18080` for `APP_PORT=8080`)."""
    wanted = old.strip()
    if not wanted or "\n" in wanted:
        return None
    lines = text.splitlines()
    near = difflib.get_close_matches(wanted, lines, n=1, cutoff=0.8)
    return near[0] if near and lines.count(near[0]) == 1 else None


def _changed(line: str, old: str, new: str) -> str:
    """`line` with the model's change made in it: what differs between `old` and `new` (their
    common start and end left out), where that occurs once in the line (`port = 8080` with
    `port=8080` → `port=9090` becomes `port = 9090`, its spaces kept); else `new` itself."""
    start = len(posixpath.commonprefix([old, new]))
    end = len(posixpath.commonprefix([old[start:][::-1], new[start:][::-1]]))
    before, after = old[start : len(old) - end], new[start : len(new) - end]
    return line.replace(before, after) if before and line.count(before) == 1 else new


_FENCE = re.compile(r"\A\s*```[^\n`]*\n(.*?)\n?```\s*\Z", re.DOTALL)


def _unfenced(content: str) -> str | None:
    """Content wrapped in a Markdown fence, as the model saw it in the task: perhaps only what
    is inside it belongs in the file."""
    match = _FENCE.match(content)
    return match.group(1) + "\n" if match and match.group(1).strip() else None


def _appended(existing: str | None, content: str) -> str | None:
    """A few lines written over a longer existing file: perhaps they were meant to be added."""
    if not existing or not content.strip() or content.strip() in existing:
        return None
    if len(content.splitlines()) >= len(existing.splitlines()):
        return None
    joined = existing if existing.endswith("\n") else existing + "\n"
    return joined + (content if content.endswith("\n") else content + "\n")


def _right_interpreter(command: str) -> str | None:
    """`python3 greet.sh` → `bash greet.sh`, `bash tool.py` → `python3 tool.py`."""
    match = re.match(r"\s*(python3?|bash|sh)\s+(\S+)", command)
    if match is None:
        return None
    wanted = _INTERPRETERS.get(posixpath.splitext(match.group(2))[1])
    if wanted is None or match.group(1) in (wanted, "sh" if wanted == "bash" else wanted):
        return None
    return wanted + command[match.end(1) :]


def _elsewhere(command: str, folders: Sequence[str]) -> list[str]:
    """`git add docs/usage.md` → `cd /app/repo && git add docs/usage.md` for each folder the
    task names, unless the command already chooses where it runs."""
    if not command.strip() or re.match(r"\s*(cd|pushd)\s", command) or " -C " in command:
        return []
    return [f"cd {shlex.quote(folder)} && {command.strip()}" for folder in folders]


def planned_command(step: str) -> str | None:
    """The command a plan step is, when it is one (`git commit -m 'Add usage docs'`, or
    "Run `make`"), else None: a step in words (`Create the file`) is not run."""
    spans = re.findall(r"`([^`]+)`", step)
    return _command_line(
        spans[0] if len(spans) == 1 and step.lower().startswith("run") else step, _PLANNED
    )


def _command_line(text: str, words: frozenset[str]) -> str | None:
    """`text` stripped, when it is one line whose first shell word is one of `words`."""
    line = text.strip()
    if not line or "\n" in line or _first_word(line) not in words:
        return None
    return line


def _first_word(line: str) -> str | None:
    """The first word of `line` as the shell reads it; None when it has none or cannot be read."""
    try:
        return shlex.split(line)[0]
    except (ValueError, IndexError):
        return None
