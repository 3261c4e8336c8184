"""Step summaries: each executed step in at most 100 characters, tool-aware ("Wrote 123 bytes
to foo.txt", "Ran: gcc -o image image.c (failed: undefined reference…)", in the words of
`prompts/history.toml`). The last few go into the prompt's `Previous:` field; the full output
the model asked for last goes in separately.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hillclimber.harness.acting.tools import ToolCall, ToolResult
from hillclimber.harness.prompting.templates import Prompts, shipped
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


_FAILED = {"read_file": "read_failed", "write_file": "write_failed", "edit_file": "edit_failed"}
"""The template that tells a failed file tool (`history.toml`); the tool's own error follows."""


def summarize(
    step: int, call: ToolCall, result: ToolResult, prompts: Prompts | None = None
) -> StepSummary:
    """One step in a line (`history.toml`)."""
    say, args, meta = prompts or shipped(), call.arguments, result.metadata
    path = str(args.get("path", "file"))
    tool = call.name
    if meta.get("unchanged"):
        message = say("history.unchanged", path=path)
    elif tool in _FAILED and not result.success:
        message = say(f"history.{_FAILED[tool]}", path=path, error=clip(result.output, 50))
    elif tool == "read_file":
        message = say("history.read", path=path, lines=meta.get("file_lines", "?"))
    elif tool == "write_file":
        size = meta.get("bytes", len(str(args.get("content", ""))))
        message = say("history.wrote", path=path, bytes=size)
    elif tool == "edit_file":
        message = say("history.edited", path=path)
    elif tool == "run_command":
        message = _ran(clip(str(args.get("command", "")), 40), result, say)
    elif tool == "verify_progress":
        message = (
            clip(result.output.splitlines()[0], 60) if result.output else say("history.verified")
        )
    elif tool == "task_complete":
        message = say("history.complete")
    else:
        message = result.output
    return StepSummary(step, tool, result.success, clip(message, MAX_CHARS))


def _ran(command: str, result: ToolResult, say: Prompts) -> str:
    if not result.success:
        error = clip(_first_error_line(result.output), 40)
        return say("history.ran_failed", command=command, error=error)
    quiet = not result.output.strip() or "no output" in result.output[:40]
    return say("history.ran_quiet" if quiet else "history.ran", command=command)


def previous_field(
    history: Sequence[StepSummary], n: int = 3, prompts: Prompts | None = None
) -> str:
    """The last `n` steps in a line each, joined (`history.step`)."""
    say = prompts or shipped()
    if not history or n <= 0:
        return say("history.none")
    return "; ".join(
        say("history.step", number=s.step, tool=s.tool, said=s.message) for s in history[-n:]
    )
