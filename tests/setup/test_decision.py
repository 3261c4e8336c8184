"""What to do with one simple command of a setup script (`Decision`), and the checks every
command gets: which paths setup may write (`writable`), which words are computed at build time
(`dynamic`), installs present or missing (`installs`, `merge`), and a plain command that writes
outside the sandbox or is not installed (`plain_command`)."""

from __future__ import annotations

import pytest

from hillclimber.setup.decision import (
    Context,
    Decision,
    dynamic,
    installs,
    merge,
    name_set,
    plain_command,
    writable,
)
from hillclimber.shell.words import Words, read_words


def words(text: str) -> Words:
    read = read_words(text)
    assert read is not None, text
    return read


def plain(text: str, ctx: Context | None = None) -> Decision:
    return plain_command(words(text), ctx or Context())


def test_skip_notes_why_and_need_groups_its_names() -> None:
    assert Decision.skip("apt-get update (not needed here)") == Decision(
        "skip", [], ["apt-get update (not needed here)"]
    )
    assert Decision.need("apt", "a", "b").needs == [("apt", "a"), ("apt", "b")]
    assert Decision().action == "run"


def test_name_set_reads_names_separated_by_any_blanks() -> None:
    assert name_set(" cd  export\necho ") == frozenset({"cd", "export", "echo"})


# -- writable, dynamic ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/app", "/app/data/x.csv", "/tmp/x", "/root/.cache/pip", "/dev/null", "/proc/self"]
)
def test_the_sandbox_folders_and_devices_are_writable(path: str) -> None:
    assert writable(path)


@pytest.mark.parametrize("path", ["/etc/hosts", "/usr/local/bin/tool", "/application", "/opt"])
def test_system_folders_and_look_alike_names_are_not_writable(path: str) -> None:
    assert not writable(path)


def test_a_path_that_climbs_out_of_app_is_not_writable() -> None:
    assert not writable("/app/../etc/passwd")


@pytest.mark.parametrize("word", ["$PKGS", "${VERSION}", "`cat list`", "*.whl", "lib?.so"])
def test_variables_substitutions_and_globs_are_dynamic(word: str) -> None:
    assert dynamic(word)


def test_a_plain_package_name_is_not_dynamic() -> None:
    assert not dynamic("python3-numpy")


# -- installs, merge --------------------------------------------------------------------------


def test_installs_needs_only_the_missing_names() -> None:
    versions = {"curl": "7.88"}
    verdict = installs("apt", ["curl", "primer3"], versions.get)
    assert verdict == Decision("need", [("apt", "primer3")], [])


def test_installs_skips_when_everything_is_present_and_notes_versions() -> None:
    versions = {"numpy": "1.26.4", "git": ""}
    assert installs("pip", ["numpy"], versions.get).satisfied == ["pip: numpy 1.26.4 (installed)"]
    assert installs("apt", ["git"], versions.get) == Decision("skip", [], ["apt: git (installed)"])


def test_merge_keeps_both_notes_and_skips_only_when_the_second_skips() -> None:
    assert merge(Decision.skip("a"), Decision.skip("b")) == Decision("skip", [], ["a", "b"])
    assert merge(Decision.skip("a"), Decision()) == Decision("run", [], ["a"])


def test_merge_needs_when_either_needs() -> None:
    merged = merge(Decision.need(None, "file x"), Decision.skip("b"))
    assert merged == Decision("need", [(None, "file x")], ["b"])


# -- plain_command ----------------------------------------------------------------------------


def test_writing_inside_the_sandbox_runs() -> None:
    assert plain("mkdir -p /app/data") == Decision()
    assert plain("cp a.txt /tmp/a.txt") == Decision()
    assert plain("echo x > /dev/null") == Decision()


@pytest.mark.parametrize(
    ("command", "target"),
    [
        ("mkdir -p /opt/hc-notreal", "/opt/hc-notreal"),
        ("echo x > /etc/hc-notreal.conf", "/etc/hc-notreal.conf"),
        ("cp tool.sh /usr/local/bin/hc-notreal", "/usr/local/bin/hc-notreal"),
        ("tee /etc/hc-notreal < in.txt", "/etc/hc-notreal"),
        ("python3 -m venv /opt/venv", "/opt/venv"),
        ("install -m 755 tool /usr/local/bin/hc-tool", "/usr/local/bin/hc-tool"),
    ],
)
def test_writing_outside_the_sandbox_is_a_need(command: str, target: str) -> None:
    assert plain(command) == Decision("need", [(None, f"writes {target}, outside /app")])


def test_making_a_system_folder_that_is_already_there_is_skipped() -> None:
    assert plain("mkdir -p /usr") == Decision.skip("mkdir /usr (already exists here)")


def test_a_computed_destination_cannot_be_checked_and_runs() -> None:
    assert plain("cp tool $PREFIX/bin/tool") == Decision()


def test_a_command_that_is_not_installed_is_a_need() -> None:
    assert plain("hc-notreal-cmd --help") == Decision.need("commands", "hc-notreal-cmd")


@pytest.mark.parametrize(
    "command", ["ls -la", "cd /app", "export A=1", "./run.sh", "/opt/x/bin/tool", "$CMD arg"]
)
def test_installed_commands_builtins_paths_and_computed_names_run(command: str) -> None:
    assert plain(command) == Decision()


def test_a_function_the_script_defines_is_no_missing_command() -> None:
    ctx = Context(functions=frozenset({"hc_setup"}))
    assert plain("hc_setup --fast", ctx) == Decision()


def test_a_path_the_build_can_fill_may_hold_a_new_command() -> None:
    ctx = Context(env={"PATH": "/app/.venv/bin:/usr/bin:/bin"})
    assert plain("hc-notreal-cmd --help", ctx) == Decision()


def test_a_link_made_inside_an_existing_system_folder_is_a_need() -> None:
    assert plain("ln -s /app/hc-tool /usr/local/bin/").action == "need"
