"""How much of each prompt does the model compute, with the turn's tools said at the top of the
prompt (as before) or at its end (as now)?

    python benchmarks/prompt_reuse.py --run runs/<run-id> [--model local] [--trials 2] [--calls 30]

llama.cpp keeps the last prompt's computed state and reuses it up to the first token that
differs; everything after is computed again. The loop offers each turn's tools by the state
(no read_file after a refused read, …), and the rules at the top of the prompt used to list
them, so a change there made the whole prompt new. Now the rules list every tool of the trial
and the end of the prompt says the turn's own.

This replays the model calls of a finished run's trials (their prompts as recorded, in order,
every role) through the real model twice, once laid out each way, each call with a one-token
answer, and prints the prompt tokens the model computed and the seconds it took per layout and
their ratio (tokens are llama.cpp's own count; the seconds depend on what else the machine
runs).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import time
from pathlib import Path
from typing import Any

from hillclimber.harness.acting.tools import TOOLS, describe, tool_list
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


def _tools_block(names: list[str]) -> str:
    return describe(tool_list(names))


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
    system = "\n".join([head + " Any other name fails.", _tools_block(shown), *kept])
    last = NOW.sub("", last)
    if at_end and now != known and ASK in last:
        last = last.replace(ASK, f" This turn you may call ONLY: {', '.join(now)}.{ASK}")
    middle = [Message(role=m["role"], content=m["content"]) for m in messages[1:-1]]
    return [Message(role="system", content=system), *middle,
            Message(role=messages[-1]["role"], content=last)]  # fmt: skip


def trial_prompts(trajectory: Path, calls: int) -> list[tuple[list[dict[str, str]], Any]]:
    """The prompts of a trial's model calls in order, each with its tools (None: not a
    worker's prompt, replayed as it is)."""
    steps = json.loads(trajectory.read_text()).get("steps", [])
    prompts = [s["extra"]["prompt"] for s in steps if (s.get("extra") or {}).get("prompt")]
    found: list[tuple[list[dict[str, str]], Any]] = []
    for messages in prompts[:calls]:
        found.append((messages, _offered(messages)))
    return found


def replay(
    model: Any, prompts: list[tuple[list[dict[str, str]], Any]], *, at_end: bool
) -> tuple[int, int, float]:
    """(prompt tokens, tokens computed, seconds) of the calls laid out one way."""
    total = computed = 0
    spent = 0.0
    known = sorted({n for _, tools in prompts if tools for n in tools[1] + tools[0]},
                   key=list(TOOLS).index)  # fmt: skip
    for messages, tools in prompts:
        if tools is None:
            laid = [Message(role=m["role"], content=m["content"]) for m in messages]
        else:
            laid = laid_out(messages, tools[0], known, at_end=at_end)
        start = time.monotonic()
        answer = model.complete(CompletionRequest(messages=laid, max_tokens=1, temperature=0.0))
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
    chosen = [t for t in trajectories if any(tools for _, tools in trial_prompts(t, args.calls))]
    if not chosen:
        raise SystemExit(f"{args.run}: no trial with a worker's prompt to replay")
    model = make_model(args.model)
    totals = {True: [0, 0, 0.0], False: [0, 0, 0.0]}
    for trajectory in chosen[: args.trials]:
        prompts = trial_prompts(trajectory, args.calls)
        for at_end in (False, True):
            for i, value in enumerate(replay(model, prompts, at_end=at_end)):
                totals[at_end][i] += value
        print(f"  {trajectory.parents[2].name}: {len(prompts)} calls")
    for at_end, name in ((False, "tools at the top"), (True, "tools at the end")):
        total, computed, spent = totals[at_end]
        print(f"{name}: {computed:,} of {total:,} prompt tokens computed "
              f"({computed / max(total, 1):.0%}), {spent:.0f} s")  # fmt: skip
    top, end = totals[False], totals[True]
    print(
        f"prompt reuse: computed tokens at the end / at the top {end[1] / max(top[1], 1):.2f}x, "
        f"seconds {end[2] / max(top[2], 1e-9):.2f}x"
    )


if __name__ == "__main__":
    main()
