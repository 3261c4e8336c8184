"""What does the model do after a file tool says "no such file"?

    python benchmarks/missing.py RUN [RUN ...]

Reads the trajectories of finished runs (run or comparison folders). For each result of a file
tool that begins "no such file: PATH", the model's next call is sorted as:
- `again`: the same tool on the same path (refused or not: the guards may refuse a reread);
- `listed`: a call whose path, or a command, names an entry of the folder the result listed
  (`(FOLDER holds N entries: a, b/, ...)`, since ab674f4; `1 entry` since 5e528c3) — the
  listing was used;
- `looked`: a command that lists or searches (`ls`, `find`, `tree`, `locate`) — the model looked
  for itself;
- `other`: anything else (writing the missing file, another file, a command).
It prints the counts per run, with the agent runs (trials, or each try of a trial) that met one
and how many of them the tests passed (a try counts its trial's result).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from hillclimber.harness.acting.tools import TOOLS, ToolCall, tool_list
from hillclimber.harness.parsing.outcome import ParsedCall
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.results import read_trial

_MISSING = re.compile(r"^no such file: (\S+)(?: \((\S+) holds \d+ entr(?:y|ies): ([^)]*)\))?")
TOOL_SPECS = tool_list(list(TOOLS))
_LOOK = re.compile(r"(?:^|[;&|]\s*|\s)(?:ls|find|tree|locate)\b")


def call_of(step: dict[str, Any]) -> ToolCall | None:
    """The call the model answered in a turn of its own (not a question asked aside: a plan,
    a candidate), read by the loop's own parser: what it asked for, whether the guards refused
    it or climbing applied another call in its place."""
    if step.get("source") != "agent" or (step.get("extra") or {}).get("role") != "worker":
        return None
    parsed = parse_tool_call(str(step.get("message") or ""), TOOL_SPECS)
    return parsed.call if isinstance(parsed, ParsedCall) else None


def kind(after: ToolCall, path: str, listed: list[str]) -> str:
    """How the model's next call relates to the missing `path` and the entries `listed`."""
    said = " ".join(str(v) for v in after.arguments.values())
    if after.arguments.get("path") == path:
        return "again"
    if any(name and name in said for name in listed):
        return "listed"
    if after.name == "run_command" and _LOOK.search(said):
        return "looked"
    return "other"


def followups(doc: dict[str, Any]) -> Counter[str]:
    """The kinds of next call after each "no such file" in one trajectory."""
    steps = doc.get("steps", [])
    found: Counter[str] = Counter()
    for i, step in enumerate(steps):
        for result in (step.get("observation") or {}).get("results") or []:
            match = _MISSING.match(str(result.get("content", "")))
            if match is None:
                continue
            listed = [e.strip().rstrip("/") for e in (match.group(3) or "").split(",")]
            nxt = next((c for s in steps[i + 1 :] if (c := call_of(s)) is not None), None)
            found[kind(nxt, match.group(1), listed) if nxt else "none"] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("runs", type=Path, nargs="+")
    args = parser.parse_args()
    for run in args.runs:
        total: Counter[str] = Counter()
        trials = passed = 0
        for path in sorted(run.glob("**/logs/agent/trajectory.json")):
            trial = path.parents[2]
            if "tries" in trial.parts:  # each try is a run of the agent of its own
                trial = Path(*trial.parts[: trial.parts.index("tries")])
            elif (trial / "tries").is_dir():
                continue  # the kept try's trajectory again
            found = followups(json.loads(path.read_text()))
            if found:
                trials += 1
                result = read_trial(trial / "result.json")
                passed += bool(result is not None and result.passed)
            total += found
        kinds = ", ".join(f"{k} {total[k]}" for k in ("again", "listed", "looked", "other", "none"))
        print(
            f"{run}: {sum(total.values())} missing in {trials} agent runs"
            f" ({passed} passed); {kinds}"
        )


if __name__ == "__main__":
    main()
