"""What to do about a failed command, read from its output: one reader per kind of failure.

Each reader gets (command, exit code, output) and returns a short, concrete next step, or None
when the output is not of its kind. They read the real output shapes of bash, gcc, Python,
pytest, curl and the sandbox (read-only system, no network); `diagnosis.py` tries them in order
and names the kind.
"""

from __future__ import annotations

import re

from hillclimber.harness.acting.tools import TOOLS
from hillclimber.shell.split import split_commands
from hillclimber.shell.words import read_words
from hillclimber.text import clip


def _short(name: str) -> str:
    return clip(name, 30)


_NOT_FOUND_CMD = re.compile(
    r"(?:^|\n)\S*?(?:ba)?sh: (?:line \d+: |\d+: )?([^\s:]+): (?:command )?not found"
    r"|(?:^|\n)(\S+): command not found"
    r"|(?:^|\n)env: [‘'`]?([^\s’']+)[’']?: No such file or directory"
)
_NO_EDITORS = ("vi", "vim", "nano", "emacs", "less", "more", "top", "htop")
_PACKAGE_MANAGERS = ("apt", "apt-get", "yum", "dnf", "apk", "brew", "conda", "snap")


def command_not_found(command: str, exit_code: int, output: str) -> str | None:
    if "bad interpreter" in output:
        return (
            "the #! line names a missing interpreter (or the file has \\r line endings): "
            "fix the first line"
        )
    match = _NOT_FOUND_CMD.search(output)
    if match is None:
        return None
    name = next(g for g in match.groups() if g)
    return _missing_command(name)


_MISSING_SPECIAL = {
    "python": "use python3",
    "pip": "use python3 -m pip (nothing can be downloaded here: prefer the standard library)",
    "pip3": "use python3 -m pip (nothing can be downloaded here: prefer the standard library)",
    "pytest": "use python3 -m pytest (or python3 -m unittest if pytest is not installed)",
    "sudo": "there is no sudo and none is needed: run the command without it",
}


def _missing_command(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    if base in TOOLS:
        return f"{base} is one of your tools, not a shell command: call it as a tool"
    if base in _MISSING_SPECIAL:
        return _MISSING_SPECIAL[base]
    if base in _NO_EDITORS:
        return f"{base} is interactive and cannot be used: write files with write_file/edit_file"
    if base in _PACKAGE_MANAGERS:
        return f"{base} cannot install anything here (no network): use what is installed"
    if "/" in name or base.endswith((".sh", ".py", ".pl")):
        return f"to run a file here use ./{_short(base)} (after chmod +x) or bash/python3 {base}"
    return (
        f"{_short(base)} is not installed here and cannot be installed (no network): "
        "do it with python3 or the shell"
    )


def read_only(command: str, exit_code: int, output: str) -> str | None:
    if "Read-only file system" not in output:
        return None
    return "only your working folder and /tmp are writable: put your files there"


_OFFLINE = re.compile(
    r"Could not resolve host|Temporary failure in name resolution|Name or service not known"
    r"|unable to resolve host|Network is unreachable|Failed to establish a new connection"
    r"|No matching distribution found|getaddrinfo|nodename nor servname|ENOTFOUND|EAI_AGAIN"
)


def network(command: str, exit_code: int, output: str) -> str | None:
    if _OFFLINE.search(output):
        return (
            "there is no network: use what is installed (python3's standard library, "
            "the shell tools)"
        )
    if _command_name(command, 0) in _PACKAGE_MANAGERS:
        return (
            "packages cannot be installed here (no network, system read-only): "
            "use what is installed"
        )
    return None


_NO_MODULE = re.compile(r"No module named '?([\w.]+)'?")
_CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_NODE_MODULE = re.compile(r"Cannot find module '([^']+)'")


def import_error(command: str, exit_code: int, output: str) -> str | None:
    if match := _NO_MODULE.search(output):
        module = _short(match.group(1))
        return (
            f"no module '{module}': if it is your file, check its name and folder; "
            "else use the standard library"
        )
    if match := _CANNOT_IMPORT.search(output):
        name, module = match.group(1), _short(match.group(2))
        return f"'{module}' has no '{_short(name)}': check the spelling, or print dir({module})"
    if match := _NODE_MODULE.search(output):
        return (
            f"node module '{_short(match.group(1))}' is not installed (no network): "
            "use built-in modules"
        )
    return None


_PY_SYNTAX = re.compile(r"^(SyntaxError|IndentationError|TabError)\b", re.MULTILINE)
_PY_LOCATION = re.compile(r'File "([^"]+)", line (\d+)')
_SHELL_SYNTAX = re.compile(
    r"syntax error near unexpected token|unexpected EOF while looking for matching"
    r"|syntax error: unexpected end of file|Syntax error: "
)
_SQL_SYNTAX = re.compile(r'near "([^"]*)": syntax error')


def syntax_error(command: str, exit_code: int, output: str) -> str | None:
    if _PY_SYNTAX.search(output):
        where = _PY_LOCATION.findall(output)
        at = f" at {_short(where[-1][0])} line {where[-1][1]}" if where else ""
        return f"Python syntax error{at}: fix that line (quotes, colons, brackets, indentation)"
    if _SHELL_SYNTAX.search(output):
        return (
            "shell syntax error: check quotes and brackets; for longer code write a script "
            "file and run it"
        )
    if "missing separator" in output:
        return "Makefile recipe lines must start with a TAB, not spaces: rewrite them with tabs"
    if match := _SQL_SYNTAX.search(output):
        return (
            f"SQL syntax error near '{_short(match.group(1))}': fix the statement "
            "(keywords, commas, quotes)"
        )
    if re.search(r"\bsyntax error\b", output, re.IGNORECASE):
        return "syntax error: the message names the line and token; fix that and run again"
    return None


_COMPILER_ERROR = re.compile(
    r"^([^\s:]+):(\d+):(?:\d+:)? (?:fatal )?error\b|^error(?:\[E\d+\])?:|error TS\d+"
    r"|^([^\s:]+\.java):(\d+): error",
    re.MULTILINE,
)
_MISSING_HEADER = re.compile(r"fatal error: ([^\s:]+): No such file or directory")


def compile_error(command: str, exit_code: int, output: str) -> str | None:
    if "undefined reference to" in output or "ld returned" in output:
        return (
            "link error: a function is used but not defined; add its source file or "
            "library (e.g. -lm)"
        )
    if match := _MISSING_HEADER.search(output):
        return (
            f"header {_short(match.group(1))} is missing: fix the #include "
            "(or add -I for your own folder)"
        )
    match = _COMPILER_ERROR.search(output)
    if match is None:
        return None
    file, line = (match.group(1), match.group(2)) if match.group(1) else (None, None)
    at = f" at {_short(file)}:{line}" if file else ""
    return f"compile error{at}: read the first error line, fix that line, compile again"


_TESTS_FAILED = re.compile(
    r"\b(\d+) failed\b|^FAILED \(|test result: FAILED|^--- FAIL|Tests:\s+\d+ failed", re.MULTILINE
)
_FIRST_FAILED = re.compile(r"^FAILED (\S+)", re.MULTILINE)


def tests_failed(command: str, exit_code: int, output: str) -> str | None:
    if not _TESTS_FAILED.search(output):
        return None
    first = _FIRST_FAILED.search(output)
    which = f" (first: {_short(first.group(1).split('::')[-1])})" if first else ""
    return (
        f"tests failed{which}: read its assertion (expected vs got), fix the code, "
        "run the tests again"
    )


_NOT_EXECUTABLE = re.compile(r"(?:^|\n)\S*?sh: (?:line \d+: )?(\S+): Permission denied")


def permission(command: str, exit_code: int, output: str) -> str | None:
    if match := _NOT_EXECUTABLE.search(output):
        path = _short(match.group(1))
        return f"{path} is not executable: run chmod +x {path} first, or bash {path}"
    if re.search(r"Permission denied|Operation not permitted|EACCES|PermissionError", output):
        return "permission denied: work on the files in your working folder (not system files)"
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


def not_found(command: str, exit_code: int, output: str) -> str | None:
    if match := _NO_RULE.search(output):
        return (
            f"make has no target '{_short(match.group(1))}': check the Makefile's targets "
            "and that its sources exist"
        )
    if "not a git repository" in output:
        return "this folder is not a git repository: run git init first"
    match = _MISSING_PATH.search(output)
    if match is None and not re.search(r"No such file|does not exist|FileNotFound", output):
        return None
    path = next((g for g in match.groups() if g), "") if match else ""
    what = f"{_short(path)} does not exist: " if path else ""
    return f"{what}check the path with ls; the task's files are in your working folder"


_BAD_USAGE = re.compile(
    r"invalid option|unrecognized option|unknown option|illegal option|missing operand"
    r"|unrecognized arguments|requires an argument|invalid argument|^usage:|Try '\S+ --help'",
    re.MULTILINE | re.IGNORECASE,
)


def usage(command: str, exit_code: int, output: str) -> str | None:
    if not _BAD_USAGE.search(output):
        return None
    name = _short(_command_name(command, -1) or "the command")
    return (
        f"{name} was called wrongly: check `{name} --help | head -30` and use only options "
        "listed there"
    )


_QUIET_FALSE = {
    "grep": "grep found no matching line (exit 1 is not an error): the text is not there",
    "diff": "exit 1 from diff means the files differ: the lines shown are the differences",
    "cmp": "exit 1 from cmp means the files differ",
    "test": "the test was false (exit 1 is not an error)",
    "[": "the test was false (exit 1 is not an error)",
}


def quiet_false(command: str, exit_code: int, output: str) -> str | None:
    """Exit 1 from grep/diff/test is an answer, not an error."""
    name = _command_name(command, -1)
    if exit_code != 1 or name not in _QUIET_FALSE:
        return None
    return _QUIET_FALSE[name]


def unknown(command: str, exit_code: int, output: str) -> str:
    """The step for a failure of no known kind: read the traceback, or the last lines."""
    if "Traceback (most recent call last)" in output:
        last = [line for line in output.strip().splitlines() if line.strip()][-1]
        error = _short(last.split(":", 1)[0].strip())
        return f"{error}: read the traceback's last line and the line of your file above it; fix it"
    return (
        f"exit code {exit_code}: read the last lines of the output and change something "
        "before running it again"
    )


def _command_name(command: str, index: int) -> str:
    """The name of the simple command at `index` (0 the first; -1 the last, whose exit code is
    the whole command's)."""
    commands = split_commands(command)
    words = read_words(commands[index].text) if commands else None
    return words.name if words is not None else ""
