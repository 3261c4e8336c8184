"""The files a task names, shown to the model as they are now.

A small model rarely reads a file before copying or changing it (it overwrites config files
and loses their keys). The harness reads the existing files the instruction names and puts
their current content (head and tail, capped) into the prompt, so every micro-prompt carries
what the model needs to act on them.
"""

from __future__ import annotations

from functools import partial

from hillclimber.harness.acting.tools import truncate
from hillclimber.harness.instruction import named_paths, relocated
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import exists, read_text, same_name

MAX_FILES = 4
MAX_BYTES = 64_000
SHOWN_LINES, SHOWN_CHARS = 40, 1200
"""How much of each file is shown (head and tail where it is longer)."""


Named = list[tuple[str, str | None]]
"""Each path an instruction names, with the file to show instead while it is not there."""


def located(instruction: str, sandbox: Sandbox, workdir: str) -> Named:
    """The paths the instruction names; for a bare name not in the working folder, the one
    file of that name under it or in a folder the instruction names (`instruction.relocated`,
    looked up once, not at every turn)."""
    where = relocated(instruction, workdir, partial(exists, sandbox), partial(same_name, sandbox))
    return [(name, where.get(name)) for name in named_paths(instruction, workdir)]


def shown_whole(text: str) -> bool:
    """Whether a file of this text is shown whole, not cut to its head and tail."""
    return len(text) <= SHOWN_CHARS and len(text.splitlines()) <= SHOWN_LINES


def shown(named: Named, sandbox: Sandbox, chars: int = SHOWN_CHARS) -> str:
    """`--- path (n lines) ---` blocks for the named files that are text files now (at most
    `MAX_FILES`)."""
    blocks: list[str] = []
    for name, elsewhere in named:
        if len(blocks) >= MAX_FILES:
            break
        text = read_text(sandbox, name, max_bytes=MAX_BYTES)
        if text is None and elsewhere is not None:
            name, text = elsewhere, read_text(sandbox, elsewhere, max_bytes=MAX_BYTES)
        if text is None:
            continue
        cut, meta = truncate(text, max_lines=SHOWN_LINES, max_chars=chars)
        blocks.append(f"--- {name} ({meta['lines_total']} lines) ---\n{cut}")
    return "\n".join(blocks)
