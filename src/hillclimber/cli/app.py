"""The `hillclimber` application, its consoles, and the one way a command fails."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer
from rich.console import Console

from hillclimber import __version__


def commands(name: str | None, help: str, *, no_args_is_help: bool = True) -> typer.Typer:
    """A group of commands (`hillclimber NAME …`; None: the application), its help wrapped as
    markdown: a docstring's paragraphs fill the terminal's width, `code` is shown as code."""
    group = typer.Typer(
        help=help,
        rich_markup_mode="markdown",
        no_args_is_help=no_args_is_help,
        pretty_exceptions_enable=False,
    )
    if name is not None:
        app.add_typer(group, name=name)
    return group


app = commands(None, "A harness that makes small language models solve terminal tasks.")
tasks_app = commands("tasks", "List, show and check tasks.")
models_app = commands("models", "Install, list and check models.")
skills_app = commands("skills", "The skill library: list, show, add, import, export, stats, learn.")
prompts_app = commands("prompts", "The prompt templates: every sentence the model is shown.")

console = Console()
err_console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        console.print(f"hillclimber {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """A harness that makes small language models solve terminal tasks."""


def fail(message: str, code: int = 2) -> NoReturn:
    err_console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
