"""`prompts copy|check|show`: the prompt templates, to read, copy and change.

A copy is a folder a setting points at (`--set view.prompts=DIR`, or `prompts = "DIR"` in a
settings file, beside it): its files replace the shipped texts key by key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hillclimber.cli.app import console, fail, prompts_app
from hillclimber.harness.prompting.templates import SHIPPED, load_prompts, shipped

FolderArgument = Annotated[Path, typer.Argument(metavar="DIR", help="A folder of templates.")]


@prompts_app.command("copy")
def prompts_copy(
    folder: FolderArgument,
    force: Annotated[bool, typer.Option("--force", help="Replace files already there.")] = False,
) -> None:
    """Write the shipped templates into DIR, to change and point a setting at."""
    files = sorted((f for f in SHIPPED.iterdir() if f.name.endswith(".toml")), key=lambda f: f.name)
    there = [f.name for f in files if (folder / f.name).exists()]
    if there and not force:
        fail(f"{folder}: {', '.join(there)} already there (--force replaces them)")
    folder.mkdir(parents=True, exist_ok=True)
    for file in files:
        (folder / file.name).write_text(file.read_text())
    console.print(
        f"{len(files)} template files written to {folder}; use them with "
        f"--set view.prompts={folder}",
        soft_wrap=True,
    )


@prompts_app.command("check")
def prompts_check(folder: FolderArgument) -> None:
    """Check a folder of templates as a trial would load it (an error names file and key)."""
    mine = load_prompts(folder)
    changed = sorted(n for n, text in mine.texts.items() if shipped().texts[n] != text)
    console.print(f"{folder}: fine; {len(changed)} of {len(mine.texts)} texts changed", end="")
    console.print(f": {', '.join(changed)}" if changed else "", soft_wrap=True)


@prompts_app.command("show")
def prompts_show(
    name: Annotated[str, typer.Argument(help="A file (rules) or one text (rules.intro).")],
    folder: Annotated[
        Path | None, typer.Option("--prompts", help="A folder of templates of one's own.")
    ] = None,
) -> None:
    """Print a template file's texts, or one text, as a trial would use them."""
    texts = load_prompts(folder).texts
    chosen = {n: t for n, t in texts.items() if n == name or n.startswith(name + ".")}
    if not chosen:
        files = sorted({n.split(".")[0] for n in texts})
        fail(f"no prompt text '{name}' (files: {', '.join(files)})")
    for text_name, text in chosen.items():
        console.print(f"[bold]{text_name}[/]", highlight=False)
        console.print(text, markup=False, highlight=False, soft_wrap=True)
