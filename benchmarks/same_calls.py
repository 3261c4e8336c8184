"""Did two runs show the model the same prompts and get the same answers, call for call?

    python benchmarks/same_calls.py RUN_A RUN_B

A change that must not change behaviour (a regrouping of the code) is shown by the same calls
before and after; a change that only ends a trial earlier (a stall cut) by the calls of the
one being the first calls of the other. With a back end that samples from a fixed seed, the
same prompts give the same answers, so the first call that differs is where the change acted.

Per task found in both runs (the first trial of each): `same` (every call the same), `cut`
(one run's calls are the first calls of the other's: which stopped, and how many calls and
model seconds the other went on for), or `differ` (the first call that differs, and whether
its prompt or only its answer did). The last line counts them.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Call:
    prompt: str
    answer: str
    seconds: float


def calls_of(trajectory: Path) -> list[Call]:
    """The model calls of a trajectory: what each was shown, what it answered, its time."""
    doc: dict[str, Any] = json.loads(trajectory.read_text())
    found = []
    for step in doc.get("steps", []):
        if step.get("source") != "agent":
            continue
        extra = step.get("extra") or {}
        seconds = float(extra.get("latency_sec") or 0.0)
        prompt = json.dumps(extra.get("prompt"), sort_keys=True)
        found.append(Call(prompt, str(step.get("message", "")), seconds))
    return found


def trajectories(run: Path) -> dict[str, Path]:
    """Task id → the trajectory of its first trial, for every trial folder under `run`."""
    found: dict[str, Path] = {}
    for path in sorted(run.glob("**/*.1/logs/agent/trajectory.json")):
        found.setdefault(path.parents[2].name.removesuffix(".1"), path)
    return found


def compare(a: list[Call], b: list[Call]) -> tuple[str, str]:
    """(kind, what to say): same, cut or differ."""
    for n, (one, other) in enumerate(zip(a, b, strict=False), start=1):
        if (one.prompt, one.answer) != (other.prompt, other.answer):
            part = "prompt" if one.prompt != other.prompt else "answer"
            first = _first_line_apart(_text(one, part), _text(other, part))
            return "differ", f"call {n} of {len(a)}/{len(b)} differs (its {part}): {first}"
    if len(a) == len(b):
        return "same", f"the same {len(a)} calls"
    shorter, longer, who = (a, b, "A") if len(a) < len(b) else (b, a, "B")
    rest = longer[len(shorter) :]
    went_on = sum(call.seconds for call in rest)
    return "cut", (
        f"the same {len(shorter)} calls, then {who} stopped; the other made {len(rest)} more"
        f" ({went_on:.0f} model s)"
    )


def _text(call: Call, part: str) -> str:
    if part == "answer":
        return call.answer
    messages = json.loads(call.prompt) or []
    return "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))


def _first_line_apart(a: str, b: str, width: int = 60) -> str:
    """The first line where two texts differ, each clipped: `'…' → '…'`."""
    lines_a, lines_b = a.splitlines(), b.splitlines()
    for one, other in zip(lines_a, lines_b, strict=False):
        if one != other:
            return f"{one[:width]!r} → {other[:width]!r}"
    return f"{len(lines_a)} lines → {len(lines_b)} lines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    args = parser.parse_args()
    a, b = trajectories(args.run_a), trajectories(args.run_b)
    counts = {"same": 0, "cut": 0, "differ": 0}
    for task in sorted(set(a) & set(b)):
        kind, said = compare(calls_of(a[task]), calls_of(b[task]))
        counts[kind] += 1
        print(f"{task:<24} {kind:<7} {said}")
    only = sorted(set(a) ^ set(b))
    print(
        f"{sum(counts.values())} tasks in both: same {counts['same']}, cut {counts['cut']},"
        f" differ {counts['differ']}" + (f"; in one run only: {', '.join(only)}" if only else "")
    )


if __name__ == "__main__":
    main()
