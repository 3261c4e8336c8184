"""Step summaries: each executed step in at most 100 characters, tool-aware ("Wrote 123 bytes
to foo.txt", "Ran: gcc -o image image.c (failed: undefined reference…)"). The last few go into
the prompt's `Previous:` field; the full output the model asked for last goes in separately.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hillclimber.harness.acting.tools import ToolCall, ToolResult
from hillclimber.text import clip

MAX_CHARS = 100


@dataclass(frozen=True)
class StepSummary:
    step: int
    tool: str
    success: bool
    message: str


def first_lines(text: str, lines: int, chars: int) -> str:
    """The first `lines` lines of `text`, at most `chars` characters, its line breaks kept
    (where the lines are the answer's form, `clip`'s one line would hide it)."""
    return "\n".join(text.splitlines()[:lines])[:chars]


_LOCATION = re.compile(r"^[\w/-]+\.\w+:(?:\([^)]*\):|\d+:)*\s*")
"""`image.c:5:3: ` or `image.c:(.text+0x1a): `: where, not what."""


def _first_error_line(output: str) -> str:
    lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not ln.startswith("[")]
    for line in lines:
        if any(
            w in line.lower()
            for w in ("error", "not found", "denied", "no such", "fail", "undefined")
        ):
            return _LOCATION.sub("", line)
    return _LOCATION.sub("", lines[-1]) if lines else "no output"


_FILE_FAILED = {
    "read_file": "Failed to read {path}",
    "write_file": "Failed to write {path}",
    "edit_file": "Edit of {path} failed",
}
"""How a failed file tool is told; the tool's own error follows."""


def summarize(step: int, call: ToolCall, result: ToolResult) -> StepSummary:
    args, meta = call.arguments, result.metadata
    path = str(args.get("path", "file"))
    tool = call.name
    if meta.get("unchanged"):
        message = f"{path} unchanged (already so)"
    elif tool in _FILE_FAILED and not result.success:
        message = f"{_FILE_FAILED[tool].format(path=path)}: {clip(result.output, 50)}"
    elif tool == "read_file":
        message = f"Read {path} ({meta.get('file_lines', '?')} lines)"
    elif tool == "write_file":
        message = f"Wrote {meta.get('bytes', len(str(args.get('content', ''))))} bytes to {path}"
    elif tool == "edit_file":
        message = f"Edited {path}"
    elif tool == "run_command":
        command = clip(str(args.get("command", "")), 40)
        if result.success:
            has_output = result.output.strip() and "no output" not in result.output[:40]
            message = f"Ran: {command} (ok, {'output' if has_output else 'no output'})"
        else:
            message = f"Ran: {command} (failed: {clip(_first_error_line(result.output), 40)})"
    elif tool == "verify_progress":
        message = clip(result.output.splitlines()[0] if result.output else "verified", 60)
    elif tool == "task_complete":
        message = "Said the task is complete"
    else:
        message = result.output
    return StepSummary(step, tool, result.success, clip(message, MAX_CHARS))


def previous_field(history: Sequence[StepSummary], n: int = 3) -> str:
    if not history or n <= 0:
        return "none"
    return "; ".join(f"Step {s.step} ({s.tool}): {s.message}" for s in history[-n:])
