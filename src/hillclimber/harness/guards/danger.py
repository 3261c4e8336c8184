"""Commands that destroy the task, the system or the machine, wherever they hide in the command
line (compound commands, `sh -c`, `$(…)`, pipes into a shell); ordinary deletes and downloads
pass."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.guards.base import Situation, Verdict
from hillclimber.sandbox.base import APP, HOME, TMP
from hillclimber.shell.command import DOWNLOAD, DOWNLOADERS, Command, inside, program
from hillclimber.shell.reader import levels
from hillclimber.shell.words import operands
from hillclimber.shell.writes import harmless_device

RULE = "dangerous_commands"


def dangerous_commands(call: ToolCall, situation: Situation) -> Verdict | None:
    if call.name != "run_command":
        return None
    places = situation.places()
    found = danger(str(call.arguments.get("command", "")), places)
    if found is None:
        return None
    reason, suggestion, fields = found
    said = {"workdir": places[0], "tmp": TMP, **fields}
    return Verdict(
        "deny", RULE, situation.say(RULE, reason, **said), situation.say(RULE, suggestion, **said)
    )


_Finding = tuple[str, str, dict[str, str]]
"""(reason, suggestion, what fills them in): the keys of the texts in `guards.toml`
[dangerous_commands], and `$command` or `$path` where they say one."""
Places = tuple[str, ...]
"""The task's working folder, then the outputs it names elsewhere (`Situation.places`)."""

_DELETE_BY_NAME = "delete_by_name"
_FUNCTION = re.compile(
    r"(?:\bfunction\s+)?(?P<a>[^\s(){};|&<>]+)\s*\(\s*\)\s*\{(?P<ab>[^{}]*)\}"
    r"|\bfunction\s+(?P<b>[^\s(){};|&<>]+)\s*\{(?P<bb>[^{}]*)\}"
)
_QUOTED = re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")


def danger(script: str, places: Places = (APP,)) -> _Finding | None:
    """Why `script` must not run, and what to do instead (the keys of their texts); None when
    it may. `places`: the task's working folder, then the outputs it names elsewhere."""
    for level in levels(script):
        if level.too_deep:
            return "too_deep", "plain", {}
        if _fork_bomb(level.text):
            return "fork_bomb", "do_not", {}
        for pipeline in level.pipelines:
            found = _pipeline_danger(pipeline, places)
            if found is not None:
                return found
    return None


def _fork_bomb(text: str) -> bool:
    """A function that calls itself in the background or through a pipe (`:(){ :|:& };:`)."""
    masked = _QUOTED.sub(lambda m: " " * len(m.group()), text)
    for match in _FUNCTION.finditer(masked):
        name = match.group("a") or match.group("b")
        body = match.group("ab") if match.group("a") else match.group("bb")
        if re.search(rf"(?<![\w.:-]){re.escape(name)}\s*(?:\|(?!\|)|&(?!&))", body):
            return True
    return False


def _pipeline_danger(pipeline: Sequence[Command], places: Places) -> _Finding | None:
    for i, cmd in enumerate(pipeline):
        found = _command_danger(cmd, pipeline[i - 1] if i else None, places)
        if found is not None:
            return found
        source = program(cmd)
        if (
            source is not None
            and source[0] == "stdin"
            and any(c.name in DOWNLOADERS for c in pipeline[:i])
        ):
            return "download_piped", "read_first", {"command": cmd.name}
    return None


def _command_danger(cmd: Command, before: Command | None, places: Places) -> _Finding | None:
    if cmd.sudo:
        return "sudo", "without_sudo", {}
    for check in _CHECKS:
        found = check(cmd, before, places)
        if found is not None:
            return found
    return None


def _rm(cmd: Command, before: Command | None, places: Places) -> _Finding | None:
    if cmd.name != "rm":
        return None
    flags = "".join(a[1:] for a in cmd.args[1:] if a.startswith("-") and not a.startswith("--"))
    recursive = bool({"r", "R"} & set(flags)) or "--recursive" in cmd.args
    force = "f" in flags or "--force" in cmd.args
    if "--no-preserve-root" in cmd.args:
        return "no_preserve_root", _DELETE_BY_NAME, {}
    targets = operands(cmd.args[1:])
    if cmd.xargs and not targets and before is not None:
        targets = _listed_paths(before)
    for path in filter(None, map(cmd.path, targets)):
        found = _rm_target(path, recursive, force, places)
        if found is not None:
            return found
    return None


def _rm_target(path: str, recursive: bool, force: bool, places: Places) -> _Finding | None:
    if _covers(path, "/"):
        return "rm_system", _DELETE_BY_NAME, {"path": path}
    if recursive and _covers(path, HOME):
        return "rm_home", _DELETE_BY_NAME, {"path": path}
    if recursive and _covers(path, places[0]):
        return "rm_workdir", _DELETE_BY_NAME, {"path": path}
    if recursive and force and not inside(path, (*places, TMP)):
        return "rm_outside", _DELETE_BY_NAME, {"path": path}
    return None


def _listed_paths(cmd: Command) -> list[str]:
    """The paths a command before `| xargs rm` lists (find's start points, echo's words)."""
    if cmd.name == "find":
        return [a for a in cmd.args[1:] if not a.startswith(("-", "(", "!"))][:1]
    if cmd.name in ("echo", "printf", "ls"):
        return operands(cmd.args[1:])
    return []


_MODE = re.compile(r"[0-7]{1,4}|[ugoa]*[-+=][rwxXstugo]*(,[ugoa]*[-+=][rwxXstugo]*)*")


def _permissions(cmd: Command, before: Command | None, places: Places) -> _Finding | None:
    if cmd.name not in ("chmod", "chown", "chgrp"):
        return None
    recursive = any(a in ("-R", "--recursive") for a in cmd.args)
    operands = [a for a in cmd.args[1:] if not re.fullmatch(r"-[RcfvH]+|--\w[\w-]*", a)]
    by_reference = any(a.startswith("--reference") for a in cmd.args)
    if operands and not by_reference and (cmd.name != "chmod" or _MODE.fullmatch(operands[0])):
        operands = operands[1:]  # the mode or owner
    for path in filter(None, map(cmd.path, operands)):
        if _covers(path, "/") and (recursive or path == "/"):
            return "changes_system", "change_only", {"command": cmd.name, "path": path}
        if recursive and not inside(path, (*places, TMP)):
            return "changes_system_files", "change_only", {"command": cmd.name, "path": path}
    return None


def _devices(cmd: Command, before: Command | None, places: Places) -> _Finding | None:
    targets = list(cmd.redirects)
    if cmd.name == "dd":
        targets += [a[3:] for a in cmd.args[1:] if a.startswith("of=")]
    if cmd.name in ("tee", "shred"):
        targets += operands(cmd.args[1:])
    for path in filter(None, map(cmd.path, targets)):
        if _is_device(path):
            return "device", "write_a_file", {"path": path}
    return None


def _is_device(path: str) -> bool:
    return path.startswith("/dev/") and not harmless_device(path)


_MACHINE = frozenset({"shutdown", "reboot", "halt", "poweroff", "killall5"})


def _system(cmd: Command, before: Command | None, places: Places) -> _Finding | None:
    name, rest = cmd.name, cmd.args[1:]
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "wipefs"):
        return "formats", "no_disks", {"command": name}
    stops = (
        name in _MACHINE
        or (name in ("init", "telinit") and rest[:1] in (("0",), ("6",)))
        or (name == "systemctl" and bool({"poweroff", "reboot", "halt", "kexec"} & set(rest)))
    )
    if stops:
        return "stops", "carry_on", {"command": name}
    if name == "kill" and {"-1", "1"} & set(_kill_targets(rest)):
        return "kills_all", "kill_own", {}
    return None


def _kill_targets(rest: Sequence[str]) -> list[str]:
    """The PIDs of `kill [-SIG | -s SIG] [--] PID…` (a lone `-1` is a signal, not a PID)."""
    words = list(rest)
    if words[:1] in (["-s"], ["-n"]):
        words = words[2:]
    elif words[:1] and words[0].startswith("-") and words[0] != "--":
        words = words[1:]
    return words[1:] if words[:1] == ["--"] else words


def _runs_download(cmd: Command, before: Command | None, places: Places) -> _Finding | None:
    """Downloaded text run as code: `bash -c "$(curl …)"`, `source <(wget …)`, `$(curl …)`."""
    code: list[str] = []
    source = program(cmd)
    if source is not None:
        code.append(source[1])
    elif cmd.name in ("eval", "source", "."):
        code += cmd.args[1:]
    if any(DOWNLOAD in word for word in [*cmd.args[:1], *code]):
        return "runs_download", "download_first", {}
    return None


_CHECKS: tuple[Callable[[Command, Command | None, Places], _Finding | None], ...] = (
    _rm,
    _permissions,
    _devices,
    _system,
    _runs_download,
)


_GLOB_ALL = re.compile(r"[*?.]+")


def _covers(path: str, folder: str) -> bool:
    """Whether deleting `path` deletes all of `folder`: the folder, a parent, or `folder/*`."""
    if path == folder or folder.startswith(path.rstrip("/") + "/"):
        return True
    return posixpath.dirname(path) == folder and bool(_GLOB_ALL.fullmatch(posixpath.basename(path)))
