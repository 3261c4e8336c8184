"""What the harness itself costs per step, and what starting a sandboxed command costs.

    python benchmarks/overhead.py [--steps 40] [--tasks hello-file,word-count] [--preset fm]
                                  [--sandbox bwrap]

The harness agent runs tasks of the mini suite with the scripted model (no model time) in a real
sandbox, `--steps` turns each (writes, reads, edits, short commands). A listener on the loop's
events stamps each turn's start; a step's harness time is its wall time less the model's
latency (`latency_sec` of its model_answered events) and the tools' time (`duration_sec` of its
tool_ran events): prompt building, parsing, the guards, summaries, the events and the
trajectory writer. Steps that ran the task's tests (a verification) or asked the planner are
left out: that time is the tests' or the model's. The sandbox's start time is the wall time of
running `true` in a trial's sandbox (its session open); a fresh trial's, its session opened,
`true` run and the session closed, once per trial. Prints median and p95 of both; targets: harness
median <= 5 ms, sandbox start median <= 10 ms. Timings on a busy machine are noisy.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _trial import PlanningScript, call, load_tasks, run_harness

from hillclimber.harness.presets import preset
from hillclimber.harness.recording.events import (
    Event,
    FinalizeAsked,
    LoopEnded,
    ModelAnswered,
    PlanMade,
    ToolRan,
    TurnStarted,
    Verified,
)
from hillclimber.harness.recording.trajectory import TrajectoryWriter
from hillclimber.models import ModelProfile
from hillclimber.sandbox import (
    HOST_KINDS,
    Sandbox,
    SandboxKind,
    create_sandbox,
    pick_sandbox_kind,
    trial_layout,
)

HARNESS_TARGET_MS = 5.0
SANDBOX_TARGET_MS = 10.0
PLAN = '{"steps": ["Write the file", "Read it back", "Fix one line", "Check it with ls"]}'


def answers(steps: int) -> list[str]:
    """Ordinary small actions, each different from the ones before it."""
    script: list[str] = []
    for i in range(steps):
        path = f"/app/bench_{i // 4}.txt"
        script.append(
            [
                call("write_file", path=path, content=f"first line {i}\nsecond line\n"),
                call("read_file", path=path),
                call("edit_file", path=path, old_text="second line", new_text=f"line {i}"),
                call("run_command", command=f"ls -l /app | head -5; wc -l {path}"),
            ][i % 4]
        )
    return script


class StepClock:
    """Stamps every event as the loop emits it, to cut the run into steps."""

    def __init__(self) -> None:
        self.events: list[tuple[float, Event]] = []

    def __call__(self, event: Event) -> None:
        self.events.append((time.monotonic(), event))

    def steps(self) -> list[tuple[int, int]]:
        """(first, end) event indices of the steps measured: the turn's start up to the next
        turn's start (the last turn: up to the loop's first finalize)."""
        starts = [i for i, (_, e) in enumerate(self.events) if isinstance(e, TurnStarted)]
        ends = [*starts[1:], self._end_of_last(starts[-1])] if starts else []
        return [
            (first, end)
            for first, end in zip(starts, ends, strict=True)
            if not any(isinstance(e, Verified | PlanMade) for _, e in self.events[first:end])
        ]

    def harness_time(self, first: int, end: int) -> float:
        step = [e for _, e in self.events[first:end]]
        wall = self.events[end][0] - self.events[first][0]
        model = sum(e.latency_sec for e in step if isinstance(e, ModelAnswered))
        tools = sum(e.duration_sec for e in step if isinstance(e, ToolRan))
        return wall - model - tools

    def writer_times(self, folder: Path) -> list[float]:
        """Seconds the trajectory writer takes for each event, replayed into a new file: the
        loop's own writer is one of the listeners and sits inside the harness time."""
        writer = TrajectoryWriter(folder / "replay.json", "replay", "scripted", extra={})
        times = []
        for _, event in self.events:
            start = time.monotonic()
            writer(event)
            times.append(time.monotonic() - start)
        return times

    def _end_of_last(self, first: int) -> int:
        return next(
            (
                i
                for i in range(first + 1, len(self.events))
                if isinstance(self.events[i][1], FinalizeAsked | LoopEnded)
            ),
            len(self.events) - 1,
        )


def sandbox_starts(kind: SandboxKind, runs: int) -> list[float]:
    """`true` in one trial's sandbox, its session already open (the first command opens it)."""
    with (
        tempfile.TemporaryDirectory(prefix="hc-bench-start-") as tmp,
        create_sandbox(kind, trial_layout(Path(tmp))) as sandbox,
    ):
        _true(sandbox)
        times = []
        for _ in range(runs):
            start = time.monotonic()
            _true(sandbox)
            times.append(time.monotonic() - start)
    return times


def session_opens(kind: SandboxKind, runs: int) -> list[float]:
    """A fresh trial's first command and its end: the session opened, `true` run, closed."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="hc-bench-open-") as tmp:
            start = time.monotonic()
            with create_sandbox(kind, trial_layout(Path(tmp))) as sandbox:
                _true(sandbox)
            times.append(time.monotonic() - start)
    return times


def _true(sandbox: Sandbox) -> None:
    result = sandbox.run("true", timeout=10)
    if not result.ok:
        raise SystemExit(f"`true` failed in the {sandbox.kind} sandbox: {result.output}")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(math.ceil(0.95 * len(ordered)) - 1, 0)]


def figures(values: list[float]) -> tuple[float, float]:
    """Median and p95, in milliseconds."""
    return statistics.median(values) * 1000, p95(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=40, help="turns per task")
    parser.add_argument("--tasks", default="hello-file,word-count")
    parser.add_argument("--preset", default="fm")
    parser.add_argument("--sandbox", type=SandboxKind, choices=HOST_KINDS)
    args = parser.parse_args()
    dataset, tasks = load_tasks("mini", None, args.tasks)
    kind, _ = pick_sandbox_kind(args.sandbox)
    overrides: dict[str, Any] = {
        "max_turns": args.steps,
        "complexity": False,
        "no_progress_turns": None,
        "stall_turns": None,
        "same_action_limit": 99,
        "max_verify_retries": 99,
    }
    config = preset(args.preset, **overrides)
    profile = ModelProfile(name="scripted", context_window=4096)
    print(f"preset {args.preset}, sandbox {kind}, {args.steps} steps on each of {len(tasks)} tasks")

    harness: list[float] = []
    writing: list[float] = []
    left_out = 0
    for task in tasks:
        clock = StepClock()
        model = PlanningScript([PLAN] * args.steps, answers(args.steps), profile)
        with tempfile.TemporaryDirectory(prefix="hc-bench-overhead-") as tmp:
            outcome, notes = run_harness(task, dataset, config, model, Path(tmp), kind, clock)
            for note in notes:
                print(f"  {task.id}: {note}")
            replayed = clock.writer_times(Path(tmp))
        steps = clock.steps()
        times = [clock.harness_time(first, end) for first, end in steps]
        harness += times
        writing += [sum(replayed[first:end]) for first, end in steps]
        left_out += outcome.info["turns"] - len(steps)
        median, high = figures(times) if times else (math.nan, math.nan)
        print(
            f"  {task.id}: {outcome.info['turns']} turns ({outcome.info['loop_exit']}), "
            f"{len(times)} measured; harness median {median:.2f} ms, p95 {high:.2f} ms"
        )
    if not harness:
        raise SystemExit("no step could be measured")
    starts = sandbox_starts(kind, max(args.steps, 10))
    opens = session_opens(kind, max(args.steps // 4, 5))
    h_median, h_p95 = figures(harness)
    w_median, w_p95 = figures(writing)
    s_median, s_p95 = figures(starts)
    print(
        f"harness per step: {len(harness)} steps measured ({left_out} that ran the tests or the "
        f"planner left out); of it the trajectory writer: median {w_median:.2f} ms, "
        f"p95 {w_p95:.2f} ms (replayed)"
    )
    print(f"sandbox start: {len(starts)} runs of `true`, fastest {min(starts) * 1000:.2f} ms")
    o_median, o_p95 = figures(opens)
    print(
        f"a fresh trial (its session opened, `true`, closed): {len(opens)} runs, median "
        f"{o_median:.2f} ms, p95 {o_p95:.2f} ms"
    )
    print(
        f"overhead: harness median {h_median:.2f}ms p95 {h_p95:.2f}ms "
        f"target<={HARNESS_TARGET_MS:g}ms; {kind} start median {s_median:.2f}ms "
        f"p95 {s_p95:.2f}ms target<={SANDBOX_TARGET_MS:g}ms"
    )


if __name__ == "__main__":
    main()
