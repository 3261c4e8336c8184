"""A computed answer (`harness/climbing/computed.py`): one shell command asked for apart from the
loop, its output sent to the answer file, tried as a climbing candidate — applied when the checks
gain, and what was wrong with it said in the next ask."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hillclimber.agents.base import AgentOutcome
from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.harness.climbing.computed import _command, into, writes
from hillclimber.harness.presets import preset
from hillclimber.harness.programs import (
    input_heads,
    program_in,
    run_program,
    said,
    with_imports,
)
from hillclimber.harness.prompting.templates import shipped
from hillclimber.models import ScriptedModel
from hillclimber.shell.answer import unredirected
from hillclimber.task import Task, TaskFormat

from conftest import host_sandbox

COUNT = "Write the number of lines in /app/data.txt to /app/count.txt, containing exactly `3`."
"""A value check to climb on (stated here: the rules that worked a count out from the input
knew one task, and are gone)."""
WRONG = json.dumps({"name": "write_file", "arguments": {"path": "/app/count.txt", "content": "9"}})


def run_agent(
    tmp_path: Path, answers: list[str], instruction: str = COUNT, **settings: object
) -> tuple[AgentOutcome, ScriptedModel, Path]:
    sandbox, workspace = host_sandbox(tmp_path / "trial")
    (workspace / "data.txt").write_text("a\nb\nc\n")
    task = Task(id="count", instruction=instruction, format=TaskFormat.INLINE)
    chosen = {"planner": False, "probe_commands": False, "propose": False,
              "computed": 2, "candidates": 2, "code": "command", **settings}  # fmt: skip
    config = preset("climber", **chosen)
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(task, sandbox, time.monotonic() + 60, log_dir)
    model = ScriptedModel(answers)
    return HarnessAgent(model, config).run(ctx), model, workspace


def test_a_computed_answer_that_gains_the_checks_is_applied(tmp_path: Path) -> None:
    outcome, model, workspace = run_agent(tmp_path, [WRONG, "```bash\nwc -l < /app/data.txt\n```"])
    model.assert_complete()
    assert outcome.info["loop_exit"] == "verified"
    assert (workspace / "count.txt").read_text().strip() == "3"
    asked = model.requests[1].messages[-1].content
    assert COUNT in asked and "prints exactly that (it is written to /app/count.txt" in asked
    assert outcome.info["computed"] == 1


def test_the_next_ask_says_what_was_wrong_with_the_last_command(tmp_path: Path) -> None:
    answers = [WRONG, "nosuchprogram /app/data.txt", WRONG, "grep -c . /app/data.txt"]
    outcome, model, workspace = run_agent(tmp_path, answers)
    model.assert_complete()
    again = model.requests[3].messages[-1].content
    assert "Your last command `nosuchprogram /app/data.txt` failed: " in again
    assert "nosuchprogram: command not found" in again  # what it said, not only its exit code
    assert (workspace / "count.txt").read_text().strip() == "3"
    assert outcome.info["loop_exit"] == "verified" and outcome.info["computed"] == 2


def wrote(text: str) -> str:
    return json.dumps(
        {"name": "write_file", "arguments": {"path": "/app/count.txt", "content": text}}
    )


def computing(model: ScriptedModel) -> int:
    return sum(r.messages[0].content == shipped()("compute.system") for r in model.requests)


def test_no_ask_once_the_asks_are_spent_nor_when_it_is_off(tmp_path: Path) -> None:
    read = json.dumps({"name": "run_command", "arguments": {"command": "cat /app/data.txt"}})
    answers = [wrote("9"), "echo 9", wrote("8"), "echo 8", wrote("7"), read]
    outcome, model, _ = run_agent(tmp_path / "spent", answers, max_turns=3)
    model.assert_complete()  # the third turn asked another tool, no command
    assert computing(model) == 2 and outcome.info["computed"] == 2
    again = model.requests[3].messages[-1].content
    assert "Your last command `echo 9` printed what fails the checks: /app/count.txt" in again
    outcome, model, _ = run_agent(tmp_path / "off", [wrote("9"), read], max_turns=1, computed=0)
    model.assert_complete()
    assert computing(model) == 0 and outcome.info["computed"] == 0


@pytest.mark.parametrize(
    ("command", "sent"),
    [
        ("wc -l < data.txt", "wc -l < data.txt > /app/c.txt"),
        ("sort a | uniq -c > /tmp/out.txt", "sort a | uniq -c > /app/c.txt"),
        ("cd /app && wc -l < data.txt", "{ cd /app && wc -l < data.txt; } > /app/c.txt"),
        ("grep x f 2>/dev/null", "grep x f 2>/dev/null > /app/c.txt"),
    ],
)
def test_the_output_goes_to_the_answer_file(command: str, sent: str) -> None:
    assert into(command, "/app/c.txt") == sent


def test_a_computed_command_is_known_again_without_its_redirect() -> None:
    applied = into("cd /app && wc -l < data.txt", "/app/c.txt")
    assert unredirected(applied) == "cd /app && wc -l < data.txt"


@pytest.mark.parametrize(
    ("answer", "command"),
    [
        ("```bash\nwc -l < data.txt\n```", "wc -l < data.txt"),
        (
            '{"name": "run_command", "arguments": {"command": "wc -l < data.txt"}}',
            "wc -l < data.txt",
        ),
        ('{"name": "write_file", "arguments": {"path": "/app/c.txt", "content": "3"}}', ""),
    ],
)
def test_the_command_of_an_answer_also_when_it_is_a_tool_call(answer: str, command: str) -> None:
    assert _command(answer) == command


def test_no_ask_where_there_is_no_input_to_work_from(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path / "trial")
    task = Task(id="hello", instruction="Create /app/hello.txt holding the line `hi`.",
                format=TaskFormat.INLINE)  # fmt: skip
    config = preset("climber", planner=False, probe_commands=False, propose=False, candidates=1)
    model = ScriptedModel([wrote("x").replace("count.txt", "hello.txt")] * 2)
    (tmp_path / "log").mkdir()
    ctx = AgentContext(task, sandbox, time.monotonic() + 60, tmp_path / "log")
    outcome = HarnessAgent(model, config.with_settings({"max_turns": 2})).run(ctx)
    assert computing(model) == 0 and outcome.info["computed"] == 0


def test_a_computed_answer_may_be_asked_as_a_python_program(tmp_path: Path) -> None:
    """`compute_with = "program"`: the program runs from a here-document (nothing of it is
    left in the workspace), and the prompt shows the input's first lines."""
    program = "```python\nwith open('/app/data.txt') as f:\n    print(len(f.readlines()))\n```"
    outcome, model, workspace = run_agent(tmp_path, [WRONG, program], code="program")
    model.assert_complete()
    assert outcome.info["loop_exit"] == "verified" and outcome.info["computed"] == 1
    assert (workspace / "count.txt").read_text().strip() == "3"
    asked = model.requests[1]
    assert asked.messages[0].content == shipped()("compute.program_system")
    assert "Write a short Python 3 program" in asked.messages[-1].content
    assert "Python modules here: the standard library" in asked.messages[-1].content
    assert "The input files begin:\n--- /app/data.txt ---\na\nb\nc" in asked.messages[-1].content
    assert sorted(p.name for p in workspace.iterdir()) == ["count.txt", "data.txt"]


def test_the_heads_of_inputs_of_any_size_are_shown(tmp_path: Path) -> None:
    sandbox, workspace = host_sandbox(tmp_path)
    (workspace / "big.log").write_text("".join(f"line {n}\n" for n in range(100_000)))
    (workspace / "blob.bin").write_bytes(b"\x00\x01" * 100)
    heads = input_heads(sandbox, ["/app/big.log", "/app/blob.bin", "/app/none.txt"])
    assert heads == "--- /app/big.log ---\nline 0\nline 1\nline 2\nline 3\nline 4"


def test_a_failed_program_is_told_by_its_error_line(tmp_path: Path) -> None:
    broken = "```python\nimport sys\nprint(lines)\n```"
    answers = [WRONG, broken, WRONG, "grep -c . /app/data.txt"]  # a command comes instead
    outcome, model, workspace = run_agent(tmp_path, answers, code="program")
    model.assert_complete()
    again = model.requests[3].messages[-1].content
    assert "Your last program failed: NameError: name 'lines' is not defined." in again
    assert "Write a better program." in again
    assert (workspace / "count.txt").read_text().strip() == "3"
    assert outcome.info["loop_exit"] == "verified"


@pytest.mark.parametrize(
    ("error", "meant"),
    [
        ("TypeError: list indices must be integers or slices, not str", "is a list: loop"),
        ("AttributeError: 'list' object has no attribute 'get'", "is a list: loop"),
        ("TypeError: string indices must be integers, not 'str'", "is text, not an object"),
        ("KeyError: 'start_time'", "that key is not in the data"),
        ("AttributeError: 'NoneType' object has no attribute 'group'", "matched nothing"),
        ("json.decoder.JSONDecodeError: Extra data: line 2 column 1", "JSON Lines"),
        ("NameError: name 'lines' is not defined", None),
    ],
)
def test_a_programs_error_on_the_datas_shape_says_what_it_means(
    error: str, meant: str | None
) -> None:
    told = said(f"Traceback (most recent call last):\n  ...\n{error}\n", program=True)
    assert told.startswith(error)
    assert (meant in told) if meant else told == error


@pytest.mark.parametrize(
    ("answer", "program"),
    [
        ("```python\nprint(3)\n```", "print(3)"),
        ("```\nimport json\nprint(json.dumps([1]))", "import json\nprint(json.dumps([1]))"),
        ("import sys\nprint(sys.argv)", "import sys\nprint(sys.argv)"),  # no fence, compiles
        ("```python\nfor x in [1]:\nprint(x)\n```", "for x in [1]:\nprint(x)"),  # run, told
        ("Here is the program you asked for.", ""),
        ("```bash\nwc -l < data.txt\n```", ""),  # a command: run as one
    ],
)
def test_the_program_of_an_answer(answer: str, program: str) -> None:
    assert program_in(answer) == program


def test_a_program_runs_from_a_here_document() -> None:
    assert run_program("print(1)", "/app/a b.txt") == (
        "python3 - > '/app/a b.txt' <<'HILLCLIMBER_PROGRAM'\nprint(1)\nHILLCLIMBER_PROGRAM"
    )
    bare = "python3 - <<'HILLCLIMBER_PROGRAM'\nprint(1)\nHILLCLIMBER_PROGRAM"
    assert run_program("print(1)") == bare


@pytest.mark.parametrize(
    ("source", "made"),
    [
        ("x = json.load(f)\nprint(os.sep)", "import json, os\nx = json.load(f)\nprint(os.sep)"),
        ("import json\nprint(json.dumps(1))", None),  # imported: left alone
        ("os = 3\nprint(os.x)", None),  # bound by the program
        ("def f(re):\n    return re.x", None),  # a parameter
        ("print(json.x", None),  # no Python: left for its error to be said
        ("#!/bin/python3\nprint(sys.argv)", "#!/bin/python3\nimport sys\nprint(sys.argv)"),
        ("from __future__ import annotations\nprint(re.I)",
         "from __future__ import annotations\nimport re\nprint(re.I)"),
    ],
)  # fmt: skip
def test_a_program_gets_the_common_modules_it_uses_unimported(
    source: str, made: str | None
) -> None:
    """The 1.5B's programs called `json.load` and `os.path.join` without importing them."""
    assert with_imports(source) == (made or source)


def test_a_program_that_forgot_an_import_runs(tmp_path: Path) -> None:
    sandbox, root = host_sandbox(tmp_path)
    (root / "n.json").write_text('{"n": 4}')
    program = "with open('/app/n.json') as f:\n    print(json.load(f)['n'] * 2)"
    result = sandbox.run(run_program(program, "/app/out.txt"), timeout=30)
    assert result.exit_code == 0, result.stderr
    assert (root / "out.txt").read_text() == "8\n"


SCRIPT_TASK = (
    "Create a Python script at /app/count.py.\n\nThe script must:\n- Read /app/data.txt\n"
    "- Write the number of its lines to /app/count.txt"
)


def test_a_program_is_saved_as_the_script_that_writes_the_answer(tmp_path: Path) -> None:
    """The task's tests run the script: the computed program is saved as it, and writes the
    answer file itself."""
    program = (
        "```python\nlines = open('/app/data.txt').readlines()\n"
        "open('/app/count.txt', 'w').write(f'{len(lines)}\\n')\n```"
    )
    done = json.dumps({"name": "task_complete", "arguments": {}})
    answers = [WRONG, program, done]
    outcome, model, workspace = run_agent(tmp_path, answers, SCRIPT_TASK, code="program")
    model.assert_complete()
    asked = model.requests[1].messages[-1].content
    assert "writes exactly that to /app/count.txt (it is saved as /app/count.py and run)" in asked
    assert outcome.info["computed"] == 1
    assert (workspace / "count.txt").read_text() == "3\n"
    assert "readlines()" in (workspace / "count.py").read_text()


@pytest.mark.parametrize(
    ("instruction", "script_writes"),
    [
        (SCRIPT_TASK, True),
        (
            "Create /app/solve.py that:\n1. reads /app/in.txt\n2. saves the sums to /app/out.json",
            True,
        ),
        ("Save it in /app/solve.py and ensure it generates the counts in /app/out.json.", True),
        ("After creating /app/solve.py, save a performance report to /app/out.json.", False),
        ("Save the fix to /app/solve.py.\n\nThen create a status file at /app/out.json:", False),
        ("Write /app/out.json with the counts.\n\nThe checks:\n- /app/solve.py runs", False),
    ],
)
def test_when_a_script_writes_the_answer(instruction: str, script_writes: bool) -> None:
    path = "/app/count.txt" if "count.txt" in instruction else "/app/out.json"
    script = "/app/count.py" if "count.py" in instruction else "/app/solve.py"
    assert writes(instruction, script, path) is script_writes
