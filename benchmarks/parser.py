"""Recovery rate of the forgiving tool-call parser on the parser corpus, the strict one beside it.

    python benchmarks/parser.py [--corpus tests/data/parser_corpus.jsonl] [--verbose]

The corpus holds raw answers small models gave (and constructed shapes they produce), each with
the call a person expects from it, or the failure reason when no call should come out. An entry
is recovered when the parser gives exactly that: the expected call, or the expected failure.
The strict parser (the `naive` preset's) is scored against the same expectations, for contrast.
Prints the entries each parser gets wrong, a table by shape, and a last line with the forgiving
parser's rate; the target is at least 98%.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from hillclimber.harness.acting.tools import tool_list
from hillclimber.harness.parsing.outcome import ParsedCall
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.harness.presets import preset

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "parser_corpus.jsonl"
TARGET = 0.98

Outcome = tuple[dict[str, Any] | None, str | None]


def outcome(text: str, tools: list[str], *, forgiving: bool) -> Outcome:
    """(call, None) for a call, (None, reason) for a failure: the corpus's `expect`/`reason`."""
    result = parse_tool_call(text, tool_list(tools), forgiving=forgiving)
    if isinstance(result, ParsedCall):
        return {"name": result.call.name, "arguments": result.call.arguments}, None
    return None, result.reason.value


def shown(value: Outcome) -> str:
    call, reason = value
    return f"failure {reason}" if call is None else json.dumps(call)[:120]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--verbose", action="store_true", help="list the strict parser's misses")
    args = parser.parse_args()
    entries = [json.loads(line) for line in args.corpus.read_text().splitlines() if line.strip()]
    strict_forgiving = preset("naive").ask.forgiving_parser
    by_shape: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # entries, forgiving, strict
    misses: dict[str, list[str]] = {"forgiving": [], "strict": []}
    calls = [0, 0, 0]  # entries expecting a call, recovered by forgiving, by strict
    for entry in entries:
        expected: Outcome = (entry["expect"], entry["reason"])
        row = by_shape[entry["shape"]]
        row[0] += 1
        calls[0] += entry["expect"] is not None
        for column, (name, forgiving) in enumerate(
            [("forgiving", True), ("strict", strict_forgiving)], start=1
        ):
            got = outcome(entry["text"], entry["tools"], forgiving=forgiving)
            if got == expected:
                row[column] += 1
                calls[column] += entry["expect"] is not None
            else:
                misses[name].append(
                    f"  {entry['id']} [{entry['shape']}]: expected {shown(expected)}; "
                    f"got {shown(got)}"
                )

    total = len(entries)
    print(f"corpus {args.corpus.name}: {total} entries, {calls[0]} expecting a call")
    print(f"forgiving parser misses ({len(misses['forgiving'])}):")
    print("\n".join(misses["forgiving"]) or "  none")
    print(f"strict parser (naive preset) misses: {len(misses['strict'])}")
    if args.verbose:
        print("\n".join(misses["strict"]))
    print(f"\n{'shape':<26}{'entries':>8}{'forgiving':>11}{'strict':>8}")
    for shape, (n, good, strict_good) in sorted(by_shape.items(), key=lambda kv: -kv[1][0]):
        mark = "  <- below target" if good / n < TARGET else ""
        print(f"{shape:<26}{n:>8}{good:>11}{strict_good:>8}{mark}")

    ok, strict_ok = total - len(misses["forgiving"]), total - len(misses["strict"])
    print(
        f"calls recovered: forgiving {calls[1]}/{calls[0]} ({calls[1] / calls[0]:.1%}), "
        f"strict {calls[2]}/{calls[0]} ({calls[2] / calls[0]:.1%})"
    )
    print(
        f"parser: recovery {ok}/{total} ({ok / total:.1%}) target>={TARGET:.0%}; "
        f"strict {strict_ok}/{total} ({strict_ok / total:.1%})"
    )


if __name__ == "__main__":
    main()
