"""A Dockerfile's text as logical lines (`logical_lines`): continuations joined, comments and
blank lines dropped, the keyword upper-cased, heredoc bodies read with their quoting and tab
stripping, the `# escape=` directive honoured. The instructions built on them are checked in
tests/image/test_dockerfile.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.errors import TaskLoadError
from hillclimber.setup.dockerlines import LogicalLine, logical_lines

PATH = Path("/ctx/Dockerfile")


def lines(text: str) -> list[LogicalLine]:
    return logical_lines(PATH, text)


def test_each_instruction_is_a_line_with_its_keyword_and_text() -> None:
    found = lines(
        "FROM python:3.12-slim\n"
        "RUN apt-get update && apt-get install -y curl\n"
        "COPY --chown=app:app requirements.txt /app/\n"
    )
    assert [(x.line, x.keyword, x.text) for x in found] == [
        (1, "FROM", "python:3.12-slim"),
        (2, "RUN", "apt-get update && apt-get install -y curl"),
        (3, "COPY", "--chown=app:app requirements.txt /app/"),
    ]
    assert all(x.heredocs == [] for x in found)


def test_a_lower_case_keyword_is_upper_cased() -> None:
    assert [x.keyword for x in lines("from debian\nworkdir /app\n")] == ["FROM", "WORKDIR"]


def test_a_tab_after_the_keyword_separates_it_too() -> None:
    (_, run) = lines("FROM\tdebian\nRUN\tls -la\n")
    assert (run.keyword, run.text) == ("RUN", "ls -la")


def test_a_continued_instruction_starts_at_its_first_line() -> None:
    found = lines(
        "FROM debian\n"
        "RUN apt-get update && \\\n"
        "    apt-get install -y --no-install-recommends \\\n"
        "      git curl\n"
        "RUN echo after\n"
    )
    assert [x.line for x in found] == [1, 2, 5]
    assert found[1].text.split() == [
        "apt-get",
        "update",
        "&&",
        "apt-get",
        "install",
        "-y",
        "--no-install-recommends",
        "git",
        "curl",
    ]


def test_a_continuation_on_the_last_line_ends_the_instruction() -> None:
    assert lines("FROM debian\nRUN echo a \\")[-1].text == "echo a"


def test_env_continued_over_lines_is_one_instruction() -> None:
    (_, env) = lines("FROM debian\nENV A=1 \\\n    B=2\n")
    assert env.keyword == "ENV" and env.text.split() == ["A=1", "B=2"]


def test_a_heredoc_body_is_read_and_the_next_instruction_follows_it() -> None:
    found = lines("FROM debian\nRUN <<EOF\necho one\necho two\nEOF\nRUN ls\n")
    run, after = found[1], found[2]
    assert run.text == "<<EOF"
    assert run.heredocs == [("EOF", "echo one\necho two\n", False, False)]
    assert (after.line, after.text) == (6, "ls")


def test_two_heredocs_on_a_line_keep_their_order_quoting_and_tab_stripping() -> None:
    text = (
        "FROM debian\n"
        "RUN cat <<-EOF > /app/a.txt && cat <<'END' > /app/b.txt\n"
        "\tone\n"
        "\tEOF\n"
        "two $X\n"
        "END\n"
    )
    (_, run) = lines(text)
    assert run.heredocs == [
        ("EOF", "one\n", False, True),
        ("END", "two $X\n", True, False),
    ]


def test_a_heredoc_of_copy_is_read() -> None:
    (_, copy) = lines('FROM debian\nCOPY <<"CONF" /app/conf.ini\n[server]\nport=8000\nCONF\n')
    assert copy.heredocs == [("CONF", "[server]\nport=8000\n", True, False)]


def test_a_shift_with_a_number_is_no_heredoc() -> None:
    (_, run) = lines("FROM debian\nRUN echo $((1<<2)) > /app/n.txt\n")
    assert run.heredocs == []


def test_heredoc_marks_in_other_instructions_are_not_read() -> None:
    (_, label) = lines('FROM debian\nLABEL note="<<EOF"\n')
    assert label.heredocs == []


def test_a_heredoc_never_closed_names_its_line() -> None:
    with pytest.raises(TaskLoadError) as caught:
        lines("FROM debian\nRUN cat <<EOF\nnever closed\n")
    assert caught.value.field == "Dockerfile line 2"
    assert "heredoc 'EOF' is never closed" in caught.value.problem


def test_an_escape_directive_after_another_directive_is_honoured() -> None:
    found = lines("# syntax=docker/dockerfile:1\n# escape=`\nFROM debian\nRUN echo a `\n  b\n")
    assert found[-1].text.split() == ["echo", "a", "b"]


def test_an_escape_directive_after_an_instruction_is_a_plain_comment() -> None:
    found = lines("FROM debian\n# escape=`\nRUN echo a `\nRUN echo b\n")
    assert [x.text for x in found[1:]] == ["echo a `", "echo b"]
