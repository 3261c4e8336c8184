"""How much of each prompt does the model compute: with the turn's tools said at the top of the
prompt or at its end, and with the state of the loop's prompt kept across questions asked aside
or not?

    python benchmarks/prompt_reuse.py --run runs/<run-id> [--model local] [--trials 2] [--calls 30]

llama.cpp keeps the last prompt's computed state and reuses it up to the first token that
differs; everything after is computed again. Two things made whole prompts new:
- the loop offers each turn's tools by the state (no read_file after a refused read, …), and
  the rules at the top of the prompt listed them, so a change there made the whole prompt new.
  Now the rules list every tool of the trial and the end of the prompt says the turn's own;
- a question asked aside (a second answer, a computed one, a re-plan: another system line, 400
  tokens) replaced the loop's prompt state, so the loop's next prompt was computed whole. Now
  the embedded model puts the loop's state back after it (`CompletionRequest.aside`).

This replays the model calls of a finished run's trials (their prompts as recorded, in order,
every role) through the real model three times — as before, with the tools at the end, and
with the asides' state kept too — each call with a one-token answer, and prints the prompt
tokens the model computed and the seconds it took per way and their ratio to the first
(tokens are llama.cpp's own count; the seconds depend on what else the machine runs).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hillclimber.harness.acting.tools import TOOLS, tool_list
from hillclimber.harness.prompting.prompters import tool_lines
from hillclimber.harness.prompting.templates import shipped
from hillclimber.models import make_model
from hillclimber.models.base import CompletionRequest, Message

OLD = re.compile(r"The ONLY tools you may call now are: ([\w, ]+)\. Any other name fails\.\n")
NEW = re.compile(r"The ONLY tools you may call are: ([\w, ]+)\. Any other name fails\.\n")
NOW = re.compile(r" This turn you may call ONLY: ([\w, ]+)\.")
ASK = " Your next tool call:"


def _offered(messages: list[dict[str, str]]) -> tuple[list[str], list[str]] | None:
    """(this turn's tools, the trial's as the rules list them) of a worker's prompt, or None
    for a prompt of another kind."""
    system, last = messages[0]["content"], messages[-1]["content"]
    if old := OLD.search(system):
        now = old.group(1).split(", ")
        return now, now
    if new := NEW.search(system):
        known = new.group(1).split(", ")
        said = NOW.search(last)
        return (said.group(1).split(", ") if said else known), known
    return None


def laid_out(
    messages: list[dict[str, str]], now: list[str], known: list[str], *, at_end: bool
) -> list[Message]:
    """The prompt with the turn's tools at the top (`at_end` False) or said at its end."""
    system, last = messages[0]["content"], messages[-1]["content"]
    shown = known if at_end else now
    old = OLD.search(system) or NEW.search(system)
    assert old is not None
    rest = system[old.end() :].split("\n")
    described = len(list(itertools.takewhile(lambda line: line.startswith("- "), rest)))
    head = system[: old.start()] + f"The ONLY tools you may call are: {', '.join(shown)}."
    kept = rest[described:]
    system = "\n".join(
        [
            head + " Any other name fails.",
            tool_lines(shipped(), tool_list(shown), "the task's tests"),
            *kept,
        ]
    )
    last = NOW.sub("", last)
    if at_end and now != known and ASK in last:
        last = last.replace(ASK, f" This turn you may call ONLY: {', '.join(now)}.{ASK}")
    middle = [Message(role=m["role"], content=m["content"]) for m in messages[1:-1]]
    return [Message(role="system", content=system), *middle,
            Message(role=messages[-1]["role"], content=last)]  # fmt: skip


ASIDE_ROLES = ("second", "compute", "supervisor")
"""The questions the loop asks apart from its own prompts (`Asker.apart`, the planner)."""


@dataclass(frozen=True)
class Recorded:
    messages: list[dict[str, str]]
    role: str
    tools: tuple[list[str], list[str]] | None
    """(this turn's tools, the trial's) of a worker's prompt; None: replayed as it is."""


@dataclass(frozen=True)
class Way:
    name: str
    at_end: bool
    keep: bool


WAYS = (
    Way("tools at the top, asides not kept (before)", at_end=False, keep=False),
    Way("tools at the end", at_end=True, keep=False),
    Way("tools at the end, asides kept (now)", at_end=True, keep=True),
)


def trial_prompts(trajectory: Path, calls: int) -> list[Recorded]:
    """The prompts of a trial's model calls in order."""
    steps = json.loads(trajectory.read_text()).get("steps", [])
    extras = [s["extra"] for s in steps if (s.get("extra") or {}).get("prompt")]
    return [
        Recorded(e["prompt"], str(e.get("role", "")), _offered(e["prompt"])) for e in extras[:calls]
    ]


def replay(model: Any, prompts: list[Recorded], way: Way) -> tuple[int, int, float]:
    """(prompt tokens, tokens computed, seconds) of the calls laid out one way."""
    total = computed = 0
    spent = 0.0
    names = {n for p in prompts if p.tools for n in p.tools[1] + p.tools[0]}
    known = sorted(names, key=list(TOOLS).index)
    for prompt in prompts:
        if prompt.tools is None:
            laid = [Message(role=m["role"], content=m["content"]) for m in prompt.messages]
        else:
            laid = laid_out(prompt.messages, prompt.tools[0], known, at_end=way.at_end)
        aside = way.keep and prompt.role in ASIDE_ROLES
        request = CompletionRequest(messages=laid, max_tokens=1, temperature=0.0, aside=aside)
        start = time.monotonic()
        answer = model.complete(request)
        spent += time.monotonic() - start
        total += answer.usage.prompt_tokens
        computed += answer.usage.prompt_tokens - (answer.usage.cached_prompt_tokens or 0)
    return total, computed, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a finished run's folder")
    parser.add_argument("--model", default="local")
    parser.add_argument("--trials", type=int, default=2, help="trials to replay")
    parser.add_argument("--calls", type=int, default=30, help="model calls per trial at most")
    args = parser.parse_args()
    trajectories = sorted(args.run.glob("**/logs/agent/trajectory.json"))
    chosen = [t for t in trajectories if any(p.tools for p in trial_prompts(t, args.calls))]
    if not chosen:
        raise SystemExit(f"{args.run}: no trial with a worker's prompt to replay")
    model = make_model(args.model)
    totals = {way: [0, 0, 0.0] for way in WAYS}
    for trajectory in chosen[: args.trials]:
        prompts = trial_prompts(trajectory, args.calls)
        for way in WAYS:
            for i, value in enumerate(replay(model, prompts, way)):
                totals[way][i] += value
        asides = sum(p.role in ASIDE_ROLES for p in prompts)
        print(f"  {trajectory.parents[2].name}: {len(prompts)} calls, {asides} aside")
    for way in WAYS:
        total, computed, spent = totals[way]
        share = computed / max(total, 1)
        print(f"{way.name}: {computed:,} of {total:,} prompt tokens computed ({share:.0%}), "
              f"{spent:.0f} s")  # fmt: skip
    before, *rest = (totals[way] for way in WAYS)
    ratios = "; ".join(
        f"{way.name.split(' (')[0]} {now[1] / max(before[1], 1):.2f}x tokens "
        f"{now[2] / max(before[2], 1e-9):.2f}x seconds"
        for way, now in zip(WAYS[1:], rest, strict=True)
    )
    print(f"prompt reuse against before: {ratios}")


if __name__ == "__main__":
    main()
