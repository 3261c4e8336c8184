"""The one `Task` model that every loader produces.

Paths inside a task are host paths to the task's own files; paths the task's instruction and
tests use (`/app`, `/tests`, `/logs`) are the sandbox's view and stay as written.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class TaskFormat(StrEnum):
    TB2 = "tb2"  # Terminal-Bench 2 / Harbor task directory
    TB1 = "tb1"  # Terminal-Bench 1 task directory
    MANIFEST = "manifest"  # inline task from a JSON suite manifest
    INLINE = "inline"  # a one-off instruction from `hillclimber run`


class VerificationKind(StrEnum):
    TB2 = "tb2"  # tests/test.sh + tests/test_outputs.py, reward file in /logs/verifier
    TB1 = "tb1"  # run-tests.sh with tests/ at $TEST_DIR; passes only if every test passes
    CUSTOM = "custom"  # a shell script; exit code 0 passes
    OUTPUT = "output"  # a command whose stdout must equal `expected`
    TEST = "test"  # a test command; exit code 0 passes
    NONE = "none"  # nothing to verify with


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Verification(_Model):
    kind: VerificationKind
    script: Path | None = None
    """Host path of the test script (`tests/test.sh`, `run-tests.sh`)."""
    tests_dir: Path | None = None
    """Host folder laid at `/tests` while verifying."""
    command: str | None = None
    """Inline script or command (manifest tasks)."""
    expected: str | None = None
    """Expected stdout for `output` verification."""


class Environment(_Model):
    dockerfile: Path | None = None
    """Host path of the Dockerfile whose WORKDIR/COPY/RUN steps build the workspace."""
    context: Path | None = None
    """Build context for COPY/ADD."""
    setup: tuple[str, ...] = ()
    """Shell commands run in the workspace before the agent starts (manifest tasks)."""
    network: bool = False
    """Whether commands may use the network (off unless the task asks for it)."""
    image_network: bool = False
    """Whether commands may use the network when the task runs in its image, as in the
    container its format's runner gives it (Harbor: yes unless the task says no): what its
    agent installs comes from the package archives. Always a network of the trial's own
    (`sandbox/slirp.py`): no port of the host's, not the host's loopback."""
    image: str | None = None
    """The task's declared image, for the record."""
    gpus: int = 0
    """GPUs the task asks for (`[environment] gpus`)."""


class Limits(_Model):
    agent_timeout_sec: float = 600.0
    verifier_timeout_sec: float = 180.0
    setup_timeout_sec: float = 600.0
    max_turns: int | None = None


class Metadata(_Model):
    category: str | None = None
    difficulty: str | None = None
    tags: tuple[str, ...] = ()
    author: str | None = None


class Task(_Model):
    id: str
    instruction: str
    format: TaskFormat
    source: Path | None = None
    """The task's folder, or the manifest file it came from."""
    environment: Environment = Field(default_factory=Environment)
    verification: Verification = Field(
        default_factory=lambda: Verification(kind=VerificationKind.NONE)
    )
    solution: Path | None = None
    """Host path of the reference solution script, if any."""
    solution_inline: str | None = None
    """A reference solution given inline (manifest tasks)."""
    limits: Limits = Field(default_factory=Limits)
    metadata: Metadata = Field(default_factory=Metadata)

    @property
    def has_solution(self) -> bool:
        return self.solution is not None or self.solution_inline is not None

    @property
    def has_verifier(self) -> bool:
        return self.verification.kind is not VerificationKind.NONE
