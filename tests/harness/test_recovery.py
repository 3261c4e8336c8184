from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hillclimber.harness.acting.diagnosis import FailureKind, RecoveryTracker, classify
from hillclimber.harness.acting.probe import (
    COMMON_COMMANDS,
    availability_note,
    modules_note,
    probe_commands,
    probe_modules,
)
from hillclimber.harness.acting.tools import ToolResult
from hillclimber.sandbox import (
    CommandResult,
    Sandbox,
    create_sandbox,
    pick_sandbox_kind,
    trial_layout,
)

from conftest import require_sandbox

K = FailureKind

# (command, exit code, output as the sandbox gives it, kind, a piece of the suggestion)
OUTPUTS: list[tuple[str, int, str, FailureKind, str]] = [
    (
        "python solve.py",
        127,
        "/bin/bash: line 1: python: command not found\n",
        K.COMMAND_NOT_FOUND,
        "use python3",
    ),
    (
        "primer3_core < in.txt",
        127,
        "bash: primer3_core: command not found\n",
        K.COMMAND_NOT_FOUND,
        "primer3_core is not installed here and cannot be installed (no network)",
    ),
    ("nosuch", 127, "sh: 1: nosuch: not found\n", K.COMMAND_NOT_FOUND, "not installed"),
    (  # the 0.5B ran its tool's name in the shell
        "read_file /app/numbers.txt",
        127,
        "/bin/bash: line 1: read_file: command not found\n",
        K.COMMAND_NOT_FOUND,
        "read_file is one of your tools, not a shell command: call it as a tool",
    ),
    ("sudo ls", 127, "/bin/bash: line 1: sudo: command not found\n", K.COMMAND_NOT_FOUND, "sudo"),
    ("vim x.py", 127, "bash: vim: command not found\n", K.COMMAND_NOT_FOUND, "write_file"),
    (
        "./run.sh",
        126,
        "/bin/bash: ./run.sh: /bin/bash^M: bad interpreter: No such file or directory\n",
        K.COMMAND_NOT_FOUND,
        "#! line",
    ),
    ("cat nofile", 1, "cat: nofile: No such file or directory\n", K.NOT_FOUND, "nofile does not"),
    (
        "ls /nope",
        2,
        "ls: cannot access '/nope': No such file or directory\n",
        K.NOT_FOUND,
        "/nope does not exist: check the path with ls; the task's files are in your working folder",
    ),
    (
        "python3 nonexist.py",
        2,
        "python3: can't open file '/app/nonexist.py': [Errno 2] No such file or directory\n",
        K.NOT_FOUND,
        "/app/nonexist.py",
    ),
    (
        "python3 -c 'open(\"/app/zz\")'",
        1,
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "FileNotFoundError: [Errno 2] No such file or directory: '/app/zz'\n",
        K.NOT_FOUND,
        "/app/zz",
    ),
    (
        "tar -xf none.tar",
        2,
        "tar: none.tar: Cannot open: No such file or directory\n"
        "tar: Error is not recoverable: exiting now\n",
        K.NOT_FOUND,
        "none.tar does not exist",
    ),
    (
        "make nothere",
        2,
        "make: *** No rule to make target 'nothere'.  Stop.\n",
        K.NOT_FOUND,
        "make",
    ),
    (
        "./a.c",
        126,
        "/bin/bash: line 1: ./a.c: Permission denied\n",
        K.PERMISSION_DENIED,
        "chmod +x ./a.c",
    ),
    (
        "cat /root/secret",
        1,
        "cat: /root/secret: Permission denied\n",
        K.PERMISSION_DENIED,
        "your working folder",
    ),
    (
        "touch /usr/x",
        1,
        "touch: cannot touch '/usr/x': Read-only file system\n",
        K.READ_ONLY,
        "only your working folder and /tmp are writable",
    ),
    ("echo hi > /etc/x", 1, "/bin/bash: line 1: /etc/x: Read-only file system\n", K.READ_ONLY, ""),
    (
        "curl -sS http://example.com",
        6,
        "curl: (6) Could not resolve host: example.com\n",
        K.NETWORK,
        "there is no network: use what is installed",
    ),
    (
        "wget http://example.com",
        4,
        "Resolving example.com (example.com)... failed: Temporary failure in name resolution.\n"
        "wget: unable to resolve host address ‘example.com’\n",
        K.NETWORK,
        "no network",
    ),
    (
        "pip install requests",
        1,
        "ERROR: Could not find a version that satisfies the requirement requests "
        "(from versions: none)\nERROR: No matching distribution found for requests\n",
        K.NETWORK,
        "no network",
    ),
    (
        "apt-get install -y jq",
        100,
        "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?",
        K.NETWORK,
        "cannot be installed",
    ),
    (
        "python3 -c 'import numpy'",
        1,
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'numpy'\n",
        K.IMPORT_ERROR,
        "no module 'numpy'",
    ),
    (
        "python3 -c 'from os import nothere'",
        1,
        "ImportError: cannot import name 'nothere' from 'os' (/usr/lib/python3.11/os.py)\n",
        K.IMPORT_ERROR,
        "'os' has no 'nothere'",
    ),
    (
        "python3 sol.py",
        1,
        '  File "/app/sol.py", line 3\n    def f(:\n          ^\nSyntaxError: invalid syntax\n',
        K.SYNTAX_ERROR,
        "Python syntax error at /app/sol.py line 3",
    ),
    (
        "python3 sol.py",
        1,
        '  File "/app/sol.py", line 2\n    print(1)\n    ^\n'
        "IndentationError: expected an indented block after 'if' statement on line 1\n",
        K.SYNTAX_ERROR,
        "indentation",
    ),
    (
        "if then fi",
        2,
        "bash: -c: line 1: syntax error near unexpected token `then'\n",
        K.SYNTAX_ERROR,
        "shell syntax error",
    ),
    (
        'echo "abc',
        2,
        "bash: -c: line 1: unexpected EOF while looking for matching `\"'\n",
        K.SYNTAX_ERROR,
        "shell syntax error",
    ),
    ("make", 2, "Makefile:2: *** missing separator.  Stop.\n", K.SYNTAX_ERROR, "TAB"),
    (
        "sqlite3 x.db 'selec 1'",
        1,
        'Error: in prepare, near "selec": syntax error\n  selec 1\n  ^--- error here\n',
        K.SYNTAX_ERROR,
        "SQL syntax error near 'selec'",
    ),
    (
        "gcc a.c -o a",
        1,
        "a.c: In function ‘main’:\n"
        "a.c:1:20: error: ‘x’ undeclared (first use in this function)\n"
        "    1 | int main(){ return x }\n",
        K.COMPILE_ERROR,
        "compile error at a.c:1: read the first error line, fix that line, compile again",
    ),
    (
        "gcc b.c -o b",
        1,
        "/usr/bin/ld: /tmp/cc.o: in function `main':\nb.c:(.text+0x5): undefined reference to "
        "`f'\ncollect2: error: ld returned 1 exit status\n",
        K.COMPILE_ERROR,
        "link error",
    ),
    (
        "gcc h.c",
        1,
        'h.c:1:10: fatal error: mine.h: No such file or directory\n    1 | #include "mine.h"\n',
        K.COMPILE_ERROR,
        "header mine.h is missing",
    ),
    (
        "rustc m.rs",
        1,
        "error[E0308]: mismatched types\n --> m.rs:1:26\n",
        K.COMPILE_ERROR,
        "compile error",
    ),
    (
        "javac A.java",
        1,
        "A.java:1: error: incompatible types: String cannot be converted to int\n",
        K.COMPILE_ERROR,
        "A.java:1",
    ),
    (
        "python3 -m pytest -q",
        1,
        "F.\n=================================== FAILURES ===================================\n"
        "E       assert 1 == 2\n\ntest_a.py:2: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED test_a.py::test_a - assert 1 == 2\n1 failed, 1 passed in 1.48s\n",
        K.TEST_FAILURE,
        "tests failed (first: test_a)",
    ),
    (
        "python3 test_u.py",
        1,
        "Ran 1 test in 0.001s\n\nFAILED (failures=1)\n",
        K.TEST_FAILURE,
        "fix the code",
    ),
    (
        "grep --bogus x f",
        2,
        "grep: unrecognized option '--bogus'\nUsage: grep [OPTION]... PATTERNS [FILE]...\n"
        "Try 'grep --help' for more information.\n",
        K.USAGE,
        "grep --help",
    ),
    (
        "cp a",
        1,
        "cp: missing destination file operand after 'a'\nTry 'cp --help' for more information.\n",
        K.USAGE,
        "cp --help",
    ),
    ("./prog --x", 1, "something went wrong\n", K.UNKNOWN, "exit code 1"),
    ("sort --frobnicate x", 2, "sort: unrecognized option '--frobnicate'\n", K.USAGE, "sort"),
    (
        "python3 tool.py --fast",
        2,
        "usage: tool.py [-h] [--slow]\ntool.py: error: unrecognized arguments: --fast\n",
        K.USAGE,
        "--help",
    ),
    ("cat log.txt | grep ERROR", 1, "", K.UNKNOWN, "no matching line"),
    ("diff a.txt b.txt", 1, "1c1\n< a\n---\n> b\n", K.UNKNOWN, "files differ"),
    (
        "python3 -c 'print(1/0)'",
        1,
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "ZeroDivisionError: division by zero\n",
        K.UNKNOWN,
        "ZeroDivisionError",
    ),
    ("./prog", 3, "", K.UNKNOWN, "exit code 3"),
    ("timeout 5 python3 slow.py", 124, "", K.TIMEOUT, "took too long"),
]


def test_the_table_is_large_enough() -> None:
    assert len(OUTPUTS) >= 20
    assert {kind for *_, kind, _ in OUTPUTS} == set(FailureKind)


@pytest.mark.parametrize(("command", "exit_code", "output", "kind", "suggestion"), OUTPUTS)
def test_failures_are_classified_with_a_concrete_suggestion(
    command: str, exit_code: int, output: str, kind: FailureKind, suggestion: str
) -> None:
    found, text = classify(command, exit_code, output)
    assert found is kind, (found, text)
    assert suggestion.lower() in text.lower()
    assert 0 < len(text) <= 120


def test_a_timeout_is_a_timeout_whatever_the_output() -> None:
    kind, text = classify("python3 serve.py", -9, "Serving on port 8000\n", timed_out=True)
    assert kind is K.TIMEOUT
    assert "input" in text


def test_long_names_keep_suggestions_short() -> None:
    name = "a_very_long_command_name_that_nobody_would_type_" * 3
    kind, text = classify(name, 127, f"bash: {name}: command not found\n")
    assert kind is K.COMMAND_NOT_FOUND
    assert len(text) <= 120


def test_shell_and_python_syntax_errors_are_told_apart() -> None:
    _, shell = classify("for x in; do", 2, "sh: 1: Syntax error: end of file unexpected\n")
    _, python = classify("python3 x.py", 1, "SyntaxError: invalid syntax\n")
    assert shell.startswith("shell") and python.startswith("Python")


def failed(output: str, exit_code: int = 1, timed_out: bool = False) -> ToolResult:
    status = "timed out" if timed_out else f"exit code {exit_code}"
    return ToolResult(
        False, f"[{status}]\n{output}", {"exit_code": exit_code, "timed_out": timed_out}
    )


def test_successes_get_no_diagnosis() -> None:
    ok = ToolResult(True, "[exit code 0]\nhi", {"exit_code": 0, "timed_out": False})
    assert RecoveryTracker().record("echo hi", ok) is None


def test_escalation_comes_at_exactly_the_third_identical_failure() -> None:
    tracker = RecoveryTracker()
    result = failed("bash: python: command not found\n", 127)
    first = tracker.record("python solve.py", result)
    second = tracker.record("python  solve.py ", result)  # the same command, spaced otherwise
    third = tracker.record("python solve.py", result)
    assert first is not None and second is not None and third is not None
    assert [d.repeats for d in (first, second, third)] == [1, 2, 3]
    assert [d.escalate for d in (first, second, third)] == [False, False, True]
    assert "completely different approach" not in second.feedback()
    assert third.feedback() == (
        "Error: command not found — use python3. This has failed 3 times the same way:"
        " try a completely different approach."
    )


def test_different_commands_or_kinds_do_not_escalate() -> None:
    tracker = RecoveryTracker()
    missing = failed("bash: python: command not found\n", 127)
    for command in ("python a.py", "python b.py", "python c.py", "python d.py"):
        diagnosis = tracker.record(command, missing)
        assert diagnosis is not None and not diagnosis.escalate
    for output in ("cat: x: No such file or directory\n", "cat: x: Permission denied\n"):
        diagnosis = tracker.record("cat x", failed(output))
        assert diagnosis is not None and not diagnosis.escalate


def test_the_status_line_of_the_tool_output_is_not_read_as_output() -> None:
    diagnosis = RecoveryTracker().record("grep -q x f", failed("", 1))
    assert diagnosis is not None
    assert "no matching line" in diagnosis.suggestion
    timed = RecoveryTracker().record("sleep 99", failed("", -9, timed_out=True))
    assert timed is not None and timed.kind is K.TIMEOUT


def test_feedback_shape() -> None:
    diagnosis = RecoveryTracker().record("cat nofile", failed("cat: nofile: No such file\n"))
    assert diagnosis is not None
    assert diagnosis.feedback().startswith("Error: not found — ")


# -- what is installed --------------------------------------------------------------------------


class CountingSandbox:
    """A real sandbox that counts the commands it is asked to run."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner
        self.commands: list[str] = []

    def run(self, command: str, **kwargs: Any) -> CommandResult:
        self.commands.append(command)
        return self.inner.run(command, **kwargs)


@pytest.fixture
def sandbox(tmp_path: Path) -> CountingSandbox:
    kind, _ = pick_sandbox_kind()
    require_sandbox(kind)
    return CountingSandbox(create_sandbox(kind, trial_layout(tmp_path / "trial")))


def test_probe_finds_what_is_installed_with_one_command(sandbox: CountingSandbox) -> None:
    names = ("python3", "gcc", "git", "no-such-tool-xyz", "g++")
    found = probe_commands(sandbox, names)  # type: ignore[arg-type]
    assert found["python3"] and found["gcc"] and found["git"]
    assert found["no-such-tool-xyz"] is False
    assert list(found) == list(names)
    assert len(sandbox.commands) == 1


def test_probe_of_the_common_commands(sandbox: CountingSandbox) -> None:
    found = probe_commands(sandbox)  # type: ignore[arg-type]
    assert set(found) == set(COMMON_COMMANDS)
    assert found["python3"] and found["grep"]
    assert len(sandbox.commands) == 1


def test_probe_refuses_names_that_are_not_command_names(sandbox: CountingSandbox) -> None:
    with pytest.raises(ValueError, match="not command names"):
        probe_commands(sandbox, ["ls; rm -rf /"])  # type: ignore[arg-type]
    assert sandbox.commands == []


def test_availability_note() -> None:
    note = availability_note({"python3": True, "gcc": True, "node": False, "cargo": False})
    assert note == "Commands here: python3, gcc. Not installed: node, cargo."
    assert availability_note({"python3": True}) == "Commands here: python3."
    assert availability_note({}) == ""


def test_probe_of_python_modules_with_one_command(sandbox: CountingSandbox) -> None:
    found = probe_modules(sandbox, ("json", "no_such_module_xyz"))  # type: ignore[arg-type]
    assert found == {"json": True, "no_such_module_xyz": False}
    assert len(sandbox.commands) == 1
    with pytest.raises(ValueError, match="not module names"):
        probe_modules(sandbox, ["os; import shutil"])  # type: ignore[arg-type]


def test_modules_note() -> None:
    note = modules_note({"pandas": True, "yaml": False, "numpy": False})
    assert note == "Python modules here: the standard library, pandas. Not installed: yaml, numpy."
    assert modules_note({}) == "Python modules here: the standard library."
