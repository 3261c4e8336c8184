"""Recorded model calls: the prompt and settings of real calls a run made, to replay them.

A trajectory keeps each call's prompt messages, role and answer (`steps[].extra.prompt`,
`message`), not the request's other settings; those follow from the role and the run's
config, as the harness sets them:
- worker: up to `ask.max_answer_tokens`, free (`free_first`); the same prompt asked again right
  after it was asked under the schema of the run's tools;
- candidate (an alternative while climbing): the same, under the schema pinned to the tool and
  file its answer names (`climbing/reasking.py`);
- supervisor (the plan), checks (acceptance checks): 300 tokens under their schemas;
- second, compute (questions aside): free, up to the program's or the command's tokens.
Every call is replayed at temperature 0 (a stuck turn was asked warmer; its prompt is the same).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hillclimber.harness.acting.tools import call_schema, pinned_schema, tool_list
from hillclimber.harness.checks.propose import SCHEMA as CHECKS_SCHEMA
from hillclimber.harness.parsing.outcome import ParsedCall
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.harness.planner import PLAN_SCHEMA
from hillclimber.harness.programs import MAX_COMMAND_TOKENS, MAX_PROGRAM_TOKENS
from hillclimber.models.base import CompletionRequest, Message, OutputConstraint

SAMPLE = Path(__file__).parent / "data" / "speed_calls.json.gz"
PLAN_TOKENS = 300


@dataclass(frozen=True)
class Recorded:
    source: str
    """The trial it came from (run folder, trial), and the model that answered then."""
    role: str
    messages: list[dict[str, str]]
    max_tokens: int
    schema: dict[str, Any] | None
    answer: str
    """What the model answered then (at the run's temperature: not necessarily 0)."""
    tool: str
    """The tool the answer calls (`write_file`, …), or '' for an answer that is no call."""

    def request(self) -> CompletionRequest:
        constraint = OutputConstraint(json_schema=self.schema) if self.schema else None
        return CompletionRequest(
            messages=[Message(role=m["role"], content=m["content"]) for m in self.messages],
            max_tokens=self.max_tokens,
            temperature=0.0,
            constraint=constraint,
        )


def from_trajectory(path: Path, root: Path) -> list[Recorded]:
    """The model calls of one trial, with the settings its run asked them under."""
    trial = path.parents[2]  # <trial>/logs/agent/trajectory.json
    config = json.loads((trial.parent / "config.json").read_text())
    ask = config["harness"]["ask"]
    tools = tool_list(config["harness"]["tools"])
    doc = json.loads(path.read_text())
    model = doc.get("agent", {}).get("model_name", "?")
    calls: list[Recorded] = []
    previous: list[dict[str, str]] | None = None
    for step in doc.get("steps", []):
        extra = step.get("extra") or {}
        prompt = extra.get("prompt")
        if step.get("source") != "agent" or step.get("llm_call_count") == 0 or not prompt:
            continue
        role, answer = str(extra.get("role", "")), str(step.get("message") or "")
        parsed = parse_tool_call(answer, tools)
        call = parsed.call if isinstance(parsed, ParsedCall) else None
        tool = call.name if call else ""
        max_tokens, schema = int(ask["max_answer_tokens"]), None
        if role == "worker" and prompt == previous:
            schema = call_schema(tools)
        elif role == "candidate" and call:
            path_arg = call.arguments.get("path")
            schema = pinned_schema(tool, path_arg if isinstance(path_arg, str) else None)
        elif role in ("supervisor", "checks"):
            max_tokens, schema = PLAN_TOKENS, PLAN_SCHEMA if role == "supervisor" else CHECKS_SCHEMA
        elif role in ("second", "compute"):
            program = ask.get("code") == "program"
            max_tokens = MAX_PROGRAM_TOKENS if program else MAX_COMMAND_TOKENS
        source = f"{trial.relative_to(root)} ({model})"
        calls.append(Recorded(source, role, prompt, max_tokens, schema, answer, tool))
        previous = prompt
    return calls


def from_runs(folders: list[Path]) -> list[Recorded]:
    return [
        call
        for folder in folders
        for path in sorted(folder.glob("**/logs/agent/trajectory.json"))
        for call in from_trajectory(path, folder.parent)
    ]


def save(calls: list[Recorded], path: Path = SAMPLE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps([asdict(c) for c in calls], indent=1, sort_keys=True)
    path.write_bytes(gzip.compress(text.encode(), mtime=0))


def load(path: Path = SAMPLE) -> list[Recorded]:
    return [Recorded(**raw) for raw in json.loads(gzip.decompress(path.read_bytes()))]
