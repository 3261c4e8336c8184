"""The verifier for real: workspaces built in real sandboxes, the tasks' own tests run by pytest
from the cached verifier environment, and the results read from pytest's report."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from hillclimber.errors import VerifierError
from hillclimber.loaders import load_dataset, load_task
from hillclimber.sandbox import (
    Sandbox,
    SandboxKind,
    create_sandbox,
    pick_sandbox_kind,
    trial_layout,
)
from hillclimber.setup.build import build_workspace
from hillclimber.setup.plan import plan_environment
from hillclimber.task import Task, TaskFormat
from hillclimber.verify import venv as verifier_env
from hillclimber.verify.verifier import Evaluation, verifier_needs, verify

from conftest import FIXTURES, require_sandbox

FIXTURE_TEST_SH = (FIXTURES / "tb2" / "fx-hello" / "tests" / "test.sh").read_text()
"""The fixtures' test.sh: same packages as theirs, so every TB2 task here shares one cached env."""


@pytest.fixture
def best_kind() -> SandboxKind:
    """The best sandbox that works here, for tests that are not about the sandbox kind."""
    kind, _ = pick_sandbox_kind()
    return kind


def trial(kind: SandboxKind, root: Path, task: Task | None = None) -> Sandbox:
    """A sandbox on a fresh trial layout, with the task's workspace built in it."""
    sandbox = create_sandbox(kind, trial_layout(root / "trial"))
    if task is not None:
        build_workspace(plan_environment(task), sandbox, timeout=60)
    return sandbox


def solve(task: Task, sandbox: Sandbox) -> None:
    assert task.solution is not None
    result = sandbox.run(task.solution.read_text(), timeout=60)
    assert result.ok, result.output


def tb2_task(
    root: Path, test_outputs: str, test_sh: str = FIXTURE_TEST_SH, name: str = "t-task"
) -> Task:
    """A Terminal-Bench 2 task folder under `root` with these tests, loaded by the real loader."""
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "instruction.md").write_text("Do the thing.\n")
    (folder / "task.toml").write_text('version = "1.0"\n\n[verifier]\ntimeout_sec = 60.0\n')
    (folder / "tests" / "test.sh").write_text(test_sh)
    (folder / "tests" / "test_outputs.py").write_text(test_outputs)
    return load_task(folder)


# --- Terminal-Bench 2 fixtures ------------------------------------------------------------------


def test_fx_fix_script_partial_then_solved(sandbox_kind: SandboxKind, tmp_path: Path) -> None:
    task = load_task(FIXTURES / "tb2" / "fx-fix-script")
    sandbox = trial(sandbox_kind, tmp_path, task)
    work = tmp_path / "verify"

    before = verify(task, sandbox, work, timeout=60)
    assert not before.passed
    assert (before.passing, before.total) == (1, 3)
    assert before.progress == pytest.approx(1 / 3)
    assert before.reward == 0.0
    assert "test_sample" in before.digest
    assert "test_ties_alphabetical" in before.digest
    assert "test_file_kept" not in before.digest
    assert not before.timed_out
    # test.sh's own `cp /tests/sample.txt /app/sample.txt` ran in the workspace
    sample = (FIXTURES / "tb2/fx-fix-script/tests/sample.txt").read_bytes()
    assert sandbox.host_path("/app/sample.txt").read_bytes() == sample

    solve(task, sandbox)
    after = verify(task, sandbox, work, timeout=60)
    assert after.passed
    assert (after.passing, after.total) == (3, 3)
    assert after.progress == 1.0
    assert after.reward == 1.0
    assert after.digest == ""
    assert after.summary() == "tests 3/3"

    out = work / "logs" / "verifier"
    assert (out / "reward.txt").read_text().strip() == "1"
    junit = (out / "hillclimber-junit.xml").read_text()
    assert "<testsuite" in junit and "test_ties_alphabetical" in junit
    assert (out / "ctrf.json").is_file()


def test_fx_hello_untouched_fails_every_test(best_kind: SandboxKind, tmp_path: Path) -> None:
    task = load_task(FIXTURES / "tb2" / "fx-hello")
    evaluation = verify(task, trial(best_kind, tmp_path, task), tmp_path / "verify", timeout=60)
    assert not evaluation.passed
    assert (evaluation.passing, evaluation.total) == (0, 2)
    assert evaluation.progress == 0.0
    assert evaluation.reward == 0.0
    assert "test_file_exists" in evaluation.digest
    assert "test_content_exact" in evaluation.digest


def test_each_verification_lays_the_tests_anew(sandbox_kind: SandboxKind, tmp_path: Path) -> None:
    task = load_task(FIXTURES / "tb2" / "fx-fix-script")
    sandbox = trial(sandbox_kind, tmp_path, task)
    work = tmp_path / "verify"
    isolated = sandbox_kind is not SandboxKind.LOCAL
    if isolated:
        assert not sandbox.run("test -e /tests", timeout=20).ok

    first = verify(task, sandbox, work, timeout=60)
    copy = work / "tests" / "test_outputs.py"
    copy.write_text("def test_sample():\n    assert True\n")
    (work / "logs" / "verifier" / "reward.txt").write_text("1\n")

    second = verify(task, sandbox, work, timeout=60)
    assert (second.passed, second.passing, second.total) == (False, 1, 3)
    assert (second.digest, second.reward) == (first.digest, first.reward)
    assert "assert True" not in copy.read_text()
    if isolated:
        original = FIXTURES / "tb2" / "fx-fix-script" / "tests" / "test_outputs.py"
        assert copy.read_text() == original.read_text()
        # the trial's own sandbox never shows the tests or the verifier's folders
        for path in ("/tests", "/logs", "/verifier-env"):
            assert not sandbox.run(f"test -e {path}", timeout=20).ok, path


def test_agent_files_in_app_cannot_stand_in_for_pytest(
    best_kind: SandboxKind, tmp_path: Path
) -> None:
    task = load_task(FIXTURES / "tb2" / "fx-hello")
    sandbox = trial(best_kind, tmp_path, task)
    sandbox.host_path("/app/pytest.py").write_text("import sys\nsys.exit(0)\n")
    evaluation = verify(task, sandbox, tmp_path / "verify", timeout=60)
    assert not evaluation.passed
    assert evaluation.total == 2


def test_tests_run_by_python_m_pytest_import_from_the_working_folder_but_last(
    best_kind: SandboxKind, tmp_path: Path
) -> None:
    """`python -m pytest` puts the working folder on the path, and tests import the agent's
    module from it (TB2's largest-eigenval: `os.chdir("/app")`, then `from eigen import …`);
    here it comes after everything else, so no file there stands in for pytest or a package."""
    test_sh = FIXTURE_TEST_SH.replace("uvx \\\n", "").replace(
        "  -p 3.13 \\\n  -w pytest==8.4.1 \\\n  -w pytest-json-ctrf==0.3.5 \\\n  pytest",
        "pip install pytest==8.4.1 pytest-json-ctrf==0.3.5\npython -m pytest",
    )
    assert "\npython -m pytest --ctrf" in test_sh
    tests = (
        'import os\nos.chdir("/app")\nfrom mine import VALUE\nimport yaml\n'
        "\n\ndef test_value():\n    assert VALUE == 42 and hasattr(yaml, 'safe_load')\n"
    )
    task = tb2_task(tmp_path, tests, test_sh, name="cwd-task")
    sandbox = trial(best_kind, tmp_path, task)
    sandbox.write_file("/app/mine.py", b"VALUE = 42\n")
    sandbox.write_file("/app/yaml.py", b"VALUE = 0\n")
    sandbox.write_file("/app/pytest.py", b"import sys\nsys.exit(0)\n")
    evaluation = verify(task, sandbox, tmp_path / "verify", timeout=60)
    assert evaluation.passed and evaluation.total == 1, evaluation.digest


# --- Terminal-Bench 1 ---------------------------------------------------------------------------


def test_tb1_fx_reverse_lines(best_kind: SandboxKind, tmp_path: Path) -> None:
    task = load_task(FIXTURES / "tb1" / "fx-reverse-lines")
    assert task.format is TaskFormat.TB1
    sandbox = trial(best_kind, tmp_path, task)
    work = tmp_path / "verify"

    before = verify(task, sandbox, work, timeout=60)
    assert not before.passed
    assert (before.passing, before.total) == (1, 2)
    assert "test_reversed" in before.digest

    assert sandbox.run("tac /app/input.txt > /app/reversed.txt", timeout=20).ok
    after = verify(task, sandbox, work, timeout=60)
    assert after.passed
    assert (after.passing, after.total) == (2, 2)
    assert after.reward is None  # TB1 has no reward file: every test must pass


# --- manifest tasks -----------------------------------------------------------------------------


TEST_MANIFEST = {
    "name": "verifier-test-manifest",
    "tasks": [
        {
            "id": "tx-json-ok",
            "description": "Write data.json holding an object whose 'ok' is true",
            "verification": {
                "type": "test",
                "command": "python3 -c \"import json; assert json.load(open('data.json'))['ok']\"",
            },
        }
    ],
}


@pytest.mark.parametrize(
    ("task_id", "solution"),
    [
        ("jx-hello", "printf 'Hello, world!' > hello.txt"),
        ("jx-word-count", "wc -w < document.txt > count.txt"),
        (
            "jx-echo-output",
            "printf 'echo \"Hello from script!\"\\n' > greet.sh && chmod +x greet.sh",
        ),
        ("tx-json-ok", "echo '{\"ok\": true}' > data.json"),
    ],
)
def test_manifest_verification_types(
    task_id: str, solution: str, best_kind: SandboxKind, tmp_path: Path
) -> None:
    if task_id.startswith("tx-"):
        manifest = tmp_path / "manifest.json"
        manifest.write_text(json.dumps(TEST_MANIFEST))
    else:
        manifest = FIXTURES / "json" / "mini-manifest.json"
    task = load_dataset(manifest).get(task_id)
    assert task is not None
    sandbox = trial(best_kind, tmp_path, task)
    work = tmp_path / "verify"

    before = verify(task, sandbox, work, timeout=30)
    assert not before.passed
    assert (before.passing, before.total) == (0, 1)
    assert before.digest
    assert (work / "logs" / "verifier" / "output.txt").is_file()

    assert sandbox.run(solution, timeout=20).ok
    after = verify(task, sandbox, work, timeout=30)
    assert after.passed
    assert (after.passing, after.total) == (1, 1)
    assert (after.reward, after.digest) == (1.0, "")


def test_output_verification_digest_shows_expected_and_actual(
    best_kind: SandboxKind, tmp_path: Path
) -> None:
    task = load_dataset(FIXTURES / "json" / "mini-manifest.json").get("jx-echo-output")
    assert task is not None
    sandbox = trial(best_kind, tmp_path, task)
    assert sandbox.run("echo 'echo Hello there' > greet.sh", timeout=20).ok
    evaluation = verify(task, sandbox, tmp_path / "verify", timeout=30)
    assert not evaluation.passed
    assert "'Hello from script!'" in evaluation.digest
    assert "'Hello there'" in evaluation.digest


# --- limits, rewards, skipped tests, needs ------------------------------------------------------


def test_verifier_timeout(best_kind: SandboxKind, tmp_path: Path) -> None:
    task = tb2_task(
        tmp_path, "import time\n\n\ndef test_slow():\n    time.sleep(30)\n", name="slow"
    )
    evaluation = verify(task, trial(best_kind, tmp_path), tmp_path / "verify", timeout=2)
    assert evaluation.timed_out
    assert not evaluation.passed
    assert "timed out" in evaluation.digest


REWARD_JSON_TEST_SH = FIXTURE_TEST_SH.replace(
    "echo 1 > /logs/verifier/reward.txt", "echo '{\"reward\": REWARD}' > /logs/verifier/reward.json"
).replace(
    "echo 0 > /logs/verifier/reward.txt", "echo '{\"reward\": 0.0}' > /logs/verifier/reward.json"
)


@pytest.mark.parametrize("reward", [1.0, 0.25])
def test_reward_json_is_read(reward: float, best_kind: SandboxKind, tmp_path: Path) -> None:
    assert "reward.txt" not in REWARD_JSON_TEST_SH
    test_sh = REWARD_JSON_TEST_SH.replace("REWARD", str(reward))
    task = tb2_task(tmp_path, "def test_ok():\n    assert True\n", test_sh, name="json-reward")
    work = tmp_path / "verify"
    evaluation = verify(task, trial(best_kind, tmp_path), work, timeout=60)
    assert json.loads((work / "logs/verifier/reward.json").read_text()) == {"reward": reward}
    assert evaluation.reward == reward
    # a TB2 task's reward decides, even when every test passed
    assert (evaluation.passing, evaluation.total) == (1, 1)
    assert evaluation.passed is (reward == 1.0)


SKIPPING_TESTS = """\
import pytest


def test_one():
    assert True


@pytest.mark.skip(reason="not here")
def test_marked_skip():
    assert False


def test_skips_itself():
    pytest.skip("not today")


def test_two():
    assert 1 + 1 == 3
"""


def test_skipped_tests_are_not_counted(best_kind: SandboxKind, tmp_path: Path) -> None:
    task = tb2_task(tmp_path, SKIPPING_TESTS, name="skips")
    evaluation = verify(task, trial(best_kind, tmp_path), tmp_path / "verify", timeout=60)
    assert (evaluation.passing, evaluation.total) == (1, 2)
    assert not evaluation.passed
    assert "test_two" in evaluation.digest
    assert "skip" not in evaluation.digest


def test_tests_checked_out_read_only_may_still_build_into_their_folder(
    best_kind: SandboxKind, tmp_path: Path
) -> None:
    """As root in a container does (TB2's feal-differential-cryptanalysis builds its C module
    in /tests): the fresh copy of the tests is the sandbox's root's to write, whatever the
    modes of the task's own folder."""
    builds = (
        "import pathlib\n\n"
        "def test_builds_beside_itself():\n"
        "    pathlib.Path('/tests/build').mkdir()\n"
        "    pathlib.Path('/tests/test.sh').write_text('changed')\n"
    )
    task = tb2_task(tmp_path, builds)
    tests = tmp_path / "t-task" / "tests"
    for path in tests.iterdir():
        path.chmod(0o444)
    tests.chmod(0o555)
    try:
        evaluation = verify(task, trial(best_kind, tmp_path), tmp_path / "verify", timeout=60)
    finally:
        tests.chmod(0o755)
    assert evaluation.passed, evaluation.digest
    assert (tests / "test.sh").read_text() == FIXTURE_TEST_SH  # the task's own, untouched


def test_fixtures_need_nothing() -> None:
    folders = [FIXTURES / "tb2" / name for name in ("fx-hello", "fx-sales-total", "fx-fix-script")]
    for folder in [*folders, FIXTURES / "tb1" / "fx-reverse-lines"]:
        assert verifier_needs(load_task(folder)) == [], folder
    for task in load_dataset(FIXTURES / "json" / "mini-manifest.json").tasks:
        assert verifier_needs(task) == [], task.id


def test_needs_name_downloads_and_missing_apt_packages(tmp_path: Path) -> None:
    test_sh = (
        "#!/bin/bash\n"
        "apt-get update\n"
        "apt-get install -y hc-no-such-package-xyz curl\n"
        "wget -q https://example.com/expected.csv -O /tmp/expected.csv\n"
        "pytest /tests/test_outputs.py -rA\n"
    )
    task = tb2_task(tmp_path, "def test_ok():\n    assert True\n", test_sh)
    needs = verifier_needs(task)
    assert "the tests download https://example.com/expected.csv" in needs
    [apt] = [need for need in needs if "hc-no-such-package-xyz" in need]
    assert "curl" not in apt  # installed here
    assert len(needs) == 2
    with pytest.raises(VerifierError, match=re.escape("download https://example.com/expected.csv")):
        verify(task, create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path)), tmp_path / "v")


def test_script_without_pytest_is_a_need(tmp_path: Path) -> None:
    test_sh = "#!/bin/bash\ntest -f /app/out.txt && echo 1 > /logs/verifier/reward.txt\n"
    task = tb2_task(tmp_path, "def test_ok():\n    assert True\n", test_sh)
    [need] = verifier_needs(task)
    assert "pytest" in need


def test_task_without_a_verifier_is_an_error(tmp_path: Path) -> None:
    task = Task(id="inline", instruction="say hi", format=TaskFormat.INLINE)
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    with pytest.raises(VerifierError, match="no verifier"):
        verify(task, sandbox, tmp_path / "verify")


def test_progress_of_an_evaluation_without_tests() -> None:
    assert Evaluation(passed=True, passing=0, total=0).progress == 1.0
    assert Evaluation(passed=False, passing=0, total=0).progress == 0.0


def _pytest_task(tmp_path: Path, test_body: str) -> Task:
    """A TB2 task in tmp_path whose test file is `test_body`, with the fixtures' test.sh."""
    folder = tmp_path / "task"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", folder)
    (folder / "tests" / "test_outputs.py").write_text(test_body)
    return load_task(folder)


def test_tests_see_system_packages_and_what_the_agent_installed_but_never_first(
    tmp_path: Path,
) -> None:
    require_sandbox(SandboxKind.BWRAP)
    task = _pytest_task(
        tmp_path,
        "import yaml\nimport hcfake\nimport hcdeep\n\n"
        "def test_both():\n    assert hcfake.VALUE == 42 and hcdeep.VALUE == 7\n",
    )
    sandbox = create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path / "trial"))
    site = verifier_env.user_site()
    # what `pip install --user hcfake` would leave (the sandbox has no network here), and a
    # package whose code lies elsewhere, named by a .pth file of its own (as eigenpy's is)
    deep = f"{site}/hc.prefix/lib"
    for command in (
        f"mkdir -p {site} && echo 'VALUE = 42' > {site}/hcfake.py",
        f"mkdir -p {deep} && echo 'VALUE = 7' > {deep}/hcdeep.py",
        f"echo {deep} > {site}/hcdeep.pth",
    ):
        made = sandbox.run(command, timeout=60)
        assert made.ok, made.output
    evaluation = verify(task, sandbox, tmp_path / "v1")
    assert evaluation.passed, evaluation.digest
    # a fake pytest in the user site cannot stand in for the real one
    for command in (
        f"printf 'import sys\\nsys.exit(0)\\n' > {site}/pytest.py",
        f"echo 'VALUE = 0' > {site}/hcfake.py",
    ):
        assert sandbox.run(command, timeout=60).ok
    evaluation = verify(task, sandbox, tmp_path / "v2")
    assert not evaluation.passed and evaluation.total == 1


def test_a_test_file_that_cannot_be_imported_says_what_is_missing(tmp_path: Path) -> None:
    """pytest's report says only `collection failure`; the digest names the error under it."""
    require_sandbox(SandboxKind.BWRAP)
    task = _pytest_task(tmp_path, "import hc_nowhere\n\n\ndef test_it():\n    pass\n")
    sandbox = create_sandbox(SandboxKind.BWRAP, trial_layout(tmp_path / "trial"))
    evaluation = verify(task, sandbox, tmp_path / "v")
    assert not evaluation.passed and evaluation.total == 1
    assert "collection failure: ModuleNotFoundError: No module named 'hc_nowhere'" in (
        evaluation.digest
    ), evaluation.digest


def test_python_and_pip_commands_exist_in_the_sandbox(
    sandbox_kind: SandboxKind, tmp_path: Path
) -> None:
    sandbox = create_sandbox(sandbox_kind, trial_layout(tmp_path))
    result = sandbox.run("python -c 'print(6 * 7)' && pip --version", timeout=30)
    assert result.ok, result.output
    assert result.stdout.startswith("42")


def test_an_environment_made_by_an_images_python_is_kept_apart_from_this_machines() -> None:
    """The same packages for a 3.12 image and for this machine's python3 are two environments:
    a venv works only under the interpreter it was made by."""
    here = verifier_env.env_dir(["pytest"], standalone=True)
    image = verifier_env.env_dir(["pytest"], standalone=True, image_python="3.12")
    assert here != image and here.parent == image.parent
    assert image == verifier_env.env_dir(["pytest"], standalone=True, image_python="3.12")
    assert verifier_env.user_site("3.12") == "/root/.local/lib/python3.12/site-packages"
    assert verifier_env.user_site() == verifier_env.user_site(verifier_env.host_version())
