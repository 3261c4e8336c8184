"""Planning a task's environment without running anything (`plan`): the copy steps a Dockerfile's
COPY and ADD become, WORKDIR folders, requirements files found through the planned copies, the
toolchain a base image brings (`base_image_needs`), what a reference solution needs
(`solution_needs`), and how steps describe themselves. Plans of the real fixtures, needs of
installs and downloads, and building are in tests/image/test_environment.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.errors import TaskLoadError
from hillclimber.setup.plan import (
    CopyStep,
    EnvironmentPlan,
    MakeDirStep,
    RunStep,
    base_image_needs,
    plan_environment,
    solution_needs,
)
from hillclimber.setup.presence import command_available
from hillclimber.task import Environment, Task, TaskFormat

from conftest import docker_task


def copies(plan: EnvironmentPlan) -> list[CopyStep]:
    return [step for step in plan.steps if isinstance(step, CopyStep)]


# -- COPY and ADD -----------------------------------------------------------------------------


def test_copy_with_chown_and_chmod_into_a_folder(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM python:3.12\nWORKDIR /app\nCOPY --chown=app:app --chmod=0755 run.sh tools/\n",
        {"run.sh": "#!/bin/sh\necho ran\n"},
    )
    (step,) = copies(plan_environment(task))
    context = (tmp_path / "environment").resolve()
    assert step.sources == (context / "run.sh",)
    assert step.dest == "/app/tools" and step.into_dir
    assert step.chmod == 0o755 and not step.extract
    assert step.origin == "Dockerfile line 3"


def test_several_sources_or_a_glob_go_into_a_folder(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian\nWORKDIR /app\nCOPY a.txt b.txt docs\nCOPY *.csv data\n",
        {"a.txt": "a", "b.txt": "b", "x.csv": "1", "y.csv": "2"},
    )
    several, glob = copies(plan_environment(task))
    assert (several.dest, several.into_dir) == ("/app/docs", True)
    assert [p.name for p in glob.sources] == ["x.csv", "y.csv"]
    assert glob.into_dir and glob.written == ("*.csv",)


def test_a_single_file_is_copied_as_the_file_named(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nCOPY main.py /app/solve.py\n", {"main.py": "x"})
    (step,) = copies(plan_environment(task))
    assert (step.dest, step.into_dir) == ("/app/solve.py", False)


def test_a_copied_folder_leaves_out_what_dockerignore_excludes(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM python:3.12\nCOPY src/ /app/src\n",
        {"src/main.py": "x", "src/debug.log": "x", ".dockerignore": "**/*.log\n"},
    )
    (step,) = copies(plan_environment(task))
    context = (tmp_path / "environment").resolve()
    assert step.excluded == frozenset({context / "src" / "debug.log"})


def test_a_copy_heredoc_is_an_inline_file(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nCOPY <<EOF /app/conf.ini\n[server]\nEOF\n")
    (step,) = copies(plan_environment(task))
    assert step.sources == () and step.inline == (("EOF", "[server]\n"),)
    assert step.describe() == "copy <<EOF to /app/conf.ini"


def test_add_of_a_local_archive_is_extracted(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nADD data.tar.gz /app/data/\n", {"data.tar.gz": ""})
    (step,) = copies(plan_environment(task))
    assert step.extract and step.into_dir and step.dest == "/app/data"


def test_a_source_outside_the_build_context_is_an_error(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nCOPY ../secret.txt /app/\n")
    with pytest.raises(TaskLoadError, match=r"COPY source \.\./secret\.txt is outside"):
        plan_environment(task)


def test_a_glob_that_matches_nothing_is_an_error(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nCOPY *.whl /app/\n")
    with pytest.raises(TaskLoadError) as caught:
        plan_environment(task)
    assert caught.value.field == "Dockerfile line 2"
    assert "COPY source *.whl not found in the build context" in caught.value.problem


# -- WORKDIR ----------------------------------------------------------------------------------


def test_a_workdir_in_app_is_made_and_a_sandbox_folder_is_not(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nWORKDIR /app/project\nWORKDIR /tmp\nWORKDIR /app\n")
    plan = plan_environment(task)
    assert plan.steps == [MakeDirStep("/app/project", "Dockerfile line 2")]
    assert plan.workdir == "/app" and plan.needs == []


def test_a_workdir_outside_is_fine_if_it_exists_here_and_a_need_if_not(tmp_path: Path) -> None:
    there = docker_task(tmp_path / "there", "FROM debian\nWORKDIR /usr/share\n")
    assert plan_environment(there).needs == []
    missing = docker_task(tmp_path / "missing", "FROM debian\nWORKDIR /opt/hc-notreal\n")
    assert plan_environment(missing).needs == ["workdir /opt/hc-notreal, outside /app"]


def test_without_a_workdir_the_agent_starts_in_app(tmp_path: Path) -> None:
    assert plan_environment(docker_task(tmp_path, "FROM debian\n")).workdir == "/app"


# -- RUN --------------------------------------------------------------------------------------


def test_a_requirements_file_is_found_through_a_copied_folder(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM python:3.12\nWORKDIR /app\nCOPY src/ /app/src/\n"
        "RUN python3 -m pip install -r src/requirements.txt\n",
        {"src/requirements.txt": "-r base.txt\n", "src/base.txt": "hc-notreal-from-base\n"},
    )
    assert plan_environment(task).needs == ["pip: hc-notreal-from-base"]


def test_env_values_reach_the_run_steps(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM python:3.12\nENV PKG=hc-notreal-env\nRUN pip install $PKG\n")
    assert plan_environment(task).needs == ["pip: hc-notreal-env"]


def test_a_run_step_keeps_its_folder_origin_and_variables(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nWORKDIR /app\nENV A=1\nRUN echo $A > a.txt\n")
    (run,) = [step for step in plan_environment(task).steps if isinstance(step, RunStep)]
    assert run == RunStep("echo $A > a.txt", "/app", "Dockerfile line 4", {"A": "1"})


def test_a_setup_command_that_needs_something_is_left_out_of_the_steps() -> None:
    setup = ("apt-get install -y hc-notreal-m", "echo hi > a.txt")
    task = Task(
        id="m", instruction="x", format=TaskFormat.MANIFEST, environment=Environment(setup=setup)
    )
    plan = plan_environment(task)
    assert plan.needs == ["apt: hc-notreal-m"] and not plan.runnable
    assert plan.steps == [RunStep("echo hi > a.txt", "/app", "setup command 2")]


# -- base_image_needs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "image", ["ubuntu:22.04", "debian:bookworm-slim", "alpine", "ghcr.io/example/tools:1"]
)
def test_a_base_image_of_no_language_brings_no_toolchain(image: str) -> None:
    assert base_image_needs(image) == []


def test_a_python_image_needs_nothing_where_python3_is() -> None:
    assert command_available("python3")
    assert base_image_needs("python:3.12-slim-bookworm") == []


@pytest.mark.parametrize(
    ("image", "tool"),
    [
        ("haskell:9.8", "ghc"),
        ("docker.io/library/haskell:9@sha256:0123abcd", "ghc"),
        ("golang:1.22-bookworm", "go"),
        ("rust:1.75", "cargo"),
        ("r-base:4.3.2", "R"),
        ("julia", "julia"),
    ],
)
def test_a_language_image_needs_its_toolchain_where_it_is_missing(image: str, tool: str) -> None:
    needed = [] if command_available(tool) else [f"{tool} (from base image {image})"]
    assert base_image_needs(image) == needed


def test_an_image_whose_name_only_starts_like_a_language_brings_none() -> None:
    assert base_image_needs("haskellish-tools:1") == []


# -- solution_needs ---------------------------------------------------------------------------


def task_with(solution: Path | None = None, inline: str | None = None) -> Task:
    return Task(
        id="s",
        instruction="x",
        format=TaskFormat.MANIFEST,
        solution=solution,
        solution_inline=inline,
    )


def test_an_inline_solution_names_what_it_installs_and_downloads() -> None:
    inline = (
        "apt-get install -y hc-notreal-sol && pip install hc-notreal-p\n"
        "curl -O https://example.com/f.bin\n"
    )
    assert solution_needs(task_with(inline=inline)) == [
        "apt: hc-notreal-sol",
        "pip: hc-notreal-p",
        "download https://example.com/f.bin",
    ]


def test_a_solution_file_is_read(tmp_path: Path) -> None:
    script = tmp_path / "solve.sh"
    script.write_text("#!/bin/bash\ncd /app\ngit clone https://github.com/example/y.git\n")
    assert solution_needs(task_with(solution=script)) == [
        "git clone https://github.com/example/y.git"
    ]


def test_no_solution_or_a_missing_file_needs_nothing(tmp_path: Path) -> None:
    assert solution_needs(task_with()) == []
    assert solution_needs(task_with(solution=tmp_path / "missing.sh")) == []


# -- describing steps -------------------------------------------------------------------------


def test_steps_describe_themselves_for_messages() -> None:
    run = RunStep("apt-get update && apt-get install -y curl", "/app", "Dockerfile line 3")
    assert run.describe() == "run apt-get update && apt-get install -y curl"
    copy = CopyStep((Path("/ctx/src"),), "/app", "Dockerfile line 4", written=(".",))
    assert copy.describe() == "copy . to /app"
    assert CopyStep((Path("/ctx/a.py"),), "/app/a.py", "o").describe() == "copy a.py to /app/a.py"
    assert MakeDirStep("/app/x", "o").describe() == "mkdir /app/x"


def test_a_long_or_several_line_command_is_summed_up_by_its_first_line() -> None:
    assert RunStep("x" * 100, "/app", "o").summary == "x" * 77 + "..."
    assert RunStep("echo a\necho b", "/app", "o").summary == "echo a..."
    assert RunStep("", "/app", "o").summary == ""
