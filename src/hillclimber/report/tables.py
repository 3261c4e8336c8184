"""Runs side by side: the numbers per run and the task × run matrix, as plain rows (for the
HTML report), as rich tables (for the terminal) and those as Markdown (for a README). Nothing
here prints."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from hillclimber.grades import DONE, Grade
from hillclimber.report.rundata import RunData, RunStats
from hillclimber.results import TrialResult

DASH = "–"
PASS, FAIL, NOT_RUN = "✓", "✗", "·"

STATS_COLUMNS = (
    "run",
    "solved",
    "pass rate",
    "pass@k",
    "mean turns",
    "model calls",
    "prompt tok/solved",
    "answer tok/solved",
    "parse failed/fixed",
    "denials",
    "ctx shrinks",
    "trial time Σ",
    "model time/task",
    "elapsed",
)


def run_label(run: RunData) -> str:
    """The run's label with what checked its work and the window its model had."""
    kind = run.feedback()
    said = [] if kind == "none" else [f"feedback: {kind}"]
    if run.config.model is not None:
        said.append(f"window {run.window()}")
    return f"{run.label} ({', '.join(said)})" if said else run.label


def _number(value: float | None, digits: int = 0) -> str:
    if value is None:
        return DASH
    return f"{value:,.{digits}f}"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return DASH
    whole = round(seconds)
    if whole < 60:
        return f"{seconds:.1f}s" if seconds < 10 else f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def stats_row(run: RunData, stats: RunStats | None = None) -> list[str]:
    s = stats or run.stats()
    # failed: no call could be read; fixed: the forgiving parser repaired the answer
    parse = DASH if s.parse_failures is None else f"{s.parse_failures}/{s.parse_recovered or 0}"
    return [
        run_label(run),
        f"{s.solved}/{s.tasks}",
        f"{s.pass_rate:.0%}" if s.trials else DASH,
        "  ".join(f"@{k} {v:.2f}" for k, v in s.pass_at_k.items()) or DASH,
        _number(s.mean_turns, 1),
        _number(s.model_calls),
        _number(s.prompt_tokens_per_solved),
        _number(s.completion_tokens_per_solved),
        parse,
        _number(s.denials),
        _number(s.context_shrinks),
        duration(s.trial_seconds) if s.trials else DASH,
        duration(s.model_seconds / s.trials) if s.model_seconds is not None and s.trials else DASH,
        duration(s.elapsed_seconds),
    ]


GRADES_TITLE = "the harness said → the tests said"


def grade_rows(runs: Sequence[RunData]) -> list[list[str]]:
    """A row per grade the harness gave (`grades.py`), with per run the trials of that grade
    and how often the tests said otherwise: of a grade that means "done", the trials the
    tests failed (wrong); of one that does not (disputed, unchecked, failed), those the tests
    passed. Then the grades that mean "done" together."""
    stats = [run.stats() for run in runs]
    rows = []
    for grade in Grade:
        if any(grade.value in s.grades for s in stats):
            cells = [_graded(grade in DONE, *s.grades.get(grade.value, (0, 0))) for s in stats]
            rows.append([grade.value, *cells])
    rows.append(["said done", *(_graded(True, s.done_wrong[1], s.done_wrong[0]) for s in stats)])
    return rows


def _graded(done: bool, count: int, failed: int) -> str:
    """`count` trials of a grade, `failed` of them failed by the tests."""
    if not count:
        return DASH
    if done:
        return f"{count}, {failed} wrong ({failed / count:.0%})"
    return f"{count}, {count - failed} passed the tests"


def task_ids(runs: Sequence[RunData]) -> list[str]:
    """Every task of the runs, in the order the runs list them."""
    seen: dict[str, None] = {}
    for run in runs:
        seen.update(dict.fromkeys(run.config.task_ids))
        seen.update(dict.fromkeys(t.task_id for t in run.trials))
    return list(seen)


def marks(run: RunData, task_id: str) -> str:
    """One mark per attempt: ✓ passed, ✗ did not, · not run (yet)."""
    done = {t.attempt: t for t in run.trials_of(task_id)}
    attempts = max([run.config.n_attempts, *done])
    return "".join(
        NOT_RUN if a not in done else PASS if done[a].passed else FAIL
        for a in range(1, attempts + 1)
    )


def how_close(run: RunData, task_id: str) -> str:
    """How close each failed attempt came: the task's tests it passed, of all (`2/9`), so a
    run where nothing is solved still shows which trials were near."""
    return " ".join(
        f"{t.evaluation.passing}/{t.evaluation.total}"
        for t in sorted(run.trials_of(task_id), key=lambda t: t.attempt)
        if not t.passed and t.evaluation is not None and t.evaluation.total
    )


def matrix_rows(runs: Sequence[RunData]) -> list[list[str]]:
    """A row per task: the task id, then the marks of each run."""
    return [[task, *(marks(run, task) for run in runs)] for task in task_ids(runs)]


def stats_table(runs: Sequence[RunData]) -> Table:
    """The numbers with a column per run and a row per figure: side by side, so a comparison
    of a few runs stays readable in an 80-column terminal."""
    table = Table("", *(escape(run.label) for run in runs), title="runs")
    table.columns[0].no_wrap = True
    for column in table.columns[1:]:
        column.justify = "right"
    rows = [stats_row(run) for run in runs]
    table.add_row("feedback", *(run.feedback() for run in runs))
    table.add_row("window", *(run.window() for run in runs))
    for index, name in enumerate(STATS_COLUMNS[1:], start=1):
        table.add_row(name, *(escape(row[index]) for row in rows))
    return table


def grades_table(runs: Sequence[RunData]) -> Table:
    """How far each grade of the harness's own evidence held: per grade, trials and how many
    the task's tests failed."""
    table = Table("grade", *(escape(run.label) for run in runs), title=GRADES_TITLE)
    for column in table.columns[1:]:
        column.justify = "right"
    for row in grade_rows(runs):
        table.add_row(*(escape(cell) for cell in row))
    return table


_STYLE = {PASS: "[green]✓[/]", FAIL: "[red]✗[/]", NOT_RUN: "[dim]·[/]"}


def task_matrix(runs: Sequence[RunData]) -> Table:
    """The marks of each task in each run; beside a failed attempt, the tests it passed."""
    table = Table("task", *(escape(run.label) for run in runs), title="tasks × runs")
    for task, *cells in matrix_rows(runs):
        near = [how_close(run, task) for run in runs]
        table.add_row(
            escape(task),
            *(
                "".join(_STYLE[c] for c in cell) + (f" [dim]{n}[/]" if n else "")
                for cell, n in zip(cells, near, strict=True)
            ),
        )
    return table


def trial_end(trial: TrialResult) -> str:
    """How a trial's agent stopped, in the agent's own word (the loop's exit, mini-swe-agent's
    exit status, or the trial's where the agent gave none), with its model calls and its time:
    `max_turns, 10 calls, 35s`; `TimeExceeded, 10 calls, 15m04s`."""
    info = trial.agent_info
    parts = [str(info.get("loop_exit") or trial.exit_reason.value)]
    if info.get("model_calls") is not None:
        parts.append(f"{info['model_calls']} calls")
    if "agent" in trial.timings:
        parts.append(duration(trial.timings["agent"]))
    return ", ".join(parts)


def ends_table(runs: Sequence[RunData]) -> Table:
    """Per task and run, how each attempt's agent stopped (`trial_end`): whether a peer ran
    out of time, turns or window, or said it was done, beside the matrix's tests passed."""
    table = Table("task", *(escape(run.label) for run in runs), title="how each trial ended")
    for task in task_ids(runs):
        cells = [
            " | ".join(trial_end(t) for t in sorted(run.trials_of(task), key=lambda t: t.attempt))
            for run in runs
        ]
        table.add_row(escape(task), *(escape(cell) if cell else NOT_RUN for cell in cells))
    return table


def markdown(table: Table) -> str:
    """A rich table as a GitHub Markdown table, its title a bold line above it: the same cells,
    whole (a terminal clips them), without their colours."""
    header = [_plain(column.header) for column in table.columns]
    columns = [[_plain(cell) for cell in column.cells] for column in table.columns]
    lines = [f"**{_plain(table.title)}**", ""] if table.title else []
    lines += [_row(header), _row(["---"] * len(header))]
    lines += [_row(list(row)) for row in zip(*columns, strict=True)]
    return "\n".join(lines)


def _plain(cell: object) -> str:
    text = cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell or "")).plain
    return " ".join(text.split()).replace("|", "\\|")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"
