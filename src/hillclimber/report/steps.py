"""A trial's trajectory as a reader wants it: a list of steps, each what the model saw, said,
did and was told; and the helpers that shorten long texts for showing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    """One trajectory step as a reader wants it: what the model saw, said, did, and was told."""

    source: str
    """agent (a model call) or system (verification, plan, finalize, a harness action)."""
    turn: int | None
    role: str
    """worker or supervisor for a model call; the system step's message otherwise."""
    prompt: list[dict[str, str]] = field(default_factory=list)
    text: str = ""
    """The model's raw answer, verbatim."""
    calls: list[dict[str, Any]] = field(default_factory=list)
    """The calls that ran: function_name, arguments."""
    results: list[dict[str, Any]] = field(default_factory=list)
    """Their results: content, success."""
    guard: dict[str, Any] | None = None
    """A guard's verdict on the call (older runs called it `monitor`)."""
    parse_error: dict[str, Any] | None = None
    verification: dict[str, Any] | None = None
    tokens: tuple[int, int] | None = None
    """Prompt and completion tokens of the model call."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def last_user(self) -> str:
        users = [m.get("content", "") for m in self.prompt if m.get("role") == "user"]
        return users[-1] if users else ""


def read_steps(doc: dict[str, Any]) -> list[Step]:
    """The steps of an ATIF trajectory written by `TrajectoryWriter` (the instruction's user
    step left out). A model call is an `agent` step; a harness action no model asked for (an
    agent step with `llm_call_count` 0) and the harness's events are `system` steps. System
    steps carry no turn of their own: they get the turn of the model call before them. Reads
    the layout of earlier versions too (turn and prompt at step level)."""
    steps: list[Step] = []
    turn: int | None = None
    for raw in doc.get("steps", []):
        if raw.get("source") == "user":
            continue
        extra = raw.get("extra") or {}
        agent = raw.get("source") == "agent" and raw.get("llm_call_count") != 0
        turn = extra.get("turn", raw.get("turn", turn)) if agent else turn
        metrics = raw.get("metrics") or {}
        message = str(raw.get("message") or "")
        steps.append(
            Step(
                source="agent" if agent else "system",
                turn=turn,
                role=str(extra.get("role") or "") if agent else message,
                prompt=list(extra.get("prompt") or raw.get("prompt") or []),
                text=message if agent else "",
                calls=list(raw.get("tool_calls") or []),
                results=[_result(r) for r in (raw.get("observation") or {}).get("results") or []],
                guard=extra.get("guard") or extra.get("monitor"),
                parse_error=extra.get("parse_error"),
                verification=extra if message == "verification" else None,
                tokens=(metrics.get("prompt_tokens", 0), metrics.get("completion_tokens", 0))
                if agent
                else None,
                extra=extra,
            )
        )
    return steps


def _result(raw: dict[str, Any]) -> dict[str, Any]:
    """A tool result as readers want it: content and success (under `extra` in ATIF)."""
    extra = raw.get("extra") or {}
    return {
        "content": raw.get("content", ""),
        "success": bool(extra.get("success", raw.get("success"))),
        "metadata": extra.get("metadata", raw.get("metadata")) or {},
    }


def shorten(text: str, limit: int) -> str:
    """Head and tail of a long text, with what was left out counted in the middle."""
    if len(text) <= limit:
        return text
    half = max(limit // 2, 1)
    return f"{text[:half]}\n… [{len(text) - 2 * half} characters left out] …\n{text[-half:]}"


def tail(text: str, limit: int) -> str:
    """The end of a long text, with what was left out counted at the start."""
    if len(text) <= limit:
        return text
    return f"… [{len(text) - limit} characters left out] …\n{text[-limit:]}"
