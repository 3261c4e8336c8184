"""What running a trial in its task's image costs, next to bwrap and to `podman exec`.

    python benchmarks/containers.py [--runs 50] [--setups 5] [--json PATH]

Per command: the wall time of `true` run `--runs` times (after one run not counted) in a bwrap
trial sandbox, in the container runner (bwrap over the image's root with the trial's overlay
layer, `hillclimber.image.image_sandbox`) on a small task image (the local base with WORKDIR
/app), and with `podman exec` into a running container of that same image (`podman run -d
--network none IMAGE sleep 600`, removed after). Prints median and p95 of each, and the ratios
container/bwrap and podman exec/container.

Per trial: the time from entering `image_sandbox` until a first command ran, for a task whose
image is not built yet (cold: its Dockerfile, FROM an image no registry serves so the local base
stands in, has a RUN line of its own, so nothing is cached) and for the same task again (warm:
its image is in the cache), against the bwrap path for a task laid out without an engine (the
trial's folders, the sandbox, the Dockerfile followed, a first command). Leaving a trial is
timed too (the container's working folder kept, its layer unmounted and thrown away). The cold
image is removed afterwards. Timings on a busy machine are noisy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import secrets
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path

from hillclimber.image import Podman, TaskImage, engine, image_sandbox
from hillclimber.sandbox import Sandbox, SandboxKind, create_sandbox, trial_layout
from hillclimber.setup.build import build_workspace
from hillclimber.setup.plan import check_task, plan_environment
from hillclimber.task import Environment, Task, TaskFormat

UNPULLABLE = "registry.invalid/x:1"
"""A FROM image no registry serves: the local base stands in for it."""
SMALL = Task(id="bench", instruction="x", format=TaskFormat.MANIFEST)
"""No Dockerfile: the plain local base with WORKDIR /app."""


def command_times(sandbox: Sandbox, runs: int) -> list[float]:
    """Seconds for each of `runs` runs of `true` (one run first, not counted)."""
    run_true(sandbox)
    times = []
    for _ in range(runs):
        start = time.monotonic()
        run_true(sandbox)
        times.append(time.monotonic() - start)
    return times


def run_true(sandbox: Sandbox) -> None:
    result = sandbox.run("true", timeout=30)
    if not result.ok:
        raise SystemExit(f"`true` failed in the {sandbox.kind} sandbox: {result.output}")


def bwrap_commands(runs: int) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="hc-bench-ct-") as tmp:
        return command_times(create_sandbox(SandboxKind.BWRAP, trial_layout(Path(tmp))), runs)


def container_commands(runs: int) -> tuple[list[float], str]:
    """The times, and the image's tag."""
    with (
        tempfile.TemporaryDirectory(prefix="hc-bench-ct-") as tmp,
        image_sandbox(SMALL, Path(tmp)) as (sandbox, image),
    ):
        return command_times(sandbox, runs), image.tag


def podman_exec_commands(podman: Podman, image: str, runs: int) -> list[float]:
    """`podman exec ID true` into a container of `image` left running for it."""
    started = podman.run("run", "-d", "--network", "none", image, "sleep", "600", timeout=120)
    if not started.ok:
        raise SystemExit(f"podman run {image}: {started.output.strip()}")
    container = started.stdout.strip()
    try:

        def once() -> float:
            start = time.monotonic()
            result = podman.run("exec", container, "true", timeout=60)
            took = time.monotonic() - start
            if not result.ok:
                raise SystemExit(f"podman exec {container} true: {result.output.strip()}")
            return took

        once()
        return [once() for _ in range(runs)]
    finally:
        podman.run("rm", "-f", "-t", "0", container, timeout=120)


def dockerfile_task(folder: Path, task_id: str, text: str) -> Task:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Dockerfile").write_text(text)
    environment = Environment(dockerfile=folder / "Dockerfile", context=folder)
    return Task(id=task_id, instruction="x", format=TaskFormat.MANIFEST, environment=environment)


@dataclass
class Trial:
    setup_sec: float
    """Entering the trial until a first command ran."""
    teardown_sec: float
    """Leaving it."""
    image: TaskImage | None = None


Enter = Callable[[Path], AbstractContextManager[tuple[Sandbox, TaskImage | None]]]


def timed_trial(enter: Enter) -> Trial:
    """One trial in a fresh folder: `enter(folder)` yields its sandbox (and image)."""
    with tempfile.TemporaryDirectory(prefix="hc-bench-ct-") as tmp, contextlib.ExitStack() as held:
        start = time.monotonic()
        sandbox, image = held.enter_context(enter(Path(tmp)))
        run_true(sandbox)
        setup = time.monotonic() - start
        start = time.monotonic()
        held.close()
        return Trial(setup, time.monotonic() - start, image)


@contextlib.contextmanager
def bwrap_trial(task: Task, folder: Path) -> Iterator[tuple[Sandbox, TaskImage | None]]:
    """The bwrap path as the runner takes it: the trial's folders, the sandbox, the task's
    Dockerfile followed without an engine; leaving it removes the trial's scratch folders."""
    sandbox = create_sandbox(SandboxKind.BWRAP, trial_layout(folder))
    report = build_workspace(plan_environment(task), sandbox, timeout=120)
    try:
        yield sandbox.with_layout(sandbox.layout.with_env(report.env)), None
    finally:
        for name in ("tmp", "home", "scratch"):
            shutil.rmtree(folder / name, ignore_errors=True)


@dataclass
class Setups:
    cold: Trial
    warm: list[Trial]
    bwrap: list[Trial]
    failed_pull_sec: float
    mount_sec: list[float]
    """`podman image mount` of the warm image, timed apart (a warm setup does one)."""


def setups(podman: Podman, count: int) -> Setups:
    """Cold (once), warm and bwrap-path (`count` times each) trial setups."""
    token = secrets.token_hex(8)
    with tempfile.TemporaryDirectory(prefix="hc-bench-ct-tasks-") as tmp:
        image_task = dockerfile_task(
            Path(tmp) / "image",
            f"bench-cold-{token}",
            f"FROM {UNPULLABLE}\nWORKDIR /app\nRUN echo {token} > /opt/x\n",
        )
        plain_task = dockerfile_task(
            Path(tmp) / "plain",
            "bench-plain",
            f"FROM {UNPULLABLE}\nWORKDIR /app\nRUN echo {token} > /app/x\n",
        )
        if not check_task(image_task) or check_task(plain_task):
            raise SystemExit("the tasks do not go where meant (image / without an engine)")
        tag: str | None = None
        try:
            cold = timed_trial(lambda folder: image_sandbox(image_task, folder))
            assert cold.image is not None
            tag = cold.image.tag
            if cold.image.cached:
                raise SystemExit(f"the cold image {tag} was in the cache already")
            warm = [
                timed_trial(lambda folder: image_sandbox(image_task, folder)) for _ in range(count)
            ]
            mounts = [_timed(lambda: podman.mount(tag)) for _ in range(count)]
        finally:
            removed = podman.run("rmi", tag, timeout=300) if tag else None
            if removed is not None and not removed.ok:
                print(f"note: could not remove {tag}: {removed.output.strip()}")
        if not all(trial.image and trial.image.cached for trial in warm):
            raise SystemExit("a warm trial built its image again")
        plain = [timed_trial(lambda folder: bwrap_trial(plain_task, folder)) for _ in range(count)]
    failed_pull = _timed(lambda: podman.pull(UNPULLABLE, timeout=120))  # as the cold build did
    return Setups(cold, warm, plain, failed_pull, mounts)


def _timed(action: Callable[[], object]) -> float:
    start = time.monotonic()
    action()
    return time.monotonic() - start


def figures(values: list[float]) -> tuple[float, float]:
    """Median and p95, in milliseconds."""
    ordered = sorted(values)
    high = ordered[max(math.ceil(0.95 * len(ordered)) - 1, 0)]
    return statistics.median(ordered) * 1000, high * 1000


def _ms(values: list[float]) -> str:
    median, high = figures(values)
    return f"median {median:.1f} ms, p95 {high:.1f} ms"


def _median_sec(trials: list[Trial], teardown: bool = False) -> float:
    return statistics.median(t.teardown_sec if teardown else t.setup_sec for t in trials)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50, help="runs of `true` per runner")
    parser.add_argument("--setups", type=int, default=5, help="warm and bwrap setups timed")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    podman = engine()
    print(
        f"{args.runs} runs of `true` per runner; trial setup cold once, warm and bwrap path "
        f"{args.setups} times each; timings on a busy machine are noisy"
    )

    bwrap = bwrap_commands(args.runs)
    container, image = container_commands(args.runs)
    execs = podman_exec_commands(podman, image, args.runs)
    medians = {name: statistics.median(v) for name, v in (("b", bwrap), ("c", container))}
    medians["e"] = statistics.median(execs)
    over_bwrap, exec_over = medians["c"] / medians["b"], medians["e"] / medians["c"]
    print(f"per command (image {image}):")
    print(f"  bwrap:        {_ms(bwrap)}")
    print(f"  container:    {_ms(container)}")
    print(f"  podman exec:  {_ms(execs)}")
    print(f"  container/bwrap {over_bwrap:.2f}x, podman exec/container {exec_over:.1f}x (medians)")

    found = setups(podman, args.setups)
    cold = found.cold
    build_sec = cold.image.build_sec if cold.image else math.nan
    print("trial setup (entering until a first command ran), and leaving it:")
    print(
        f"  container cold: {cold.setup_sec:.2f} s (build {build_sec:.2f} s, of it "
        f"~{found.failed_pull_sec:.2f} s trying to pull {UNPULLABLE}); leaving "
        f"{cold.teardown_sec * 1000:.0f} ms"
    )
    for name, trials in (("container warm", found.warm), ("bwrap path", found.bwrap)):
        print(
            f"  {name + ':':15} {_ms([t.setup_sec for t in trials])}; leaving median "
            f"{_median_sec(trials, teardown=True) * 1000:.0f} ms"
        )
    lookups = statistics.median(t.image.build_sec for t in found.warm if t.image)
    mount = statistics.median(found.mount_sec)
    print(
        f"    of a warm setup: finding the image in the cache median {lookups:.2f} s; "
        f"`podman image mount` median {mount:.2f} s (timed apart)"
    )
    warm, plain = _median_sec(found.warm), _median_sec(found.bwrap)
    print(f"  container warm/bwrap path {warm / plain:.1f}x (medians)")
    if args.json:
        data = {
            "runs": args.runs,
            "image": image,
            "per_command_sec": {"bwrap": bwrap, "container": container, "podman_exec": execs},
            "container_over_bwrap": over_bwrap,
            "podman_exec_over_container": exec_over,
            "setup": asdict(found),
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    print(
        f"containers: command median bwrap {medians['b'] * 1000:.1f}ms container "
        f"{medians['c'] * 1000:.1f}ms podman-exec {medians['e'] * 1000:.1f}ms; trial setup cold "
        f"{cold.setup_sec:.2f}s warm {warm:.2f}s bwrap-path {plain:.2f}s"
    )


if __name__ == "__main__":
    main()
