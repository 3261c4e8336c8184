"""A corrected version starts as the original: where the task asks for a new file that is a
fixed version of a file it names (`fixed_analyze_data.R` of `analyze_data.R`,
`data_processor_fixed.py` of `data_processor.py`, `fixed_dockerfile.txt` of `Dockerfile`),
the harness copies the original there before the first turn, so the work is a few edits,
not a whole file written from memory.

On the dev split the 1.5B never read the original it was to fix, never wrote the corrected
file, and wrote the script's output by hand instead; a copy in place fails the checks (it is
a copy of an input, and runs as badly as the original), and those failures say what to fix.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.prompting.templates import Prompts
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import exists, read_text

_FIX_WORDS = re.compile(
    r"(?:^|[_.-])(?:fixed|corrected|patched|repaired|working|updated|modified|new)(?=$|[_.-])"
)
"""Words a corrected version's name adds to the original's: `fixed_x`, `x_corrected`."""
MAX_BYTES = 200_000
"""The largest original copied."""


def corrected_versions(
    named: Sequence[str], sandbox: Sandbox, answers: Sequence[str]
) -> list[tuple[str, str]]:
    """(original, corrected) for each answer file not there yet whose name is that of a text
    file the instruction names (`named`: `instruction.named_paths`) and that is there, with a
    word of fixing added."""
    found: list[tuple[str, str]] = []
    for answer in answers:
        if exists(sandbox, answer):
            continue
        stem = _stem(answer, fixed=True)
        originals = [p for p in named if p != answer and stem and _stem(p) == stem]
        original = next((p for p in originals if read_text(sandbox, p, MAX_BYTES)), None)
        if original is not None:
            found.append((original, answer))
    return found


def _stem(path: str, *, fixed: bool = False) -> str:
    """A file's name without its extension, lower case; with `fixed`, without the word of
    fixing it must hold ("" if it holds none)."""
    name = posixpath.basename(path).lower()
    stem = posixpath.splitext(name)[0] if "." in name.strip(".") else name
    if not fixed:
        return stem
    bare = _FIX_WORDS.sub("", stem).strip("_.-")
    return bare if bare != stem else ""


def seed_calls(
    named: Sequence[str], sandbox: Sandbox, answers: Sequence[str], say: Prompts
) -> list[tuple[ToolCall, str]]:
    """The copy of each original to its corrected version, and what the model is told of it
    (`feedback.seeded.copy`)."""
    return [
        (
            ToolCall(name="run_command", arguments={"command": f"cp -- {shlex.quote(original)}"
                                                                f" {shlex.quote(fixed)}"}),
            say("feedback.seeded.copy", fixed=fixed, original=original),
        )
        for original, fixed in corrected_versions(named, sandbox, answers)
    ]  # fmt: skip
