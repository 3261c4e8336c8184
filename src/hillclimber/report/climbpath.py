"""The path a climb took, from its store: a table for the terminal (`climb show`) and a page
with the score per step, train and held-out (`climb show --html`, `report CLIMB`)."""

from __future__ import annotations

import json
from dataclasses import replace
from html import escape
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from rich.table import Table

from hillclimber.climb.store import ARGUMENTS, ClimbStore, PathStep, SettingScore, described
from hillclimber.climb.tune import RESULT, Summary
from hillclimber.report.plots import data_uri
from hillclimber.results import read_trial

STYLE = (
    "body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; } "
    "table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: .25em .6em; }"
)
COLUMNS = ("step", "kind", "setting", "score", "best", "kept", "note")


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _row(step: PathStep) -> list[str]:
    kept = "✓" if step.kept and step.kind == "try" else ""
    return [str(step.n), step.kind, step.setting, _number(step.score), _number(step.best), kept,
            step.note]  # fmt: skip


def _title(store: ClimbStore) -> str:
    args = store.get(ARGUMENTS) or {}
    result = store.get(RESULT)
    head = f"climb of {args.get('model', '?')} from {args.get('start', '?')}"
    if result is None:
        return f"{head} (not finished)"
    summary = Summary.model_validate(result)
    return (
        f"{head}: train {summary.tuned_train:g}/{summary.train_size} tuned vs "
        f"{', '.join(map(str, summary.start_train))} start (noise {summary.noise}); held-out "
        f"{summary.tuned_held_out}/{summary.held_out_size} tuned vs {summary.start_held_out} start"
    )


def path_table(store: ClimbStore) -> Table:
    table = Table(title=_title(store), title_justify="left")
    for column in COLUMNS:
        table.add_column(column, justify="right" if column in ("step", "score", "best") else "left")
    for step in store.steps():
        table.add_row(*_row(step))
    return table


def evaluations_table(store: ClimbStore) -> Table:
    """Every evaluation so far, in order: what a climb still running has done (its path is
    written as each setting of the space is decided)."""
    table = Table(title="evaluations", title_justify="left", caption=DISPUTED,
                  caption_justify="left")  # fmt: skip
    for column in EVALUATION_COLUMNS:
        table.add_column(column, justify="right" if column in NUMBERS else "left",
                         overflow="fold")  # fmt: skip
    for row in _evaluation_rows(store):
        table.add_row(*row)
    return table


DISPUTED = "+task*: its tests passed a result the agent's own checks had failed"
EVALUATION_COLUMNS = ("split", "setting", "seed", "solved", "run", "hours", "vs start")
NUMBERS = ("seed", "solved", "run", "hours")


def _evaluation_rows(store: ClimbStore) -> list[list[str]]:
    evaluations = [_placed(store, done) for done in store.evaluations()]
    rows = [_evaluation_row(done, evaluations) for done in evaluations]
    return rows + under_way(store, evaluations)


def _placed(store: ClimbStore, done: SettingScore) -> SettingScore:
    """The evaluation with its run folder found from the store's place (a climb started with a
    relative `--dir` stored a path relative to where it ran)."""
    stored = Path(done.run_dir)
    return replace(done, run_dir=str(store.path.parent / "runs" / stored.parent.name / stored.name))


def under_way(store: ClimbStore, evaluations: list[SettingScore]) -> list[list[str]]:
    """Evaluations begun and not ended (running now, or cut by a stop: a resume goes on with
    them), from their run folders: the trials so far."""
    known = {Path(done.run_dir).resolve() for done in evaluations}  # placed (`_placed`)
    start = _harness(store.path.parent / "runs" / "train" / "start-s0")
    rows = []
    for where in sorted(store.path.parent.glob("runs/*/*-s*")):
        if where.resolve() in known or not where.is_dir():
            continue
        trials = [t for path in where.glob("*/*/result.json") if (t := read_trial(path))]
        hours = sum(t.timings.get("total", 0.0) for t in trials) / 3600
        setting = _changes(start, _harness(where)) if where.name != "start-s0" else "start"
        rows.append([where.parent.name, setting, where.name.rpartition("-s")[2],
                     str(sum(t.passed for t in trials)), f"{len(trials)} so far, under way",
                     f"{hours:.1f}", ""])  # fmt: skip
    return rows


def _harness(where: Path) -> dict[str, object]:
    """The harness setting of an evaluation's run folder, flat (`planning.planner`: false)."""
    for config in sorted(where.glob("*/config.json")):
        return _flat(json.loads(config.read_text(encoding="utf-8")).get("harness", {}))
    return {}


def _flat(values: dict[str, object], prefix: str = "") -> dict[str, object]:
    flat: dict[str, object] = {}
    for key, value in values.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _changes(start: dict[str, object], setting: dict[str, object]) -> str:
    changes = {k: v for k, v in setting.items() if k != "ask.seed" and start.get(k) != v}
    return described(changes) if start and setting else "?"


def _evaluation_row(done: SettingScore, evaluations: list[SettingScore]) -> list[str]:
    ran = f"{done.finished}/{done.total}" + (" pruned" if done.pruned else "")
    return [done.split, described(done.changes), str(done.seed), str(done.solved), ran,
            f"{done.seconds / 3600:.1f}", versus_start(done, evaluations)]  # fmt: skip


def versus_start(done: SettingScore, evaluations: list[SettingScore]) -> str:
    """Which tasks make the difference, against the start's other runs on the same tasks:
    `+task` solved here and in none of them, `-task` solved in all of them and not here (among
    the tasks this evaluation ran). What a score alone hides: whether a gain is one task the
    start solves now and then, or a task no run of the start ever solved; and, marked `*`,
    whether its tests passed a result the agent's own checks had failed (tests loose enough to
    pass the instruction's example copied, as in the 0.5B climb of docs/results.md)."""
    starts = [e for e in evaluations if not e.changes and e.split == done.split and e is not done]
    if not starts:
        return ""
    gained = [t for t, ok in done.passed.items() if ok and not any(s.passed.get(t) for s in starts)]
    lost = [t for t, ok in done.passed.items()
            if not ok and all(s.passed.get(t) for s in starts)]  # fmt: skip
    disputed = self_failed(done) if gained else set()
    return " ".join([*(f"+{t}{'*' if t in disputed else ''}" for t in sorted(gained)),
                     *(f"-{t}" for t in sorted(lost))])  # fmt: skip


def self_failed(done: SettingScore) -> set[str]:
    """The tasks of an evaluation whose tests passed though the agent's own checks failed its
    result at the end (`loop_exit: verification_failed`), read from its run folder."""
    found: set[str] = set()
    for path in Path(done.run_dir).glob("*/*/result.json") if done.run_dir else ():
        trial = read_trial(path)
        if trial and trial.passed and trial.agent_info.get("loop_exit") == "verification_failed":
            found.add(trial.task_id)
    return found


def path_plot(steps: list[PathStep]) -> str:
    """Score per step: each setting tried on train (kept ones filled), the best so far, and the
    held-out scores of the start and the tuned setting after the search."""
    figure = Figure(figsize=(max(5.0, 0.45 * len(steps) + 2), 3.4))
    ax = figure.add_subplot()
    train = [s for s in steps if s.kind in ("noise", "try")]
    best = [(s.n, s.best) for s in train if s.best is not None]
    if best:
        ax.step([n for n, _ in best], [b for _, b in best], where="post", color="#4878d0",
                label="best on train")  # fmt: skip
    tried = [s for s in train if not s.kept]
    ax.scatter([s.n for s in tried], [s.score or 0 for s in tried], color="#999", label="tried")
    kept = [s for s in train if s.kept]
    ax.scatter([s.n for s in kept], [s.score or 0 for s in kept], color="#1a7f37", label="kept")
    held = [s for s in steps if s.kind == "held-out"]
    ax.scatter([s.n for s in held], [s.score or 0 for s in held], color="#ee854a", marker="D",
               label="held-out")  # fmt: skip
    for step in held:
        ax.annotate(step.setting, (step.n, step.score or 0), textcoords="offset points",
                    xytext=(4, 4), fontsize=8)  # fmt: skip
    ax.margins(x=0.12, y=0.15)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step")
    ax.set_ylabel("tasks solved")
    ax.legend(fontsize=8, loc="best")
    return data_uri(figure)


def climb_page(store: ClimbStore) -> str:
    steps = store.steps()
    title = escape(_title(store))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}</title><style>{STYLE}</style></head><body>"
        f'<h1>{title}</h1><img src="{path_plot(steps)}" alt="score per step">'
        f"{_html_table(COLUMNS, [_row(step) for step in steps])}<h2>evaluations</h2>"
        f"{_html_table(EVALUATION_COLUMNS, _evaluation_rows(store))}<p>{escape(DISPUTED)}</p>"
        "</body></html>\n"
    )


def _html_table(columns: tuple[str, ...], rows: list[list[str]]) -> str:
    header = "".join(f"<th>{column}</th>" for column in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{header}</tr>{body}</table>"


def write_climb_page(store: ClimbStore, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(climb_page(store), encoding="utf-8")
    return path
