"""The tools a model may call. Each is declared once (name, description, typed arguments);
the JSON schema for constrained decoding and the tool list in the prompt come from that one
declaration. What each tool does is in `handlers.py`; tools cut their own output (`truncate`):
at most 100 lines and a char cap, head and tail, with a marker that says what was left out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MAX_LINES = 100
MAX_CHARS = 4000
WRITES = ("write_file", "edit_file")
"""The tools that write a file."""
ACTING_TOOLS = ("run_command", "write_file", "edit_file")
"""The tools whose calls change the workspace, in the order alternatives are asked for."""


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadFileArgs(_Args):
    path: str = Field(description="file to read")
    start: int | None = Field(default=None, ge=0, description="first line (1-based)")
    """0 is taken as 1: small models count lines from 0, and refusing the call costs a turn."""
    end: int | None = Field(default=None, ge=1, description="last line")


class WriteFileArgs(_Args):
    path: str = Field(description="file to write (created or replaced)")
    content: str = Field(description="the whole new content")


class EditFileArgs(_Args):
    path: str = Field(description="file to change")
    old_text: str = Field(description="exact text now in the file, once")
    new_text: str = Field(description="text to put in its place")


class RunCommandArgs(_Args):
    command: str = Field(description="a shell command")


class NoArgs(_Args):
    pass


@dataclass(frozen=True)
class ToolSpec:
    """A tool's name and arguments; what the model is told of it is in the prompt templates
    (`prompts/rules.toml`, [tools])."""

    name: str
    args: type[_Args]
    aliases: dict[str, str] = field(default_factory=dict)
    """Other argument names small models use for the same thing (`p` → `path`)."""

    @property
    def params(self) -> list[str]:
        return list(self.args.model_fields)

    @property
    def required(self) -> list[str]:
        return [n for n, f in self.args.model_fields.items() if f.is_required()]

    def signature(self) -> str:
        parts = [n if n in self.required else f"{n}?" for n in self.params]
        return f"{self.name}({', '.join(parts)})"

    def arguments_schema(self) -> dict[str, Any]:
        schema = self.args.model_json_schema()
        props = {
            name: {k: v for k, v in prop.items() if k in ("type", "minimum", "anyOf")}
            for name, prop in schema.get("properties", {}).items()
        }
        return {
            "type": "object",
            "properties": props,
            "required": self.required,
            "additionalProperties": False,
        }

    def definition(self, description: str) -> dict[str, Any]:
        """The tool as OpenAI's function-calling schema (ATIF's `tool_definitions`)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": self.arguments_schema(),
            },
        }

    def call_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"name": {"const": self.name}, "arguments": self.arguments_schema()},
            "required": ["name", "arguments"],
        }


_PATH = {"p": "path", "file": "path", "filename": "path", "file_path": "path", "filepath": "path"}
TOOLS: dict[str, ToolSpec] = {
    t.name: t
    for t in (
        ToolSpec(
            "read_file",
            ReadFileArgs,
            {**_PATH, "start_line": "start", "end_line": "end", "from": "start", "to": "end"},
        ),
        ToolSpec(
            "write_file",
            WriteFileArgs,
            {**_PATH, "c": "content", "text": "content", "contents": "content", "data": "content"},
        ),
        ToolSpec(
            "edit_file",
            EditFileArgs,
            {
                **_PATH,
                "old": "old_text",
                "new": "new_text",
                "old_str": "old_text",
                "new_str": "new_text",
                "search": "old_text",
                "replace": "new_text",
            },
        ),
        ToolSpec(
            "run_command",
            RunCommandArgs,
            {"cmd": "command", "c": "command", "bash": "command", "shell": "command"},
        ),
        ToolSpec("verify_progress", NoArgs),
        ToolSpec("task_complete", NoArgs),
    )
}


def tool_list(names: Sequence[str]) -> list[ToolSpec]:
    return [TOOLS[n] for n in names]


def call_schema(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """The JSON schema of one call to any of these tools (for constrained decoding)."""
    schemas = [t.call_schema() for t in tools]
    return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}


def pinned_schema(name: str, path: str | None = None) -> dict[str, Any]:
    """The schema of one call to the tool `name`; with `path`, a call on that file only."""
    schema = TOOLS[name].call_schema()
    if path is not None:
        schema["properties"]["arguments"]["properties"]["path"] = {"const": path}
    return schema


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    def signature(self) -> str:
        """What makes two calls the same action (for repetition checks)."""
        return f"{self.name}:{json.dumps(self.arguments, sort_keys=True)}"


@dataclass
class ToolResult:
    success: bool
    output: str
    metadata: dict[str, Any] = field(default_factory=dict)


def truncate(
    text: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS
) -> tuple[str, dict[str, Any]]:
    """Head and tail of `text` within the limits, with a marker; and what was cut."""
    lines = text.splitlines()
    meta: dict[str, Any] = {"lines_total": len(lines), "chars_total": len(text), "truncated": False}
    if len(lines) <= max_lines and len(text) <= max_chars:
        return text, meta
    meta["truncated"] = True
    head_n = max(1, max_lines * 2 // 3)
    tail_n = max(1, max_lines - head_n)
    if len(lines) > max_lines:
        head, tail = lines[:head_n], lines[-tail_n:]
    else:
        head, tail = lines, []
    body_head = "\n".join(head)
    body_tail = "\n".join(tail)
    budget = max_chars - 120
    if len(body_head) + len(body_tail) > budget:
        keep_head = budget * 2 // 3
        body_head = _whole_lines(body_head[: keep_head + 1], keep_end=False)
        body_tail = _whole_lines(body_tail[-(budget - keep_head) - 1 :], keep_end=True)
        head, tail = body_head.splitlines(), body_tail.splitlines()
    shown = len(head) + len(tail)
    marker = (
        f"[output truncated: showing first {len(head)} and last {len(tail)} of {len(lines)} lines]"
        if tail
        else f"[output truncated: showing {len(body_head)} of {len(text)} chars]"
    )
    meta["lines_shown"] = shown
    out = body_head + "\n" + marker + ("\n" + body_tail if body_tail else "")
    return out, meta


def _whole_lines(piece: str, *, keep_end: bool) -> str:
    """A cut piece of text without its broken line (the one cut at the piece's start, or its
    end); a piece of one line is cut where it is."""
    if "\n" not in piece:
        return piece
    return piece.split("\n", 1)[1] if keep_end else piece.rsplit("\n", 1)[0]
