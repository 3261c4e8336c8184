"""Splitting shell text into simple commands (`split_commands`), each with where it sits so it
can be replaced in place, and grouping them into pipelines (`pipelines`). The case of quotes,
comments, a quoted heredoc, `$(…)` and `if … fi` together is in tests/image/test_environment.py;
this file checks the other operators, the positions, and heredocs in more shapes."""

from __future__ import annotations

import pytest

from hillclimber.shell.split import SimpleCommand, pipelines, split_commands


def texts(script: str) -> list[str]:
    return [command.text for command in split_commands(script)]


def groups(script: str) -> list[list[str]]:
    return [[command.text for command in group] for group in pipelines(script)]


# -- split_commands ---------------------------------------------------------------------------


def test_a_model_command_line_splits_at_and_and_keeps_its_redirect() -> None:
    assert texts("cd /app && python3 x.py > out.txt") == ["cd /app", "python3 x.py > out.txt"]


def test_every_control_operator_cuts() -> None:
    assert texts("a || b; c & d |& e | f") == ["a", "b", "c", "d", "e", "f"]


def test_the_ampersands_of_redirections_do_not_cut() -> None:
    assert texts("make 2>&1 | tee log.txt") == ["make 2>&1", "tee log.txt"]
    assert texts("echo x &>/dev/null; ls") == ["echo x &>/dev/null", "ls"]


def test_operators_inside_quotes_braces_and_backticks_do_not_cut() -> None:
    script = "echo \"a;b\" 'c|d' ${x:-e;f} `g;h`"
    assert texts(script) == [script]


def test_each_part_knows_where_it_sits_in_the_text() -> None:
    script = "cd /app && python3 x.py > out.txt"
    for command in split_commands(script):
        assert script[command.start : command.end] == command.text
        assert command.replace_end == command.end


def test_a_dockerfile_continuation_line_is_no_part_of_a_command() -> None:
    script = "apt-get update && \\\n    apt-get install -y curl"
    assert texts(script) == ["apt-get update", "apt-get install -y curl"]


def test_a_comment_after_a_command_hides_the_rest_of_its_line_only() -> None:
    assert texts("ls # list; rm -rf /\npwd") == ["ls", "pwd"]


def test_a_hash_inside_a_word_is_no_comment() -> None:
    assert texts("echo a#b && echo c") == ["echo a#b", "echo c"]


def test_a_heredoc_body_is_skipped_and_covered_by_replace_end() -> None:
    script = "python3 - <<'PY'\nimport os; print(os.getcwd())\nPY\necho done"
    first, second = split_commands(script)
    assert first.text == "python3 - <<'PY'"
    assert script[first.end : first.replace_end] == "\nimport os; print(os.getcwd())\nPY\n"
    assert second.text == "echo done"


def test_a_tab_stripping_heredoc_ends_at_its_indented_delimiter() -> None:
    script = "cat <<-EOF > f.txt\n\tline; rm x\n\tEOF\necho after"
    assert texts(script) == ["cat <<-EOF > f.txt", "echo after"]


def test_two_heredocs_on_one_line_are_both_skipped() -> None:
    script = "cat <<A <<'B'\na; rm x\nA\nb | sh\nB\nls"
    assert texts(script) == ["cat <<A <<'B'", "ls"]


def test_a_heredocs_lines_end_at_newlines_only_as_the_shells_do() -> None:
    """A carriage return or a form feed does not end a line: `x\rEOF` is no delimiter."""
    script = "cat <<EOF > f\nx\rEOF\ny\x0cEOF\nEOF\nls"
    assert texts(script) == ["cat <<EOF > f", "ls"]


def test_a_here_string_of_a_quoted_sentence_is_no_heredoc() -> None:
    assert texts('bash <<< "rm x"\nls') == ['bash <<< "rm x"', "ls"]


@pytest.mark.parametrize("here", ['"$data"', "word"])
def test_the_lines_after_a_here_string_are_commands(here: str) -> None:
    assert texts(f"grep -c x <<< {here}\necho next") == [f"grep -c x <<< {here}", "echo next"]


def test_loop_keywords_are_taken_off_the_commands_of_a_loop() -> None:
    script = 'for f in *.txt; do wc -l "$f"; done'
    assert texts(script) == ["for f in *.txt", 'wc -l "$f"']


def test_negation_and_time_are_taken_off_the_command() -> None:
    assert texts("! grep -q x f") == ["grep -q x f"]
    assert texts("time make") == ["make"]


def test_arithmetic_in_double_parentheses_is_no_command() -> None:
    assert texts("(( n++ )); echo $n") == ["echo $n"]


def test_a_subshell_and_a_group_give_their_commands() -> None:
    assert texts("(cd /tmp && ls) || { echo failed; exit 1; }") == [
        "cd /tmp",
        "ls",
        "echo failed",
        "exit 1",
    ]


def test_blank_text_has_no_commands() -> None:
    assert split_commands("  \n\t\n") == []


def test_the_patterns_of_a_case_are_no_commands() -> None:
    script = 'case "$ARCH" in x86_64) A=amd64 ;; aarch64) A=arm64 ;; esac'
    assert "aarch64" not in texts(script)


# -- pipelines --------------------------------------------------------------------------------


def test_a_pipeline_is_one_group_and_and_and_starts_another() -> None:
    assert groups("cat a.txt | sort | uniq -c && echo done") == [
        ["cat a.txt", "sort", "uniq -c"],
        ["echo done"],
    ]


def test_a_pipe_of_both_streams_joins_the_group() -> None:
    assert groups("make |& grep error") == [["make", "grep error"]]


def test_or_and_semicolon_are_no_pipes() -> None:
    assert groups("a || b; c") == [["a"], ["b"], ["c"]]


def test_a_redirection_ampersand_is_no_pipe() -> None:
    assert groups("cmd 2>&1 | tee log.txt") == [["cmd 2>&1", "tee log.txt"]]


def test_a_heredoc_fed_command_piped_into_a_shell_is_one_group() -> None:
    assert groups("cat <<EOF | sh\nls\nEOF\n") == [["cat <<EOF", "sh"]]


def test_a_pipe_into_a_loop_joins_the_group() -> None:
    assert groups("ls | while read f; do echo $f; done") == [["ls", "read f"], ["echo $f"]]


def test_pipelines_keep_the_simple_commands_as_split_gives_them() -> None:
    script = "echo hi | tr a-z A-Z > up.txt"
    flat = [command for group in pipelines(script) for command in group]
    assert flat == split_commands(script)
    assert all(isinstance(command, SimpleCommand) for command in flat)
