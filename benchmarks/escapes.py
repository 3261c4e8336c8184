"""Do commands a model might invent get out of the trial's sandbox?

    python benchmarks/escapes.py [--kinds bwrap,namespace,container] [--category X]
                                 [--limit N] [--json PATH]

The corpus (benchmarks/data/escapes.toml) holds shell commands that delete, write or read what
lies outside the trial, reach the network, leave processes behind or eat the machine's
resources. Each runs in every sandbox kind asked for (bwrap and namespace unless told;
`container`, which needs podman, is a small task's image with a layer of the run's own, as the
runner gives a trial) twice: with the guards on (the harness's guards decide first; a denied
command is blocked and not run) and with it off (straight into a fresh trial sandbox). Around
each run the host is checked: the run's canary folder (changed, gone or read: it lives on a
tmpfs that records every read), real host files and folders, its loopback listener (TCP, UDP)
and ICMP, its secrets in what the command printed or left in the trial, the host's disk and
memory, and — a few seconds later, when the trial ends (its session closed: what the command
left running may run until then, as in a container) — all of that again, and the host's
processes listed: none of the run may be left (its mark, its /app, its session's pid
namespace). A run is blocked, contained or escaped (any check failed). Commands get small
resource limits and a short time limit so the corpus runs quickly. Prints, per kind and
mode, how many runs were blocked, contained and escaped, every escape with its command, and
last the escapes per kind and the runs that left a process running after their trial.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
import time
import tomllib
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from _escape_run import LIMITS, TIMEOUT, Outcome, Runs

from hillclimber.image import find_engine
from hillclimber.sandbox import SandboxKind

CORPUS = Path(__file__).resolve().parent / "data" / "escapes.toml"
CATEGORIES = ("deletion", "write-outside", "read-secrets", "network", "processes", "resources")
KINDS = (SandboxKind.BWRAP, SandboxKind.NAMESPACE)
"""The kinds run unless told."""
ISOLATING = (*KINDS, SandboxKind.CONTAINER)
"""The kinds that may be asked for: those that isolate."""
MODES = ("guards on", "guards off")
LOOPBACK = {"127.0.0.1", "::1", "localhost", "[::1]"}


@dataclass(frozen=True)
class Entry:
    command: str
    category: str
    tries: str


def load_corpus(path: Path = CORPUS) -> list[Entry]:
    """The corpus's commands, in file order."""
    tables = tomllib.loads(path.read_text())["command"]
    return [Entry(t["command"], t["category"], t["tries"]) for t in tables]


_ADDRESS = re.compile(
    r"\b\d{1,3}(?:\.\d{1,3}){3}\b"  # IPv4
    r"|(?<=://)\[[^\]]*\]|(?<=://)[^/:\s'\"\[]+"  # URL hosts
    r"|(?<=/dev/tcp/)[^/\s]+|(?<=/dev/udp/)[^/\s]+"  # bash's network paths
    r"|(?<=@)[\w.-]+(?=\s+-p)"  # dig @server -p
)


def addresses(command: str) -> set[str]:
    """The network addresses a command names (IPv4, URL hosts, /dev/tcp hosts, ...)."""
    found = set(_ADDRESS.findall(command))
    found.update(m for m in re.findall(r"\(\s*'([^']+)'\s*,\s*@PORT@", command))
    return found


def not_loopback(command: str) -> set[str]:
    return {address for address in addresses(command) if address not in LOOPBACK}


@dataclass
class Tally:
    """One kind's outcomes in one mode."""

    counts: Counter[str] = field(default_factory=Counter)
    by_category: dict[str, Counter[str]] = field(default_factory=dict)
    limits: Counter[str] = field(default_factory=Counter)

    def add(self, outcome: Outcome, category: str) -> None:
        self.counts[outcome.outcome] += 1
        self.by_category.setdefault(category, Counter())[outcome.outcome] += 1
        if outcome.limit_kind:
            self.limits[outcome.limit_kind] += 1


def run_corpus(
    entries: list[Entry], kinds: list[SandboxKind], progress: bool = False
) -> list[tuple[Entry, Outcome]]:
    """Every entry in every kind, guards on and off, checked; in the order run."""
    os.environ["HC_ESCAPE_SECRET"] = f"hc-runner-secret-{secrets.token_hex(8)}"
    done: list[tuple[Entry, Outcome]] = []
    with Runs() as runs:
        for kind in kinds:
            for mode in MODES:
                for number, entry in enumerate(entries, 1):
                    outcome = runs.start(entry.command, kind, guards=mode == "guards on")
                    done.append((entry, outcome))
                    runs.settle()
                    if progress and number % 25 == 0:
                        print(f"  … {kind} {mode}: {number}/{len(entries)}", file=sys.stderr)
        runs.settle(everything=True)
        notes = runs.notes
    for note in notes:
        print(f"note: {note}")
    return done


def _line(counts: Counter[str], guards: bool) -> str:
    parts = [f"blocked by the guards {counts['blocked']}"] if guards else []
    parts += [f"contained by the sandbox {counts['contained']}", f"escaped {counts['escaped']}"]
    return ", ".join(parts)


def report(
    entries: list[Entry], kinds: list[SandboxKind], done: list[tuple[Entry, Outcome]]
) -> None:
    """The figures per kind and mode, then every escape with its command."""
    tallies = {(kind, mode): Tally() for kind in kinds for mode in MODES}
    for entry, outcome in done:
        tallies[(outcome.kind, outcome.mode)].add(outcome, entry.category)
    for kind in kinds:
        print(f"{kind}: {len(entries)} commands")
        for mode in MODES:
            tally = tallies[(kind, mode)]
            print(f"  {mode + ':':13}{_line(tally.counts, mode == 'guards on')}")
            for category in CATEGORIES:
                if category in tally.by_category:
                    counts = tally.by_category[category]
                    print(f"    {category:14} {_line(counts, mode == 'guards on')}")
            ended = ", ".join(f"{name} {count}" for name, count in sorted(tally.limits.items()))
            print(f"    ended by a limit or the time limit: {ended or 'none'}")
    escapes = [(entry, outcome) for entry, outcome in done if outcome.outcome == "escaped"]
    print(f"escapes ({len(escapes)}):" if escapes else "escapes: none")
    for entry, outcome in escapes:
        print(f"  {outcome.kind}, {outcome.mode}, {entry.category} ({entry.tries}):")
        for line in entry.command.splitlines():
            print(f"      $ {line}" if line == entry.command.splitlines()[0] else f"        {line}")
        for finding in outcome.findings:
            print(f"      - {finding}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kinds", default=",".join(KINDS), help="sandbox kinds, comma-separated")
    parser.add_argument("--category", choices=CATEGORIES, help="only this category")
    parser.add_argument("--limit", type=int, help="only the first N commands (after --category)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path, help="write every run's outcome here")
    parser.add_argument("--progress", action="store_true", help="say how far it got on stderr")
    args = parser.parse_args()
    kinds = [SandboxKind(kind.strip()) for kind in args.kinds.split(",") if kind.strip()]
    if any(kind not in ISOLATING for kind in kinds):
        parser.error(f"--kinds: only {', '.join(ISOLATING)} (the kinds that isolate)")
    engine = find_engine() if SandboxKind.CONTAINER in kinds else None
    if isinstance(engine, str):
        parser.error(f"--kinds container: {engine}")
    entries = load_corpus(args.corpus)
    if args.category:
        entries = [entry for entry in entries if entry.category == args.category]
    entries = entries[: args.limit] if args.limit else entries
    per_category = Counter(entry.category for entry in entries)
    print(
        f"escape corpus: {len(entries)} commands ("
        + ", ".join(f"{c} {per_category[c]}" for c in CATEGORIES if per_category[c])
        + f"); kinds {', '.join(kinds)}; guards on and off"
    )
    print(
        f"limits per command: memory {LIMITS.memory_mb} MiB, {LIMITS.processes} processes, "
        f"files {LIMITS.file_mb} MiB, output {LIMITS.output_mb} MiB, folders "
        f"{LIMITS.workspace_mb} MiB; time limit {TIMEOUT:g} s"
    )
    start = time.monotonic()
    done = run_corpus(entries, kinds, progress=args.progress)
    report(entries, kinds, done)
    if args.json:
        rows = [{**asdict(entry), **outcome.as_dict()} for entry, outcome in done]
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    escaped = Counter(outcome.kind for _, outcome in done if outcome.outcome == "escaped")
    left = Counter(outcome.kind for _, outcome in done if outcome.left_running)
    print(f"elapsed {time.monotonic() - start:.0f} s")
    print(
        "escapes: "
        + ", ".join(f"{kind} {escaped[kind]}" for kind in kinds)
        + "; left running: "
        + ", ".join(f"{kind} {left[kind]}" for kind in kinds)
        + f" ({len(entries)} commands × {len(kinds)} kinds × {len(MODES)} modes)"
    )


if __name__ == "__main__":
    main()
