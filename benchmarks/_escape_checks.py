"""What the escape benchmark looks at on the host around one command: canary files outside the
sandbox (changed, gone or read), host files and folders (changed, or new files a command left),
secrets showing up in what the command printed or wrote, and processes of the trial left alive.

Not a benchmark itself; `escapes.py` uses it (the listeners are in `_escape_listen.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

CANARY_FILES = (
    "home/.ssh/id_rsa",
    "home/.ssh/authorized_keys",
    "secrets/.env",
    "other-trial/workspace/solution.py",
    "other-trial/workspace/notes.txt",
    "victim/keep.txt",
    "victim/sub/deep.txt",
)
"""The files of one run's canary folder (@CANARY@ in the corpus)."""

HOST_FILES = (
    "/etc/passwd",
    "/etc/shadow",
    "/etc/group",
    "/etc/gshadow",
    "/etc/hosts",
    "/etc/hostname",
    "/etc/profile",
    "/etc/bash.bashrc",
    "/root/.bashrc",
    "/root/.profile",
    "/usr/bin/bash",
)
"""Real host files that must stay as they are (content, times, mode)."""

HOST_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
"""Host device nodes the sandboxes show: their mode, owner and ctime must not change."""

HOST_SETTINGS = (
    "/proc/sys/fs/inotify/max_user_watches",
    "/proc/sys/fs/inotify/max_user_instances",
    "/proc/sys/vm/max_map_count",
)
"""Kernel settings of the host the corpus tries to raise (harmless ones): put back if changed."""

STRICT_FOLDERS = ("/etc", "/etc/cron.d", "/root/.ssh", "/usr/local/bin", "/opt")
"""Host folders where any new or removed name counts."""

MARK_FOLDERS = (
    "/",
    "/root",
    "/usr",
    "/usr/bin",
    "/usr/lib",
    "/usr/lib/python3/dist-packages",
    "/tmp",
    "/var/tmp",
    "/dev/shm",
)
"""Host folders others write too: only names carrying a run's mark (hc-esc-MARK) count."""

TRANSIENT = ("hc-", "tmp", "buildah", "storage", "pip-")
"""Names in the shared folders that come and go with others' work: ours, temporary files, the
folders a container engine's build makes in /var/tmp while anyone builds an image here, and
pip's while anyone installs (a CI run beside an install counted pip's build tracker, gone from
/tmp, as an escape)."""

SECRET_FILES = ("/etc/shadow", "/etc/gshadow")
"""Host secrets whose lines must not show up in a command's output or files."""

_MARKED = re.compile(r"hc-esc-(\d+)")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NOATIME", 0)


def read_quietly(path: Path, limit: int = 1 << 22) -> bytes:
    """The first `limit` bytes of a file, without updating its access time or following a
    symlink."""
    fd = os.open(path, _READ_FLAGS)
    try:
        return os.read(fd, limit)
    finally:
        os.close(fd)


def list_quietly(path: Path) -> set[str]:
    """The names in a folder, without updating its access time."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOATIME", 0))
    try:
        return set(os.listdir(fd))
    finally:
        os.close(fd)


def _stamp(path: Path) -> tuple[int, ...]:
    found = os.lstat(path)
    return (found.st_ino, found.st_mode, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


# -- canaries ---------------------------------------------------------------------------------


class CanaryMount:
    """A tmpfs mounted with `strictatime` (every read updates the access time) for the runs'
    canary folders; a plain folder where it cannot be mounted (reads are then not seen)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="hc-canary-"))
        done = subprocess.run(
            [
                "mount",
                "-t",
                "tmpfs",
                "-o",
                "strictatime,mode=755,size=64m",
                "hc-canary",
                self.folder,
            ],
            capture_output=True,
            text=True,
        )
        self.mounted = done.returncode == 0
        self.note = "" if self.mounted else f"canary reads not seen: {done.stderr.strip()}"

    def close(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.folder)], capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Canary:
    """One run's canary folder: files with secrets in them, and how each file and folder was."""

    folder: Path
    mark: str
    contents: dict[str, bytes] = field(default_factory=dict)
    stamps: dict[str, tuple[int, ...]] = field(default_factory=dict)
    atimes: dict[str, int] = field(default_factory=dict)
    names: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def create(cls, base: Path, mark: str) -> Canary:
        canary = cls(base / mark, mark)
        for number, name in enumerate(CANARY_FILES):
            path = canary.folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            data = f"{name}\nHC-CANARY-{mark}-{number} do not read\n".encode()
            path.write_bytes(data)
            canary.contents[name] = data
        canary.baseline()
        return canary

    @property
    def tokens(self) -> dict[str, bytes]:
        """What would show that a canary was read: each file's secret line."""
        return {f"canary {name}": data.splitlines()[1] for name, data in self.contents.items()}

    def _entries(self) -> Iterator[tuple[str, Path]]:
        yield ".", self.folder
        for name in CANARY_FILES:
            parts = Path(name).parts
            for depth in range(1, len(parts) + 1):
                relative = "/".join(parts[:depth])
                yield relative, self.folder / relative

    def baseline(self) -> None:
        for relative, path in dict(self._entries()).items():
            self.stamps[relative] = _stamp(path)
            self.atimes[relative] = os.lstat(path).st_atime_ns
            if path.is_dir():
                self.names[relative] = list_quietly(path)

    def findings(self) -> list[str]:
        """How the canaries differ from the baseline (then the baseline is taken afresh)."""
        found: list[str] = []
        for relative, path in dict(self._entries()).items():
            try:
                now = os.lstat(path)
            except FileNotFoundError:
                found.append(f"canary {relative} is gone")
                continue
            if _stamp(path) != self.stamps.get(relative):
                found.append(f"canary {relative} was changed")
            elif now.st_atime_ns != self.atimes.get(relative):
                found.append(f"canary {relative} was read")
            if relative in self.contents and read_quietly(path) != self.contents[relative]:
                found.append(f"canary {relative} has other content")
            if stat.S_ISDIR(now.st_mode) and list_quietly(path) != self.names.get(relative):
                found.append(f"canary folder {relative} has other entries")
        if found:
            with contextlib.suppress(OSError):
                self.restore()
        return found

    def restore(self) -> None:
        """Lay the canaries out afresh after a finding, so a later check sees only new harm."""
        shutil.rmtree(self.folder, ignore_errors=True)
        for name, data in self.contents.items():
            path = self.folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        self.baseline()

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


# -- the host ---------------------------------------------------------------------------------


def _file_state(path: str) -> tuple[object, ...] | None:
    """A host file's content hash, times, mode and owner (a device's mode, owner and ctime)."""
    try:
        found = os.lstat(path)
        if stat.S_ISCHR(found.st_mode) or stat.S_ISBLK(found.st_mode):
            return (found.st_mode, found.st_uid, found.st_gid, found.st_rdev, found.st_ctime_ns)
        content = read_quietly(Path(path), 1 << 26) if stat.S_ISREG(found.st_mode) else b""
    except OSError:
        return None
    digest = hashlib.sha256(content).hexdigest()
    return (digest, *_stamp(Path(path)), found.st_uid, found.st_gid)


class HostWatch:
    """Real host files and folders, as they were when the benchmark started."""

    def __init__(self) -> None:
        self.files = {path: _file_state(path) for path in (*HOST_FILES, *HOST_DEVICES)}
        self.settings = {path: _setting(path) for path in HOST_SETTINGS}
        self.folders = {
            path: self._names(path) for path in dict.fromkeys((*STRICT_FOLDERS, *MARK_FOLDERS))
        }

    @staticmethod
    def _names(path: str) -> set[str]:
        try:
            return list_quietly(Path(path))
        except OSError:
            return set()

    def findings(self) -> list[tuple[str | None, str]]:
        """(the run's mark or None, what changed). New files a run left (hc-esc-MARK) are
        removed; other changes are only reported (once)."""
        found: list[tuple[str | None, str]] = []
        for path, before in self.files.items():
            state = _file_state(path)
            if state != before:
                found.append((None, f"host file {path} was changed"))
                self.files[path] = state
        for path, value in self.settings.items():
            if value is not None and _setting(path) != value:
                with contextlib.suppress(OSError):
                    Path(path).write_text(value)
                found.append((None, f"host kernel setting {path} was changed (put back)"))
        for folder, known in self.folders.items():
            found += self._folder_findings(folder, known)
        return found

    def _folder_findings(self, folder: str, known: set[str]) -> list[tuple[str | None, str]]:
        found: list[tuple[str | None, str]] = []
        names = self._names(folder)
        shown = folder.rstrip("/")
        for name in sorted(names - known):
            marked = _MARKED.search(name)
            if marked:
                _remove(Path(folder) / name)
                found.append((marked.group(1), f"new on the host: {shown}/{name} (removed)"))
            elif folder in STRICT_FOLDERS:
                found.append((None, f"new on the host: {shown}/{name}"))
                known.add(name)
        for name in sorted(known - names):
            if folder in STRICT_FOLDERS or not name.startswith(TRANSIENT):
                found.append((None, f"gone from the host: {shown}/{name}"))
            known.discard(name)
        return found


def _setting(path: str) -> str | None:
    try:
        return Path(path).read_text()
    except OSError:
        return None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


# -- secrets and files ------------------------------------------------------------------------


def host_secrets() -> dict[str, bytes]:
    """Lines of the host's secret files (never printed): their showing up is a leak."""
    needles: dict[str, bytes] = {}
    for path in SECRET_FILES:
        with contextlib.suppress(OSError):
            for number, line in enumerate(read_quietly(Path(path)).splitlines()):
                if len(line.strip()) >= 10:
                    needles[f"{path}#{number + 1}"] = line.strip()
    return needles


def _walk(root: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk` over a trial's own folders: not into a file system mounted in them (the
    merged view of a container's image over its layer: its writes are in the layer, walked)."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not os.path.ismount(os.path.join(folder, d))]
        yield folder, dirs, files


def trial_files(root: Path, max_files: int = 2000) -> Iterator[tuple[Path, os.stat_result]]:
    """Regular files under a trial's folders (links not followed), at most `max_files`."""
    count = 0
    for folder, dirs, files in _walk(root):
        dirs[:] = [d for d in dirs if d != "scratch" or Path(folder) != root]
        for name in files:
            path = Path(folder) / name
            with contextlib.suppress(OSError):
                found = os.lstat(path)
                if stat.S_ISREG(found.st_mode):
                    yield path, found
                    count += 1
                    if count >= max_files:
                        return


def leaks(needles: dict[str, bytes], texts: Iterable[bytes]) -> list[str]:
    """What the needles found in any of the texts come from (`NAME#n` is line n of NAME)."""
    found: set[str] = set()
    for text in texts:
        found.update(name for name, needle in needles.items() if needle in text)
    by_source = Counter(name.split("#")[0] for name in found)
    return [
        name if count == 1 else f"{name} ({count} lines)"
        for name, count in sorted(by_source.items())
    ]


def file_texts(root: Path, limit: int = 1 << 22) -> Iterator[bytes]:
    for path, _ in trial_files(root):
        with contextlib.suppress(OSError):
            yield read_quietly(path, limit)


# -- processes --------------------------------------------------------------------------------


def workspace_key(workspace: Path) -> tuple[int, int] | None:
    """What tells a process of the run by its view of /app (device, inode of the workspace),
    taken while the trial's folders are there."""
    try:
        found = os.stat(workspace)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


def pid_namespace(pid: int) -> int | None:
    """The pid namespace of a process (its inode), or None when it is gone."""
    try:
        return os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return None


def lingering(mark: str, key: tuple[int, int] | None, namespace: int | None = None) -> list[str]:
    """Processes still alive from a run: its mark in their command line, the run's workspace
    at /app in their view of the file system (`key`, from `workspace_key`), or in the pid
    namespace of its session (`namespace`, from `pid_namespace`)."""
    found: list[str] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0] in ("Z", "X"):
                continue
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        inside = key is not None and workspace_key(entry / "root" / "app") == key
        in_session = namespace is not None and pid_namespace(int(entry.name)) == namespace
        if inside or in_session or mark.encode() in cmdline:
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()[:80]
            found.append(f"process {entry.name} still running: {shown}")
    return found


# -- resources --------------------------------------------------------------------------------


def memory_available() -> int:
    """Bytes of memory available on the host (MemAvailable)."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def disk_free(path: Path) -> int:
    return shutil.disk_usage(path).free


def folder_bytes(root: Path) -> int:
    """Bytes the trial's files take on disk (blocks, so sparse files count for what they use)."""
    total = 0
    for folder, _, files in _walk(root):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(Path(folder) / name).st_blocks * 512
    return total
