"""Acceptance checks: what the rules read out of an instruction, which checks are kept, that
they see only what the agent sees and cannot be changed by it, and how they end a trial."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from hillclimber.agents.base import AgentOutcome
from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.harness.checks import AcceptanceChecks, build_checks
from hillclimber.harness.checks.base import CheckContext
from hillclimber.harness.checks.copies import FileNotACopy
from hillclimber.harness.checks.kinds import CommandSucceeds, FileExists, FileHasText
from hillclimber.harness.checks.propose import ModelProposer
from hillclimber.harness.checks.stand_ins import COUNTING
from hillclimber.harness.presets import preset
from hillclimber.models import ModelProfile, ScriptedModel
from hillclimber.sandbox import Sandbox, SandboxKind, create_sandbox, trial_layout
from hillclimber.task import Task, TaskFormat, Verification, VerificationKind
from hillclimber.verify.verifier import Evaluation, verify

from conftest import host_sandbox, isolated_sandbox, require_sandbox


def names(instruction: str, files: dict[str, str], tmp_path: Path) -> list[str]:
    sandbox, root = host_sandbox(tmp_path)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return [check.name for check in build_checks(instruction, sandbox).checks]


def the_check(kind: str, instruction: str, sandbox: Sandbox) -> tuple[Any, AcceptanceChecks]:
    """The one check of `kind` built for `instruction`, and the checks it is among."""
    built = build_checks(instruction, sandbox)
    [check] = [c for c in built.checks if type(c).__name__ == kind]
    return check, built


def test_a_file_to_create_and_the_line_it_must_hold(tmp_path: Path) -> None:
    found = names(
        "Create a file /app/hello.txt whose only line is exactly:\n\nHi there!", {}, tmp_path
    )
    assert found == [
        "/app/hello.txt exists and is not empty",
        "/app/hello.txt has only the line 'Hi there!'",
    ]


def test_a_file_to_make_and_a_file_to_leave_alone(tmp_path: Path) -> None:
    instruction = "Copy the file /app/a.txt to /app/b.txt exactly. Do not change /app/a.txt."
    found = names(instruction, {"a.txt": "one\ttwo \n"}, tmp_path)
    assert found == ["/app/a.txt is left as it was", "/app/b.txt exists and is not empty"]


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        ("Your solution goes here.\n", False),  # the 1.5B's answer, confirmed by a form check
        ("TODO\n\n...\n", False),
        ("/usr/bin/gcc\nTODO\n", True),  # one line of an answer is an answer
        ("$(ls /data | wc -l)\n", False),
        ("0\n", True),
        ("\n \n", False),
        # what a tool said, written as the answer (the 1.5B did, four times over)
        ("no such file: /workspace/evidence/credentials.txt\n", False),
        ("Wrote 123 bytes to /tmp/solution.txt", False),
        ("[exit code 2]\npython3: can't open file\n", False),
        ("exit code 2 means the file is missing\n", True),
        ("Edited /etc/app.conf: the timeout is 30s now\n", True),  # a report of a change
        ("Wrote 12 bytes to out.txt (as JSON: it was written in Python's notation)", False),
    ],
)
def test_a_file_of_stand_ins_only_is_empty(text: str, passes: bool, tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "out.txt").write_text(text)
    outcome = FileExists("/app/out.txt").run(CheckContext(sandbox, {}))
    assert outcome.passed is passes, outcome.detail


def test_a_stand_in_the_instruction_asks_for_is_an_answer(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    check, built = the_check("FileExists", "Create /app/todo.txt containing TODO.", sandbox)
    (root / "todo.txt").write_text("TODO\n")
    assert check.run(built.context).passed
    other, built = the_check("FileExists", "Write the fix to /app/fix.txt.", sandbox)
    (root / "fix.txt").write_text("TODO\n")
    assert not other.run(built.context).passed


def test_a_markup_file_of_one_tag_is_no_stand_in(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "empty.xml").write_text("<config/>\n")
    (root / "empty.txt").write_text("<config>\n")
    assert FileExists("/app/empty.xml").run(CheckContext(sandbox, {})).passed
    assert not FileExists("/app/empty.txt").run(CheckContext(sandbox, {})).passed


NOT_A_COPY = [
    "/app/lines.txt holds one candidate per line. Write a regex matching the dates among them "
    "to /app/regex.txt.",
    "Count the words of /app/doc.txt and save the count to /app/count.txt.",
    "Using `/app/lines.txt` as the sample, produce `/app/regex.txt` (one regex, one line).",
]


@pytest.mark.parametrize("instruction", NOT_A_COPY)
def test_a_new_file_that_is_an_input_copied_fails(instruction: str, tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "lines.txt").write_text("2024-01-02\nnope\n")
    (root / "doc.txt").write_text("two  words\n")
    check, built = the_check("FileNotACopy", instruction, sandbox)
    assert not check.goal and check.strength == "weak"
    answer = root / Path(check.path).name
    inputs = [n for n in ("lines.txt", "doc.txt") if f"/app/{n}" in instruction]
    answer.write_text("\n" + (root / inputs[0]).read_text().replace("\n", "  \n"))
    outcome = check.run(built.context)
    assert (outcome.passed, outcome.detail) == (False, f"it holds what /app/{inputs[0]} holds")
    answer.write_text("^\\d{4}-\\d{2}-\\d{2}$\n")
    assert check.run(built.context).passed


EXAMPLE_COPIES = [
    (
        "Process every file in /app/in/ and save `/app/out.json`.\n\nExample output format:\n"
        '```json\n{"web": {"ip": "172.17.0.2"}, "db": {"ip": "172.17.0.3"}}\n```',
        '{\n  "db": {"ip": "172.17.0.3"},\n  "web": {"ip": "172.17.0.2"}\n}\n',
    ),
    (
        "Write your findings to /app/report.txt using this template:\n```\n"
        "vulnerable: yes/no\nrisk_level: none/low/high\n```",
        "vulnerable: yes/no\n  risk_level: none/low/high\n",
    ),
    (
        "Save the strings to /app/out.txt, one per line.\n\nExample output:\n```\n"
        "config_path|ASCII\nApplication Title|UTF-16LE\n```",
        "config_path|ASCII\n\nApplication Title|UTF-16LE\n",
    ),
    (  # "with exactly these fields per …": the structure, its values made up
        "Save the data to `/app/inv.json` as a JSON array with exactly these fields per "
        'invoice:\n\n```json\n[{"file": "a_inv.txt", "total": 12.5}]\n```',
        '[{"file": "a_inv.txt", "total": 12.5}]',
    ),
    (  # "these keys", "these columns": a structure too
        "Write the best settings to /app/best.json, an object with exactly these keys:\n```json\n"
        '{"alpha": 0.73, "beta": 8.2}\n```',
        '{"beta": 8.2, "alpha": 0.73}\n',
    ),
    (
        "Save the table as /app/top.csv with exactly these columns:\n```\nhost,count\n"
        "web-1,12\n```",
        "host,count\nweb-1,12\n",
    ),
    (  # restoring a backup is the task; its report's example is still no answer
        "Restore the archive to /app/db/, then write /app/status.txt.\n\nExample Output "
        "Format:\n```\nSIZE=524288000\nPRESERVED=yes\n```",
        "SIZE=524288000\nPRESERVED=yes\n",
    ),
]


@pytest.mark.parametrize(("instruction", "copied"), EXAMPLE_COPIES)
def test_a_new_file_that_is_the_instructions_example_copied_fails(
    instruction: str, copied: str, tmp_path: Path
) -> None:
    sandbox, root = host_sandbox(tmp_path)
    check, built = the_check("FileNotACopy", instruction, sandbox)
    (root / Path(check.path).name).write_text(copied)
    outcome = check.run(built.context)
    assert (outcome.passed, outcome.detail) == (
        False,
        "it holds the instruction's example as it is: work out the real values",
    )
    other = copied.replace("2", "9").replace("/", "").translate(_SHIFTED) + "x\n"
    (root / Path(check.path).name).write_text(other)  # other values, none of the example's
    assert check.run(built.context).passed


SUPPOSED_INPUTS = [
    "**Example:**\nIf `/app/ops.txt` contains:\n```\n3\n1 2 3\nQUERY 0 1\n```\n\n"
    "Then `/app/sums.txt` should contain:\n```\n3\n15\n```",
    "Suppose `/app/ops.txt` holds:\n```\n1 2 3\nQUERY 0 1\n```\n\n"
    "The output file `/app/sums.txt` must contain:\n```\n3\n15\n```",
    "When /app/ops.txt is:\n```\n1 2 3\n```\n\n/app/sums.txt will contain:\n```\n3\n15\n```",
]


@pytest.mark.parametrize("shown", SUPPOSED_INPUTS)
def test_the_output_shown_for_a_supposed_input_is_no_answer(shown: str, tmp_path: Path) -> None:
    """An instruction's "If ops.txt contains: … Then sums.txt should contain: …" shows another
    input's output (the 1.5B wrote it as its answer); a copy of it fails, as an example's does."""
    sandbox, root = host_sandbox(tmp_path)
    (root / "ops.txt").write_text("4\n5 5 5 5\nQUERY 0 3\n")
    instruction = f"Read /app/ops.txt and write one sum per query to /app/sums.txt.\n\n{shown}"
    check, built = the_check("FileNotACopy", instruction, sandbox)
    assert check.path == "/app/sums.txt"
    (root / "sums.txt").write_text("3\n15\n")
    assert not check.run(built.context).passed
    (root / "sums.txt").write_text("20\n")
    assert check.run(built.context).passed


def test_outcomes_supposed_may_each_be_the_answer(tmp_path: Path) -> None:
    """ "If all rules pass: PASS … If rule 2 fails: FAIL 2": one of them is the answer, so a
    copy of one is no copy of an example."""
    sandbox, root = host_sandbox(tmp_path)
    (root / "rules.txt").write_text("rule 1\nrule 2\n")
    instruction = (
        "Check /app/rules.txt and write the verdict to /app/verdict.txt.\n\n"
        "If all rules pass:\n```\nPASS\n```\n\nIf rule 2 fails:\n```\nFAIL\n2\n```"
    )
    built = build_checks(instruction, sandbox)
    (root / "verdict.txt").write_text("FAIL\n2\n")
    copies = [c for c in built.checks if isinstance(c, FileNotACopy)]
    assert all(c.run(built.context).passed for c in copies)


_SHIFTED = str.maketrans("abcdefghijklmnopqrstuvwxyz", "bcdefghijklmnopqrstuvwxyza")


@pytest.mark.parametrize(
    ("instruction", "answer", "taken"),
    [
        (  # the example written, one number changed
            'Save your findings to /app/q.json with this structure:\n```json\n{"total": 150, '
            '"top_customer": "Alice Smith"}\n```',
            '{"total": 151, "top_customer": "Alice Smith"}',
            "Alice Smith",
        ),
        (  # a made-up code kept in `KEY: value` lines
            "Write the report to /app/r.txt in this format:\n```\nfailed_job: nightly-backup-07\n"
            "exit_code: 3\n```",
            "failed_job: nightly-backup-07\nexit_code: 1\n",
            "nightly-backup-07",
        ),
        (  # an address
            "Write the owner to /app/owner.json. Example:\n```json\n"
            '{"email": "jane.doe@corp.test", "count": 2}\n```',
            '{"email": "jane.doe@corp.test", "count": 5}',
            "jane.doe@corp.test",
        ),
        (  # a number made by counting, though the prose gave the real one
            "Save to /app/bw.json the bytes of 50 MB/s (52428800). Example format:\n```json\n"
            '{"config_file": "some-site.xml", "bandwidth_bytes": 12345678}\n```',
            '{"config_file": "hdfs-site.xml", "bandwidth_bytes": 12345678}',
            "12345678",
        ),
        (  # a hash made by counting
            "Write the lost commit to /app/c.json. Example:\n```json\n"
            '{"commit": "a1b2c3d4e5", "files": 2}\n```',
            '{"commit": "a1b2c3d4e5", "files": 3}',
            "a1b2c3d4e5",
        ),
    ],
)
def test_an_answer_holding_the_examples_made_up_value_fails(
    instruction: str, answer: str, taken: str, tmp_path: Path
) -> None:
    sandbox, root = host_sandbox(tmp_path)
    check, built = the_check("FileNotACopy", instruction, sandbox)
    (root / Path(check.path).name).write_text(answer)
    outcome = check.run(built.context)
    assert not outcome.passed and repr(taken) in outcome.detail
    if COUNTING.search(taken):
        return  # `123456787` is made by counting too (below)
    (root / Path(check.path).name).write_text(answer.replace(taken, taken + "7"))
    assert check.run(built.context).passed  # `req_17` is not the example's `req_1`


@pytest.mark.parametrize(
    ("files", "answer", "passes"),
    [
        # a value made by counting that nothing of the task holds: made up
        ({}, '{"commit_hash": "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0"}', False),
        ({}, '{"commit_hash": "9f1c", "limit_bytes": 123456789}', False),
        # the task's files hold it (a session id in the data): it may be real
        ({"log.txt": "session abc123 started\n"}, '{"commit_hash": "abc123"}', True),
        # digits that only run on by chance are no count
        ({}, '{"commit_hash": "9f1c", "ratio": 0.0123456}', True),
    ],
)  # fmt: skip
def test_an_answer_holding_a_value_made_by_counting_fails(
    files: dict[str, str], answer: str, passes: bool, tmp_path: Path
) -> None:
    """The 1.5B, unable to find a commit, wrote `"commit_hash": "a1b2c3d4…"` where the
    example showed no value at all."""
    sandbox, root = host_sandbox(tmp_path)
    for name, text in files.items():
        (root / name).write_text(text)
    instruction = (
        "Read /app/log.txt. Save the commit to /app/report.json in this format:\n```json\n"
        '{"commit_hash": "full 40-character commit hash"}\n```'
    )
    if not files:
        instruction = instruction.replace("Read /app/log.txt. ", "")
    check, built = the_check("FileNotACopy", instruction, sandbox)
    (root / "report.json").write_text(answer)
    outcome = check.run(built.context)
    assert outcome.passed is passes
    assert passes or "a value made by counting that no input holds" in outcome.detail


def test_a_value_made_by_counting_is_not_judged_while_an_input_is_missing(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    instruction = 'Read /app/spec.json. Write /app/plan.json like this:\n```json\n{"id": ""}\n```'
    check, built = the_check("FileNotACopy", instruction, sandbox)
    (root / "plan.json").write_text('{"id": "abc123"}')
    assert check.held_counts is None and check.run(built.context).passed


def test_inputs_named_by_bare_name_in_a_named_folder_are_read_there(tmp_path: Path) -> None:
    """`df.txt` listed under `/app/disk/` is /app/disk/df.txt: there, it is an input whose
    copy fails, and every input is there to tell a made-up value from a real one."""
    sandbox, root = host_sandbox(tmp_path)
    (root / "disk").mkdir()
    (root / "disk" / "df.txt").write_text("/dev/sda1 20971520 9437184\n/dev/sdb1 100 50\n")
    instruction = (
        "Data files are in `/app/disk/`:\n- `df.txt` - the df report\n\nWrite your findings"
        ' to /app/out.json. Example:\n```json\n{"owner": "Alice Smith", "used_mb": 9216}\n```'
    )
    check, built = the_check("FileNotACopy", instruction, sandbox)
    assert check.borrowed == ("Alice Smith",)
    (root / "out.json").write_text((root / "disk" / "df.txt").read_text())
    assert not check.run(built.context).passed


@pytest.mark.parametrize(
    ("instruction", "files"),
    [
        # the example's value is in the data: it may be the answer
        ('Save the top customer to /app/q.json like this:\n```json\n{"top": "Alice Smith"}\n```',
         {"orders.csv": "id,name\n1,Alice Smith\n"}),
        # an input the instruction names is not there: what it holds is not known
        ('Read /app/spec.json. Write /app/plan.json like this:\n```json\n{"id": "req_0"}\n```',
         {}),
        # a file of the task is named so
        ('Write the totals to /app/t.json like this:\n```json\n[{"file": "a_inv.txt"}]\n```',
         {"a_inv.txt": "total 3\n"}),
        # a value the prose names is real
        ("Write /app/r.txt in this format:\n```\nhost: db-primary\n```\nThe host is `db-primary`.",
         {}),
        # plain words, numbers, paths and one-word names may be the real answer
        ('Write /app/s.json like this:\n```json\n{"status": "active", "count": 150, '
         '"config": "/etc/pip.conf", "process": "python3"}\n```', {}),
        # a number made by counting that the data holds (a password found in a dump)
        ('Read /app/dump.txt. Write /app/p.json like this:\n```json\n{"password": 123456}\n```',
         {"dump.txt": "user=bob password=123456\n"}),
    ],
)  # fmt: skip
def test_an_examples_value_that_may_be_real_is_allowed(
    instruction: str, files: dict[str, str], tmp_path: Path
) -> None:
    sandbox, root = host_sandbox(tmp_path)
    for name, text in files.items():
        (root / name).write_text(text)
    check, _ = the_check("FileNotACopy", instruction, sandbox)
    assert check.borrowed == ()


@pytest.mark.parametrize(
    ("instruction", "files", "answer"),
    [
        (  # the directive the configuration really has, and its value
            "The main configuration is `/app/nginx.conf`. Save your analysis to "
            '`/app/fix.json`.\n\nExample:\n```json\n{"directive": "proxy_read_timeout", '
            '"current_value": "60s", "recommended_value": "150s"}\n```',
            {"nginx.conf": "location / {\n  proxy_read_timeout 60s;\n}\n"},
            '{"directive": "proxy_read_timeout", "current_value": "60s", "recommended_value": '
            '"150s"}',
        ),
        (  # `KEY: value` lines naming what the log holds
            "Find the service that failed in /app/services.log and write it to /app/report.txt "
            "in this format:\n```\nservice: pg-main\nunit: pg-main.service\nstate: failed\n```",
            {"services.log": "web-1 running\npg-main failed (pg-main.service)\n"},
            "service: pg-main\nunit: pg-main.service\nstate: failed\n",
        ),
        (  # a list of the real accounts
            "List the accounts of /app/users.txt that have a shell in /app/shells.json, for "
            'example:\n```json\n{"accounts": ["svc_backup", "deploy-bot"]}\n```',
            {"users.txt": "svc_backup:/bin/bash\ndeploy-bot:/bin/sh\nnobody:/sbin/nologin\n"},
            '{"accounts": ["svc_backup", "deploy-bot"]}',
        ),
    ],
)
def test_an_example_of_the_tasks_own_values_may_be_the_answer(
    instruction: str, files: dict[str, str], answer: str, tmp_path: Path
) -> None:
    sandbox, root = host_sandbox(tmp_path)
    for name, text in files.items():
        (root / name).write_text(text)
    built = build_checks(instruction, sandbox)
    [copy] = [c for c in built.checks if isinstance(c, FileNotACopy)]  # the inputs still are
    (root / Path(copy.path).name).write_text(answer)
    assert copy.run(built.context).passed
    for name in files:  # the same example, its values not the task's: a copy of it fails
        (root / name).write_text("nothing of it here\n")
    (root / Path(copy.path).name).unlink()
    check, built = the_check("FileNotACopy", instruction, sandbox)
    (root / Path(check.path).name).write_text(answer)
    assert not check.run(built.context).passed


@pytest.mark.parametrize(
    ("example", "files"),
    [
        # one value of three is the task's: the others are made up
        ('{"directive": "proxy_read_timeout", "current": "30s", "new": "90s"}',
         {"nginx.conf": "proxy_read_timeout 60s;\n"}),
        # two of four: not two in three
        ('{"a": "alpha", "b": "beta", "c": "gamma", "d": "delta"}',
         {"nginx.conf": "alpha beta\n"}),
        # only numbers held: they are in any file by chance
        ('{"port": 8080, "workers": 4}', {"nginx.conf": "listen 8080;\nworkers 4;\n"}),
        # plain words held: the kinds a value may take
        ('{"web_1": {"mode": "bridge"}, "db_1": {"mode": "host"}}',
         {"nginx.conf": "mode bridge\nmode host\n"}),
        # a made-up code among values of the task's
        ('{"directive": "proxy_read_timeout", "value": "60s", "ticket": "OPS-2024-117"}',
         {"nginx.conf": "proxy_read_timeout 60s;\n"}),
    ],
)  # fmt: skip
def test_an_example_of_values_not_the_tasks_is_still_no_answer(
    example: str, files: dict[str, str], tmp_path: Path
) -> None:
    sandbox, root = host_sandbox(tmp_path)
    for name, text in files.items():
        (root / name).write_text(text)
    instruction = (
        "Read /app/nginx.conf. Save the result to /app/fix.json.\n\nExample:\n"
        f"```json\n{example}\n```"
    )
    check, built = the_check("FileNotACopy", instruction, sandbox)
    (root / "fix.json").write_text(example)
    assert not check.run(built.context).passed


@pytest.mark.parametrize(
    "instruction",
    [
        "Restore /app/conf.ini from the backup at /app/old.ini into /app/new.ini.",
        "Make /app/new.ini identical to /app/old.ini.",
        "Write the sum of the numbers to /app/sum.txt.",  # no input named
        # the block is what to write, not an example of it
        "Create /app/hello.txt that should contain exactly:\n```\nHello, world!\n```",
        "Run the queries. Then `/app/results.txt` should contain:\n```\n15\n18\n30\n```",
    ],
)
def test_no_copy_check_where_a_copy_may_be_the_answer(instruction: str, tmp_path: Path) -> None:
    found = names(instruction, {"old.ini": "a=1\n", "conf.ini": "a=2\n"}, tmp_path)
    assert not [name for name in found if "copy of an input" in name]


def test_a_change_from_one_value_to_another(tmp_path: Path) -> None:
    files = {"app.ini": "[server]\nport = 8080\n", "notes.md": "nothing here\n"}
    instruction = "The server in /app/app.ini listens on 8080. Change the port from 8080 to 9090."
    found = names(instruction, files, tmp_path)
    assert found == ["/app/app.ini is changed", "/app/app.ini contains '9090'"]


def test_a_change_where_nothing_else_may_change(tmp_path: Path) -> None:
    files = {"app.ini": "[server]\nport = 8080\n[admin]\nport = 18080\n"}
    instruction = (
        "Move the port in /app/app.ini from 8080 to 9090. Nothing else may change: every other "
        "line stays byte for byte the same."
    )
    sandbox, root = host_sandbox(tmp_path)
    (root / "app.ini").write_text(files["app.ini"])
    built = build_checks(instruction, sandbox)
    assert [c.name for c in built.checks] == [
        "/app/app.ini is changed",
        "/app/app.ini contains '9090'",
        "/app/app.ini no longer holds '8080'",  # a word of its own: 18080 is not it
        "/app/app.ini differs from its start only where '8080' became '9090'",
    ]
    attempts = {
        "[server]\nport = 9090\n[admin]\nport = 18080\n": (True, ""),
        "[server]\nport = 9090\n[admin]\nport = 19090\n": (False, "another change"),
        "[server]\nport = 9090\n[admin]\nport = 18080\nport=9090\n": (False, "5 lines, not 4"),
        "[server]\nport = 8080\n[admin]\nport = 18080\n# 9090\n": (
            False,
            "still in 'port = 8080'; with '9090' for it: 'port = 9090'",  # the line as it should be
        ),
    }
    for text, (passes, why) in attempts.items():
        (root / "app.ini").write_text(text)
        evaluation = built.evaluate()
        assert evaluation.passed is passes and why in evaluation.digest, text


def test_formats_and_commands(tmp_path: Path) -> None:
    instruction = (
        "Write the rows of /app/data.csv to /app/out.json as a JSON array. "
        "Write only the number of rows to /app/count.txt. "
        "Write a script /app/hi.sh that prints exactly this line:\n\nhi\n\n"
        "Then run `python3 /app/check.py` to make sure, and do not change /app/data.csv."
    )
    files = {"data.csv": "a,b\n1,2\n", "check.py": "import sys\nsys.exit(1)\n"}
    found = names(instruction, files, tmp_path)
    assert "/app/out.json is valid JSON" in found
    assert "`python3 /app/check.py` succeeds" in found
    assert "/app/data.csv is left as it was" in found


@pytest.mark.parametrize(
    "instruction",
    [
        'You can test any password by running:\n```bash\necho "test_password" | /app/check\n```',
        "Write /app/out.txt. For example, run `python3 /app/tool.py --demo` to see the format.",
        "Write /app/out.txt. One may try it by running `bash /app/probe.sh sample`.",
    ],
)
def test_a_command_offered_as_a_way_to_try_is_no_requirement(
    instruction: str, tmp_path: Path
) -> None:
    files = {"check": "#!/bin/sh\nexit 1\n", "tool.py": "", "probe.sh": "exit 1\n"}
    assert not [n for n in names(instruction, files, tmp_path) if "succeeds" in n]


@pytest.mark.parametrize(
    "instruction",
    [
        "Write the count to /app/count.txt. The sorted file (`/app/sorted.bed`) must be created"
        " with the rows in order.",
        "Write the count to /app/count.txt.\n\nSuccess criteria:\n- File exists at /app/sorted.bed",
        "Write the count to /app/count.txt. The sorted rows are saved to `/app/sorted.bed`.",
        "Write the count to /app/count.txt, then document it by saving them to /app/sorted.bed.",
    ],
)
def test_a_file_said_to_be_made_in_the_passive_must_exist(instruction: str, tmp_path: Path) -> None:
    found = names(instruction, {"rows.bed": "chr2\t1\t2\nchr1\t1\t2\n"}, tmp_path)
    assert "/app/sorted.bed exists and is not empty" in found


def test_a_file_the_setting_says_exists_is_no_file_to_make(tmp_path: Path) -> None:
    """Missing from the task's files or not, "A … file exists at" describes the setting."""
    instruction = (
        "A workload file exists at `/app/spec.json` containing the requests.\n"
        "**Setup:** An index exists at /app/index.txt.\nWrite the plan to /app/plan.json."
    )
    found = names(instruction, {}, tmp_path)
    assert "/app/plan.json exists and is not empty" in found
    assert not [n for n in found if n.startswith(("/app/spec.json", "/app/index.txt"))]


def test_a_file_said_to_exist_that_is_there_is_an_input(tmp_path: Path) -> None:
    instruction = (
        "A lock file exists at /app/backup.lock. Write the lock's owner to /app/owner.txt."
    )
    found = names(instruction, {"backup.lock": "pid 42\n"}, tmp_path)
    assert "/app/owner.txt exists and is not empty" in found
    assert not [n for n in found if n.startswith("/app/backup.lock")]


@pytest.mark.parametrize(
    "instruction",
    [
        "The project at `/app/project` fails to build. Fix it so it builds; write /app/fix.txt.",
        "Fix the build of `/app/project` and run the tests; save a note to /app/fix.txt.",
    ],
)
def test_a_folder_named_where_a_build_is_said_is_no_command(
    instruction: str, tmp_path: Path
) -> None:
    files = {"project/main.c": "int main(void) { return 0; }\n"}
    assert not [n for n in names(instruction, files, tmp_path) if "succeeds" in n]


def test_a_goal_check_that_already_passes_is_dropped(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "hello.txt").write_text("Hello\n")
    built = build_checks("Create /app/hello.txt and /app/new.txt. Run `ls /app` to check.", sandbox)
    kept = [check.name for check in built.checks]
    assert kept == [
        "/app/new.txt exists and is not empty",
        # of /app/hello.txt, there already
        "/app/new.txt is not a copy of an input or of the instruction's example",
    ]
    assert ("`ls /app` succeeds", "passes before any work: it tells nothing") in built.dropped
    assert built.usable


def test_with_no_goal_check_the_checks_are_not_usable(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "a.txt").write_text("x\n")
    built = build_checks("Tell me about /app/a.txt, and do not change /app/a.txt.", sandbox)
    assert [check.goal for check in built.checks] == [False]
    assert not built.usable


def test_evaluating_gives_counts_and_failures(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    built = build_checks("Create /app/out.txt, then run `cat /app/out.txt` to see it.", sandbox)
    first = built.evaluate()
    assert (first.passed, first.passing, first.total) == (False, 0, 2)
    assert first.summary() == "acceptance checks 0/2" and "no such file" in first.digest
    (root / "out.txt").write_text("x\n")
    assert built.evaluate().passed


def test_checks_leave_the_workspace_as_they_found_it(tmp_path: Path) -> None:
    """A check only looks: what its command writes is put back (a build run as a check)."""
    sandbox, root = isolated_sandbox(tmp_path)
    (root / "mk.sh").write_text("touch /app/made.txt\ntest -e /app/ready.txt\n")
    built = build_checks("Run `sh /app/mk.sh` to write /app/made.txt.", sandbox)
    assert [c.name for c in built.checks] == [
        "/app/made.txt exists and is not empty",
        "`sh /app/mk.sh` succeeds",
        "/app/made.txt is not a copy of an input or of the instruction's example",
    ]
    assert not built.evaluate().passed and not (root / "made.txt").exists()
    (root / "ready.txt").write_text("yes\n")
    assert built.evaluate().passing == 2 and not (root / "made.txt").exists()


def test_a_check_cannot_see_the_tests(tmp_path: Path) -> None:
    """The task's tests are laid at /tests only after the agent stops: a check made during
    the run (as the agent's commands) finds nothing there."""
    kind = SandboxKind.BWRAP
    require_sandbox(kind)
    sandbox = create_sandbox(kind, trial_layout(tmp_path))
    ctx = CheckContext(sandbox, start={})
    looked = CommandSucceeds("test -e /tests || test -e /solution").run(ctx)
    assert not looked.passed
    proposer = ModelProposer(ScriptedModel([]))
    assert proposer.read('{"checks": [{"command": "cat /tests/test_outputs.py"}]}', "/app") == []
    assert proposer.refused[-1][1] == "reads what the agent cannot see"


def test_proposed_checks_that_write_or_are_dangerous_are_refused() -> None:
    proposer = ModelProposer(ScriptedModel([]))
    answer = json.dumps(
        {
            "checks": [
                {"command": "echo hi > /app/hello.txt", "prints": "hi"},
                {"command": "rm -rf /", "prints": ""},
                {"command": "grep -q hi /app/hello.txt", "prints": ""},
            ]
        }
    )
    kept = proposer.read(answer, "/app")
    assert [check.name for check in kept] == ["`grep -q hi /app/hello.txt` succeeds"]
    assert proposer.refused[0][1].startswith("it would change /app/hello.txt")


HELLO = "Hello, world!\n"


def hello_task() -> Task:
    return Task(
        id="hello",
        instruction="Create a file /app/hello.txt whose only line is exactly:\n\nHello, world!",
        format=TaskFormat.INLINE,
    )


def test_the_agent_cannot_change_a_check(tmp_path: Path) -> None:
    """The checks are made before the first action and live in the harness, outside the
    workspace: whatever the model writes, they stay the same frozen checks."""
    sandbox, _ = host_sandbox(tmp_path / "trial")
    built = build_checks(hello_task().instruction, sandbox)
    before = [check.name for check in built.checks]
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.checks[0].path = "/app/other.txt"  # type: ignore[misc]
    answers = [
        '{"name": "run_command", "arguments": {"command": "echo checks > /app/checks.json"}}',
        json.dumps(
            {
                "name": "write_file",
                "arguments": {"path": "/app/hello.txt", "content": "Hello, world!\n"},
            }
        ),
        '{"name": "task_complete", "arguments": {}}',
    ]
    config = preset("fm", planner=False, probe_commands=False, propose=False)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(hello_task(), sandbox, time.monotonic() + 60, log_dir)
    outcome = HarnessAgent(ScriptedModel(answers), config).run(ctx)
    assert [check["name"] for check in outcome.info["checks"]] == before
    assert outcome.info["loop_exit"] == "verified" and outcome.self_checked
    assert outcome.checks is not None and outcome.checks().passed


def test_without_usable_checks_self_feedback_checks_nothing(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path / "trial")
    task = Task(id="chat", instruction="Say hello.", format=TaskFormat.INLINE)
    config = preset("fm", planner=False, probe_commands=False, propose=False)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(task, sandbox, time.monotonic() + 60, log_dir)
    answers = ['{"name": "task_complete", "arguments": {}}']
    outcome = HarnessAgent(ScriptedModel(answers, ModelProfile("s", 4096)), config).run(ctx)
    assert outcome.info["loop_exit"] == "completed" and not outcome.self_checked
    assert outcome.checks is None


def test_a_proposed_check_is_asked_once_kept_and_climbed_on(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path / "trial")
    proposal = json.dumps({"checks": [{"command": "grep -q world /app/hello.txt", "prints": ""}]})
    write = json.dumps(
        {"name": "write_file", "arguments": {"path": "/app/hello.txt", "content": HELLO}}
    )
    config = preset("fm", planner=False, probe_commands=False, propose=True)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(hello_task(), sandbox, time.monotonic() + 60, log_dir)
    model = ScriptedModel([proposal, write, '{"name": "task_complete", "arguments": {}}'])
    outcome = HarnessAgent(model, config).run(ctx)
    assert model.requests[0].messages[0].content.startswith("You write acceptance checks")
    assert {
        "name": "`grep -q world /app/hello.txt` succeeds",
        "goal": True,
        "strength": "weak",
        "origin": "proposed",
        "rule": "proposed.CommandSucceeds",
    } in (outcome.info["checks"])
    assert outcome.info["checks_model_calls"] == 1 and outcome.info["loop_exit"] == "verified"
    trajectory = json.loads((log_dir / "trajectory.json").read_text())
    assert trajectory["steps"][0]["source"] == "user"  # the instruction
    assert trajectory["steps"][1]["extra"]["role"] == "checks"  # the proposal is a step too


COMMIT = (
    "/app/repo is a git repository. Add a file `notes.txt` to it (that is, "
    "/app/repo/notes.txt) holding `hi`, and commit it with the message `Add notes`."
)
WRITE_NOTES = json.dumps(
    {"name": "write_file", "arguments": {"path": "/app/repo/notes.txt", "content": "hi\n"}}
)


def git_repository(tmp_path: Path) -> Sandbox:
    """A sandbox whose /app/repo is a git repository with one commit."""
    sandbox, root = isolated_sandbox(tmp_path / "trial")
    (root / "repo").mkdir()
    setup = (
        "git init -q -b main && git config user.email a@b && git config user.name a && "
        "git commit -q --allow-empty -m first"
    )
    assert sandbox.run(setup, timeout=30, cwd="/app/repo").ok
    return sandbox


def run(command: str) -> str:
    return json.dumps({"name": "run_command", "arguments": {"command": command}})


COMMITTED = (
    'cd /app/repo && test -z "$(git status --porcelain)" && '
    "test \"$(git log -1 --format=%s)\" = 'Add notes'"
)


def commit_task(
    tmp_path: Path, sandbox: Sandbox, answers: list[str], **settings: object
) -> AgentOutcome:
    """The commit task in `sandbox`, by the climber with `answers`, climbing on the task's own
    test that the notes are committed (no rule of ours reads a commit from an instruction)."""
    config = preset("climber", probe_commands=False, candidates=2, feedback="tests", **settings)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    task = Task(
        id="commit",
        instruction=COMMIT,
        format=TaskFormat.MANIFEST,
        verification=Verification(kind=VerificationKind.CUSTOM, command=COMMITTED),
    )

    def tests() -> Evaluation:
        return verify(task, sandbox, tmp_path / "verify")

    ctx = AgentContext(task, sandbox, time.monotonic() + 60, log_dir, verify=tests)
    return HarnessAgent(ScriptedModel(answers, ModelProfile("s", 4096)), config).run(ctx)


def commits(sandbox: Sandbox) -> list[str]:
    """What `git status` shows (nothing, when clean), then the commit messages, newest first."""
    log = sandbox.run("git status --porcelain && git log --format=%s", timeout=30, cwd="/app/repo")
    return log.output.split()


def test_commands_meant_for_the_repository_the_task_names_are_run_there(tmp_path: Path) -> None:
    """The 0.5B runs `git add` in /app: each fails there, and the reading of it in the folder
    the task names succeeds; the add gains no check but is applied (it is what the model
    meant), so the commit that follows can gain one."""
    sandbox = git_repository(tmp_path)
    answers = [  # each turn: the model's call, then its answer when asked for another tool
        WRITE_NOTES,
        run("true"),
        run("git add notes.txt"),
        run("true"),
        run("git commit -m 'Add notes'"),  # its reading in /app/repo passes: nothing more asked
    ]
    outcome = commit_task(tmp_path, sandbox, answers, planner=False)
    assert outcome.info["loop_exit"] == "verified"
    assert outcome.info["readings"] >= 2
    assert commits(sandbox) == ["Add", "notes", "first"]


def test_the_commands_of_the_models_plan_are_tried_when_the_worker_never_runs_them(
    tmp_path: Path,
) -> None:
    """The planner writes `git add` and `git commit`; the worker writes the file and then only
    looks around. The plan's commands, run one after the other in the folder the task names,
    pass the last check at no model call."""
    sandbox = git_repository(tmp_path)
    plan = {"steps": ["git add notes.txt", "git commit -m 'Add notes'"]}
    answers = [
        json.dumps(plan),
        WRITE_NOTES,
        run("true"),  # asked for another tool
        run("git status"),  # the plan's commands, together, in /app/repo, solve it
    ]
    outcome = commit_task(tmp_path, sandbox, answers, planner=True, complexity=False)
    assert outcome.info["loop_exit"] == "verified" and outcome.info["planned"] >= 3
    assert commits(sandbox) == ["Add", "notes", "first"]


@pytest.mark.parametrize(
    ("held", "told"),
    [
        # the check's name clips its text, and the 0.5B wrote the clipped text into the file
        (
            "# Usage\n\nRun `main.py` to print…\n",
            "line 3 is 'Run `main.py` to print…' where it"
            " should be 'Run `main.py` to print the project name.'",
        ),
        ("\n# Usage\n\n", "it ends at line 2, where line 3 should be ''"),
        (
            "# Usage\n\nRun `main.py` to print the project name.\nmore\n",
            "it has more after line 3: 'more'",
        ),
        ("Usage\n", "line 1 is 'Usage' where it should be '# Usage'"),
    ],
)
def test_a_text_held_otherwise_says_the_first_line_that_differs_in_whole(
    held: str, told: str
) -> None:
    text = "# Usage\n\nRun `main.py` to print the project name."
    check = FileHasText("/app/docs/usage.md", text, only=True)
    assert "…" in check.name  # the name is clipped; what the model is told is not
    outcome = check.judge(held)
    assert not outcome.passed and outcome.detail == told
    assert check.judge(f"\n{text}\n\n").passed


def test_a_block_not_in_the_file_says_where_it_differs() -> None:
    check = FileHasText("/app/notes.md", "## Done\n- all tests pass")
    assert check.judge("intro\n## Done\n- all tests pass\nend\n").passed
    assert check.judge("intro\n## Done\n- most tests pass\n").detail == (
        "line 3 is '- most tests pass' where it should be '- all tests pass'"
    )
    assert check.judge("intro\n").detail == "no line is exactly '## Done'"
