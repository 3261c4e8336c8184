"""Per-tool verdicts: what `apt-get`, `pip`, `npm`, `curl`, `git`, ... would install or fetch,
and whether this machine already has it. A command no tool here knows is a plain command.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence

from hillclimber.sandbox.base import APP
from hillclimber.setup.decision import (
    Context,
    Decision,
    dynamic,
    installs,
    merge,
    name_set,
    plain_command,
    writable,
)
from hillclimber.setup.pip import (
    PipArgument,
    install_arguments,
    pip_arguments,
    requirements_lines,
)
from hillclimber.setup.presence import (
    PIP_SPEC,
    apt_present,
    command_available,
    npm_global_installed,
    pip_version,
)
from hillclimber.shell.words import Words, operands


def classify(words: Words, ctx: Context) -> Decision:
    """Decide about one simple command: skip it, run it, or say what it needs."""
    name = words.name
    args = words.args
    if not args:
        return Decision()
    pip_args = pip_arguments(words)
    if pip_args is not None:
        sub = pip_args[0] if pip_args else ""
        if sub == "install":
            return _pip(pip_args[1:], ctx)
        if sub in ("uninstall", "cache", "config"):
            return Decision.skip(f"pip {sub} (not needed here)")
        if sub == "sync":
            return _pip(["-r", *pip_args[1:]], ctx)
        return Decision()
    if name in ("apt-get", "apt", "aptitude", "apk", "yum", "dnf", "microdnf"):
        return _apt(words)
    handler = _HANDLERS.get(name)
    return handler(words, ctx) if handler else plain_command(words, ctx)


def _deb_present(name: str) -> str | None:
    return "" if apt_present(name) else None


_APT_NOOPS = name_set(
    "update upgrade dist-upgrade full-upgrade clean autoclean autoremove remove purge "
    "autopurge check"
)


def _apt(words: Words) -> Decision:
    positional = operands(words.args[1:], frozenset({"-o", "-t", "-c", "--target-release"}))
    if not positional:
        return Decision()
    sub, names = positional[0], positional[1:]
    if sub in _APT_NOOPS:
        return Decision.skip(f"apt-get {sub} (not needed here)")
    if sub not in ("install", "reinstall", "add"):  # `add` for apk
        return Decision()
    if any(dynamic(name) for name in names):
        return Decision.need(None, f"packages computed at build time ({' '.join(names)})")
    local = [name for name in names if name.endswith(".deb") or "/" in name]
    if local:
        return Decision.need(None, *[f"install of local package {name}" for name in local])
    if not names:
        return Decision.skip(f"apt-get {sub} with no packages")
    return installs("apt", names, _deb_present)


def _pip(args: Sequence[str], ctx: Context) -> Decision:
    """`pip install ARGS` (also `uv pip install`, `uv add`): requirements and local projects."""
    verdict = Decision()
    specs = _specs(install_arguments(args), "", ctx, verdict)
    return merge(verdict, _pip_specs(specs))


def _specs(
    arguments: Sequence[PipArgument], folder: str, ctx: Context, verdict: Decision
) -> list[str]:
    """Package specs and projects, requirements files (relative to `folder`) read in place."""
    specs: list[str] = []
    for argument in arguments:
        if argument.kind == "requirements":
            specs += _requirements(posixpath.join(folder, argument.value), ctx, verdict)
        else:
            specs.append(argument.value)
    return specs


def _requirements(path: str, ctx: Context, verdict: Decision) -> list[str]:
    """Requirement specs from a requirements file the build context provides."""
    target = posixpath.normpath(posixpath.join(ctx.cwd, path))
    host = ctx.find_file(target) if path and path not in ("-", "/dev/stdin") else None
    if host is None:
        verdict.action = "need"
        what = f"file {path}, not in the build context" if path else "given inline"
        verdict.needs.append((None, f"pip requirements {what}"))
        return []
    lines = requirements_lines(host.read_text(encoding="utf-8", errors="replace"))
    return _specs(lines, posixpath.dirname(target), ctx, verdict)


def _pip_specs(specs: Sequence[str]) -> Decision:
    names: list[str] = []
    needs: list[tuple[str | None, str]] = []
    for spec in specs:
        match = PIP_SPEC.fullmatch(spec.strip())
        if "$" in spec or "`" in spec:
            needs.append((None, f"pip packages computed at build time ({spec})"))
        elif match is None or "://" in spec or spec.startswith((".", "/")) or "/" in spec:
            needs.append(("pip", f"{spec} (a local project or URL)"))
        elif match.group(3).startswith("@"):
            needs.append(("pip", f"{match.group(1)} (from {match.group(3)[1:].strip()})"))
        else:
            names.append(match.group(1))
    verdict = installs("pip", names, pip_version) if names else Decision("skip")
    verdict.needs = needs + verdict.needs
    if verdict.needs:
        verdict.action = "need"
    return verdict


def _urls(args: Sequence[str]) -> list[str]:
    local = re.compile(r"(?:https?|ftp)://(?:localhost|127\.0\.0\.1|0\.0\.0\.0)(?:[:/]|$)")
    return [arg for arg in args if re.match(r"(?:https?|ftp)://", arg) and not local.match(arg)]


def _curl(words: Words, ctx: Context) -> Decision:
    urls = _urls(words.args[1:])
    if urls:
        return Decision.need(None, *[f"download {url}" for url in urls])
    return plain_command(words, ctx)


def _git(words: Words, ctx: Context) -> Decision:
    sub = operands(words.args[1:], frozenset({"-C", "-c"}))
    remote = [arg for arg in sub[1:] if re.match(r"\w+://|git@", arg)]
    if sub[:1] == ["clone"] and remote:
        return Decision.need(None, f"git clone {remote[0]}")
    from_path = sub[:1] in (["fetch"], ["pull"]) and len(sub) > 1 and sub[1].startswith(("/", "."))
    if from_path:  # a repository or bundle on this machine's disk
        return plain_command(words, ctx)
    if sub[:1] in (["fetch"], ["pull"], ["lfs"]) or sub[:2] == ["submodule", "update"]:
        return Decision.need(None, f"git {' '.join(sub[:2])} (network)")
    return plain_command(words, ctx)


def _npm(words: Words, ctx: Context) -> Decision:
    args = words.args[1:]
    sub = operands(args)
    if not sub or sub[0] not in ("install", "i", "add", "ci"):
        if sub and sub[0] == "cache":
            return Decision.skip(f"{words.name} cache (not needed here)")
        return plain_command(words, ctx)
    names = sub[1:]
    if not ({"-g", "--global"} & set(args)):
        what = ", ".join(names) if names else "project dependencies"
        return Decision.need(words.name, f"{what} (into {ctx.cwd})")
    return installs("npm", names, lambda n: "" if npm_global_installed(n) else None)


def _tool_install(words: Words, ctx: Context) -> Decision:
    """`cargo/gem/go/pipx install X`: present if a command of that name exists."""
    sub = operands(words.args[1:])
    if sub[:2] == ["mod", "download"]:
        return Decision.need(None, f"{words.name} mod download (network)")
    if not sub or sub[0] not in ("install", "get"):
        return plain_command(words, ctx)
    names = [re.split(r"@", posixpath.basename(n))[0] or n for n in sub[1:]]
    return installs(words.name, names, lambda n: "" if command_available(n) else None)


def _conda(words: Words, ctx: Context) -> Decision:
    sub = operands(words.args[1:], frozenset({"-c", "--channel", "-n", "--name", "-p"}))
    if sub[:1] in (["install"], ["create"]):
        return Decision.need("conda", *(sub[1:] or ["an environment"]))
    return plain_command(words, ctx)


def _uv(words: Words, ctx: Context) -> Decision:
    sub = list(words.args[1:2])
    if sub == ["add"]:
        return _pip(list(words.args[2:]), ctx)
    if sub in (["sync"], ["lock"]):
        return Decision.need(None, f"uv {sub[0]} (project dependencies from the network)")
    if sub == ["python"] and words.args[2:3] == ("install",):
        return Decision.need(None, "uv python install (download)")
    return plain_command(words, ctx)


def _dpkg(words: Words, ctx: Context) -> Decision:
    if {"-i", "--install"} & set(words.args):
        files = operands(words.args[1:])
        return Decision.need(None, *[f"install of local package {f}" for f in files])
    return plain_command(words, ctx)


def _system_noop(words: Words, ctx: Context) -> Decision:
    return Decision.skip(f"{words.name} (changes the system image; not needed here)")


def _rm(words: Words, ctx: Context) -> Decision:
    """Removing files outside the writable folders (apt lists, caches) is moot here."""
    targets = operands(words.args[1:])
    if targets and all(t.startswith("/") and not writable(t) for t in targets):
        return Decision.skip(f"rm {' '.join(targets)} (outside {APP}, nothing to remove)")
    return plain_command(words, ctx)


def _hf(words: Words, ctx: Context) -> Decision:
    if "download" in words.args[1:3]:
        what = " ".join(operands(words.args[2:])[:1])
        return Decision.need(None, f"download from Hugging Face {what}".rstrip())
    return plain_command(words, ctx)


_HANDLERS: dict[str, Callable[[Words, Context], Decision]] = {
    "curl": _curl,
    "wget": _curl,
    "git": _git,
    "npm": _npm,
    "yarn": _npm,
    "pnpm": _npm,
    "cargo": _tool_install,
    "gem": _tool_install,
    "go": _tool_install,
    "pipx": _tool_install,
    "conda": _conda,
    "mamba": _conda,
    "micromamba": _conda,
    "uv": _uv,
    "dpkg": _dpkg,
    "rm": _rm,
    "huggingface-cli": _hf,
    "hf": _hf,
    **dict.fromkeys(
        name_set(
            "add-apt-repository apt-key apt-mark update-ca-certificates ldconfig locale-gen "
            "update-locale dpkg-reconfigure useradd adduser groupadd addgroup usermod chown "
            "chgrp passwd chpasswd update-alternatives"
        ),
        _system_noop,
    ),
}
