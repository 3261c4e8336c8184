"""Reading `pip install` command lines and requirements files: what `pip install ARGS` installs
(`install_arguments`, option values never taken for packages), what a requirements file lists
(`requirements_lines`), and which command lines are pip at all (`pip_arguments`)."""

from __future__ import annotations

import pytest

from hillclimber.setup.pip import (
    PipArgument,
    install_arguments,
    pip_arguments,
    requirements_lines,
)
from hillclimber.shell.words import read_words


def package(value: str) -> PipArgument:
    return PipArgument("package", value)


def requirements(value: str) -> PipArgument:
    return PipArgument("requirements", value)


# -- install_arguments ------------------------------------------------------------------------


def test_packages_and_a_requirements_file_in_the_order_given() -> None:
    args = ["--no-cache-dir", "-r", "requirements.txt", "numpy==1.26", "pandas>=2"]
    assert install_arguments(args) == [
        requirements("requirements.txt"),
        package("numpy==1.26"),
        package("pandas>=2"),
    ]


def test_the_values_of_options_are_never_packages() -> None:
    args = ["-i", "https://pypi.example/simple", "--target", "/opt/x", "--python-version", "3"]
    assert install_arguments([*args, "-C", "key=v", "requests"]) == [package("requests")]


def test_an_equals_form_option_takes_no_next_word() -> None:
    assert install_arguments(["--index-url=https://x/simple", "flask"]) == [package("flask")]


def test_every_form_of_a_requirements_file_is_read() -> None:
    args = ["--requirement=dev.txt", "-rextra.txt", "--requirement", "base.txt"]
    assert install_arguments(args) == [
        requirements("dev.txt"),
        requirements("extra.txt"),
        requirements("base.txt"),
    ]


def test_an_editable_project_is_named_and_a_constraints_file_installs_nothing() -> None:
    assert install_arguments(["-e", ".", "-c", "constraints.txt", "-U", "pip"]) == [
        PipArgument("editable", "."),
        package("pip"),
    ]


def test_a_requirements_option_at_the_very_end_gets_an_empty_value() -> None:
    assert install_arguments(["numpy", "-r"]) == [package("numpy"), requirements("")]


# -- requirements_lines -----------------------------------------------------------------------


def test_a_requirements_file_drops_comments_and_markers() -> None:
    text = (
        "# pinned for the task\n"
        "numpy==1.26  # the array library\n"
        "\n"
        "requests[socks]>=2 ; python_version > '3.8'\n"
        "  torch  \n"
    )
    assert requirements_lines(text) == [
        package("numpy==1.26"),
        package("requests[socks]>=2"),
        package("torch"),
    ]


def test_a_requirements_file_names_nested_files_and_editable_projects() -> None:
    text = "-r base.txt\n--requirement dev.txt\n-e ./lib\n-c constraints.txt\n"
    assert requirements_lines(text) == [
        requirements("base.txt"),
        requirements("dev.txt"),
        PipArgument("editable", "./lib"),
    ]


def test_other_option_lines_of_a_requirements_file_are_left_out() -> None:
    text = "--index-url https://pypi.example/simple\n--no-binary :all:\nflask\n"
    assert requirements_lines(text) == [package("flask")]


def test_a_url_requirement_is_kept_whole() -> None:
    line = "git+https://github.com/example/lib.git#egg=lib"
    assert requirements_lines(line + "\n") == [package(line)]


# -- pip_arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("pip install numpy", ["install", "numpy"]),
        ("pip3.11 install -U pip", ["install", "-U", "pip"]),
        ("/usr/local/bin/pip install y", ["install", "y"]),
        ("python3 -m pip install --no-cache-dir x", ["install", "--no-cache-dir", "x"]),
        ("python3.12 -m pip install a", ["install", "a"]),
        ("uv pip install x", ["install", "x"]),
        ("sudo pip install z", ["install", "z"]),
        ("python -m pip", []),
    ],
)
def test_the_forms_pip_runs_in_give_its_arguments(command: str, args: list[str]) -> None:
    words = read_words(command)
    assert words is not None
    assert pip_arguments(words) == args


@pytest.mark.parametrize(
    "command", ["uv add x", "pipx install black", "python3 x.py", "python3 -m pytest"]
)
def test_other_commands_are_no_pip(command: str) -> None:
    words = read_words(command)
    assert words is not None
    assert pip_arguments(words) is None
