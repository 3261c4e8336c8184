"""The workspace as a whole: whether it is small enough to copy, put back exactly after a try
(with the files the task names outside it), what a try destroyed (lines of existing files),
what is at the paths the task names. Climbing tries each candidate on it, the checks run on it
with it put back after, the tries read what each left in it."""

from __future__ import annotations

import posixpath
import shlex
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Literal

from hillclimber.sandbox import OutsideSandbox, Sandbox, Snapshot, walk
from hillclimber.sandbox.files import BINARY_PROBE, is_binary, read_bytes

FileState = tuple[str, Literal["file", "missing", "other"]]
"""A path the task names and what is there now: a file, nothing (yet), or something else."""

MAX_FILES = 5000
MAX_BYTES = 50 << 20


def fits(
    sandbox: Sandbox, root: str, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES
) -> bool:
    """Whether the workspace is small enough to copy for every candidate."""
    size = 0
    for files, (_, info) in enumerate(walk(sandbox, root), start=1):
        if info.kind == "file":
            size += info.size
        if files > max_files or size > max_bytes:
            return False
    return True


@contextmanager
def restored(sandbox: Sandbox, root: str) -> Iterator[Snapshot]:
    """Whatever happens inside, the folder `root` is put back as it was (contents, modes,
    symlinks). Yields the saved copy."""
    snapshot = sandbox.snapshot(root)
    try:
        yield snapshot
    finally:
        snapshot.restore()
        snapshot.discard()


@contextmanager
def kept_files(
    sandbox: Sandbox, paths: Collection[str], max_bytes: int = 8 << 20
) -> Iterator[None]:
    """Whatever happens inside, each file of `paths` is put back: its bytes, or no file where
    there was none. For the files a task names outside its working folder (an answer under
    /solution, an input under /data), which the workspace's copy does not hold. A folder, or a
    file larger than `max_bytes`, is not kept."""
    saved: dict[str, bytes | None] = {}
    for path in paths:
        try:
            found = sandbox.stat(path)
            if found is None:
                saved[path] = None
            elif found.kind == "file" and not found.link and found.size <= max_bytes:
                saved[path] = sandbox.read_file(path)
        except (OutsideSandbox, OSError):
            continue
    try:
        yield
    finally:
        for path, data in saved.items():
            try:
                if data is None and sandbox.stat(path) is not None:
                    sandbox.run(f"rm -rf -- {shlex.quote(path)}", timeout=30)
                elif data is not None and read_bytes(sandbox, path) != data:
                    sandbox.write_file(path, data)
            except (OutsideSandbox, OSError):
                continue


def lines_lost(before: Snapshot, sandbox: Sandbox, root: str, max_bytes: int = 1 << 20) -> int:
    """How many lines of the text files saved in `before` are gone from the same files under
    `root` now (a deleted file loses all its lines). Large files, binary files and git's own
    files are not compared: their "lines" are nobody's work."""
    lost = 0
    for relative, data in before.files(max_bytes):
        if ".git" in relative.split("/") or b"\0" in data:
            continue
        now = read_bytes(sandbox, f"{root}/{relative}")
        if now == data:
            continue  # most files are as they were: no lines to count
        was, kept = _lines(data), _lines(now or b"")
        lost += sum((Counter(was) - Counter(kept or [])).values())
    return lost


def _lines(data: bytes) -> list[str] | None:
    """The lines of a text file; None for a binary file."""
    return None if b"\0" in data else data.decode("utf-8", "replace").splitlines()


def file_states(sandbox: Sandbox, paths: Sequence[str], leave: Collection[str]) -> list[FileState]:
    """What is at each of `paths` now (not those in `leave`): a text file, something else, or
    nothing in a folder that exists (a file to make)."""
    states: list[FileState] = []
    for path in paths:
        if path in leave:
            continue
        try:
            found = sandbox.stat(path)
            if found is not None and found.kind == "file":
                binary = is_binary(sandbox.read_file(path, limit=BINARY_PROBE))
                states.append((path, "other" if binary else "file"))
            elif found is None:
                folder = sandbox.stat(posixpath.dirname(path))
                if folder is not None and folder.kind == "dir":
                    states.append((path, "missing"))
        except (OutsideSandbox, OSError):
            continue
    return states


def named_folders(sandbox: Sandbox, paths: Sequence[str], workdir: str) -> list[str]:
    """The folders among `paths` that exist now, besides the working folder itself."""
    folders: list[str] = []
    for path in paths:
        try:
            found = sandbox.stat(path)
        except (OutsideSandbox, OSError):
            continue
        if found is not None and found.kind == "dir" and path != workdir:
            folders.append(path)
    return folders
