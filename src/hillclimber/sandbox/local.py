"""A plain folder, no isolation: the fallback when nothing better works.

Commands run on the host with the workspace as their working directory, and the sandbox paths
they name (`/app`, `/tests`, `/logs`, ...) are rewritten to the host folders behind them, as the
original system did. Results record that this sandbox was used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hillclimber.process import DEFAULT_OUTPUT_CAP
from hillclimber.sandbox.base import (
    APP,
    CommandResult,
    Layout,
    SandboxKind,
    base_env,
    find_bash,
)
from hillclimber.sandbox.host import HostSandbox

# Sandbox paths that are never rewritten even if a layout mounts them: they are the host's own.
_HOST_OWNED = {"/tmp"}


def rewrite_paths(text: str, layout: Layout) -> str:
    """Replace each mounted sandbox path (as a whole path component) by its host folder."""
    targets = sorted(
        (m for m in layout.mounts if m.target not in _HOST_OWNED),
        key=lambda m: len(m.target),
        reverse=True,
    )
    if not targets:
        return text
    pattern = re.compile(
        r"(?<![\w.~/-])(" + "|".join(re.escape(m.target) for m in targets) + r")(?![\w.-])"
    )
    hosts = {m.target: str(m.host) for m in targets}
    return pattern.sub(lambda match: hosts[match.group(1)], text)


class LocalSandbox(HostSandbox):
    """No session either: a process a command leaves running could not be told from the
    host's own, so each command's whole process group ends with it."""

    kind = SandboxKind.LOCAL
    isolated = False
    holds_sessions = False

    def localize(self, path: str) -> None:
        """Rewrite sandbox paths in the text files under `path` (scripts, tests)."""
        host = self.host_path(path)
        files = [host] if host.is_file() else [p for p in host.rglob("*") if p.is_file()]
        for file in files:
            try:
                text = file.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            new = rewrite_paths(text, self.layout)
            if new != text:
                file.write_text(new)

    def run(
        self,
        command: str,
        *,
        timeout: float,
        cwd: str = APP,
        env: Mapping[str, str] | None = None,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        linger: bool = True,
    ) -> CommandResult:
        """No session here: what a command leaves running ends with it, `linger` or not."""
        host_cwd = self.host_path(cwd)
        full_env = base_env(self.layout, env)
        full_env = {k: rewrite_paths(v, self.layout) for k, v in full_env.items()}
        argv = [find_bash(), "-c", rewrite_paths(command, self.layout)]
        return self.execute(
            command, argv, timeout=timeout, output_cap=output_cap, cwd=host_cwd, env=full_env
        )
