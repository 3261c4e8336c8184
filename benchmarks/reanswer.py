"""Would the tries of a finished run agree now, under the answer rules as the code is now?

    python benchmarks/reanswer.py --run runs/<run-id>[/<setting>] [--dataset PATH] [--tasks a,b]
                                  [--as-recorded] [--tests]

A rule about what counts as an answer (a blank file is none; a program is compared by what it
does; a repository by what it committed) is learnt from a few trials, and a model run to try it
costs hours. This reads the old answers again instead: each trial of the run that ran tries is
set up afresh as its tries were (the start every try shared), each try's saved workspace
(`tries/<n>/workspace`, the kept try's in the trial's `workspace/`) is laid over a copy of that
start, and its answer is read by `tries/answer.py` as it is now. The groups, the kept try and
the grade are then worked out again by `tries/choice.py` and `grades.py`.

What this cannot know: a try that never ran. Where the answers of the tries that ran no longer
settle it (two agree and no check fails) and fewer tries ran than planned, the run would have
gone on to another try; the line says `+1 try` and counts the trial apart. Only the workspace
and the named files outside it (`tries/<n>/outside`) are saved; in a run from before they were
kept, a named file outside the workspace (`/tmp/x`) reads as absent now. Tasks set up in their
image are not set up again (their tries' layers are not kept): their answers are taken as
recorded, and only the choice and the grade are worked out again (`as recorded` on the line).

Per trial: the grade then and now, the groups then and now, and what the task's tests said.
The last lines: `agreed` then and now, and how many of each the tests failed.

With `--tests` the task's own tests also run on every try's answer (tasks set up here only):
whether the choice lost a try the tests would have passed, or had none to lose — what better
choosing could win at most (pass@k beside pass@1 with selection; a measurement, never a score).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _trial import prepare, run_parser, run_tasks
from checks import trials_under

from hillclimber.errors import HillclimberError
from hillclimber.grades import DONE, Grade, grade_from
from hillclimber.harness.task_paths import TaskPaths
from hillclimber.image import needs_image
from hillclimber.results import TrialResult
from hillclimber.sandbox import OutsideSandbox, Sandbox, SandboxKind, create_sandbox, trial_layout
from hillclimber.shell.command import inside
from hillclimber.task import Task
from hillclimber.tries.answer import files_now, read_answer
from hillclimber.tries.choice import TriesRecord, TryRecord, choose, settled
from hillclimber.tries.run import OUTSIDE
from hillclimber.verify.verifier import verify

FOLDERS = ("workspace", "tmp", "home")


@dataclass
class Reanswered:
    task: str
    passed: bool
    then: TriesRecord
    now: TriesRecord
    grade_then: str
    grade_now: str
    recorded: bool = False
    """The answers were taken as recorded, not read again."""
    each: dict[int, bool] | None = None
    """With --tests: whether the task's tests passed each try's answer, by try."""

    @property
    def more_tries(self) -> bool:
        """The answers now do not settle it and the run stopped early: another try would run."""
        return len(self.now.tries) < self.now.planned and not settled(self.now.tries)

    def line(self) -> str:
        tests = "tests passed" if self.passed else "tests failed"
        more = "  +1 try" if self.more_tries else ""
        recorded = "  (answers as recorded)" if self.recorded else ""
        each = ""
        if self.each is not None:
            each = "  each try: " + " ".join(
                f"{n}{'✓' if ok else '✗'}" for n, ok in sorted(self.each.items())
            )
        return (
            f"{self.task:<24} {self.grade_then:>9} → {self.grade_now:<9}"
            f" groups {self.then.groups} → {self.now.groups}  {tests}{more}{recorded}{each}"
        )

    @property
    def lost(self) -> bool:
        """The tests would have passed a try the choice left out, and failed the kept one."""
        return self.each is not None and not self.passed and any(self.each.values())


def grade_of(record: TriesRecord) -> Grade:
    """The grade the kept try would have, from what its record holds."""
    kept = next(one for one in record.tries if one.index == record.chosen)
    return grade_from(
        passed=kept.checks_passed,
        conclusive=kept.value_passing > 0,
        agreed=record.agreed,
        disputed=record.disputed,
    )


def reanswer(
    trial: TrialResult, folder: Path, task: Task, kind: SandboxKind, tests: bool = False
) -> Reanswered:
    then = trial.tries
    assert then is not None
    with tempfile.TemporaryDirectory(prefix="hc-reanswer-") as tmp, contextlib.ExitStack() as held:
        fresh = prepare(task, Path(tmp) / "fresh", kind, held)
        paths = TaskPaths.read(task.instruction, fresh.sandbox, fresh.workdir)
        outside = [p for p in paths.named if not inside(p, [fresh.workdir])]
        before = files_now(fresh.sandbox, fresh.workdir, outside)
        tries: list[TryRecord] = []
        each: dict[int, bool] = {}
        tests = tests and fresh.verify is not None  # prepare's word on whether tests run here
        for one in then.tries:
            root = Path(tmp) / f"try-{one.index}"
            for name in FOLDERS:
                shutil.copytree(Path(tmp) / "fresh" / name, root / name, symlinks=True)
            saved = _saved(folder, one.index, then.chosen, "workspace")
            if saved is not None:
                shutil.rmtree(root / "workspace")
                shutil.copytree(saved, root / "workspace", symlinks=True)
            layout = trial_layout(root, network=task.environment.network)
            sandbox = held.enter_context(
                create_sandbox(kind, layout.with_env(fresh.sandbox.layout.env))
            )
            _lay_outside(sandbox, folder, one.index, then.chosen)
            answer = read_answer(sandbox, fresh.workdir, paths, before, task.instruction)
            update = {"answer": answer.digest, "parts": answer.parts, "copied": answer.copied}
            tries.append(one.model_copy(update=update))
            if tests:
                with contextlib.suppress(HillclimberError):  # unverified here: left out
                    checked = verify(task, sandbox, root / "checks", cwd=fresh.workdir)
                    each[one.index] = checked.passed
    found = graded(trial, tries, recorded=False)
    found.each = each if tests else None
    return found


def graded(trial: TrialResult, tries: list[TryRecord], *, recorded: bool) -> Reanswered:
    """The choice and the grade worked out again over `tries` (read again, or as recorded)."""
    then = trial.tries
    assert then is not None
    now = choose(tries, planned=then.planned, stop=then.stop, independent=then.independent)
    then_grade = str(trial.grade or grade_of(then))
    return Reanswered(trial.task_id, trial.passed, then, now, then_grade, str(grade_of(now)),
                      recorded)  # fmt: skip


def _saved(trial_folder: Path, index: int, chosen: int, name: str) -> Path | None:
    """Where try `index`'s folder `name` (`workspace`, `outside`) was kept: its own, else, for
    the chosen try, the trial's, which the chosen try's became."""
    own = trial_folder / "tries" / str(index) / name
    if own.is_dir():
        return own
    adopted = trial_folder / name
    return adopted if index == chosen and adopted.is_dir() else None


def _lay_outside(sandbox: Sandbox, trial_folder: Path, index: int, chosen: int) -> None:
    """Put back the named files outside the workspace try `index` left (`tries/<n>/outside`,
    the chosen try's in the trial's `outside/`)."""
    kept = _saved(trial_folder, index, chosen, OUTSIDE)
    if kept is None:
        return
    for path in sorted(kept.rglob("*")):
        if path.is_file():
            with contextlib.suppress(OSError, OutsideSandbox):
                sandbox.write_file("/" + path.relative_to(kept).as_posix(), path.read_bytes())


def summarize(found: list[Reanswered]) -> list[str]:
    def agreed(grade: str, rows: list[Reanswered]) -> str:
        chosen = [r for r in rows if getattr(r, grade) == Grade.AGREED]
        wrong = sum(not r.passed for r in chosen)
        return f"{len(chosen)} ({wrong} the tests failed)"

    more = [r for r in found if r.more_tries]
    return [
        f"{len(found)} trials with tries graded again,"
        f" {sum(r.recorded for r in found)} of them from the answers as recorded",
        f"agreed then: {agreed('grade_then', found)}; now: {agreed('grade_now', found)}",
        f"would run another try now: {len(more)}"
        + (f" ({', '.join(r.task for r in more)})" if more else ""),
        f"done now: {_done(found)}; disputed now: {_disputed(found)}",
        *_each(found),
    ]


def _each(rows: list[Reanswered]) -> list[str]:
    """With --tests: the choice against the best it could have made."""
    tested = [r for r in rows if r.each is not None]
    if not tested:
        return []
    lost = [r.task for r in tested if r.lost]
    any_passed = sum(any(r.each.values()) for r in tested if r.each is not None)
    kept = sum(r.passed for r in tested)
    return [
        f"tests on each try: {len(tested)} trials; the kept try passed {kept}"
        f", some try passed {any_passed}; a passing try left out {len(lost)}"
        + (f" ({', '.join(lost)})" if lost else "")
    ]


def _done(rows: list[Reanswered]) -> str:
    done = [r for r in rows if r.grade_now in DONE]
    return f"{len(done)} ({sum(not r.passed for r in done)} the tests failed)"


def _disputed(rows: list[Reanswered]) -> str:
    disputed = [r for r in rows if r.grade_now == Grade.DISPUTED]
    return f"{len(disputed)} ({sum(r.passed for r in disputed)} the tests passed)"


def main() -> None:
    parser = run_parser(__doc__)
    parser.add_argument(
        "--as-recorded", action="store_true", help="take the answers as recorded: grade only"
    )
    parser.add_argument(
        "--tests", action="store_true", help="also run the task's tests on every try's answer"
    )
    args = parser.parse_args()
    kind, by_id = run_tasks(args)
    found: list[Reanswered] = []
    for trial, folder in trials_under(args.run):
        task = by_id.get(trial.task_id)
        if task is None or trial.tries is None:
            continue
        recorded = args.as_recorded or needs_image(task)
        found.append(
            graded(trial, trial.tries.tries, recorded=True)
            if recorded
            else reanswer(trial, folder, task, kind, args.tests)
        )
        print(found[-1].line(), flush=True)
    print("\n".join(summarize(found)))


if __name__ == "__main__":
    main()
