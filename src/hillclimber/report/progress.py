"""The live view of a bench run: done/total, passed, running trials, elapsed time and an
estimate of the time left; a line per finished trial with its grade."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from hillclimber.results import TrialResult
from hillclimber.runner import RunEvents
from hillclimber.trial import TrialSpec

_STYLE = {"passed": "green", "failed": "red", "unsupported": "yellow"}


class LiveProgress:
    """Subscribes to a run's events and draws them; prints one line per finished trial."""

    def __init__(self, console: Console, total: int) -> None:
        self.console = console
        self.passed = 0
        self.running: dict[str, float] = {}
        self.bar = Progress(
            TextColumn("[bold]trials"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("passed [green]{task.fields[passed]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),  # from the trials done so far: a guess, shown as one
            console=console,
        )
        self.task_id = self.bar.add_task("trials", total=total, passed=0)
        self.live = Live(self, console=console, refresh_per_second=4, transient=True)

    def __rich__(self) -> Group:
        now = time.monotonic()
        running = ", ".join(f"{name} ({now - t0:.0f}s)" for name, t0 in self.running.items())
        return Group(self.bar, Text(f"running: {running or '-'}", style="dim"))

    def _line(self, result: TrialResult, prefix: str = "") -> None:
        style = _STYLE.get(result.exit_reason.value, "magenta")
        seconds = result.timings.get("total", 0.0)
        grade = f"{result.grade.value:>9} " if result.grade is not None else ""
        self.console.print(
            f"{prefix}[{style}]{result.exit_reason.value:>12}[/] {result.trial:<28} "
            f"{seconds:6.1f}s  {grade}{escape(result.message)}",
            highlight=False,
            no_wrap=True,
            overflow="ellipsis",
        )

    def events(self) -> RunEvents:
        def on_start(spec: TrialSpec) -> None:
            self.running[spec.name] = time.monotonic()

        def on_end(spec: TrialSpec, result: TrialResult) -> None:
            self.running.pop(spec.name, None)
            self.passed += result.passed
            self.bar.update(self.task_id, advance=1, passed=self.passed)
            self._line(result)

        def on_skip(spec: TrialSpec, result: TrialResult) -> None:
            self.passed += result.passed
            self.bar.update(self.task_id, advance=1, passed=self.passed)
            self._line(result, prefix="(kept) ")

        return RunEvents(on_start=on_start, on_end=on_end, on_skip=on_skip)

    def __enter__(self) -> LiveProgress:
        self.live.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.live.__exit__(exc_type, exc, tb)
