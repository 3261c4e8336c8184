"""The files a task names, shown to the model as they are now.

A small model rarely reads a file before copying or changing it (it overwrites config files
and loses their keys). The harness reads the existing files the instruction names and puts
their current content (head and tail, capped) into the prompt, so every micro-prompt carries
what the model needs to act on them.
"""

from __future__ import annotations

from hillclimber.harness.acting.tools import truncate
from hillclimber.harness.instruction import named_paths
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import read_text

MAX_FILES = 4
MAX_BYTES = 64_000


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
