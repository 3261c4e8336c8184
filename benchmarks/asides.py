"""What the answers the loop asks for besides the model's own turn cost, and what they bring.

    python benchmarks/asides.py RUN [RUN ...] [--max-unpaid 10]

Reads the trajectories of finished runs (run or comparison folders; a climb's `runs/` too).
Prints, per role of a model call (`worker`: the loop's own turn; `candidate`: the same step
asked of another tool; `compute`: a program that works the answer out; `second`: a second
answer; `supervisor`: the planner), the calls and the model seconds; and per origin of the
steps climbing tried (the model's call, another tool's answer, another reading of a call, a plan
step, a computed answer), how many were tried, applied, and applied in trials the tests passed.

Then, for the answers asked of other tools: had the trial stopped asking once n of them in a
row went unapplied (one applied starts the count again: `climbing.unpaid_asks`), the model
seconds it would have saved, and the applied answers it would have lost, named where the trial
passed. The smallest n that loses none in a trial that passed, on trials the setting was not
chosen from, is the one to use. (An answer not applied still shows the model what a command it
ran printed: that the cut cannot see.)
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _trajectories import finished, folders_given


@dataclass
class Turn:
    asks: list[float] = field(default_factory=list)
    """The model seconds of each answer asked of another tool this turn, in order."""
    applied: int | None = None
    """Which of them was applied (its place among the other tools' answers tried), if one."""


@dataclass
class Trial:
    name: str
    passed: bool
    turns: list[Turn]

    def cut(self, unpaid: int) -> tuple[float, int]:
        """The model seconds saved and the applied answers lost had asking stopped after
        `unpaid` answers in a row went unapplied."""
        saved, lost, run = 0.0, 0, 0
        for turn in self.turns:
            applied = turn.applied
            for index in range(len(turn.asks)):
                if run + index >= unpaid:
                    saved += sum(turn.asks[index:])
                    lost += applied is not None and applied >= index
                    applied = None
                    break
            run = 0 if applied is not None else run + len(turn.asks)
        return saved, lost


@dataclass
class Tally:
    calls: Counter[str] = field(default_factory=Counter)
    seconds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    tried: Counter[str] = field(default_factory=Counter)
    applied: Counter[str] = field(default_factory=Counter)
    applied_passed: Counter[str] = field(default_factory=Counter)


def read(trajectory: dict[str, Any], name: str, passed: bool, tally: Tally) -> Trial:
    """One trajectory's turns, its calls and tried steps counted into `tally`."""
    turns: dict[int, Turn] = {}
    for step in trajectory.get("steps", []):
        extra = step.get("extra") or {}
        number = extra.get("turn")
        turn = turns.setdefault(number, Turn()) if isinstance(number, int) else Turn()
        if step.get("source") == "agent" and step.get("llm_call_count") != 0:
            role, seconds = str(extra.get("role")), float(extra.get("latency_sec") or 0.0)
            tally.calls[role] += 1
            tally.seconds[role] += seconds
            if role == "candidate":
                turn.asks.append(seconds)
        tried = extra.get("candidates")
        if not isinstance(tried, dict):
            continue
        steps = tried.get("candidates", [])
        tally.tried.update(str(c.get("origin")) for c in steps)
        chosen = tried.get("chosen")
        if isinstance(chosen, int) and 0 <= chosen < len(steps):
            origin = str(steps[chosen].get("origin"))
            tally.applied[origin] += 1
            tally.applied_passed[origin] += passed
            others = [i for i, c in enumerate(steps) if c.get("origin") == "tool"]
            turn.applied = others.index(chosen) if chosen in others else None
    return Trial(name, passed, [turns[n] for n in sorted(turns)])


def trials_in(folders: list[Path], tally: Tally) -> list[Trial]:
    return [read(doc, name, passed, tally) for name, passed, doc in finished(folders)]


def report(trials: list[Trial], tally: Tally, max_unpaid: int) -> None:
    total = sum(tally.seconds.values())
    passed = sum(t.passed for t in trials)
    print(f"{len(trials)} trials ({passed} passed), {total:.0f} model s")
    for role, seconds in sorted(tally.seconds.items(), key=lambda item: -item[1]):
        print(f"  {role}: {tally.calls[role]} calls, {seconds:.0f} s ({seconds / total:.0%})")
    print("steps tried: tried, applied, applied in trials that passed")
    for origin, count in tally.tried.most_common():
        print(f"  {origin}: {count}, {tally.applied[origin]}, {tally.applied_passed[origin]}")
    asked = tally.seconds["candidate"]
    if not asked:
        return
    print("n: stop asking other tools after n unapplied in a row: model s saved; applied lost")
    for unpaid in range(1, max_unpaid + 1):
        cuts = [(t, *t.cut(unpaid)) for t in trials]
        saved = sum(s for _, s, _ in cuts)
        lost = [t.name for t, _, n in cuts if n and t.passed]
        print(
            f"  {unpaid}: {saved:.0f} s ({saved / asked:.0%} of the asks, {saved / total:.0%} of"
            f" all); lost {sum(n for *_, n in cuts)}, in trials that passed"
            f" {len(lost)} ({', '.join(lost) or '-'})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--max-unpaid", type=int, default=10)
    args = parser.parse_args()
    folders_given(parser, args.runs)
    tally = Tally()
    trials = trials_in(args.runs, tally)
    if not trials:
        parser.error(f"no finished trial with a trajectory under {', '.join(map(str, args.runs))}")
    report(trials, tally, args.max_unpaid)


if __name__ == "__main__":
    main()
