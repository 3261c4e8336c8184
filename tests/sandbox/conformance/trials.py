"""How the suite opens sandboxes of each kind: `Trials`, one per behaviour run, opens trials of
its kind in a folder of the behaviour's own and ends them (each trial's session closes: what its
commands left running is gone); and the two helpers every behaviour uses on them."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

from hillclimber.image import image_sandbox
from hillclimber.sandbox import Sandbox, SandboxKind, create_sandbox, trial_layout
from hillclimber.sandbox.limits import ResourceLimits
from hillclimber.task import Task


class Trials:
    """Sandboxes of one kind for one behaviour, each a trial of its own under `folder`."""

    kind: str

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._open: dict[int, contextlib.ExitStack] = {}
        self._count = itertools.count(1)

    def open(self, *, network: bool = False, limits: ResourceLimits | None = None) -> Sandbox:
        """A fresh trial: the network only when asked, within `limits` (else the defaults)."""
        stack = contextlib.ExitStack()
        folder = self.folder / f"trial-{next(self._count)}"
        sandbox = stack.enter_context(self.trial(folder, network, limits or ResourceLimits()))
        self._open[id(sandbox)] = stack
        return sandbox

    def end(self, sandbox: Sandbox) -> None:
        """The trial ends, as a trial ends after its verifier."""
        self._open.pop(id(sandbox)).close()

    def close(self) -> None:
        """End every trial still open (a behaviour that failed half way leaves some)."""
        while self._open:
            self._open.popitem()[1].close()

    def __enter__(self) -> Trials:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def trial(
        self, folder: Path, network: bool, limits: ResourceLimits
    ) -> contextlib.AbstractContextManager[Sandbox]:
        raise NotImplementedError


class HostTrials(Trials):
    """bwrap, namespace, local: a sandbox over fresh folders on the host."""

    def __init__(self, kind: SandboxKind, folder: Path) -> None:
        super().__init__(folder)
        self.kind = kind.value
        self._kind = kind

    def trial(
        self, folder: Path, network: bool, limits: ResourceLimits
    ) -> contextlib.AbstractContextManager[Sandbox]:
        return create_sandbox(self._kind, trial_layout(folder, network=network, limits=limits))


class ImageTrials(Trials):
    """container: the task's image (built once, before), a fresh layer each trial."""

    kind = SandboxKind.CONTAINER.value

    def __init__(self, task: Task, folder: Path) -> None:
        super().__init__(folder)
        self.task = task

    @contextlib.contextmanager
    def trial(self, folder: Path, network: bool, limits: ResourceLimits) -> Iterator[Sandbox]:
        asked = self.task.environment.model_copy(
            update={"network": network, "image_network": network}
        )
        task = self.task.model_copy(update={"environment": asked})
        with image_sandbox(task, folder, limits=limits) as (sandbox, _):
            yield sandbox


def refused(error: type[Exception], call: Callable[..., object], *args: object) -> None:
    """`call(*args)` raises `error`."""
    try:
        call(*args)
    except error:
        return
    raise AssertionError(f"{getattr(call, '__name__', call)}{args} did not raise {error.__name__}")


def run(box: Sandbox, command: str) -> str:
    """The stdout of a command that must succeed."""
    done = box.run(command, timeout=30)
    assert done.ok, (command, done.output)
    return done.stdout
