"""The parts of task images that need no engine: which base stands in, where a failed step is,
how a sandbox path is followed through links, where a task runs when no engine is here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hillclimber.image.base import flavour_for
from hillclimber.image.build import _failed_step, _instruction_line
from hillclimber.image.engine import Podman
from hillclimber.image.placement import Placement, place
from hillclimber.loaders import load_dataset
from hillclimber.sandbox import Layout, Mount, OutsideSandbox

from conftest import FIXTURES


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
