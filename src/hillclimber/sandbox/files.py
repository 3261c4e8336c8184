"""Reading a file in a sandbox: the one reader every part of the harness uses. A file that is
not there, is a folder, lies outside the sandbox or cannot be read reads as None, never an
error."""

from __future__ import annotations

import posixpath

from hillclimber.sandbox.base import OutsideSandbox, Sandbox, walk

BINARY_PROBE = 8192
"""How much of a file is read to tell whether it is text."""


def is_binary(head: bytes) -> bool:
    """A file with a NUL byte near its start is not text (a database, an image, a program)."""
    return b"\0" in head[:BINARY_PROBE]


def exists(sandbox: Sandbox, path: str) -> bool:
    """Whether anything is at sandbox `path` (outside the sandbox: no)."""
    return _kind(sandbox, path) is not None


def is_file(sandbox: Sandbox, path: str) -> bool:
    """Whether a regular file is at sandbox `path` (outside the sandbox: no)."""
    return _kind(sandbox, path) == "file"


def is_dir(sandbox: Sandbox, path: str) -> bool:
    """Whether a folder is at sandbox `path` (outside the sandbox: no)."""
    return _kind(sandbox, path) == "dir"


def _kind(sandbox: Sandbox, path: str) -> str | None:
    try:
        found = sandbox.stat(path)
    except (OSError, OutsideSandbox):
        return None
    return found.kind if found is not None else None


def folder_entries(sandbox: Sandbox, folder: str, most: int = 30) -> tuple[int, str]:
    """How many entries a folder holds, and the first `most` of them by name, each folder
    marked `/` (`a.txt, data/ and 12 more`); (0, "") for an empty folder or none."""
    try:
        names = sorted(sandbox.listdir(folder))
    except (OSError, OutsideSandbox):
        return 0, ""
    marked = [n + "/" if is_dir(sandbox, posixpath.join(folder, n)) else n for n in names[:most]]
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return len(names), ", ".join(marked) + more


def read_bytes(sandbox: Sandbox, path: str, limit: int | None = None) -> bytes | None:
    """The bytes of the regular file at sandbox `path` (its first `limit` bytes), or None."""
    try:
        found = sandbox.stat(path)
        if found is None or found.kind != "file":
            return None
        return sandbox.read_file(path, limit=limit)
    except (OSError, OutsideSandbox):
        return None


def read_text(sandbox: Sandbox, path: str, max_bytes: int | None = None) -> str | None:
    """The text of the file at sandbox `path`; None when there is no such file (or it is
    outside the sandbox, unreadable, binary or larger than `max_bytes`)."""
    try:
        found = sandbox.stat(path)
        if found is None or found.kind != "file":
            return None
        if max_bytes is not None and found.size > max_bytes:
            return None
        head = sandbox.read_file(path, limit=BINARY_PROBE)
        if is_binary(head):
            return None
        data = head if found.size <= len(head) else sandbox.read_file(path)
    except (OSError, OutsideSandbox):
        return None
    return data.decode(errors="replace")


def files_under(sandbox: Sandbox, root: str, limit: int = 200) -> list[str]:
    """The files under the folder `root` (of its first `limit` entries), in the order walked;
    none where it is no folder."""
    found: list[str] = []
    try:
        for seen, (path, info) in enumerate(walk(sandbox, root)):
            if seen >= limit:
                break
            if info.kind == "file":
                found.append(path)
    except (OSError, OutsideSandbox):
        pass
    return found


def same_name(sandbox: Sandbox, root: str, name: str, limit: int = 2000) -> list[str]:
    """The files called `name` under the folder `root` (of its first `limit` entries; at most
    two: enough to tell one from many)."""
    found: list[str] = []
    try:
        for seen, (path, info) in enumerate(walk(sandbox, root)):
            if seen >= limit or len(found) >= 2:
                break
            if info.kind == "file" and posixpath.basename(path) == name:
                found.append(path)
    except (OSError, OutsideSandbox):
        pass
    return found
