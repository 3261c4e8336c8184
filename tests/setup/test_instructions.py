"""A Dockerfile as data (`instructions`): the absolute destination of a COPY (`dest_path`), the
instructions a stage built on another runs, and the reasons a final image cannot be rebuilt
here (`Dockerfile.unsupported`). Most of it is reached through the parser in
tests/image/test_dockerfile.py; this file builds the data directly for the cases it leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.setup.instructions import Copy, Dockerfile, From, Run, Stage


def copy(dest: str, workdir: str = "/app", from_: str | None = None) -> Copy:
    return Copy(9, "COPY", f"x {dest}", ("x",), dest, workdir, from_=from_)


@pytest.mark.parametrize(
    ("dest", "workdir", "path"),
    [
        ("data/", "/app", "/app/data/"),  # a trailing slash: into this folder
        ("data", "/app", "/app/data"),
        ("./", "/app/src", "/app/src/"),
        ("/", "/app", "/"),  # the root keeps one slash
        ("../etc/x.conf", "/app", "/etc/x.conf"),
        ("/opt//tool/./bin/", "/", "/opt/tool/bin/"),
    ],
)
def test_the_destination_is_absolute_and_keeps_a_trailing_slash(
    dest: str, workdir: str, path: str
) -> None:
    assert copy(dest, workdir).dest_path == path


def stage(name: str | None, base: str, *body: Run | Copy, parent: Stage | None = None) -> Stage:
    start = From(1, "FROM", base, image=base, stage=name)
    return Stage(base, name, 1, (start, *body), parent=parent)


def test_a_stage_on_a_stage_runs_its_parents_instructions_first_and_has_its_image() -> None:
    first = Run(2, "RUN", "echo base", "echo base", "/", {})
    second = Run(4, "RUN", "echo final", "echo final", "/", {})
    base = stage("base", "python:3.12", first)
    final = stage("final", "base", second, parent=base)
    assert final.image == "python:3.12"
    texts = [instruction.text for instruction in final.all_instructions]
    assert texts == ["python:3.12", "echo base", "base", "echo final"]


def test_copying_from_a_stage_by_number_is_from_a_built_stage() -> None:
    build = stage("build", "golang:1.22")
    final = stage(None, "debian", copy("/app/tool", from_="0"))
    dockerfile = Dockerfile(Path("/ctx/Dockerfile"), (build, final))
    assert dockerfile.unsupported == ["files built in stage '0' (COPY --from, Dockerfile line 9)"]


def test_a_stage_name_is_matched_without_regard_to_case() -> None:
    build = stage("build", "golang:1.22")
    final = stage(None, "debian", copy("/app/tool", from_="Build"))
    dockerfile = Dockerfile(Path("/ctx/Dockerfile"), (build, final))
    assert dockerfile.unsupported == [
        "files built in stage 'Build' (COPY --from, Dockerfile line 9)"
    ]


def test_a_plain_copy_is_no_reason() -> None:
    dockerfile = Dockerfile(Path("/ctx/Dockerfile"), (stage(None, "debian", copy("/app/")),))
    assert dockerfile.unsupported == []
    assert dockerfile.image == "debian" and dockerfile.env == {}
