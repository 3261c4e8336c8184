"""The trajectory of one run in ATIF (the Agent Trajectory Interchange Format of Harbor and
Terminal-Bench), valid by Harbor's own `Trajectory` model; written after every step so that a
crash loses nothing.

Layout: a `user` step with the instruction; one `agent` step per model call (its answer as
`message`, tokens in `metrics`, the prompt, turn and role under `extra`) carrying the calls it
led to and their results (`observation.results[*].source_call_id`); a harness action that no
model call asked for (a check the loop ran itself) is an `agent` step with `llm_call_count` 0;
verifications, plans, acceptance checks and finalize signals are `system` steps. Everything of
ours that ATIF has no field for lives under `extra`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hillclimber import __version__
from hillclimber.harness.recording.events import (
    CandidatesTried,
    ChecksMade,
    Event,
    FinalizeAsked,
    GuardVerdict,
    LoopEnded,
    ModelAnswered,
    ParseFailed,
    PlanMade,
    ToolRan,
    TurnStarted,
    Verified,
)
from hillclimber.paths import write_json

SCHEMA = "ATIF-v1.7"


class TrajectoryWriter:
    """Collects the steps of one trial from the loop's events."""

    def __init__(
        self,
        path: Path,
        session_id: str,
        model: str,
        extra: dict[str, Any],
        *,
        instruction: str = "",
        tool_definitions: Sequence[dict[str, Any]] = (),
    ) -> None:
        self.path = path
        agent: dict[str, Any] = {"name": "hillclimber", "version": __version__, "model_name": model}
        if tool_definitions:
            agent["tool_definitions"] = list(tool_definitions)
        agent["extra"] = extra
        self.doc: dict[str, Any] = {
            "schema_version": SCHEMA,
            "session_id": session_id,
            "agent": agent,
            "steps": [],
        }
        self.current: dict[str, Any] | None = None
        self.tokens = {"prompt": 0, "completion": 0, "cached": 0}
        if instruction:
            self._step("user", instruction)
            self._write()

    def _step(self, source: str, message: str, **fields: Any) -> dict[str, Any]:
        step: dict[str, Any] = {
            "step_id": len(self.doc["steps"]) + 1,
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "source": source,
            "message": message,
            **fields,
        }
        self.doc["steps"].append(step)
        return step

    def _system(self, message: str, event: Event) -> None:
        self._step("system", message, extra=_plain(event))

    def __call__(self, event: Event) -> None:
        match event:
            case TurnStarted():
                return  # nothing to record yet
            case ModelAnswered():
                self._answered(event)
            case CandidatesTried() if self.current is not None:
                self.current["extra"]["candidates"] = _plain(event)
            case ParseFailed() if self.current is not None:
                self.current["extra"]["parse_error"] = _plain(event)
            case GuardVerdict() if self.current is not None:
                self.current["extra"]["guard"] = _plain(event)
            case ToolRan():
                self._tool_ran(event)
            case Verified():
                self._system("verification", event)
            case PlanMade():
                self._system("plan", event)
            case ChecksMade():
                self._system("acceptance checks", event)
            case FinalizeAsked():
                self._system(f"finalize ({event.reason})", event)
            case LoopEnded():
                self._ended(event)
        self._write()

    def _write(self) -> None:
        # compact: the whole document is rewritten after every step (a crash loses nothing),
        # and an indented dump of a long run costs more than the rest of the harness
        if not self.doc.get("final_metrics", {}).get("extra", {}).get("final"):
            self.doc["final_metrics"] = self._totals({"final": False})  # so far: a cut run
        write_json(self.path, self.doc, indent=None)

    def _totals(self, extra: dict[str, Any]) -> dict[str, Any]:
        return {
            "total_prompt_tokens": self.tokens["prompt"],
            "total_completion_tokens": self.tokens["completion"],
            "total_cached_tokens": self.tokens["cached"],
            "total_steps": len(self.doc["steps"]),
            "extra": extra,
        }

    def _answered(self, event: ModelAnswered) -> None:
        usage = event.usage
        metrics: dict[str, Any] = {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
        }
        if usage.cached_prompt_tokens is not None:
            metrics["cached_tokens"] = usage.cached_prompt_tokens
        if usage.estimated:
            metrics["extra"] = {"estimated": True}
        self.tokens["prompt"] += usage.prompt_tokens
        self.tokens["completion"] += usage.completion_tokens
        self.tokens["cached"] += usage.cached_prompt_tokens or 0
        step = self._step(
            "agent",
            event.text,
            model_name=self.doc["agent"]["model_name"],
            metrics=metrics,
            llm_call_count=1,
            extra={
                "turn": event.turn,
                "role": event.role,
                "prompt": [m.model_dump() for m in event.prompt],
                "latency_sec": event.latency_sec,
                "finish_reason": event.finish_reason,
            },
        )
        if event.role != "candidate":  # an alternative asked for while climbing
            self.current = step

    def _tool_ran(self, event: ToolRan) -> None:
        step = self.current if event.by == "model" and self.current else None
        if step is None:  # the harness acted on its own: a dispatch no model call asked for
            step = self._step(
                "agent",
                f"harness: {event.tool}",
                llm_call_count=0,
                extra={"turn": event.turn, "role": "harness"},
            )
        calls = step.setdefault("tool_calls", [])
        call_id = f"call_{step['step_id']}_{len(calls)}"
        calls.append(
            {"tool_call_id": call_id, "function_name": event.tool, "arguments": event.arguments}
        )
        step.setdefault("observation", {"results": []})["results"].append(
            {
                "source_call_id": call_id,
                "content": event.output,
                "extra": {"success": event.success, "metadata": event.metadata},
            }
        )
        step["extra"]["summary"] = event.summary
        step["extra"]["duration_sec"] = event.duration_sec

    def _ended(self, event: LoopEnded) -> None:
        self.doc["final_metrics"] = self._totals(
            {"final": True, **_plain(event), "turns": event.turn}
        )


def _plain(event: Event) -> dict[str, Any]:
    """An event's fields as JSON-ready data."""
    return asdict(event)


def upgrade(doc: dict[str, Any], instruction: str = "") -> dict[str, Any]:
    """A trajectory written by hillclimber before 0.2 (ATIF-v1.2 in name only: turn and prompt
    at step level, our own metrics and results, harness actions as system steps with tool
    calls) in the layout `TrajectoryWriter` writes now. A current one is returned as it is."""
    if doc.get("schema_version") == SCHEMA:
        return doc
    steps: list[dict[str, Any]] = []
    if instruction:
        steps.append({"step_id": 1, "source": "user", "message": instruction})
    totals = {"prompt": 0, "completion": 0, "cached": 0}
    for old in doc.get("steps", []):
        step = _upgraded_step(old, totals)
        step["step_id"] = len(steps) + 1
        steps.append(step)
    ended = doc.get("final_metrics") or {}
    return {
        "schema_version": SCHEMA,
        "session_id": doc.get("session_id"),
        "agent": doc.get("agent", {"name": "hillclimber", "version": "unknown"}),
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": totals["prompt"],
            "total_completion_tokens": totals["completion"],
            "total_cached_tokens": totals["cached"],
            "total_steps": len(steps),
            "extra": ended,
        },
    }


def _upgraded_step(old: dict[str, Any], totals: dict[str, int]) -> dict[str, Any]:
    extra = dict(old.get("extra") or {})
    step: dict[str, Any] = {
        key: old[key] for key in ("timestamp", "source", "message") if key in old
    }
    step.setdefault("message", "")
    for key in ("turn", "prompt"):
        if key in old:
            extra[key] = old[key]
    if old.get("source") == "agent":
        usage = old.get("metrics") or {}
        metrics = {k: usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens")}
        if usage.get("cached_prompt_tokens") is not None:
            metrics["cached_tokens"] = usage["cached_prompt_tokens"]
        if usage.get("estimated"):
            metrics["extra"] = {"estimated": True}
        totals["prompt"] += metrics["prompt_tokens"]
        totals["completion"] += metrics["completion_tokens"]
        totals["cached"] += metrics.get("cached_tokens", 0)
        step.update(model_name=old.get("model_name"), metrics=metrics, llm_call_count=1)
    elif old.get("tool_calls"):  # the harness acted on its own
        step.update(source="agent", message=f"harness: {old['tool_calls'][0]['function_name']}")
        step["llm_call_count"] = 0
    if old.get("tool_calls"):
        step["tool_calls"] = old["tool_calls"]
        results = (old.get("observation") or {}).get("results") or []
        step["observation"] = {
            "results": [
                {
                    "source_call_id": call["tool_call_id"],
                    "content": result.get("content"),
                    "extra": {"success": result.get("success"), "metadata": result.get("metadata")},
                }
                for call, result in zip(old["tool_calls"], results, strict=False)
            ]
        }
    step["extra"] = extra
    return {k: v for k, v in step.items() if v is not None}
