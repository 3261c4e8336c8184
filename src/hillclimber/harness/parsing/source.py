"""Python source as a small model writes it into a tool call's JSON.

A model writing `print('a\\n')` into a `write_file` call writes the escape `\\n` for the line
break between lines and for the two characters inside the string alike; JSON reads both as a
line break, so the string literal is cut in two and the file does not parse (the 1.5B's
`split('\\n')` and `write('#!/usr/bin/env python3\\n…')` on Terminal-Bench 2). A one-line
string literal cannot hold a line break, so where the file does not parse and joining each
cut literal's two lines with the escape makes it parse, that is what the model wrote.
"""

from __future__ import annotations

import ast
import re
import warnings

_CUT = re.compile(r"unterminated (?:f-)?string literal")
MAX_JOINS = 200


def python_error(text: str) -> str | None:
    """Why `text` is not Python (`line 3: invalid syntax`), or None when it parses. Parsed by
    this interpreter's grammar: a newer one may take what this one refuses."""
    err = _refused(text)
    if isinstance(err, SyntaxError):
        return f"line {err.lineno}: {err.msg}"
    return None if err is None else str(err)


def rejoined(text: str) -> str | None:
    """`text` with every string literal cut by a line break joined again by the escape `\\n`,
    where that makes it parse; None where it parses already or that does not mend it."""
    lines = text.split("\n")
    for joins in range(MAX_JOINS):
        err = _refused("\n".join(lines))
        if err is None:
            return "\n".join(lines) if joins else None
        if not isinstance(err, SyntaxError) or not _CUT.match(err.msg):
            return None  # another error, not this one's to mend
        at = (err.lineno or 0) - 1
        if not 0 <= at < len(lines) - 1:
            return None  # the literal never closes
        lines[at : at + 2] = [lines[at] + "\\n" + lines[at + 1]]
    return None


def _refused(text: str) -> SyntaxError | ValueError | None:
    """What this interpreter's parser says against `text` (a NUL byte is a ValueError)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like parse, with a warning
            ast.parse(text)
    except (SyntaxError, ValueError) as err:
        return err
    return None
