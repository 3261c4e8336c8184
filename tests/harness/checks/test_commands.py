"""Checks read from what the instruction says of commands and scripts: a script it calls
executable, on several phrasings; a table of instructions where no such check may fire; a
quoted place that is no command; words around "to" that are no change of value."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.harness.checks import build_checks

from conftest import host_sandbox

DOCUMENT = "one two  three\nfour\tfive\n\nsix\n"  # 6 words, 4 lines, 30 bytes


def checks(instruction: str, tmp_path: Path, files: dict[str, str] | None = None) -> list[str]:
    sandbox, workspace = host_sandbox(tmp_path)
    for name, text in (files or {"doc.txt": DOCUMENT}).items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    built = build_checks(instruction, sandbox)
    return [check.name for check in built.checks if check.strength == "value"]


@pytest.mark.parametrize(
    "instruction",
    [
        "Write an executable script /app/run.sh that prints the date.",
        "Create /app/tool.py and make it executable.",
        "/app/deploy.sh must be executable; write it so that it echoes done.",
        # the sentence names no file: the one script to make (as TermiGen's tasks say it)
        "Create a shell script at `/app/fix.sh` that rebuilds the library.\n\n"
        "The script must be executable and run without any user interaction.",
        "Save your solution to `/app/recover.sh`.\n\nThe script should be executable and "
        "contain only the commands needed.",
        "Write `/app/check.py`.\n\n- Format: Executable bash script",
        "Put the steps in /app/steps.sh. Your solution script must be executable and reproducible.",
    ],
)
def test_a_script_called_executable_must_be_executable(instruction: str, tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path)
    built = build_checks(instruction, sandbox)
    assert any(check.name.endswith(" is executable") for check in built.checks)


@pytest.mark.parametrize(
    "instruction",
    [
        # a narrowed count is not the file's count
        "Count the lines in /app/doc.txt that contain `two`. Write only the number to /app/c.txt.",
        "Count the words in /app/doc.txt per line and write only the numbers to /app/c.txt.",
        # the output holds more than the number
        "Count the words in /app/doc.txt and write a report to /app/r.txt with the count and "
        "the longest word.",
        # a count of something the file does not hold as words or lines
        "Count the errors in /app/doc.txt. Write only the number to /app/c.txt.",
        # no output file for it
        "Count the words in /app/doc.txt and tell me.",
        # two outputs: which one holds it is not said
        "Write the number of lines in /app/doc.txt to /app/a.txt and /app/b.txt.",
        # an example with a placeholder, and one of an exit status
        "Write /app/greet.sh; `bash /app/greet.sh NAME` prints `Hello, NAME!`.",
        "Write /app/check.sh; `bash /app/check.sh` returns `0` when all is well.",
        # a command that changes things is never run as a check
        "Fix the repo so that `git commit -m x` prints `1 file changed`.",
        # a file already there is not a new script to make executable
        "The existing /app/doc.txt is not executable; leave it so.",
        # a data file named beside the program the build makes is not that program
        "The build must produce a working executable. Save your notes to /app/fix.txt.",
        "Make sure the executable runs, then write the result to /app/result.json.",
        # a script said executable with two scripts to make: which one is not said
        "Write /app/a.sh and /app/b.py. The script must be executable.",
        # the executable is what the script makes, not the script
        "Write /app/build.sh. Running your shell script produces an executable that can "
        "process the sample.",
        "Write /app/pack.sh. The tool is a Python script, but when packaged into a standalone "
        "executable, it crashes.",
    ],
)
def test_no_rule_fires_where_it_should_not(instruction: str, tmp_path: Path) -> None:
    sandbox, workspace = host_sandbox(tmp_path)
    (workspace / "doc.txt").write_text(DOCUMENT)
    built = build_checks(instruction, sandbox)
    fired = [c.name for c in built.checks if "holds only" in c.name or "prints" in c.name]
    fired += [c.name for c in built.checks if c.name.endswith(" is executable")]
    assert fired == []


FOLDER = {"a.txt": "", "b/c.txt": "", ".hidden": ""}


@pytest.mark.parametrize(
    "instruction",
    [
        "The data processor in /app/doc.txt needs to fix its memory use; update it.",
        "Edit /app/doc.txt. You will want to identify the slow step first.",
        "Change /app/doc.txt so that it is easy to read and ready to run.",
    ],
)
def test_plain_words_around_to_are_not_a_change_of_value(instruction: str, tmp_path: Path) -> None:
    """ "needs to fix" is no change from `needs` to `fix` (TermiGen's instructions are full
    of them; the rule once demanded the file hold 'fix')."""
    found = checks(instruction, tmp_path, {"doc.txt": "it needs care\nyou want speed\nit is\n"})
    assert not [name for name in found if " contains " in name], found


@pytest.mark.parametrize(
    "quoted",
    [
        "/workspace/docker_data/",
        "/app/input.csv",
        "/home/project/pipeline/",
        "/workspace/app/Dockerfile",  # "the build process" of the Dockerfile at …
        "/app/src/main.c",
        "/etc/nginx/nginx.conf",
        "/var/lock/backup.lock",
        "python3 /app/solver.py <cnf_file>",  # a usage, its slot not filled
        "false",  # "followed by `true` or `false`"
    ],
)
def test_a_quoted_place_is_not_a_command_to_run(quoted: str, tmp_path: Path) -> None:
    """ "Run the analysis on `/workspace/data/`": a folder or a data file, not a command."""
    instruction = f"Run the analysis on the files in `{quoted}` and write /app/out.txt."
    sandbox, _ = host_sandbox(tmp_path)
    built = build_checks(instruction, sandbox)
    assert not [c.name for c in built.checks if "succeeds" in c.name]
