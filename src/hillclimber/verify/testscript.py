"""Turn a task's test script into one that runs here without the internet.

Terminal-Bench test scripts (`tests/test.sh`, TB1 `run-tests.sh`) bootstrap their own tools:
`apt-get install curl`, the uv installer piped into `sh`, `uvx -w pytest==8.4.1 … pytest …`,
`pip install …`. We keep every other step of the script as written (its `cp` lines, its reward
file) and replace the bootstrap: packages it names go into a cached verifier environment, and
its pytest call runs with that environment's Python. What cannot be reproduced is reported.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from hillclimber.setup.pip import install_arguments
from hillclimber.setup.presence import normalize_pip_name
from hillclimber.shell.split import split_commands
from hillclimber.shell.words import read_words

PYTHON_VAR = "HC_PYTHON"
JUNIT_PATH = "/logs/verifier/hillclimber-junit.xml"


@dataclass
class TestScript:
    """The runnable script and what it needs."""

    text: str
    packages: list[str] = field(default_factory=list)
    apt_packages: list[str] = field(default_factory=list)
    """System packages the script installs; the caller checks which are missing here."""
    needs: list[str] = field(default_factory=list)
    """Steps we cannot reproduce here; the task is unsupported while any remain."""
    notes: list[str] = field(default_factory=list)
    """Differences from the original run (e.g. another Python version)."""
    runs_pytest: bool = False


def _words(segment: str) -> list[str]:
    words = read_words(segment)
    return list(words.args) if words is not None else segment.split()


_PIP_INSTALL = re.compile(
    r"^(?:(?:python3?|python3\.\d+)\s+-m\s+)?(?:uv\s+)?pip3?\s+install\b|^uv\s+add\b"
)
_VALUED = (
    r"-[pwif]|--python|--with(?:-editable|-requirements)?|--from|--constraints|--overrides"
    r"|--(?:default-)?index(?:-url|-strategy)?|--extra-index-url|--find-links"
)
"""uv's options that take a value, as `uvx`/`uv run` write them before the tool."""
_RUNNER = (
    r"(?:uvx|uv\s+run)"
    rf"(?:\s+(?:(?:{_VALUED})\s+\S+|-\S+))*\s+"
)
_INDEXES = frozenset({"-i", "--index", "--default-index", "--index-url", "--extra-index-url"})
_PYTEST = re.compile(
    rf"^(?P<runner>(?:{_RUNNER}|python3?(?:\.\d+)?\s+-m\s+)?)"
    r"pytest(?:@(?P<at>\S+)|(?P<pin>==\S+))?(?P<args>(?:\s.*)?)$"
)
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+")
_NOT_PACKAGES = frozenset({"pip", "pip3", "install", "uv", "add", "python", "python3"})
"""Bootstrap words, not test dependencies (`pip install -U pip`): the verifier environment
brings its own pip."""
_NOOP = ":"


def _uvx_packages(runner: str) -> list[str]:
    words = _words(runner)
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w in {"-w", "--with"}]


def _uvx_indexes(runner: str) -> list[str]:
    words = _words(runner)
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w in _INDEXES]


def translate(text: str, tests_dir: Path | None = None) -> TestScript:
    """The offline version of a test script: each simple command kept or replaced in place."""
    result = TestScript(text="")
    out = text
    commands = split_commands(text)
    replacements: list[tuple[int, int, str]] = []
    drop_pipe_target = False
    for index, command in enumerate(commands):
        if drop_pipe_target:
            drop_pipe_target = False
            replacements.append((command.start, command.end, _NOOP))
            continue
        replacement, downloader = _translate_command(command.text, result, tests_dir)
        if replacement is not None:
            replacements.append((command.start, command.end, replacement))
        following = commands[index + 1] if index + 1 < len(commands) else None
        between = text[command.end : following.start] if following else ""
        if downloader and following and "|" in between.replace("||", ""):
            drop_pipe_target = True  # `curl … | sh`: the installer never runs
    for start, end, replacement in reversed(replacements):
        out = out[:start] + replacement + out[end:]
    result.text = out
    result.packages = merge_packages(result.packages)
    return result


def merge_packages(specs: list[str]) -> list[str]:
    """One spec per package name: a pinned one (`==`) wins, else the most specific."""

    def rank(spec: str) -> tuple[bool, int]:
        return "==" in spec, len(spec)

    by_name: dict[str, str] = {}
    for spec in specs:
        match = _NAME.match(spec)
        name = normalize_pip_name(match.group(0) if match else spec)
        if name not in by_name or rank(spec) > rank(by_name[name]):
            by_name[name] = spec
    return sorted(by_name.values())


def _translate_command(
    command: str, result: TestScript, tests_dir: Path | None
) -> tuple[str | None, bool]:
    """(replacement text or None to keep it, whether it is a downloader)."""
    stripped = command.replace("\\\n", " ").strip()
    words = _words(stripped)
    if not words:
        return None, False
    head = words[0]
    if head in {"apt-get", "apt"}:
        _apt_install(words, result)
        return _NOOP, False
    if head in {"curl", "wget"}:
        _download(words, stripped, result)
        return _NOOP, True
    replaced_by = _environment_setup(words)
    if replaced_by is not None:
        result.notes.append(f"skipped `{stripped}`: {replaced_by}")
        return _NOOP, False
    if _PIP_INSTALL.match(stripped):
        _pip_install(words, result, tests_dir)
        return _NOOP, False
    match = _PYTEST.match(stripped)
    if match:
        return _pytest_call(match, result), False
    return None, False


def _apt_install(words: list[str], result: TestScript) -> None:
    """Note the system packages; the caller checks which of them are missing here."""
    if "install" in words:
        pkgs = [w for w in words[words.index("install") + 1 :] if not w.startswith("-")]
        result.notes.append(f"skipped apt-get install {' '.join(pkgs)}")
        result.apt_packages += pkgs


def _download(words: list[str], stripped: str, result: TestScript) -> None:
    """The uv installer is not needed (pytest runs from a cached environment); any other
    download cannot happen offline."""
    url = next((w for w in words if "://" in w), "")
    if "astral.sh/uv" in url or url.endswith("/uv/install.sh"):
        result.notes.append("skipped the uv installer; pytest runs from a cached environment")
    else:
        result.needs.append(f"the tests download {url or stripped}")


def _environment_setup(words: list[str]) -> str | None:
    """Why a command that prepares a Python environment is not needed here, if it is one."""
    if words[0] in {"source", "."} and len(words) > 1 and words[1].endswith(("/env", "/activate")):
        return "the verifier environment is on PATH"
    if words[0] == "uv" and len(words) > 1 and words[1] in {"venv", "init", "sync", "python"}:
        return "the verifier environment replaces it"
    return None


def _pip_install(words: list[str], result: TestScript, tests_dir: Path | None) -> None:
    """Take the packages of a `pip install`/`uv add` (its requirements files read from the
    task's tests folder) into the verifier environment."""
    start = next((i + 1 for i, word in enumerate(words) if word in ("install", "add")), 0)
    packages: list[str] = []
    for argument in install_arguments(words[start:]):
        if argument.kind == "package" and argument.value not in _NOT_PACKAGES:
            packages.append(argument.value)
        elif argument.kind == "requirements" and argument.value:
            packages += _requirements(argument.value, result, tests_dir)
    result.packages += packages
    result.notes.append(f"`pip install {' '.join(packages)}` went into the verifier environment")


def _requirements(path: str, result: TestScript, tests_dir: Path | None) -> list[str]:
    """The lines of a requirements file shipped with the tests; a need when it is not there."""
    found = tests_dir / Path(path).name if tests_dir else None
    if found is None or not found.is_file():
        result.needs.append(f"requirements file {path}")
        return []
    lines = found.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _pytest_call(match: re.Match[str], result: TestScript) -> str:
    """The pytest call rewritten to run with the verifier environment's Python."""
    runner = match.group("runner")
    pin = f"=={match.group('at')}" if match.group("at") else match.group("pin") or ""
    result.packages += [f"pytest{pin}", *_uvx_packages(runner)]
    if "-p " in runner or "--python" in runner:
        result.notes.append("tests run with the sandbox's python3, whichever version uvx asked for")
    for index in _uvx_indexes(runner):
        result.notes.append(f"the tests' packages come from PyPI, not from the index {index}")
    result.runs_pytest = True
    args = match.group("args")
    if "--ctrf" in args:
        result.packages.append("pytest-json-ctrf")
    # -P -s: neither the agent's /app (the working directory) nor its user site may come before
    # pytest; the user site is appended by the environment's .pth hook
    start = f"-c {shlex.quote(_CWD_LAST)}" if runner.startswith("python") else "-m pytest"
    return f'"${PYTHON_VAR}" -P -s {start} -p no:cacheprovider --junitxml={JUNIT_PATH}{args}'


_CWD_LAST = "import os, sys, pytest; sys.path.append(os.getcwd()); sys.exit(pytest.console_main())"
"""pytest, with the working folder at the end of the path: `python -m pytest` puts it first, and
tests import the agent's module from it (`os.chdir("/app"); from eigen import …`), but a file
there must not stand in for pytest or a package the tests import."""
