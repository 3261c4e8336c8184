"""Speed of the embedded model on this machine, and what constrained decoding costs.

    python benchmarks/models.py [--model local] [--runs 5]

Prints prompt and generation tokens/s (medians over runs), the ratio of a constrained tool
call's latency to the same call decoded freely, and the same on the harness's own first prompts
for the tasks of the built-in suite, with what asking free first (a constrained retry only when
the forgiving parser cannot read the free answer) costs. The last line holds all figures.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from hillclimber.harness.acting.tools import call_schema, tool_list
from hillclimber.harness.parsing.outcome import ParseFailure
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.harness.presets import preset
from hillclimber.harness.prompting.budget import PromptBudget
from hillclimber.harness.prompting.prompters import MicroPrompter, TurnView
from hillclimber.loaders import load_suite, select_tasks
from hillclimber.models import CompletionRequest, Message, Model, OutputConstraint, make_model
from hillclimber.models.check import SYSTEM, TOOL_CALL_SCHEMA

FILLER = " ".join(f"line {i}: the quick brown fox jumps over the lazy dog." for i in range(60))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="local")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tasks", help="tasks of the built-in suite for the harness prompts")
    args = parser.parse_args()
    start = time.monotonic()
    model = make_model(args.model)
    load = time.monotonic() - start
    print(f"{model.profile.name} on {platform.machine()}, {args.runs} runs, load {load:.1f}s")

    prompt_speeds, gen_speeds = [], []
    for run in range(args.runs):
        # a new first line each run: nothing of the prompt is in the cache
        fresh = CompletionRequest.from_prompt(f"run {run} {time.time()}\n{FILLER}", max_tokens=1)
        answer = model.complete(fresh)
        prompt_speeds.append(answer.usage.prompt_tokens / answer.latency_sec)
        counting = CompletionRequest.from_prompt(
            "Count from 1 to 200, separated by spaces.", max_tokens=96
        )
        answer = model.complete(counting)
        gen_speeds.append(answer.usage.completion_tokens / answer.latency_sec)

    free_times: list[float] = []
    constrained_times: list[float] = []
    for constrained in [False, True] * args.runs:
        request = CompletionRequest(
            messages=[
                Message(role="system", content=SYSTEM),
                Message(role="user", content="Create a file hello.txt containing Hello, world!"),
            ],
            max_tokens=96,
            constraint=OutputConstraint(json_schema=TOOL_CALL_SCHEMA) if constrained else None,
        )
        answer = model.complete(request)
        (constrained_times if constrained else free_times).append(answer.latency_sec)

    prompt_tps = statistics.median(prompt_speeds)
    gen_tps = statistics.median(gen_speeds)
    free, forced = statistics.median(free_times), statistics.median(constrained_times)
    print(f"prompt processing: {prompt_tps:.1f} tokens/s (median)")
    print(f"generation: {gen_tps:.1f} tokens/s (median)")
    print(f"tool call: free {free:.2f}s, constrained {forced:.2f}s (medians)")
    first_free = harness_prompts(model, args.tasks)
    print(
        f"RESULT prompt_tps={prompt_tps:.1f} gen_tps={gen_tps:.1f} "
        f"constrained_over_free={forced / free:.2f} "
        f"harness_constrained_over_free={first_free[0]:.2f} "
        f"harness_free_first_over_free={first_free[1]:.2f} retries={first_free[2]}"
    )


def harness_prompts(model: Model, tasks: str | None) -> tuple[float, float, str]:
    """The first prompt of each task of the built-in suite as the harness builds it (micro
    mode, every tool), answered free, constrained, and free first with a constrained retry
    when the forgiving parser cannot read the free answer; each on a warm prefix. Returns
    (constrained/free, free-first/free, retries/prompts) of the total latencies."""
    config = preset("climber")
    tools = tool_list(config.tools)
    budget = PromptBudget(model.profile, answer_tokens=config.ask.max_answer_tokens)
    prompter = MicroPrompter(budget)
    schema = OutputConstraint(json_schema=call_schema(tools))
    totals = {"free": 0.0, "constrained": 0.0, "free_first": 0.0}
    retries = 0
    chosen = select_tasks(load_suite("mini").tasks, [tasks] if tasks else None, None)
    for task in chosen:
        view = TurnView(instruction=task.instruction, tools=tools, history=[], max_turns=30)
        request = CompletionRequest(messages=prompter.build(view), max_tokens=256)
        # the prompt read once first, so that both answers are timed on a warm prefix: what
        # differs between them is the decoding, which is what the schema changes
        model.complete(request.model_copy(update={"max_tokens": 1}))
        free = model.complete(request)
        constrained = model.complete(request.model_copy(update={"constraint": schema}))
        totals["free"] += free.latency_sec
        totals["constrained"] += constrained.latency_sec
        totals["free_first"] += free.latency_sec
        if isinstance(parse_tool_call(free.text, tools), ParseFailure):
            retries += 1
            totals["free_first"] += constrained.latency_sec
    print(
        f"harness prompts ({len(chosen)} tasks): free {totals['free']:.1f}s, constrained "
        f"{totals['constrained']:.1f}s, free first {totals['free_first']:.1f}s "
        f"({retries} retried under the schema)"
    )
    base = totals["free"] or 1.0
    return totals["constrained"] / base, totals["free_first"] / base, f"{retries}/{len(chosen)}"


if __name__ == "__main__":
    main()
