"""Acceptance checks: what one check is, and what it runs against (the kinds of checks are in
`kinds.py`).

A check looks at the workspace through the sandbox (its file API, or a command) and passes or
fails with a short reason. A *goal* check fails until the work is done (the file exists, holds
the line, the command succeeds); an *invariant* passes from the start and must keep passing (a
file the task says to leave alone).

Evidence has strength. A *strong* check's pass shows the content is right: the file holds the
value or lines the instruction states, is an exact copy, a command prints what it must. A
*weak* one shows only that something is there, parses or changed: any content passes it, so a
set of weak checks passing never ends a trial by itself (see `harness/gate.py`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Literal, Protocol

from hillclimber.sandbox import OutsideSandbox, Sandbox

Origin = Literal["extracted", "proposed"]


@dataclass(frozen=True)
class Outcome:
    passed: bool
    detail: str = ""
    """Why it failed, in a few words (shown to the model)."""
    timed_out: bool = False


@dataclass
class CheckContext:
    """What checks run against: the sandbox now, and the workspace as it was at the start."""

    sandbox: Sandbox
    start: Mapping[str, str | None]
    """Sandbox path → sha256 of the file's bytes before the first action (None: no file)."""
    remaining: Callable[[], float] = lambda: float("inf")
    """The agent's time left: a check never runs past it."""
    keep: Callable[[], AbstractContextManager[object]] | None = None
    """Puts the workspace back after commands (a check may not change what it checks)."""
    command_timeout: float = 10.0


class Check(Protocol):
    @property
    def name(self) -> str:
        """What the model sees: `/app/hello.txt exists and is not empty`."""
        ...

    @property
    def goal(self) -> bool:
        """Fails until the work is done (else: an invariant that must keep passing)."""
        ...

    @property
    def strong(self) -> bool:
        """A pass shows the content is right, not only that it is there or changed."""
        ...

    @property
    def origin(self) -> Origin: ...

    def run(self, ctx: CheckContext) -> Outcome: ...


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_bytes(sandbox: Sandbox, path: str) -> bytes | None:
    """The bytes of the regular file at `path`, or None."""
    try:
        found = sandbox.stat(path)
        return sandbox.read_file(path) if found is not None and found.kind == "file" else None
    except (OSError, OutsideSandbox):
        return None


def describe(check: Check) -> dict[str, object]:
    """A check as data, for the record."""
    return {"name": check.name, "goal": check.goal, "strong": check.strong, "origin": check.origin}
