"""The files a task names, shown to the model as they are now.

A small model rarely reads a file before copying or changing it (it overwrites config files
and loses their keys). The harness reads the existing files the instruction
names and puts their current content (head and tail, capped) into the prompt, so every
micro-prompt carries what the model needs to act on them.
"""

from __future__ import annotations

import posixpath
import re

from hillclimber.harness.acting.handlers import read_text
from hillclimber.harness.acting.tools import truncate
from hillclimber.sandbox import APP, Sandbox

NAMED = re.compile(
    r"(?:/app/)?(?<![\w/.-])[\w][\w./-]*\.[A-Za-z0-9]{1,6}\b|/app/[\w./-]+|"
    r"(?<![\w.:/-])/(?:[\w.-]+/)+[\w.-]*\.[A-Za-z0-9]{1,6}\b"
)
"""A path an instruction names: a file name (`report.csv`, `src/x.py`), anything under /app,
or an absolute path to a file elsewhere (`/tmp/result.json`, `/workspace/out.txt`; not a URL's
path)."""
MAX_FILES = 4
MAX_BYTES = 64_000


def named_paths(instruction: str, workdir: str = APP) -> list[str]:
    """The paths the instruction names, as sandbox paths, in order, each once."""
    found: dict[str, None] = {}
    for match in NAMED.findall(instruction):
        found[posixpath.normpath(posixpath.join(workdir, match.rstrip(".")))] = None
    return list(found)


def named_files(instruction: str, sandbox: Sandbox, workdir: str, chars: int = 1200) -> str:
    """`--- path (n lines) ---` blocks for the existing text files the instruction names."""
    blocks: list[str] = []
    for name in named_paths(instruction, workdir):
        if len(blocks) >= MAX_FILES:
            break
        text = read_text(sandbox, name, max_bytes=MAX_BYTES)
        if text is None:
            continue
        shown, meta = truncate(text, max_lines=40, max_chars=chars)
        blocks.append(f"--- {name} ({meta['lines_total']} lines) ---\n{shown}")
    return "\n".join(blocks)


FORBID = re.compile(
    r"\b(?:do not|don't|never|must not)\s+(?:change|modify|alter|edit|touch|delete|remove|"
    r"overwrite|rename|move)\b(?:[^.\n]|\.(?=\S))*",
    re.IGNORECASE,
)


def protected_files(instruction: str) -> set[str]:
    """Files the instruction says not to change ("Do not change /app/source.txt."), also when
    the sentence goes on to the next line."""
    found: set[str] = set()
    for sentence in FORBID.findall(" ".join(instruction.split())):
        for name in NAMED.findall(sentence):
            name = name.rstrip(".")
            found.add(name if name.startswith("/") else f"/app/{name}")
    return found
