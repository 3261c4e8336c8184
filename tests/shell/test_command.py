"""A simple command as it will run (`read_command`, `Command`): the folder it runs in after the
script's `cd`s, the variables set before it, the path a word names (`resolve`, `normal`,
`inside`), and the code a shell or interpreter runs (`program`, `inner_code`)."""

from __future__ import annotations

import pytest

from hillclimber.shell.command import (
    SUBST,
    Command,
    ProgramSource,
    Scope,
    inner_code,
    inside,
    normal,
    program,
    read_command,
    resolve,
)
from hillclimber.shell.split import split_commands


def read_script(script: str, cwd: str | None = "/app") -> tuple[list[Command], Scope]:
    """Every simple command of `script` read in order, in one scope, as a script runs them."""
    scope = Scope(cwd)
    found: list[Command] = []
    for simple in split_commands(script):
        command = read_command(simple.text, scope)
        assert command is not None, simple.text
        found.append(command)
    return found, scope


def command(*args: str, cwd: str | None = "/app") -> Command:
    return Command(args, (), cwd, {})


# -- read_command and Scope -------------------------------------------------------------------


def test_a_cd_moves_the_commands_after_it() -> None:
    (cd, run), scope = read_script("cd /app/data && python3 x.py > out.txt")
    assert (cd.cwd, run.cwd) == ("/app", "/app/data")
    assert run.args == ("python3", "x.py") and run.redirects == ("out.txt",)
    assert run.path("out.txt") == "/app/data/out.txt"
    assert scope.cwd == "/app/data"


def test_a_relative_cd_and_dot_dot_are_followed() -> None:
    (*_, ls), _ = read_script("cd src && cd ../build && ls")
    assert ls.cwd == "/app/build"


def test_cd_without_a_folder_goes_home() -> None:
    (_, pwd), _ = read_script("cd; pwd")
    assert pwd.cwd == "/root"


def test_after_cd_dash_or_cd_into_an_unknown_folder_the_folder_is_unknown() -> None:
    (*_, ls), _ = read_script("cd /tmp; cd -; ls")
    assert ls.cwd is None
    (_, ls), _ = read_script(f"cd {SUBST}; ls")  # `cd "$(mktemp -d)"` as the reader lifts it
    assert ls.cwd is None


def test_an_exported_variable_is_followed_by_cd() -> None:
    (*_, ls), scope = read_script("export DIR=/srv/data; cd $DIR; ls")
    assert ls.cwd == "/srv/data"
    assert scope.env == {"DIR": "/srv/data"}


def test_a_plain_assignment_is_seen_by_later_commands() -> None:
    (_, rm), _ = read_script("OUT=/tmp/o; rm -rf $OUT/cache")
    assert rm.env == {"OUT": "/tmp/o"}
    assert rm.path("$OUT/cache") == "/tmp/o/cache"


def test_a_variable_set_from_a_substitution_has_an_unknown_value() -> None:
    (_, rm), _ = read_script("D=$(pwd); rm -rf $D/x")
    assert rm.env == {"D": None}
    assert rm.path("$D/x") is None


def test_a_loop_variable_and_a_read_variable_have_unknown_values() -> None:
    _, scope = read_script("for f in *.txt; do wc -l $f; done; read -p 'name? ' who")
    assert scope.env == {"f": None, "who": None}


def test_a_command_behind_sudo_keeps_that_it_runs_as_root() -> None:
    (rm,), _ = read_script("sudo rm -rf /var/cache/x")
    assert rm.sudo and rm.args == ("rm", "-rf", "/var/cache/x")


def test_a_command_that_cannot_be_read_is_none() -> None:
    assert read_command("echo 'unbalanced", Scope("/app")) is None


def test_the_name_of_a_command_is_its_program_without_a_folder() -> None:
    assert command("/usr/bin/python3", "-V").name == "python3"
    assert command().name == ""


# -- resolve, normal, inside ------------------------------------------------------------------


def test_a_relative_word_resolves_against_the_folder() -> None:
    assert resolve("data/../out.txt", "/app", {}) == "/app/out.txt"


def test_a_relative_word_in_an_unknown_folder_cannot_be_known() -> None:
    assert resolve("out.txt", None, {}) is None


def test_an_unset_variable_is_empty_so_rm_of_it_slash_star_is_root() -> None:
    assert resolve("$OUT/*", "/app", {}) == "/*"


def test_home_tilde_and_pwd_are_known() -> None:
    assert resolve("~/.bashrc", None, {}) == "/root/.bashrc"
    assert resolve("${HOME}/x", None, {}) == "/root/x"
    assert resolve("$PWD/f", "/app/sub", {}) == "/app/sub/f"


def test_a_variable_of_the_environment_such_as_path_cannot_be_known() -> None:
    assert resolve("$PATH/x", "/", {}) is None


def test_a_substitution_placeholder_or_backticks_cannot_be_known() -> None:
    assert resolve("@@subst@@/f", "/app", {}) is None
    assert resolve("`pwd`/f", "/app", {}) is None


def test_normal_takes_out_dots_and_doubled_slashes() -> None:
    assert normal("//a/./b/../c//") == "/a/c"
    assert normal("/") == "/"


def test_inside_means_the_folder_itself_or_below_it() -> None:
    assert inside("/app", ["/app"]) and inside("/app/x/y", ["/tmp", "/app"])
    assert not inside("/apple", ["/app"])
    assert inside("/etc/x", ["/"]) and inside("/", ["/"]) and inside("/app/x", ["/app/"])


# -- program and inner_code -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "source"),
    [
        (("bash", "-c", "echo hi"), ("code", "echo hi")),
        (("bash", "-ec", "ls"), ("code", "ls")),
        (("bash", "-o", "pipefail", "-c", "ls"), ("code", "ls")),
        (("sh", "script.sh"), ("file", "script.sh")),
        (("bash", "--norc", "x.sh"), ("file", "x.sh")),
        (("bash",), ("stdin", "")),
        (("bash", "-s"), ("stdin", "")),
        (("sh", "-"), ("stdin", "")),
        (("python3", "-c", "print(1)"), ("code", "print(1)")),
        (("python3", "-m", "http.server"), ("file", "http.server")),
        (("python3.11", "-u", "solve.py"), ("file", "solve.py")),
        (("python3", "-"), ("stdin", "")),
        (("python3",), ("stdin", "")),
        (("perl", "-e", "print 1"), ("code", "print 1")),
        (("node", "app.js"), ("file", "app.js")),
    ],
)
def test_where_a_shell_or_interpreter_gets_its_program(
    args: tuple[str, ...], source: ProgramSource
) -> None:
    assert program(command(*args)) == source


def test_a_command_that_is_no_shell_nor_interpreter_has_no_program() -> None:
    assert program(command("ls", "-l")) is None


def test_the_code_of_sh_dash_c_is_inner_code_but_a_python_program_is_not() -> None:
    assert inner_code(command("sh", "-c", "cd /tmp && rm -rf *")) == ["cd /tmp && rm -rf *"]
    assert inner_code(command("bash", "setup.sh")) == []
    assert inner_code(command("python3", "-c", "import os")) == []


def test_eval_runs_its_arguments_joined() -> None:
    assert inner_code(command("eval", "rm", "-rf", "$DIR")) == ["rm -rf $DIR"]


def test_find_exec_runs_each_action_up_to_its_end() -> None:
    find = command("find", ".", "-execdir", "chmod", "+x", "{}", "+", "-exec", "cat", "{}", ";")
    assert inner_code(find) == ["chmod +x '{}'", "cat '{}'"]


def test_an_unterminated_find_exec_still_runs_its_command() -> None:
    assert inner_code(command("find", ".", "-exec", "rm", "{}")) == ["rm '{}'"]
