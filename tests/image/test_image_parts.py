"""The parts of task images that need no engine: which base stands in, where a failed step is,
how a sandbox path is followed through links, where a task runs (when no engine is here, when
its build downloads from a host no build reaches, when its solution installs)."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from hillclimber.errors import SetupError
from hillclimber.image import base
from hillclimber.image.base import DEBIAN_12, base_image, flavour_for, release_for, stand_in
from hillclimber.image.build import TaskImage, _failed_step, _instruction_line
from hillclimber.image.engine import ImageConfig, Podman, find_engine, store_lock
from hillclimber.image.placement import (
    Placement,
    image_needs,
    image_reasons,
    needs_image,
    oracle_blockers,
    place,
)
from hillclimber.image.reach import HUGGING_FACE, hosts_in, reachable
from hillclimber.loaders import load_dataset
from hillclimber.sandbox import Layout, Mount, OutsideSandbox
from hillclimber.task import Task

from conftest import FIXTURES, require_images


@pytest.mark.parametrize(
    ("image", "flavour"),
    [
        ("python:3.13-slim-bookworm", "python"),
        ("docker.io/library/python:3.11", "python"),
        ("python@sha256:abc", "python"),
        ("ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624", "plain"),
        ("ubuntu:24.04", "plain"),
        ("ghcr.io/someone/python-tools:1", "plain"),
    ],
)
def test_the_python_flavour_stands_in_only_for_python_images(image: str, flavour: str) -> None:
    assert flavour_for(image) == flavour


@pytest.mark.parametrize(
    ("image", "release"),
    [
        ("ubuntu:24.04", "ubuntu-24.04"),
        ("ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624", "ubuntu-24.04"),
        ("docker.io/library/ubuntu:22.04", "ubuntu-22.04"),
        ("ubuntu:noble", "ubuntu-24.04"),
        ("debian:13.0-slim", "debian-13"),
        ("debian:bullseye-slim", "debian-11"),
        ("debian:12", "debian-12"),
        ("python:3.13-slim-bookworm", "debian-12"),
        ("python:3.12-slim-trixie", "debian-13"),
        ("python:3.11", None),  # says no release: Debian 12 stands in
        ("ubuntu:latest", None),
        ("debian:14", None),  # a release no base is made of here
        ("ghcr.io/someone/tools:1.2", None),
    ],
)
def test_the_release_a_base_is_made_of_is_the_one_the_image_names(
    image: str, release: str | None
) -> None:
    found = release_for(image)
    assert (found.name if found else None) == release


def test_a_release_that_cannot_be_made_here_falls_back_to_debian_12_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its archive unreachable, the base of an `ubuntu:24.04` task is Debian 12's, as before
    releases were matched; the record says why; the release is not tried again."""
    asked: list[str] = []

    def made(engine: Podman, flavour: str, release: base.Release = DEBIAN_12) -> str:
        asked.append(release.name)
        if release != DEBIAN_12:
            raise SetupError(f"mmdebstrap could not make a {release.name} root")
        return f"localhost/hillclimber/base:{release.name}-{flavour}-0123456789"

    monkeypatch.setattr(base, "base_image", made)
    monkeypatch.setattr(base, "unmade", set())
    engine = Podman("/nonexistent/podman")
    tags = [stand_in(engine, "ubuntu:24.04"), stand_in(engine, "ubuntu:24.04")]
    assert asked == ["ubuntu-24.04", "debian-12", "debian-12"]
    assert tags[0] == tags[1] == "localhost/hillclimber/base:debian-12-plain-0123456789"
    assert base.unmade == {"ubuntu-24.04"}
    record = image_of({"ubuntu:24.04": tags[0]})
    assert record.note() == (
        f"base: local debian-12 ({tags[0]}) instead of ubuntu:24.04 "
        "(ubuntu-24.04 could not be made here)"
    )
    matched = "localhost/hillclimber/base:ubuntu-24.04-plain-0123456789"
    assert image_of({"ubuntu:24.04": matched}).note() == (
        f"base: local ubuntu-24.04 ({matched}) instead of ubuntu:24.04"
    )


def image_of(substituted: dict[str, str]) -> TaskImage:
    return TaskImage("t", ImageConfig("id", {}, "/app"), "ubuntu:24.04", substituted, 1.0, False)


DOCKERFILE = """\
# a comment
FROM ubuntu:24.04

ENV A=1
RUN apt-get update && \\
    apt-get install -y r-base
# another comment
WORKDIR /workspace
RUN pip3 install pandas
"""


def test_a_step_number_is_the_line_its_instruction_starts_on() -> None:
    assert [_instruction_line(DOCKERFILE, n) for n in (1, 2, 3, 4, 5, 6)] == [2, 4, 5, 8, 9, None]


def test_a_failed_step_is_named_by_its_line_with_its_words_once_spaced() -> None:
    output = (
        "STEP 1/5: FROM localhost/base\nSTEP 2/5: ENV A=1\n"
        "STEP 3/5: RUN apt-get update &&     apt-get install -y r-base\nE: no r-base\n"
    )
    found = _failed_step(output, DOCKERFILE, Path("/t/Dockerfile"))
    assert found == "/t/Dockerfile:5: `RUN apt-get update && apt-get install -y r-base` failed"
    assert _failed_step("nothing", DOCKERFILE, None) == "Dockerfile: the image build failed"


def test_links_are_followed_as_the_sandbox_sees_them(tmp_path: Path) -> None:
    """An image's absolute link leads inside the image; a link out of every folder is refused."""
    root = tmp_path / "root"
    (root / "data").mkdir(parents=True)
    (root / "data" / "input.txt").write_text("x")
    (root / "opt").mkdir()
    os.symlink("/data/input.txt", root / "opt" / "absolute")
    os.symlink("../data", root / "opt" / "relative")
    os.symlink("/opt/loop", root / "opt" / "loop")
    image = Layout(mounts=(Mount("/", root),))
    assert image.resolve("/opt/absolute")[1] == root / "data" / "input.txt"
    assert image.resolve("/opt/relative/input.txt")[1] == root / "data" / "input.txt"
    with pytest.raises(OutsideSandbox, match="too many levels"):
        image.resolve("/opt/loop")
    app = tmp_path / "app"
    app.mkdir()
    os.symlink("/etc/passwd", app / "out")
    os.symlink("/app/inside.txt", app / "in")
    workspace = Layout(mounts=(Mount("/app", app),))
    assert workspace.resolve("/app/in")[1] == app / "inside.txt"
    with pytest.raises(OutsideSandbox):
        workspace.resolve("/app/out")
    with pytest.raises(OutsideSandbox):
        workspace.resolve("/app/../etc/passwd")


def test_a_task_that_needs_its_image_runs_nowhere_without_an_engine_or_with_a_gpu(
    tmp_path: Path,
) -> None:
    task_dir = tmp_path / "outside"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", task_dir)
    dockerfile = task_dir / "environment" / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + "RUN mkdir -p /opt/tool\n")
    task = load_dataset(task_dir).tasks[0]
    assert place(load_dataset(FIXTURES / "tb2" / "fx-hello").tasks[0], "no podman").where == "bwrap"
    placed = place(task, "no podman")
    assert placed.where == "no"
    assert placed.reasons[-1] == "no image can be built: no podman"
    assert any("/opt/tool" in reason for reason in placed.reasons)
    gpu = task.model_copy(update={"environment": task.environment.model_copy(update={"gpus": 1})})
    never_called = Podman("/nonexistent/podman")  # the GPU decides before any build
    assert place(gpu, never_called, build=True) == Placement("no", ["1 GPU(s): none here"])


def _variant(tmp_path: Path, name: str, dockerfile: str = "", solution: str = "") -> Task:
    """fx-hello with lines added to its Dockerfile and its reference solution."""
    task_dir = tmp_path / name
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", task_dir)
    for path, added in ((task_dir / "environment" / "Dockerfile", dockerfile),
                        (task_dir / "solution" / "solve.sh", solution)):  # fmt: skip
        path.write_text(path.read_text() + added)
    return load_dataset(task_dir).tasks[0]


@pytest.mark.parametrize(
    ("need", "hosts"),
    [
        ("git clone https://github.com/BVLC/caffe.git", [("github.com", 443)]),
        ("download http://mirror.example.invalid:8080/f.tgz", [("mirror.example.invalid", 8080)]),
        ("pip: git+https://github.com/a/b.git", [("github.com", 443)]),
        ("git clone git@gitlab.com:a/b.git", [("gitlab.com", 22)]),
        ("download from Hugging Face gpt2", [("huggingface.co", 443)]),
        ("files from image ghcr.io/a/uv:0.8 (COPY --from, line 3)", [("ghcr.io", 443)]),
        ("files from image busybox:1.36 (COPY --from, line 3)", [("registry-1.docker.io", 443)]),
        ("files built in stage 'build' (COPY --from, line 4)", []),
        ("apt: curl, git", []),
    ],
)
def test_the_hosts_a_build_step_downloads_from_are_read_from_it(
    need: str, hosts: list[tuple[str, int]]
) -> None:
    assert hosts_in(need) == hosts


def test_a_dockerfile_that_downloads_from_a_host_no_build_reaches_runs_nowhere(
    tmp_path: Path,
) -> None:
    """Told before any build (`.invalid` never resolves), with the host named."""
    task = _variant(tmp_path, "clones", "RUN git clone https://hc-nowhere.invalid/x.git /opt/x\n")
    never_called = Podman("/nonexistent/podman")
    placed = place(task, never_called, build=True)
    assert placed.where == "no" and not placed.build_failed
    assert placed.reasons[0].startswith("downloads from hc-nowhere.invalid, which no build")
    assert "git clone https://hc-nowhere.invalid/x.git" in placed.reasons[0]


def test_files_copied_out_of_an_image_no_build_reaches_run_nowhere(tmp_path: Path) -> None:
    """A `FROM` image is replaced by a local base; an image only copied from cannot be."""
    task = _variant(tmp_path, "copies", "COPY --from=hc-nowhere.invalid/uv:1 /uv /bin/uv\n")
    placed = place(task, Podman("/nonexistent/podman"), build=True)
    assert placed.where == "no" and not placed.build_failed
    assert placed.reasons[0].startswith("downloads from hc-nowhere.invalid, which no build")


def test_a_dockerfile_naming_a_file_its_context_lacks_runs_nowhere(tmp_path: Path) -> None:
    """It would fail at that step in any build: said before one, not placed in an image."""
    task = _variant(tmp_path, "lacks", "COPY weights.pt /app/weights.pt\n")
    placed = place(task, Podman("/nonexistent/podman"), build=True)
    assert placed.where == "no" and not placed.build_failed
    assert placed.reasons[0].startswith("unreadable environment:")
    assert "weights.pt" in placed.reasons[0]


def test_what_the_oracle_cannot_do_in_the_tasks_image_is_said_before_a_run(
    tmp_path: Path,
) -> None:
    """A download from a host no trial reaches, and apt versions pinned to a distribution a
    local base stands in for (its registry does not answer): the task runs, its oracle fails."""
    clones = _variant(tmp_path, "clones", solution="git clone https://hc-nowhere.invalid/x.git\n")
    [said] = oracle_blockers(clones, "no podman")
    assert said.startswith("downloads from hc-nowhere.invalid, which no trial here reaches")
    pins = _variant(tmp_path, "pins", solution="apt-get install -y hc-tool=1.2-3ubuntu1\n")
    dockerfile = pins.environment.dockerfile
    assert dockerfile is not None
    lines = dockerfile.read_text().splitlines()
    stood_in = [
        line if not line.startswith("FROM") else "FROM hc-nowhere.invalid/os:1" for line in lines
    ]
    dockerfile.write_text("\n".join(stood_in) + "\n")
    [said] = oracle_blockers(pins, "no podman")
    assert "pins apt versions of hc-nowhere.invalid/os:1 (hc-tool=1.2-3ubuntu1)" in said
    plain = _variant(tmp_path, "plain", solution="apt-get install -y hc-tool\n")
    assert oracle_blockers(plain, "no podman") == []


def test_a_build_that_pins_apt_versions_of_a_stood_in_base_runs_nowhere(tmp_path: Path) -> None:
    """Its build would fail at that step (no such version in the local base's archive): said
    before one, and `place` puts it nowhere. A pin of a release a base is made of (Debian 12's,
    Ubuntu 24.04's) is no reason."""
    pins = _variant(tmp_path, "pins", "RUN apt-get install -y hc-tool=1.2-3ubuntu1\n")
    dockerfile = pins.environment.dockerfile
    assert dockerfile is not None
    text = dockerfile.read_text()
    assert image_needs(pins, "no podman") == []  # fx-hello's own base: not stood in
    lines = [
        ln if not ln.startswith("FROM") else "FROM hc-nowhere.invalid/os:1"
        for ln in text.splitlines()
    ]
    dockerfile.write_text("\n".join(lines) + "\n")
    assert image_needs(pins, "no podman") == [
        "the build pins apt versions of hc-nowhere.invalid/os:1 (hc-tool=1.2-3ubuntu1); a local "
        "debian-12 base stands in for hc-nowhere.invalid/os:1 here"
    ]
    ubuntu = "\n".join(lines).replace("hc-nowhere.invalid/os:1", "hc-nowhere.invalid/ubuntu:24.04")
    dockerfile.write_text(ubuntu + "\n")  # stood in by a base of its release: its versions there
    assert image_needs(pins, "no podman") == []


def test_a_task_whose_solution_installs_runs_in_its_image_where_images_can_be_built(
    tmp_path: Path,
) -> None:
    """bwrap cannot install into the host's read-only system folders; in its image a trial
    installs into its own layer. Without an engine it stays in bwrap (the oracle may fail)."""
    task = _variant(tmp_path, "installs", solution="apt-get install -y hc-no-such-package\n")
    assert needs_image(task)
    assert image_reasons(task) == ["its reference solution needs apt: hc-no-such-package"]
    assert place(task, "no podman") == Placement("bwrap")
    assert place(task, Podman("/nonexistent/podman")) == Placement("image", image_reasons(task))


def test_the_opening_line_says_a_task_with_an_image_runs_in_it() -> None:
    """A run whose tasks may run in their images does not say only "sandbox bwrap"."""
    from hillclimber.cli.options import where_tasks_run
    from hillclimber.sandbox import SandboxKind

    assert where_tasks_run(SandboxKind.BWRAP, images=False) == "sandbox bwrap"
    assert where_tasks_run(SandboxKind.BWRAP, images=True) == (
        "sandbox bwrap, or its image for a task that needs one"
    )
    assert where_tasks_run(SandboxKind.CONTAINER, images=True) == "sandbox container"


def test_every_task_of_the_built_in_suite_stays_in_bwrap() -> None:
    """Milliseconds to set up, nothing to build: the main benchmark's tasks never move."""
    from hillclimber.cli.options import load

    moved = [task.id for task in load("mini", None).tasks if needs_image(task)]
    assert moved == []


@pytest.mark.images
def test_no_image_is_removed_while_a_build_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--drop-images` with two trials at a time: a removal waits for the builds running (a
    build reuses cached layers of other images), and builds run beside each other."""
    require_images()
    engine = find_engine()
    assert not isinstance(engine, str)
    tag = "localhost/hillclimber/lock-test:1"
    assert engine.run("tag", base_image(engine, "plain"), tag).ok  # a name only: no layer
    monkeypatch.setenv("HILLCLIMBER_HOME", str(tmp_path))
    said: list[bool] = []
    with store_lock(exclusive=False), store_lock(exclusive=False):  # two builds at once
        remover = threading.Thread(target=lambda: said.append(engine.remove(tag)))
        remover.start()
        remover.join(timeout=2.0)
        assert remover.is_alive() and engine.exists(tag)  # it waits
    remover.join(timeout=120)
    assert said == [True] and not engine.exists(tag)


def test_tests_that_download_from_a_host_no_trial_reaches_run_nowhere(tmp_path: Path) -> None:
    """They cannot pass here as written (TB2's filter-js-from-html fetches its test cases from
    github.com while it runs): said before a run, in bwrap and in its image alike."""
    task = _variant(tmp_path, "fetching-tests")
    assert place(task, "no podman") == Placement("bwrap")
    tests = task.verification.tests_dir
    assert tests is not None
    with (tests / "test_outputs.py").open("a") as file:
        file.write(
            '\n\ndef test_cases():\n    import urllib.request\n    url = "https://hc.invalid/c.zip"\n'
            '    urllib.request.urlretrieve(url, "/tmp/c.zip")\n'
        )
    said = "the tests download from hc.invalid, which no trial here reaches"
    assert place(task, "no podman").where == "no"
    assert place(task, "no podman").reasons == [f"{said} (download https://hc.invalid/c.zip)"]
    assert image_needs(task, "no podman")[-1].startswith(said)


def test_a_model_the_solutions_program_loads_from_the_hub_is_said_before_a_run(
    tmp_path: Path,
) -> None:
    load = "from transformers import AutoModel; AutoModel.from_pretrained('o/m')"
    task = _variant(tmp_path, "hub", solution=f'python3 -c "{load}"\n')
    said = (
        "downloads from huggingface.co, which no trial here reaches (download from Hugging Face: "
        "o/m (from_pretrained))"
    )
    here = [] if reachable(HUGGING_FACE, 443) else [said]  # a machine that reaches it: no reason
    assert oracle_blockers(task, "no podman") == here
