"""`hillclimber report`: one self-contained HTML file (inline CSS, plots as data URIs, no
scripts) with the runs' numbers, plots, and every trial's trajectory, folded.

Everything taken from a run is escaped; the model's text is shown verbatim."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from string import Template
from typing import Any

from hillclimber import __version__
from hillclimber.report.plots import all_plots
from hillclimber.report.rundata import RunData
from hillclimber.report.steps import Step, read_steps
from hillclimber.report.tables import (
    FAIL,
    GRADES_TITLE,
    PASS,
    STATS_COLUMNS,
    grade_rows,
    matrix_rows,
    stats_row,
)
from hillclimber.report.trajview import call_text, verification_text
from hillclimber.results import TrialResult, now

PAGE = Template("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>$title</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1250px;
       padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
table.matrix td { text-align: center; letter-spacing: .15em; }
table.matrix td:first-child { text-align: left; letter-spacing: normal; }
.pass { color: #1a7f37; } .fail { color: #cf222e; } .dim { color: #777; }
figure { display: inline-block; margin: .5em 1em 1em 0; vertical-align: top; }
figcaption { color: #555; font-size: 12px; }
details { margin: .3em 0; } summary { cursor: pointer; }
details.trial { border: 1px solid #ddd; border-radius: 4px; padding: .3em .6em; }
.step { border-left: 3px solid #8ab; margin: .6em 0; padding: .1em .7em; }
.step.system { border-color: #bbb; background: #fafafa; }
.head { font-weight: 600; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f8fa; padding: .4em;
      margin: .2em 0; font-size: 12.5px; max-height: 30em; overflow: auto; }
pre.answer { background: #eef5ff; } pre.bad { background: #fff0f0; }
.label { font-size: 12px; color: #555; margin-top: .3em; }
</style></head>
<body>
<h1>$title</h1>
<p class="dim">$subtitle</p>
<h2>Summary</h2>
$summary
<h2>$grades_title</h2>
$grades
<h2>Tasks</h2>
$matrix
<h2>Plots</h2>
$plots
<h2>Trials</h2>
$trials
</body></html>
""")


def _table(header: Iterable[str], rows: Iterable[Iterable[str]], matrix: bool = False) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for cell in row:
            css = ""
            if matrix and cell and set(cell) <= {PASS, FAIL, "·"}:
                css = {PASS: ' class="pass"', FAIL: ' class="fail"'}.get(_only(cell), "")
            cells.append(f"<td{css}>{escape(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    css = ' class="matrix"' if matrix else ""
    return f"<table{css}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _only(cell: str) -> str:
    """The mark a cell holds if it holds only one kind (· not run counts for nothing)."""
    kinds = set(cell) - {"·"}
    return kinds.pop() if len(kinds) == 1 else ""


def _pre(text: str, css: str = "") -> str:
    return f'<pre class="{css}">{escape(text)}</pre>' if css else f"<pre>{escape(text)}</pre>"


def _label(text: str) -> str:
    return f'<div class="label">{escape(text)}</div>'


def _outcome_html(step: Step) -> str:
    parts = []
    if step.parse_error:
        error = step.parse_error
        parts.append(_label("parse error"))
        parts.append(_pre(f"{error.get('reason')}: {error.get('detail')}", "bad"))
    if step.guard:
        verdict = step.guard
        parts.append(_label(f"guard: {verdict.get('action')} ({verdict.get('rule')})"))
        parts.append(_pre(str(verdict.get("reason", "")), "bad"))
    for call, result in zip(step.calls, step.results, strict=False):
        parts.append(_label("call"))
        parts.append(_pre(call_text(call)))
        ok = bool(result.get("success"))
        parts.append(_label("result" + ("" if ok else " (failed)")))
        parts.append(_pre(str(result.get("content", "")), "" if ok else "bad"))
    return "".join(parts)


def _prompt_html(prompt: list[dict[str, str]], shown: dict[str, str], here: str) -> str:
    """A model call's prompt; a message shown before in the trial (the system message of every
    call) is named, not shown again: the prompts are three quarters of a trajectory."""
    parts: list[str] = []
    for message in prompt:
        content = message.get("content", "")
        parts.append(_label(message.get("role", "?")))
        if content in shown and len(content) > 80:
            parts.append(f"<p class='dim'>the same as in {escape(shown[content])}</p>")
            continue
        shown.setdefault(content, here)
        parts.append(_pre(content))
    return f"<details><summary>prompt ({len(prompt)} messages)</summary>{''.join(parts)}</details>"


def _step_html(step: Step, shown: dict[str, str]) -> str:
    if step.source == "system":
        if step.verification is not None:
            css = "pass" if step.verification.get("passed") else "fail"
            text = "verification " + verification_text(step.verification)
            body = f'<div class="head {css}">{escape(text)}</div>'
        elif step.role == "plan":
            items = "".join(f"<li>{escape(str(s))}</li>" for s in step.extra.get("steps", []))
            body = f'<div class="head">plan</div><ol>{items}</ol>'
        else:
            body = f'<div class="head">{escape(step.role or "harness")}</div>' + _outcome_html(step)
        return f'<div class="step system">{body}</div>'
    where = f"turn {step.turn} · {step.role or 'model'}"
    head = where
    if step.tokens:
        head += f" · {step.tokens[0]}+{step.tokens[1]} tokens"
    if isinstance(step.extra.get("latency_sec"), int | float):
        head += f" · {step.extra['latency_sec']:.1f}s"
    return (
        f'<div class="step"><div class="head">{escape(head)}</div>'
        + _prompt_html(step.prompt, shown, where)
        + _label("model answer (raw)")
        + _pre(step.text, "answer")
        + _outcome_html(step)
        + "</div>"
    )


def _info_line(trial: TrialResult) -> str:
    info = trial.agent_info
    parts = [f"exit {trial.exit_reason.value}", f"feedback {trial.feedback}"]
    if trial.grade is not None:
        parts.append(f"grade {trial.grade.value}")
    if trial.tries is not None:
        parts.append(f"tries: {trial.tries.why}")
    if trial.commit:
        parts.append(f"commit {trial.commit}")
    if trial.evaluation is not None:
        parts.append(f"tests {trial.evaluation.passing}/{trial.evaluation.total}")
    if "loop_exit" in info:
        parts.append(f"loop {info['loop_exit']} ({info.get('loop_reason', '')})")
    if "turns" in info:
        parts.append(f"{info['turns']} turns")
    if "total" in trial.timings:
        parts.append(f"{trial.timings['total']:.1f}s")
    return " · ".join(parts)


def _trial_html(run: RunData, trial: TrialResult) -> str:
    mark = (
        f'<span class="pass">{PASS}</span>' if trial.passed else f'<span class="fail">{FAIL}</span>'
    )
    summary = f"{mark} {escape(trial.trial)} <span class='dim'>{escape(trial.message)}</span>"
    doc = run.trajectory(trial)
    if doc is None:
        logs = sorted((run.trial_dir(trial) / "logs" / "agent").glob("*.log"))
        body = _label(f"no trajectory (agent {trial.agent})") + "".join(
            _label(log.name) + _pre(log.read_text(errors="replace")) for log in logs
        )
    else:
        shown: dict[str, str] = {}
        body = "".join(_step_html(step, shown) for step in read_steps(doc))
    return (
        f'<details class="trial"><summary>{summary}</summary>'
        f'<p class="dim">{escape(_info_line(trial))}</p>{body}</details>'
    )


def _run_html(run: RunData) -> str:
    config: dict[str, Any] = run.config.model_dump(mode="json", exclude={"task_ids"})
    about = f"{run.config.run_id} · agent {run.config.agent}"
    if run.config.model is not None:
        about += f" · model {run.config.model.spec}"
    trials = "".join(_trial_html(run, trial) for trial in run.trials)
    return (
        f"<h3>{escape(run.label)}</h3><p class='dim'>{escape(about)} · {escape(str(run.path))}</p>"
        f"<details><summary>configuration</summary>{_pre(json.dumps(config, indent=2))}</details>"
        + (trials or "<p class='dim'>no finished trials</p>")
    )


def build_report(runs: Sequence[RunData], title: str = "hillclimber report") -> str:
    stats = [run.stats() for run in runs]
    plots = "".join(
        f'<figure><img src="{uri}" alt="{escape(caption)}">'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
        for caption, uri in all_plots(runs, stats)
    )
    sources = sorted({run.config.source for run in runs})
    subtitle = (
        f"{len(runs)} run(s) on {', '.join(sources)} · made {now()} by hillclimber {__version__}"
    )
    return PAGE.substitute(
        title=escape(title),
        subtitle=escape(subtitle),
        summary=_table(STATS_COLUMNS, (stats_row(r, s) for r, s in zip(runs, stats, strict=True))),
        grades_title=escape(GRADES_TITLE),
        grades=_table(["grade", *(r.label for r in runs)], grade_rows(runs)),
        matrix=_table(["task", *(r.label for r in runs)], matrix_rows(runs), matrix=True),
        plots=plots,
        trials="".join(_run_html(run) for run in runs),
    )


def write_report(runs: Sequence[RunData], path: Path, title: str = "hillclimber report") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(build_report(runs, title), encoding="utf-8")
    return path
