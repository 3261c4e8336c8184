"""Plan a task's environment: what laying its workspace out here takes, decided without running
anything.

A Terminal-Bench task describes its starting state with a Dockerfile. Without a container
engine, hillclimber follows the parts it can reproduce — `WORKDIR`, `COPY`/`ADD` from the build
context, `RUN` steps — in the trial's sandbox, where only /app, /tmp and /root are writable and
there is no network. `RUN` steps that install packages or download things cannot work there,
so they are not run blindly: each install is checked against what this machine already has.
Present → the step is skipped and recorded as satisfied; absent → the task is "unsupported
here" with a reason (`apt: primer3, emboss`) instead of failing mysteriously at setup.

`plan_environment` decides everything; `build.build_workspace` carries the plan out;
`check_task` is the quick "can this task run here?" used by `tasks check`.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hillclimber.errors import TaskLoadError
from hillclimber.sandbox.base import APP, STANDARD_PATH
from hillclimber.setup.decision import WRITABLE, Context, writable
from hillclimber.setup.dockerfile import parse_dockerfile
from hillclimber.setup.dockerignore import dockerignore
from hillclimber.setup.instructions import Copy, Dockerfile, Run, Workdir
from hillclimber.setup.presence import command_available
from hillclimber.setup.requirements import ScriptAnalysis, analyze_script, apt_pins, render_needs
from hillclimber.shell.split import split_commands
from hillclimber.shell.words import read_words
from hillclimber.task import Task


@dataclass(frozen=True)
class CopyStep:
    """Copy files from the build context (host) into the sandbox at `dest`."""

    sources: tuple[Path, ...]
    dest: str
    origin: str
    into_dir: bool = False
    """`dest` is a folder even if it does not exist yet (trailing `/`, several sources)."""
    excluded: frozenset[Path] = frozenset()
    """Host paths under folder sources left out (`.dockerignore`, the Dockerfile itself)."""
    chmod: int | None = None
    extract: bool = False
    """ADD: local tar archives are unpacked into `dest` rather than copied."""
    inline: tuple[tuple[str, str], ...] = ()
    """(file name, content) for files written inline with `COPY <<EOF`."""
    written: tuple[str, ...] = ()
    """The sources as the Dockerfile names them (`.`, `src/`, `*.txt`), for messages."""

    def describe(self) -> str:
        names = list(self.written) or [p.name for p in self.sources]
        names += [f"<<{name}" for name, _ in self.inline]
        return f"copy {' '.join(names)} to {self.dest}"


@dataclass(frozen=True)
class MakeDirStep:
    """Create a folder (WORKDIR creates its folder in Docker)."""

    path: str
    origin: str

    def describe(self) -> str:
        return f"mkdir {self.path}"


@dataclass(frozen=True)
class RunStep:
    """Run a shell command in the sandbox."""

    command: str
    cwd: str
    origin: str
    env: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        return f"run {self.summary}"

    @property
    def summary(self) -> str:
        """The command's first line, shortened, for messages."""
        lines = self.command.strip().splitlines()
        first = lines[0] if lines else ""
        return first if len(first) <= 80 and len(lines) <= 1 else first[:77] + "..."


Step = CopyStep | MakeDirStep | RunStep


@dataclass
class EnvironmentPlan:
    workdir: str = APP
    """Where the agent's commands start."""
    env: dict[str, str] = field(default_factory=dict)
    """ENV values from the Dockerfile, for every later command of the trial."""
    steps: list[Step] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    """Why the task cannot run here; empty when it can."""
    satisfied: list[str] = field(default_factory=list)
    """Install steps skipped because what they install is already here, and other skips."""
    image: str | None = None
    pinned: list[str] = field(default_factory=list)
    """The apt packages the build installs at a version it names (`pkg=1.2-3`): versions of
    the distribution its base image is."""

    @property
    def runnable(self) -> bool:
        return not self.needs


_IMAGE_TOOLS = (
    (r"python", "python3"),
    (r"node|nodejs", "node"),
    (r"golang|go", "go"),
    (r"rust", "cargo"),
    (r"openjdk|eclipse-temurin|amazoncorretto|maven|gradle", "java"),
    (r"ruby", "ruby"),
    (r"r-base|r-ver|tidyverse|rstudio", "R"),
    (r"julia", "julia"),
    (r"php", "php"),
    (r"gcc", "gcc"),
    (r"haskell", "ghc"),
    (r"swift", "swift"),
    (r"elixir", "elixir"),
    (r"erlang", "erl"),
    (r"sdk|dotnet", "dotnet"),
)


def base_image_needs(image: str) -> list[str]:
    """The language toolchain an official base image brings, when this machine lacks it."""
    bare = image.split("@", 1)[0]
    last = bare.rsplit("/", 1)[-1].split(":", 1)[0].lower()
    for pattern, tool in _IMAGE_TOOLS:
        if re.match(rf"(?:{pattern})(?:$|[-_.0-9])", last) and not command_available(tool):
            return [f"{tool} (from base image {image})"]
    return []


class _Planner:
    """Turns Dockerfile instructions into steps, needs and satisfied notes."""

    def __init__(self, dockerfile: Dockerfile, context: Path) -> None:
        self.dockerfile = dockerfile
        self.context = context.resolve()
        self.plan = EnvironmentPlan(image=dockerfile.image)
        self.needs: list[tuple[str | None, str]] = []
        self.ignored = dockerignore(self.context, dockerfile.path)

    def origin(self, line: int) -> str:
        return f"Dockerfile line {line}"

    def error(self, line: int, problem: str) -> TaskLoadError:
        return TaskLoadError(self.dockerfile.path, self.origin(line), problem)

    def build(self) -> None:
        self.needs += [(None, r) for r in base_image_needs(self.dockerfile.image)]
        self.needs += [(None, r) for r in self.dockerfile.unsupported]
        for ins in self.dockerfile.instructions:
            if isinstance(ins, Workdir):
                self.workdir(ins)
            elif isinstance(ins, Copy) and ins.from_ is None:
                self.copy(ins)
            elif isinstance(ins, Run):
                self.run(ins.command, ins.workdir, ins.env, self.origin(ins.line))
        final = self.dockerfile.final
        self.plan.workdir = final.workdir if final.workdir_set else APP
        self.plan.env = self.dockerfile.env

    def workdir(self, ins: Workdir) -> None:
        if writable(ins.path):
            if ins.path not in WRITABLE:
                self.plan.steps.append(MakeDirStep(ins.path, self.origin(ins.line)))
        elif not Path(ins.path).is_dir():
            self.needs.append((None, f"workdir {ins.path}, outside {APP}"))

    def copy(self, ins: Copy) -> None:
        dest = ins.dest_path
        if not writable(dest.rstrip("/") or "/"):
            self.needs.append((None, f"copies to {dest.rstrip('/')}, outside {APP}"))
            return
        urls = [s for s in ins.sources if re.match(r"\w+://|git@", s)]
        if urls:
            self.needs += [(None, f"download {url}") for url in urls]
            return
        sources = [p for s in ins.sources for p in self.expand(s, ins.line)]
        if not sources and not ins.heredocs:
            raise self.error(ins.line, f"{ins.keyword} sources not found in the build context")
        self.plan.steps.append(
            CopyStep(
                sources=tuple(sources),
                dest=dest.rstrip("/") or "/",
                origin=self.origin(ins.line),
                into_dir=dest.endswith("/")
                or len(sources) + len(ins.heredocs) > 1
                or any(ch in s for s in ins.sources for ch in "*?["),
                excluded=frozenset(self.excluded(sources)),
                chmod=int(ins.chmod, 8)
                if ins.chmod and re.fullmatch(r"[0-7]{3,4}", ins.chmod)
                else None,
                extract=ins.is_add,
                inline=tuple((h.name, h.body) for h in ins.heredocs),
                written=ins.sources,
            )
        )

    def expand(self, source: str, line: int) -> list[Path]:
        """Host paths for one COPY source (globs allowed), inside the build context."""
        relative = posixpath.normpath(source.lstrip("/")) if source.strip("/") else "."
        if relative == ".." or relative.startswith("../"):
            raise self.error(line, f"COPY source {source} is outside the build context")
        if any(ch in relative for ch in "*?["):
            found = sorted(self.context.glob(relative))
            found = [p for p in found if not self.ignored(self.rel(p))]
        else:
            path = self.context / relative
            found = [path] if path.exists() or path.is_symlink() else []
        if not found:
            raise self.error(line, f"COPY source {source} not found in the build context")
        return found

    def rel(self, path: Path) -> str:
        return path.relative_to(self.context).as_posix()

    def excluded(self, sources: Sequence[Path]) -> Iterator[Path]:
        """Paths under folder sources that Docker would not send (`.dockerignore`)."""
        for source in sources:
            if not source.is_dir():
                continue
            for root, dirs, files in os.walk(source):
                for name in dirs + files:
                    path = Path(root) / name
                    if self.ignored(self.rel(path)):
                        yield path

    def run(self, command: str, cwd: str, env: Mapping[str, str], origin: str) -> None:
        ctx = Context(cwd=cwd, env={"PATH": STANDARD_PATH, **env}, find_file=self.find_file)
        analysis = analyze_script(command, ctx)
        self.needs += analysis.needs
        # `RUN bash setup.sh`: what the script does is what the step does.
        for script in _called_scripts(command, cwd, self.find_file):
            self.needs += analyze_script(script.read_text(errors="replace"), ctx).needs
        _take(self.plan, analysis, RunStep(command, cwd, origin, dict(env)))

    def find_file(self, sandbox_path: str) -> Path | None:
        """The host file a sandbox path would hold after the copies planned so far."""
        for step in reversed(self.plan.steps):
            if isinstance(step, CopyStep):
                for candidate in _copy_candidates(step, sandbox_path):
                    if candidate.is_file():
                        return candidate
        # lenient: a file named like it at the top of the context (Docker would have failed)
        fallback = self.context / posixpath.basename(sandbox_path)
        return fallback if fallback.is_file() else None


def _take(plan: EnvironmentPlan, analysis: ScriptAnalysis, step: RunStep) -> None:
    """Note what the step's analysis found satisfied; keep the step, with satisfied installs
    taken out, if something is left to run and nothing is missing."""
    plan.satisfied += [f"{note} — {step.origin}" for note in analysis.satisfied]
    if analysis.command is not None and not analysis.needs:
        plan.steps.append(dataclasses.replace(step, command=analysis.command))


_SHELLS = frozenset({"bash", "sh", "dash", "source", "."})


def _called_scripts(command: str, cwd: str, find_file: Callable[[str], Path | None]) -> list[Path]:
    """Build-context files that a step runs as shell scripts (`bash x.sh`, `./x.sh`)."""
    found: list[Path] = []
    for simple in split_commands(command):
        words = read_words(simple.text)
        if words is None or not words.args:
            continue
        args = list(words.args)
        if words.name in _SHELLS and len(args) > 1 and not args[1].startswith("-"):
            target = args[1]
        elif args[0].endswith(".sh"):
            target = args[0]
        else:
            continue
        host = find_file(posixpath.normpath(posixpath.join(cwd, target)))
        if host is not None and host.stat().st_size < 1 << 20:
            found.append(host)
    return found


def _copy_candidates(step: CopyStep, sandbox_path: str) -> Iterator[Path]:
    for source in step.sources:
        if source.is_dir():
            if sandbox_path.startswith(step.dest.rstrip("/") + "/"):
                yield source / posixpath.relpath(sandbox_path, step.dest)
        elif sandbox_path in (step.dest, posixpath.join(step.dest, source.name)):
            yield source


def plan_environment(task: Task) -> EnvironmentPlan:
    """What building this task's workspace takes, and what it needs that is not here.

    Raises TaskLoadError for a Dockerfile that cannot be read or names missing files.
    """
    environment = task.environment
    plan = EnvironmentPlan(image=environment.image)
    needs: list[tuple[str | None, str]] = []
    if environment.dockerfile is not None:
        dockerfile = parse_dockerfile(
            environment.dockerfile, initial_workdir=APP, base_env={"PATH": STANDARD_PATH}
        )
        planner = _Planner(dockerfile, environment.context or environment.dockerfile.parent)
        planner.build()
        plan = planner.plan
        needs = planner.needs
    for number, command in enumerate(environment.setup, start=1):
        origin = f"setup command {number}"
        analysis = analyze_script(command, Context(cwd=APP, env={"PATH": STANDARD_PATH}))
        needs += analysis.needs
        _take(plan, analysis, RunStep(command, APP, origin))
    plan.needs = render_needs(needs)
    plan.pinned = apt_pins(needs)
    return plan


def check_task(task: Task) -> list[str]:
    """Why this task cannot run here (empty: it can). Parses and checks; runs nothing.

    A Dockerfile that cannot be read is a reason too, so that checking a whole dataset
    reports every task instead of stopping at the first broken one.
    """
    try:
        return plan_environment(task).needs
    except TaskLoadError as err:
        return [f"unreadable environment: {err}"]


def solution_needs(task: Task) -> list[str]:
    """What the reference solution installs or downloads that this machine lacks: such a task
    may still be solvable another way, but the oracle will fail here."""
    analysis = solution_analysis(task)
    return render_needs(analysis.needs) if analysis is not None else []


def solution_analysis(task: Task) -> ScriptAnalysis | None:
    """The reference solution read as a setup script is (None: the task has none)."""
    if task.solution is not None and task.solution.is_file():
        return analyze_script(task.solution.read_text(errors="replace"))
    if task.solution_inline is not None:
        return analyze_script(task.solution_inline)
    return None
