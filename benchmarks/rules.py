"""Does each rule that makes the harness's own checks hold away from home?

    python benchmarks/rules.py --home mini --home ../shared/termigen-dev \
        --away ../shared/termigen-val --away ../shared/tb2 [--run runs/<id> ...] [--save F]
    python benchmarks/rules.py --load F [--also G ...] [--run runs/<id> ...]

Every check records the rule that made it (`finder.Kind`, `harness/checks/base.made_by`).
Each task of each source is set up as a trial would be (in its image where it needs one; a
task that cannot be set up here is counted as not measured, never measured on an empty
workspace) and its checks are built on the untouched workspace; where the task has a reference
solution, it runs and each rule's checks run again. Per rule:
- fired: the tasks where it made a kept check, at home (the sources the rules were written
  from: `--home`) and away (sources never read for tuning: `--away`, printed as counts only);
- sound: of the tasks with a solution where it fired, those where its checks pass after it;
- precision (`--run`, finished runs that recorded their checks at the end): of the trials whose
  checks of this rule all passed on the answer, those the task's tests passed.

The last lines name the rules that fired on one task only of every instruction measured: a
rule that knows one task is a phrasing rule, not a mechanism (issue: rules must prove
themselves away from home).

`benchmarks/data/rule-fires-d2c835f.json` holds the counts that decided the removal of 14 rules
(measured at d2c835f on 252 tasks: the built-in suite 19/19 and the dev split 155/157 at home;
the validation split 39/40 and TB2 39/89, those that set up without building an image or had
one built, away): `python benchmarks/rules.py --load benchmarks/data/rule-fires-d2c835f.json`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from _trial import load_tasks, prepare
from checks import trials_under

from hillclimber.agents.oracle import OracleAgent
from hillclimber.context import AgentContext
from hillclimber.errors import HillclimberError
from hillclimber.harness.checks import build_checks
from hillclimber.image import find_engine, needs_image
from hillclimber.image.build import task_slug
from hillclimber.sandbox import SandboxKind, pick_sandbox_kind
from hillclimber.task import Task


@dataclass
class Fired:
    """What the rules did on one task."""

    rules: list[str]
    """The rules of the kept checks."""
    sound: dict[str, bool] = field(default_factory=dict)
    """Per rule, whether all its checks pass after the reference solution (where it ran)."""


def measure(task: Task, root: Path, kind: SandboxKind) -> Fired:
    """The rules that fire on `task` as set up under `root`, and their soundness."""
    with contextlib.ExitStack() as held:
        prepared = prepare(task, root, kind, held)
        if prepared.notes and "empty workspace" in prepared.notes[0]:
            raise HillclimberError(prepared.notes[0])
        built = build_checks(task.instruction, prepared.sandbox, prepared.workdir)
        fired = Fired(sorted({check.rule for check in built.checks}))
        if not task.has_solution:
            return fired
        log_dir = root / "oracle"
        log_dir.mkdir()
        deadline = time.monotonic() + task.limits.agent_timeout_sec
        ctx = AgentContext(task, prepared.sandbox, deadline, log_dir, prepared.workdir)
        if OracleAgent().run(ctx).info.get("exit_code") != 0:
            return fired  # a solution that fails here judges nothing
        passed: dict[str, bool] = {}
        for check, outcome in built.results():
            passed[check.rule] = passed.get(check.rule, True) and outcome.passed
        fired.sound = passed
    return fired


def measure_source(
    source: str, kind: SandboxKind, *, away: bool, built_only: bool = False
) -> dict[str, Fired | None]:
    """Per task of `source`, what fired (None: it could not be set up here; with
    `built_only`, a task whose image is not built yet is not built for this). Tasks away from
    home are measured the same way and never printed one by one."""
    dataset, tasks = load_tasks(source, None if source == "mini" else source, None)
    found: dict[str, Fired | None] = {}
    built = _built_images() if built_only else set()
    for task in tasks:
        if built_only and needs_image(task) and task_slug(task.id) not in built:
            found[task.id] = None
            continue
        with tempfile.TemporaryDirectory(prefix="hc-bench-rules-") as tmp:
            try:
                found[task.id] = measure(task, Path(tmp), kind)
            except HillclimberError:
                found[task.id] = None
        if not away:
            rules = found[task.id]
            print(f"  {task.id}: {', '.join(rules.rules) if rules else 'not set up here'}")
    print(f"{dataset.name}: {sum(v is not None for v in found.values())}/{len(tasks)} measured")
    return found


def _built_images() -> set[str]:
    """The task slugs that have an image here (any version of it)."""
    engine = find_engine()
    if isinstance(engine, str):
        return set()
    listed = subprocess.run(
        ["podman", "images", "--format", "{{.Repository}}"], capture_output=True, text=True
    ).stdout.split()
    return {name.rsplit("/task-", 1)[1] for name in listed if "/task-" in name}


@dataclass
class Tally:
    """Per rule, over every source."""

    home: Counter[str] = field(default_factory=Counter)
    away: Counter[str] = field(default_factory=Counter)
    sound: Counter[str] = field(default_factory=Counter)
    judged: Counter[str] = field(default_factory=Counter)
    where: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    """Per rule, the home tasks it fired on (named only when there are few)."""

    def add(self, task: str, fired: Fired, *, away: bool) -> None:
        for rule in fired.rules:
            (self.away if away else self.home)[rule] += 1
            if not away:
                self.where[rule].append(task)
        for rule, ok in fired.sound.items():
            self.judged[rule] += 1
            self.sound[rule] += ok

    def saved(self) -> dict[str, dict[str, object]]:
        """What `--save` keeps: counts per rule, and the home tasks (never the away ones)."""
        rules = sorted(set(self.home) | set(self.away))
        return {
            rule: {
                "home": self.home[rule],
                "away": self.away[rule],
                "sound": self.sound[rule],
                "judged": self.judged[rule],
                "where": self.where.get(rule, []),
            }
            for rule in rules
        }

    def merge(self, other: Tally) -> None:
        """Add the counts of sources measured apart (home in one run, away in another)."""
        self.home += other.home
        self.away += other.away
        self.sound += other.sound
        self.judged += other.judged
        for rule, tasks in other.where.items():
            self.where[rule] = [*self.where.get(rule, []), *tasks]

    @classmethod
    def loaded(cls, data: dict[str, dict[str, object]]) -> Tally:
        tally = cls()
        for rule, row in data.items():
            tally.home[rule] = int(row["home"])  # type: ignore[call-overload]
            tally.away[rule] = int(row["away"])  # type: ignore[call-overload]
            tally.sound[rule] = int(row["sound"])  # type: ignore[call-overload]
            tally.judged[rule] = int(row["judged"])  # type: ignore[call-overload]
            tally.where[rule] = list(row.get("where", []))  # type: ignore[call-overload]
        return tally


def precision(folders: list[Path]) -> dict[str, tuple[int, int]]:
    """Per rule: trials whose checks of the rule all passed on the answer, and how many of
    those the task's tests passed (trials that recorded their checks at the end)."""
    held: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for folder in folders:
        for trial, _ in trials_under(folder):
            if trial.checked is None or trial.evaluation is None:
                continue
            failing = set(trial.checked.failing)
            rules: dict[str, bool] = {}
            for check in trial.agent_info.get("checks", []):
                rule = str(check.get("rule") or "")
                if rule:
                    rules[rule] = rules.get(rule, True) and check.get("name") not in failing
            for rule, passed in rules.items():
                if passed:
                    held[rule] += 1
                    right[rule] += trial.passed
    return {rule: (held[rule], right[rule]) for rule in held}


def report(tally: Tally, runs: dict[str, tuple[int, int]]) -> None:
    rules = sorted(set(tally.home) | set(tally.away), key=lambda r: (-tally.home[r], r))
    print("rule: fired home/away; sound (passes the solution); precision on runs")
    for rule in rules:
        sound = f"{tally.sound[rule]}/{tally.judged[rule]}" if tally.judged[rule] else "-"
        held, right = runs.get(rule, (0, 0))
        kept = f"{right}/{held}" if held else "-"
        print(f"  {rule}: {tally.home[rule]}/{tally.away[rule]}; sound {sound}; precision {kept}")
    single = [r for r in rules if tally.home[r] + tally.away[r] == 1]
    print(f"rules that fired on one task only of all measured: {len(single)}")
    for rule in single:
        print(f"  {rule} ({', '.join(tally.where.get(rule, [])) or 'away'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", action="append", default=[], help="a suite or dataset")
    parser.add_argument("--away", action="append", default=[], help="counted only")
    parser.add_argument("--run", type=Path, action="append", default=[])
    parser.add_argument("--save", type=Path, help="write the counts per rule here")
    parser.add_argument(
        "--also", type=Path, action="append", default=[], help="counts saved by another run"
    )
    parser.add_argument("--load", type=Path, help="counts saved before, instead of measuring")
    parser.add_argument(
        "--built-only",
        action="store_true",
        help="build no image: a task needing one not built "
        "yet is not measured (a collection larger than the disk)",
    )
    args = parser.parse_args()
    if args.load:
        tally = Tally.loaded(json.loads(args.load.read_text()))
    else:
        kind, _ = pick_sandbox_kind()
        tally = Tally()
        for source in [*args.home, *args.away]:
            away = source in args.away
            measured = measure_source(source, kind, away=away, built_only=args.built_only)
            for task, fired in measured.items():
                if fired is not None:
                    tally.add(task, fired, away=away)
        if args.save:
            args.save.write_text(json.dumps(tally.saved(), indent=1) + "\n")
    if args.also:
        for more in args.also:
            tally.merge(Tally.loaded(json.loads(more.read_text())))
    report(tally, precision(args.run))


if __name__ == "__main__":
    main()
