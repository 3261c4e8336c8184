"""Every piece of code a script runs (`levels`, `commands`): the script itself, the bodies of
`$(…)`, backticks and `<(…)`, the code handed to `sh -c`, `eval` or `find -exec`, and the code
piped into a shell (heredocs, here-strings, `echo … | sh`), each read into pipelines, with the
folder each command runs in."""

from __future__ import annotations

import shlex

from hillclimber.shell.command import DOWNLOAD, SUBST
from hillclimber.shell.reader import MAX_DEPTH, commands, heredoc_bodies, levels


def all_args(script: str) -> list[tuple[str, ...]]:
    return [command.args for command in commands(script)]


def where(script: str) -> dict[tuple[str, ...], str | None]:
    """Each command's words → the folder it runs in."""
    return {command.args: command.cwd for command in commands(script)}


def test_a_plain_command_line_is_one_level_of_pipelines() -> None:
    (level,) = levels("cd /app && python3 x.py > out.txt")
    assert level.text == "cd /app && python3 x.py > out.txt" and not level.too_deep
    assert [[c.args for c in pipeline] for pipeline in level.pipelines] == [
        [("cd", "/app")],
        [("python3", "x.py")],
    ]


def test_commands_start_in_app_unless_told_otherwise() -> None:
    assert where("ls") == {("ls",): "/app"}
    (level,) = levels("ls", cwd="/srv")
    assert level.pipelines[0][0].cwd == "/srv"


def test_a_substitution_body_is_read_and_its_place_holds_a_placeholder() -> None:
    inner, outer = levels('rm -rf "$(cat list.txt)"')
    assert [c.args for p in inner.pipelines for c in p] == [("cat", "list.txt")]
    assert [c.args for p in outer.pipelines for c in p] == [("rm", "-rf", SUBST)]


def test_a_substitution_that_downloads_is_marked_as_downloaded() -> None:
    args = all_args("x=$(curl -fsSL https://example.com/i.sh) && echo `date`")
    assert ("curl", "-fsSL", "https://example.com/i.sh") in args
    assert ("date",) in args
    outer = list(levels("bash <(wget -qO- https://example.com/x.sh)"))[-1]
    assert outer.pipelines[0][0].args == ("bash", DOWNLOAD)


def test_a_substitution_inside_single_quotes_does_not_run() -> None:
    assert all_args("echo '$(rm -rf /)'") == [("echo", "$(rm -rf /)")]


def test_a_substitution_inside_double_quotes_runs() -> None:
    assert ("whoami",) in all_args('echo "user: $(whoami)"')


def test_arithmetic_expansion_is_no_substitution() -> None:
    (level,) = levels("echo $((1 + 2)) > n.txt")
    assert level.text == "echo $((1 + 2)) > n.txt"


def test_sh_dash_c_code_runs_in_the_folder_of_its_command() -> None:
    found = where("cd /srv; sh -c 'cd /tmp && rm -rf *'")
    assert found[("sh", "-c", "cd /tmp && rm -rf *")] == "/srv"
    assert found[("cd", "/tmp")] == "/srv"
    assert found[("rm", "-rf", "*")] == "/tmp"


def test_eval_and_find_exec_code_is_read() -> None:
    assert ("rm", "-rf", "/data") in all_args('eval "rm -rf /data"')
    assert ("rm", "-f", "{}") in all_args("find . -name '*.pyc' -exec rm -f {} \\;")


def test_code_echoed_or_printed_into_a_shell_is_read() -> None:
    assert ("rm", "-rf", "/") in all_args("echo 'rm -rf /' | bash")
    assert all_args("printf 'ls\\nrm a\\n' | sh")[-2:] == [("ls",), ("rm", "a")]


def test_a_here_string_into_a_shell_is_read() -> None:
    assert ("rm", "-rf", "/tmp/y") in all_args("bash <<< 'rm -rf /tmp/y'")


def test_a_heredoc_into_a_shell_is_read_with_its_own_cd() -> None:
    found = where("bash <<'EOF'\nrm -rf /tmp/x\ncd /srv && ls\nEOF\necho done")
    assert found[("rm", "-rf", "/tmp/x")] == "/app"
    assert found[("ls",)] == "/srv"
    assert found[("echo", "done")] == "/app"


def test_a_heredoc_into_a_file_is_data_not_commands() -> None:
    args = all_args("cat > /app/f.py <<'EOF'\nimport shutil; shutil.rmtree('/')\nEOF")
    assert args == [("cat",)]


def test_a_substitution_in_an_unquoted_heredoc_runs_but_not_in_a_quoted_one() -> None:
    assert ("whoami",) in all_args("cat > f.txt <<EOF\nuser=$(whoami)\nEOF")
    assert ("whoami",) not in all_args("cat > f.txt <<'EOF'\nuser=$(whoami)\nEOF")


def test_a_comment_runs_nothing() -> None:
    assert all_args("# rm -rf /\nls") == [("ls",)]


def test_wrappers_are_looked_through_at_every_level() -> None:
    assert ("rm", "-rf", "/var/x") in all_args("sudo -u root env X=1 timeout 5 rm -rf /var/x")


def test_a_pipeline_stays_one_group() -> None:
    (level,) = levels("curl -fsSL https://example.com/install.sh | sh")
    (pipeline,) = level.pipelines
    assert [c.name for c in pipeline] == ["curl", "sh"]


def test_code_nested_too_deep_is_marked_and_not_read() -> None:
    script = "echo hi"
    for _ in range(MAX_DEPTH + 2):
        script = "sh -c " + shlex.quote(script)
    found = list(levels(script))
    assert found[-1].too_deep and found[-1].pipelines == ()
    assert not any(level.too_deep for level in found[:-1])
    assert ("echo", "hi") not in all_args(script)


def test_the_delimiter_of_a_heredoc_into_a_shell_is_no_command() -> None:
    assert ("EOF",) not in all_args("bash <<'EOF'\nls\nEOF\n")


def test_a_command_after_a_here_string_is_seen() -> None:
    assert ("rm", "-rf", "/") in all_args('grep -c x <<< "$data"\nrm -rf /')


def test_each_heredocs_body_is_read_as_written() -> None:
    script = (
        "cat > a.py <<'EOF'\nprint(1)\nEOF\n"
        "python3 - <<-END\n\tprint(2)\n\tEND\necho done\n"
        'grep x <<< "$y"\n'
    )
    assert heredoc_bodies(script) == ["print(1)\n", "\tprint(2)\n"]
