"""The planner for tiny windows: a supervisor call breaks the task into a short list
of micro-steps; each worker call then sees only its step, a short context and the previous
summaries, and answers with one tool call. The harness keeps the state: steps with their status
and a condensed result, a "Fix: <error>" step after a failure, and a new plan when the steps
run out and the task is not verified yet.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import json_repair

from hillclimber.harness.acting.tools import TOOLS
from hillclimber.harness.asking import Asker
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.models.base import CompletionRequest, Message, OutputConstraint
from hillclimber.text import clip

StepStatus = Literal["pending", "in_progress", "done", "failed"]
MAX_STEPS = 6
RESULT_CHARS = 50
_NAME_ALONE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
"""A step that is one snake_case name (`parse_csv`, `clean_data`): a tool the model made up,
which the worker then calls."""

PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "steps": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": MAX_STEPS,
        }
    },
    "required": ["steps"],
}


@dataclass
class PlanStep:
    text: str
    status: StepStatus = "pending"
    result: str = ""
    fixes: bool = False
    """A step the harness put in after a failure, to fix it."""


@dataclass
class Plan:
    steps: list[PlanStep] = field(default_factory=list)
    replans: int = 0

    @classmethod
    def from_answer(cls, text: str, prompts: Prompts | None = None) -> Plan:
        """Steps from the supervisor's answer, each once and none a tool's bare name (ours or
        one made up); forgiving of broken JSON; never empty (`plan.whole`: the one step where
        the answer holds none)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = json_repair.loads(text)
        raw = data.get("steps") if isinstance(data, dict) else data
        texts = [clip(str(s).strip(), 160) for s in raw] if isinstance(raw, list) else []
        # a tool's name alone ("read_file" six times, "parse_csv") is no step; nor is a step
        # said again
        steps = (t for t in texts if t and t not in TOOLS and not _NAME_ALONE.fullmatch(t))
        items = list(dict.fromkeys(steps))
        if not items:
            items = [(prompts or shipped())("plan.whole")]
        return cls([PlanStep(t) for t in items[:MAX_STEPS]])

    def ends_in(self, answers: Sequence[str], prompts: Prompts | None = None) -> None:
        """Where no step names an answer file, a last step that writes the first (`plan.write`):
        the 1.5B's plans only read and analysed in 38 of 71 (TermiGen dev tasks), and its
        worker, following them, never wrote the answer."""
        named = any(posixpath.basename(a) in s.text for s in self.steps for a in answers)
        if answers and not named:
            text = (prompts or shipped())("plan.write", path=answers[0])
            self.steps.append(PlanStep(text))

    def current(self) -> PlanStep | None:
        for step in self.steps:
            if step.status in ("pending", "in_progress"):
                step.status = "in_progress"
                return step
        return None

    def pending(self) -> list[str]:
        """The steps not done yet."""
        return [s.text for s in self.steps if s.status in ("pending", "in_progress")]

    @property
    def exhausted(self) -> bool:
        return all(s.status in ("done", "failed") for s in self.steps)

    def advance(self, result: str) -> None:
        """The current step is done with this (condensed) result."""
        step = self.current()
        if step is not None:
            step.status = "done"
            step.result = clip(result, RESULT_CHARS)

    def fix(self, error: str, prompts: Prompts | None = None) -> None:
        """A failure: a "Fix: <error>" micro-step (`plan.fix`) goes before the current one
        (once per step)."""
        step = self.current()
        if step is None or step.fixes:
            return
        index = self.steps.index(step)
        step.status = "pending"
        text = (prompts or shipped())("plan.fix", error=clip(error, RESULT_CHARS))
        self.steps.insert(index, PlanStep(text, "in_progress", fixes=True))

    def render(self, prompts: Prompts | None = None) -> str:
        """The steps as the worker is shown them (`plan.step`, `plan.mark.*`)."""
        said = prompts or shipped()
        lines = []
        for number, step in enumerate(self.steps, 1):
            result = said("plan.result", result=step.result) if step.result else ""
            mark = said(f"plan.mark.{step.status}")
            lines.append(said("plan.step", mark=mark, number=number, step=step.text, result=result))
        return "\n".join(lines)


def supervisor_prompt(
    prompts: Prompts, instruction: str, feedback: str | None = None, skills: str = ""
) -> str:
    """The planner's question (`plan.toml`): the task, what failed (when asked again), the
    example approaches chosen for the task."""
    task = prompts("plan.task", instruction=instruction)
    if feedback:
        task += "\n" + prompts("plan.again", feedback=feedback)
    return "\n\n".join(part for part in (task, skills, prompts("plan.ask")) if part)


def make_plan(
    asker: Asker,
    instruction: str,
    *,
    turn: int,
    feedback: str | None = None,
    previous: Plan | None = None,
    skills: str = "",
    answers: Sequence[str] = (),
) -> Plan:
    """Ask the supervisor for a plan (again, with what failed, after `previous`), with the
    example approaches chosen for the task (`skills`, may be empty), ending in writing the
    answer (`answers`: the files the checks want made, see `Plan.ends_in`)."""
    say = asker.prompts
    request = CompletionRequest(
        messages=[
            Message(role="system", content=say("plan.system")),
            Message(role="user", content=supervisor_prompt(say, instruction, feedback, skills)),
        ],
        max_tokens=300,
        temperature=asker.settings.temperature,
        aside=True,  # a re-plan comes between two turns' prompts
        constraint=OutputConstraint(json_schema=PLAN_SCHEMA, name="plan")
        if asker.constrains
        else None,
    )
    answer = asker.complete(request, role="supervisor", turn=turn)
    plan = Plan.from_answer(answer, say)
    plan.ends_in(answers, say)
    plan.replans = previous.replans + 1 if previous else 0
    return plan
