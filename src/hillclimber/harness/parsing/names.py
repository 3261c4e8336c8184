"""Tool and argument names as small models spell them, matched to the offered tools.

Models write `Write_File`, `write-file` or `functions.write_file` for `write_file`, and `p` or
`file_path` for `path`; a call should not fail over that. Both the parser's validation and the
loose forms of a call (a call described in words, Python call syntax) resolve names here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hillclimber.harness.acting.tools import ToolSpec


def find_tool(name: str, tools: Sequence[ToolSpec]) -> ToolSpec | None:
    """The tool by name, in any case and with `-`/`_` variants (`Write_File`, `write-file`)."""
    return next((t for t in tools if _canonical(t.name) == _canonical(name)), None)


def parameter(tool: ToolSpec, key: str) -> str | None:
    """The tool's parameter an argument name means: exact, case variant or alias; else None."""
    if key in tool.params:
        return key
    key = key.strip().lower().replace("-", "_")
    return key if key in tool.params else tool.aliases.get(key)


def _canonical(name: str) -> str:
    name = name.strip().lower().removeprefix("functions.")
    return re.sub(r"[-_\s]", "", name)
