"""Do the harness's prompts fit a 4,096-token window over a long run with long tool outputs?

    python benchmarks/context.py [--suite mini | --dataset PATH] [--tasks a,b] [--presets fm,full]

For every task, the task is set up in a real sandbox and the harness agent runs it for 30 turns
with the scripted model and the Apple FM profile (4,096 tokens, 3 chars per token): long
command outputs, long file reads, failing commands with long error output, long writes, answers
that are no tool call, premature task_complete calls. The prompts are the ones the harness
really builds (its prompters and budget); every one is measured as the model would count it,
plus the room the request keeps for the answer. Prints, per preset, the prompts over the window
(target 0) and the largest prompt as a share of the window; the last line has the totals.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from _trial import PlanningScript, call, load_tasks, run_harness

from hillclimber.harness.presets import preset
from hillclimber.models.fm import fm_profile
from hillclimber.sandbox import HOST_KINDS, SandboxKind, pick_sandbox_kind

TURNS = 30
WINDOW = 4096
# the run must last all its turns: no early ends, verification failures only fed back
LONG_RUN = {
    "complexity": False,
    "no_progress_turns": None,
    "stall_turns": None,
    "same_action_limit": 99,
    "max_verify_retries": 99,
}
PLAN = json.dumps(
    {
        "steps": [
            f"Step {i}: read the input files named in the task, run the commands it needs, "
            f"write the output file in the exact format it asks for and check it with wc -l"
            for i in range(1, 7)
        ]
    }
)


def answers(turns: int) -> list[str]:
    """A first setup command, then a cycle of answers that fill a small window fast; enough
    for climbing, which asks for two more answers per turn."""
    script = [
        call(
            "run_command",
            command="for i in $(seq 0 9); do seq 1 90000 > /app/bench_big$i.txt; done",
        )
    ]
    for i in range(turns):
        note = "\n".join(f"line {j} of note {i}: some text the model wrote" for j in range(30))
        script += [
            call("run_command", command=f"seq {i} 200000"),
            call(
                "run_command",
                command=f"for j in $(seq {i} 3000); do "
                f'echo "error $j: undefined reference to symbol_$j" >&2; done; exit 2',
            ),
            call("read_file", path=f"/app/bench_big{i % 10}.txt", start=i + 1),
            "I will now look at the task again. " * 30,
            call("write_file", path=f"/app/bench_note{i}.txt", content=note),
            call("task_complete"),
        ]
    return script


def padded(instruction: str, chars: int) -> str:
    lines = [instruction]
    while sum(len(line) + 1 for line in lines) < len(instruction) + chars:
        i = len(lines)
        lines.append(
            f"- Requirement {i}: /app/out{i}.csv must have the columns id,name,score in that "
            "exact order, sorted by score, ties by name, with a header line."
        )
    return "\n".join(lines)


@dataclass
class Tally:
    prompts: int = 0
    over: int = 0
    largest: int = 0
    largest_used: int = 0
    largest_at: str = ""
    shrinks: int = 0
    short_runs: list[str] = field(default_factory=list)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="mini")
    parser.add_argument("--dataset", help="a dataset path (instead of --suite)")
    parser.add_argument("--tasks", help="task ids or globs, comma-separated (default: all)")
    parser.add_argument("--presets", default="fm,climber,full")
    parser.add_argument("--turns", type=int, default=TURNS, help="turns per run (CI: fewer)")
    parser.add_argument("--sandbox", type=SandboxKind, choices=HOST_KINDS)
    parser.add_argument(
        "--pad",
        type=int,
        default=0,
        metavar="CHARS",
        help="add about CHARS of requirement lines to every instruction (TB2's longest "
        "instruction has 4,346 chars; the mini suite's are short)",
    )
    args = parser.parse_args()
    dataset, tasks = load_tasks(args.suite, args.dataset, args.tasks)
    kind, notes = pick_sandbox_kind(args.sandbox)
    profile = fm_profile(WINDOW)
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    print(
        f"{len(tasks)} tasks of {dataset.name}, {args.turns} turns each, sandbox {kind}, "
        f"profile {profile.name} ({profile.context_window} tokens, "
        f"{profile.chars_per_token} chars/token), instructions padded by {args.pad} chars; "
        f"overrides: {LONG_RUN}"
    )
    for note in notes:
        print(f"  note: {note}")
    for error in dataset.errors:
        print(f"  not read: {error}")

    tallies = {name: Tally() for name in presets}
    limited: dict[str, list[str]] = {}
    for name in presets:
        config = preset(name, max_turns=args.turns, **LONG_RUN)
        tally = tallies[name]
        for task in tasks:
            if args.pad:
                task = task.model_copy(update={"instruction": padded(task.instruction, args.pad)})
            model = PlanningScript([PLAN] * args.turns, answers(args.turns), profile)
            with tempfile.TemporaryDirectory(prefix="hc-bench-context-") as tmp:
                outcome, task_notes = run_harness(task, dataset, config, model, Path(tmp), kind)
            if task_notes and task.id not in limited:
                limited[task.id] = task_notes
                for note in task_notes:
                    print(f"  {task.id}: {note}")
            info = outcome.info
            tally.shrinks += info["budget_shrinks"] + info["context_shrinks"]
            if info["turns"] < args.turns or info["loop_exit"] == "context_exceeded":
                tally.short_runs.append(
                    f"{task.id}: {info['turns']} turns, {info['loop_exit']} ({info['loop_reason']})"
                )
            for number, request in enumerate(model.requests, start=1):
                tokens = profile.count_messages(request.messages)
                used = tokens + request.max_tokens
                tally.prompts += 1
                if used > profile.context_window:
                    tally.over += 1
                    print(
                        f"  OVER {name} {task.id} request {number}: {tokens}+{request.max_tokens}"
                    )
                if used > tally.largest_used:
                    tally.largest, tally.largest_used = tokens, used
                    tally.largest_at = f"{task.id} request {number}"
        share = tally.largest / profile.context_window
        print(
            f"{name:<8} prompts {tally.prompts:>4}  over the window {tally.over}  largest "
            f"{tally.largest} tokens = {share:.1%} of the window, {tally.largest_used} with "
            f"the answer's room ({tally.largest_at}); budget cuts {tally.shrinks}"
        )
        for run in tally.short_runs:
            print(f"  ended early: {run}")

    prompts = sum(t.prompts for t in tallies.values())
    over = sum(t.over for t in tallies.values())
    largest = max((t.largest for t in tallies.values()), default=0)
    short = sum(len(t.short_runs) for t in tallies.values())
    per_preset = ", ".join(f"{n} {t.over}/{t.prompts}" for n, t in tallies.items())
    empty = sum(any("empty workspace" in n for n in notes) for notes in limited.values())
    unchecked = sum(any("none in the loop" in n for n in notes) for notes in limited.values())
    print(
        f"context: over window {over}/{prompts} ({per_preset}) target 0; largest prompt "
        f"{largest / profile.context_window:.1%} of {profile.context_window}; "
        f"runs ended early {short}; tasks {len(tasks)} ({empty} on an empty workspace, "
        f"{unchecked} without tests in the loop)"
    )


if __name__ == "__main__":
    main()
