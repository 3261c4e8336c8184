"""A run resumed across commits, told apart by commit: what each commit's trials did.

    python benchmarks/by_commit.py --run runs/<run-id>

A long run (the whole TermiGen dev split takes longer than a session) is resumed on the newest
commit each time; every trial's result names the commit that ran it (`provenance.py`). Per
commit, in the order they first ran: trials, solved (by the tests), how the loop ended, second
answers asked and usable (commits before 2026-11-28: they were removed then), computed answers
tried and applied (`climbing/computed.py`) and model seconds per trial. The last line has the
totals.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from hillclimber.results import TrialResult, read_trial


def trial_counts(result: TrialResult, folder: Path) -> Counter[str]:
    """What one trial counts for (its trajectory read where it has one)."""
    info = result.agent_info or {}
    counts: Counter[str] = Counter(trials=1, solved=int(result.passed))
    counts[f"end {info.get('loop_exit')}"] += 1
    trajectory = folder / "logs" / "agent" / "trajectory.json"
    steps: list[dict[str, Any]] = []
    if trajectory.exists():
        steps = json.loads(trajectory.read_text()).get("steps", [])
    for step in steps:
        extra = step.get("extra") or {}
        counts["model s"] += round(extra.get("latency_sec", 0))
        if step.get("message") == "second answer":
            counts["second asked"] += 1
            counts["second usable"] += not extra.get("unusable")
        tried = extra.get("candidates") or {}
        origins = [c.get("origin") for c in tried.get("candidates", [])]
        counts["computed tried"] += origins.count("computed")
        chosen = tried.get("chosen")
        counts["computed applied"] += chosen is not None and origins[chosen] == "computed"
    return counts


def by_commit(run: Path) -> dict[str, Counter[str]]:
    """Each commit's counts, in the order its first trial ran."""
    found: list[tuple[str, str, Counter[str]]] = []
    for path in run.glob("*/*/result.json"):
        result = read_trial(path)
        if result is not None and result.agent_info:
            commit = result.commit[:7] if result.commit else "unrecorded"
            found.append((result.started_at, commit, trial_counts(result, path.parent)))
    commits: dict[str, Counter[str]] = {}
    for _, commit, counts in sorted(found, key=lambda item: item[0]):
        commits.setdefault(commit, Counter()).update(counts)
    return commits


def line(name: str, counts: Counter[str]) -> str:
    ends = ", ".join(f"{k[4:]} {v}" for k, v in sorted(counts.items()) if k.startswith("end "))
    per_trial = counts["model s"] / counts["trials"]
    return (
        f"{name}: solved {counts['solved']}/{counts['trials']}; ends: {ends}; second answers"
        f" {counts['second usable']} usable of {counts['second asked']}; computed answers"
        f" {counts['computed applied']} applied of {counts['computed tried']};"
        f" {per_trial:.0f} model s a trial"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a run folder (runs/<run-id>)")
    args = parser.parse_args()
    commits = by_commit(args.run)
    if not commits:
        raise SystemExit(f"{args.run}: no trial results")
    for commit, counts in commits.items():
        print(line(commit, counts))
    print(line("all", sum(commits.values(), Counter())))


if __name__ == "__main__":
    main()
