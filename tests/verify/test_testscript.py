"""Making Terminal-Bench test scripts run offline: the fixtures' scripts and the other shapes real
Terminal-Bench 2 scripts take (uv venvs, pip requirement files, downloads, apt installs)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hillclimber.verify.testscript import JUNIT_PATH, merge_packages, translate
from hillclimber.verify.testscript import TestScript as Translated  # not collected as a test class

from conftest import FIXTURES

HC_PYTEST = '"$HC_PYTHON" -P -s -m pytest'
TB2_FIXTURES = ["fx-hello", "fx-sales-total", "fx-fix-script"]

UV_BOOTSTRAP = {
    "apt-get update\n": ":\n",
    "apt-get install -y curl\n": ":\n",
    "curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh\n": ": | :\n",
    "source $HOME/.local/bin/env\n": ":\n",
}
UVX_BLOCK = (
    "uvx \\\n"
    "  -p 3.13 \\\n"
    "  -w pytest==8.4.1 \\\n"
    "  -w pytest-json-ctrf==0.3.5 \\\n"
    "  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA\n"
)
REWARD_BLOCK = (
    "if [ $? -eq 0 ]; then\n"
    "  echo 1 > /logs/verifier/reward.txt\n"
    "else\n"
    "  echo 0 > /logs/verifier/reward.txt\n"
    "fi\n"
)
PLACEHOLDER = "<pytest call>\n"


def tb2_script(name: str) -> tuple[str, Translated]:
    tests = FIXTURES / "tb2" / name / "tests"
    original = (tests / "test.sh").read_text()
    return original, translate(original, tests)


def pytest_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if HC_PYTEST in line]


def check_pytest_call(line: str, original_args: str) -> None:
    """One rewritten pytest call: our python, our junit report, then the original arguments."""
    assert line.startswith(HC_PYTEST + " ")
    assert f"--junitxml={JUNIT_PATH}" in line.split()
    assert line.endswith(" " + original_args)


def bash_syntax_ok(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, check=False)


# --- the fixtures' own scripts ------------------------------------------------------------------


@pytest.mark.parametrize("name", TB2_FIXTURES)
def test_tb2_fixture_script_keeps_everything_but_the_bootstrap_and_the_pytest_call(
    name: str,
) -> None:
    original, script = tb2_script(name)
    [call] = pytest_lines(script.text)
    check_pytest_call(call, "--ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA")

    # Everything else is the original text, with each bootstrap command replaced by `:`.
    expected = original
    for before, after in UV_BOOTSTRAP.items():
        assert before in expected
        expected = expected.replace(before, after)
    assert UVX_BLOCK in expected
    expected = expected.replace(UVX_BLOCK, PLACEHOLDER)
    assert script.text.replace(call + "\n", PLACEHOLDER) == expected

    assert REWARD_BLOCK in script.text
    commands = [ln for ln in script.text.splitlines() if not ln.lstrip().startswith("#")]
    for gone in ("apt-get", "curl", "astral.sh", "uvx", "source"):
        assert not [ln for ln in commands if gone in ln]


def test_fx_fix_script_keeps_its_copy_step_verbatim() -> None:
    original, script = tb2_script("fx-fix-script")
    copy_line = "cp /tests/sample.txt /app/sample.txt\n"
    assert copy_line in original
    assert copy_line in script.text
    # the copy still comes before the tests run
    assert script.text.index(copy_line) < script.text.index(HC_PYTEST)


@pytest.mark.parametrize("name", TB2_FIXTURES)
def test_tb2_fixture_script_packages_needs_and_notes(name: str) -> None:
    _, script = tb2_script(name)
    assert sorted(script.packages) == ["pytest-json-ctrf==0.3.5", "pytest==8.4.1"]
    assert script.apt_packages == ["curl"]
    assert script.needs == []
    assert script.runs_pytest
    notes = " | ".join(script.notes)
    assert "apt-get install curl" in notes
    assert "uv installer" in notes
    # uvx asked for Python 3.13; the cached environment uses the sandbox's python3
    assert "python3" in notes


def test_tb1_run_tests_script() -> None:
    folder = FIXTURES / "tb1" / "fx-reverse-lines"
    original = (folder / "run-tests.sh").read_text()
    script = translate(original, folder / "tests")
    [call] = pytest_lines(script.text)
    check_pytest_call(call, "$TEST_DIR/test_outputs.py -rA")
    assert script.text == original.replace("pip install pytest==8.4.1\n", ":\n").replace(
        "pytest $TEST_DIR/test_outputs.py -rA\n", call + "\n"
    )
    assert script.packages == ["pytest==8.4.1"]
    assert script.apt_packages == []
    assert script.needs == []
    assert script.runs_pytest


def test_tb1_notes_mention_the_skipped_pip_install() -> None:
    folder = FIXTURES / "tb1" / "fx-reverse-lines"
    script = translate((folder / "run-tests.sh").read_text(), folder / "tests")
    assert any("pip install" in note for note in script.notes)


@pytest.mark.parametrize(
    "path",
    [
        *(f"tb2/{name}/tests/test.sh" for name in TB2_FIXTURES),
        "tb1/fx-reverse-lines/run-tests.sh",
    ],
)
def test_translated_fixture_scripts_are_valid_shell(path: str) -> None:
    file = FIXTURES / path
    assert bash_syntax_ok(file.read_text()).returncode == 0  # the check itself works
    result = bash_syntax_ok(translate(file.read_text(), file.parent).text)
    assert result.returncode == 0, result.stderr


def test_bash_syntax_check_catches_broken_shell() -> None:
    assert bash_syntax_ok("if true; then\n  echo x\n").returncode != 0


# --- other shapes of real test scripts ----------------------------------------------------------


UV_VENV_SCRIPT = """\
#!/bin/bash
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh
source $HOME/.local/bin/env
uv venv .tbench-testing
source .tbench-testing/bin/activate
uv pip install pytest==8.4.1 requests
uv run pytest /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""


def test_uv_venv_activate_and_uv_pip_install() -> None:
    script = translate(UV_VENV_SCRIPT)
    lines = script.text.splitlines()
    assert lines[:8] == ["#!/bin/bash", ":", ":", ": | :", ":", ":", ":", ":"]
    [call] = pytest_lines(script.text)
    assert call == lines[8]
    check_pytest_call(call, "/tests/test_outputs.py -rA")
    assert script.text.endswith(REWARD_BLOCK)
    assert sorted(script.packages) == ["pytest==8.4.1", "requests"]
    assert script.needs == []
    assert script.runs_pytest
    assert bash_syntax_ok(script.text).returncode == 0


def test_uv_run_with_packages() -> None:
    script = translate(
        "uv run --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 "
        "pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py\n"
    )
    [call] = pytest_lines(script.text)
    check_pytest_call(call, "--ctrf /logs/verifier/ctrf.json /tests/test_outputs.py")
    assert sorted(script.packages) == ["pytest-json-ctrf==0.3.5", "pytest==8.4.1"]


def test_pip_requirements_file_in_the_tests_folder_is_read(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text(
        "# test dependencies\nnumpy==1.26.4\n\nrequests\npytest==8.4.1\n"
    )
    script = translate(
        "pip install -r /tests/requirements.txt\npython3 -m pytest /tests/test_outputs.py\n",
        tmp_path,
    )
    assert script.text.startswith(":\n")
    assert sorted(script.packages) == ["numpy==1.26.4", "pytest==8.4.1", "requests"]
    assert script.needs == []


def test_missing_pip_requirements_file_is_a_need(tmp_path: Path) -> None:
    script = translate("pip install -r requirements.txt\npytest /tests\n", tmp_path)
    assert script.needs == ["requirements file requirements.txt"]
    assert script.packages == ["pytest"]


def test_python_m_pytest_is_rewritten() -> None:
    script = translate("cd /app\npython3 -m pytest /tests/test_outputs.py -v\n")
    assert script.text.startswith("cd /app\n")
    call = script.text.splitlines()[1]
    # as `python -m` does, the working folder is on the path, but after everything else
    assert call.startswith('"$HC_PYTHON" -P -s -c ') and "sys.path.append(os.getcwd())" in call
    assert f"--junitxml={JUNIT_PATH}" in call.split()
    assert call.endswith(" /tests/test_outputs.py -v")
    assert "python3 -m" not in script.text
    assert script.packages == ["pytest"]
    assert script.runs_pytest


def test_plain_pytest_is_rewritten() -> None:
    script = translate("#!/bin/bash\npytest /tests/test_outputs.py -rA\n")
    [call] = pytest_lines(script.text)
    check_pytest_call(call, "/tests/test_outputs.py -rA")
    assert script.text == f"#!/bin/bash\n{call}\n"
    assert script.packages == ["pytest"]
    assert script.runs_pytest


@pytest.mark.parametrize(
    "command",
    [
        "wget -q https://example.com/data/sales.csv -O /app/sales.csv",
        "curl -fsSL -o /app/sales.csv https://example.com/data/sales.csv",
    ],
)
def test_data_download_is_a_need_naming_the_url(command: str) -> None:
    script = translate(f"{command}\npytest /tests/test_outputs.py\n")
    assert script.needs == ["the tests download https://example.com/data/sales.csv"]
    assert script.text.splitlines()[0] == ":"
    assert script.runs_pytest


def test_piped_non_uv_installer_is_a_need_and_its_shell_is_not_run() -> None:
    script = translate(
        "curl -fsSL https://deb.nodesource.com/setup_20.x | bash -\npytest /tests/test_outputs.py\n"
    )
    assert script.needs == ["the tests download https://deb.nodesource.com/setup_20.x"]
    assert script.text.splitlines()[0] == ": | :"
    assert "bash" not in script.text
    assert bash_syntax_ok(script.text).returncode == 0


def test_apt_packages_are_collected_not_installed() -> None:
    script = translate(
        "apt-get update && apt-get install -y --no-install-recommends sqlite3 curl\n"
        "pytest /tests/test_outputs.py\n"
    )
    assert script.apt_packages == ["sqlite3", "curl"]
    assert script.text.splitlines()[0] == ": && :"
    assert any("sqlite3 curl" in note for note in script.notes)
    assert script.needs == []


def test_script_without_pytest() -> None:
    text = (
        "#!/bin/bash\n"
        "if [ -f /app/out.txt ]; then\n"
        "  echo 1 > /logs/verifier/reward.txt\n"
        "else\n"
        "  echo 0 > /logs/verifier/reward.txt\n"
        "fi\n"
    )
    script = translate(text)
    assert not script.runs_pytest
    assert script.text == text
    assert script.packages == []
    assert script.needs == []


# --- merging package specs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "specs",
    [["pytest", "pytest==8.4.1"], ["pytest==8.4.1", "pytest"]],
    ids=["bare-first", "pinned-first"],
)
def test_merge_packages_prefers_the_pinned_spec(specs: list[str]) -> None:
    assert merge_packages(specs) == ["pytest==8.4.1"]


def test_merge_packages_normalises_names_and_sorts() -> None:
    merged = merge_packages(
        ["requests", "Typing_Extensions", "typing-extensions==4.12.2", "PyYAML", "pyyaml==6.0.2"]
    )
    assert merged == ["pyyaml==6.0.2", "requests", "typing-extensions==4.12.2"]


def test_merge_packages_keeps_distinct_packages() -> None:
    assert merge_packages(["pytest", "pytest-json-ctrf", "pytest"]) == [
        "pytest",
        "pytest-json-ctrf",
    ]


def test_merge_packages_prefers_a_pin_over_a_longer_range() -> None:
    assert merge_packages(["pytest==8.4.1", "pytest>=8.0.0rc1"]) == ["pytest==8.4.1"]


def test_merge_packages_normalises_dots_too() -> None:
    assert merge_packages(["zope.interface", "zope-interface==6.0"]) == ["zope-interface==6.0"]


def test_uvx_tool_at_version() -> None:
    script = translate("uvx pytest@8.4.1 /tests/test_outputs.py -rA\n")
    [call] = pytest_lines(script.text)
    check_pytest_call(call, "/tests/test_outputs.py -rA")
    assert script.packages == ["pytest==8.4.1"]


def test_uvx_with_an_extra_index_still_runs_pytest_from_pypi() -> None:
    script = translate(
        "uvx \\\n"
        "  --index https://download.example.org/whl/cpu \\\n"
        "  --index-strategy unsafe-best-match \\\n"
        "  -p 3.13 \\\n"
        "  -w torch==2.7.1 \\\n"
        "  -w pytest==8.4.1 \\\n"
        "  pytest /tests/test_outputs.py -v -rA\n"
    )
    [call] = pytest_lines(script.text)
    check_pytest_call(call, "/tests/test_outputs.py -v -rA")
    assert script.runs_pytest and script.needs == []
    assert script.packages == ["pytest==8.4.1", "torch==2.7.1"]
    assert any("download.example.org/whl/cpu" in note for note in script.notes)


def test_a_flag_before_the_tool_takes_no_value() -> None:
    script = translate("uvx --isolated -w pytest==8.4.1 pytest /tests/test_x.py\n")
    [call] = pytest_lines(script.text)
    check_pytest_call(call, "/tests/test_x.py")
    assert script.packages == ["pytest==8.4.1"]
