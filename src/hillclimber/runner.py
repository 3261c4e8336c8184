"""A run: trials (task × attempt) run in sandboxes, results written as each trial ends.

Each trial is `trial.run_trial` of a `TrialSpec`; the run's summary is always rebuilt from the
trials' `result.json` files on disk. A re-run with the same run id keeps the finished trials
and runs the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from hillclimber import process
from hillclimber.image import needs_image
from hillclimber.image.engine import engine
from hillclimber.paths import write_json
from hillclimber.results import (
    ExitReason,
    RunConfig,
    RunResult,
    TrialResult,
    read_trial,
    summarize,
)
from hillclimber.sandbox import APP, SandboxKind
from hillclimber.task import Task
from hillclimber.trial import TrialSpec, run_trial


def _hidden(run_dir: Path, workspace: Path | None) -> tuple[str, ...]:
    """The run's own record, where it lies inside the folder the agent works on: hidden from
    it (`runs/` when `hillclimber run` works on the folder it was started in)."""
    if workspace is None or not run_dir.resolve().is_relative_to(workspace.resolve()):
        return ()
    top = run_dir.resolve().relative_to(workspace.resolve()).parts[0]
    return (f"{APP}/{top}",)


@dataclass
class RunEvents:
    """Callbacks for a live display; all optional."""

    on_start: Callable[[TrialSpec], None] = lambda spec: None
    on_end: Callable[[TrialSpec, TrialResult], None] = lambda spec, result: None
    on_skip: Callable[[TrialSpec, TrialResult], None] = lambda spec, result: None


RETRIED = frozenset({ExitReason.ERROR, ExitReason.SETUP_ERROR})
"""What `retry_errors` runs again on resume: trials ended by a fault of the harness or of the
set-up (a crash, a package mirror down), not by the agent's work."""


@dataclass
class Run:
    config: RunConfig
    tasks: Sequence[Task]
    run_dir: Path
    redo: bool = False
    """Run the finished trials again too."""
    retry_errors: bool = False
    """Run again the finished trials that ended in an error (`RETRIED`)."""
    invalid_tasks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _in_image: dict[str, bool] = field(default_factory=dict, init=False, repr=False)
    _built: dict[str, set[str]] = field(default_factory=dict, init=False, repr=False)
    """Per task, the image tags this run built (`drop_images`)."""

    def __post_init__(self) -> None:
        self.run_dir = self.run_dir.resolve()

    def specs(self) -> list[TrialSpec]:
        workspace = Path(self.config.workspace) if self.config.workspace else None
        return [
            TrialSpec(
                task=task,
                attempt=attempt,
                run_dir=self.run_dir,
                agent=self.config.agent,
                sandbox=self._sandbox_for(task),
                agent_timeout_multiplier=self.config.agent_timeout_multiplier,
                model=self.config.model,
                harness=self.config.task_harness.get(task.id, self.config.harness),
                suite_hints=self.config.suite_hints,
                suite_source=self.config.source,
                workspace=workspace,
                hidden=_hidden(self.run_dir, workspace),
                limits=self.config.limits,
            )
            for task in self.tasks
            for attempt in range(1, self.config.n_attempts + 1)
        ]

    def _sandbox_for(self, task: Task) -> SandboxKind:
        """The run's sandbox, or the task's image where the run may build images and the task
        cannot be laid out without one (decided once per task: the specs are asked for again
        as each trial ends)."""
        kind = SandboxKind(self.config.sandbox)
        if not self.config.images or kind is SandboxKind.CONTAINER:
            return kind
        if task.id not in self._in_image:
            self._in_image[task.id] = needs_image(task)
        return SandboxKind.CONTAINER if self._in_image[task.id] else kind

    def _drop_image(self, spec: TrialSpec, result: TrialResult, left: list[TrialSpec]) -> None:
        """With `drop_images`, remove the images this run built for the trial's task once no
        trial of it is left to run."""
        if not self.config.drop_images:
            return
        built = self._built.setdefault(spec.task.id, set())
        if result.image is not None and not result.image.cached:
            built.add(result.image.tag)
        if any(other.task.id == spec.task.id for other in left):
            return
        for tag in sorted(built):
            if not engine().remove(tag):
                self.notes.append(f"{spec.task.id}: could not remove its image {tag}")
        built.clear()

    def _retried(self, done: TrialResult) -> bool:
        return self.retry_errors and done.exit_reason in RETRIED

    def summary(self, state: str = "running") -> RunResult:
        results = [r for spec in self.specs() if (r := read_trial(spec.trial_dir / "result.json"))]
        return summarize(
            self.config.run_id,
            results,
            n_trials=len(self.specs()),
            state=state,  # type: ignore[arg-type]
            invalid_tasks=self.invalid_tasks,
            notes=self.notes,
        )

    def write_summary(self, state: str) -> RunResult:
        summary = self.summary(state)
        write_json(self.run_dir / "result.json", summary)
        return summary

    def execute(
        self, events: RunEvents | None = None, only: Sequence[str] | None = None
    ) -> RunResult:
        """Run the trials not yet finished; with `only`, just those of these task ids, in
        that order (the run's record still covers all its tasks: it is `finished` once all
        have run)."""
        events = events or RunEvents()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        write_json(self.run_dir / "config.json", self.config)
        specs = self.specs()
        if only is not None:
            rank = {task: i for i, task in enumerate(only)}
            specs = sorted((s for s in specs if s.task.id in rank), key=lambda s: rank[s.task.id])
        todo: list[TrialSpec] = []
        for spec in specs:
            done = read_trial(spec.trial_dir / "result.json")
            if done is not None and not self.redo and not self._retried(done):
                events.on_skip(spec, done)
            else:
                todo.append(spec)
        self.write_summary("running")
        process.resume()
        pool = ThreadPoolExecutor(max_workers=max(1, self.config.n_concurrent))
        pending: dict[Future[TrialResult], TrialSpec] = {}
        queue = list(todo)
        try:
            while queue or pending:
                while queue and len(pending) < self.config.n_concurrent:
                    spec = queue.pop(0)
                    events.on_start(spec)
                    pending[pool.submit(run_trial, spec)] = spec
                finished, _ = wait(pending, return_when=FIRST_COMPLETED, timeout=0.5)
                for future in finished:
                    spec = pending.pop(future)
                    result = future.result()
                    self.write_summary("running")
                    events.on_end(spec, result)
                    self._drop_image(spec, result, [*queue, *pending.values()])
        except BaseException:
            process.stop_all()
            # not waited for here: a trial in a model call ends once the call does, and a
            # served model is stopped only on the way out (the interpreter joins the trials
            # before it exits, so what they set up is still undone)
            pool.shutdown(wait=False, cancel_futures=True)
            self.write_summary("interrupted")
            raise
        pool.shutdown()
        summary = self.summary("finished")
        if summary.totals.finished < summary.totals.trials:
            summary.state = "interrupted"
        write_json(self.run_dir / "result.json", summary)
        return summary
