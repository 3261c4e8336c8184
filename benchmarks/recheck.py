"""Would the harness's own checks, as the code is now, have stopped a finished run's wrong
answers, and let its right ones through?

    python benchmarks/recheck.py --run runs/<run-id> [--dataset PATH] [--tasks a,b] [--all]

A false pass costs a model run to find, and a new check rule is tried on the next run's new
answers only. This replays the old answers instead: each trial of the run that checked itself
(`feedback: self`) is set up again as it was (in its image where it has one), its checks are
built on the untouched workspace by the code as it is now, the actions the trial took are
replayed in order through the same tool handlers (the `tool_calls` of its trajectory: files
written and edited, commands run, the harness's own writes too; reads change nothing and are
left out), and then the checks run, and the task's tests run.

The checks are the kept acceptance checks; whether a second computation agreed with the
answer (a model call) is not replayed, so a trial that ended on its disagreement shows here as
checks failed then, passed now.

By default the trials replayed are those whose own checks passed at their end or whose tests
passed (`--all`: every self-checked trial). Per trial: the pass then (its strength) and the
tests then; the checks now (which one fails first) and the tests now. A replay whose tests
now disagree with the tests then did not rebuild the answer (a command that depends on time,
the network, a process left running, or a handler that changed since) and is counted apart.

The last lines: of the passes then that were false, how many the checks now stop; of those
that were true, how many they now block; of the answers the tests passed that the checks
then failed, how many they now let through; and the false passes now among the replays. A pass
stopped by a check the trial had then too was stopped by a rule that changed since, or by a
replay that differs; one stopped by a check marked `(new)`, by a rule made since.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _trial import one_line, prepare, run_parser, run_tasks
from checks import pass_strength, trials_under

from hillclimber.errors import HillclimberError
from hillclimber.harness.acting.handlers import ToolEnv, execute
from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.checks import build_checks
from hillclimber.harness.instruction import search_roots
from hillclimber.results import TrialResult
from hillclimber.sandbox import SandboxKind
from hillclimber.task import Task

REPLAYED = ("write_file", "edit_file", "run_command")
"""The tools that change the workspace; `read_file` does not, `verify_progress` and
`task_complete` only ask."""


@dataclass
class Rechecked:
    trial: str
    then: str | None
    """What the pass then rested on (`checks.pass_strength`), None where the checks failed."""
    tests_then: bool
    now: bool | None = None
    """Whether every check built now passes on the replayed answer; None: no goal check."""
    failing: str = ""
    """The first check that fails now."""
    new: bool = False
    """Whether that check is one the trial did not have then (a rule since)."""
    tests_now: bool | None = None
    """None: the tests cannot run here."""
    actions: int = 0
    note: str = ""

    @property
    def rebuilt(self) -> bool:
        return self.tests_now == self.tests_then

    def line(self) -> str:
        then = f"pass ({self.then})" if self.then else "fail"
        now = {None: "no checks", True: "pass", False: "fail"}[self.now]
        tests = f"tests {_word(self.tests_then)}→{_word(self.tests_now)}"
        why = f": {self.failing}{' (new)' if self.new else ''}" if self.failing else ""
        note = f" [{self.note}]" if self.note else ""
        return f"{self.trial:55s} checks {then} → {now}, {tests}, {self.actions} actions{why}{note}"


def _word(passed: bool | None) -> str:
    return "-" if passed is None else ("pass" if passed else "fail")


def recheck(trial: TrialResult, folder: Path, task: Task, kind: SandboxKind) -> Rechecked:
    """Set `task` up again, build its checks now, replay the trial's actions, judge."""
    found = Rechecked(trial.trial, pass_strength(trial), trial.passed)
    calls = _actions(folder / "logs" / "agent" / "trajectory.json")
    found.actions = len(calls)
    with tempfile.TemporaryDirectory(prefix="hc-recheck-") as tmp, contextlib.ExitStack() as held:
        try:
            prepared = prepare(task, Path(tmp) / task.id, kind, held)
        except HillclimberError as err:
            found.note = f"not set up: {one_line(err)}"
            return found
        found.note = "; ".join(prepared.notes)
        sandbox, workdir = prepared.sandbox, prepared.workdir
        built = build_checks(task.instruction, sandbox, workdir)
        env = ToolEnv(sandbox, workdir, roots=search_roots(task.instruction, workdir))
        for call in calls:
            execute(call, env)
        if built.usable:
            failing = [(c.name, o.detail) for c, o in built.results() if not o.passed]
            found.now = not failing
            if failing:
                (name, detail), then = failing[0], trial.agent_info.get("checks", [])
                found.failing = f"{name}: {detail}"[:200] if detail else name
                found.new = name not in {check.get("name") for check in then}
        if prepared.verify is not None:
            found.tests_now = prepared.verify().passed
    return found


def _actions(trajectory: Path) -> list[ToolCall]:
    doc: dict[str, Any] = json.loads(trajectory.read_text())
    return [
        ToolCall(name=call["function_name"], arguments=call.get("arguments") or {})
        for step in doc.get("steps", [])
        for call in step.get("tool_calls") or []
        if call.get("function_name") in REPLAYED
    ]


def summarize(found: list[Rechecked]) -> list[str]:
    rebuilt = [r for r in found if r.rebuilt]
    false_then = [r for r in rebuilt if r.then and not r.tests_then]
    true_then = [r for r in rebuilt if r.then and r.tests_then]
    missed_then = [r for r in rebuilt if not r.then and r.tests_then]
    stopped = sum(r.now is False for r in false_then)
    by_new = sum(r.now is False and r.new for r in false_then)
    blocked = sum(r.now is False for r in true_then)
    let_through = sum(r.now is True for r in missed_then)
    passes_now = [r for r in rebuilt if r.now]
    false_now = sum(not r.tests_then for r in passes_now)
    return [
        f"{len(found)} trials replayed, {len(rebuilt)} rebuilt (the tests now as then)",
        f"false passes then: {len(false_then)}, stopped now {stopped} ({by_new} by a check"
        " the trial did not have)",
        f"true passes then: {len(true_then)}, blocked now {blocked}",
        f"tests passed, checks failed then: {len(missed_then)}, passed now {let_through}",
        f"false passes now: {false_now}/{len(passes_now)}"
        f" (then: {len(false_then)}/{len(false_then) + len(true_then)})",
    ]


def main() -> None:
    parser = run_parser(__doc__)
    parser.add_argument("--all", action="store_true", help="every self-checked trial")
    args = parser.parse_args()
    kind, by_id = run_tasks(args)
    found: list[Rechecked] = []
    for trial, folder in trials_under(args.run):
        task = by_id.get(trial.task_id)
        if task is None or trial.feedback != "self":
            continue
        if not (args.all or trial.passed or pass_strength(trial)):
            continue
        found.append(recheck(trial, folder, task, kind))
        print(found[-1].line(), flush=True)
    print("\n".join(summarize(found)))


if __name__ == "__main__":
    main()
