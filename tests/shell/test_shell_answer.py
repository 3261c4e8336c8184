"""The command in a model's answer (`command_in`): a fenced block, closed or cut off; one quoted
in a sentence; the first line with what continues it; never a comment or a sentence. And a
command without the redirect of its output (`unredirected`). The answers are of the shapes
small models give. (Named test_shell_answer: tests/tries/test_answer.py holds the basename.)"""

from __future__ import annotations

import pytest

from hillclimber.shell.answer import command_in, unredirected

# -- command_in -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "command"),
    [
        ("```bash\ncd /app && python3 x.py > out.txt\n```", "cd /app && python3 x.py > out.txt"),
        ("Here it is:\n```sh\nwc -l data.txt\n```\nThis counts.", "wc -l data.txt"),
        ("```\nls -la /app\n```", "ls -la /app"),
    ],
)
def test_a_fenced_block_gives_its_command(answer: str, command: str) -> None:
    assert command_in(answer) == command


def test_a_fence_never_closed_still_gives_its_command() -> None:
    assert command_in("```sh\nls -la /app") == "ls -la /app"


def test_a_lone_opening_fence_is_no_command() -> None:
    assert command_in("```sh") == ""


def test_comment_lines_in_a_block_are_skipped() -> None:
    answer = "```sh\n# Check if the file exists\nls -la /app\n```"
    assert command_in(answer) == "ls -la /app"


def test_a_block_of_comments_only_is_no_command() -> None:
    assert command_in("```sh\n# Check the file\n# then count it\n```") == ""


def test_a_shebang_is_no_command() -> None:
    assert command_in("#!/bin/bash\necho hi") == "echo hi"


def test_the_longest_command_quoted_in_a_sentence_is_taken() -> None:
    answer = "The command `awk '{print $1}' data.txt` is correct, not `ls`."
    assert command_in(answer) == "awk '{print $1}' data.txt"


def test_a_sentence_addressed_to_the_reader_is_no_command() -> None:
    assert command_in("Sure, I can help you with that.") == ""
    assert command_in("Yes, this works") == ""


def test_the_prompt_sign_and_backticks_around_a_line_are_taken_off() -> None:
    assert command_in("$ cat /app/data.txt") == "cat /app/data.txt"
    assert command_in("`wc -l data.txt`") == "wc -l data.txt"


def test_only_the_first_line_is_the_command_when_nothing_continues_it() -> None:
    assert command_in("grep -c error log.txt\n\nThis counts the errors.") == (
        "grep -c error log.txt"
    )


def test_a_backslash_continuation_joins_the_next_line() -> None:
    assert command_in("tar -czf out.tar.gz \\\n  /app/data") == "tar -czf out.tar.gz /app/data"


def test_an_open_quote_goes_on_to_the_lines_that_close_it() -> None:
    answer = "python3 -c 'import sys\nprint(sys.version)'\nThat prints the version."
    assert command_in(answer) == "python3 -c 'import sys\nprint(sys.version)'"


def test_a_loop_goes_on_to_its_done() -> None:
    answer = 'for f in *.txt; do\n  wc -l "$f"\ndone\nThis counts each file.'
    assert command_in(answer) == 'for f in *.txt; do\nwc -l "$f"\ndone'


def test_an_if_goes_on_to_its_fi() -> None:
    answer = "if [ -f x ]; then\n  echo yes\nfi\nafter"
    assert command_in(answer) == "if [ -f x ]; then\necho yes\nfi"


def test_a_loop_keyword_inside_quotes_opens_no_block() -> None:
    answer = "python3 -c 'for i in range(3): print(i)'\nnext line"
    assert command_in(answer) == "python3 -c 'for i in range(3): print(i)'"


def test_an_empty_answer_has_no_command() -> None:
    assert command_in("") == ""
    assert command_in("  \n\n") == ""


# -- unredirected -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "bare"),
    [
        ("sort a | uniq -c > /tmp/out.txt", "sort a | uniq -c"),
        ("ls >> log.txt", "ls"),
        ("ls | tee out.txt", "ls"),
        ("ls | tee -a out.txt", "ls"),
        ("cat x > out.txt  ", "cat x"),
    ],
)
def test_the_redirect_of_the_output_is_taken_off(command: str, bare: str) -> None:
    assert unredirected(command) == bare


def test_the_group_around_a_redirected_command_is_taken_off() -> None:
    assert unredirected("{ cd /app;  ls; } > f.txt") == "cd /app; ls"


def test_a_command_without_a_redirect_only_gets_its_spacing_made_plain() -> None:
    assert unredirected("echo  a \n  b") == "echo a b"


@pytest.mark.parametrize("command", ["ls 2>/dev/null", "grep x f 2>&1"])
def test_a_redirect_of_stderr_is_no_redirect_of_the_output(command: str) -> None:
    assert unredirected(command) == command
