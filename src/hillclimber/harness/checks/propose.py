"""Checks the model proposes: one small constrained call for a few shell commands that should
fail now and succeed once the task is done. A proposal is kept only if it is well-formed,
passes the guards (no writes outside the workspace, nothing dangerous, no /tests), and — run
with the workspace put back afterwards — finishes in time and fails on the untouched workspace
(`build_checks` sees to those two)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import json_repair

from hillclimber.errors import ModelError
from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.checks.base import Check
from hillclimber.harness.checks.kinds import CommandSucceeds
from hillclimber.harness.guards import Guards, Situation
from hillclimber.harness.prompting.budget import cut_instruction
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.harness.recording.events import EventBus, ModelAnswered
from hillclimber.models.base import CompletionRequest, Message, Model, OutputConstraint
from hillclimber.sandbox import Sandbox, walk
from hillclimber.shell.writes import written_paths

MAX_CHECKS = 3
MAX_COMMAND = 300
INSTRUCTION_CHARS = 2400

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "checks": {
            "type": "array",
            "maxItems": MAX_CHECKS,
            "items": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "prints": {"type": "string"}},
                "required": ["command", "prints"],
            },
        }
    },
    "required": ["checks"],
}
_FORBIDDEN = ("/tests", "/solution", "/logs")
_GUARDS = Guards(["workspace_bounds", "dangerous_commands"])


@dataclass
class ModelProposer:
    """Asks `model` once per task; keeps the counts for the trial's record."""

    model: Model
    prompts: Prompts = field(default_factory=shipped)
    """The question's words (`checks.toml`)."""
    constrained: bool = True
    events: EventBus | None = None
    """Where the model's answer is told (the trajectory keeps it as a step of its own)."""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(command, why it was not taken)."""

    def __call__(self, instruction: str, sandbox: Sandbox, workdir: str) -> list[Check]:
        request = CompletionRequest(
            messages=[
                Message(role="system", content=self.prompts("checks.system")),
                Message(role="user", content=self.ask(instruction, sandbox, workdir)),
            ],
            max_tokens=300,
            temperature=0.0,
            constraint=OutputConstraint(json_schema=SCHEMA, name="checks")
            if self.constrained and self.model.profile.supports_constraint
            else None,
        )
        try:
            answer = self.model.complete(request)
        except ModelError as err:
            self.refused.append(("", f"the model did not answer: {err}"))
            return []
        self.calls += 1
        if self.events is not None:
            self.events.emit(
                ModelAnswered(
                    0,
                    "checks",
                    answer.text,
                    tuple(request.messages),
                    answer.usage,
                    answer.latency_sec,
                    answer.finish_reason,
                )
            )
        self.prompt_tokens += answer.usage.prompt_tokens
        self.completion_tokens += answer.usage.completion_tokens
        return self.read(answer.text, workdir)

    def ask(self, instruction: str, sandbox: Sandbox, workdir: str) -> str:
        """The question: the task and the files in the workspace now."""
        names = []
        for path, info in walk(sandbox, workdir):
            names.append(path + ("/" if info.kind == "dir" else ""))
            if len(names) >= 30:
                names.append("…")
                break
        return self.prompts(
            "checks.ask",
            instruction=cut_instruction(instruction, INSTRUCTION_CHARS),
            workdir=workdir,
            listing="\n".join(names) or self.prompts("checks.empty"),
            most=MAX_CHECKS,
        )

    def read(self, text: str, workdir: str) -> list[Check]:
        """The well-formed, allowed checks in the model's answer."""
        checks: list[Check] = []
        for item in _items(text)[:MAX_CHECKS]:
            command = str(item.get("command", "")).strip()
            prints = str(item.get("prints", "") or "").strip()
            problem = _problem(command)
            if problem:
                self.refused.append((command, problem))
                continue
            checks.append(
                CommandSucceeds(
                    command,
                    output=prints or None,
                    cwd=workdir,
                    origin="proposed",
                    rule="proposed.CommandSucceeds",
                )
            )
        return checks


def _items(text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = json_repair.loads(text)
    found = data.get("checks") if isinstance(data, dict) else data
    return (
        [item for item in found or [] if isinstance(item, dict)] if isinstance(found, list) else []
    )


def _problem(command: str) -> str:
    """Why a proposed command may not be a check ("" when it may)."""
    if not command:
        return "no command"
    if len(command) > MAX_COMMAND or "\n" in command:
        return "not one short command line"
    if any(place in command for place in _FORBIDDEN):
        return "reads what the agent cannot see"
    call = ToolCall(name="run_command", arguments={"command": command})
    verdict = _GUARDS.decide(call, Situation([]))
    if verdict.action == "deny":
        return verdict.reason
    written = next(written_paths(command), None)
    if written is not None:
        return f"it would change {written[1] or 'a file'}: a check only looks"
    return ""
