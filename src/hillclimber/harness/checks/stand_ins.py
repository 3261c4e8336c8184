"""Values that stand in for a value: `your_api_key_here`, `<hostname>`, `...`, `TODO`.

A small model that cannot find a value writes one (the 1.5B's findings held
`"api_key": "your_api_key_here"`, and it confirmed them), and a check of the answer's form
passed it. A form check of JSON or of `KEY=value` lines fails a value that is one, as it fails
an answer whose arrays are all empty: the form is there, the values are not
(`shape.FileMatchesJson`, `fields.FileHasFields`). A command substitution written as a value
(`FILES_EXTRACTED=$(ls -1 out | wc -l)`, quoted so the shell never ran it) is one too; and a
file that holds nothing but such lines (`Your solution goes here.`) is empty
(`kinds.FileExists`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_STAND_IN = re.compile(
    r"^(?:your[_ -]\w.*"  # your_api_key_here, your-password
    r"|\w+(?:[_ -]\w+)*[_ -]here"  # api_key_here, insert value here
    r"|<[^<>\n]{1,40}>"  # <hostname>
    r"|\.{3}|…|\[\.{3}\]|\{\.{3}\}"  # ...
    r"|todo|tbd|fixme|placeholder|replace[_ -]?me|change[_ -]?me|x{3,}|lorem ipsum.*"
    r"|\$\(.+\))$",  # $(ls | wc -l): the command, where its output was to be
    re.I,
)


COUNTING = re.compile(r"123456|987654|a1b2c3|abc123", re.I)
"""A value made by counting (`12345678`, a hash `a1b2c3d4…`, `abc123`): made up, a number
too (the 1.5B wrote the example's `"bandwidth_bytes": 12345678` where the instruction had
told it 52428800)."""
_COUNTED = re.compile(
    r"(?<![\w.-])(?:[\w-]*(?:a1b2c3|abc123)[\w-]*|(?:123456|987654)\d*)(?![\w-]|\.\d)", re.I
)
"""A token made by counting in a text: a word holding `a1b2c3` or `abc123`, or a whole number
that starts `123456` or `987654` (not `0.0123456`, nor a hex digest that runs on)."""


def counted(text: str) -> Iterator[str]:
    """The tokens of `text` made by counting (`a1b2c3d4e5f6g7h8i9j0`, `123456789`), lowered."""
    return (match.lower() for match in _COUNTED.findall(text))


def stand_in(value: str) -> bool:
    """Whether `value`, as a whole, stands in for a value."""
    return _STAND_IN.match(value.strip()) is not None


_TOOL_SAID = re.compile(
    r"^(?:no such file: \S+|Wrote \d+ bytes to \S+|Edited \S+|task marked complete"
    r"|\[(?:exit code -?\d+|timed out|ended: [^\]\n]*)\])(?: \(.*\))*$"
)
"""How the harness's own tools answer (`acting/handlers.py`): a file that opens with one holds
what a tool said, not the answer (the 1.5B wrote `no such file: /workspace/evidence/…`, the
read it had tried, as its findings four times over)."""


def tool_said(text: str) -> str | None:
    """The first line of `text` where that line is what one of the harness's tools says (as
    a whole: `Edited /etc/app.conf: the timeout is 30s` is a report, not the tool)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first if _TOOL_SAID.match(first) else None


def only_stand_ins(text: str, told: tuple[str, ...] = ()) -> str | None:
    """The first line of `text` where every line that is not blank stands in for a value
    (`Your solution goes here.`): the file holds no answer. None where one line is more, or
    is one the instruction says itself (`told`: "write TODO into it")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and all(stand_in(line) and line.lower() not in told for line in lines):
        return lines[0]
    return None


_QUOTE = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|'([^'\n]+)'")


def told(instruction: str) -> tuple[str, ...]:
    """What of `instruction` would stand in for a value (its lines, quoted parts and words),
    lowered: a file holding it may be what was asked (`Create notes.txt containing TODO`)."""
    quoted = [part for found in _QUOTE.findall(instruction) for part in found if part]
    words = [word.strip(".,;:!?()") for word in instruction.split()]
    pieces = (*instruction.splitlines(), *quoted, *words)
    return tuple(sorted({p.strip().lower() for p in pieces if p.strip() and stand_in(p)}))


def stand_ins(data: object, example: object) -> Iterator[str]:
    """The string values of JSON `data` that stand in for a value, but for a word the
    `example` holds as a value too (a status may be `TODO`; `<name>` in it is its
    placeholder, not a value)."""
    kept = {v.lower() for v in strings(example) if stand_in(v) and v[:1].isalpha()}
    return (v for v in strings(data) if stand_in(v) and v.lower() not in kept)


def strings(value: object) -> Iterator[str]:
    """The string values of JSON `value` (not its keys)."""
    return (leaf for leaf in leaves(value) if isinstance(leaf, str))


def leaves(value: object) -> Iterator[object]:
    """The values of JSON `value` that are neither an array nor an object (not its keys)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    else:
        yield value
