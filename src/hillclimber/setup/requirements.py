"""What a shell script needs that this machine may not have (packages, downloads, writes
outside the sandbox's folders), and which of its commands can be skipped because it already
has it. Each simple command gets a `Decision` (see `installers`); the script keeps its shape,
with skipped commands replaced by `true`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from hillclimber.setup.decision import Context, Decision
from hillclimber.setup.dockerwords import substitute
from hillclimber.setup.installers import classify
from hillclimber.shell.reader import lift
from hillclimber.shell.split import split_commands
from hillclimber.shell.words import read_words

_FUNCTION_DEF = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\s*\)", re.MULTILINE)


@dataclass
class ScriptAnalysis:
    """What a shell script needs, and the script to run once satisfied installs are removed."""

    needs: list[tuple[str | None, str]] = field(default_factory=list)
    satisfied: list[str] = field(default_factory=list)
    command: str | None = None
    """The script with satisfied/no-op commands replaced by `true`; None if nothing is left."""


def analyze_script(script: str, ctx: Context | None = None) -> ScriptAnalysis:
    """Classify every simple command of `script` (see `Decision`)."""
    ctx = ctx or Context()
    ctx = dataclasses.replace(ctx, functions=ctx.functions | set(_FUNCTION_DEF.findall(script)))
    analysis = ScriptAnalysis()
    replaced = script
    kept = 0
    for command in reversed(split_commands(script)):
        text, bodies = lift(substitute(command.text, ctx.env, only_known=True))
        words = read_words(text)
        verdict = classify(words, ctx) if words is not None else Decision()
        inner = [analyze_script(body, ctx) for body in bodies]  # `$(…)` and backticks run too
        analysis.needs[:0] = verdict.needs + [need for one in inner for need in one.needs]
        analysis.satisfied[:0] = verdict.satisfied + [s for one in inner for s in one.satisfied]
        if verdict.action == "skip":
            tail = "\n" if command.replace_end > command.end else ""
            replaced = replaced[: command.start] + "true" + tail + replaced[command.replace_end :]
        else:
            kept += 1
    analysis.command = replaced if kept else None
    return analysis


def apt_pins(needs: Sequence[tuple[str | None, str]]) -> list[str]:
    """The apt packages installed at a version named (`pkg=1.2-3`): versions of one
    distribution's archive."""
    return [name for group, name in needs if group == "apt" and "=" in name]


def render_needs(needs: Sequence[tuple[str | None, str]]) -> list[str]:
    """`[("apt", "a"), ("apt", "b"), (None, "download x")]` → `["apt: a, b", "download x"]`."""
    groups: dict[str, list[str]] = {}
    single: list[str] = []
    for group, name in needs:
        if group is None:
            if name not in single:
                single.append(name)
        elif name not in groups.setdefault(group, []):
            groups[group].append(name)
    return [f"{group}: {', '.join(names)}" for group, names in groups.items()] + single
