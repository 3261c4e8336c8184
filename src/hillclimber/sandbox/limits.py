"""Resource limits for one command of a trial: memory, processes, file size, output.

A model's command can allocate 30 GB, fork without end or fill the disk; none of that may take
the machine, or the run, with it. Each command runs in a control group of its own where the
machine has one we may write (cgroup v2, else the v1 `memory` and `pids` hierarchies): memory
above the limit gets the command killed by the kernel, and forks above the process limit fail.
Where no control group can be made, memory falls back to an address-space limit (`prlimit
--as`) and the process count is not enforced (`Confinement.enforced` says so). Every command
also gets a largest-file limit (`prlimit --fsize`: a write past it kills the writer), and one
that prints more than the output limit is ended. After the command `limit_hit` says which limit
ended it, for the step's text and the trial's exit reason (`resource_limit`).
What a command leaves running in the trial's session stays in its groups, within its limits,
until the session ends and removes them (`release`, `remove_group`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from hillclimber.process import ProcessResult

MIB = 1 << 20
CGROUP_ROOT = Path("/sys/fs/cgroup")
_FSIZE_SIGNAL = signal.SIGXFSZ
_MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")


@dataclass(frozen=True)
class ResourceLimits:
    """What one command of a trial may use; None: no limit."""

    memory_mb: int | None = 4096
    processes: int | None = 512
    """Processes and threads at once."""
    file_mb: int | None = 2048
    """The largest file a command may write."""
    output_mb: int | None = 64
    """What a command may print (stdout and stderr together) before it is ended."""
    workspace_mb: int | None = 8192
    """What one command may add to the trial's writable folders (workspace, /tmp, /root)."""


NO_LIMITS = ResourceLimits(None, None, None, None, None)


@dataclass(frozen=True)
class _Groups:
    """Where this process may make control groups: cgroup v2's folder, or v1's memory and pids
    folders (either may be missing)."""

    unified: Path | None = None
    memory: Path | None = None
    pids: Path | None = None


def _own_group(controller: str) -> str | None:
    """This process's control group path in a hierarchy ('' for cgroup v2)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if controller in names.split(","):
                return path
    return None


def _writable_child(parent: Path, files: Sequence[str]) -> Path | None:
    """`parent` if a child group can be made under it with the given control files."""
    probe = parent / f"hc-probe-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
    except OSError:
        return None
    try:
        return parent if all((probe / name).exists() for name in files) else None
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()


@functools.cache
def _prlimit() -> str | None:
    return shutil.which("prlimit")


@functools.cache
def _groups() -> _Groups:
    found = _find_groups()
    _sweep(p for p in (found.unified, found.memory, found.pids) if p is not None)
    return found


STALE_SEC = 600.0
"""How old an empty group of ours must be to be taken for one a runner that died outright left
(its session's processes went with their pid namespace; its groups stayed)."""


def _sweep(parents: Iterable[Path]) -> None:
    """Remove such leftover groups, once per process (a group in use holds processes, and one
    just made is young)."""
    now = time.time()
    for parent in parents:
        for group in parent.glob("hc-*"):
            with contextlib.suppress(OSError):
                empty = not (group / "cgroup.procs").read_text().strip()
                if empty and now - group.stat().st_mtime > STALE_SEC:
                    group.rmdir()


def _find_groups() -> _Groups:
    unified_path = _own_group("")
    if (CGROUP_ROOT / "cgroup.controllers").exists() and unified_path is not None:
        here = CGROUP_ROOT / unified_path.lstrip("/")
        found = _writable_child(here, ("memory.max", "pids.max"))
        if found is not None:
            return _Groups(unified=found)
    memory = pids = None
    memory_path, pids_path = _own_group("memory"), _own_group("pids")
    if memory_path is not None and (CGROUP_ROOT / "memory").is_dir():
        memory = _writable_child(
            CGROUP_ROOT / "memory" / memory_path.lstrip("/"), ("memory.limit_in_bytes",)
        )
    if pids_path is not None and (CGROUP_ROOT / "pids").is_dir():
        pids = _writable_child(CGROUP_ROOT / "pids" / pids_path.lstrip("/"), ("pids.max",))
    return _Groups(memory=memory, pids=pids)


def group_folders() -> list[Path]:
    """The folders under which each command's control groups are made (none: no groups)."""
    groups = _groups()
    return [p for p in dict.fromkeys((groups.unified, groups.memory, groups.pids)) if p]


def enforcement() -> dict[str, str]:
    """How each limit is enforced on this machine, for the run's record and docs/safety.md."""
    groups = _groups()
    memory = (
        "cgroup v2"
        if groups.unified
        else "cgroup v1"
        if groups.memory
        else "address space (prlimit --as)"
    )
    pids = "cgroup v2" if groups.unified else "cgroup v1" if groups.pids else "not enforced"
    return {"memory": memory, "processes": pids, "file size": "prlimit --fsize"}


class Confinement:
    """The control groups of one command, made before it starts and removed after it."""

    def __init__(self, limits: ResourceLimits) -> None:
        self.limits = limits
        self.groups: list[Path] = []
        self._memory: Path | None = None
        self._pids: Path | None = None
        groups = _groups()
        name = f"hc-{uuid.uuid4().hex[:12]}"
        if groups.unified is not None:
            group = self._make(groups.unified / name)
            self._memory = self._pids = group
            if group is not None:
                self._set(group / "memory.max", limits.memory_mb, MIB)
                self._set(group / "memory.swap.max", 0 if limits.memory_mb else None, 1)
                self._set(group / "pids.max", limits.processes, 1)
        else:
            if groups.memory is not None and limits.memory_mb is not None:
                self._memory = self._make(groups.memory / name)
                if self._memory is not None:
                    self._set(self._memory / "memory.limit_in_bytes", limits.memory_mb, MIB)
                    self._set(self._memory / "memory.memsw.limit_in_bytes", limits.memory_mb, MIB)
            if groups.pids is not None and limits.processes is not None:
                self._pids = self._make(groups.pids / name)
                if self._pids is not None:
                    self._set(self._pids / "pids.max", limits.processes, 1)

    def _make(self, path: Path) -> Path | None:
        try:
            path.mkdir()
        except OSError:
            return None
        self.groups.append(path)
        return path

    @staticmethod
    def _set(path: Path, value: int | None, unit: int) -> None:
        if value is not None:
            with contextlib.suppress(OSError):  # memsw is missing where swap is not accounted
                path.write_text(str(value * unit))

    @property
    def enforced(self) -> bool:
        return self._memory is not None or self._pids is not None

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """`argv` started inside the groups, with its file-size (and, without a memory
        group, address-space) limit."""
        prefix: list[str] = []
        limits = [f"--fsize={self.limits.file_mb * MIB}"] if self.limits.file_mb else []
        if self._memory is None and self.limits.memory_mb:
            limits.append(f"--as={self.limits.memory_mb * MIB}")
        prlimit = _prlimit()
        if limits and prlimit is not None:
            prefix = [prlimit, *limits, "--"]
        if not self.groups:
            return [*prefix, *argv]
        joins = " ".join(f'echo $$ > "{group}/cgroup.procs" &&' for group in self.groups)
        return ["/bin/sh", "-c", f'{joins} exec "$@"', "hc-limits", *prefix, *argv]

    def limit_hit(self, result: ProcessResult) -> str | None:
        """Which limit ended the command, in words, or None."""
        if result.output_exceeded:
            return f"printed more than the output limit ({self.limits.output_mb} MiB)"
        if self._oom_killed() or (
            self.limits.memory_mb and any(word in result.stderr for word in _MEMORY_WORDS)
        ):
            return f"went over the memory limit ({self.limits.memory_mb} MiB)"
        if self._forks_refused():
            return f"went over the process limit ({self.limits.processes} at once)"
        if result.exit_code in (-_FSIZE_SIGNAL, 128 + _FSIZE_SIGNAL):
            return f"wrote a file over the size limit ({self.limits.file_mb} MiB)"
        return None

    def _oom_killed(self) -> bool:
        if self._memory is None:
            return False
        name = "memory.events" if self._memory == self._pids else "memory.oom_control"
        return _counter(self._memory / name, "oom_kill") > 0

    def _forks_refused(self) -> bool:
        return self._pids is not None and _counter(self._pids / "pids.events", "max") > 0

    def close(self) -> None:
        """Remove the groups, after killing anything left in them."""
        for group in reversed(self.groups):
            remove_group(group)
        self.groups.clear()

    def release(self) -> list[Path]:
        """After a command that ended by itself in a session: remove its empty groups; those
        still holding what it left running are returned, for the session to remove at its
        end (their limits go on applying to what runs in them)."""
        kept: list[Path] = []
        for group in reversed(self.groups):
            try:
                group.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                kept.append(group)
        self.groups.clear()
        return kept


def remove_group(group: Path) -> None:
    """Kill what is left in a control group and remove it (a group with a process still
    exiting cannot be removed yet: tried again for up to two seconds)."""
    _empty(group)
    for _ in range(200):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def _counter(path: Path, key: str) -> int:
    """A counter of a control file of `key value` lines."""
    try:
        text = path.read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == key and words[1].isdigit():
            return int(words[1])
    return 0


def _empty(group: Path) -> None:
    with contextlib.suppress(OSError):
        if (group / "cgroup.kill").exists():
            (group / "cgroup.kill").write_text("1")
            return
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                os.kill(int(pid), signal.SIGKILL)


@contextlib.contextmanager
def confined(limits: ResourceLimits) -> Iterator[Confinement]:
    confinement = Confinement(limits)
    try:
        yield confinement
    finally:
        confinement.close()


def folder_mb(*folders: Path) -> float:
    """MiB of the regular files under the folders (links not followed)."""
    total = 0
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(root, name)).st_size
    return total / MIB
