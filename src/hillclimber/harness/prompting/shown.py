"""The files a task names, shown to the model as they are now.

A small model rarely reads a file before copying or changing it (it overwrites config files
and loses their keys). The harness reads the existing files the instruction names and puts
their current content (head and tail, capped) into the prompt, so every micro-prompt carries
what the model needs to act on them.
"""

from __future__ import annotations

import posixpath

from hillclimber.harness.acting.tools import truncate
from hillclimber.harness.instruction import named_paths
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import read_text, same_name

MAX_FILES = 4
MAX_BYTES = 64_000


def named_files(instruction: str, sandbox: Sandbox, workdir: str, chars: int = 1200) -> str:
    """`--- path (n lines) ---` blocks for the existing text files the instruction names (a
    bare name not in the working folder: the one file of that name in a folder of it)."""
    blocks: list[str] = []
    for name in named_paths(instruction, workdir):
        if len(blocks) >= MAX_FILES:
            break
        text = read_text(sandbox, name, max_bytes=MAX_BYTES)
        if text is None and posixpath.dirname(name) == workdir.rstrip("/"):
            found = same_name(sandbox, workdir, posixpath.basename(name))  # in a folder of it
            name = found[0] if len(found) == 1 else name
            text = read_text(sandbox, name, max_bytes=MAX_BYTES) if len(found) == 1 else None
        if text is None:
            continue
        shown, meta = truncate(text, max_lines=40, max_chars=chars)
        blocks.append(f"--- {name} ({meta['lines_total']} lines) ---\n{shown}")
    return "\n".join(blocks)
