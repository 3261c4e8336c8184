"""Checks read from what an instruction says its result is, however it is worded: a count of an
input file's words or lines (worked out here from the input, so that the answer must agree with
it), a command it gives as an example with the output it must print, a script it calls
executable. Each rule reads the sentence's structure (a count phrase naming an input file, a
quoted command followed by a printing verb and a quoted output), never one task's wording; the
tests hold several phrasings of each and instructions where each must not fire.
"""

from __future__ import annotations

import csv
import io
import posixpath
import re
import shutil
from collections.abc import Iterator

from hillclimber.harness.checks.base import Check, made_by
from hillclimber.harness.checks.derived import FileHasRecords, FileHoldsValue, FileListsNames
from hillclimber.harness.checks.kinds import CommandSucceeds, FileExecutable
from hillclimber.harness.checks.text import Sentence
from hillclimber.sandbox import OutsideSandbox, Sandbox
from hillclimber.sandbox.base import STANDARD_PATH
from hillclimber.sandbox.files import read_text
from hillclimber.shell.words import read_words

_UNITS = {"word": "words", "line": "lines", "character": "characters", "char": "characters",
          "byte": "bytes"}  # fmt: skip
_UNIT = r"(?P<unit>words?|lines?|characters?|chars?|bytes?)"
_PATH = r"`?(?P<path>/?[\w][\w./-]*)`?"
_COUNT = re.compile(
    rf"\b(?:count(?:ing)?|number of|how many)\s+(?:the\s+|all\s+)?{_UNIT}\s+"
    rf"(?:(?:are|are there|there are)\s+)?(?:in|of)\s+(?:the\s+file\s+)?{_PATH}",
    re.I,
)
_HOW_MANY_HAS = re.compile(
    rf"\bhow many\s+{_UNIT}\s+(?:does|do)\s+(?:the\s+file\s+)?{_PATH}\s+(?:contain|have|hold)",
    re.I,
)
_QUALIFIED = re.compile(
    r"^\W*(?:that|which|where|with|matching|containing|contain|starting|ending|whose|"
    r"excluding|except|not|without|per|for each|by|in each)\b",
    re.I,
)
"""Words after the input that narrow what is counted: then the count is not the file's."""
_NUMBER_ONLY = re.compile(
    r"\b(?:only|just) the (?:number|count|total)\b|\bthe (?:number|count) only\b|"
    r"\bnothing else\b|\bno other text\b",
    re.I,
)
_VERB = r"\b(?:write|save|store|put|output|print|record)s?\s+"
_WRITE_IT = re.compile(
    rf"{_VERB}(?:only\s+|just\s+)?(?:the|that|this)\s+(?:count|number|answer|result|total)\b"
    r"(?!\s+of\b)",
    re.I,
)
"""What is written is the answer itself ("save the answer in B", "store the result in B")."""
_WRITE_COUNT = re.compile(rf"{_VERB}(?:the\s+)?(?:number|count)\s+of\b", re.I)
"""The count phrase is what is written ("write the number of lines in A to B")."""

_EXAMPLE = re.compile(
    r"`(?P<command>[^`\n]+)`\s+(?:should\s+|must\s+|will\s+|would\s+)?"
    r"(?:print|prints|output|outputs|display|displays|show|shows|echo|echoes)\s+"
    r"(?:exactly\s+|the\s+line\s+)?`(?P<output>[^`\n]+)`",
    re.I,
)
_PLACEHOLDER = re.compile(r"<[^>]+>|\.\.\.|…")
"""Words standing for a value in an example (`<name>`, `...`); in a command capitals do too
(`NAME`, `FILE`: `_CAPS`)."""


def meaning_checks(
    said: list[Sentence], sandbox: Sandbox, workdir: str, new_files: set[str]
) -> list[Check]:
    """The checks the rules of this module find; `new_files` are the files the instruction
    makes (not there yet)."""
    return [
        *made_by("counts", _counts(said, sandbox, new_files)),
        *made_by("records", _records(said, sandbox, new_files)),
        *made_by("listings", _listings(said, sandbox, new_files)),
        *made_by("examples", _examples(said, workdir)),
        *made_by("executables", _executables(said, new_files)),
    ]


def _counts(said: list[Sentence], sandbox: Sandbox, new_files: set[str]) -> Iterator[Check]:
    """ "Count the words in A … write only the number to B": B holds A's count, worked out
    here the ways the words can be read (`wc -w`; lines with or without a last newline)."""
    for index, sentence in enumerate(said):
        for match in (*_COUNT.finditer(sentence.text), *_HOW_MANY_HAS.finditer(sentence.text)):
            if _QUALIFIED.match(sentence.text[match.end() :]):
                continue
            source = _resolve(match.group("path"), sentence)
            text = read_text(sandbox, source) if source else None
            if text is None:
                continue
            output = _number_output(said, index, new_files)
            values = _count(text, _UNITS[match.group("unit").lower().rstrip("s")])
            if output is not None and values:
                yield FileHoldsValue(output, values)


def _resolve(written: str, sentence: Sentence) -> str | None:
    """The sandbox path among the sentence's paths that `written` names."""
    name = written.rstrip(".,:;")
    for path in sentence.paths:
        if path == name or path.endswith("/" + name.lstrip("./")):
            return path
    return None


def _number_output(said: list[Sentence], index: int, new_files: set[str]) -> str | None:
    """The one new file that holds only the count, named in the count's sentence or the next
    one with words that say so: "only the number", "the answer", or the count itself as what
    is written ("write the number of lines in A to B")."""
    for sentence in said[index : index + 2]:
        outputs = [p for p in sentence.paths if p in new_files]
        if len(outputs) != 1:
            continue
        direct = sentence is said[index] and _WRITE_COUNT.search(sentence.text)
        if _NUMBER_ONLY.search(sentence.text) or direct or _WRITE_IT.search(sentence.text):
            return outputs[0]
    return None


def _count(text: str, unit: str) -> tuple[str, ...]:
    if unit == "words":
        if any(ch.isspace() and ch not in " \t\n\r\f\v" for ch in text):
            return ()  # whitespace only Unicode calls so: two readings, none sure
        return (str(len(text.split())),)
    if unit == "lines":
        newlines = text.count("\n")
        lines = len(text.splitlines())
        return tuple(dict.fromkeys((str(newlines), str(lines))))
    if unit == "characters":
        return tuple(dict.fromkeys((str(len(text)), str(len(text.rstrip("\n"))))))
    return (str(len(text.encode())),)


_TABLE = (".csv", ".tsv")
_ROW_OBJECTS = re.compile(
    r"\b(?:array|list) of (?:json )?objects\b|\bone (?:json )?object (?:per|for each|for every) "
    r"(?:data )?(?:row|record|line)\b",
    re.I,
)
_HEADER_KEYS = re.compile(
    r"\bheader(?:'s)?\b[^.]*\b(?:as|are the) (?:the )?(?:keys|field names|property names)\b|"
    r"\b(?:keys|field names)\b[^.]*\b(?:from|of|in) the header\b",
    re.I,
)


def _records(said: list[Sentence], sandbox: Sandbox, new_files: set[str]) -> Iterator[Check]:
    """A table (CSV, TSV) turned into a new JSON file of one object per row: as many objects
    as the table has data rows, and — where the instruction says the header names the keys —
    those keys."""
    text = _flat(said)
    if not _ROW_OBJECTS.search(text):
        return
    tables = [p for s in said for p in s.paths if p.endswith(_TABLE) and p not in new_files]
    named = dict.fromkeys(p for s in said for p in s.paths)
    outputs = [p for p in named if p.endswith(".json") and p in new_files]
    if len(set(tables)) != 1 or len(outputs) != 1:
        return
    table = read_text(sandbox, tables[0])
    if table is None:
        return
    delimiter = "\t" if tables[0].endswith(".tsv") else ","
    rows = [row for row in csv.reader(io.StringIO(table), delimiter=delimiter) if row]
    if len(rows) < 2 or len(set(rows[0])) != len(rows[0]):
        return
    keys = tuple(rows[0]) if _HEADER_KEYS.search(text) else ()
    if keys:
        yield FileHasRecords(outputs[0], keys, len(rows) - 1)


_LIST = re.compile(
    r"\b(?:list|write\s+(?:out\s+)?the\s+names\s+of)\s+(?:all\s+)?(?:the\s+)?"
    r"(?:contents|entries|files and folders|names|files)\s+"
    r"(?:of|in)\s+(?:the\s+)?(?:directory|folder)?\s*`?(?P<dir>/[\w./-]*)`?",
    re.I,
)
_PER_LINE = re.compile(r"\bone (?:name|entry|file|item) (?:per|a|on each) line\b", re.I)
_DEEP = re.compile(r"\brecursive(?:ly)?\b|\bsub-?(?:folder|director)(?:y|ies|s)? too\b", re.I)
_HIDDEN = re.compile(r"\bhidden\b|\bdot ?files?\b|\bls -a\b", re.I)
_NOT_HIDDEN = re.compile(
    r"\b(?:not|no|without|except|excluding|leav(?:e|ing) out|skip(?:ping)?|ignor(?:e|ing)|"
    r"omit(?:ting)?)\b[^.]*\bhidden\b",
    re.I,
)


def _listings(said: list[Sentence], sandbox: Sandbox, new_files: set[str]) -> Iterator[Check]:
    """ "List the contents of the folder D into F, one name per line": F holds D's entries as
    they are now, in any order (hidden ones only where the instruction says, the listing
    file itself either way)."""
    text = _flat(said)
    if not _PER_LINE.search(text) or _DEEP.search(text):
        return
    for sentence in said:
        match = _LIST.search(sentence.text)
        outputs = [p for p in sentence.paths if p in new_files]
        if match is None or len(outputs) != 1:
            continue
        folder = posixpath.normpath(match.group("dir"))
        try:
            names = sandbox.listdir(folder)
        except (OSError, OutsideSandbox):
            continue
        hidden = [n for n in names if n.startswith(".")]
        shown = [n for n in names if not n.startswith(".")]
        listed = posixpath.basename(outputs[0])
        optional: tuple[str, ...] = (listed,) if posixpath.dirname(outputs[0]) == folder else ()
        if hidden and not _NOT_HIDDEN.search(text):
            if _HIDDEN.search(text):
                continue  # hidden ones asked for in a way not read here
            optional += tuple(hidden)
        yield FileListsNames(outputs[0], tuple(shown), optional)


def _flat(said: list[Sentence]) -> str:
    """The whole instruction on one line (its sentences wrap where its author broke lines)."""
    return " ".join(" ".join(s.text.split()) for s in said)


def _examples(said: list[Sentence], workdir: str) -> Iterator[Check]:
    """ "For example, `./greet.sh Ann` prints `Hello, Ann!`": that command prints that."""
    for sentence in said:
        for match in _EXAMPLE.finditer(sentence.text):
            command, output = match.group("command").strip(), match.group("output").strip()
            if _CAPS.search(command) or _PLACEHOLDER.search(command + " " + output):
                continue
            if runnable(command):
                yield CommandSucceeds(command, output=output, cwd=workdir)


def _executables(said: list[Sentence], new_files: set[str]) -> Iterator[Check]:
    """A file to make that the instruction calls executable must be executable; not a data
    file the same sentence names ("produces a working executable … Save your solution to
    `/workspace/fix.txt`"). A sentence that names no file ("The script must be executable")
    speaks of the one script to make, where there is one."""
    scripts = [p for p in new_files if posixpath.splitext(p)[1] in _SCRIPT_EXTENSIONS]
    for sentence in said:
        if not sentence.has("executable"):
            continue
        for path in sentence.paths:
            if path in new_files and posixpath.basename(path) and not _FOLDER_OR_DATA.search(path):
                yield FileExecutable(path)
        if not sentence.paths and _SCRIPT_EXECUTABLE.search(sentence.text) and len(scripts) == 1:
            yield FileExecutable(scripts[0])


_SCRIPT_EXTENSIONS = (".sh", ".bash", ".py", ".pl", ".rb")
_SCRIPT_EXECUTABLE = re.compile(
    r"\b(?:script|it)\s+(?:must|should|needs?\s+to|has\s+to)\s+be\s+(?:\w+\s+and\s+)?executable\b"
    r"|\bmake\s+(?:it|the\s+script)\s+executable\b|\bexecutable\s+(?:\w+\s+)?script\b",
    re.I,
)
"""The script itself called executable ("The script should be executable", "Format: Executable
bash script"), not a program it makes ("your shell script produces an executable")."""


_MUTATES = frozenset(
    ("git", "rm", "mv", "cp", "pip", "pip3", "apt", "apt-get", "curl", "wget", "npm", "chmod",
     "chown", "mkdir", "touch", "tee", "sed", "dd", "ln", "kill", "sudo")
)  # fmt: skip
_CAPS = re.compile(r"(?<![\w/.-])[A-Z][A-Z_]{2,}(?![\w/.-])")
_SLOT = re.compile(r"<[A-Za-z_][\w -]*>")
"""A usage's slot: `python3 solver.py <cnf_file>` (a redirection has no word right after `<`
and a `>` after it)."""


def runnable(command: str) -> bool:
    """A whole command line (not a placeholder usage like `sum FILE`) that only reads or
    builds, whose program is here or a path."""
    if not command or "\n" in command.strip() or _CAPS.search(command) or _SLOT.search(command):
        return False
    if command.strip() in ("true", "false"):
        return False  # a value ("followed by `true` or `false`"), not a command
    words = read_words(command.split("&&")[-1])
    if words is None or not words.args:
        return False
    if words.name in _MUTATES:
        return False
    first = words.args[0]
    alone = len(words.args) == 1
    if first.endswith("/") or (
        alone and (_FOLDER_OR_DATA.search(first) or _NO_PROGRAM.search(first))
    ):
        return False  # `/workspace/data/`, `/app/input.csv`, `/app/Dockerfile`: not a command
    return first.startswith(("/", "./")) or shutil.which(words.name, path=STANDARD_PATH) is not None


_FOLDER_OR_DATA = re.compile(r"\.(?:csv|json|txt|log|md|yaml|yml|xml|db|dat|bed|tsv)$", re.I)
_NO_PROGRAM = re.compile(
    r"(?:^|/)(?:Dockerfile|Containerfile|Makefile|CMakeLists\.txt|Jenkinsfile|Vagrantfile|"
    r"Procfile|Gemfile|Pipfile|README|LICENSE)$"
    r"|\.(?:c|h|cc|cpp|hpp|go|rs|java|ts|sql|proto|conf|cfg|ini|toml|env|html|css|tf|lock|pid)$"
)
"""A file named alone that is built from, configured or read, never run: a build file (the
TermiGen task's "`/workspace/app/Dockerfile` succeeds" ran the Dockerfile), a source or a
configuration file, a lock or PID file."""
