"""Climbing: try candidate actions on the workspace, keep the one the task's tests like best.

A tiny model's first idea is often the right step with the wrong tool: it edits a file it should
append to, or writes the text of a command into a file instead of running it. When the task's
tests are at hand (climber, recorded as `feedback: tests`) the harness need not take that idea
on trust. It tries the model's call on the workspace, runs the tests and puts the workspace
back; unless that passes every test, it asks for the same step again with other targets — each
other acting tool, an edit of each other file the task names, a write of each file it names that
is not there yet (the prompt stays the same, only the answer's schema names the tool and the
file), the least asked first so that over the turns each gets its turn — tries those too, and
keeps the one that passes the most tests. A step that passes more tests can still be wrong (an
append written as an overwrite may pass the check on the last line), which is why the other
tools are tried even after a gain. It never keeps a step that passes fewer tests than before,
nor one that gains none and removes existing lines: if every candidate is like that, none is
applied and the model is told so. When the model's own call is
refused (by the monitor or a guard) the other tools are still tried, and one is applied only if
it gains tests.

Only the workspace (`/app`) is put back; it is copied whole, so climbing is off for large
workspaces and for tests too slow to run once per candidate.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hillclimber.harness.tools import ToolCall
from hillclimber.verifier import Evaluation

FileState = tuple[str, Literal["file", "missing", "other"]]
"""A path the task names and what is there now: a file, nothing (yet), or something else."""

ACTING_TOOLS = ("run_command", "write_file", "edit_file")
"""The tools whose calls change the workspace, in the order alternatives are asked for."""

MAX_FILES = 5000
MAX_BYTES = 50 << 20
MAX_TEST_SECONDS = 20.0
"""Tests slower than this make trying candidates too dear: climbing stops for the trial."""


def fits(root: Path, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES) -> bool:
    """Whether the workspace is small enough to copy for every candidate."""
    size = 0
    for files, path in enumerate(root.rglob("*"), start=1):
        if path.is_file() and not path.is_symlink():
            size += path.stat().st_size
        if files > max_files or size > max_bytes:
            return False
    return True


@contextmanager
def restored(root: Path) -> Iterator[Path]:
    """Whatever happens inside, `root` is put back as it was (contents, modes, symlinks).
    Yields the saved copy."""
    with tempfile.TemporaryDirectory(prefix="hc-climb-") as tmp:
        saved = Path(tmp) / "saved"
        shutil.copytree(root, saved, symlinks=True)
        try:
            yield saved
        finally:
            for entry in list(root.iterdir()):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
            shutil.copytree(saved, root, symlinks=True, dirs_exist_ok=True)


def lines_lost(before: Path, after: Path, max_bytes: int = 1 << 20) -> int:
    """How many lines of the text files in `before` are gone from the same files in `after`
    (a deleted file loses all its lines). Large files, binary files and git's own files are
    not compared: their "lines" are nobody's work."""
    lost = 0
    for old in before.rglob("*"):
        if not old.is_file() or old.is_symlink() or old.stat().st_size > max_bytes:
            continue
        relative = old.relative_to(before)
        if ".git" in relative.parts:
            continue
        was = _lines(old)
        if was is None:
            continue
        lost += sum((Counter(was) - Counter(_lines(after / relative) or [])).values())
    return lost


def _lines(path: Path) -> list[str] | None:
    """The lines of a text file; [] when it is gone; None for a binary file."""
    try:
        data = path.read_bytes()
    except OSError:  # gone, or now a folder
        return []
    return None if b"\0" in data else data.decode("utf-8", "replace").splitlines()


@dataclass
class Candidate:
    call: ToolCall
    text: str
    """The model's raw answer."""
    success: bool
    passing: int
    total: int
    output: str = ""
    lost: int = 0
    """Lines of existing files the call removed: of two equally good steps, the one that
    destroys less is kept."""
    origin: str = "model"
    """model: the model's own call; reading: another reading of it (variants.py); tool: the
    model's answer when asked for another tool."""

    def rank(self) -> tuple[int, int]:
        return (self.passing if self.success else -1, -self.lost)

    def line(self) -> str:
        state = f"tests {self.passing}/{self.total}" if self.success else "failed"
        removes = f", removes {self.lost} lines" if self.lost else ""
        how = " (another reading)" if self.origin == "reading" else ""
        return f"{self.call.name}{how}: {state}{removes}"


def pick(candidates: list[Candidate], passing_now: int, own: bool = True) -> Candidate | None:
    """The candidate to apply, or None when nothing is worth applying.

    The one that passes the most tests (of those, the one that removes the fewest lines; then
    the first) when that is more than now. Otherwise a step that gains nothing: the model's own
    call (the first, when `own`) if it failed (its error is worth showing) or keeps every test
    and every existing line; else the first candidate that does both. A step that gains no
    test may not remove lines: the tests cannot tell a fix on the way from damage, and a tiny
    model's are mostly damage. When the model's own call was refused (`own` False) only a
    candidate that gains tests is applied."""
    if not candidates:
        return None
    best = max(candidates, key=Candidate.rank)
    if best.success and best.passing > passing_now:
        return best
    if not own:
        return None
    first = candidates[0]
    if not first.success or harmless(first, passing_now):
        return first
    return next((c for c in candidates if harmless(c, passing_now)), None)


def harmless(candidate: Candidate, passing_now: int) -> bool:
    """Keeps every test that passes now and every line of the files there now."""
    return candidate.success and candidate.passing >= passing_now and candidate.lost == 0


@dataclass(frozen=True)
class Target:
    """What another candidate is asked for: a tool, and for the file tools perhaps the file
    (the answer's schema then fixes its path)."""

    tool: str
    path: str | None = None

    def words(self) -> str:
        """The ask in words, for back ends that cannot constrain the answer."""
        return f"(use {self.tool} on {self.path})" if self.path else f"(use {self.tool})"


_FILE_NAME = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")


def targets(
    call: ToolCall, own_path: str | None, offered: Collection[str], files: Sequence[FileState]
) -> list[Target]:
    """The candidates worth asking for besides the model's `call`: each other acting tool,
    edit_file on each other existing file the task names, and write_file on each file it
    names that is not there yet. A model that fixes on one file (or one tool) still gets a
    candidate for the others."""
    pool = [Target(tool) for tool in ACTING_TOOLS if tool != call.name and tool in offered]
    for path, state in files:
        if path == own_path or state == "other":
            continue
        tool = "edit_file" if state == "file" else "write_file"
        if tool in offered and (state == "file" or _FILE_NAME.search(path)):
            pool.append(Target(tool, path))
    return pool


def solved(candidate: Candidate) -> bool:
    return candidate.success and candidate.total > 0 and candidate.passing == candidate.total


class Climb:
    """Tries calls on the trial's workspace and scores them by the task's tests."""

    def __init__(
        self,
        workspace: Path,
        execute: Callable[[ToolCall], tuple[bool, str]],
        verify: Callable[[], Evaluation],
    ) -> None:
        self.workspace = workspace
        self.execute = execute
        self.verify = verify
        self.verifications = 0
        self.asked: Counter[Target] = Counter()
        self.enabled = fits(workspace)
        self.why_off = "" if self.enabled else "the workspace is too large to copy per candidate"

    def order(self, pool: Sequence[Target]) -> list[Target]:
        """The targets, least asked first (over the turns every one gets its turn)."""
        return sorted(pool, key=lambda target: self.asked[target])

    def measure(self) -> Evaluation:
        evaluation = self.verify()
        self.verifications += 1
        if evaluation.duration_sec > MAX_TEST_SECONDS:
            self.enabled = False
            self.why_off = f"the tests take {evaluation.duration_sec:.0f}s a run"
        return evaluation

    def attempt(self, call: ToolCall, text: str, origin: str = "model") -> Candidate:
        """Apply `call`, run the tests, and put the workspace back."""
        with restored(self.workspace) as saved:
            success, output = self.execute(call)
            lost = lines_lost(saved, self.workspace)  # before the tests, which may write too
            evaluation = self.measure()
        return Candidate(
            call,
            text,
            success,
            evaluation.tests_passing,
            evaluation.tests_total,
            output,
            lost,
            origin,
        )
