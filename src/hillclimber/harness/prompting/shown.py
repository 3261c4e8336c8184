"""The files a task names, shown to the model as they are now.

A small model rarely reads a file before copying or changing it (it overwrites config files
and loses their keys). The harness reads the existing files the instruction names and puts
their current content (head and tail, capped) into the prompt, so every micro-prompt carries
what the model needs to act on them.
"""

from __future__ import annotations

from collections.abc import Sequence

from hillclimber.harness.acting.tools import truncate
from hillclimber.harness.prompting.templates import Prompts
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import folder_entries, read_text

MAX_FILES = 4
MAX_BYTES = 64_000
SHOWN_LINES, SHOWN_CHARS = 40, 1200
"""How much of each file is shown (head and tail where it is longer)."""


def shown_whole(text: str) -> bool:
    """Whether a file of this text is shown whole, not cut to its head and tail."""
    return len(text) <= SHOWN_CHARS and len(text.splitlines()) <= SHOWN_LINES


def shown(named: Sequence[str], sandbox: Sandbox, say: Prompts, chars: int = SHOWN_CHARS) -> str:
    """`--- path (n lines) ---` blocks for the named files that are text files now (at most
    `MAX_FILES`). `named` is `TaskPaths.named`: a bare name is already the file it is, in a
    folder the instruction names when it is not in the working folder."""
    blocks: list[str] = []
    for name in named:
        if len(blocks) >= MAX_FILES:
            break
        text = read_text(sandbox, name, max_bytes=MAX_BYTES)
        if text is None:
            continue
        cut, meta = truncate(text, max_lines=SHOWN_LINES, max_chars=chars)
        blocks.append(say("micro.file", path=name, lines=meta["lines_total"], text=cut))
    return "\n".join(blocks)


def listed(folder: str, sandbox: Sandbox, say: Prompts) -> str:
    """`folder: a.txt, data/, …`, what the working folder holds now (`micro.folder_line`)."""
    count, entries = folder_entries(sandbox, folder)
    return say(
        "micro.folder_line", folder=folder, entries=entries if count else say("micro.folder_empty")
    )
