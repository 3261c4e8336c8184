"""The report's plots, drawn with matplotlib's Agg canvas (no display, no pyplot state) and
returned as base64 PNG data URIs, so the HTML file needs nothing else to show them."""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence

from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from hillclimber.report.rundata import RunData, RunStats
from hillclimber.report.tables import DASH, duration, task_ids

Plot = tuple[str, str]
"""A caption and a data URI."""


def data_uri(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _colors(n: int) -> list[str]:
    palette = ["#4878d0", "#ee854a", "#6acc64", "#d65f5f", "#956cb4", "#8c613c", "#dc7ec0"]
    return [palette[i % len(palette)] for i in range(n)]


def pass_rate(runs: Sequence[RunData], stats: Sequence[RunStats]) -> Plot:
    figure = Figure(figsize=(max(4.0, 1.3 * len(runs) + 2), 3.2))
    ax = figure.add_subplot()
    labels = [run.label for run in runs]
    rates = [s.pass_rate for s in stats]
    bars = ax.bar(labels, rates, color=_colors(len(runs)))
    ax.bar_label(bars, labels=[f"{r:.0%}" for r in rates], padding=2)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("passed trials")
    ax.set_title("pass rate per run")
    return "Pass rate per run (passed over finished trials)", data_uri(figure)


def task_heatmap(runs: Sequence[RunData]) -> Plot:
    tasks = task_ids(runs)
    grid: list[list[float]] = []
    notes: list[list[str]] = []
    for task in tasks:
        row, note = [], []
        for run in runs:
            trials = run.trials_of(task)
            passed = sum(t.passed for t in trials)
            row.append(passed / len(trials) if trials else math.nan)
            note.append(f"{passed}/{len(trials)}" if trials else DASH)
        grid.append(row)
        notes.append(note)
    figure = Figure(figsize=(max(4.0, 1.4 * len(runs) + 2.5), max(2.0, 0.38 * len(tasks) + 1.2)))
    ax = figure.add_subplot()
    cmap = colormaps["RdYlGn"].with_extremes(bad="#e8e8e8")  # grey: not run
    image = ax.imshow(grid, cmap=cmap, vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(runs)), [run.label for run in runs])
    ax.set_yticks(range(len(tasks)), tasks)
    for y, note in enumerate(notes):
        for x, text in enumerate(note):
            ax.text(x, y, text, ha="center", va="center", fontsize=8)
    figure.colorbar(image, ax=ax, label="passed attempts")
    ax.set_title("per-task pass per run")
    return "Per task: passed attempts of each run", data_uri(figure)


def progress(runs: Sequence[RunData]) -> Plot | None:
    """Tests passing over turns, one line per trial that recorded it (auto_verify)."""
    figure = Figure(figsize=(7.0, 3.6))
    ax = figure.add_subplot()
    drawn = False
    for run, color in zip(runs, _colors(len(runs)), strict=True):
        label: str | None = run.label
        for trial in run.trials:
            points = [p for p in trial.agent_info.get("progress") or [] if len(p) == 3 and p[2]]
            if not points:
                continue
            ax.step(
                [p[0] for p in points],
                [p[1] / p[2] for p in points],
                where="post",
                marker="o",
                color=color,
                alpha=0.7,
                label=label,
            )
            label, drawn = None, True
    if not drawn:
        return None
    ax.set_ylim(-0.05, 1.05)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("turn")
    ax.set_ylabel("tests passing")
    ax.set_title("test progress over turns")
    ax.legend(loc="lower right", fontsize=8)
    return "Tests passing over turns, one line per trial", data_uri(figure)


def cost(runs: Sequence[RunData], stats: Sequence[RunStats]) -> Plot:
    figure = Figure(figsize=(max(6.0, 2.2 * len(runs) + 2), 3.2))
    tokens_ax, time_ax = figure.subplots(1, 2)
    labels = [run.label for run in runs]
    prompt = [s.prompt_tokens_per_solved or 0.0 for s in stats]
    answer = [s.completion_tokens_per_solved or 0.0 for s in stats]
    tokens_ax.bar(labels, prompt, label="prompt", color="#4878d0")
    totals = tokens_ax.bar(labels, answer, bottom=prompt, label="answer", color="#ee854a")
    tokens_ax.bar_label(
        totals,
        labels=[DASH if s.prompt_tokens_per_solved is None else "" for s in stats],
    )
    tokens_ax.margins(y=0.15)
    tokens_ax.set_title("tokens per solved task")
    tokens_ax.legend(fontsize=8)
    seconds = [s.seconds_per_solved or 0.0 for s in stats]
    bars = time_ax.bar(labels, seconds, color=_colors(len(runs)))
    time_ax.bar_label(
        bars,
        labels=[duration(s.seconds_per_solved) for s in stats],
    )
    time_ax.margins(y=0.15)
    time_ax.set_title("seconds per solved task")
    return "Tokens and time per solved task (all trials' cost over tasks solved)", data_uri(figure)


def all_plots(runs: Sequence[RunData], stats: Sequence[RunStats]) -> list[Plot]:
    plots = [pass_rate(runs, stats), task_heatmap(runs)]
    if (climb := progress(runs)) is not None:
        plots.append(climb)
    plots.append(cost(runs, stats))
    return plots
