"""The files a command line would write: redirects, `cp`/`mv` targets, `touch`, `rm`, `dd of=`,
`sed -i`…, wherever they hide in it."""

from __future__ import annotations

from collections.abc import Iterator

from hillclimber.shell.command import Command
from hillclimber.shell.reader import commands
from hillclimber.shell.words import operands, option_value

SAFE_DEVICES = frozenset(
    {"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/full"}
)


def harmless_device(path: str) -> bool:
    """Devices that are fine to write: /dev/null, the standard streams and the like."""
    return path in SAFE_DEVICES or path.startswith(("/dev/fd/", "/dev/shm/", "/dev/pts/"))


_TARGETS: dict[str, frozenset[str]] = {
    # commands whose operands are all written, with their options that take a value
    "tee": frozenset(),
    "touch": frozenset({"-d", "-t", "-r"}),
    "mkdir": frozenset({"-m"}),
    "rm": frozenset(),
    "rmdir": frozenset(),
    "unlink": frozenset(),
    "truncate": frozenset({"-s", "-r"}),
    "shred": frozenset({"-n", "-s"}),
}
_COPIES: dict[str, frozenset[str]] = {
    # commands whose last operand (or -t DIR) is written
    "cp": frozenset({"-t", "-S", "--target-directory", "--suffix"}),
    "mv": frozenset({"-t", "-S", "--target-directory", "--suffix"}),
    "install": frozenset({"-t", "-m", "-o", "-g", "-S", "--target-directory", "--mode"}),
    "ln": frozenset({"-t", "-S", "--target-directory", "--suffix"}),
    "rsync": frozenset({"-e", "--exclude", "--include"}),
}


def written_paths(script: str) -> Iterator[tuple[Command, str | None]]:
    """(command, path) for every file a command would write, anywhere (None: a path that
    cannot be known); harmless devices (/dev/null …) left out."""
    for cmd in commands(script):
        for word in _written(cmd):
            path = cmd.path(word)
            if path is None or not harmless_device(path):
                yield cmd, path


def _written(cmd: Command) -> list[str]:
    """The words of a command that name files it writes (redirects included)."""
    words = list(cmd.redirects)
    if cmd.name in _TARGETS:
        words += operands(cmd.args[1:], _TARGETS[cmd.name])
    elif cmd.name in _COPIES:
        target = option_value(cmd.args[1:], ("-t", "--target-directory"))
        found = operands(cmd.args[1:], _COPIES[cmd.name])
        if target is not None:
            words.append(target)
        elif "-d" in cmd.args and cmd.name == "install":
            words += found
        elif len(found) >= 2:
            words.append(found[-1])
    elif cmd.name == "dd":
        words += [a[3:] for a in cmd.args[1:] if a.startswith("of=")]
    elif cmd.name in ("sed", "perl") and any(a.startswith(("-i", "--in-place")) for a in cmd.args):
        words += _edited_in_place(cmd)
    return words


def _edited_in_place(cmd: Command) -> list[str]:
    """The files `sed -i` / `perl -i` rewrite: every operand but the script (which comes first
    unless given with -e or -f)."""
    found = operands(cmd.args[1:], frozenset({"-e", "-f", "--expression", "--file"}))
    scripted = any(a in ("-e", "-f", "--expression", "--file") for a in cmd.args)
    return found if scripted else found[1:]
