"""Where hillclimber keeps its caches (models, verifier environments), and how it writes a record
(atomically)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def home() -> Path:
    """`HILLCLIMBER_HOME`, else the user's cache folder."""
    if env := os.environ.get("HILLCLIMBER_HOME"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hillclimber"


def write_json(path: Path, model: BaseModel | dict[str, Any], indent: int | None = 2) -> None:
    """Write atomically: a reader (or a resumed run) never sees half a file. `indent=None`
    writes compact JSON with the C encoder (Python's own encoder does indented dumps, slowly)."""
    text = (
        model.model_dump_json(indent=indent)
        if isinstance(model, BaseModel)
        else json.dumps(model, indent=indent)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as handle:
        handle.write(text + "\n")
    os.replace(tmp, path)
