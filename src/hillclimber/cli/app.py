"""The `hillclimber` application, its consoles, and the one way a command fails."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer
from rich.console import Console

from hillclimber import __version__

app = typer.Typer(
    rich_markup_mode="markdown",
    help="A harness that makes small language models solve terminal tasks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
tasks_app = typer.Typer(
    rich_markup_mode="markdown", help="List, show and check tasks.", no_args_is_help=True
)
app.add_typer(tasks_app, name="tasks")
models_app = typer.Typer(
    rich_markup_mode="markdown", help="Install, list and check models.", no_args_is_help=True
)
app.add_typer(models_app, name="models")
skills_app = typer.Typer(
    rich_markup_mode="markdown",
    help="The skill library: list, show, add, import, export, stats, learn.",
    no_args_is_help=True,
)
app.add_typer(skills_app, name="skills")
prompts_app = typer.Typer(
    rich_markup_mode="markdown",
    help="The prompt templates: every sentence the model is shown.",
    no_args_is_help=True,
)
app.add_typer(prompts_app, name="prompts")

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
