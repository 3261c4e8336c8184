"""The trajectory of one run, in the ATIF shape Harbor uses where it fits, written after every
step so that a crash loses nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hillclimber import __version__
from hillclimber.harness.events import Event
from hillclimber.results import write_json

SCHEMA = "ATIF-v1.2"


class TrajectoryWriter:
    """Collects one ATIF step per model call (and per harness action) from the loop's events."""

    def __init__(self, path: Path, session_id: str, model: str, extra: dict[str, Any]) -> None:
        self.path = path
        self.doc: dict[str, Any] = {
            "schema_version": SCHEMA,
            "session_id": session_id,
            "agent": {
                "name": "hillclimber",
                "version": __version__,
                "model_name": model,
                "extra": extra,
            },
            "steps": [],
            "final_metrics": {},
        }
        self.current: dict[str, Any] | None = None

    def _step(self, source: str) -> dict[str, Any]:
        step: dict[str, Any] = {
            "step_id": len(self.doc["steps"]) + 1,
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "source": source,
        }
        self.doc["steps"].append(step)
        return step

    def __call__(self, event: Event) -> None:
        data = event.data
        if event.kind == "turn_started":
            return  # nothing to record yet
        if event.kind == "model_answered":
            step = self._step("agent")
            step.update(
                {
                    "turn": event.turn,
                    "model_name": self.doc["agent"]["model_name"],
                    "prompt": data.get("prompt"),
                    "message": data.get("text", ""),
                    "metrics": data.get("usage", {}),
                    "extra": {"latency_sec": data.get("latency_sec"), "role": data.get("role")},
                }
            )
            if data.get("role") != "candidate":  # an alternative asked for while climbing
                self.current = step
        elif event.kind == "candidates_tried" and self.current is not None:
            self.current["extra"]["candidates"] = data
        elif event.kind == "parse_failed" and self.current is not None:
            self.current["extra"]["parse_error"] = data
        elif event.kind == "monitor_verdict" and self.current is not None:
            self.current["extra"]["monitor"] = data
        elif event.kind == "tool_ran":
            step = (
                self.current if data.get("by") == "model" and self.current else self._step("system")
            )
            step.setdefault("tool_calls", []).append(
                {
                    "tool_call_id": f"call_{step['step_id']}_{len(step.get('tool_calls', []))}",
                    "function_name": data.get("tool"),
                    "arguments": data.get("arguments", {}),
                }
            )
            step.setdefault("observation", {"results": []})["results"].append(
                {
                    "content": data.get("output", ""),
                    "success": data.get("success"),
                    "metadata": data.get("metadata", {}),
                }
            )
            step.setdefault("extra", {})["summary"] = data.get("summary")
            step["extra"]["duration_sec"] = data.get("duration_sec")
        elif event.kind == "verify_done":
            step = self._step("system")
            step.update({"message": "verification", "extra": data})
        elif event.kind == "plan_made":
            step = self._step("system")
            step.update({"message": "plan", "extra": data})
        elif event.kind == "finalize":
            if data.get("final"):
                self.doc["final_metrics"] = data
            else:
                step = self._step("system")
                step.update({"message": f"finalize ({data.get('reason')})", "extra": data})
        if event.kind == "model_answered":
            return  # written with what became of the answer, a moment later in the same step
        # compact: the whole document is rewritten after every step (a crash loses nothing),
        # and an indented dump of a long run costs more than the rest of the harness
        write_json(self.path, self.doc, indent=None)
