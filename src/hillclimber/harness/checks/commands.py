"""What the instruction says of commands: whether a quoted text is a whole command line to run
(`runnable`, for the checks that a command the instruction gives succeeds), and a script it
calls executable must be executable (`executables`)."""

from __future__ import annotations

import posixpath
import re
import shutil
from collections.abc import Iterator

from hillclimber.harness.checks.base import Check
from hillclimber.harness.checks.kinds import FileExecutable
from hillclimber.harness.checks.text import Sentence
from hillclimber.sandbox.base import STANDARD_PATH
from hillclimber.shell.words import read_words


def executables(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """A file to make that the instruction calls executable must be executable; not a data
    file the same sentence names ("produces a working executable … Save your solution to
    `/workspace/fix.txt`"). A sentence that names no file ("The script must be executable")
    speaks of the one script to make, where there is one."""
    scripts = [p for p in new_files if posixpath.splitext(p)[1] in _SCRIPT_EXTENSIONS]
    for sentence in said:
        if not sentence.has("executable"):
            continue
        for path in sentence.paths:
            if path in new_files and posixpath.basename(path) and not _FOLDER_OR_DATA.search(path):
                yield FileExecutable(path)
        if not sentence.paths and _SCRIPT_EXECUTABLE.search(sentence.text) and len(scripts) == 1:
            yield FileExecutable(scripts[0])


_SCRIPT_EXTENSIONS = (".sh", ".bash", ".py", ".pl", ".rb")
_SCRIPT_EXECUTABLE = re.compile(
    r"\b(?:script|it)\s+(?:must|should|needs?\s+to|has\s+to)\s+be\s+(?:\w+\s+and\s+)?executable\b"
    r"|\bmake\s+(?:it|the\s+script)\s+executable\b|\bexecutable\s+(?:\w+\s+)?script\b",
    re.I,
)
"""The script itself called executable ("The script should be executable", "Format: Executable
bash script"), not a program it makes ("your shell script produces an executable")."""


_MUTATES = frozenset(
    ("git", "rm", "mv", "cp", "pip", "pip3", "apt", "apt-get", "curl", "wget", "npm", "chmod",
     "chown", "mkdir", "touch", "tee", "sed", "dd", "ln", "kill", "sudo")
)  # fmt: skip
_CAPS = re.compile(r"(?<![\w/.-])[A-Z][A-Z_]{2,}(?![\w/.-])")
_SLOT = re.compile(r"<[A-Za-z_][\w -]*>")
"""A usage's slot: `python3 solver.py <cnf_file>` (a redirection has no word right after `<`
and a `>` after it)."""


def runnable(command: str) -> bool:
    """A whole command line (not a placeholder usage like `sum FILE`) that only reads or
    builds, whose program is here or a path."""
    if not command or "\n" in command.strip() or _CAPS.search(command) or _SLOT.search(command):
        return False
    if command.strip() in ("true", "false"):
        return False  # a value ("followed by `true` or `false`"), not a command
    words = read_words(command.split("&&")[-1])
    if words is None or not words.args:
        return False
    if words.name in _MUTATES:
        return False
    first = words.args[0]
    alone = len(words.args) == 1
    if first.endswith("/") or (
        alone and (_FOLDER_OR_DATA.search(first) or _NO_PROGRAM.search(first))
    ):
        return False  # `/workspace/data/`, `/app/input.csv`, `/app/Dockerfile`: not a command
    return first.startswith(("/", "./")) or shutil.which(words.name, path=STANDARD_PATH) is not None


_FOLDER_OR_DATA = re.compile(r"\.(?:csv|json|txt|log|md|yaml|yml|xml|db|dat|bed|tsv)$", re.I)
_NO_PROGRAM = re.compile(
    r"(?:^|/)(?:Dockerfile|Containerfile|Makefile|CMakeLists\.txt|Jenkinsfile|Vagrantfile|"
    r"Procfile|Gemfile|Pipfile|README|LICENSE)$"
    r"|\.(?:c|h|cc|cpp|hpp|go|rs|java|ts|sql|proto|conf|cfg|ini|toml|env|html|css|tf|lock|pid)$"
)
"""A file named alone that is built from, configured or read, never run: a build file (the
TermiGen task's "`/workspace/app/Dockerfile` succeeds" ran the Dockerfile), a source or a
configuration file, a lock or PID file."""
