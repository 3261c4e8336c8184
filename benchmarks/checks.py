"""Are the harness's own acceptance checks informative and sound?

    python benchmarks/checks.py [--suite mini | --dataset PATH] [--tasks a,b] [--model local]

For every task: its environment is set up as a trial's would be, the check builder runs on the
untouched workspace (the extracted checks; with --model also the model's proposals), then the
task's reference solution runs and the kept checks are run again. Per task it prints the checks
made and kept, whether at least one goal check is informative (fails untouched — every kept
goal check does, by construction) and sound (passes after the solution), and the kept checks
that fail the reference solution (a wrong check blocks a correct answer). Goals: at least 90%
of tasks with a sound and informative check; at most 10% with any check failing the reference.
The last line has the totals.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _trial import load_tasks, prepare

from hillclimber.agents.base import AgentContext
from hillclimber.agents.oracle import OracleAgent
from hillclimber.errors import HillclimberError
from hillclimber.harness.checks import build_checks
from hillclimber.harness.checks.propose import ModelProposer
from hillclimber.models import make_model
from hillclimber.sandbox import HOST_KINDS, SandboxKind, pick_sandbox_kind
from hillclimber.task import Task


@dataclass
class Measured:
    made: int
    kept: int
    sound_goal: bool
    unsound: list[str]


def measure(task: Task, root: Path, kind: SandboxKind, proposer: ModelProposer | None) -> Measured:
    prepared = prepare(task, root, kind)
    if prepared.notes and "empty workspace" in prepared.notes[0]:
        raise HillclimberError(prepared.notes[0])
    built = build_checks(task.instruction, prepared.sandbox, prepared.workdir, propose=proposer)
    log_dir = root / "oracle"
    log_dir.mkdir()
    ctx = AgentContext(
        task, prepared.sandbox, time.monotonic() + task.limits.agent_timeout_sec, log_dir,
        prepared.workdir,
    )  # fmt: skip
    solved = OracleAgent().run(ctx)
    if solved.info.get("exit_code") != 0:
        raise HillclimberError(
            f"the reference solution fails here (exit {solved.info.get('exit_code')})"
        )
    results = built.results()
    return Measured(
        made=len(built.checks) + len(built.dropped),
        kept=len(built.checks),
        sound_goal=any(check.goal and outcome.passed for check, outcome in results),
        unsound=[check.name for check, outcome in results if not outcome.passed],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="mini")
    parser.add_argument("--dataset", help="a dataset path (instead of --suite)")
    parser.add_argument("--tasks", help="task ids or globs, comma-separated (default: all)")
    parser.add_argument("--model", help="also ask this model for checks (e.g. local)")
    parser.add_argument("--sandbox", type=SandboxKind, choices=HOST_KINDS)
    args = parser.parse_args()
    dataset, tasks = load_tasks(args.suite, args.dataset, args.tasks)
    kind, _ = pick_sandbox_kind(args.sandbox)
    proposer = ModelProposer(make_model(args.model)) if args.model else None
    print(
        f"{len(tasks)} tasks of {dataset.name}, sandbox {kind}, proposals: {args.model or 'none'}"
    )
    measured: dict[str, Measured] = {}
    for task in tasks:
        if task.solution is None and task.solution_inline is None:
            print(f"  {task.id}: not measured (no reference solution)")
            continue
        with tempfile.TemporaryDirectory(prefix="hc-bench-checks-") as tmp:
            try:
                found = measure(task, Path(tmp), kind, proposer)
            except HillclimberError as err:
                print(f"  {task.id}: not measured ({err})")
                continue
        measured[task.id] = found
        unsound = f"; fails the solution: {'; '.join(found.unsound)}" if found.unsound else ""
        print(
            f"  {task.id}: made {found.made}, kept {found.kept}, sound and informative: "
            f"{'yes' if found.sound_goal else 'no'}{unsound}"
        )
    n = len(measured) or 1
    good = sum(m.sound_goal for m in measured.values())
    bad = sum(bool(m.unsound) for m in measured.values())
    print(
        f"checks: tasks {len(measured)}/{len(tasks)} measured; sound and informative "
        f"{good}/{len(measured)} ({good / n:.0%}) target>=90%; any check failing the "
        f"solution {bad}/{len(measured)} ({bad / n:.0%}) target<=10%"
    )


if __name__ == "__main__":
    main()
