"""The `hillclimber` command line. It only picks and overrides configuration; the work is done
by the modules it calls."""

from __future__ import annotations

import signal
import sys

from hillclimber.cli import climb, models, prompts, runs, skills, tasks, view  # noqa: F401 - registers the commands
from hillclimber.cli.app import app, err_console
from hillclimber.errors import HillclimberError

__all__ = ["app", "main"]


def main() -> None:
    # a kill stops any command as Ctrl-C does: what it set up (a container's layer, a served
    # model) is undone on the way out, and a run keeps its finished trials
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        app()
    except HillclimberError as err:
        err_console.print(f"[red]error:[/] {err}", highlight=False, soft_wrap=True)
        sys.exit(2)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
