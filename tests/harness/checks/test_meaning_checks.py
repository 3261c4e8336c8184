"""Checks read from what the instruction says the result is, however it is worded: each rule on
several phrasings, and a table of instructions where no rule may fire."""

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
    ("instruction", "expected"),
    [
        (
            "Count the words in /app/doc.txt. Write only the number to /app/count.txt.",
            "/app/count.txt holds only 6",
        ),
        (
            "How many words does /app/doc.txt contain? Save just the number in /app/n.txt.",
            "/app/n.txt holds only 6",
        ),
        (
            "Write the number of lines in /app/doc.txt to /app/lines.txt.",
            "/app/lines.txt holds only 4",
        ),
        (
            "How many lines are there in `doc.txt`? Put the answer into /app/answer.txt.",
            "/app/answer.txt holds only 4",
        ),
        (
            "Find the number of bytes of /app/doc.txt and store the result in /app/size.txt.",
            "/app/size.txt holds only 30",
        ),
    ],
)
def test_a_count_of_an_input_file_is_worked_out_from_the_input(
    instruction: str, expected: str, tmp_path: Path
) -> None:
    assert expected in checks(instruction, tmp_path)


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        (
            "Write a script /app/greet.sh that greets its argument. For example, "
            "`bash /app/greet.sh Ann` prints `Hello, Ann!`.",
            "`bash /app/greet.sh Ann` succeeds and prints 'Hello, Ann!'",
        ),
        (
            "Create /app/calc.py. Running it as `python3 /app/calc.py 2 3` should print `5`.",
            "`python3 /app/calc.py 2 3` succeeds and prints '5'",
        ),
        (
            "Write /app/up.sh so that `sh /app/up.sh abc` outputs `ABC` and nothing else.",
            "`sh /app/up.sh abc` succeeds and prints 'ABC'",
        ),
    ],
)
def test_a_command_given_as_an_example_must_print_its_stated_output(
    instruction: str, expected: str, tmp_path: Path
) -> None:
    assert expected in checks(instruction, tmp_path)


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
def test_no_meaning_rule_fires_where_it_should_not(instruction: str, tmp_path: Path) -> None:
    sandbox, workspace = host_sandbox(tmp_path)
    (workspace / "doc.txt").write_text(DOCUMENT)
    built = build_checks(instruction, sandbox)
    fired = [c.name for c in built.checks if "holds only" in c.name or "prints" in c.name]
    fired += [c.name for c in built.checks if c.name.endswith(" is executable")]
    assert fired == []


PEOPLE = 'id,name,city\n1,Ann,"Oslo, NO"\n2,Bo,Rome\n'


@pytest.mark.parametrize(
    "instruction",
    [
        "Convert /app/people.csv to /app/people.json: a JSON array with one object per data row, "
        "the header's column names as keys.",
        "Write /app/people.json, a list of objects, one for each row of /app/people.csv; the "
        "field names come from the header.",
        "Turn `people.csv` into JSON at /app/people.json. Use one object per row and use the "
        "header's names as the keys.",
    ],
)
def test_a_table_turned_into_json_objects_has_its_rows_and_header_keys(
    instruction: str, tmp_path: Path
) -> None:
    found = checks(instruction, tmp_path, {"people.csv": PEOPLE})
    assert "/app/people.json is a JSON array of 2 objects with keys id, name, city" in found


FOLDER = {"a.txt": "", "b/c.txt": "", ".hidden": ""}


@pytest.mark.parametrize(
    "instruction",
    [
        "List the contents of the directory /app into /app/listing.txt, one name per line, "
        "leaving out hidden entries.",
        "Write the names of the files in /app to /app/names.txt, one name per line. "
        "List the entries of /app only, not hidden ones.",
        "list the files and folders in /app into /app/out.txt, one entry on each line "
        "(no hidden files).",
    ],
)
def test_a_listing_of_a_folder_holds_its_entries(instruction: str, tmp_path: Path) -> None:
    found = checks(instruction, tmp_path, FOLDER)
    assert any(name.endswith("lists the 2 names, one per line") for name in found), found


@pytest.mark.parametrize(
    ("instruction", "files"),
    [
        # the objects' keys are not the header's
        ("Convert /app/people.csv to /app/people.json, one object per row with keys `who` and "
         "`where`.", {"people.csv": PEOPLE}),
        # not one object per row
        ("Convert /app/people.csv to /app/people.json grouped by city, with the header's "
         "names as keys.", {"people.csv": PEOPLE}),
        # a listing of everything below, or of hidden files in a way not read
        ("List the contents of /app recursively into /app/all.txt, one name per line.", FOLDER),
        ("List the files in /app into /app/l.txt, one name per line, as `ls -a` does.", FOLDER),
        # a listing without one name per line
        ("List the contents of /app into /app/l.txt as a JSON array.", FOLDER),
    ],
)  # fmt: skip
def test_no_table_or_listing_rule_fires_where_it_should_not(
    instruction: str, files: dict[str, str], tmp_path: Path
) -> None:
    found = checks(instruction, tmp_path, files)
    assert not [name for name in found if "JSON array of" in name or " lists the " in name]


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
