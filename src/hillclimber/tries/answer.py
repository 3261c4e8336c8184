"""What a try left: its answer, read the same way from every try so that equal work compares
equal.

The answer is the output files the instruction names (those it does not name only to read or
to leave alone); where none of them changed, every file the try created, changed or deleted in
its working folder. Files that are absent or blank (nothing in them, or an empty JSON value) are
no answer: two tries that wrote `[]` have not agreed on anything. Each file is normalised
before it is compared: line endings, trailing spaces and blank lines at the end; JSON with its
keys sorted and its numbers in one form.
Where a file is a program (a script, an executable), its answer is what it does when run as
the instruction shows (else with its interpreter): what it prints, its exit code and the
named files it writes — its text only where it does nothing visible (a module of functions).

A repository's commits are part of what a try left (`GIT`); a program that does not run (its
interpreter or a command in it not found) is no answer, like a blank file.

Nothing here knows a task or a phrasing: it compares files and runs programs.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from decimal import Decimal

from hillclimber.harness.task_paths import TaskPaths
from hillclimber.sandbox import OutsideSandbox, Sandbox
from hillclimber.sandbox.base import walk
from hillclimber.sandbox.files import is_binary, read_bytes
from hillclimber.sandbox.workspace import fits, kept_files, restored
from hillclimber.shell.command import inside

MAX_FILES = 5000
"""Files looked at in a working folder; past it the rest is not compared."""
MAX_BYTES = 16 << 20
"""A larger file is compared by its size and its first bytes."""
SKIPPED = (".git", "__pycache__", ".pytest_cache", "node_modules", ".mypy_cache", ".venv")
"""Folders whose files are nobody's answer (caches, git's own objects, which hold times)."""
RUN_TIMEOUT = 20.0
MAX_PROGRAMS = 3
_SCRIPTS = {".sh": "bash", ".bash": "bash", ".py": "python3", ".pl": "perl", ".rb": "ruby",
            ".js": "node"}  # fmt: skip
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_INTERPRETERS = ("bash", "sh", "python", "python3", "perl", "ruby", "node")

Files = dict[str, str]
"""Sandbox path → sha256 of the file's bytes."""


@dataclass(frozen=True)
class Answer:
    parts: Mapping[str, str]
    """What was compared → the digest of its normalised content (`absent` for no file; a
    program's part is named `run: COMMAND`)."""
    copied: bool = False
    """Every file the try wrote for its answer holds nothing but lines the instruction holds
    (`spelled_out`): the prompt every try reads spells it out, so tries agreeing on it could
    not have differed and their agreement proves nothing."""

    @property
    def digest(self) -> str:
        """One digest of every part; empty where there is nothing to compare."""
        if not self.given:
            return ""
        joined = "\n".join(f"{name}\0{value}" for name, value in sorted(self.parts.items()))
        return hashlib.sha256(joined.encode()).hexdigest()[:16]

    @property
    def given(self) -> bool:
        """Whether the try left anything: an answer of absent or blank files is no answer (two
        tries that did nothing, or wrote `[]`, do not agree on anything), and neither is one
        with a program that does not run, whatever else it holds (two tries that wrote the
        line to print into the script, and that line into its output file by hand, have
        agreed on a script that stops at `command not found`)."""
        values = self.parts.values()
        return BROKEN not in values and any(value not in (ABSENT, BLANK) for value in values)

    def summary(self) -> str:
        names = [posixpath.basename(name) if not name.startswith("run: ") else name
                 for name in sorted(self.parts)]  # fmt: skip
        return ", ".join(names) if names else "nothing"


ABSENT = "absent"
BLANK = "blank"
"""A file with nothing in it once normalised: empty, blank lines, or an empty JSON value
(`[]`, `{}`, `""`, `null`). Tries agree on it without having done the work."""
_BLANK_FORMS = frozenset({b"", b"[]", b"{}", b'""', b"null"})
BROKEN = "broken"
"""A program that, run as the instruction shows, printed nothing and ended `command not found`
(exit 127): its interpreter, or a command in it, is not there (a script holding the text it
was to print)."""
GIT = "git: "
"""The part of the repositories in the working folder: each one's branch, commits and refs (by
tree and subject) and its tracked files not committed (`git status`; untracked files are
compared as files). A commit is work a try did that no file shows: git's own objects are left
out of the files (they hold times)."""
_GIT_STATE = (
    "find . -maxdepth 3 -name .git -prune 2>/dev/null | sort | while read -r g; do "
    'd="${g%/.git}"; git() { command git -c safe.directory=\'*\' -C "$d" "$@"; }; '
    'git rev-parse --git-dir >/dev/null 2>&1 || continue; echo "== $d"; '
    "git symbolic-ref -q --short HEAD; git log --format='%T %s' 2>/dev/null | head -n 50; "
    "git for-each-ref --format='%(refname) %(tree) %(subject)' refs/heads refs/tags; "
    "git status --porcelain --untracked-files=no 2>/dev/null | head -n 200; done"
)


def files_now(sandbox: Sandbox, workdir: str, outside: Iterable[str] = ()) -> Files:
    """The digest of every file in the working folder (caches and git's objects left out),
    and of each of `outside` (the files the task names elsewhere)."""
    found: Files = {}
    try:
        # a working folder of `/` is the whole system: only the named files are the answer
        for path, info in walk(sandbox, workdir, SKIPPED) if workdir != "/" else ():
            if info.kind == "file" and not info.link:
                found[path] = _file_digest(sandbox, path, info.size)
                if len(found) >= MAX_FILES:
                    break
    except (OSError, OutsideSandbox):
        pass
    for path in outside:
        data = read_bytes(sandbox, path, limit=MAX_BYTES)
        if data is not None:
            found[path] = hashlib.sha256(data).hexdigest()
    if workdir != "/" and (state := _git_state(sandbox, workdir)) is not None:
        found[GIT + workdir] = state
    return found


def _git_state(sandbox: Sandbox, workdir: str) -> str | None:
    """The digest of the repositories' state under `workdir` (`GIT`); None without any."""
    try:
        result = sandbox.run(_GIT_STATE, timeout=RUN_TIMEOUT, cwd=workdir, linger=False)
    except OSError:
        return None
    text = result.stdout.strip()
    return _digest(text.encode()) if text else None


def _file_digest(sandbox: Sandbox, path: str, size: int) -> str:
    data = sandbox.read_file(path, limit=MAX_BYTES)
    return hashlib.sha256(data + (str(size).encode() if size > MAX_BYTES else b"")).hexdigest()


def read_answer(
    sandbox: Sandbox, workdir: str, paths: TaskPaths, before: Files, instruction: str
) -> Answer:
    """The answer a try left in `sandbox`, against `before` (`files_now` at its start)."""
    outside = [p for p in paths.named if not inside(p, [workdir])]
    now = files_now(sandbox, workdir, outside)
    changed = {p for p in set(before) | set(now) if before.get(p) != now.get(p)}
    named = list(paths.answers)
    answer_files = _named_files(named, now, changed)
    if not any(p in changed for p in answer_files):
        answer_files = sorted(changed)
    committed = [p for p in sorted(changed) if p.startswith(GIT) and p not in answer_files]
    parts: dict[str, str] = {}
    programs = 0
    lines = _lines(instruction.encode())
    written: list[bool] = []  # for each file the try wrote: whether the instruction spells it out
    for path in [*answer_files, *committed]:
        if path.startswith(GIT):
            parts[path] = now.get(path, ABSENT)
            written.append(False)  # a commit is work no instruction spells out
            continue
        data = read_bytes(sandbox, path, limit=MAX_BYTES) if path in now else None
        if data is None:
            parts[path] = ABSENT
            if path in changed:
                written.append(False)  # a deletion is work no instruction spells out
            continue
        made = path in changed  # a named script the try left alone is the task's, not its answer
        if made:
            written.append(spelled_out(data, lines))
        if made and programs < MAX_PROGRAMS and _is_program(sandbox, path, data):
            programs += 1
            command, behaviour = _behaviour(sandbox, workdir, path, instruction, named)
            if behaviour is not None:
                parts[f"run: {command}"] = behaviour
                continue
        same = normalised(data, path)
        parts[path] = BLANK if same in _BLANK_FORMS else _digest(same)
    return Answer(parts, copied=bool(written) and all(written))


def _lines(data: bytes) -> set[str]:
    """A text's lines, each stripped, blank ones left out."""
    text = data.decode("utf-8", "replace")
    return {line.strip() for line in text.splitlines() if line.strip()}


def spelled_out(data: bytes, instruction_lines: set[str]) -> bool:
    """Whether the file holds something, and nothing but lines the instruction holds as lines
    of their own (an example copied, or a text it demands): spacing aside."""
    if is_binary(data):
        return False
    lines = _lines(data)
    return bool(lines) and lines <= instruction_lines


def _named_files(named: list[str], now: Files, changed: set[str]) -> list[str]:
    """The named paths as files: a named folder stands for the files in it that changed."""
    files: list[str] = []
    for path in named:
        under = sorted(p for p in changed if inside(p, [path]) and p != path)
        files.extend(under if under else [path])
    return list(dict.fromkeys(files))


def normalised(data: bytes, path: str = "") -> bytes:
    """The bytes two equal answers share: text with `\\n` line endings, no trailing spaces and
    no blank lines at the end; JSON in one canonical form. Binary data as it is."""
    if is_binary(data):
        return data
    text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    if path.endswith(".json") or text.lstrip()[:1] in ("{", "["):
        canonical = _canonical_json(text)
        if canonical is not None:
            return canonical.encode()
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines).encode()


def _canonical_json(text: str) -> str | None:
    try:
        value = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except ValueError:
        return None
    return _canon(value)


def _canon(value: object) -> str:
    """JSON with sorted keys and numbers in one form (`1`, `1.0` and `1e0` alike)."""
    if isinstance(value, dict):
        items = sorted((str(k), _canon(v)) for k, v in value.items())
        return "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_canon(v) for v in value) + "]"
    if isinstance(value, Decimal):
        number = value.normalize()
        return f"{number:f}" if number.is_finite() else str(number)
    return json.dumps(value)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _is_program(sandbox: Sandbox, path: str, data: bytes) -> bool:
    """A script (by its extension or `#!`) or an executable file."""
    if posixpath.splitext(path)[1] in _SCRIPTS or data.startswith((b"#!", b"\x7fELF")):
        return True
    try:
        result = sandbox.run(f"test -x {shlex.quote(path)}", timeout=10, linger=False)
    except OSError:
        return False
    return result.ok


def how_to_run(path: str, instruction: str, workdir: str) -> str:
    """The command the instruction shows for the program at `path` (a quoted line that calls
    it, itself or through an interpreter), else its interpreter (or itself) with no
    arguments."""
    name = posixpath.basename(path)
    quoted = [*_CODE_SPAN.findall(instruction)]
    for block in _FENCE.findall(instruction):
        quoted.extend(block.splitlines())
    for line in quoted:
        words = line.strip().removeprefix("$ ").split()
        if not words:
            continue
        first = words[1] if posixpath.basename(words[0]) in _INTERPRETERS and len(words) > 1 else (
            words[0])  # fmt: skip
        if posixpath.basename(first) == name:
            return " ".join(words)
    runner = _SCRIPTS.get(posixpath.splitext(path)[1])
    relative = posixpath.relpath(path, workdir) if inside(path, [workdir]) else path
    shown = relative if "/" in relative or runner else f"./{relative}"
    return f"{runner} {shlex.quote(shown)}" if runner else shlex.quote(shown)


def _behaviour(
    sandbox: Sandbox, workdir: str, path: str, instruction: str, named: list[str]
) -> tuple[str, str | None]:
    """(command, digest of what running it did) — None where it did nothing visible: nothing
    printed and no named file changed (a module of functions; a usage error, which two
    different programs share). The workspace and the named files are put back."""
    command = how_to_run(path, instruction, workdir)
    outside = [p for p in named if not inside(p, [workdir])]
    with ExitStack() as stack:
        if fits(sandbox, workdir):
            stack.enter_context(restored(sandbox, workdir))
        stack.enter_context(kept_files(sandbox, outside))
        before = {p: read_bytes(sandbox, p) for p in named if p != path}
        try:
            result = sandbox.run(command, timeout=RUN_TIMEOUT, cwd=workdir, linger=False)
        except OSError:
            return command, None
        wrote = {p: read_bytes(sandbox, p) for p in before}
    written = sorted(p for p in before if wrote[p] != before[p])
    output = normalised(result.stdout.encode(), "")
    if not output and not written and result.exit_code == 127:
        return command, BROKEN
    if not output and not written:  # nothing to tell two programs apart by (a usage error)
        return command, None
    seen = [output, f"exit {result.exit_code}".encode()]
    for p in written:
        data = wrote[p]
        seen.append(p.encode() + b"\0" + (normalised(data, p) if data is not None else b""))
    status = "timed out" if result.timed_out else ""
    return command, _digest(b"\0\0".join(seen) + status.encode())
