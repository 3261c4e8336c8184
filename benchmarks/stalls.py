"""Which turns change nothing, and what says so in time to stop?

    python benchmarks/stalls.py RUN [RUN ...]

Reads the trajectories of finished runs (run or comparison folders; a climb's `runs/` too).
A turn brings *news* when a check passes that never passed before in the trial, or a call
succeeds that the trial never made before (the loop's own `stall_turns` counts the same way).
Per trial, the turns since the last news are counted; a trial is *stuck at k* from the turn
where k turns in a row brought none.

For each k it prints: how many trials were ever stuck at k; of those the tests passed, how many
brought news again after it (a cut at k would have lost them) — and of those that passed with
no news after it, the cut loses nothing, as the end is the same; the turns and the model
seconds a cut at k would have saved (what the trials spent after it, the tests then failing or
the answer unchanged since); and, for the trials stuck at k, how often the model's answer in
the next turn repeated one it gave before (a sign readable without the checks). The smallest
k that loses no passing trial is the one to use.

`--news tried` counts a turn as news too when a step climbing tried on it, applied or not,
passed more checks than the trial ever had (the way forward was seen, though not yet taken).
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _trajectories import finished, folders_given


@dataclass
class Turn:
    number: int
    news: bool
    repeated: bool
    """The model's answer this turn was one it had given before in the trial."""
    seconds: float


@dataclass
class Trial:
    name: str
    passed: bool
    turns: list[Turn] = field(default_factory=list)

    def stuck_at(self, k: int) -> int | None:
        """The index of the turn at which k turns in a row had brought no news, or None."""
        run = 0
        for index, turn in enumerate(self.turns):
            run = 0 if turn.news else run + 1
            if run >= k:
                return index
        return None


_CHECKS = re.compile(r"(\d+)/(\d+)$")
"""The end of a tried step's line: how many checks it passed, of how many."""


def tried_best(candidates: dict[str, Any]) -> int:
    """The most checks a step tried this turn passed (-1: none recorded); older records say
    it only in the step's line."""
    best = -1
    for candidate in candidates.get("candidates", []):
        passing = candidate.get("passing")
        if not isinstance(passing, int):
            said = _CHECKS.search(str(candidate.get("result", "")))
            passing = int(said.group(1)) if said else -1
        best = max(best, passing)
    return best


def read(trajectory: dict[str, Any], name: str, passed: bool, tried: bool = False) -> Trial:
    """The turns of one trajectory, each with whether it brought news (`tried`: a step tried
    and not applied that passed more checks than ever brings news too)."""
    trial = Trial(name, passed)
    best = -1
    made: set[str] = set()
    said: set[str] = set()
    by_turn: dict[int, Turn] = {}
    for step in trajectory.get("steps", []):
        extra = step.get("extra") or {}
        number = extra.get("turn")
        if not isinstance(number, int) or number < 1:
            continue
        turn = by_turn.setdefault(number, Turn(number, False, False, 0.0))
        if step.get("source") == "agent" and step.get("llm_call_count") != 0:
            text = str(step.get("message") or "").strip()
            turn.repeated = turn.repeated or text in said
            said.add(text)
            turn.seconds += float(extra.get("latency_sec") or 0.0)
        for call, result in zip(
            step.get("tool_calls") or [],
            (step.get("observation") or {}).get("results") or [],
            strict=False,
        ):
            key = json.dumps([call.get("function_name"), call.get("arguments")], sort_keys=True)
            if (result.get("extra") or {}).get("success") and key not in made:
                made.add(key)
                turn.news = True
        readings = [extra.get("passing", extra.get("tests_passing"))]  # the older records' name
        candidates = extra.get("candidates")
        if isinstance(candidates, dict):  # the checks passing before the turn, then the tried
            readings[:0] = [candidates.get("passing_before")]
            readings += [tried_best(candidates)] if tried else []
        for passing in readings:
            if isinstance(passing, int) and passing > best:
                turn.news = turn.news or best >= 0
                best = passing
    trial.turns = [by_turn[n] for n in sorted(by_turn)]
    return trial


def trials_in(folders: list[Path], tried: bool = False) -> list[Trial]:
    return [read(doc, name, passed, tried) for name, passed, doc in finished(folders)]


def report(trials: list[Trial], ks: range) -> None:
    turns = sum(len(t.turns) for t in trials)
    seconds = sum(turn.seconds for t in trials for turn in t.turns)
    passed = sum(t.passed for t in trials)
    print(f"{len(trials)} trials ({passed} passed), {turns} turns, {seconds:.0f} model s")
    print("k: stuck; passed of them that brought news again (lost by a cut); turns and model s "
          "after the cut; next answer a repeat")  # fmt: skip
    for k in ks:
        stuck = [(t, at) for t in trials if (at := t.stuck_at(k)) is not None]
        lost = [t for t, at in stuck if t.passed and any(x.news for x in t.turns[at + 1 :])]
        after = [x for t, at in stuck for x in t.turns[at + 1 :]]
        repeats = [t.turns[at + 1].repeated for t, at in stuck if at + 1 < len(t.turns)]
        print(
            f"  {k}: {len(stuck)}; lost {len(lost)} ({', '.join(t.name for t in lost) or '-'});"
            f" {len(after)} turns, {sum(x.seconds for x in after):.0f} s"
            f" ({sum(x.seconds for x in after) / seconds:.0%} of the model time);"
            f" repeat {sum(repeats)}/{len(repeats)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--max-k", type=int, default=10)
    parser.add_argument(
        "--news",
        choices=("applied", "tried"),
        default="applied",
        help="tried: a step tried and not applied that passes more checks than ever is news too",
    )
    args = parser.parse_args()
    folders_given(parser, args.runs)
    trials = trials_in(args.runs, tried=args.news == "tried")
    if not trials:
        parser.error(f"no finished trial with a trajectory under {', '.join(map(str, args.runs))}")
    report(trials, range(2, args.max_k + 1))


if __name__ == "__main__":
    main()
