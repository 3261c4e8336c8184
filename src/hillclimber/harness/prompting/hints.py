"""Generic hints, on only where the suite says so.

A suite declares its hint policy; otherwise its path decides: `fm-mini` and
`terminal-bench-mini` → on, `terminal-bench-2` and `tb2` → off, anything else → off. Hints are
generic (read before copying, write exactly what was read, `wc -w` for word counts), never the
answer to a particular task.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

HintSetting = Literal["suite", "on", "off"]


def suite_mode(source: str | None) -> Literal["on", "off"] | None:
    """The hint policy a suite's name or path implies (None: unknown)."""
    if not source:
        return None
    lower = source.lower()
    if "terminal-bench-mini" in lower or "fm-mini" in lower:
        return "on"
    if "terminal-bench-2" in lower or "tb2" in lower:
        return "off"
    return None


def hints_on(setting: HintSetting, declared: str | None, source: str | None) -> bool:
    if setting != "suite":
        return setting == "on"
    policy = declared or suite_mode(source)
    return policy == "on"


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
    if "append" in lower and not wrote and "run_command" not in done:
        return (
            "Hint: to add a line at the end of a file without touching the rest, run: "
            "printf '%s\\n' 'TEXT' >> FILE"
        )
    if re.search(r"\.sh\b|bash script|shell script", lower) and "write_file" in done:
        return (
            "Hint: a bash script is a text file of commands, for example the two lines "
            "#!/bin/bash and echo 'TEXT'. Run it with: bash FILE (bash FILE > OUT saves what it "
            "prints)."
        )
    if any(w in lower for w in ("listing", "output to", "save its output", "into the file")) and (
        "run_command" not in done
    ):
        return "Hint: to save what a command prints into a file, run: COMMAND > FILE"
    if "word" in lower and "count" in lower and "run_command" not in done:
        return "Hint: count words with a shell command such as `wc -w < file`."
    if any(w in lower for w in _READ_WORDS) and "read_file" not in done and not wrote:
        return "Hint: read the input file first (read_file), then act on what you read."
    if "read_file" in done and not wrote and "copy" in lower:
        return "Hint: write the content EXACTLY as you read it, byte for byte."
    if "read_file" in done and not wrote and any(w in lower for w in ("change", "replace")):
        return "Hint: for a small change use edit_file with the exact old text and the new text."
    if (".sh" in lower or "script" in lower) and "output" in lower and "run_command" not in done:
        return (
            "Hint: after writing the script, run it with bash and redirect its output to the file."
        )
    return None
