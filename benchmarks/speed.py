"""How much faster the embedded model answers with lookup decoding, on real recorded calls; and
what a run spends in the model per trial and per solved task, against another run.

    python benchmarks/speed.py [--model local:qwen2.5-coder-0.5b ...] [--calls 4]
    python benchmarks/speed.py --record RUN [RUN ...]     # the sample, again, from run folders
    python benchmarks/speed.py --runs BEFORE AFTER        # model seconds, run against run

The calls are a sample stored in `benchmarks/data/speed_calls.json.gz` (prompts and settings of
real model calls from trajectories: `_recorded.py`), half of them answers that write a file
(`write_file`: long copies, what drafting from the prompt speeds) and half the rest; it was
taken with `--record` from the 1.5B's climb (`benchmarks/climb/c15.tgz`, unpacked: TermiGen
and mini trials) and a 0.5B run of mini (climber, `runs/mini-tries`). Each call
is replayed at temperature 0 on two instances of the model, without and with lookup decoding,
one after the other, in alternating order (the ratios hold when the machine is shared; the
seconds do not): the prompt alone first (`max_tokens` 1: the prompt-heavy part, what the
model's state did not hold already), then the whole answer on the prompt just computed (the
generation-heavy part). Printed per model: generation tokens/s with over without, for the
write_file answers and for the rest; prompt seconds and end-to-end seconds per call, with over
without; whether every answer was identical; answer tokens per model pass with lookup (the
draft taken: a figure no load changes); the machine's load and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import _recorded
from _recorded import Recorded

from hillclimber.models.local import LocalModel
from hillclimber.report.rundata import RunData, RunStats, load_run

MODELS = ("local:qwen2.5-coder-0.5b", "local:qwen2.5-coder-1.5b")
WRITE = "write_file"


@dataclass
class Tally:
    """One model's figures over one kind of call, without (index 0) and with lookup (1)."""

    prompt_sec: list[float] = field(default_factory=lambda: [0.0, 0.0])
    answer_sec: list[float] = field(default_factory=lambda: [0.0, 0.0])
    answer_tokens: list[int] = field(default_factory=lambda: [0, 0])
    passes: int = 0
    """Model passes of the answers with lookup (the prompt's not counted)."""
    calls: int = 0
    identical: int = 0

    def gen_ratio(self) -> float:
        speed = [n / max(s, 1e-9) for n, s in zip(self.answer_tokens, self.answer_sec, strict=True)]
        return speed[1] / max(speed[0], 1e-9)

    def line(self, kind: str) -> str:
        on, off = self.answer_tokens[1], self.answer_tokens[0]
        ends = [p + a for p, a in zip(self.prompt_sec, self.answer_sec, strict=True)]
        return (
            f"{kind}: {self.calls} calls, {off} / {on} answer tokens; generation "
            f"{off / max(self.answer_sec[0], 1e-9):.1f} → {on / max(self.answer_sec[1], 1e-9):.1f}"
            f" tok/s ({self.gen_ratio():.2f}x); prompt {_ratio(self.prompt_sec)}x the seconds; "
            f"end to end {ends[1] / max(ends[0], 1e-9):.2f}x the seconds; "
            f"{on / max(self.passes, 1):.2f} answer tokens a pass; "
            f"identical {self.identical}/{self.calls}"
        )


def _ratio(pair: list[float]) -> str:
    return f"{pair[1] / max(pair[0], 1e-9):.2f}"


def replay(models: tuple[LocalModel, LocalModel], call: Recorded, first: int, tally: Tally) -> str:
    """The call on both instances, `first` first: its prompt, then its answer."""
    request = call.request()
    texts = ["", ""]
    for index in (first, 1 - first):
        model = models[index]
        primed = model.complete(request.model_copy(update={"max_tokens": 1}))
        answer = model.complete(request)
        tally.prompt_sec[index] += primed.latency_sec
        tally.answer_sec[index] += answer.latency_sec
        tally.answer_tokens[index] += answer.usage.completion_tokens
        texts[index] = answer.text
        if index == 1:
            tally.passes += model._state.llm.batches - 1
    tally.calls += 1
    tally.identical += texts[0] == texts[1]
    return "same" if texts[0] == texts[1] else "DIFFERENT"


def measure(spec: str, calls: list[Recorded]) -> None:
    name = spec.partition(":")[2] or "qwen2.5-coder-0.5b"
    models = (LocalModel(name, lookup=False), LocalModel(name, lookup=True))
    tallies = {WRITE: Tally(), "rest": Tally()}
    load_before = os.getloadavg()
    for number, call in enumerate(calls):
        kind = WRITE if call.tool == WRITE else "rest"
        said = replay(models, call, number % 2, tallies[kind])
        grammar = "schema" if call.schema else "free"
        print(f"  {kind:10} {call.role:10} {grammar:6} {said:9} {call.source}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    load = ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(load_before, os.getloadavg(), strict=True))
    print(f"{spec} (load average 1/5/15 min, before/after: {load}; 2 cores)")
    for kind, tally in tallies.items():
        print("  " + tally.line(kind))
    both = tallies[WRITE], tallies["rest"]
    prompts = [sum(t.prompt_sec[i] for t in both) for i in (0, 1)]
    ends = [sum(t.prompt_sec[i] + t.answer_sec[i] for t in both) for i in (0, 1)]
    print(
        f"RESULT model={spec} write_file_gen={both[0].gen_ratio():.2f}x "
        f"rest_gen={both[1].gen_ratio():.2f}x prompt_sec={_ratio(prompts)}x "
        f"end_to_end_sec={_ratio(ends)}x "
        f"identical={sum(t.identical for t in both)}/{sum(t.calls for t in both)} "
        f"peak_rss={peak:.2f}GB (both instances)"
    )


def sample(calls: list[Recorded], per_kind: int) -> list[Recorded]:
    """The first `per_kind` of each kind, write_file answers and the rest, alternating."""
    writes = [c for c in calls if c.tool == WRITE][:per_kind]
    rest = [c for c in calls if c.tool != WRITE][:per_kind]
    return [c for pair in zip(writes, rest, strict=False) for c in pair] + (
        writes[len(rest) :] + rest[len(writes) :]
    )


def choose(calls: list[Recorded], per_kind: int, max_prompt: int = 7500) -> list[Recorded]:
    """A small sample: the longest write_file answer of each task (longest first), and for the
    rest one call of each role and tool (the commonest first, the median answer of each); of
    prompts up to `max_prompt` characters, and answers of text (a binary file's bytes written
    back are left out: hundreds of tokens of noise, minutes a call here)."""
    fits = [
        c
        for c in calls
        if sum(len(m["content"]) for m in c.messages) <= max_prompt and _text(c.answer)
    ]
    longest: dict[str, Recorded] = {}
    for call in fits:
        task = call.source.split(" (")[0].rsplit("/", 1)[-1]
        known = longest.get(task)
        if call.tool == WRITE and (known is None or len(call.answer) > len(known.answer)):
            longest[task] = call
    writes = sorted(longest.values(), key=lambda c: -len(c.answer))[:per_kind]
    groups: dict[tuple[str, str, bool], list[Recorded]] = {}
    for call in fits:
        if call.tool != WRITE:
            groups.setdefault((call.role, call.tool, call.schema is None), []).append(call)
    common = sorted(groups.values(), key=len, reverse=True)[:per_kind]
    rest = [sorted(g, key=lambda c: len(c.answer))[len(g) // 2] for g in common]
    return writes + rest


def _text(answer: str) -> bool:
    """No bytes that were no text (U+FFFD), no control characters but lines and tabs."""
    return "\ufffd" not in answer and all(c.isprintable() or c in "\n\t" for c in answer)


def run_ratios(before: Path, after: Path) -> None:
    """Model seconds per trial and per solved task, after over before, on the tasks both runs
    finished."""
    runs = [load_run(before), load_run(after)]
    tasks = set.intersection(*({t.task_id for t in run.trials} for run in runs))
    stats = [RunStats.of(_only(run, tasks)) for run in runs]
    for run, stat in zip(runs, stats, strict=True):
        seconds = stat.model_seconds or 0.0
        print(
            f"{run.path}: {stat.trials} trials of {len(tasks)} tasks, solved {stat.solved}, "
            f"model {seconds:.0f} s, {seconds / max(stat.trials, 1):.1f} s a trial, "
            f"{seconds / max(stat.solved, 1):.1f} s a solved task"
        )
    per_trial = [(s.model_seconds or 0.0) / max(s.trials, 1) for s in stats]
    per_solved = [(s.model_seconds or 0.0) / max(s.solved, 1) for s in stats]
    print(
        f"RESULT model_sec_per_trial={_ratio(per_trial)}x "
        f"model_sec_per_solved={_ratio(per_solved)}x "
        f"solved={stats[0].solved}->{stats[1].solved} (after over before)"
    )


def _only(run: RunData, tasks: set[str]) -> RunData:
    return replace(run, trials=[t for t in run.trials if t.task_id in tasks])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", help=f"default: {', '.join(MODELS)}")
    parser.add_argument("--calls", type=int, default=4, help="calls of each kind")
    parser.add_argument("--record", nargs="+", type=Path, help="run folders to sample anew")
    parser.add_argument("--sample", type=Path, default=_recorded.SAMPLE, help="the calls' file")
    parser.add_argument("--runs", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.runs:
        run_ratios(*args.runs)
        return
    if args.record:
        chosen = choose(_recorded.from_runs(args.record), per_kind=6)
        _recorded.save(chosen, args.sample)
        print(f"{len(chosen)} calls in {args.sample}")
        return
    specs = args.model or list(MODELS)
    if len(specs) > 1:  # one process a model: each its own peak RSS
        for spec in specs:
            argv = [sys.executable, __file__, "--model", spec, "--calls", str(args.calls)]
            argv += ["--sample", str(args.sample)]
            subprocess.run(argv, check=True)
        return
    measure(specs[0], sample(_recorded.load(args.sample), args.calls))


if __name__ == "__main__":
    main()
