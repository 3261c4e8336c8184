"""How many tasks each setting solves — our presets and the peers — against the naive baseline.

    python benchmarks/solve_rate.py [--model local] [--presets naive,fm,climber,full]
                                    [--suite mini | --dataset PATH] [--tasks IDS]
                                    [--tasks-file benchmarks/termigen-dev-20.txt]
                                    [--run-id ID] [--runs-dir runs] [--max-turns N] [--no-run]

Runs `hillclimber compare` (the same command a user runs: same model, same tasks, same seeds
for every setting; re-running the same --run-id resumes it; --no-run only reads it), then
prints per setting: tasks solved and the ratio to naive, mean turns, prompt tokens per solved
task, wall time, the feedback it had, and for `self` its false passes (trials whose own checks
all passed at the end but whose tests failed). The last line holds all figures. The 20-task
TermiGen subset: `--dataset ../shared/termigen-dev --tasks-file benchmarks/termigen-dev-20.txt
--presets climber,naive,mini-swe-agent`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from checks import pass_strength

from hillclimber.errors import HillclimberError
from hillclimber.report.rundata import RunData, RunStats, load_runs


def ratio(solved: int, baseline: int) -> str:
    """`solved` against naive's count, as `2.50x naive` (a ratio to 0 is said in words)."""
    if baseline == 0:
        return f"{solved} more than naive, which solved none"
    return f"{solved / baseline:.2f}x naive"


def false_passes(run: RunData) -> tuple[int, int] | None:
    """(false, all) passes of the trials that checked themselves; None when none did."""
    selfs = [trial for trial in run.trials if trial.feedback == "self"]
    if not selfs:
        return None
    passes = [trial for trial in selfs if pass_strength(trial) is not None]
    return sum(not trial.passed for trial in passes), len(passes)


def row(run: RunData, baseline: int | None) -> str:
    stats = RunStats.of(run)
    against = "" if baseline is None else f" ({ratio(stats.solved, baseline)})"
    turns = "–" if stats.mean_turns is None else f"{stats.mean_turns:.1f}"
    tokens = (
        "–" if stats.prompt_tokens_per_solved is None else f"{stats.prompt_tokens_per_solved:,.0f}"
    )
    wall = "–" if stats.elapsed_seconds is None else f"{stats.elapsed_seconds / 60:.0f} min"
    found = false_passes(run)
    false = "" if found is None else f", false passes {found[0]}/{found[1]}"
    return (
        f"{run.label:>16}: {stats.solved}/{stats.tasks} solved{against}, {turns} turns, "
        f"{tokens} prompt tokens per solved task, {wall}, feedback {stats.feedback}{false}"
    )


def compare_command(args: argparse.Namespace, run_id: str) -> list[str]:
    source = ["--dataset", args.dataset] if args.dataset else ["--suite", args.suite]
    command = [
        sys.executable, "-m", "hillclimber", "compare", *source,
        "--model", args.model, "--presets", args.presets,
        "--run-id", run_id, "--runs-dir", args.runs_dir,
    ]  # fmt: skip
    tasks = args.tasks
    if args.tasks_file:
        lines = Path(args.tasks_file).read_text().splitlines()
        tasks = ",".join(line.strip() for line in lines if line.strip() and line[0] != "#")
    if tasks:
        command += ["--tasks", tasks]
    if args.max_turns:
        command += ["--max-turns", str(args.max_turns)]
    return command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="local")
    parser.add_argument("--suite", default="mini")
    parser.add_argument("--dataset", default=None, help="a dataset folder instead of --suite")
    parser.add_argument("--presets", default="naive,fm,climber,full")
    parser.add_argument("--tasks", default=None)
    parser.add_argument("--tasks-file", default=None, help="task ids, one a line (# comments)")
    parser.add_argument("--run-id", default=None)
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--max-turns", type=int, default=None, help="for a quick check only")
    parser.add_argument("--no-run", action="store_true", help="only read --run-id's results")
    args = parser.parse_args()
    if args.no_run and not args.run_id:
        parser.error("--no-run reads a finished run: give its --run-id")
    run_id = args.run_id or datetime.now().strftime("solve-rate__%Y-%m-%d__%H-%M-%S")
    if not args.no_run:
        code = subprocess.call(compare_command(args, run_id))
        if code != 0:
            sys.exit(code)
    try:
        runs = load_runs([Path(args.runs_dir) / run_id])
    except HillclimberError as err:
        sys.exit(f"solve_rate: {err}")
    counts = {run.label: RunStats.of(run).solved for run in runs}
    baseline = counts.get("naive")
    for run in runs:
        print(row(run, None if run.label == "naive" else baseline))
    tasks = max((RunStats.of(run).tasks for run in runs), default=0)
    figures = [f"{label} {solved}/{tasks}" for label, solved in counts.items()]
    others = [s for label, s in counts.items() if label != "naive"]
    best = f"; best: {ratio(max(others), baseline)}" if others and baseline is not None else ""
    where = args.dataset or args.suite
    print(f"solve_rate: {', '.join(figures)}{best} ({args.model}, {where}, run {run_id})")


if __name__ == "__main__":
    main()
