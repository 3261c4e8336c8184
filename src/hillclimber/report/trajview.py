"""One trial's trajectory as rich renderables for the terminal (`hillclimber show RUN TASK`):
per step the turn, the end of the prompt, the raw answer, the call, its result, and what the
harness said about it. Nothing here prints."""

from __future__ import annotations

import json
from textwrap import indent
from typing import Any

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from hillclimber.harness.effective import Effective
from hillclimber.report.rundata import RunData
from hillclimber.report.steps import Step, read_steps, shorten, tail
from hillclimber.results import TrialResult
from hillclimber.tries.choice import TriesRecord

PROMPT_CHARS = 400
OUTPUT_CHARS = 600


def _field(name: str, value: str, style: str = "") -> RenderableType:
    """`name: value` on one line, or the value indented under its name when it has lines."""
    if "\n" not in value.rstrip("\n"):
        return Text.assemble(("  " + name + ": ", "bold"), (value, style))
    return Group(Text("  " + name + ":", style="bold"), Text(indent(value, "    "), style))


def call_text(call: dict[str, Any]) -> str:
    arguments = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
    return f"{call.get('function_name')} {arguments}"


def verification_text(data: dict[str, Any]) -> str:
    verdict = "passed" if data.get("passed") else "failed"
    ran = data.get("label", "tests")  # the task's tests, or the harness's own checks
    passing = data.get("passing", data.get("tests_passing"))  # the older records' name
    text = f"{verdict}, {ran} {passing}/{data.get('total', data.get('tests_total'))}"
    if data.get("why"):
        text = f"({data['why']}) {text}"
    return text + (f"; failing: {data['digest']}" if data.get("digest") else "")


def _agent_step(step: Step) -> list[RenderableType]:
    head = f"turn {step.turn} · {step.role or 'model'}"
    if step.tokens:
        head += f" · {step.tokens[0]}+{step.tokens[1]} tokens"
    if isinstance(step.extra.get("latency_sec"), int | float):
        head += f" · {step.extra['latency_sec']:.1f}s"
    parts: list[RenderableType] = [Text(head, style="bold cyan")]
    if step.last_user:
        # the task heads every prompt; what changes from turn to turn is at the end
        prompt = "\n".join(ln for ln in step.last_user.splitlines() if ln.strip())
        parts.append(_field("prompt (end)", tail(prompt, PROMPT_CHARS), "dim"))
    parts.append(_field("answer", step.text or "(empty)"))
    parts.extend(_outcome(step))
    return parts


def _outcome(step: Step) -> list[RenderableType]:
    parts: list[RenderableType] = []
    if step.parse_error:
        error = step.parse_error
        parts.append(_field("parse error", f"{error.get('reason')}: {error.get('detail')}", "red"))
    if step.guard:
        verdict = step.guard
        style = "red" if verdict.get("action") == "deny" else "yellow"
        parts.append(
            _field(
                "guard",
                f"{verdict.get('action')} ({verdict.get('rule')}): {verdict.get('reason')}",
                style,
            )
        )
    for call, result in zip(step.calls, step.results, strict=False):
        parts.append(_field("call", call_text(call), "magenta"))
        ok = result.get("success")
        parts.append(
            _field(
                "result " + ("ok" if ok else "failed"),
                shorten(str(result.get("content", "")), OUTPUT_CHARS),
                "green" if ok else "red",
            )
        )
    return parts


def _system_step(step: Step) -> list[RenderableType]:
    if step.verification is not None:
        passed = step.verification.get("passed")
        text = "verification " + verification_text(step.verification)
        return [Text(text, style="bold green" if passed else "bold red")]
    if step.role == "plan":
        plan = "; ".join(str(s) for s in step.extra.get("steps", []))
        return [Text.assemble(("plan: ", "bold"), plan)]
    return [Text(step.role or "harness", style="bold"), *_outcome(step)]


def tries_note(tries: TriesRecord) -> str:
    """The tries of a trial in a few lines: each one's answer and checks, the groups, the
    choice and why (the steps shown below are the kept try's)."""
    lines = [f"tries: {tries.why}"]
    for one in tries.tries:
        kept = " (kept)" if one.index == tries.chosen else ""
        checks = f", {one.checks}" if one.checks else ""
        varied = ", ".join(f"{key}={value}" for key, value in one.varied.items())
        lines.append(
            f"  try {one.index}{kept}: answer {one.answer or '–'}{checks}, {one.turns} turns,"
            f" {one.loop_exit}, seed {one.seed} at temperature {one.temperature}"
            + (f", with {varied}" if varied else "")
        )
    return "\n".join(lines)


def trial_view(run: RunData, trial: TrialResult) -> Group:
    title = f"{trial.trial} · {run.label} · {trial.exit_reason.value}"
    if trial.commit:  # which code ran it (a resumed run may hold trials of two commits)
        title += f" · {trial.commit}"
    parts: list[RenderableType] = [Rule(title), Text(trial.message or "", style="dim")]
    if trial.image is not None:  # which image the trial ran in, and what stood in for its base
        parts.append(Text(trial.image.note, style="dim"))
    if trial.grade is not None:
        parts.append(Text(f"grade: {trial.grade.value}", style="bold"))
    effective = trial.agent_info.get("effective")
    if isinstance(effective, dict):  # what the loop had on, and why each part asked was off
        parts.append(Text("; ".join(Effective.lines(effective)), style="dim"))
    if trial.tries is not None:
        parts.append(Text(tries_note(trial.tries), style="dim"))
    doc = run.trajectory(trial)
    if doc is None:
        logs = sorted((run.trial_dir(trial) / "logs" / "agent").glob("*.log"))
        parts.append(Text(f"no trajectory (agent {trial.agent})", style="italic"))
        for log in logs:
            parts.append(Text(shorten(log.read_text(errors="replace"), OUTPUT_CHARS)))
        return Group(*parts)
    for step in read_steps(doc):
        parts.extend(_agent_step(step) if step.source == "agent" else _system_step(step))
    return Group(*parts)
