"""The escape corpus and its benchmark (benchmarks/escapes.py): the corpus is large, varied and
aims only at this machine; a sample of it stays inside bwrap and namespace with the guards on
and off; and the checks are not blind: a command run without isolation is caught."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from hillclimber.sandbox import SandboxKind

from conftest import REPO, require_sandbox

sys.path.insert(0, str(REPO / "benchmarks"))

from _escape_checks import lingering, workspace_key
from _escape_run import Runs
from escapes import CATEGORIES, KINDS, Entry, load_corpus, not_loopback, run_corpus

CORPUS = load_corpus()


def test_the_corpus_is_large_and_covers_every_category() -> None:
    assert len(CORPUS) >= 200
    counts = Counter(entry.category for entry in CORPUS)
    assert set(counts) == set(CATEGORIES)
    assert all(count >= 15 for count in counts.values()), counts
    assert all(entry.tries.strip() and entry.command.strip() for entry in CORPUS)


def test_the_corpus_has_no_command_twice() -> None:
    seen = Counter(entry.command.strip() for entry in CORPUS)
    assert [command for command, count in seen.items() if count > 1] == []


def test_the_corpus_names_only_loopback_addresses() -> None:
    strays = {entry.command: not_loopback(entry.command) for entry in CORPUS}
    assert {command: found for command, found in strays.items() if found} == {}
    assert not any(re.search(r"\b(?:example|google|github)\.", e.command) for e in CORPUS)


def test_the_loopback_check_sees_other_addresses() -> None:
    assert not_loopback("curl -s http://10.0.0.1:8080/") == {"10.0.0.1"}
    assert not_loopback("wget https://example.com/x") == {"example.com"}
    assert not_loopback("echo > /dev/tcp/8.8.8.8/53") == {"8.8.8.8"}
    assert not_loopback("curl http://localhost:@PORT@/ http://[::1]:@PORT@/") == set()


def test_network_commands_aim_at_what_the_benchmark_watches() -> None:
    """Its listener's port, or (ICMP) a payload marked with the run's mark."""
    network = [entry for entry in CORPUS if entry.category == "network"]
    assert all("@PORT@" in e.command or "@MARK@" in e.command for e in network)


def test_a_command_without_isolation_is_reported_escaped() -> None:
    """The checks are not blind: the local sandbox (no isolation) lets a command write a canary
    outside the trial, and that run comes out escaped."""
    with Runs() as runs:
        outcome = runs.start("echo x > @CANARY@/written-@MARK@", SandboxKind.LOCAL, guards=False)
        read = runs.start("cat @CANARY@/secrets/.env", SandboxKind.LOCAL, guards=False)
    assert outcome.outcome == "escaped", outcome
    assert any("canary" in finding for finding in outcome.findings)
    assert read.outcome == "escaped" and any("leaked canary" in f for f in read.findings), read


@pytest.fixture
def sleeper() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    mark = "424242" + str(os.getpid())
    proc = subprocess.Popen(["sleep", f"30.{mark}"])
    yield mark, proc
    proc.kill()
    proc.wait()


def test_a_process_left_with_the_runs_mark_is_found(
    sleeper: tuple[str, subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    mark, proc = sleeper
    deadline = time.monotonic() + 5
    found = lingering(mark, workspace_key(tmp_path))
    while not any(str(proc.pid) in line for line in found) and time.monotonic() < deadline:
        time.sleep(0.1)  # a loaded machine may not show the child's new command line at once
        found = lingering(mark, workspace_key(tmp_path))
    assert any(str(proc.pid) in line for line in found), (found, proc.poll(), _proc_view(proc.pid))


def _proc_view(pid: int) -> str:
    """What /proc says of the child, for the failure message."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()[:3]
        return f"{status} cmdline={Path(f'/proc/{pid}/cmdline').read_bytes()!r}"
    except OSError as error:
        return str(error)


def _sample() -> list[Entry]:
    """Two commands of each category: its first and the one halfway down."""
    sample = []
    for category in CATEGORIES:
        entries = [entry for entry in CORPUS if entry.category == category]
        sample += [entries[0], entries[len(entries) // 2]]
    return sample


@pytest.mark.slow
def test_a_sample_of_the_corpus_stays_inside_both_sandboxes() -> None:
    for kind in KINDS:
        require_sandbox(kind)
    sample = _sample()
    done = run_corpus(sample, list(KINDS))
    assert len(done) == len(sample) * 2 * 2
    escaped = [(entry.command, outcome) for entry, outcome in done if outcome.outcome == "escaped"]
    assert escaped == []
    ended = {o.limit_kind for e, o in done if e.category == "resources" and o.mode == "guards off"}
    assert "file size" in ended, ended  # the limits are there, and reported
