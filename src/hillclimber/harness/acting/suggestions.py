"""What to do about a failed command, read from its output: one reader per kind of failure.

Each reader gets (command, exit code, output) and returns a short, concrete next step — the key
of its words in `prompts/recovery.toml` [suggestion] and what fills them in — or None when the
output is not of its kind. They read the real output shapes of bash, gcc, Python, pytest, curl
and the sandbox (read-only system, no network); `diagnosis.py` tries them in order and names
the kind.
"""

from __future__ import annotations

import re

from hillclimber.harness.acting.tools import TOOLS
from hillclimber.shell.split import split_commands
from hillclimber.shell.words import read_words
from hillclimber.text import clip

Said = tuple[str, dict[str, str]]
"""A next step: the key of its text in `recovery.toml` [suggestion], and its placeholders."""


def _short(name: str) -> str:
    return clip(name, 30)


_NOT_FOUND_CMD = re.compile(
    r"(?:^|\n)\S*?(?:ba)?sh: (?:line \d+: |\d+: )?([^\s:]+): (?:command )?not found"
    r"|(?:^|\n)(\S+): command not found"
    r"|(?:^|\n)env: [‘'`]?([^\s’']+)[’']?: No such file or directory"
)
_NO_EDITORS = ("vi", "vim", "nano", "emacs", "less", "more", "top", "htop")
_PACKAGE_MANAGERS = ("apt", "apt-get", "yum", "dnf", "apk", "brew", "conda", "snap")


def command_not_found(command: str, exit_code: int, output: str) -> Said | None:
    if "bad interpreter" in output:
        return "bad_interpreter", {}
    match = _NOT_FOUND_CMD.search(output)
    if match is None:
        return None
    name = next(g for g in match.groups() if g)
    return _missing_command(name)


_MISSING_SPECIAL = {
    "python": "python",
    "pip": "pip",
    "pip3": "pip",
    "pytest": "pytest",
    "sudo": "sudo",
}
"""A missing command → the key of what to use instead."""


def _missing_command(name: str) -> Said:
    base = name.rsplit("/", 1)[-1]
    if base in TOOLS:
        return "tool_not_command", {"name": base}
    if base in _MISSING_SPECIAL:
        return _MISSING_SPECIAL[base], {}
    if base in _NO_EDITORS:
        return "interactive", {"name": base}
    if base in _PACKAGE_MANAGERS:
        return "package_manager", {"name": base}
    if "/" in name or base.endswith((".sh", ".py", ".pl")):
        return "run_file", {"name": _short(base), "file": base}
    return "not_installed", {"name": _short(base)}


def read_only(command: str, exit_code: int, output: str) -> Said | None:
    if "Read-only file system" not in output:
        return None
    return "read_only", {}


_OFFLINE = re.compile(
    r"Could not resolve host|Temporary failure in name resolution|Name or service not known"
    r"|unable to resolve host|Network is unreachable|Failed to establish a new connection"
    r"|No matching distribution found|getaddrinfo|nodename nor servname|ENOTFOUND|EAI_AGAIN"
)


def network(command: str, exit_code: int, output: str) -> Said | None:
    if _OFFLINE.search(output):
        return "offline", {}
    if _command_name(command, 0) in _PACKAGE_MANAGERS:
        return "no_install", {}
    return None


_NO_MODULE = re.compile(r"No module named '?([\w.]+)'?")
_CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_NODE_MODULE = re.compile(r"Cannot find module '([^']+)'")


def import_error(command: str, exit_code: int, output: str) -> Said | None:
    if match := _NO_MODULE.search(output):
        return "no_module", {"module": _short(match.group(1))}
    if match := _CANNOT_IMPORT.search(output):
        return "cannot_import", {"module": _short(match.group(2)), "name": _short(match.group(1))}
    if match := _NODE_MODULE.search(output):
        return "node_module", {"module": _short(match.group(1))}
    return None


_PY_SYNTAX = re.compile(r"^(SyntaxError|IndentationError|TabError)\b", re.MULTILINE)
_PY_LOCATION = re.compile(r'File "([^"]+)", line (\d+)')
_SHELL_SYNTAX = re.compile(
    r"syntax error near unexpected token|unexpected EOF while looking for matching"
    r"|syntax error: unexpected end of file|Syntax error: "
)
_SQL_SYNTAX = re.compile(r'near "([^"]*)": syntax error')


def syntax_error(command: str, exit_code: int, output: str) -> Said | None:
    if _PY_SYNTAX.search(output):
        where = _PY_LOCATION.findall(output)
        if where:
            return "python_syntax_at", {"file": _short(where[-1][0]), "line": where[-1][1]}
        return "python_syntax", {}
    if _SHELL_SYNTAX.search(output):
        return "shell_syntax", {}
    if "missing separator" in output:
        return "makefile_tabs", {}
    if match := _SQL_SYNTAX.search(output):
        return "sql_syntax", {"near": _short(match.group(1))}
    if re.search(r"\bsyntax error\b", output, re.IGNORECASE):
        return "syntax", {}
    return None


_COMPILER_ERROR = re.compile(
    r"^([^\s:]+):(\d+):(?:\d+:)? (?:fatal )?error\b|^error(?:\[E\d+\])?:|error TS\d+"
    r"|^([^\s:]+\.java):(\d+): error",
    re.MULTILINE,
)
_MISSING_HEADER = re.compile(r"fatal error: ([^\s:]+): No such file or directory")


def compile_error(command: str, exit_code: int, output: str) -> Said | None:
    if "undefined reference to" in output or "ld returned" in output:
        return "link_error", {}
    if match := _MISSING_HEADER.search(output):
        return "missing_header", {"header": _short(match.group(1))}
    match = _COMPILER_ERROR.search(output)
    if match is None:
        return None
    if match.group(1):
        return "compile_error_at", {"file": _short(match.group(1)), "line": match.group(2)}
    return "compile_error", {}


_TESTS_FAILED = re.compile(
    r"\b(\d+) failed\b|^FAILED \(|test result: FAILED|^--- FAIL|Tests:\s+\d+ failed", re.MULTILINE
)
_FIRST_FAILED = re.compile(r"^FAILED (\S+)", re.MULTILINE)


def tests_failed(command: str, exit_code: int, output: str) -> Said | None:
    if not _TESTS_FAILED.search(output):
        return None
    first = _FIRST_FAILED.search(output)
    if first:
        return "tests_failed_first", {"test": _short(first.group(1).split("::")[-1])}
    return "tests_failed", {}


_NOT_EXECUTABLE = re.compile(r"(?:^|\n)\S*?sh: (?:line \d+: )?(\S+): Permission denied")


def permission(command: str, exit_code: int, output: str) -> Said | None:
    if match := _NOT_EXECUTABLE.search(output):
        return "not_executable", {"path": _short(match.group(1))}
    if re.search(r"Permission denied|Operation not permitted|EACCES|PermissionError", output):
        return "permission", {}
    return None


_MISSING_PATH = re.compile(
    r"([^\s:'‘]+): Cannot open: No such file"
    r"|cannot find or open ([^\s,]+)"
    r"|['‘]([^'’\n]+)['’]: No such file or directory"
    r"|No such file or directory: '([^'\n]+)'"
    r"|can't open file '([^'\n]+)'"
    r"|([^\s:'‘]+): No such file or directory"
    r"|cannot (?:access|stat|open) ['‘]([^'’\n]+)['’]"
)
_NO_RULE = re.compile(r"No rule to make target '([^']+)'")


def not_found(command: str, exit_code: int, output: str) -> Said | None:
    if match := _NO_RULE.search(output):
        return "no_make_target", {"target": _short(match.group(1))}
    if "not a git repository" in output:
        return "not_a_repository", {}
    match = _MISSING_PATH.search(output)
    if match is None and not re.search(r"No such file|does not exist|FileNotFound", output):
        return None
    path = next((g for g in match.groups() if g), "") if match else ""
    return ("path_not_found", {"path": _short(path)}) if path else ("not_found", {})


_BAD_USAGE = re.compile(
    r"invalid option|unrecognized option|unknown option|illegal option|missing operand"
    r"|unrecognized arguments|requires an argument|invalid argument|^usage:|Try '\S+ --help'",
    re.MULTILINE | re.IGNORECASE,
)


def usage(command: str, exit_code: int, output: str) -> Said | None:
    if not _BAD_USAGE.search(output):
        return None
    return "usage", {"name": _short(_command_name(command, -1) or "the command")}


_QUIET_FALSE = {
    "grep": "grep_no_match",
    "diff": "diff_differs",
    "cmp": "cmp_differs",
    "test": "test_false",
    "[": "test_false",
}
"""A command whose exit 1 is an answer → the key of what that answer means."""


def quiet_false(command: str, exit_code: int, output: str) -> Said | None:
    """Exit 1 from grep/diff/test is an answer, not an error."""
    name = _command_name(command, -1)
    if exit_code != 1 or name not in _QUIET_FALSE:
        return None
    return _QUIET_FALSE[name], {}


def unknown(command: str, exit_code: int, output: str) -> Said:
    """The step for a failure of no known kind: read the traceback, or the last lines."""
    if "Traceback (most recent call last)" in output:
        last = [line for line in output.strip().splitlines() if line.strip()][-1]
        return "traceback", {"error": _short(last.split(":", 1)[0].strip())}
    return "unknown", {"code": str(exit_code)}


def _command_name(command: str, index: int) -> str:
    """The name of the simple command at `index` (0 the first; -1 the last, whose exit code is
    the whole command's)."""
    commands = split_commands(command)
    words = read_words(commands[index].text) if commands else None
    return words.name if words is not None else ""
