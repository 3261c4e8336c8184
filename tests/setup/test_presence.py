"""What this machine already has (`presence`): pip names in their normal form, the Python
distributions an interpreter lists, Debian packages or commands of that name, and npm tools.
Asked of this machine for real; a test that needs something this machine lacks is skipped.
(`command_available` for the python and pip shims is in tests/image/test_environment.py.)"""

from __future__ import annotations

import shutil
import sys

import pytest

from hillclimber.sandbox.base import STANDARD_PATH
from hillclimber.setup.presence import (
    apt_present,
    command_available,
    installed_debs,
    normalize_pip_name,
    npm_global_installed,
    pip_present,
    pip_version,
    python_packages,
)

from conftest import missing


@pytest.mark.parametrize(
    ("name", "normal"),
    [
        ("PyYAML", "pyyaml"),
        ("typing_extensions", "typing-extensions"),
        ("zope.interface", "zope-interface"),
        ("A__b--c", "a-b-c"),
    ],
)
def test_pip_names_are_put_in_their_pep_503_form(name: str, normal: str) -> None:
    assert normalize_pip_name(name) == normal


def test_an_interpreter_lists_its_distributions_by_normal_name_with_versions() -> None:
    found = python_packages(sys.executable)  # this venv's python: pytest is in it
    assert found.get("pytest") == pytest.__version__
    assert all(name == normalize_pip_name(name) for name in found)


def test_an_interpreter_that_is_not_there_lists_nothing() -> None:
    assert python_packages("/nonexistent/bin/python3") == {}


def present_pip_package() -> str:
    for name in ("pip", "setuptools", "pyyaml", "six"):
        if pip_version(name) is not None:
            return name
    missing("a python3 with pip, setuptools, pyyaml or six")


def test_a_requirement_is_present_by_its_name_whatever_its_spelling_and_version() -> None:
    name = present_pip_package()
    assert pip_present(name.upper())
    assert pip_present(f"{name}[extra]==0.0.1 ; python_version > '3'")


def test_a_missing_or_unreadable_requirement_is_not_present() -> None:
    assert pip_version("hc-notreal-package-xyz") is None
    assert not pip_present("hc-notreal-package-xyz>=1")
    assert not pip_present("==1.0")


def test_a_debian_package_is_present_with_a_version_or_an_architecture() -> None:
    assert apt_present("bash")  # a package on Debian, a command everywhere
    assert apt_present("bash=5.1-2") and apt_present("bash:amd64")


def test_a_package_that_is_neither_installed_nor_a_command_is_not_present() -> None:
    assert not apt_present("hc-notreal-package-xyz")


def test_installed_debian_packages_are_bare_names() -> None:
    if shutil.which("dpkg-query", path=STANDARD_PATH) is None:
        assert installed_debs() == frozenset()
        return
    debs = installed_debs()
    assert "bash" in debs
    assert not any(":" in name for name in debs)


def test_a_command_on_the_standard_path_is_available_and_a_made_up_one_is_not() -> None:
    assert command_available("sh")
    assert not command_available("hc-notreal-command-xyz")


def test_an_npm_tool_is_present_as_a_command_of_its_name_without_a_version() -> None:
    assert npm_global_installed("sh@1.0.0")  # `sh` is a command here, whatever its version
    assert not npm_global_installed("hc-notreal-cli@2")
    assert not npm_global_installed("@hc-notreal/cli@17")
