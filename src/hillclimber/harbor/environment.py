"""Our sandbox as a Harbor environment: Harbor without Docker.

    harbor run -p TASKS -a oracle -e hillclimber.harbor:SandboxEnvironment

`start` lays the task out the way `hillclimber bench` does (the Dockerfile followed without
Docker: WORKDIR, COPY, ENV, RUN steps in the sandbox; install steps checked, not run) and fails
the trial, with the reason, when the task needs what this machine does not have. Commands run
in bwrap (or the namespace sandbox) with no network; Harbor's log folders are bound in from the
trial folder (`mounted`), so Harbor reads them where they are. When Harbor uploads the tests,
`tests/test.sh` is replaced by its offline reading (our verifier's: no apt-get curl, no uv
installer, pytest from a cached environment), and the cached environment is bound in.

A task whose Dockerfile cannot be followed without an engine (it installs packages, writes
outside /app, …) runs in its image where podman works here, built from its Dockerfile as
`hillclimber bench` builds it (a local base standing in for an image no registry serves), with
a writable layer of the trial's own: Harbor runs a task whose image it cannot pull.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import shutil
from pathlib import Path
from typing import Any

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities

from hillclimber.errors import HillclimberError, Unsupported
from hillclimber.image import find_engine, image_needs, image_sandbox, needs_image
from hillclimber.loaders.dataset import load_task
from hillclimber.sandbox import (
    Mount,
    Sandbox,
    SandboxKind,
    create_sandbox,
    pick_sandbox_kind,
    trial_layout,
    walk,
)
from hillclimber.setup.build import build_workspace
from hillclimber.setup.plan import plan_environment
from hillclimber.task import Task
from hillclimber.verify import venv as verifier_env
from hillclimber.verify.testscript import translate
from hillclimber.verify.verifier import script_env_in, verifier_needs

TESTS, SOLUTION = "/tests", "/solution"
ISOLATING = (SandboxKind.BWRAP, SandboxKind.NAMESPACE, SandboxKind.CONTAINER)
_NO_LIMIT_SEC = 24 * 3600
"""A command Harbor gives no time limit (its verifier: Harbor times the whole phase)."""


class SandboxEnvironment(BaseEnvironment):  # type: ignore[misc]
    """Environment kwargs (`--ek KEY=VALUE`): `sandbox` (bwrap, namespace, container; when not
    given: the task's image where it needs one and podman works, else the best that works)."""

    def __init__(self, *args: Any, sandbox: str | None = None, **kwargs: Any) -> None:
        self._requested = SandboxKind(sandbox) if sandbox else None
        if self._requested is not None and self._requested not in ISOLATING:
            raise HillclimberError(f"--ek sandbox={sandbox}: use bwrap, namespace or container")
        self._sandbox: Sandbox | None = None
        self._held = contextlib.ExitStack()
        self._workdir = "/app"
        self._verifier_env: dict[str, str] = {}
        super().__init__(*args, **kwargs)

    @staticmethod
    def type() -> str:
        return "hillclimber"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        # the log folders are the trial's own (bound in); commands have no network
        return EnvironmentCapabilities(mounted=True, disable_internet=True)

    def _validate_definition(self) -> None:
        """Whether the task can be laid out is told in `start`, for its trial alone (an
        error here would end the whole job)."""
        if not self.environment_dir.is_dir():
            raise FileNotFoundError(f"{self.environment_dir}: no environment folder")

    @property
    def _root(self) -> Path:
        """The sandbox's folders on this machine: workspace, /tmp, /root, /tests, /solution."""
        return Path(self.trial_paths.trial_dir) / "hillclimber"

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            raise HillclimberError("the environment is not started")
        return self._sandbox

    # -- life -------------------------------------------------------------------------------

    async def start(self, force_build: bool) -> None:
        task = load_task(self.environment_dir.parent)
        self._sandbox, self._workdir = await asyncio.to_thread(self._lay_out, task)

    def _lay_out(self, task: Task) -> tuple[Sandbox, str]:
        engine = find_engine()
        in_image = self._requested is SandboxKind.CONTAINER or (
            self._requested is None and needs_image(task) and not isinstance(engine, str)
        )
        if in_image:
            return self._in_image(task)
        plan = plan_environment(task)
        needs = plan.needs + verifier_needs(task)
        if needs:
            raise Unsupported(needs)
        kind = pick_sandbox_kind(self._requested)[0]
        if kind not in ISOLATING:
            raise HillclimberError("no isolating sandbox works here (bwrap or namespace)")
        layout = trial_layout(self._root, network=task.environment.network)
        mounted = layout.with_mounts(*self._harbor_mounts())
        sandbox = self._held.enter_context(create_sandbox(kind, mounted))  # ends at `stop`
        report = build_workspace(plan, sandbox, timeout=task.limits.setup_timeout_sec)
        return sandbox.with_layout(sandbox.layout.with_env(report.env)), report.workdir

    def _in_image(self, task: Task) -> tuple[Sandbox, str]:
        """The task's image with a layer of this trial's own, held until `stop`."""
        needs = image_needs(task)
        if needs:
            raise Unsupported(needs)
        sandbox, image = self._held.enter_context(image_sandbox(task, self._root))
        layout = sandbox.layout.with_mounts(*self._harbor_mounts())
        return sandbox.with_layout(layout), image.config.workdir

    def _harbor_mounts(self) -> list[Mount]:
        """/tests, /solution and Harbor's log folders, from folders of the trial's own."""
        root = self._root
        scratch = {TESTS: root / "tests", SOLUTION: root / "solution"}
        mounts = [Mount(target, host) for target, host in scratch.items()]
        mounts += [Mount(target, host) for target, host in self._log_folders().items()]
        for mount in mounts:
            mount.host.mkdir(parents=True, exist_ok=True)
        return mounts

    def _log_folders(self) -> dict[str, Path]:
        """Harbor's log folders at their sandbox paths: the host folders its `mounts` name,
        else the trial folder's own."""
        paths = self.trial_paths
        found = {
            "/logs/agent": paths.agent_dir,
            "/logs/verifier": paths.verifier_dir,
            "/logs/artifacts": paths.artifacts_dir / "logs" / "artifacts",
        }
        for mount in self._mounts:
            source, target = mount.get("source"), mount.get("target")
            if source and target:
                found[str(target)] = Path(str(source))
        return found

    async def stop(self, delete: bool) -> None:
        """Forget the sandbox; with `delete` (Harbor's default) its folders go too (the
        workspace is kept with `harbor run --no-delete`)."""
        self._sandbox = None
        await asyncio.to_thread(self._held.close)
        if delete:
            await asyncio.to_thread(shutil.rmtree, self._root, True)

    # -- commands ---------------------------------------------------------------------------

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        """`user` is not switched: commands run as the sandbox's one user."""
        merged = {**self._verifier_env, **(self._merge_env(env) or {})}
        result = await asyncio.to_thread(
            self.sandbox.run,
            command,
            timeout=float(timeout_sec or _NO_LIMIT_SEC),
            cwd=cwd or self.task_env_config.workdir or self._workdir,
            env=merged,
        )
        if result.timed_out:
            raise TimeoutError(f"Command timed out after {timeout_sec} seconds")
        return ExecResult(stdout=result.stdout, stderr=result.stderr, return_code=result.exit_code)

    # -- files ------------------------------------------------------------------------------

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        await asyncio.to_thread(self.sandbox.upload, Path(source_path), target_path)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        await asyncio.to_thread(self.sandbox.upload, Path(source_dir), target_dir)
        if posixpath.normpath(target_dir) == TESTS:
            await asyncio.to_thread(self._offline_tests)

    def _offline_tests(self) -> None:
        """The test script as our verifier runs it: its internet bootstrap replaced by the
        cached verifier environment, bound in read-only, every other line as written."""
        script = f"{TESTS}/test.sh"
        if not self.sandbox.exists(script):
            return
        text = self.sandbox.read_file(script).decode(errors="replace")
        translated = translate(text)
        if translated.needs:
            raise Unsupported(translated.needs)
        env_path = verifier_env.env_for(translated.packages, self.sandbox)
        layout = self.sandbox.layout.with_mounts(
            Mount(verifier_env.MOUNT_TARGET, env_path, readonly=True)
        )
        self._sandbox = self.sandbox.with_layout(layout)
        self._verifier_env = script_env_in(self.sandbox)
        self.sandbox.write_file(script, translated.text.encode(), mode=0o755)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        data = await asyncio.to_thread(self.sandbox.read_file, source_path)
        target = Path(target_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        await asyncio.to_thread(self._download_dir, source_dir, Path(target_dir))

    def _download_dir(self, source_dir: str, target: Path) -> None:
        target.mkdir(parents=True, exist_ok=True)
        root = posixpath.normpath(source_dir)
        for path, info in walk(self.sandbox, root):
            local = target / posixpath.relpath(path, root)
            if info.kind == "dir" and not info.link:
                local.mkdir(parents=True, exist_ok=True)
            elif info.kind == "file":
                local.parent.mkdir(parents=True, exist_ok=True)
                local.write_bytes(self.sandbox.read_file(path))
