"""The `hillclimber` command line. It only picks and overrides configuration; the work is done
by the modules it calls."""

from __future__ import annotations

import sys

from hillclimber.cli import climb, models, prompts, runs, skills, tasks, view  # noqa: F401 - registers the commands
from hillclimber.cli.app import app, err_console
from hillclimber.errors import HillclimberError

__all__ = ["app", "main"]


def main() -> None:
    try:
        app()
    except HillclimberError as err:
        err_console.print(f"[red]error:[/] {err}", highlight=False, soft_wrap=True)
        sys.exit(2)
