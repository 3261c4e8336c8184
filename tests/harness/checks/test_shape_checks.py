"""Checks of the form an instruction states for its result (`harness/checks/shape.py`): each rule
on several phrasings (some as TermiGen's tasks write them), what passes and fails them, and a
table of instructions where none may fire."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hillclimber.harness.checks import build_checks
from hillclimber.harness.checks.base import CheckContext
from hillclimber.harness.checks.fields import FileHasFields
from hillclimber.harness.checks.kinds import FileParses
from hillclimber.harness.checks.lines import (
    FileHasHeader,
    FileLineCount,
    FileLinesDelimited,
    FileLinesLike,
)
from hillclimber.harness.checks.shape import FileMatchesJson

from conftest import host_sandbox


def form_checks(instruction: str, tmp_path: Path, files: dict[str, str] | None = None) -> list:
    sandbox, workspace = host_sandbox(tmp_path)
    for name, text in (files or {"data.csv": "a,b\n1,2\n"}).items():
        (workspace / name).write_text(text)
    built = build_checks(instruction, sandbox)
    return [check for check in built.checks if check.strength == "form"]


def outcome(check: object, tmp_path: Path, text: str) -> tuple[bool, str]:
    sandbox, workspace = host_sandbox(tmp_path / "judge")
    target = workspace / Path(check.path).name  # type: ignore[attr-defined]
    target.write_text(text)
    moved = type(check)(**{**check.__dict__, "path": f"/app/{target.name}"})  # type: ignore[arg-type]
    result = moved.run(CheckContext(sandbox, {}))
    return result.passed, result.detail


JSON_PHRASINGS = [
    "Save your results to `/app/out.json` with this structure:\n```json\n"
    '{\n  "total": 12,\n  "names": ["a", "b"]\n}\n```',
    "Write a JSON report to /app/out.json.\n\nExample output format:\n```\n"
    '{"total": 3, "names": ["x"]}\n```',
    "**Output Requirements:**\nCreate `/app/out.json`.\n\nThe file should look like this:\n"
    '```json\n{\n  "total": <number>,\n  "names": [...]\n}\n```',
]


@pytest.mark.parametrize("instruction", JSON_PHRASINGS)
def test_a_json_example_gives_its_keys(instruction: str, tmp_path: Path) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileMatchesJson)]
    assert check.path == "/app/out.json" and "keys total, names" in check.name
    assert outcome(check, tmp_path, '{"total": 7, "names": ["p", "q"], "extra": 1}')[0]
    assert outcome(check, tmp_path, '{"total": 7}') == (False, "the top lacks the key names")
    assert not outcome(check, tmp_path, "7")[0]


def test_a_json_example_checks_the_kinds_of_values_and_array_items(tmp_path: Path) -> None:
    example = '[{"port": 8080, "command": "nginx"}, {"port": 22, "command": "sshd"}]'
    check = FileMatchesJson("/app/ports.json", example)
    assert outcome(check, tmp_path, '[{"port": 1, "command": "a"}]')[0]
    assert not outcome(check, tmp_path, "[]")[0]  # no items, where the example shows some
    assert outcome(FileMatchesJson("/app/ports.json", example, empty=True), tmp_path, "[]")[0]
    assert outcome(check, tmp_path, '[{"port": "1", "command": "a"}]') == (
        False,
        "the top[0].port is a string, not a number",
    )
    assert outcome(check, tmp_path, '[{"port": null, "command": "a"}]')[0]  # null: anything
    # but a file that is null as a whole is no array (the 1.5B wrote `null`, and stood by it)
    assert outcome(check, tmp_path, "null") == (False, "it is null, not an array")
    counted = FileMatchesJson("/app/ports.json", example, items=2)
    assert outcome(counted, tmp_path, '[{"port": 1, "command": "a"}]') == (
        False,
        "1 items, not 2",
    )


def test_a_json_answer_with_no_value_in_it_is_no_answer(tmp_path: Path) -> None:
    """`{"distributions": []}` (the 1.5B's answer, stood by) is the example's skeleton; one
    empty list among values may be right."""
    example = '{"distributions": [{"fixed_bits": 3.0, "entropy_bits": 2.2}]}'
    check = FileMatchesJson("/app/out.json", example)
    assert outcome(check, tmp_path, '{"distributions": []}') == (
        False,
        "it holds no value: its arrays are empty, where the example's have items",
    )
    two = FileMatchesJson("/app/out.json", '{"rows": [1], "names": ["a"], "total": 1}')
    assert outcome(two, tmp_path, '{"rows": [], "names": [], "total": 0}')[0]
    nested = FileMatchesJson("/app/out.json", '{"groups": [{"rows": ["a"]}]}')
    assert not outcome(nested, tmp_path, '{"groups": [{"rows": []}]}')[0]
    allowed = FileMatchesJson("/app/out.json", '{"groups": ["a"]}', empty=True)
    assert outcome(allowed, tmp_path, '{"groups": []}')[0]  # "empty if none"


@pytest.mark.parametrize(
    "held", ["your_api_key_here", "<api key>", "...", "TODO", "placeholder", "insert key here"]
)
def test_a_json_answer_holding_a_stand_in_is_no_answer(held: str, tmp_path: Path) -> None:
    """The 1.5B's findings held `"api_key": "your_api_key_here"` and it confirmed them."""
    check = FileMatchesJson("/app/f.json", '{"ip": "10.0.0.1", "port": 80, "api_key": "k-1"}')
    answer = json.dumps({"ip": "192.168.1.100", "port": 12345, "api_key": held})
    assert outcome(check, tmp_path, answer) == (
        False,
        f"it holds {held!r}, which stands in for a value: find the real one",
    )
    assert outcome(check, tmp_path, answer.replace(held, "sk-9f2"))[0]


def test_a_null_where_the_example_asks_for_a_value_is_no_answer(tmp_path: Path) -> None:
    """The 1.5B wrote `"vulnerable_code_line": null` where the example had `<line number in
    app.py>`; a null where the example shows a value of its own may be right."""
    instruction = (
        "Save your findings to `/app/report.json` with the following structure:\n```json\n"
        '{\n  "attempts": <number>,\n  "line": <line number in app.py>,\n'
        '  "impact": "<brief description>",\n  "error": "timeout"\n}\n```'
    )
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileMatchesJson)]
    right = {"attempts": 3, "line": 42, "impact": "resets", "error": "timeout"}
    assert outcome(check, tmp_path, json.dumps(right))[0]
    assert outcome(check, tmp_path, json.dumps({**right, "error": None}))[0]
    assert outcome(check, tmp_path, json.dumps({**right, "line": None})) == (
        False,
        "the top.line is null, where the example asks for a value",
    )
    assert not outcome(check, tmp_path, json.dumps({**right, "impact": None}))[0]
    assert outcome(check, tmp_path, json.dumps({**right, "line": "12"}))[0]  # a bare one: any
    told = instruction + "\n\nUse null for `line` if the code is not there."
    [allowed] = [c for c in form_checks(told, tmp_path) if isinstance(c, FileMatchesJson)]
    assert outcome(allowed, tmp_path, json.dumps({**right, "line": None}))[0]


@pytest.mark.parametrize(
    ("instruction", "answer", "passes"),
    [
        (  # unfenced, `<integer>` in an array's objects
            'Write /app/out.json. Example output format:\n```\n[{"user": "<name>", "hits": '
            "<integer>}]\n```",
            [{"user": "ann", "hits": None}],
            False,
        ),
        (  # a fenced json block, a quoted placeholder
            "Save the result to `/app/out.json` with this structure:\n```json\n"
            '{"driver": "<driver name>", "count": 3}\n```',
            {"driver": None, "count": 3},
            False,
        ),
        (  # the example's own value may be null in the answer
            "Save the result to `/app/out.json` like this:\n```json\n"
            '{"driver": "overlay2", "error": "disk full"}\n```',
            {"driver": "overlay2", "error": None},
            True,
        ),
        (  # the instruction speaks of null
            'Write /app/out.json in this format:\n```json\n{"port": <port number>}\n```\n'
            "Set `port` to null when no port is open.",
            {"port": None},
            True,
        ),
    ],
)
def test_null_for_a_placeholder_in_several_phrasings(
    instruction: str, answer: object, passes: bool, tmp_path: Path
) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileMatchesJson)]
    assert outcome(check, tmp_path, json.dumps(answer))[0] is passes


def test_a_word_the_example_holds_as_a_value_is_no_stand_in(tmp_path: Path) -> None:
    check = FileMatchesJson("/app/t.json", '[{"task": "build", "state": "TODO"}]')
    assert outcome(check, tmp_path, '[{"task": "ship", "state": "todo"}]')[0]
    assert not outcome(check, tmp_path, '[{"task": "<task>", "state": "DONE"}]')[0]


def test_keys_that_are_data_are_not_demanded(tmp_path: Path) -> None:
    """`{"10.0.0.1": 3}`, `{"user1": …}`: a map; only its values' form is kept."""
    check = FileMatchesJson("/app/hits.json", '{"10.0.0.1": 3, "10.0.0.2": 5}')
    assert "named entries" in check.name
    assert outcome(check, tmp_path, '{"192.168.1.9": 12}')[0]
    assert not outcome(check, tmp_path, '{"192.168.1.9": "twelve"}')[0]
    nested = FileMatchesJson(
        "/app/nets.json",
        '{"web-1": {"ip": "a", "networks": {"bridge": "x"}}, "db-1": {"ip": "b", "networks": {}}}',
    )  # only what every entry shows is demanded: the networks' names are data too
    assert outcome(nested, tmp_path, '{"c-9": {"ip": "z", "networks": {"front": "y"}}}')[0]
    assert not outcome(nested, tmp_path, '{"c-9": {"networks": {}}}')[0]


FIELD_PHRASINGS = [
    "Save your findings to `/app/diagnosis.txt` in this exact format:\n\n```\n"
    "FAILED_JOB=<job_name>\nREASON=<one-line explanation>\n```",
    "Write the result to /app/diagnosis.txt. Example output:\n```\n"
    "FAILED_JOB=redis-cache\nREASON=not enough memory\n```",
    "Create /app/diagnosis.txt containing two lines like the following:\n\n"
    "FAILED_JOB=web\nREASON=port in use",
]


@pytest.mark.parametrize("instruction", FIELD_PHRASINGS)
def test_key_value_lines_of_an_example_are_demanded(instruction: str, tmp_path: Path) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileHasFields)]
    assert check.labels == ("FAILED_JOB=", "REASON=")
    assert outcome(check, tmp_path, "REASON=too big\nFAILED_JOB=batch\n")[0]
    assert outcome(check, tmp_path, "FAILED_JOB=batch\n") == (False, "no line REASON=")
    assert outcome(check, tmp_path, "FAILED_JOB=<job_name>\nREASON=x\n") == (
        False,
        "FAILED_JOB= holds a placeholder",
    )
    assert outcome(check, tmp_path, "FAILED_JOB=your_job_here\nREASON=x\n") == (
        False,
        "FAILED_JOB= holds a placeholder",
    )
    # the command where its output was to be: `echo 'N=$(ls | wc -l)'` never ran it
    assert outcome(check, tmp_path, "FAILED_JOB=$(grep -l FAIL *.log)\nREASON=x\n") == (
        False,
        "FAILED_JOB= holds a placeholder",
    )


def test_labels_with_a_colon_and_words(tmp_path: Path) -> None:
    instruction = (
        "Save the summary to /app/summary.txt in this format:\n```\n"
        "Total requests: 1234\nUnique IPs: 56\n```"
    )
    [check] = form_checks(instruction, tmp_path)
    assert check.labels == ("Total requests:", "Unique IPs:")
    assert outcome(check, tmp_path, "Unique IPs: 3\nTotal requests: 9\n")[0]


LINE_PHRASINGS = [
    "Save the peaks to `/app/peaks.txt`, one per line.\n\nExample output:\n```\n"
    "chr1:1523\nchr1:8947\nchr2:3301\n```",
    "Write every site to /app/peaks.txt using this exact format:\n```\nchr7:10\nchrX:99\n```",
    "The output file /app/peaks.txt should contain lines like the following:\n\nchr1:5\nchr2:6",
]


@pytest.mark.parametrize("instruction", LINE_PHRASINGS)
def test_lines_of_one_shape(instruction: str, tmp_path: Path) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileLinesLike)]
    assert outcome(check, tmp_path, "chr3:17\nchr10:2\n")[0]
    assert outcome(check, tmp_path, "chr3 17\n") == (
        False,
        "the line 'chr3 17' is not like the example's",
    )
    assert outcome(check, tmp_path, "c!r$3:17\n")[0]  # a word may hold any character
    assert outcome(check, tmp_path, "")[0]  # nothing of another form (`exists` sees empty)


def test_spaces_beside_a_mark_are_optional(tmp_path: Path) -> None:
    instruction = (
        "Write the verdicts to /app/edges.txt in this format:\n```\n"
        "A -> B: SUPPORTED\nC -> D: REJECTED\n```"
    )
    [check] = form_checks(instruction, tmp_path)
    assert outcome(check, tmp_path, "X->Y:REJECTED\nP -> Q: SUPPORTED\n")[0]
    assert not outcome(check, tmp_path, "X Y SUPPORTED\n")[0]


DELIMITED_PHRASINGS = [
    # one line of names: the form, not values
    "Write them to /app/answer.txt, one line per customer, highest total first, in the form\n\n"
    "```\nname,total\n```",
    # a line of placeholders, as TermiGen's tasks write them
    "Save your results to: `/app/answer.txt`\n\nThe output format is:\n```\n<name>,<total>\n```",
    # lines of differing shapes (a name with a space), one field count
    "Save the totals to /app/answer.txt using this format:\n```\nAnn Lee,12.50\nBob,3\n```",
]


@pytest.mark.parametrize("instruction", DELIMITED_PHRASINGS)
def test_lines_of_delimited_fields(instruction: str, tmp_path: Path) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileLinesDelimited)]
    assert outcome(check, tmp_path, "Ann Lee,12.50\nBob , 3.00\n")[0]
    assert outcome(check, tmp_path, '"Lee, Ann",12.50\n')[0]  # a quoted field is one
    assert outcome(check, tmp_path, "Ann|12.50\n") == (
        False,
        "the line 'Ann|12.50' has 1 fields at ',', not 2",
    )
    assert not outcome(check, tmp_path, "Ann,12.50,paid\n")[0]


THREE = ("1\n2\n\n3\n", "1\n2\n", "it has 2")
ONE = ("a,b,c\n", "a\nb\n", "it has 2")


@pytest.mark.parametrize(
    ("instruction", "lines", "answers"),
    [
        ("Save the answer to /app/result.txt. The file must contain exactly 3 lines.", 3, THREE),
        (
            "Create `/app/result.txt` with exactly three lines: the mean, the median and the mode.",
            3,
            THREE,
        ),
        ("**Output:** write /app/result.txt\n\n- It contains exactly 3 non-empty lines", 3, THREE),
        ("Write the healthy paths to /app/paths.txt as a single line, comma-separated.", 1, ONE),
        (
            "Save the offset to /app/offset.txt.\n\n- The file contains a single line with a "
            "decimal integer",
            1,
            ONE,
        ),
        (
            "**Output:** /app/lib.txt, a plain text file with only one line: the library's folder.",
            1,
            ONE,
        ),
    ],
)
def test_a_stated_number_of_lines(
    instruction: str, lines: int, answers: tuple[str, str, str], tmp_path: Path
) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileLineCount)]
    assert check.lines == lines
    right, wrong, why = answers
    assert outcome(check, tmp_path, right)[0]
    assert outcome(check, tmp_path, wrong) == (False, why)


@pytest.mark.parametrize(
    "instruction",
    [
        "Save the strings to /app/out.txt, one string per line.\n\n- The output file contains "
        "exactly 4 unique strings\n- Exactly 3 strings are ASCII",
        "Write /app/out.txt with one host per line. The list has exactly four hosts.",
        "Write the report /app/out.txt, one user per line; it must contain exactly 4 users.",
    ],
)
def test_a_count_of_the_things_listed_one_per_line(instruction: str, tmp_path: Path) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileLineCount)]
    assert check.lines == 4


@pytest.mark.parametrize(
    "instruction",
    [
        # a line's count, not the file's
        "Write one username per line to /app/u.txt.\n- Each line contains exactly one username",
        # a count of a kind among the lines, not of them
        "Write one string per line to /app/s.txt. Exactly 8 strings are identified as ASCII.",
        # no thing per line said
        "Write the users to /app/u.txt. It must contain exactly 4 users.",
    ],
)
def test_no_line_count_from_a_count_of_other_things(instruction: str, tmp_path: Path) -> None:
    assert not [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileLineCount)]


def test_a_csv_example_gives_its_header(tmp_path: Path) -> None:
    instruction = (
        "Write the table to /app/out.csv.\n\nExample output format:\n```\n"
        "sample_id,mean_value,max_value\nS1,45.2,89.3\nS2,38.7,72.1\n```"
    )
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileHasHeader)]
    assert outcome(check, tmp_path, "sample_id,mean_value,max_value\nA,1,2\n")[0]
    assert outcome(check, tmp_path, "sample_id,mean_value,max_value\nA,1\n") == (
        False,
        "row 2 has 2 fields",
    )
    assert not outcome(check, tmp_path, "id,mean,max\nA,1,2\n")[0]


@pytest.mark.parametrize(
    "instruction",
    [
        "Clean /app/in.txt into /app/out.csv.\n\nOutput: the header line `city,name,email`, then"
        " one line per contact.",
        "Write /app/out.csv: the header `city,name,email`, then one row per contact.",
        "**Output:** `/app/out.csv` (CSV)\n\n- header row `city, name, email`\n- one row each",
    ],
)
def test_a_stated_header_is_the_tables_form(instruction: str, tmp_path: Path) -> None:
    checks = form_checks(instruction, tmp_path, {"in.txt": "Oslo | Ann | a@x\n"})
    [check] = [c for c in checks if isinstance(c, FileHasHeader)]
    assert check.path == "/app/out.csv" and check.header == ("city", "name", "email")
    assert outcome(check, tmp_path, "city,name,email\nOslo,Ann,a@x\n")[0]
    assert outcome(check, tmp_path, "city,name,email\n")[0]  # a header alone has the form…
    assert check.strength == "form"  # …so it is no evidence of the values
    assert not outcome(check, tmp_path, "name,email,city\nAnn,a@x,Oslo\n")[0]


@pytest.mark.parametrize(
    "instruction",
    [
        "Write the conflicting paths to /app/conflicts.txt, one per line, sorted alphabetically.",
        "Save the usernames to `/app/users.txt`. Usernames should be sorted alphabetically, with "
        "no duplicates.",
        "**Output:** /app/users.txt\n\n- one name per line\n- in alphabetical order\n"
        "- each name listed only once",
    ],
)
def test_sorted_and_unique_lines(instruction: str, tmp_path: Path) -> None:
    checks = form_checks(instruction, tmp_path)
    kinds = {type(c).__name__ for c in checks}
    assert "FileLinesSorted" in kinds
    for check in checks:
        assert outcome(check, tmp_path, "ann\nBob\ncarl\n")[0]  # with or without case
    sort = next(c for c in checks if type(c).__name__ == "FileLinesSorted")
    assert outcome(sort, tmp_path, "bob\nann\n") == (
        False,
        "its lines are not in alphabetical order",
    )
    unique = [c for c in checks if type(c).__name__ == "FileLinesUnique"]
    if "duplicates" in instruction or "only once" in instruction:
        assert outcome(unique[0], tmp_path, "ann\nann\n") == (False, "'ann' is there twice")


NEGATIVES = [
    # an example of the input, not of the result
    "Each line of /app/data.csv has this format:\n```\nid=1\nname=x\n```\n"
    "Write the count to /app/count.txt.",
    # the example's names are said not to be the real ones
    "Save the config to /app/config.json.\n\nExample output format:\n```json\n"
    '{"field_one": "a", "field_two": "b"}\n```\n\n(Note: the actual field names will be '
    "different - you must find them.)",
    # a template of lines, not their labels
    "Save the options to /app/options.txt. Example format:\n```\nCONFIG_OPTION_NAME=value\n```",
    # lines described by number, not labelled
    "Create /app/answer.txt containing exactly:\n\nLine 1: the driver name\nLine 2: the old one",
    # "exactly one line per edge" counts edges, not the file's lines
    "Save the results to /app/edges.txt, exactly one line per proposed edge.",
    # a single line for each thing counts the things
    "Write the accounts to /app/accounts.txt; each account goes on a single line.",
    "Save one record per host to /app/hosts.txt, only one line per host.",
    # a single line of the input
    "The input file /app/data.txt has a single line. Write its length to /app/len.txt.",
    # a requirement list after a colon is not an example
    "Create a Python script at /app/run.py that:\n- Reads the data\n- Writes /app/x.json",
    # a code block of commands
    "Write /app/notes.txt. Run it like this:\n```bash\npython3 run.py --fast\n```",
    # two files in scope: which one the example is of is not said
    'Write /app/a.json and /app/b.json in this format:\n```json\n{"k": 1}\n```',
    # a block of code shows a program, not a line pattern
    "Save the fix to /app/fix.txt in this format:\n```sql\nCREATE INDEX a ON t(c);\n"
    "CREATE INDEX b ON t(d);\n```",
    # what a script prints is not the script's own form
    "Write /app/check.sh that prints exactly 4 lines, like this:\n```\nyes\nno\nyes\nno\n```",
    # an order other than the lines' own, or of a JSON file
    "Write the hosts to /app/hosts.txt sorted by count in descending order.",
    "Save the sessions to /app/sessions.json; each session_id appears only once.",
    # a single example line: a path's shape would bind the answer's number of folders
    "Save the library folder to /app/lib.txt.\n\nExample:\n```\n/usr/lib/x86_64-linux-gnu\n```",
    # an example line with two delimiters, or an empty field: no field count is stated
    "Write the range to /app/range.txt in this format:\n```\n1,5;7,9\n```",
    "Write the statements to /app/out.txt in this format:\n```\nSET a = 1;\n```",
    # a delimited line of the input
    "Each line of /app/data.txt has the format `id|name`. Write the count to /app/count.txt.",
    # a header of the input, or of a file that is no table, or none at all
    "Read /app/data.csv (header `a,b`) and write the sum of b to /app/sum.txt.",
    "Write the names to /app/names.txt with the header `name,age` first.",
    "Write the rows to /app/rows.csv. No header row.",
    # a line's form quoted for the input, a file's name, one word, a path
    "Each line of /app/data.txt is in the form `LEVEL count`. Write the total to /app/t.txt.",
    "Save the report in the format `report.txt` under /app/out.txt.",
    "Write the result to /app/out.txt in the format `json`.",
    "Write the program's folder to /app/where.txt in the form `/usr/local/bin`.",
    # a form of some lines, beside a header or a total line
    "Write /app/sum.txt: a header line, then one line per level in the form `LEVEL count`.",
    "Write /app/sum.txt, one line per level in the form `LEVEL count`, and end with a line "
    "`TOTAL n`.",
    # two forms for one file
    "Write /app/out.txt. Hosts go in the form `host port`. Users in the form `name:uid`.",
]


@pytest.mark.parametrize("instruction", NEGATIVES)
def test_no_form_check_where_none_is_stated(instruction: str, tmp_path: Path) -> None:
    assert [c.name for c in form_checks(instruction, tmp_path)] == []


@pytest.mark.parametrize(
    ("instruction", "empty_ok"),
    [
        ("Save the invoices to /app/inv.json as a JSON array with exactly these fields per "
         'invoice:\n```json\n[{"file": "a.txt", "amount": "1.00"}]\n```', False),
        ('Write the hosts to /app/h.json in this format:\n```json\n[{"host": "h1", "n": 2}]\n```',
         False),
        ('Write the hosts to /app/h.json in this format:\n```json\n[{"host": "h1", "n": 2}]\n```'
         "\nWrite an empty array if none are found.", True),
        ('List the leaks in /app/l.json like this (use `[]` if there are none):\n```json\n'
         '[{"pid": 1}]\n```', True),
    ],
)  # fmt: skip
def test_an_empty_array_is_no_answer_unless_the_instruction_allows_one(
    instruction: str, empty_ok: bool, tmp_path: Path
) -> None:
    [check] = [c for c in form_checks(instruction, tmp_path) if isinstance(c, FileMatchesJson)]
    assert outcome(check, tmp_path, "[]")[0] is empty_ok
    if not empty_ok:
        assert outcome(check, tmp_path, "[]")[1] == "an empty array, where the example's has items"


LINE_FORMS = [
    # (instruction, a right file, a wrong file)
    (
        "Write /app/summary.txt with the number of entries per level, one line per level in the "
        "form `LEVEL count` (one space between).",
        "ERROR 3\nINFO 12\n",
        "2026-03-02T09:48:41Z ERROR payment 812 failed\n",
    ),
    (
        "Save each hit to /app/hits.txt, one per line, formatted as `NAME: <count>`.",
        "alpha: 3\nbeta: 10\n",
        "alpha has 3\n",
    ),
    (
        "Create /app/hugepages.conf with one line in the format `vm.nr_hugepages=<number>`.",
        "vm.nr_hugepages=1127\n",
        "vm.nr_hugepages=lots\n",
    ),
    (
        "Write the pairs to /app/pairs.txt. Format: `<string>|<encoding>`",
        "abc|ASCII\n",
        "abc ASCII\n",
    ),
    (
        "Write /app/creds.txt with one credential per line in the format `username:password`. "
        "No headers, no blank lines.",
        "ann:s3cret!\nbob:x\n",
        "ann s3cret\n",
    ),
]


@pytest.mark.parametrize(("instruction", "right", "wrong"), LINE_FORMS)
def test_a_line_form_quoted_in_a_sentence_checks_every_line(
    instruction: str, right: str, wrong: str, tmp_path: Path
) -> None:
    checks = form_checks(instruction, tmp_path)
    [check] = [c for c in checks if isinstance(c, (FileLinesLike, FileLinesDelimited))]
    assert outcome(check, tmp_path, right) == (True, "")
    passed, detail = outcome(check, tmp_path, wrong)
    assert not passed and detail.startswith("the line ")


@pytest.mark.parametrize(
    ("name", "text", "passes"),
    [
        ("play.yml", "- name: setup\n  hosts: all\n", True),
        ("k8s.yaml", "kind: A\n---\nkind: B\n", True),  # several documents
        ("play.yml", "Your corrected playbook content here", False),  # a line of words
        ("conf.yaml", "", False),
        ("out.json", '{"a": 1}', True),
        ("out.json", "[1, 2]", True),
        ("out.json", "7", True),
        ("out.json", "null", False),
        ("out.json", '"The content of the file."', False),
    ],
)
def test_a_parsing_check_wants_data_not_a_plain_value(
    name: str, text: str, passes: bool, tmp_path: Path
) -> None:
    fmt = "yaml" if name.endswith(("yml", "yaml")) else "json"
    assert outcome(FileParses(f"/app/{name}", fmt), tmp_path, text)[0] is passes


def test_a_form_shown_twice_is_the_first_files(tmp_path: Path) -> None:
    """The template, then "Example output format:" after a field described by another new
    file (the binary whose size it holds): both blocks are the report's form."""
    instruction = (
        "Strip /app/tool and save the result to /app/tool.small. Then document it by saving a"
        " report to /app/report.txt with exactly this format:\n\n```\nbefore=XX\nafter=YY\n```\n\n"
        "Where:\n- `after`: the size of /app/tool.small in bytes\n\n"
        "Example output format:\n```\nbefore=100\nafter=40\n```\n"
    )
    names = [c.name for c in form_checks(instruction, tmp_path, {"tool": "binary\n"})]
    assert names == ["/app/report.txt has a line for each of before= after="]
