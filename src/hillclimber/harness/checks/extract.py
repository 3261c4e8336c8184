"""Checks read out of an instruction and the starting workspace by generic rules — never from
the task's tests or its solution, and nothing that knows any one task.

- a file the instruction names that is not there yet must exist and not be empty; with a
  known extension it must parse (JSON, CSV, TOML, YAML; a program in Python or bash, and one
  to change must parse after as it did before: `sources.py`);
- an existing file a sentence says to change (fix, edit, replace…) must be changed, and hold
  what the sentence quotes for it (`change `A` to `B``); when the instruction says nothing else
  may change, A is gone from it (as a word of its own) and its lines differ from the start only
  where A became B;
- a file to create "with exactly these lines:" holds those lines; where the instruction speaks
  of no copy, a new file is not a named input, nor the example it shows of the file, copied,
  nor holds a name or code the example made up (`copies.py`);
- a script the instruction calls executable is executable (`commands.py`), and the form its
  examples show (`shape.py`);
- a command the instruction says to run or build with must succeed;
- a file it says to leave alone stays as it was.

Each rule is kept only where it fires on more than one task of every instruction we have, or
on one it was not written from (`benchmarks/rules.py`): the rules that knew one built-in task
(a listing, a word count, an append, a copy, a commit, a script's printed line, a table's
header keys) are gone.
"""

from __future__ import annotations

import posixpath
import re
from functools import partial

from hillclimber.harness.checks.base import Check, made_by
from hillclimber.harness.checks.commands import executables, runnable
from hillclimber.harness.checks.copies import not_copies
from hillclimber.harness.checks.edits import (
    FileLacks,
    FileOnlyReplaced,
)
from hillclimber.harness.checks.kinds import (
    CommandSucceeds,
    FileChanged,
    FileContains,
    FileExists,
    FileHasText,
    FileParses,
    FileUnchanged,
)
from hillclimber.harness.checks.ordered import sorted_lists
from hillclimber.harness.checks.rounding import rounding_checks
from hillclimber.harness.checks.shape import literal, shape_checks
from hillclimber.harness.checks.sources import source_checks
from hillclimber.harness.checks.stand_ins import told
from hillclimber.harness.checks.text import Sentence, sentences
from hillclimber.harness.checks.workspace import Workspace
from hillclimber.harness.instruction import (
    FORBID,
    Where,
    protected_files,
    relocated,
    search_roots,
)
from hillclimber.sandbox import APP, Sandbox
from hillclimber.sandbox.files import same_name

_CHANGE = ("change", "changes", "fix", "edit", "modify", "update", "append", "add", "replace",
           "set", "insert", "remove", "correct", "patch", "move")  # fmt: skip
"""Verbs that demand a file be changed (a goal check that it is). Narrower than the verbs that
keep a file out of the read-only inputs (`instruction._CHANGES`) on purpose: each list errs
toward what cannot block a right answer, fewer checks here, fewer refusals there."""
_MAKE = ("write", "writes", "create", "creates", "save", "saves", "store", "produce",
         "generate", "output", "put", "add", "copy", "convert", "list", "written", "created",
         "saved", "stored", "produced", "generated", "writing", "creating", "saving",
         "storing")  # fmt: skip
"""Verbs that say a file is to be made; said of a file that is not there yet, "must be created"
too: a file there at the start is an input."""
_SETTING = re.compile(r"^[\s>*#\d.-]*(?:\*\*[^*]*\*\*:?\s*)?an?\s", re.I)
"""`A workload file exists at …`: the task's setting (the file may be missing from it), not
what the result must have ("- The file `/tmp/out.json` exists")."""
_FORMATS = {".json": "json", ".csv": "csv", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml"}
_RUN = ("run", "running", "build", "builds", "built", "crashes", "fails", "execute", "compile")
_CONTAINING = re.compile(
    r"(?:containing|contains|(?<!header )line)\s+(?:exactly\s+|only\s+)?`([^`]+)`", re.I
)
"""Quoted text a file holds (a header is the table's form, not a value: `shape.py`)."""
_EXACT = re.compile(r"\b(?:exactly|only line|only lines|nothing else)\b", re.I)
_FROM_TO = re.compile(r"`?([\w.=:/-]*\w)`?\s+to\s+`?([\w.=:/-]*\w)`?", re.I)
_KEEP_REST = re.compile(
    r"nothing else (?:may|must|should|can) change|every other line|all other lines|"
    r"byte for byte|the rest of the file",
    re.I,
)


def extract(
    instruction: str, sandbox: Sandbox, workdir: str = APP, where: Where | None = None
) -> list[Check]:
    """Every check the rules find (possibly some twice; goal checks that already pass are
    not dropped here: `build_checks` runs them on the untouched workspace). `where` is
    `instruction.relocated`, looked up here unless the trial already did (`TaskPaths.where`)."""
    here = Workspace(sandbox, workdir, search_roots(instruction, workdir))
    if where is None:
        where = relocated(instruction, workdir, here.exists, partial(same_name, sandbox))
    said = sentences(instruction, workdir, where)
    protected = {p for p in protected_files(instruction, workdir, where) if here.is_file(p)}
    found: list[Check] = made_by("protected", [FileUnchanged(p) for p in sorted(protected)])
    named = [p for s in said for p in s.paths]
    written = {p for s in said for p in s.paths if p in s.text}
    keep_rest = _KEEP_REST.search(" ".join(instruction.split())) is not None
    stand_ins_told = told(instruction)
    for index, sentence in enumerate(said):
        found += made_by("new_files", _new_files(sentence, here, written, said, stand_ins_told))
        found += made_by("commands", _commands(sentence, here))
        if FORBID.search(" ".join(sentence.text.split())):
            continue  # "Do not change …": the invariants say it
        targets = sentence.paths or _subject(said, index)
        changed = _changed_files(
            sentence, targets or named, here, protected, named=not targets, keep_rest=keep_rest
        )
        found += made_by("changed_files", changed)
    new_files = {c.path for c in found if isinstance(c, FileExists)}
    changed_files = {c.path for c in found if isinstance(c, FileChanged)}
    found += made_by("sources", source_checks(new_files, changed_files))
    found += made_by("not_copies", not_copies(instruction, said, new_files, here, found))
    found += made_by("executables", executables(said, new_files))
    found += made_by("shape", shape_checks(said, new_files))
    found += made_by("rounding", rounding_checks(said, new_files))
    found += made_by("sorted", sorted_lists(said, new_files))
    return found


def _subject(said: list[Sentence], index: int) -> list[str]:
    """The file a sentence is about when it names none: the one the sentence before it opened
    with ("/app/log.txt is a log file… Append a line…")."""
    if index == 0:
        return []
    before = said[index - 1]
    first = before.paths[0] if before.paths else None
    opens = first is not None and before.text.startswith(first) and " is " in before.text[:120]
    return [first] if opens and first is not None else []


def _is_named_file(path: str) -> bool:
    """A path that reads as a file name (`report.csv`), not a number (`91.5`) or an
    abbreviation (`e.g`), anywhere a task may put its results (`/app`, `/workspace`, `/tmp`,
    `/opt/…`: not the kernel's folders)."""
    stem, ext = posixpath.splitext(posixpath.basename(path))
    wordy = any(c.isalpha() for c in ext) and (len(stem) > 1 or len(ext) > 2)
    return wordy and not path.startswith(_KERNEL)


_KERNEL = ("/proc/", "/sys/", "/dev/")


def _new_files(
    sentence: Sentence,
    here: Workspace,
    written: set[str],
    said: list[Sentence],
    stand_ins_told: tuple[str, ...],
) -> list[Check]:
    """Files a sentence says to make (`write`, `create`, `save` … or `into FILE`) that are not
    there yet: to exist, parse, and hold a quoted block."""
    checks: list[Check] = []
    exists = sentence.has("exists", "exist") and not _SETTING.match(sentence.text)
    if not sentence.has(*_MAKE) and " into " not in sentence.text and not exists:
        return checks
    for path in sentence.paths:
        if not _is_named_file(path) or here.info(path) is not None:
            continue
        relative = path.removeprefix(here.workdir.rstrip("/") + "/")
        if path not in written and any(o.endswith("/" + relative) for o in written):
            continue  # `docs/usage.md` said of /app/repo/docs/usage.md
        if path not in written and here.elsewhere(posixpath.basename(path)):
            continue  # `stock.csv` said of /app/data/stock.csv: there already, an input
        checks.append(FileExists(path, told=stand_ins_told))
        fmt = _FORMATS.get(posixpath.splitext(path)[1])
        if fmt is not None:
            checks.append(FileParses(path, fmt))  # type: ignore[arg-type]
        if sentence.block and literal(sentence, said) and not _prints(sentence):
            exact = _EXACT.search(" ".join(sentence.text.split())) is not None
            checks.append(FileHasText(path, sentence.block.strip("\n"), only=exact))
        checks += _quoted_content(sentence, path)
    return checks


def _changed_files(
    sentence: Sentence,
    targets: list[str],
    here: Workspace,
    protected: set[str],
    *,
    named: bool,
    keep_rest: bool,
) -> list[Check]:
    """Existing files a sentence says to change: changed, and holding what it quotes. A
    sentence that names no file ("the port must move from 8080 to 9090") is about the named
    files that hold what it changes (`named`). Where nothing else may change (`keep_rest`),
    what is changed from is gone, and nothing but it changed."""
    checks: list[Check] = []
    if not sentence.has(*_CHANGE):
        return checks
    pairs = _value_pairs(sentence.text)
    for path in dict.fromkeys(targets):
        if path in protected or not here.is_file(path):
            continue
        text = here.text(path)
        changes = [(old, new) for old, new in pairs if old in text and new not in text]
        if named and not changes:
            continue
        checks.append(FileChanged(path))
        checks += [FileContains(path, new) for _, new in changes]
        if keep_rest:
            checks += [FileLacks(path, old, becomes=new) for old, new in changes]
            checks += [FileOnlyReplaced(path, old, new, text) for old, new in changes]
    return checks


def _value_pairs(text: str) -> list[tuple[str, str]]:
    """The "A to B" of a sentence that are changes of a value: "from A to B", two quoted
    values (`DEBUG=false` to `DEBUG=true`), or two values that look like settings (a digit, `=`,
    `:`, `/`, `.`) — never two plain words ("needs to fix", "want to identify")."""
    pairs = []
    for match in _FROM_TO.finditer(text):
        old, new = match.group(1), match.group(2)
        said_from = re.search(r"\bfrom\s*$", text[: match.start()], re.I) is not None
        quoted = match.group(0).startswith("`") and match.group(0).endswith("`")
        if said_from or quoted or (_VALUE.search(old) and _VALUE.search(new)):
            pairs.append((old, new))
    return pairs


_VALUE = re.compile(r"[\d=:/.]")


def _quoted_content(sentence: Sentence, path: str) -> list[Check]:
    return [FileHasText(path, text.strip()) for text in _CONTAINING.findall(sentence.text)]


_OFFERED = re.compile(
    r"\b(?:you|one)\s+(?:can|may|could|might)\b|\bfor\s+(?:example|instance)\b|\be\.g\.", re.I
)
"""A command offered as a way to try things ("You can test any password by running:"), its
arguments made up: no requirement that it succeed."""


def _prints(sentence: Sentence) -> bool:
    return sentence.has("print", "prints", "output", "outputs")


def _commands(sentence: Sentence, here: Workspace) -> list[Check]:
    """Commands the sentence says to run or build with (`make`, `gcc -o …`, a test run); not
    a folder that is there ("the project at `/workspace/parallel_compute` … runs")."""
    if not sentence.has(*_RUN) or _OFFERED.search(sentence.text):
        return []
    quoted = [c.strip() for c in (*sentence.code, *([sentence.block] if sentence.block else []))]
    return [CommandSucceeds(c) for c in quoted if runnable(c) and not _a_folder(c, here)]


def _a_folder(command: str, here: Workspace) -> bool:
    """Whether the whole command is one path, to a folder that is there."""
    words = command.split()
    return len(words) == 1 and (info := here.info(words[0])) is not None and info.kind == "dir"
