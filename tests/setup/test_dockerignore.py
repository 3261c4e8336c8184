"""Docker's `.dockerignore` (`dockerignore`): which context-relative paths a `COPY .` leaves
out, last matching rule winning, and the build's own Dockerfile and `.dockerignore` always out.
The end-to-end copy is in tests/image/test_environment.py; this file checks the rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hillclimber.setup.dockerignore import dockerignore


def ignore_test(context: Path, rules: str | None) -> Callable[[str], bool]:
    context.mkdir(parents=True, exist_ok=True)
    (context / "Dockerfile").write_text("FROM python:3.12\nCOPY . /app\n")
    if rules is not None:
        (context / ".dockerignore").write_text(rules)
    return dockerignore(context.resolve(), context / "Dockerfile")


RULES = (
    "# build output\n"
    "\n"
    "*.pyc\n"
    "/build\n"
    "node_modules\n"
    "**/__pycache__\n"
    "data/*.csv\n"
    "!data/keep.csv\n"
    "temp?\n"
)


def test_without_a_dockerignore_only_the_dockerfile_and_the_ignore_file_are_out(
    tmp_path: Path,
) -> None:
    ignored = ignore_test(tmp_path, None)
    assert ignored("Dockerfile") and ignored(".dockerignore")
    assert not ignored("main.py")
    assert not ignored("sub/Dockerfile") and not ignored("Dockerfile.bak")


@pytest.mark.parametrize(
    ("path", "left_out"),
    [
        ("a.pyc", True),
        ("sub/a.pyc", False),  # `*` stays within one folder, at the top
        ("build", True),
        ("build/x.o", True),  # below an ignored folder
        ("sub/build", False),  # a leading `/` is the context's top
        ("node_modules/x/y.js", True),
        ("pkg/deep/__pycache__/m.pyc", True),  # `**/` any folders, none too
        ("__pycache__/m.pyc", True),
        ("data/a.csv", True),
        ("data/keep.csv", False),  # `!` brings a file back: the last match wins
        ("data/sub/a.csv", False),
        ("temp1", True),
        ("temp12", False),  # `?` is one character
        ("main.py", False),
    ],
)
def test_the_rules_of_a_dockerignore(tmp_path: Path, path: str, left_out: bool) -> None:
    assert ignore_test(tmp_path, RULES)(path) is left_out


def test_comments_and_blank_lines_are_no_rules(tmp_path: Path) -> None:
    ignored = ignore_test(tmp_path, "# *.py\n\n   \n")
    assert not ignored("main.py")


def test_a_rule_is_normalised_before_it_is_matched(tmp_path: Path) -> None:
    ignored = ignore_test(tmp_path, "./docs/../secret.txt\n")
    assert ignored("secret.txt")
    assert not ignored("docs/secret.txt")


def test_a_dockerfile_kept_elsewhere_in_the_context_is_left_out_by_its_path(
    tmp_path: Path,
) -> None:
    context = tmp_path.resolve()
    (context / "docker").mkdir()
    (context / "docker" / "task.Dockerfile").write_text("FROM debian\n")
    ignored = dockerignore(context, context / "docker" / "task.Dockerfile")
    assert ignored("docker/task.Dockerfile")
    assert not ignored("Dockerfile") and not ignored("docker/other.txt")


def test_a_dockerfile_outside_the_context_leaves_every_context_file_in(tmp_path: Path) -> None:
    context = (tmp_path / "context").resolve()
    context.mkdir()
    ignored = dockerignore(context, tmp_path / "Dockerfile")
    assert not ignored("Dockerfile")
    assert ignored(".dockerignore")
