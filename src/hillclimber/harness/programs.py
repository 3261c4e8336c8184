"""Code the harness asks for apart from the loop — a computed answer (`climbing/computed.py`) —
as one shell command or as a short Python program (`ask.code`).

A 1.5B's one-liners joined `with` blocks and loops by `;` (a syntax error) or lost their quotes
in nested f-strings; a program of several lines has room for them. A program runs from a
here-document, so nothing of it is left in the workspace, and its prompt says which common
modules python3 has (the 1.5B imported yaml where it was missing, twice, told so in between);
a standard module it uses but forgot to import is imported for it (`with_imports`).
Either way the prompt shows the first lines of the input files, whose columns and separators
the code must know, and the outline of a JSON one (`outline.py`).
"""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from hillclimber.harness.acting.probe import modules_note, probe_commands, probe_modules
from hillclimber.harness.outline import outline
from hillclimber.harness.prompting.summary import first_lines
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import is_binary, read_bytes
from hillclimber.text import clip

MAX_COMMAND_TOKENS = 256
"""Room for a command: at 160 tokens the 1.5B's awk program was cut."""
MAX_PROGRAM_TOKENS = 512
"""Room for a program: at 384 tokens, 7 of the 1.5B's 44 programs on the dev split were cut
(and failed as `'(' was never closed`); most take 200-300."""
HEAD_LINES, HEAD_CHARS = 5, 400
"""How much of each input file the prompt shows."""
OUTLINE_BYTES = 2_000_000
"""The largest JSON input outlined (`outline.py`)."""
END = "HILLCLIMBER_PROGRAM"
"""The here-document's delimiter: a command holding it runs a program."""
_PYTHON_FENCE = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)


@dataclass(frozen=True)
class CodeAsk:
    """How code is asked for in a trial: a program (where python3 is there) or a command, and
    what its prompt shows of the inputs."""

    program: bool = False
    heads: str = ""
    """The first lines of the input files (`input_heads`)."""
    modules: dict[str, bool] = field(default_factory=dict)
    """For a program: which common modules python3 has."""

    @classmethod
    def probe(cls, sandbox: Sandbox, inputs: Sequence[str], *, program: bool) -> CodeAsk:
        """Asked as a program only where the sandbox has python3."""
        program = program and probe_commands(sandbox, ("python3",)).get("python3", False)
        modules = probe_modules(sandbox) if program else {}
        return cls(program, input_heads(sandbox, inputs), modules)

    @property
    def what(self) -> str:
        """The thing asked for, as the prompt templates name its texts (`compute.toml`)."""
        return "program" if self.program else "command"

    @property
    def max_tokens(self) -> int:
        return MAX_PROGRAM_TOKENS if self.program else MAX_COMMAND_TOKENS

    def shown(self, prompts: Prompts) -> str:
        """What the prompt shows between the task and the question."""
        heads = "\n\n" + prompts("compute.heads", heads=self.heads) if self.heads else ""
        modules = "\n" + modules_note(self.modules, prompts) if self.program else ""
        return heads + ("\n" if modules and not heads else "") + modules

    def source(self, answer: str) -> str:
        """The program of an answer where a program is asked for ("" else, or none in it)."""
        return program_in(answer) if self.program else ""


def input_heads(sandbox: Sandbox, paths: Sequence[str], most: int = 4) -> str:
    """`--- path ---` and the first lines of each input file that is text (of `most`), and
    the outline of one that is JSON."""
    blocks = []
    for path in list(paths)[:most]:
        head = read_bytes(sandbox, path, limit=HEAD_CHARS * 4)  # of a file of any size
        if head and not is_binary(head):
            text = first_lines(head.decode(errors="replace"), HEAD_LINES, HEAD_CHARS)
            blocks.append(f"--- {path} ---\n{text}{json_outline(sandbox, path, head)}")
    return "\n".join(blocks)


def json_outline(sandbox: Sandbox, path: str, head: bytes) -> str:
    """`(JSON: …)` on a line of its own where the file is JSON (or JSON Lines) of at most
    `OUTLINE_BYTES`, else ""."""
    if head.lstrip()[:1] not in (b"{", b"["):
        return ""
    whole = read_bytes(sandbox, path, limit=OUTLINE_BYTES + 1)
    if whole is None or len(whole) > OUTLINE_BYTES:
        return ""
    found = outline(whole.decode(errors="replace"))
    return f"\n({found})" if found else ""


def program_in(answer: str) -> str:
    """The program of an answer: its fenced block (closed or not; run even where it does not
    compile, so the error is said), else the answer itself where it compiles as Python; ""
    else (prose, or a command in a shell fence)."""
    fenced = _PYTHON_FENCE.search(answer)
    source = (fenced.group(1) if fenced else answer).strip("\n")
    if not source.strip() or END in source:
        return ""
    if fenced:
        return source
    try:
        compile(source, "<answer>", "exec")
    except (SyntaxError, ValueError):
        return ""
    return source


def run_program(source: str, into: str | None = None) -> str:
    """A command that runs `source` with python3 (its output sent to the file `into`), with
    the common modules it uses imported (`with_imports`)."""
    sent = f" > {shlex.quote(into)}" if into else ""
    return f"python3 -{sent} <<'{END}'\n{with_imports(source)}\n{END}"


def save_and_run(source: str, script: str) -> str:
    """A command that saves `source` as the Python script `script` (`with_imports`) and runs
    it."""
    where = shlex.quote(posixpath.dirname(script) or ".")
    saved = shlex.quote(script)
    program = with_imports(source)
    return f"mkdir -p {where} && cat > {saved} <<'{END}'\n{program}\n{END}\npython3 {saved}"


_COMMON = frozenset(
    ("os", "sys", "re", "json", "csv", "math", "glob", "subprocess", "statistics", "datetime",
     "time", "random", "itertools", "collections", "functools", "shutil", "hashlib", "string",
     "struct", "textwrap")
)  # fmt: skip
"""Standard modules a program may use without importing them: `with_imports` adds them."""


def with_imports(source: str) -> str:
    """`source` with one first line importing each common standard module it uses (`json.load`)
    but neither imports nor binds: the 1.5B's programs called `json.load` and `os.path.join`
    unimported, and failed with a NameError. The line goes after a `#!` line and `__future__`
    imports; source that does not parse is left as it is."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    bound: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            used.add(node.value.id)
    missing = sorted((used - bound) & _COMMON)
    if not missing:
        return source
    future = [n.end_lineno or n.lineno for n in tree.body if _is_future(n)]
    at = max(future, default=1 if source.startswith("#!") else 0)  # after these lines
    lines = source.splitlines(keepends=True)
    return "".join([*lines[:at], f"import {', '.join(missing)}\n", *lines[at:]])


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def is_program(command: str) -> bool:
    return END in command


def named(command: str) -> str:
    """A command as the model is told of it: quoted, or `program` for a program."""
    return "program" if is_program(command) else f"command `{clip(command, 120)}`"


def said(output: str, *, program: bool, prompts: Prompts | None = None) -> str:
    """What failed code said: a command's first line, a program's last (its traceback's
    error), with what a mistaken shape of the data means (`_SHAPES`, worded in `compute.toml`,
    [shapes])."""
    told = output.strip()
    if program:
        error = told.splitlines()[-1] if told else ""
        shape = next((name for pattern, name in _SHAPES if pattern.search(error)), "")
        meant = (prompts or shipped())(f"compute.shapes.{shape}") if shape else ""
        return clip(error, 160) + (f" ({meant})" if meant else "")
    return first_lines(told, 1, 160)


_SHAPES = (
    (re.compile(r"list indices must be integers|'list' object has no attribute"), "list"),
    (
        re.compile(
            r"string indices must be integers|'str' object has no attribute '(?:get|keys|items)'"
        ),
        "text",
    ),
    (re.compile(r"^KeyError: "), "key"),
    (re.compile(r"'NoneType' object has no attribute 'group'"), "pattern"),
    (re.compile(r"JSONDecodeError|Expecting value: line"), "json"),
)
"""Errors of code that took the data for another shape, and what they mean. Of 65 failures of
the 1.5B's programs on the dev split, 8 indexed a JSON list of records by a key (TypeError,
AttributeError) and 8 guessed keys (KeyError); later, 4 took `.group()` of a regex that matched
nothing and one parsed text as JSON."""
