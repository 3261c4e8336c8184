"""Docker's word processing (`split_words`, `substitute`): the `${NAME…}` forms that tell an
empty value from an unset one, escapes, where a name ends, and the errors (`WordError`). The
common forms (`$A`, `${A}`, `:-`, `:+`, quotes, `only_known`) are in
tests/image/test_dockerfile.py; this file checks the rest."""

from __future__ import annotations

import pytest

from hillclimber.setup.dockerwords import WordError, split_words, substitute

SCOPE = {"SET": "x", "EMPTY": ""}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("${EMPTY:-d}", "d"),  # `:-` counts an empty value as unset
        ("${EMPTY-d}", ""),  # `-` only an unset one
        ("${UNSET-d}", "d"),
        ("${SET-d}", "x"),
        ("${EMPTY:+alt}", ""),
        ("${EMPTY+alt}", "alt"),  # `+` only asks whether it is set
        ("${UNSET+alt}", ""),
        ("${SET:?must be set}", "x"),
        ("${EMPTY?must be set}", ""),
    ],
)
def test_empty_and_unset_are_told_apart_as_docker_does(text: str, value: str) -> None:
    assert split_words(text, SCOPE) == [value]


def test_a_name_goes_on_as_far_as_name_characters_go() -> None:
    assert split_words("$SET_y ${SET}_y $SET.y", SCOPE) == ["", "x_y", "x.y"]


def test_an_unset_variable_is_empty_and_a_lone_dollar_stays() -> None:
    assert split_words("a$UNSET b$ $", SCOPE) == ["a", "b$", "$"]


def test_an_escaped_quote_inside_double_quotes_is_kept() -> None:
    assert split_words('"say \\"$SET\\""', SCOPE) == ['say "x"']


def test_a_backslash_before_another_letter_in_double_quotes_is_kept() -> None:
    assert split_words('"a\\nb"', SCOPE) == ["a\\nb"]


def test_an_escaped_space_joins_a_word() -> None:
    assert split_words("/app/my\\ file.txt next", SCOPE) == ["/app/my file.txt", "next"]


def test_empty_quotes_are_an_empty_word() -> None:
    assert split_words("a '' b", SCOPE) == ["a", "", "b"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("${EMPTY:?}", "EMPTY: is not set"),
        ("${UNSET?boom}", "UNSET: boom"),
        ("${SET", "missing '}' in substitution"),
        ("${1bad}", "bad substitution '${1bad}'"),
        ("'open", "unmatched single quote"),
        ('"open', "unmatched double quote"),
    ],
)
def test_what_docker_rejects_is_a_word_error(text: str, problem: str) -> None:
    with pytest.raises(WordError, match=problem.replace("$", r"\$").replace("{", r"\{")):
        split_words(text, SCOPE)


def test_substitute_in_a_run_command_replaces_known_and_unknown_names() -> None:
    assert substitute("cp $SET ${UNSET}/x /app/", SCOPE) == "cp x /x /app/"


def test_substitute_drops_the_backslash_of_an_escaped_dollar() -> None:
    assert substitute("echo \\$SET", SCOPE) == "echo $SET"


def test_substitute_only_known_keeps_an_escaped_dollar_as_written() -> None:
    assert substitute("echo \\$SET $SET", SCOPE, only_known=True) == "echo \\$SET x"


def test_substitute_leaves_a_failing_substitution_as_written() -> None:
    assert substitute("x=${UNSET:?bad} ${SET", SCOPE) == "x=${UNSET:?bad} ${SET"


def test_substitute_keeps_a_trailing_dollar() -> None:
    assert substitute("echo cost: 5$", SCOPE) == "echo cost: 5$"
