"""What is installed in the sandbox, probed once per trial with one command.

The model is told up front which common commands it has and which it has not, instead of a
hard-coded list: images differ. Likewise which common Python modules a program may import
(the 1.5B's programs imported yaml where it was not installed, twice, told so in between).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.sandbox import Sandbox

COMMON_COMMANDS = (
    "python3", "python", "pip", "gcc", "g++", "make", "cmake", "git", "sqlite3", "jq", "curl",
    "wget", "node", "npm", "cargo", "go", "java", "perl", "ruby", "awk", "sed", "grep", "find",
    "tar", "unzip", "zip", "file", "bc", "vim", "nano",
)  # fmt: skip
_COMMAND_NAME = re.compile(r"[\w.+-]+")


def probe_commands(
    sandbox: Sandbox, names: Sequence[str] = COMMON_COMMANDS, timeout: float = 20
) -> dict[str, bool]:
    """Which of `names` the sandbox has on its PATH, found with one command.

    Names the probe did not report (it timed out) are left out rather than guessed.
    """
    bad = [n for n in names if not _COMMAND_NAME.fullmatch(n)]
    if bad:
        raise ValueError(f"not command names: {bad}")
    script = (
        f"for c in {' '.join(shlex.quote(n) for n in names)}; do "
        'if command -v "$c" >/dev/null 2>&1; then echo "+$c"; else echo "-$c"; fi; done'
    )
    return _reported(sandbox.run(script, timeout=timeout).stdout, names)


def _reported(stdout: str, names: Sequence[str]) -> dict[str, bool]:
    """`+name` / `-name` lines, in the order of `names` (one not reported is left out)."""
    found: dict[str, bool] = {}
    for line in stdout.splitlines():
        name = line[1:].strip()
        if line[:1] in "+-" and name in names:
            found[name] = line[0] == "+"
    return {n: found[n] for n in names if n in found}


def availability_note(found: dict[str, bool], prompts: Prompts | None = None) -> str:
    """One line for the rules: what the model can use, and what not to try."""
    say = prompts or shipped()
    here = [n for n, ok in found.items() if ok]
    missing = [n for n, ok in found.items() if not ok]
    parts = []
    if here:
        parts.append(say("rules.commands_here", names=", ".join(here)))
    if missing:
        parts.append(say("rules.not_installed", names=", ".join(missing)))
    return " ".join(parts)


COMMON_MODULES = ("pandas", "numpy", "scipy", "yaml", "requests", "sklearn")
"""Modules outside the standard library that programs often import."""


def probe_modules(
    sandbox: Sandbox, names: Sequence[str] = COMMON_MODULES, timeout: float = 20
) -> dict[str, bool]:
    """Which of `names` python3 in the sandbox can import (found, not imported); {} where it
    has no python3 or the probe failed."""
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise ValueError(f"not module names: {bad}")
    script = (
        "import importlib.util as u\n"
        f"for n in {list(names)!r}:\n"
        "    print(('+' if u.find_spec(n) else '-') + n)\n"
    )
    result = sandbox.run(f"python3 -c {shlex.quote(script)}", timeout=timeout)
    return _reported(result.stdout, names) if result.exit_code == 0 else {}


def modules_note(found: dict[str, bool], prompts: Prompts | None = None) -> str:
    """One line for a program's prompt: the modules beyond the standard library it may use."""
    say = prompts or shipped()
    here = [n for n, ok in found.items() if ok]
    missing = [n for n, ok in found.items() if not ok]
    parts = [say("compute.modules", others="".join(f", {n}" for n in here))]
    if missing:
        parts.append(say("compute.not_installed", names=", ".join(missing)))
    return " ".join(parts)
