"""Building workspaces from task environments, for real in a bwrap sandbox, and the
requirement checks that mark a task `unsupported here` instead of failing at setup."""

from __future__ import annotations

import io
import tarfile
import time
from pathlib import Path

import pytest

from hillclimber.errors import SetupError, Unsupported
from hillclimber.sandbox import (
    Sandbox,
    SandboxKind,
    create_sandbox,
    trial_layout,
)
from hillclimber.setup.build import build_workspace
from hillclimber.setup.plan import (
    CopyStep,
    EnvironmentPlan,
    MakeDirStep,
    RunStep,
    check_task,
    plan_environment,
)
from hillclimber.setup.presence import apt_present, command_available, pip_version
from hillclimber.setup.requirements import analyze_script, render_needs
from hillclimber.shell.split import split_commands
from hillclimber.task import Environment, Task, TaskFormat

from conftest import FIXTURES, docker_task


def tb2_task(name: str) -> Task:
    env = FIXTURES / "tb2" / name / "environment"
    return Task(
        id=name,
        instruction="fixture",
        format=TaskFormat.TB2,
        environment=Environment(dockerfile=env / "Dockerfile", context=env),
    )


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    """A real bwrap sandbox on a fresh trial layout (skipped where bwrap cannot run, not in CI)."""
    from conftest import require_sandbox

    require_sandbox(SandboxKind.BWRAP)
    return create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path / "trial"))


def workspace(sandbox: Sandbox) -> Path:
    return sandbox.layout.workspace


# --- plans of the real fixtures -----------------------------------------------------------------


def test_plan_fx_hello_has_nothing_to_do() -> None:
    plan = plan_environment(tb2_task("fx-hello"))
    assert plan.steps == [] and plan.needs == [] and plan.workdir == "/app"
    assert plan.image == "python:3.13-slim-bookworm"


def test_plan_fx_sales_total() -> None:
    plan = plan_environment(tb2_task("fx-sales-total"))
    assert plan.needs == []
    copy, make, remove = plan.steps
    assert isinstance(copy, CopyStep) and copy.dest == "/app/make_data.py"
    assert copy.sources == (FIXTURES / "tb2/fx-sales-total/environment/make_data.py",)
    assert isinstance(make, RunStep) and make.command == "python3 /app/make_data.py"
    assert isinstance(remove, RunStep) and remove.command == "rm -f /app/make_data.py"
    assert (make.cwd, make.origin) == ("/app", "Dockerfile line 6")


def test_fixtures_are_all_runnable_here() -> None:
    for name in ("fx-hello", "fx-sales-total", "fx-fix-script"):
        assert check_task(tb2_task(name)) == []


def test_build_fx_sales_total_for_real(sandbox: Sandbox) -> None:
    report = build_workspace(plan_environment(tb2_task("fx-sales-total")), sandbox, timeout=60)
    data = workspace(sandbox) / "data"
    assert len(list(data.glob("*.csv"))) == 7
    assert (data / "2026-03-01.csv").read_text().startswith("sku,qty,unit_price")
    assert not (workspace(sandbox) / "make_data.py").exists()
    assert [r.origin for r in report.steps] == [
        "Dockerfile line 5",
        "Dockerfile line 6",
        "Dockerfile line 7",
    ]
    assert all(r.duration_sec >= 0 for r in report.steps) and report.workdir == "/app"


def test_build_fx_fix_script_copies_the_script(sandbox: Sandbox) -> None:
    build_workspace(plan_environment(tb2_task("fx-fix-script")), sandbox, timeout=60)
    source = FIXTURES / "tb2/fx-fix-script/environment/wordfreq.py"
    assert (workspace(sandbox) / "wordfreq.py").read_bytes() == source.read_bytes()


def test_build_tb1_fixture(sandbox: Sandbox) -> None:
    folder = FIXTURES / "tb1" / "fx-reverse-lines"
    task = Task(
        id="fx-reverse-lines",
        instruction="x",
        format=TaskFormat.TB1,
        environment=Environment(dockerfile=folder / "Dockerfile", context=folder),
    )
    build_workspace(plan_environment(task), sandbox, timeout=60)
    assert (workspace(sandbox) / "input.txt").read_text() == "alpha\nbeta\ngamma\ndelta\n"


def test_manifest_setup_commands_run_in_app(sandbox: Sandbox) -> None:
    task = Task(
        id="jx-word-count",
        instruction="x",
        format=TaskFormat.MANIFEST,
        environment=Environment(setup=("printf 'The quick brown fox\\n' > document.txt",)),
    )
    plan = plan_environment(task)
    assert plan.steps == [
        RunStep("printf 'The quick brown fox\\n' > document.txt", "/app", "setup command 1")
    ]
    build_workspace(plan, sandbox, timeout=30)
    assert (workspace(sandbox) / "document.txt").read_text() == "The quick brown fox\n"


# --- requirement detection ----------------------------------------------------------------------


def test_missing_apt_package_is_named_but_installed_one_is_not(tmp_path: Path) -> None:
    assert apt_present("git"), "git is installed on this machine"
    task = docker_task(
        tmp_path,
        "FROM debian\nRUN apt-get update && apt-get install -y git primer3-notreal "
        "emboss-notreal && rm -rf /var/lib/apt/lists/*\n",
    )
    plan = plan_environment(task)
    assert plan.needs == ["apt: primer3-notreal, emboss-notreal"]
    assert not any(isinstance(step, RunStep) for step in plan.steps)
    assert check_task(task) == plan.needs


def test_present_apt_packages_are_skipped_and_the_rest_runs(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian\nWORKDIR /app\n"
        "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \\\n"
        "      --no-install-recommends git && echo built > /app/ok.txt\n",
    )
    plan = plan_environment(task)
    assert plan.needs == []
    assert any(note.startswith("apt: git") for note in plan.satisfied)
    (run,) = [s for s in plan.steps if isinstance(s, RunStep)]
    assert "apt-get" not in run.command and "echo built" in run.command
    build_workspace(plan, sandbox, timeout=30)
    assert (workspace(sandbox) / "ok.txt").read_text() == "built\n"


def test_missing_pip_package_is_a_need(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path, "FROM python:3.12\nRUN pip install --no-cache-dir pytest-notreal-xyz==1.0\n"
    )
    assert check_task(task) == ["pip: pytest-notreal-xyz"]


def present_pip_package() -> str:
    for name in ("pyyaml", "six", "setuptools", "pip"):
        if pip_version(name) is not None:
            return name
    pytest.skip("the sandbox's python3 has none of the usual packages")


def test_present_pip_package_is_satisfied(tmp_path: Path) -> None:
    name = present_pip_package()
    task = docker_task(
        tmp_path,
        f"FROM python:3.12\nRUN python3 -m pip install -U '{name}>=0.1' --break-system-packages\n",
    )
    plan = plan_environment(task)
    assert plan.needs == [] and plan.steps == []
    assert plan.satisfied[0].startswith(f"pip: {name} ")
    assert "Dockerfile line 2" in plan.satisfied[0]


def test_pip_requirements_file_from_the_context(tmp_path: Path) -> None:
    name = present_pip_package()
    requirements = f"# pinned\n{name}>=0.1\nnotreal-pkg-abc[extra]==2.0 ; python_version>'3'\n"
    task = docker_task(
        tmp_path,
        "FROM python:3.12\nWORKDIR /app\nCOPY requirements.txt .\n"
        "RUN pip install -r requirements.txt\n",
        {"requirements.txt": requirements},
    )
    assert check_task(task) == ["pip: notreal-pkg-abc"]


def test_downloads_are_needs(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian\nRUN curl -fsSL https://example.com/x.tar.gz | tar xz\n"
        "RUN git clone --depth 1 https://github.com/example/repo.git /app/repo\n"
        "ADD https://example.com/data.csv /app/\n",
    )
    assert check_task(task) == [
        "download https://example.com/x.tar.gz",
        "git clone https://github.com/example/repo.git",
        "download https://example.com/data.csv",
    ]


def test_copy_outside_the_sandbox_is_a_need(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian\nCOPY tool.sh /usr/local/bin/tool\nCOPY x /opt/x\n",
        {"tool.sh": "echo", "x": "x"},
    )
    assert check_task(task) == [
        "copies to /usr/local/bin/tool, outside /app",
        "copies to /opt/x, outside /app",
    ]


def test_writes_outside_are_needs_unless_already_there(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian\nRUN mkdir -p /opt/tool-notreal && echo x > /etc/notreal.conf\n"
        "RUN ln -sf /usr/bin/python3 /usr/bin/python3\n",
    )
    plan = plan_environment(task)
    assert plan.needs == [
        "writes /opt/tool-notreal, outside /app",
        "writes /etc/notreal.conf, outside /app",
    ]
    assert any("already exists" in note for note in plan.satisfied)


def test_multi_stage_copy_from_is_a_need(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian AS build\nRUN echo build\nFROM debian\nCOPY --from=build /out /app/out\n",
    )
    assert check_task(task) == ["files built in stage 'build' (COPY --from, Dockerfile line 4)"]


def test_missing_commands_and_base_image_toolchains(tmp_path: Path) -> None:
    if command_available("cargo-notreal-xyz"):
        pytest.skip("unexpected command present")
    task = docker_task(tmp_path, "FROM debian\nRUN cargo-notreal-xyz build --release\n")
    assert check_task(task) == ["commands: cargo-notreal-xyz"]
    if not command_available("julia"):
        julia = docker_task(tmp_path / "j", "FROM julia:1.10\n")
        assert check_task(julia) == ["julia (from base image julia:1.10)"]


def test_unreadable_dockerfile_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    task = docker_task(tmp_path, "FROM debian\nCOPY missing.txt /app/\n")
    (reason,) = check_task(task)
    assert "Dockerfile line 2" in reason and "missing.txt not found" in reason


def test_build_refuses_a_plan_with_needs(sandbox: Sandbox) -> None:
    plan = EnvironmentPlan(needs=["apt: primer3"])
    with pytest.raises(Unsupported) as caught:
        build_workspace(plan, sandbox, timeout=10)
    assert caught.value.reasons == ["apt: primer3"]


# --- building -----------------------------------------------------------------------------------


def test_failing_run_names_step_exit_code_and_output(tmp_path: Path, sandbox: Sandbox) -> None:
    task = docker_task(
        tmp_path, "FROM debian\nWORKDIR /app\nRUN echo first\nRUN echo 'about to fail' && exit 3\n"
    )
    with pytest.raises(SetupError) as caught:
        build_workspace(plan_environment(task), sandbox, timeout=30)
    message = str(caught.value)
    assert "Dockerfile line 4" in message
    assert "exit code 3" in message
    assert "about to fail" in message


def test_setup_time_budget_is_shared(tmp_path: Path, sandbox: Sandbox) -> None:
    task = docker_task(tmp_path, "FROM debian\nRUN sleep 0.5\nRUN sleep 5\n")
    started = time.monotonic()
    with pytest.raises(SetupError, match="timed out"):
        build_workspace(plan_environment(task), sandbox, timeout=1.5)
    assert time.monotonic() - started < 30  # the budget really cut the 5 s step


def test_copy_dot_respects_dockerignore_and_leaves_out_the_dockerfile(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    task = docker_task(
        tmp_path,
        "FROM python:3.12\nWORKDIR /app\nCOPY . .\n",
        {
            ".dockerignore": "*.log\nbuild/\n**/secret.txt\n!keep.log\n",
            "main.py": "print(1)\n",
            "pkg/mod.py": "x = 1\n",
            "pkg/secret.txt": "no\n",
            "debug.log": "no\n",
            "keep.log": "yes\n",
            "build/out.bin": "no\n",
        },
    )
    build_workspace(plan_environment(task), sandbox, timeout=30)
    got = sorted(
        p.relative_to(workspace(sandbox)).as_posix() for p in workspace(sandbox).rglob("*")
    )
    assert got == ["keep.log", "main.py", "pkg", "pkg/mod.py"]


def test_workdir_env_chmod_heredoc_and_relative_copy(tmp_path: Path, sandbox: Sandbox) -> None:
    task = docker_task(
        tmp_path,
        'FROM debian\nWORKDIR /app/project\nENV GREETING=hello NAME="the world"\n'
        "COPY --chmod=755 run.sh bin/\n"
        "COPY <<EOF notes.txt\nsay $GREETING\nEOF\n"
        'RUN echo "$GREETING, $NAME" > greeting.txt && ./bin/run.sh > ran.txt\n',
        {"run.sh": "#!/bin/sh\necho ran in $(pwd)\n"},
    )
    plan = plan_environment(task)
    assert plan.workdir == "/app/project"
    assert plan.env == {"GREETING": "hello", "NAME": "the world"}
    assert isinstance(plan.steps[0], MakeDirStep)
    report = build_workspace(plan, sandbox, timeout=30)
    project = workspace(sandbox) / "project"
    assert (project / "greeting.txt").read_text() == "hello, the world\n"
    assert (project / "ran.txt").read_text() == "ran in /app/project\n"
    assert (project / "notes.txt").read_text() == "say hello\n"
    assert (project / "bin" / "run.sh").stat().st_mode & 0o777 == 0o755
    assert report.env == plan.env and report.workdir == "/app/project"


def test_add_unpacks_local_tar_archives(tmp_path: Path, sandbox: Sandbox) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian\nADD data.tar.gz /app/data/\nADD plain.txt /app/\n",
        {"plain.txt": "p"},
    )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        payload = b"inside\n"
        info = tarfile.TarInfo("nested/file.txt")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    (tmp_path / "environment" / "data.tar.gz").write_bytes(buffer.getvalue())
    build_workspace(plan_environment(task), sandbox, timeout=30)
    assert (workspace(sandbox) / "data" / "nested" / "file.txt").read_text() == "inside\n"
    assert (workspace(sandbox) / "plain.txt").read_text() == "p"


def test_copy_into_existing_folder_and_glob(tmp_path: Path, sandbox: Sandbox) -> None:
    task = docker_task(
        tmp_path,
        "FROM debian\nWORKDIR /app\nRUN mkdir -p /app/src\nCOPY a.py src\nCOPY *.txt /app/texts/\n",
        {"a.py": "a", "one.txt": "1", "two.txt": "2"},
    )
    build_workspace(plan_environment(task), sandbox, timeout=30)
    assert (workspace(sandbox) / "src" / "a.py").read_text() == "a"
    assert sorted(p.name for p in (workspace(sandbox) / "texts").iterdir()) == [
        "one.txt",
        "two.txt",
    ]


def test_a_read_only_file_copied_in_is_the_roots_to_write(tmp_path: Path, sandbox: Sandbox) -> None:
    """Docker keeps a COPY's mode, and its root writes a read-only file anyway; the sandbox's
    root has no capabilities, so the file gets its owner's write bit (a task folder checked
    out read-only: TB2's circuit-fibsqrt writes its gates.txt over the one copied in)."""
    task = docker_task(
        tmp_path, "FROM debian\nWORKDIR /app\nCOPY gates.txt /app\n", {"gates.txt": "a"}
    )
    (tmp_path / "environment" / "gates.txt").chmod(0o444)
    build_workspace(plan_environment(task), sandbox, timeout=30)
    assert (workspace(sandbox) / "gates.txt").stat().st_mode & 0o777 == 0o644
    assert sandbox.run("echo b > gates.txt", timeout=10, cwd="/app").ok
    assert (workspace(sandbox) / "gates.txt").read_text() == "b\n"


# --- the shell reader and the cache -------------------------------------------------------------


def test_split_commands_respects_quotes_comments_heredocs_and_subshells() -> None:
    script = (
        "echo 'a && b; c' \"$(echo x; y)\" && (cd /app && make) || { echo failed; exit 1; }\n"
        "# apt-get install commented-out\n"
        "cat > f.py <<'EOF'\napt-get install inside-heredoc\nEOF\n"
        "if [ -f x ]; then pip install numpy; fi"
    )
    texts = [c.text for c in split_commands(script)]
    assert texts == [
        "echo 'a && b; c' \"$(echo x; y)\"",
        "cd /app",
        "make",
        "echo failed",
        "exit 1",
        "cat > f.py <<'EOF'",
        "[ -f x ]",
        "pip install numpy",
    ]


def test_skipped_installs_are_replaced_in_place() -> None:
    analysis = analyze_script("apt-get update && apt-get clean\nmkdir -p /app/x && pip cache purge")
    assert analysis.command == "true && true\nmkdir -p /app/x && true"
    assert analyze_script("apt-get update && rm -rf /var/lib/apt/lists/*").command is None


def test_render_needs_groups_packages() -> None:
    needs = [("apt", "a"), (None, "download u"), ("apt", "b"), ("pip", "c"), ("apt", "a")]
    assert render_needs(needs) == ["apt: a, b", "pip: c", "download u"]


def test_check_task_names_only_what_is_missing_and_is_stable(tmp_path: Path) -> None:
    task = docker_task(
        tmp_path,
        "FROM python:3.12\nRUN apt-get install -y git notreal-x && pip install pyyaml notreal-y\n",
    )
    first = check_task(task)
    assert first == ["apt: notreal-x", "pip: notreal-y"]
    assert all(check_task(task) == first for _ in range(3))


def test_a_script_that_a_run_step_calls_is_checked_too(tmp_path: Path) -> None:
    setup = (
        "set -e\ngit clone https://example.com/some/repo.git /app/repo\n"
        "apt-get install -y hc-nope\n"
    )
    task = docker_task(
        tmp_path,
        "FROM debian\nWORKDIR /app\nCOPY setup.sh ./\nRUN bash /app/setup.sh\n",
        {"setup.sh": setup},
    )
    needs = check_task(task)
    assert any("git clone https://example.com/some/repo.git" in need for need in needs)
    assert any("hc-nope" in need for need in needs)


def test_arithmetic_and_shell_functions_are_not_missing_commands() -> None:
    script = (
        "count() { echo 1; }\nfunction total { echo 2; }\n"
        "if (( a >= b )); then count; fi\n(( n++ ))\nx=$((1 + 2))\n"
    )
    texts = [c.text for c in split_commands(script)]
    assert "a >= b" not in texts and "n++" not in texts
    assert analyze_script(script).needs == []
    assert analyze_script("hc-not-a-command --flag").needs == [("commands", "hc-not-a-command")]


def test_python_and_pip_count_as_available_commands() -> None:
    assert command_available("python") and command_available("pip")
