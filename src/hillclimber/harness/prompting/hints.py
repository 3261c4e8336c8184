"""Generic hints, on only where the suite's own file says so (`hints = "on"` in its
`suite.toml` or manifest; a dataset's path decides nothing): read the input before acting on it,
write what was read exactly, make a small change with `edit_file`.

None of them says how to do one task. The hints that did (the shell line that appends a line,
counts words, saves a listing; what a bash script is) each helped the one built-in task it was
written from, and were removed: a harness that knows its own suite's answers measures the suite,
not itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

HintSetting = Literal["suite", "on", "off"]


def hints_on(setting: HintSetting, declared: str | None) -> bool:
    """Whether hints are on: as the setting says, or (`suite`) as the suite's file declares."""
    if setting != "suite":
        return setting == "on"
    return declared == "on"


_READ_WORDS = (
    "copy",
    "duplicate",
    "append",
    "change",
    "modify",
    "replace",
    "edit",
    "fix",
    "convert",
    "count",
    "keep",
)


def build_hint(instruction: str, previous_tools: Sequence[str]) -> str | None:
    """One generic hint for this point of the task, or None."""
    lower = instruction.lower()
    done = set(previous_tools)
    wrote = {"write_file", "edit_file"} & done
    if any(w in lower for w in _READ_WORDS) and "read_file" not in done and not wrote:
        return "Hint: read the input file first (read_file), then act on what you read."
    if "read_file" in done and not wrote and "copy" in lower:
        return "Hint: write the content EXACTLY as you read it, byte for byte."
    if "read_file" in done and not wrote and any(w in lower for w in ("change", "replace")):
        return "Hint: for a small change use edit_file with the exact old text and the new text."
    return None
