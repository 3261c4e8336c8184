"""One simple command read into words (`read_words`): its arguments, the files its output goes
to, the assignments in front of it, and the real command behind sudo, env, timeout or xargs;
and the helpers every reader of a command line uses (`unwrap`, `drop_options`, `operands`,
`option_value`). Inputs are command lines as small models and Dockerfiles write them."""

from __future__ import annotations

from hillclimber.shell.words import (
    Words,
    drop_options,
    operands,
    option_value,
    read_words,
    unwrap,
)


def words(text: str) -> Words:
    read = read_words(text)
    assert read is not None, text
    return read


# -- read_words -------------------------------------------------------------------------------


def test_a_redirect_target_is_no_argument_but_a_redirect() -> None:
    read = words("python3 x.py > out.txt")
    assert read.args == ("python3", "x.py")
    assert read.redirects == ("out.txt",)
    assert read.name == "python3"


def test_appending_and_both_streams_redirects_name_their_files() -> None:
    assert words("ls 2>&1 >> log.txt").redirects == ("log.txt",)
    assert words("make &> build.log").redirects == ("build.log",)


def test_a_descriptor_duplication_and_an_input_file_are_no_output_files() -> None:
    read = words("sort < in.txt 2>&1")
    assert read.args == ("sort",)
    assert read.redirects == ()


def test_quoted_paths_lose_their_quotes_and_stay_one_word() -> None:
    read = words("cp \"/app/my file.txt\" '/tmp/other name.txt'")
    assert read.args == ("cp", "/app/my file.txt", "/tmp/other name.txt")


def test_assignments_in_front_are_kept_apart_from_the_command() -> None:
    read = words("DEBIAN_FRONTEND=noninteractive LANG=C apt-get install -y curl")
    assert read.assignments == ("DEBIAN_FRONTEND=noninteractive", "LANG=C")
    assert read.args == ("apt-get", "install", "-y", "curl")


def test_sudo_env_timeout_and_xargs_are_looked_through() -> None:
    read = words("sudo -u app env A=1 timeout 5 xargs -n 1 rm -f")
    assert read.args == ("rm", "-f")
    assert read.sudo and read.xargs


def test_nice_and_stdbuf_with_their_option_values_are_looked_through() -> None:
    assert words("nice -n 19 python3 -m pytest -q").args == ("python3", "-m", "pytest", "-q")
    assert words("stdbuf -o0 python3 run.py").args == ("python3", "run.py")


def test_a_heredoc_body_is_not_read_as_words() -> None:
    read = words("cat > /app/f.py <<'EOF'\nimport os\nprint(os.getcwd())\nEOF")
    assert read.args == ("cat",)
    assert read.redirects == ("/app/f.py",)


def test_a_line_continuation_joins_the_words() -> None:
    assert words("apt-get install -y \\\n    curl").args == ("apt-get", "install", "-y", "curl")


def test_the_name_is_the_program_without_its_folder() -> None:
    assert words("/usr/bin/python3 -V").name == "python3"


def test_unbalanced_quotes_cannot_be_read() -> None:
    assert read_words("echo 'it is unbalanced") is None


def test_an_empty_command_has_no_words_and_no_name() -> None:
    read = words("")
    assert read.args == () and read.name == ""


def test_an_arithmetic_expansion_stays_one_word() -> None:
    assert words("echo $((n+1)) > count.txt").args == ("echo", "$((n+1))")
    assert words("x=$((i + 1))").args == ()


# -- unwrap -----------------------------------------------------------------------------------


def test_su_dash_c_runs_its_code_in_a_shell_as_root() -> None:
    assert unwrap(["su", "-c", "apt-get install -y curl", "root"]) == (
        ["sh", "-c", "apt-get install -y curl"],
        True,
        False,
    )


def test_su_without_code_runs_nothing_here() -> None:
    assert unwrap(["su", "-", "app"]) == ([], True, False)


def test_command_dash_v_is_a_lookup_that_runs_nothing() -> None:
    assert unwrap(["command", "-v", "python3"]) == ([], False, False)


def test_command_without_dash_v_runs_its_command() -> None:
    assert unwrap(["command", "ls", "-la"]) == (["ls", "-la"], False, False)


def test_timeout_drops_its_signal_option_and_its_duration() -> None:
    assert unwrap(["timeout", "-s", "KILL", "10", "./solve.sh"]) == (["./solve.sh"], False, False)


def test_doas_counts_as_sudo() -> None:
    assert unwrap(["doas", "rm", "/etc/x"]) == (["rm", "/etc/x"], True, False)


def test_a_command_that_is_no_wrapper_is_left_as_it_is() -> None:
    assert unwrap(["python3", "-m", "timeout"]) == (["python3", "-m", "timeout"], False, False)


# -- drop_options, operands, option_value -----------------------------------------------------


def test_drop_options_skips_the_values_of_options_that_take_one() -> None:
    assert drop_options(["-n", "19", "-v", "python3", "-x"], frozenset({"-n"})) == [
        "python3",
        "-x",
    ]


def test_drop_options_stops_at_a_double_dash_and_keeps_what_follows() -> None:
    assert drop_options(["-a", "--", "-x", "y"], frozenset()) == ["-x", "y"]


def test_drop_options_keeps_a_lone_dash_for_stdin() -> None:
    assert drop_options(["-", "x"], frozenset()) == ["-", "x"]


def test_operands_are_the_non_option_words() -> None:
    assert operands(["-rf", "/app/build", "--verbose", "/tmp/x"]) == ["/app/build", "/tmp/x"]


def test_operands_leave_out_option_values_and_take_all_after_double_dash() -> None:
    assert operands(["-o", "out.txt", "a", "-", "--", "-b"], frozenset({"-o"})) == [
        "a",
        "-",
        "-b",
    ]


def test_option_value_reads_the_next_word() -> None:
    assert option_value(["-O", "/tmp/x.tar.gz", "https://e.com/x"], ("-O",)) == "/tmp/x.tar.gz"


def test_option_value_reads_the_long_equals_form() -> None:
    assert option_value(["--output=/tmp/out", "x"], ("-o", "--output")) == "/tmp/out"


def test_option_value_prefers_the_separate_form_over_the_equals_form() -> None:
    assert option_value(["--output=b", "-o", "a"], ("-o", "--output")) == "a"


def test_option_value_of_an_option_given_last_without_a_value_is_none() -> None:
    assert option_value(["x", "-o"], ("-o",)) is None
    assert option_value(["x"], ("-o", "--output")) is None


def test_an_arithmetic_expansion_never_closed_hides_no_word_after_it() -> None:
    assert words("echo $((1 + 2) rm -rf /").args[-2:] == ("-rf", "/")
