"""Every sentence of the prompts, as templates a user can read, copy and change.

The shipped ones are `harness/prompts/*.toml`: one file per prompter (`rules` for the worker's
rules that both prompters give, `micro`, `conversation`) and one per question asked apart from
the loop (`plan`, `checks`, `compute`). Each key holds a text; `$name` in it is filled in by the
harness (`$$` is a dollar sign). A folder of one's own (`view.prompts`; `hillclimber prompts
copy DIR` writes the shipped files there) replaces them key by key: a file there may hold only
the keys it changes. Loading checks every file, key and placeholder against the shipped ones,
so a mistake is a one-line error before any trial starts, not a failed trial.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from hillclimber.errors import HillclimberError

SHIPPED = resources.files("hillclimber.harness") / "prompts"


class PromptError(HillclimberError):
    """A prompt template that cannot be used: named by its file and key."""


@dataclass(frozen=True)
class Prompts:
    texts: Mapping[str, str]
    """Each template by its name, `file.key` (`rules.intro`, `rules.tools.read_file`)."""
    source: str = "shipped"
    """Where they came from: "shipped", or the folder that changed some."""

    def __call__(self, name: str, /, **fields: object) -> str:
        """The template `name` with its placeholders filled in."""
        return Template(self.texts[name]).substitute(fields)

    def digest(self) -> str:
        """A short fingerprint of every text, for a trial's record."""
        joined = "\n".join(f"{name}={text}" for name, text in sorted(self.texts.items()))
        return hashlib.sha256(joined.encode()).hexdigest()[:12]


@cache
def shipped() -> Prompts:
    texts: dict[str, str] = {}
    for file in SHIPPED.iterdir():
        if file.name.endswith(".toml"):
            stem = file.name.removesuffix(".toml")
            texts.update(_flat(stem, tomllib.loads(file.read_text()), where=file.name))
    return Prompts(texts)


def load_prompts(folder: str | Path | None) -> Prompts:
    """The shipped templates, with those of `folder` in place of the ones it holds."""
    base = shipped()
    if folder is None:
        return base
    where = Path(folder).expanduser()
    if not where.is_dir():
        raise PromptError(f"view.prompts: {where} is not a folder of prompt templates")
    texts = dict(base.texts)
    files = {name.split(".")[0] for name in base.texts}
    for path in sorted(where.glob("*.toml")):
        if path.stem not in files:
            raise PromptError(f"{path}: no prompt file of that name ({', '.join(sorted(files))})")
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
            raise PromptError(f"{path}: {err}") from None
        for name, text in _flat(path.stem, data, where=str(path)):
            _check(name, text, base.texts.get(name), where=str(path))
            texts[name] = text
    return Prompts(texts, str(where))


def _flat(prefix: str, data: Mapping[str, Any], *, where: str) -> Iterator[tuple[str, str]]:
    for key, value in data.items():
        name = f"{prefix}.{key}"
        if isinstance(value, Mapping):
            yield from _flat(name, value, where=where)
        elif isinstance(value, str):
            yield name, value
        else:
            raise PromptError(f"{where}: {name.partition('.')[2]}: expected text")


def _check(name: str, text: str, shipped_text: str | None, *, where: str) -> None:
    """A user's template: a key the shipped file has, valid, with no placeholder the harness
    does not fill in for it (it may leave some out)."""
    key = name.partition(".")[2]
    if shipped_text is None:
        raise PromptError(f"{where}: {key}: no such template")
    template = Template(text)
    if not template.is_valid():
        raise PromptError(f"{where}: {key}: a `$` that is no placeholder (write $$ for one)")
    known = set(Template(shipped_text).get_identifiers())
    unknown = sorted(set(template.get_identifiers()) - known)
    if unknown:
        offered = ", ".join(f"${n}" for n in sorted(known)) or "none"
        raise PromptError(f"{where}: {key}: unknown placeholder ${unknown[0]} (offered: {offered})")
