"""The Dockerfile parser: every instruction form hillclimber follows, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.errors import TaskLoadError
from hillclimber.setup.dockerfile import parse_dockerfile
from hillclimber.setup.dockerwords import split_words, substitute
from hillclimber.setup.instructions import (
    Arg,
    Copy,
    Dockerfile,
    Env,
    From,
    Other,
    Run,
    Workdir,
)

from conftest import FIXTURES

PATH = Path("/ctx/Dockerfile")


def parse(text: str, **kwargs: object) -> Dockerfile:
    return parse_dockerfile(PATH, text=text, **kwargs)  # type: ignore[arg-type]


def only(df: Dockerfile, kind: type) -> list:  # type: ignore[type-arg]
    return [ins for ins in df.instructions if isinstance(ins, kind)]


def test_fixture_sales_total() -> None:
    df = parse_dockerfile(FIXTURES / "tb2" / "fx-sales-total" / "environment" / "Dockerfile")
    kinds = [type(ins).__name__ for ins in df.instructions]
    assert kinds == ["From", "Workdir", "Copy", "Run", "Run"]
    assert df.image == "python:3.13-slim-bookworm"
    copy = only(df, Copy)[0]
    assert copy.sources == ("make_data.py",) and copy.dest_path == "/app/make_data.py"
    assert [r.command for r in only(df, Run)] == [
        "python3 /app/make_data.py",
        "rm -f /app/make_data.py",
    ]
    assert [r.line for r in only(df, Run)] == [6, 7]


def test_keywords_are_case_insensitive_and_comments_skipped() -> None:
    df = parse("# a comment\nfrom alpine\n\n  # indented comment\nworkdir /app\nRun echo hi\n")
    assert [ins.keyword for ins in df.instructions] == ["FROM", "WORKDIR", "RUN"]
    assert only(df, Run)[0].line == 6


def test_continuations_join_lines_and_drop_inner_comments() -> None:
    df = parse(
        "FROM debian\n"
        "RUN apt-get update && \\\n"
        "    # why we install these\n"
        "\n"
        "    apt-get install -y \\\n"
        "      git curl\n"
        "RUN echo after\n"
    )
    first, second = only(df, Run)
    assert " ".join(first.command.split()) == "apt-get update && apt-get install -y git curl"
    assert first.line == 2
    assert second.line == 7


def test_escape_directive() -> None:
    df = parse("# escape=`\nFROM windows\nRUN echo a `\n  b\n")
    assert only(df, Run)[0].command.split() == ["echo", "a", "b"]


def test_arg_defaults_and_substitution_forms() -> None:
    df = parse(
        "ARG BASE=python\nARG TAG=3.12\n"
        "FROM ${BASE}:$TAG AS build\n"
        "ARG TAG\n"  # re-imports the global default
        "ARG NAME=tool\n"
        "ARG EMPTY\n"
        "ENV A=$NAME B=${NAME}-x C=${MISSING:-fallback} D=${NAME:+set} E=x$EMPTY\n"
    )
    assert df.image == "python:3.12"
    assert df.final.name == "build"
    args = {a.name: a.default for a in only(df, Arg)}
    assert args == {"TAG": "3.12", "NAME": "tool", "EMPTY": None}
    assert dict(only(df, Env)[0].values) == {
        "A": "tool",
        "B": "tool-x",
        "C": "fallback",
        "D": "set",
        "E": "x",
    }


def test_env_both_forms_quotes_and_docker_semantics() -> None:
    df = parse(
        "FROM debian\n"
        "ENV A=1 B=\"two words\" C=three\\ words D='$A literal'\n"
        "ENV LEGACY some value  with spaces\n"
        "ENV A=2 OLD=$A\n"  # values on one line see the variables from before the line
        "ARG A=from-arg\n"
        "ENV WINS=$A\n"  # ENV beats ARG
    )
    envs = only(df, Env)
    assert dict(envs[0].values) == {
        "A": "1",
        "B": "two words",
        "C": "three words",
        "D": "$A literal",
    }
    assert dict(envs[1].values) == {"LEGACY": "some value  with spaces"}
    assert dict(envs[2].values) == {"A": "2", "OLD": "1"}
    assert dict(envs[3].values) == {"WINS": "2"}
    assert df.env["A"] == "2" and df.env["LEGACY"] == "some value  with spaces"


def test_base_env_feeds_substitution() -> None:
    df = parse("FROM debian\nENV PATH=/opt/x/bin:$PATH\n", base_env={"PATH": "/usr/bin:/bin"})
    assert df.env["PATH"] == "/opt/x/bin:/usr/bin:/bin"


def test_workdir_is_relative_to_the_previous_one() -> None:
    df = parse("FROM debian\nWORKDIR /app\nWORKDIR sub\nARG D=deep\nWORKDIR $D/../x\n")
    assert [w.path for w in only(df, Workdir)] == ["/app", "/app/sub", "/app/sub/x"]
    assert df.final.workdir == "/app/sub/x" and df.final.workdir_set


def test_initial_workdir_applies_before_any_workdir() -> None:
    df = parse("FROM debian\nCOPY a b\nRUN ls\n", initial_workdir="/app")
    assert only(df, Copy)[0].dest_path == "/app/b"
    assert only(df, Run)[0].workdir == "/app"
    assert not df.final.workdir_set


def test_copy_and_add_forms_and_flags() -> None:
    df = parse(
        "FROM debian\nWORKDIR /app\nARG SRC=src\n"
        "COPY --chown=me:me --chmod=755 a.txt $SRC/ ./dest/\n"
        'COPY ["with space.txt", "/app/x y.txt"]\n'
        "ADD --checksum=sha256:abc https://example.com/f.tar.gz /opt/\n"
        "copy --link . .\n"
    )
    first, json_form, add, dot = only(df, Copy)
    assert first.sources == ("a.txt", "src/")
    assert first.dest_path == "/app/dest/"
    assert (first.chown, first.chmod, first.from_) == ("me:me", "755", None)
    assert json_form.sources == ("with space.txt",) and json_form.dest_path == "/app/x y.txt"
    assert add.is_add and add.sources == ("https://example.com/f.tar.gz",)
    assert add.flags["checksum"] == "sha256:abc"
    assert dot.dest_path == "/app" and dot.flags == {"link": "true"}


def test_copy_heredoc_substitutes_unless_quoted() -> None:
    df = parse(
        "FROM debian\nARG V=1.2\n"
        "COPY <<EOF /app/conf.txt\nversion=$V\nEOF\n"
        "COPY <<'EOF' /app/raw.txt\nversion=$V\nEOF\n"
    )
    conf, raw = only(df, Copy)
    assert conf.sources == () and conf.heredocs[0].body == "version=1.2\n"
    assert raw.heredocs[0].body == "version=$V\n" and raw.heredocs[0].quoted


def test_run_forms() -> None:
    df = parse(
        "FROM debian\n"
        'RUN ["python3", "-c", "print(\'hi there\')"]\n'
        "RUN --mount=type=cache,target=/root/.cache pip install x\n"
        "RUN <<EOF\necho one\necho two\nEOF\n"
        "RUN python3 <<'PY'\nprint(1)\nPY\n"
        "RUN <<EOF\n#!/usr/bin/env python3\nprint('from shebang')\nEOF\n"
        "RUN [not json\n"
    )
    exec_form, mounted, heredoc, with_cmd, shebang, not_json = only(df, Run)
    assert exec_form.exec_form
    assert exec_form.command == "python3 -c 'print('\"'\"'hi there'\"'\"')'"
    assert mounted.flags == {"mount": "type=cache,target=/root/.cache"}
    assert mounted.command == "pip install x"
    assert heredoc.command == "echo one\necho two\n"
    assert with_cmd.command == "python3 <<'PY'\nprint(1)\nPY\n"
    assert shebang.command == "python3 <<'EOF'\nprint('from shebang')\nEOF\n"
    assert not not_json.exec_form and not_json.command == "[not json"
    assert only(df, Run)[-1].line == 15


def test_run_gets_build_args_and_env() -> None:
    df = parse("FROM debian\nARG V=1\nENV E=2\nRUN echo $V $E\n")
    assert dict(only(df, Run)[0].env) == {"V": "1", "E": "2"}


def test_runtime_instructions_are_kept_but_ignored() -> None:
    text = (
        'FROM debian\nCMD ["bash"]\nENTRYPOINT ["/bin/sh"]\nEXPOSE 80\nUSER nobody\n'
        'LABEL a=b\nSHELL ["/bin/bash", "-c"]\nVOLUME /data\nHEALTHCHECK NONE\n'
    )
    others = only(parse(text), Other)
    assert [o.keyword for o in others] == [
        "CMD",
        "ENTRYPOINT",
        "EXPOSE",
        "USER",
        "LABEL",
        "SHELL",
        "VOLUME",
        "HEALTHCHECK",
    ]
    assert others[0].text == '["bash"]'


def test_multi_stage_takes_the_last_stage() -> None:
    df = parse(
        "FROM golang:1.22 AS build\nWORKDIR /src\nRUN go build\n"
        "FROM python:3.12\nWORKDIR /app\nCOPY --from=build /src/tool /app/tool\nRUN echo hi\n"
    )
    assert len(df.stages) == 2
    assert df.image == "python:3.12"
    assert [type(i).__name__ for i in df.instructions] == ["From", "Workdir", "Copy", "Run"]
    assert df.unsupported == ["files built in stage 'build' (COPY --from, Dockerfile line 6)"]


def test_unused_earlier_stage_is_not_unsupported() -> None:
    df = parse("FROM alpine AS unused\nRUN echo x\nFROM debian\nRUN echo y\n")
    assert df.unsupported == []
    assert [r.command for r in only(df, Run)] == ["echo y"]


def test_copy_from_an_image_is_unsupported() -> None:
    df = parse("FROM debian\nCOPY --from=ghcr.io/astral-sh/uv:latest /uv /bin/uv\n")
    assert df.unsupported == [
        "files from image ghcr.io/astral-sh/uv:latest (COPY --from, Dockerfile line 2)"
    ]


def test_stage_built_on_an_earlier_stage_inherits_it() -> None:
    df = parse(
        "FROM python:3.12 AS base\nENV A=1\nWORKDIR /app\nRUN echo base\n"
        "FROM base AS final\nENV B=2\nRUN echo final\n"
    )
    assert df.image == "python:3.12"
    assert [r.command for r in only(df, Run)] == ["echo base", "echo final"]
    assert df.env == {"A": "1", "B": "2"}
    assert df.final.workdir == "/app"
    assert df.unsupported == []


def test_words_and_substitution_helpers() -> None:
    scope = {"A": "x"}
    assert split_words("a 'b c' \"$A d\" e\\ f ${A}y", scope) == ["a", "b c", "x d", "e f", "xy"]
    assert split_words("keep  spaces", scope, split=False) == ["keep  spaces"]
    assert substitute("echo $A ${A} \\$A '$A'", scope) == "echo x x $A 'x'"
    assert substitute("echo $A $HOME $(pwd)", scope, only_known=True) == "echo x $HOME $(pwd)"


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("FROM debian\nFROBNICATE x\n", 2, "unknown instruction 'FROBNICATE'"),
        ("RUN echo hi\n", 1, "RUN before FROM"),
        ("FROM debian\n\nCOPY onlyone\n", 3, "COPY needs a source and a destination"),
        ("FROM debian\nENV LONELY\n", 2, "ENV LONELY has no value"),
        ("FROM debian\nENV A=1 B\n", 2, "ENV 'B' is not NAME=value"),
        ("FROM debian\nARG 1BAD=x\n", 2, "ARG name '1BAD' is not a valid name"),
        ("FROM debian\nRUN cat <<EOF\nnever closed\n", 2, "heredoc 'EOF' is never closed"),
        ('FROM debian\nWORKDIR "/app\n', 2, "unmatched double quote"),
        ("FROM debian\nRUN\n", 2, "RUN needs a command"),
        ("FROM debian\nENV A=${B:?must be set}\n", 2, "B: must be set"),
        ("FROM a b c d\n", 1, "FROM takes an image"),
    ],
)
def test_errors_name_the_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(TaskLoadError) as caught:
        parse(text)
    assert caught.value.path == PATH
    assert caught.value.field == f"Dockerfile line {line}"
    assert problem in caught.value.problem
    assert f"Dockerfile line {line}" in str(caught.value)


def test_no_from_is_an_error() -> None:
    with pytest.raises(TaskLoadError, match="no FROM instruction"):
        parse("# only a comment\nARG X=1\n")


def test_unreadable_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TaskLoadError, match="cannot read Dockerfile"):
        parse_dockerfile(tmp_path / "missing" / "Dockerfile")


def test_from_records_platform_and_stage_name() -> None:
    df = parse("FROM --platform=linux/amd64 python:3.12 AS Runner\n")
    start = df.instructions[0]
    assert isinstance(start, From)
    assert (start.image, start.stage, start.platform) == ("python:3.12", "runner", "linux/amd64")
