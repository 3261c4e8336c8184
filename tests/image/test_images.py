"""Task images built by podman from real Dockerfiles, and trials run in them (what a trial in
its image does as every sandbox does, the conformance list checks: `test_conformance.py`).

Marked `images`: they need root and podman (`bash scripts/install.sh` installs it); skipped on a
machine without them, never in CI, which has the same kind of machine as ours.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from hillclimber.errors import SetupError
from hillclimber.image import build_image, find_engine, image_sandbox, place
from hillclimber.loaders import load_dataset
from hillclimber.results import ExitReason, read_trial
from hillclimber.runner import Run
from hillclimber.sandbox import SandboxKind
from hillclimber.sandbox.slirp import slirp_binary
from hillclimber.task import Task
from hillclimber.verify import venv as verifier_env
from hillclimber.verify.verifier import verify

from conftest import require_images, run_config

pytestmark = [pytest.mark.images, pytest.mark.slow]

UNPULLABLE = "registry.invalid/hillclimber/none:1"
"""An image no registry serves: the local base stands in for it."""


@pytest.fixture(scope="module", autouse=True)
def podman() -> None:
    require_images()


def write_task(root: Path, name: str, dockerfile: str, solution: str, test: str) -> Path:
    """A Terminal-Bench 2 task folder: its Dockerfile, context file, solution and one test."""
    task = root / name
    (task / "environment").mkdir(parents=True)
    (task / "environment" / "Dockerfile").write_text(textwrap.dedent(dockerfile).lstrip())
    (task / "environment" / "input.txt").write_text("3\n4\n5\n")
    (task / "instruction.md").write_text("Sum the numbers of /data/input.txt.\n")
    (task / "task.toml").write_text('version = "1.0"\n[agent]\ntimeout_sec = 60.0\n')
    (task / "solution").mkdir()
    (task / "solution" / "solve.sh").write_text(f"#!/bin/bash\n{solution}\n")
    (task / "tests").mkdir()
    (task / "tests" / "test.sh").write_text(
        "#!/bin/bash\npytest /tests/test_outputs.py -rA\n"
        "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; "
        "else echo 0 > /logs/verifier/reward.txt; fi\n"
    )
    (task / "tests" / "test_outputs.py").write_text(textwrap.dedent(test).lstrip())
    return task


OUTSIDE_APP = f"""
    FROM {UNPULLABLE}
    RUN mkdir -p /data /opt/tools && printf '#!/bin/sh\\necho tool-ok\\n' > /opt/tools/tool \\
        && chmod 755 /opt/tools/tool && ln -s /data/input.txt /opt/tools/input-link
    COPY input.txt /data/input.txt
    ENV PATH=/opt/tools:$PATH GREETING=hello
    WORKDIR /workspace
"""
SUM_TEST = """
    from pathlib import Path

    def test_sum():
        assert Path("/workspace/sum.txt").read_text().strip() == "12"
"""


@pytest.fixture(scope="module")
def outside_app(tmp_path_factory: pytest.TempPathFactory) -> Task:
    root = tmp_path_factory.mktemp("tasks")
    folder = write_task(
        root,
        "sum-outside-app",
        OUTSIDE_APP,
        "awk '{s+=$1} END {print s}' /data/input.txt > sum.txt",
        SUM_TEST,
    )
    return load_dataset(folder).tasks[0]


def test_an_image_is_built_from_the_dockerfile_then_found_in_the_cache(outside_app: Task) -> None:
    engine = find_engine()
    assert not isinstance(engine, str)
    first = build_image(outside_app, engine)
    again = build_image(outside_app, engine)
    assert again.cached and again.tag == first.tag
    assert list(first.substituted) == [UNPULLABLE]
    assert "instead of " + UNPULLABLE in first.note()
    assert first.config.workdir == "/workspace"
    assert first.config.env["GREETING"] == "hello"
    assert first.config.env["PATH"].startswith("/opt/tools:")


def test_an_image_that_names_its_release_is_stood_in_by_that_release(tmp_path: Path) -> None:
    """An unpullable `…/ubuntu:24.04`: the base is Ubuntu 24.04 from its own archive, so a
    package version of that release installs (on Debian 12 it would not exist), its updates are
    there as in the image, and its tests run with its own Python."""
    dockerfile = """
        FROM registry.invalid/library/ubuntu:24.04
        RUN . /etc/os-release && test "$VERSION_ID" = 24.04
        RUN apt-get update && apt-cache policy | grep -q " noble-updates/main " \\
            && apt-get install -y --no-install-recommends ncompress=5.0-1
        WORKDIR /app
    """
    folder = write_task(tmp_path, "on-its-release", dockerfile, "true", SUM_TEST)
    task = load_dataset(folder).tasks[0]
    with image_sandbox(task, tmp_path / "trial") as (sandbox, image):
        assert image.note().startswith("base: local ubuntu-24.04 (localhost/hillclimber/base:")
        # its python3 is 3.12: the tests' environment is made by it, not by this machine's
        made = verifier_env.env_for(["pytest"], sandbox)
        assert (made / "lib" / "python3.12" / "site-packages").is_dir()
        assert made.is_relative_to(tmp_path / "trial")  # the trial's own: no other trial uses it
        assert sandbox.run("mkdir -p /workspace && echo 12 > /workspace/sum.txt", timeout=30).ok
        evaluation = verify(task, sandbox, tmp_path / "verify", cwd=image.config.workdir)
    assert evaluation.passed and evaluation.total == 1, evaluation.digest


def test_a_trial_sees_the_image_as_its_dockerfile_made_it(
    outside_app: Task, tmp_path: Path
) -> None:
    with image_sandbox(outside_app, tmp_path) as (sandbox, image):
        command = "pwd; tool; echo $GREETING; cat /data/input.txt"
        result = sandbox.run(command, timeout=30, cwd=image.config.workdir)
        assert result.ok, result.output
        assert result.stdout.split() == ["/workspace", "tool-ok", "hello", "3", "4", "5"]
        # an absolute link in the image leads inside the image, not to the host's /data
        assert sandbox.read_file("/opt/tools/input-link") == b"3\n4\n5\n"
        devices = sandbox.run("cat /proc/net/dev", timeout=30).stdout.splitlines()[2:]
        # a network of its own: loopback, and slirp4netns's way out (a TB2 task in its image
        # may use the network, as in Harbor's container), never the host's interfaces
        own = ["lo", "tap0"] if slirp_binary() else ["lo"]
        assert sorted(line.split(":")[0].strip() for line in devices) == own
        sandbox.write_file("/etc/written-by-trial", b"x")
        assert sandbox.run("cat /etc/written-by-trial", timeout=30).stdout == "x"
        layer_root = tmp_path / "container" / "root"
        assert subprocess.run(["mountpoint", "-q", str(layer_root)], check=False).returncode == 0
        # a process left running in the layer goes with the trial, before its layer goes
        holding = "cd /data && setsid sleep 300 >/dev/null 2>&1 < /dev/null &"
        assert sandbox.run(holding, timeout=30).ok
    # the layer is gone, the working folder kept, the image untouched
    assert not (tmp_path / "container" / "root").exists()
    assert (tmp_path / "workspace").is_dir()
    with image_sandbox(outside_app, tmp_path / "second") as (sandbox, _):
        assert not sandbox.exists("/etc/written-by-trial")


def test_a_python_image_stood_in_for_has_pythons_headers(tmp_path: Path) -> None:
    """The official Python images carry Python's headers, and a task's C extension builds
    against them (TB2's portfolio-optimization: `Python.h: No such file`)."""
    folder = write_task(
        tmp_path, "py-headers", "FROM registry.invalid/library/python:3.13-slim\nWORKDIR /app\n",
        ":", SUM_TEST,
    )  # fmt: skip
    task = load_dataset(folder).tasks[0]
    with image_sandbox(task, tmp_path / "trial") as (sandbox, image):
        assert "python" in next(iter(image.substituted.values()))
        headers = "import sysconfig; print(sysconfig.get_path('include'))"
        result = sandbox.run(
            f'test -f "$(python -c "{headers}")/Python.h" && echo True && pip --version', timeout=60
        )
        assert result.ok and result.stdout.startswith("True\n"), result.output


def test_the_tests_import_what_the_images_python_finds_through_its_pth_files(
    tmp_path: Path,
) -> None:
    """A package may put its code elsewhere and name it in a `.pth` file of the image's site
    folder (eigenpy, which largest-eigenval's solution installs): the tests import it."""
    where = "$(python3 -c 'import site; print(site.getsitepackages()[0])')"
    dockerfile = (
        "FROM registry.invalid/library/python:3.13-slim\nWORKDIR /app\n"
        "RUN mkdir -p /opt/hcdeep && echo 'VALUE = 7' > /opt/hcdeep/hcdeep.py && "
        f"echo /opt/hcdeep > {where}/hcdeep.pth\n"
    )
    test = "import hcdeep\n\ndef test_deep():\n    assert hcdeep.VALUE == 7\n"
    task = load_dataset(write_task(tmp_path, "pth-task", dockerfile, ":", test)).tasks[0]
    with image_sandbox(task, tmp_path / "trial") as (sandbox, image):
        evaluation = verify(task, sandbox, tmp_path / "verify", cwd=image.config.workdir)
    assert evaluation.passed and evaluation.total == 1, evaluation.digest


@pytest.mark.parametrize(("agent", "passed"), [("oracle", True), ("nop", False)])
def test_a_task_writing_outside_app_runs_in_its_image_and_is_verified_there(
    outside_app: Task, tmp_path: Path, agent: str, passed: bool
) -> None:
    Run(
        run_config([outside_app], agent, images=True, n_concurrent=1),
        [outside_app],
        tmp_path / "run",
    ).execute()
    trial = read_trial(tmp_path / "run" / "sum-outside-app.1" / "result.json")
    assert trial is not None
    assert trial.sandbox == SandboxKind.CONTAINER
    assert trial.passed is passed
    assert trial.exit_reason is (ExitReason.PASSED if passed else ExitReason.FAILED)
    assert trial.image is not None and UNPULLABLE in trial.image.substituted
    assert trial.evaluation is not None and trial.evaluation.total == 1
    if passed:
        kept = tmp_path / "run" / "sum-outside-app.1" / "workspace" / "sum.txt"
        assert kept.read_text().strip() == "12"


def test_a_failing_build_step_is_a_setup_error_naming_its_line(tmp_path: Path) -> None:
    dockerfile = f"""
        FROM {UNPULLABLE}
        RUN echo preparing
        RUN echo 'no such package' >&2 && exit 3
        WORKDIR /workspace
    """
    folder = write_task(tmp_path, "broken-build", dockerfile, "true", SUM_TEST)
    task = load_dataset(folder).tasks[0]
    engine = find_engine()
    assert not isinstance(engine, str)
    with pytest.raises(SetupError) as raised:
        build_image(task, engine)
    message = str(raised.value)
    assert f"{folder / 'environment' / 'Dockerfile'}:3:" in message
    assert "no such package" in message
    Run(run_config([task], "oracle", images=True), [task], tmp_path / "run").execute()
    trial = read_trial(tmp_path / "run" / "broken-build.1" / "result.json")
    assert trial is not None
    assert trial.exit_reason is ExitReason.SETUP_ERROR
    assert "Dockerfile:3:" in trial.message
    placed = place(task, engine, build=True)
    assert placed.where == "no" and "Dockerfile:3:" in placed.reasons[0]


def test_a_task_that_needs_nothing_built_stays_in_bwrap(tmp_path: Path) -> None:
    dockerfile = f"""
        FROM {UNPULLABLE}
        WORKDIR /app
        COPY input.txt /app/input.txt
    """
    folder = write_task(tmp_path, "plain", dockerfile, "true", SUM_TEST)
    task = load_dataset(folder).tasks[0]
    assert place(task, find_engine()).where == "bwrap"


def test_drop_images_removes_what_the_run_built_and_leaves_what_it_found(tmp_path: Path) -> None:
    """A collection larger than the disk: each image the run built goes once its task's trials
    are done (after the last attempt, not the first); an image that was there stays."""
    engine = find_engine()
    assert not isinstance(engine, str)
    fresh = OUTSIDE_APP + f"    RUN echo {tmp_path.name} > /etc/built-for\n"
    found = OUTSIDE_APP + f"    RUN echo {tmp_path.name}-kept > /etc/built-for\n"
    solution = "awk '{s+=$1} END {print s}' /data/input.txt > sum.txt"
    tasks = [
        load_dataset(write_task(tmp_path / "t", name, text, solution, SUM_TEST)).tasks[0]
        for name, text in (("built-here", fresh), ("found-here", found))
    ]
    kept = build_image(tasks[1], engine).tag
    config = run_config(tasks, "oracle", images=True, drop_images=True, n_attempts=2,
                        n_concurrent=1)  # fmt: skip
    Run(config, tasks, tmp_path / "run").execute()
    trials = [read_trial(tmp_path / "run" / f"built-here.{n}" / "result.json") for n in (1, 2)]
    assert all(t is not None and t.passed and t.image is not None for t in trials)
    first, second = (t.image for t in trials if t is not None and t.image is not None)
    assert not first.cached and second.cached and first.tag == second.tag
    assert not engine.exists(first.tag)
    assert engine.exists(kept)
    assert engine.remove(kept) and not engine.exists(kept)
