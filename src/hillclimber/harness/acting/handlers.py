"""What each tool does, on the trial's sandbox through its file API. A tool's own failure is a
result the model sees (`success` False and why), never an exception."""

from __future__ import annotations

import difflib
import fnmatch
import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hillclimber.errors import AgentTimeout
from hillclimber.harness.acting.tools import MAX_CHARS, MAX_LINES, ToolCall, ToolResult, truncate
from hillclimber.harness.config import COMMAND_TIMEOUT_SEC
from hillclimber.harness.instruction import DATA
from hillclimber.harness.parsing.literal import python_data
from hillclimber.harness.parsing.source import python_error, rejoined
from hillclimber.sandbox import APP, HOME, OutsideSandbox, Sandbox, run_within
from hillclimber.sandbox.files import (
    BINARY_PROBE,
    exists,
    folder_entries,
    is_binary,
    is_dir,
    same_name,
)


@dataclass
class ToolEnv:
    """What tools act on: the trial's sandbox, the agent's clock, the verifier if any."""

    sandbox: Sandbox
    workdir: str = APP
    command_timeout: float = COMMAND_TIMEOUT_SEC
    remaining: Callable[[], float] = lambda: float("inf")
    verify: Callable[[], Any] | None = None
    """Runs the checks (the task's tests, or the harness's own); returns an Evaluation."""
    output_chars: int = MAX_CHARS
    roots: tuple[str, ...] = ()
    """Where a file named by its bare name may be, besides the working folder: the folders the
    instruction names (`instruction.search_roots`)."""


def tool_path(path: str, env: ToolEnv) -> str:
    """The sandbox path a tool's `path` argument means: relative to the working folder, `~` the
    home folder. Small models drop the leading slash: `app/x.txt` said in the workspace /app,
    where there is no folder `app`, is /app/x.txt. They also put the working folder before a
    path outside it: `/home/agent/opt/webapp/app.py`, where /home/agent has no `opt` and
    /opt/webapp/app.py is there, is that file."""
    if path == "~" or path.startswith("~/"):
        path = HOME + path[1:]
    first, _, rest = path.partition("/")
    dropped_slash = rest and first == posixpath.basename(env.workdir)
    if dropped_slash and not env.sandbox.exists(posixpath.join(env.workdir, first)):
        return posixpath.join(posixpath.dirname(env.workdir), path)
    full = posixpath.normpath(posixpath.join(env.workdir, path))
    inner = full.removeprefix(env.workdir.rstrip("/"))
    top = inner.split("/")[1] if inner != full and inner.count("/") > 1 else ""
    if top and not exists(env.sandbox, posixpath.join(env.workdir, top)):
        return inner if exists(env.sandbox, inner) else full
    return full


def execute(call: ToolCall, env: ToolEnv) -> ToolResult:
    """Run one validated call. Never raises for a tool's own failure; AgentTimeout passes."""
    try:
        handler = _HANDLERS[call.name]
    except KeyError:
        return ToolResult(False, f"unknown tool {call.name}")
    try:
        return handler(call.arguments, env)
    except OutsideSandbox as err:
        return ToolResult(False, f"{err}: only files under {APP} can be used")
    except AgentTimeout:
        raise
    except OSError as err:
        return ToolResult(False, f"{type(err).__name__}: {err.strerror or err}")


def _text_file(args: dict[str, Any], env: ToolEnv) -> tuple[str, str] | ToolResult:
    """The sandbox path a text tool works on and its text, or why it cannot."""
    path = tool_path(args["path"], env)
    meta = {"path": args["path"]}
    found = env.sandbox.stat(path)
    if found is not None and found.kind == "dir":
        return ToolResult(False, _folder(args["path"], path, env), {**meta, "folder": True})
    if found is None or found.kind != "file":
        return ToolResult(False, f"no such file: {args['path']}{_elsewhere(path, env)}", meta)
    head = env.sandbox.read_file(path, limit=BINARY_PROBE)
    if is_binary(head):
        start = head[:16].split(b"\0")[0].decode("ascii", "replace")
        return ToolResult(
            False,
            f"{args['path']} is not a text file (it starts with {start!r}): read and change it "
            "with a command made for it (run_command), not as text",
            {**meta, "binary": True},
        )
    data = head if found.size <= len(head) else env.sandbox.read_file(path)
    return path, data.decode(errors="replace")


def _elsewhere(path: str, env: ToolEnv) -> str:
    """Where the one file of that name under the working folder or a folder the instruction
    names is, if there is one (a task names `ec-policies.json`, which lies in a folder of
    it); for a pattern (`container_*.json`: the file tools take no patterns), the files of its
    folder it matches; else what the nearest folder above it holds."""
    name = posixpath.basename(path)
    if _PATTERN.search(name):
        return _matches(path, env) or _around(path, env)
    found = [p for root in env.roots or (env.workdir,) for p in same_name(env.sandbox, root, name)]
    if len(found) == 1:
        return f" (the file {found[0]} has that name)"
    return _around(path, env)


def _around(path: str, env: ToolEnv) -> str:
    """What the nearest folder above a missing path holds (the 1.5B read a file it guessed
    the name of, told only "no such file", again and again; what is there is the next step).
    Nothing for a path whose only folder left is `/`: its listing is the system's."""
    folder = posixpath.dirname(path)
    while folder not in ("", "/") and not is_dir(env.sandbox, folder):
        folder = posixpath.dirname(folder)
    if folder in ("", "/"):
        return ""
    count, shown = folder_entries(env.sandbox, folder)
    return f" ({folder} holds {_entries(count)}: {shown})" if count else f" ({folder} is empty)"


def _entries(count: int) -> str:
    return "1 entry" if count == 1 else f"{count} entries"


def _folder(asked: str, path: str, env: ToolEnv) -> str:
    """What a folder read as a file holds (the 1.5B read `/home/user/k8s-manifests` three
    times, was told "no such file" each time, and reported that it had examined 1 file)."""
    count, shown = folder_entries(env.sandbox, path)
    if not count:
        return f"{asked} is an empty folder, not a file"
    return (
        f"{asked} is a folder, not a file: it holds {_entries(count)}: {shown}."
        " Read one file of it at a time, or work on them all with a command (run_command)"
    )


_PATTERN = re.compile(r"[*?\[]")
MAX_MATCHES = 12


def _matches(pattern: str, env: ToolEnv) -> str:
    folder, name = posixpath.split(pattern)
    try:
        names = sorted(n for n in env.sandbox.listdir(folder) if fnmatch.fnmatchcase(n, name))
    except (OSError, OutsideSandbox):
        return ""
    if not names:
        return ""
    shown = ", ".join(posixpath.join(folder, n) for n in names[:MAX_MATCHES])
    more = f" and {len(names) - MAX_MATCHES} more" if len(names) > MAX_MATCHES else ""
    return f" (a path names one file; it matches {shown}{more})"


def _read_file(args: dict[str, Any], env: ToolEnv) -> ToolResult:
    found = _text_file(args, env)
    if isinstance(found, ToolResult):
        return found
    _, text = found
    lines = text.splitlines()
    start = max(args.get("start") or 1, 1)
    end = min(args.get("end") or len(lines), len(lines))
    shown = piece(lines[start - 1 : end], max_chars=env.output_chars)
    last = start + len(shown) - 1
    meta: dict[str, Any] = {
        "path": args["path"], "file_lines": len(lines), "start": start, "end": end,
        "lines_shown": len(shown), "truncated": last < end,
    }  # fmt: skip
    out = "\n".join(shown)
    if last < end:  # a file larger than the window is read in pieces, in order
        meta["next_start"] = last + 1
        out += f"\n[lines {start}-{last} of {len(lines)} shown; {_rest(args['path'], last)}]"
    return ToolResult(True, out, meta)


def _rest(path: str, last: int) -> str:
    """What to do with the rest of a file read in part: a data file's rows are for a command
    (offered the next piece, the 1.5B paged through a 964-row table a turn at a time until the
    guards refused it), other files are read on."""
    if path.lower().endswith(DATA):
        return (
            f"the rest (from line {last + 1}) is more rows of the same kind: work on the whole"
            " file with a command (run_command) instead of reading it"
        )
    return f"the next piece: read_file {path} start={last + 1}"


def piece(lines: list[str], max_chars: int, max_lines: int = MAX_LINES) -> list[str]:
    """The first lines that fit the output's limits (a longer first line cut to fit): a piece
    to read on from, where head-and-tail truncation would hide the middle."""
    budget = max(max_chars - 120, 200)
    shown: list[str] = []
    size = 0
    for line in lines[:max_lines]:
        if shown and size + len(line) + 1 > budget:
            break
        shown.append(line[:budget])
        size += len(shown[-1]) + 1
    return shown


_WRAPPED = re.compile(r"\A\s*```[\w+-]*[ \t]*\n(?P<body>(?:(?!```).)*?\n?)```\s*\Z", re.S)
MARKUP = (".md", ".markdown", ".mdx", ".rst")
"""Files where a fence is text: kept as written."""


def unfenced(path: str, content: str) -> str | None:
    """The content without the one Markdown fence around all of it (```json … ```: how small
    models quote a file, not a part of it), outside Markdown files; None when there is none."""
    match = _WRAPPED.match(content)
    if match is None or path.lower().endswith(MARKUP):
        return None
    return match.group("body")


def as_json(path: str, content: str) -> str | None:
    """For a `.json` file, content in Python's notation (`{'n': 1, 'ok': True}`) as the JSON
    it stands for; None where it is JSON already, or no Python dict or list."""
    if not path.lower().endswith(".json"):
        return None
    try:
        json.loads(content)
        return None
    except ValueError:
        value = python_data(content)
    return None if value is None else json.dumps(value, indent=2) + "\n"


def python_source(path: str, content: str, before: str | None = None) -> str | None:
    """For a `.py` file that does not parse, the content with each string literal a line
    break cut in two joined again by the escape `\\n` (`parsing.source.rejoined`), where that
    makes it parse; else None. An edit is mended only where the file parsed `before` it."""
    if not path.lower().endswith(".py") or (before is not None and python_error(before)):
        return None
    return rejoined(content)


_CONVERTED = {
    ".json": " (as JSON: it was written in Python's notation)",
    ".py": " (a line break inside a quoted string written as the escape \\n: it parses now)",
}


def _write_file(args: dict[str, Any], env: ToolEnv) -> ToolResult:
    path = tool_path(args["path"], env)
    content = str(args["content"])
    inner = unfenced(path, content)
    content = content if inner is None else inner
    converted = as_json(path, content) or python_source(path, content)
    data = (content if converted is None else converted).encode()
    size = len(data)
    meta: dict[str, Any] = {"path": args["path"], "bytes": size}
    found = env.sandbox.stat(path)
    if found is not None and found.kind == "file" and env.sandbox.read_file(path) == data:
        meta["unchanged"] = True
        return ToolResult(
            True, f"{args['path']} already has exactly this content: nothing changed", meta
        )
    env.sandbox.write_file(path, data)
    dropped = "" if inner is None else " (without the ``` fence around it: it is not the file's)"
    if converted is not None:
        dropped += _CONVERTED[posixpath.splitext(path)[1].lower()]
    return ToolResult(True, f"Wrote {size} bytes to {args['path']}{dropped}", meta)


def _edit_file(args: dict[str, Any], env: ToolEnv) -> ToolResult:
    found = _text_file(args, env)
    if isinstance(found, ToolResult):
        return found
    path, text = found
    old, new = args["old_text"], args["new_text"]
    if old == new and old in text:
        return ToolResult(
            True,
            "old_text and new_text are the same: nothing changed",
            {"path": args["path"], "unchanged": True},
        )
    count = text.count(old) if old else 0
    if count != 1:
        if count == 0 and new and new in text:
            return ToolResult(
                False,
                f"old_text is not in {args['path']} but new_text already is: this change was "
                "already made. Do not repeat it.",
                {"path": args["path"], "occurrences": 0, "already_done": True},
            )
        near = difflib.get_close_matches(old.strip(), text.splitlines(), n=1, cutoff=0.6)
        hint = f" The closest line is: {near[0]!r}." if near else ""
        problem = "is not in the file" if count == 0 else f"occurs {count} times (must be once)"
        shown, _ = truncate(text, max_lines=30, max_chars=1500)
        return ToolResult(
            False,
            f"old_text {problem}; nothing was changed.{hint} The file {args['path']} is:\n{shown}",
            {"path": args["path"], "occurrences": count},
        )
    after = text.replace(old, new, 1)
    mended = python_source(path, after, before=text)
    env.sandbox.write_file(path, (after if mended is None else mended).encode())
    said = "" if mended is None else _CONVERTED[".py"]
    return ToolResult(True, f"Edited {args['path']}{said}", {"path": args["path"]})


def _run_command(args: dict[str, Any], env: ToolEnv) -> ToolResult:
    result = run_within(
        env.sandbox,
        args["command"],
        remaining=env.remaining,
        timeout=env.command_timeout,
        cwd=env.workdir,
    )
    body = result.output
    out, meta = truncate(body, max_chars=env.output_chars)
    status = "timed out" if result.timed_out else f"exit code {result.exit_code}"
    if result.limit is not None:
        status = f"ended: the command {result.limit}"
    meta.update(
        {
            "exit_code": result.exit_code,
            "timed_out": result.timed_out,
            "duration_sec": round(result.duration_sec, 3),
            "limit": result.limit,
        }
    )
    text = f"[{status}]\n{out}" if out.strip() else f"[{status}, no output]"
    return ToolResult(result.ok, text, meta)


def _verify_progress(args: dict[str, Any], env: ToolEnv) -> ToolResult:
    if env.verify is None:
        return ToolResult(False, "no tests are available for this task")
    evaluation = env.verify()
    text = f"{evaluation.summary()} passing"
    if evaluation.digest:
        text += f"\nfailing: {evaluation.digest}"
    return ToolResult(
        True,
        text,
        {
            "passed": evaluation.passed,
            "passing": evaluation.passing,
            "total": evaluation.total,
            "progress": evaluation.progress,
            "label": evaluation.label,
        },
    )


def _task_complete(args: dict[str, Any], env: ToolEnv) -> ToolResult:
    return ToolResult(True, "task marked complete")


_HANDLERS: dict[str, Callable[[dict[str, Any], ToolEnv], ToolResult]] = {
    "read_file": _read_file,
    "write_file": _write_file,
    "edit_file": _edit_file,
    "run_command": _run_command,
    "verify_progress": _verify_progress,
    "task_complete": _task_complete,
}
