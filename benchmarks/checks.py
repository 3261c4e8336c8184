"""Are the harness's own acceptance checks informative, sound and strong — and do they let
wrong work through?

    python benchmarks/checks.py [--suite mini | --dataset PATH] [--tasks a,b] [--model local]
                                [--names]
    python benchmarks/checks.py --run runs/<run-id> [--run runs/<other>]

Checks of tasks: every task is set up as a trial would be (in its image where it needs one), the
check builder runs on the untouched workspace (the extracted checks; with --model also the
model's proposals); where the task has a reference solution it runs and the kept checks run
again. Per task it prints the checks kept with their kinds and strength, whether one is strong
(its pass shows the content is right: a stated value, an exact copy, a stated output — not only
that a file is there, parses or changed), whether a goal check is sound and informative (fails
untouched, passes after the solution) and the kept checks that fail the reference solution (a
wrong check blocks a correct answer); then how often each kind of check fired (* value, + form).
Goals: a strong check (form or value) for at least 80% of tasks; at least 90% sound and
informative; at most 10% failing the solution.

False passes of a finished run (`--run`, a run or a comparison folder): of its trials that
checked themselves (`feedback: self`), those whose own checks all passed at the end — a pass
with a value check (`verified`), one a second computation agreed with (`agreed`), or one of
form or weak checks, whether the model stood by it (`confirmed`) or its word was not taken and
the pass lasted to the last turn (`unconfirmed`; before strength was recorded, every pass ended
`verified` and its strength is read from its checks' names) — and how many of each failed the
task's tests. Goal: at most 20% of self-checked passes false.

The last line has the totals.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _trial import load_tasks, prepare

from hillclimber.agents.oracle import OracleAgent
from hillclimber.context import AgentContext
from hillclimber.errors import HillclimberError
from hillclimber.harness.checks import AcceptanceChecks, build_checks
from hillclimber.harness.checks.base import Check
from hillclimber.harness.checks.propose import ModelProposer
from hillclimber.models import make_model
from hillclimber.results import TrialResult, read_trial
from hillclimber.sandbox import HOST_KINDS, SandboxKind, pick_sandbox_kind
from hillclimber.task import Task
from hillclimber.verify.verifier import STRENGTHS, Strength


@dataclass
class Measured:
    made: int
    names: list[str]
    """The name of each kept goal check that is not weak."""
    kept: list[tuple[str, Strength]]
    """(kind, strength) of each kept goal check."""
    invariants: list[str] = field(default_factory=list)
    """The kind of each kept invariant (a file left alone, a new file no copy of an input)."""
    made_up: list[str] = field(default_factory=list)
    """The example's made-up values the copy checks look for (`checks/borrowed.py`)."""
    sound_goal: bool | None = None
    """None: no reference solution to judge with."""
    unsound: list[str] = field(default_factory=list)

    @property
    def strength(self) -> Strength:
        """Of the strongest kept goal check (weak when none)."""
        return STRENGTHS[max((STRENGTHS.index(s) for _, s in self.kept), default=0)]


def measure(task: Task, root: Path, kind: SandboxKind, proposer: ModelProposer | None) -> Measured:
    with contextlib.ExitStack() as held:
        prepared = prepare(task, root, kind, held)
        if prepared.notes and "empty workspace" in prepared.notes[0]:
            raise HillclimberError(prepared.notes[0])
        built = build_checks(task.instruction, prepared.sandbox, prepared.workdir, propose=proposer)
        kept = [(type(c).__name__, c.strength) for c in built.checks if c.goal]
        names = [c.name for c in built.checks if c.goal and c.strength != "weak"]
        measured = Measured(len(built.checks) + len(built.dropped), names, kept)
        measured.invariants = [_invariant(c) for c in built.checks if not c.goal]
        measured.made_up = [v for c in built.checks for v in getattr(c, "borrowed", ())]
        if task.has_solution:
            _judge_with_solution(task, root, prepared.sandbox, prepared.workdir, built, measured)
    return measured


def _invariant(check: Check) -> str:
    """An invariant's kind; a copy check that knows the example's made-up values says so."""
    made_up = " with made-up values" if getattr(check, "borrowed", ()) else ""
    return type(check).__name__ + made_up


def _judge_with_solution(
    task: Task, root: Path, sandbox: Any, workdir: str, built: AcceptanceChecks, found: Measured
) -> None:
    log_dir = root / "oracle"
    log_dir.mkdir()
    deadline = time.monotonic() + task.limits.agent_timeout_sec
    solved = OracleAgent().run(AgentContext(task, sandbox, deadline, log_dir, workdir))
    if solved.info.get("exit_code") != 0:
        raise HillclimberError(
            f"the reference solution fails here (exit {solved.info.get('exit_code')})"
        )
    results = built.results()
    found.sound_goal = any(check.goal and outcome.passed for check, outcome in results)
    found.unsound = [check.name for check, outcome in results if not outcome.passed]


def tasks_main(args: argparse.Namespace) -> None:
    dataset, tasks = load_tasks(args.suite, args.dataset, args.tasks)
    kind, _ = pick_sandbox_kind(args.sandbox)
    proposer = ModelProposer(make_model(args.model)) if args.model else None
    print(
        f"{len(tasks)} tasks of {dataset.name}, sandbox {kind}, proposals: {args.model or 'none'}"
    )
    measured: dict[str, Measured] = {}
    for task in tasks:
        with tempfile.TemporaryDirectory(prefix="hc-bench-checks-") as tmp:
            try:
                found = measure(task, Path(tmp), kind, proposer)
            except HillclimberError as err:
                print(f"  {task.id}: not measured ({err})")
                continue
        measured[task.id] = found
        print(f"  {task.id}: {_task_line(found)}")
        if args.names:
            print("".join(f"    {name}\n" for name in found.names), end="")
    _print_kinds(measured)
    print(_totals(measured, len(tasks)))


def _task_line(found: Measured) -> str:
    kinds = ", ".join(f"{name}{_MARK[strength]}" for name, strength in found.kept) or "none"
    line = f"made {found.made}, kept goal checks {len(found.kept)} ({kinds})"
    line += f", strongest: {found.strength}"
    if found.sound_goal is not None:
        line += f", sound and informative: {'yes' if found.sound_goal else 'no'}"
    if found.unsound:
        line += f"; fails the solution: {'; '.join(found.unsound)}"
    if found.made_up:
        line += f"; made-up values: {', '.join(found.made_up)[:80]}"
    return line


_MARK: dict[Strength, str] = {"weak": "", "form": "+", "value": "*"}


def _print_kinds(measured: dict[str, Measured]) -> None:
    """How often each kind of goal check, and of invariant, was kept, and in how many tasks."""
    fired: Counter[tuple[str, Strength]] = Counter()
    tasks: Counter[tuple[str, Strength]] = Counter()
    kept: Counter[str] = Counter()
    kept_in: Counter[str] = Counter()
    for found in measured.values():
        fired.update(found.kept)
        tasks.update(set(found.kept))
        kept.update(found.invariants)
        kept_in.update(set(found.invariants))
    print("kinds of goal checks kept (* value, + form, else weak): kind, checks, tasks")
    for (name, strength), count in fired.most_common():
        print(f"  {name}{_MARK[strength]}: {count}, {tasks[(name, strength)]}")
    print("kinds of invariants kept: kind, checks, tasks")
    for name, count in kept.most_common():
        print(f"  {name}: {count}, {kept_in[name]}")


def _totals(measured: dict[str, Measured], asked: int) -> str:
    n = len(measured)
    value = sum(m.strength == "value" for m in measured.values())
    strong = sum(m.strength != "weak" for m in measured.values())
    judged = [m for m in measured.values() if m.sound_goal is not None]
    good = sum(bool(m.sound_goal) for m in judged)
    bad = sum(bool(m.unsound) for m in judged)
    return (
        f"checks: tasks {n}/{asked} measured; with a strong check (form or value) {strong}/{n} "
        f"({_share(strong, n)}) target>=80%, of value {value}/{n} ({_share(value, n)}); "
        f"with a solution {len(judged)}: sound and "
        f"informative {good}/{len(judged)} ({_share(good, len(judged))}) target>=90%; any check "
        f"failing the solution {bad}/{len(judged)} ({_share(bad, len(judged))}) target<=10%"
    )


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


# -- false passes of a finished run -----------------------------------------------------------

WEAK_NAMES = (" exists and is not empty", " is changed", " parses as ", " holds a number")
"""How the weak kinds name themselves (`kinds.py`): the strength of a record made before it
was kept beside each check."""


PASSES = ("value", "agreed", "form", "weak")
"""What a self-checked pass rested on, strongest first: a value check; a second computation
that agreed (the checks themselves form or weak); form checks; weak checks."""


def pass_strength(trial: TrialResult) -> str | None:
    """What a trial's pass rested on when its own checks all passed at its end, else None."""
    info = trial.agent_info
    if info.get("loop_exit") == "agreed":
        return "agreed"
    if info.get("loop_exit") not in ("verified", "confirmed", "unconfirmed"):
        return None
    goals = [c for c in info.get("checks", []) if isinstance(c, dict) and c.get("goal")]
    found = [_strength_of(c) for c in goals]
    return STRENGTHS[max((STRENGTHS.index(s) for s in found), default=0)]


def _strength_of(check: dict[str, Any]) -> Strength:
    """A recorded check's strength (records before grades kept `strong`; before that, only
    the name)."""
    if check.get("strength") in STRENGTHS:
        return check["strength"]  # type: ignore[no-any-return]
    if "strong" in check:
        return "value" if check["strong"] else "weak"
    return "weak" if _named_weak(str(check.get("name", ""))) else "value"


def _named_weak(name: str) -> bool:
    if name.startswith("`") and " succeeds" in name:
        return " and prints " not in name
    return any(word in name for word in WEAK_NAMES)


def run_main(folders: list[Path]) -> None:
    trials = [t for folder in folders for t, _ in trials_under(folder)]
    selfs = [t for t in trials if t.feedback == "self"]
    passes: Counter[str] = Counter()
    false: Counter[str] = Counter()
    for trial in selfs:
        strength = pass_strength(trial)
        if strength is None:
            continue
        passes[strength] += 1
        if not trial.passed:
            false[strength] += 1
            print(f"  false pass ({strength}): {trial.trial} ({trial.message})")
    print(f"{len(trials)} trials, {len(selfs)} checked themselves (feedback self)")
    for strength in PASSES:
        print(
            f"  {strength} passes {passes[strength]}, false {false[strength]} "
            f"({_share(false[strength], passes[strength])})"
        )
    total, wrong = sum(passes.values()), sum(false.values())
    print(
        f"false passes: {wrong}/{total} ({_share(wrong, total)}) target<=20%; "
        + "; ".join(f"{s} {false[s]}/{passes[s]}" for s in PASSES)
    )


def trials_under(folder: Path) -> list[tuple[TrialResult, Path]]:
    """Every trial result under a run folder (a comparison holds one run per setting), with
    the trial's own folder."""
    found = ((read_trial(path), path.parent) for path in sorted(folder.glob("**/result.json")))
    return [(trial, where) for trial, where in found if trial is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="mini")
    parser.add_argument("--dataset", help="a dataset path (instead of --suite)")
    parser.add_argument("--tasks", help="task ids or globs, comma-separated (default: all)")
    parser.add_argument("--model", help="also ask this model for checks (e.g. local)")
    parser.add_argument("--sandbox", type=SandboxKind, choices=HOST_KINDS)
    parser.add_argument("--names", action="store_true", help="print each strong check's name")
    parser.add_argument(
        "--run", type=Path, action="append", help="a finished run's folder: its false passes"
    )
    args = parser.parse_args()
    if args.run:
        run_main(args.run)
    else:
        tasks_main(args)


if __name__ == "__main__":
    main()
