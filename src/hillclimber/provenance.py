"""Which code ran: the version, and the git commit where hillclimber runs from a checkout.

A run resumed after the code changed holds trials of two commits; each trial's record says its
own (`TrialResult.commit`), so a table can say which commit each number came from.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

SOURCE = Path(__file__).resolve().parent


@functools.cache
def source_commit() -> str | None:
    """The checkout's commit (`+changes` where the package's files differ from it), or None
    where hillclimber is installed from a wheel or git is missing."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(SOURCE), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return None
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".")
    return f"{commit}+changes" if changed else commit
