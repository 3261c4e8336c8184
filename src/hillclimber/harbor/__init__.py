"""Harbor interop.

- `export`: a run written as a Harbor job folder (no Harbor needed).
- `HillclimberAgent` (`-a hillclimber.harbor:HillclimberAgent`): our harness as a Harbor agent.
- `SandboxEnvironment` (`-e hillclimber.harbor:SandboxEnvironment`): our sandbox and
  Dockerfile-without-Docker setup as a Harbor environment.

The last two subclass Harbor's own classes, so they are imported only when asked for, by
Harbor's Python (3.12+, with the `harbor` package).
"""

from __future__ import annotations

from typing import Any

__all__ = ["HillclimberAgent", "SandboxEnvironment"]


def __getattr__(name: str) -> Any:
    if name == "HillclimberAgent":
        from hillclimber.harbor.agent import HillclimberAgent

        return HillclimberAgent
    if name == "SandboxEnvironment":
        from hillclimber.harbor.environment import SandboxEnvironment

        return SandboxEnvironment
    raise AttributeError(f"module 'hillclimber.harbor' has no attribute {name!r}")
