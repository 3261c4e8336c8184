"""What a task's Python programs fetch from the network while they run: a URL handed to a call
that fetches (`requests.get`, `urlopen`, `urlretrieve` …), and a model or dataset loaded from the
Hugging Face hub by name (`from_pretrained("org/model")`, `load_dataset("org/data")`).

A build's downloads are read from its shell steps (`setup.requirements`); a program's are not
commands, so `tasks check` read nothing of them: a reference solution that loads a model from
huggingface.co, or tests that download an archive from github.com, failed only once run. The
programs are read, never run: their syntax tree, each fetching call, its first argument (or
`url=`) as a literal, an f-string's literal head, or a name the program binds to one. A URL
that is only written down (an expected value, a docstring) fetches nothing and is not read.
Each fetch is said as a need (`download https://…`, `download from Hugging Face: org/model`)
whose host `image.reach` checks.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from hillclimber.shell.reader import commands, heredoc_bodies
from hillclimber.task import Task

FETCHERS = frozenset(
    ("get", "post", "head", "request", "urlopen", "urlretrieve", "Request", "stream",
     "download", "download_file", "fetch", "wget")
)  # fmt: skip
"""The calls, by name or attribute, that fetch the URL given first (or as `url=`)."""
HUB_LOADERS = frozenset(
    ("from_pretrained", "load_dataset", "snapshot_download", "hf_hub_download",
     "SentenceTransformer", "pipeline")
)  # fmt: skip
"""The calls that load a model or dataset from the Hugging Face hub when given its name."""
_PYTHON = re.compile(r"python[\d.]*")
_BY_NAME = frozenset(("from_pretrained", "SentenceTransformer"))
"""Loaders that take a model's bare hub name (`bert-base-uncased`); a dataset's bare name may be
a built-in format (`load_dataset("csv")`), a pipeline's a task (`pipeline("summarization")`)."""
_URL = re.compile(r"^(?:https?|ftp)://[^\s'\"]+")
_LOCAL = re.compile(r"^(?:https?://)?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?:[:/]|$)")
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*(?:/[\w.-]+)?$")
"""`org/model` or a bare `model` name: not a path (`/app/model`, `./cache`)."""


def script_fetches(script: str) -> list[str]:
    """The fetches of the Python in a script (`programs`)."""
    return [need for tree in programs(script) for need in _fetched(tree)]


def programs(script: str) -> list[ast.Module]:
    """The Python programs a script is or holds, parsed: itself, its heredocs, its `python -c`
    code."""
    whole = _parsed(script)
    if whole is not None:
        return [whole]
    inline = [
        cmd.args[cmd.args.index("-c") + 1]
        for cmd in commands(script)
        if _PYTHON.fullmatch(cmd.name) and "-c" in cmd.args[1:-1]
    ]
    found = (_parsed(code) for code in [*heredoc_bodies(script), *inline])
    return [tree for tree in found if tree is not None]


def fetches(source: str) -> list[str]:
    """Each fetch of one Python program, as a need, in the order written (each once)."""
    tree = _parsed(source)
    return [] if tree is None else _fetched(tree)


def _fetched(tree: ast.Module) -> list[str]:
    bound = _bound_texts(tree)
    found: list[str] = []
    for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
        name = _called(call)
        argument = _argument(call, "model" if name == "pipeline" else "url")
        text = _text(argument, bound) if argument is not None else None
        if text is None:
            continue
        url = _URL.match(text)
        if name in FETCHERS and url is not None and not _LOCAL.match(text):
            found.append(f"download {url.group(0)}")
        elif name in HUB_LOADERS and _HUB_NAME.match(text) and ("/" in text or name in _BY_NAME):
            found.append(f"download from Hugging Face: {text} ({name})")
    return list(dict.fromkeys(found))


def _parsed(text: str) -> ast.Module | None:
    """The program's syntax tree (None: empty, or not Python)."""
    if not text.strip():
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _called(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _argument(call: ast.Call, keyword: str) -> ast.expr | None:
    """The call's first argument, or the one given by `keyword`."""
    given = {k.arg: k.value for k in call.keywords if k.arg}
    if keyword in given:
        return given[keyword]
    return call.args[0] if call.args else None


def _bound_texts(tree: ast.Module) -> dict[str, str]:
    """Each name the program binds once to a text (`BASE = "https://…"`), as far as it reads."""
    seen: dict[str, list[str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                seen.setdefault(target.id, []).append(_text(node.value, {}))
    return {name: texts[0] for name, texts in seen.items() if len(texts) == 1 and texts[0]}


def _text(node: ast.expr, bound: dict[str, str]) -> str | None:
    """A literal text, an f-string's head up to its first value, or a bound name's text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.JoinedStr) and node.values:
        return "".join(_heads(node.values, bound)) or None
    return None


def _heads(values: list[ast.expr], bound: dict[str, str]) -> Iterator[str]:
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            yield value.value
            continue
        if isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
            text = bound.get(value.value.id)
            if text is not None:
                yield text
                continue
        return


def solution_fetches(task: Task) -> list[str]:
    """What the reference solution's programs fetch: the Python of its script, and the Python
    files beside it."""
    found: list[str] = []
    if task.solution is not None and task.solution.is_file():
        found += script_fetches(task.solution.read_text(errors="replace"))
        found += _files_fetches(task.solution.parent, skip=task.solution)
    elif task.solution_inline is not None:
        found += script_fetches(task.solution_inline)
    return list(dict.fromkeys(found))


def tests_fetches(task: Task) -> list[str]:
    """What the task's tests fetch while they run: their Python files."""
    folder = task.verification.tests_dir
    return _files_fetches(folder) if folder is not None and folder.is_dir() else []


def _files_fetches(folder: Path, skip: Path | None = None) -> list[str]:
    found: list[str] = []
    for path in sorted(folder.rglob("*.py")):
        if path != skip and path.stat().st_size <= _SOURCE_BYTES:
            found += fetches(path.read_text(errors="replace"))
    return list(dict.fromkeys(found))


_SOURCE_BYTES = 1 << 20
