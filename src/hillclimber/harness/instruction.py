"""Reading the instruction: the paths it names, the files it says to leave alone, and how
complex the task is. Read once per trial; every part of the harness that needs a path of the
instruction or its class asks here.

- `named_paths`: the one resolver of a path the instruction names to a sandbox path;
- `outside_places`: where the work goes outside the working folder, by the paths it names;
- `protected_files`: the files a sentence says not to change ("Do not change /app/source.txt.",
  "Do not modify the database." of the one database it names);
- `classify`: the task's class (simple, moderate, complex), which sets the turn budget and
  whether the planner runs.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum

from hillclimber.sandbox import APP

NAMED = re.compile(
    r"(?:/app/)?(?<![\w/.-])[\w][\w./-]*\.[A-Za-z0-9]{1,6}\b|/app/[\w./-]+|"
    r"(?<![\w.:/-])/(?:[\w.-]+/)+[\w.-]*\.[A-Za-z0-9]{1,6}\b"
)
"""A path an instruction names: a file name (`report.csv`, `src/x.py`), anything under /app,
or an absolute path to a file elsewhere (`/tmp/result.json`, `/workspace/out.txt`; not a URL's
path)."""


Where = Mapping[str, str]
"""Where a file the instruction names by its bare name is, when it is not in the working
folder: its path there → its real path (`relocated`)."""


def named_paths(text: str, workdir: str = APP, where: Where | None = None) -> list[str]:
    """The paths `text` names, as sandbox paths (relative ones in `workdir`, or `where` they
    are), in order, each once; not a number or version (`1.40`, `v2.0.1`, `7.x`) nor an
    abbreviation (`e.g.`) read as a file name."""
    found: dict[str, None] = {}
    for match in NAMED.findall(text):
        name = match.rstrip(".")
        if _NOT_A_NAME.match(name) or ("/" not in name and _VERSION.match(name)):
            continue
        path = posixpath.normpath(posixpath.join(workdir, name))
        found[(where or {}).get(path, path)] = None
    return list(found)


_NOT_A_NAME = re.compile(r"^(?:e\.g|i\.e|a\.k\.a)$", re.I)
_VERSION = re.compile(r"^.*\.\d+$|^v?\d+(?:\.\d+)*\.x$", re.I)
"""A number or a version, not a file: `1.40`, `v2.0.1`, and a series (`Elasticsearch 7.x`,
`5.9.x`)."""

_ABSOLUTE = re.compile(r"(?<![\w.:/-])/[\w.-]+(?:/[\w.-]+)*/?")
"""An absolute path, of a file or a folder (not a URL's path)."""


def named_folders(text: str) -> list[str]:
    """The folders `text` names by their absolute path (`/data/genomics/`), in order, each
    once; not the kernel's (`/proc`, `/dev/null`) nor the root."""
    found: dict[str, None] = {}
    for match in _ABSOLUTE.findall(text):
        path = match.rstrip(".")
        if not path.endswith("/") and "." in posixpath.basename(path):
            continue  # a file (`/tmp/out.json`)
        folder = posixpath.normpath(path)
        if folder != "/" and not folder.startswith(("/proc", "/sys", "/dev")):
            found[folder] = None
    return list(found)


def search_roots(instruction: str, workdir: str) -> tuple[str, ...]:
    """Where a file the instruction names by its bare name may be: the working folder, then
    the folders it names outside it ("two BED files in `/data/genomics/`: `regions_a.bed`")."""
    inside = workdir.rstrip("/") + "/"
    outside = [f for f in named_folders(instruction) if not (f + "/").startswith(inside)]
    return (workdir, *outside)


def relocated(
    instruction: str,
    workdir: str,
    exists: Callable[[str], bool],
    same_name: Callable[[str, str], list[str]],
) -> dict[str, str]:
    """Where each file the instruction names by its bare name is, when it is not in the
    working folder: the one file of that name under it or in a folder the instruction names
    (`same_name(root, name)`: the files called `name` under `root`). "Data files in
    `/root/disk_data/`: `df_output.txt` …" names /root/disk_data/df_output.txt, not
    `df_output.txt` of the working folder (taken so, the data files were no input: no answer
    was computed from them, nor checked against a second computation). 51 of the 157 dev-split
    instructions name files by bare name and a folder outside the working one."""
    roots = search_roots(instruction, workdir)
    found: dict[str, str] = {}
    for path in named_paths(instruction, workdir):
        if posixpath.dirname(path) != workdir.rstrip("/") or exists(path):
            continue
        same = [p for root in roots for p in same_name(root, posixpath.basename(path))]
        if len(set(same)) == 1:
            found[path] = same[0]
    return found


FORBID = re.compile(
    r"\b(?:do not|don't|never|must not)\s+(?:change|modify|alter|edit|touch|delete|remove|"
    r"overwrite|rename|move)\b(?:[^.\n]|\.(?=\S))*",
    re.IGNORECASE,
)


def outside_places(named: list[str], workdir: str, exists: Callable[[str], bool]) -> set[str]:
    """Where the instruction says the work goes outside the working folder: each path it names
    there (`/solution/password.txt`), with its folder when it is not there yet (the work makes
    it). An existing file names itself only (`/etc/app.conf` opens no more of /etc)."""
    found: set[str] = set()
    for path in named:
        if path == workdir or path.startswith(workdir.rstrip("/") + "/"):
            continue
        found.add(path)
        if not exists(path) and posixpath.dirname(path) not in ("/", ""):
            found.add(posixpath.dirname(path))
    return found


KINDS: dict[str, tuple[str, ...]] = {
    "database": (".db", ".sqlite", ".sqlite3"),
    "log": (".log",),
    "csv": (".csv",),
    "json": (".json",),
    "xml": (".xml",),
    "config": (".conf", ".cfg", ".ini", ".toml", ".yaml", ".yml"),
    "configuration": (".conf", ".cfg", ".ini", ".toml", ".yaml", ".yml"),
    "script": (".sh", ".py", ".pl", ".rb", ".js"),
}
"""Words a sentence may name a file by instead of its path ("do not modify the database"),
and the suffixes of the files they mean."""

_KIND = re.compile(
    r"\b(?:the|any|its|this)\s+(?:[\w-]+\s+){0,2}?(" + "|".join(KINDS) + r")(s|\s+files)?\b",
    re.IGNORECASE,
)


_CHANGES = re.compile(
    r"\b(?:chang|fix|edit|modif|updat|append|add|replac|set|insert|remov|delet|correct|patch|"
    r"mov|renam|repair|restor|recover|configur|rewrit|refactor|convert|migrat|clean|sanitiz|"
    r"truncat|rotat|compress|encrypt|decrypt|sort|dedup|reformat|normaliz|merg|split|tun|adjust)"
    r"(?:e|es|ed|ing|s|ies|y|ied|ting|ted)?\b",
    re.IGNORECASE,
)
"""A verb that changes a file: the file the sentence (or the next) names is not only read.
Broader than the verbs that make a goal check of a change (`checks/extract._CHANGE`) on
purpose: a file wrongly taken for a read-only input would be refused to a right answer."""
DATA = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".log", ".txt", ".db", ".sqlite",
        ".sqlite3", ".tar", ".gz", ".tgz", ".zip", ".parquet", ".dat", ".pcap", ".bin", ".bed",
        ".vcf", ".fasta", ".fa", ".fastq", ".fq", ".sam", ".gff", ".gtf")  # fmt: skip
"""Kinds of files a task reads as data; code and configuration are left out (a fix task
changes them though no sentence beside their name says so)."""
_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\n+")
_NOUN_SET = re.compile(
    r"\b(?:a|an|the|each|every|per|one|this|that|its|their)\s+(?:[\w-]+\s+)?set\b|\bsets\s+of\b",
    re.I,
)
"""`each ad set`, `the data set`, `sets of`: the noun, which changes no file (`the script sets
the port` stays a verb)."""


def _changes(part: str) -> bool:
    return _CHANGES.search(_NOT_A_VERB.sub(" ", _NOUN_SET.sub(" ", part))) is not None


_NOT_A_VERB = re.compile(
    r"`[^`\n]*`|\b[A-Z]{2,}\b|\b\w+ed(?=\s+(?:files?|records?|entries|rows?|lines?|items?)\b)"
    r"|\b(?:currently|already)\s+\w+ed\b"
)
"""Code (`UPDATE index value`), words in capitals (`Process all UPDATE and QUERY
operations`: names of operations the data holds), a participle before what it describes
(`List of deleted files still held open`) and one of a state (`What storage driver is
currently configured in daemon.json`): no change of a file."""


def read_inputs(
    instruction: str,
    workdir: str,
    is_file: Callable[[str], bool],
    where: Where | None = None,
    files_in: Callable[[str], Sequence[str]] = lambda folder: (),
) -> frozenset[str]:
    """The data files the instruction names only to be read: there at the start, named in no
    sentence that (with the one after it) speaks of changing a file, while the instruction also
    names a file that is not there yet (the answer goes there). A folder it names so, other
    than the working folder (`files_in(folder)`: the files under it), gives its data files, at
    most `FOLDER_INPUTS` ("The inspect outputs are in `/workspace/docker_data/`"). Empty when
    it names none."""
    said = [part for part in _SENTENCE.split(instruction) if part.strip()]
    named = [named_paths(part, workdir, where) for part in said]
    if all(is_file(path) for paths in named for path in paths):
        return frozenset()  # no new file: the work may well be the change of a named one
    read = [index for index in range(len(said)) if not any(map(_changes, said[index : index + 2]))]
    changed = {path for index, paths in enumerate(named) if index not in read for path in paths}
    found = [path for index in read for path in named[index]]
    for folder in dict.fromkeys(f for index in read for f in named_folders(said[index])):
        system = folder in _SYSTEM or folder.startswith(("/usr/", "/var/lib/", "/var/cache/"))
        if not system and not (workdir.rstrip("/") + "/").startswith(folder.rstrip("/") + "/"):
            data = [path for path in files_in(folder) if path.lower().endswith(DATA)]
            found += data[:FOLDER_INPUTS]
    return frozenset(
        path
        for path in found
        if path not in changed and path.lower().endswith(DATA) and is_file(path)
    )


FOLDER_INPUTS = 20
"""The most data files a named folder gives as inputs."""
_SYSTEM = frozenset(
    ("/bin", "/boot", "/etc", "/home", "/lib", "/media", "/mnt", "/opt", "/root", "/run",
     "/sbin", "/srv", "/tmp", "/usr", "/var")
)  # fmt: skip
"""The system's own folders: named, they are a place ("the /var partition"), not the data."""


def protected_files(instruction: str, workdir: str = APP, where: Where | None = None) -> set[str]:
    """Files the instruction says not to change ("Do not change /app/source.txt."), also when
    the sentence goes on to the next line. A sentence that names no path but a kind of file
    ("Do not modify the database.") means the file of that kind the instruction names
    elsewhere: the one such file, or every one when the kind is plural ("the logs", "the
    config files")."""
    text = " ".join(instruction.split())
    named = named_paths(text, workdir, where)
    found: set[str] = set()
    for sentence in FORBID.findall(text):
        paths = named_paths(sentence, workdir, where)
        found.update(paths or _of_kind(sentence, named))
    return found


def _of_kind(sentence: str, named: list[str]) -> list[str]:
    """The named files a sentence means by their kind."""
    found: list[str] = []
    for match in _KIND.finditer(sentence):
        suffixes = KINDS[match.group(1).lower()]
        files = [path for path in named if path.lower().endswith(suffixes)]
        if len(files) == 1 or (files and match.group(2)):
            found.extend(files)
    return found


# -- how complex the task is ------------------------------------------------------------------


class Complexity(StrEnum):
    SIMPLE = "simple"
    MODERATE = "moderate"
    COMPLEX = "complex"


_STEP = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)
_THEN = re.compile(r"\b(?:then|and then|after that|finally|also)\b", re.IGNORECASE)


def classify(instruction: str) -> Complexity:
    """The class of a task, from how long its instruction is and how many files and steps it
    names."""
    files = len(named_paths(instruction))
    steps = len(_STEP.findall(instruction)) + len(_THEN.findall(instruction))
    length = len(instruction)
    score = (length > 400) + (length > 900) + (files > 2) + (files > 4) + (steps > 1) + (steps > 3)
    if score <= 1:
        return Complexity.SIMPLE
    if score <= 3:
        return Complexity.MODERATE
    return Complexity.COMPLEX


TURNS = {Complexity.SIMPLE: 15, Complexity.MODERATE: 25, Complexity.COMPLEX: 40}


def turn_budget(complexity: Complexity, configured: int) -> int:
    """The class's budget, never above what the config allows."""
    return min(TURNS[complexity], configured)


def wants_planner(complexity: Complexity) -> bool:
    return complexity is not Complexity.SIMPLE
