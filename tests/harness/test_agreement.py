"""Independent agreement (`harness/completion/agreement.py`): on a pass of checks that cannot
tell whether the values are right, the answer is worked out again another way and compared —
agreeing ends the trial `agreed`, disagreeing is a failure shown to the model, no usable second
answer leaves the gate as it was."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hillclimber.agents.base import AgentContext, AgentOutcome
from hillclimber.agents.harness import HarnessAgent
from hillclimber.harness.completion.agreement import Verdict, _prints_itself, command_in
from hillclimber.harness.completion.same_answer import laid_out_as, same
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.presets import preset
from hillclimber.harness.programs import run_program
from hillclimber.models import ScriptedModel
from hillclimber.task import Task, TaskFormat

from conftest import host_sandbox

SUM = "Write the sum of the numbers in /app/numbers.txt to /app/total.txt."
DONE = '{"name": "task_complete", "arguments": {}}'
AWK = "awk '{s+=$1} END {print s}' /app/numbers.txt"
PASTE = "paste -sd+ /app/numbers.txt | python3 -c 'print(eval(input()))'"
"""Another way to the same sum."""


def write(path: str, content: str) -> str:
    return json.dumps({"name": "write_file", "arguments": {"path": path, "content": content}})


def run_command(command: str) -> str:
    return json.dumps({"name": "run_command", "arguments": {"command": command}})


def run_agent(
    tmp_path: Path,
    answers: list[str],
    config: HarnessConfig | None = None,
    instruction: str = SUM,
    files: dict[str, str] | None = None,
) -> tuple[AgentOutcome, ScriptedModel, Path]:
    sandbox, workspace = host_sandbox(tmp_path / "trial")
    for name, text in (files or {"numbers.txt": "3\n4\n5\n"}).items():
        (workspace / name).write_text(text)
    task = Task(id="sum", instruction=instruction, format=TaskFormat.INLINE)
    config = config or preset(
        "fm", planner=False, probe_commands=False, propose=False, agreement=True
    )
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    ctx = AgentContext(task, sandbox, time.monotonic() + 60, log_dir)
    model = ScriptedModel(answers)
    return HarnessAgent(model, config).run(ctx), model, log_dir


def test_a_second_answer_that_agrees_ends_the_trial(tmp_path: Path) -> None:
    outcome, model, log_dir = run_agent(tmp_path, [write("/app/total.txt", "12\n"), DONE, AWK])
    assert outcome.info["loop_exit"] == "agreed"
    model.assert_complete()
    asked = model.requests[-1].messages[-1].content
    assert "Do not read /app/total.txt" in asked and SUM in asked
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    second = [s for s in steps if s.get("message") == "second answer"]
    assert second and second[0]["extra"]["agrees"] is True


def test_a_second_answer_that_disagrees_is_a_failure_to_fix(tmp_path: Path) -> None:
    """The model writes what the second computation printed: that command is now the way the
    answer was made, so agreement needs a third way (the same program asked again agreed with
    its own output on the dev split)."""
    answers = [write("/app/total.txt", "3+4+5\n"), DONE, AWK, write("/app/total.txt", "12"), DONE,
               f"```sh\n{AWK}\n```", PASTE]  # fmt: skip
    outcome, model, log_dir = run_agent(tmp_path, answers)
    assert outcome.info["loop_exit"] == "agreed"
    model.assert_complete()
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    second = [s["extra"] for s in steps if s.get("message") == "second answer"]
    assert second[1]["unusable"] == "is the way the answer was made, not another"
    assert second[2]["agrees"] and second[2]["command"] == PASTE
    told = model.requests[3].messages[-1].content
    assert "A second computation disagrees with /app/total.txt" in told
    assert "printed:\n12\nbut /app/total.txt holds:\n3+4+5\n" in told


def test_a_disagreement_shows_both_answers_line_by_line() -> None:
    """Flattened into one line, the 0.5B copied a three-line answer as one line."""
    verdict = Verdict("/app/a.txt", "sqlite3 db 'SELECT …'", "Ann|5\nBo|4\nCy|3\n", "x,1\n", False)
    told = verdict.feedback()
    assert "printed:\nAnn|5\nBo|4\nCy|3\nbut /app/a.txt holds:\nx,1\nOne of them" in told
    long = Verdict("/app/a.txt", "seq 100", "\n".join(map(str, range(100))), "1", False)
    assert "\n7\n…\nbut" in long.feedback()


def test_an_answer_kept_after_a_disagreement_fails_the_checks(tmp_path: Path) -> None:
    """The same content is never judged twice, and never confirmed: a second computation
    disagreeing with it is a failing check for as long as it stays."""
    answers = [write("/app/total.txt", "11"), DONE, AWK, DONE]
    outcome, model, _ = run_agent(tmp_path, answers)
    assert outcome.info["loop_exit"] == "verification_failed"  # fm: two checks at done-signals
    model.assert_complete()


def test_climbing_applies_a_fix_of_a_disputed_answer(tmp_path: Path) -> None:
    """With the second answer a check, a new answer gains one: climbing applies it (a
    rewrite that gained nothing would be refused for the lines it removes)."""
    config = preset("climber", planner=False, probe_commands=False, propose=False, computed=0)
    assert config.completion.agreement and config.climbing.auto_verify
    answers = [write("/app/total.txt", "11"), AWK, write("/app/notes.txt", "sum"),
               write("/app/total.txt", "12"), PASTE]  # fmt: skip
    outcome, model, _ = run_agent(tmp_path, answers, config)
    assert outcome.info["loop_exit"] == "agreed"
    model.assert_complete()


def test_once_the_asks_are_spent_the_last_disagreeing_command_judges_new_answers(
    tmp_path: Path,
) -> None:
    """A changed answer is no evidence that a dispute is over: after `max_asks` questions, the
    command that disagreed runs again on each new answer, without asking — but not on one that
    says what it printed: that is its own answer copied, and no agreement."""
    config = preset("fm", planner=False, probe_commands=False, propose=False, agreement=True,
                    max_verify_retries=8)  # fmt: skip
    wrong = [a for n in (11, 10, 9) for a in (write("/app/total.txt", str(n)), DONE, AWK)]
    answers = [*wrong, write("/app/total.txt", "8"), DONE, write("/app/total.txt", "12"), DONE,
               DONE]  # fmt: skip
    outcome, model, log_dir = run_agent(tmp_path, answers, config)
    assert outcome.info["loop_exit"] == "confirmed"  # the model's word, not an agreement
    model.assert_complete()  # three asks, and no fourth
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    second = [s["extra"] for s in steps if s.get("message") == "second answer"]
    assert [s["agrees"] for s in second] == [False, False, False, False]
    assert {s["command"] for s in second} == {AWK}


def test_the_disagreeing_command_still_judges_once_the_model_runs_it_itself(
    tmp_path: Path,
) -> None:
    """The model taking up the second computation's command does not make a wrong answer
    right: what that command prints is still compared, once the asks are spent."""
    config = preset("fm", planner=False, probe_commands=False, propose=False, agreement=True,
                    max_verify_retries=8)  # fmt: skip
    wrong = [a for n in (11, 10, 9) for a in (write("/app/total.txt", str(n)), DONE, AWK)]
    answers = [*wrong, run_command(AWK), write("/app/total.txt", "8"), *[DONE] * 5]
    outcome, model, log_dir = run_agent(tmp_path, answers, config)
    assert outcome.info["loop_exit"] == "verification_failed"
    model.assert_complete()
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    second = [s["extra"] for s in steps if s.get("message") == "second answer"]
    assert [s["agrees"] for s in second] == [False] * 4


@pytest.mark.parametrize(
    "second",
    [
        "cat /app/total.txt",  # reads the answer
        "sort /dev/null",  # prints nothing
        "echo 11",  # the answer written out again: it would agree with anything it copies
        "exit 3",  # fails
        "",  # no command
    ],
)
def test_no_usable_second_answer_leaves_the_gate_as_it_was(second: str, tmp_path: Path) -> None:
    """Asked twice (the second time told why the first taught nothing), then the gate goes on
    as without a second answer."""
    answers = [write("/app/total.txt", "11"), DONE, second, second, DONE]
    outcome, model, log_dir = run_agent(tmp_path, answers)
    assert outcome.info["loop_exit"] == "confirmed"  # shown the result, the model stood by it
    model.assert_complete()
    assert "Your last " in model.requests[3].messages[-1].content
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    second_steps = [s["extra"] for s in steps if s.get("message") == "second answer"]
    assert len(second_steps) == 2
    assert all(s["unusable"] and s["agrees"] is False for s in second_steps)


@pytest.mark.parametrize(
    ("second", "told"),
    [
        ("exit 3", "command `exit 3` failed (exit 3)"),
        ("grep -c x /app/missing.txt", "failed (exit 2): grep: "),  # and its message
        ("sort /dev/null", "command `sort /dev/null` printed nothing"),
        ("echo '^[0-9]+$'", "only prints text written into it, worked out from no input file"),
        ("cat /app/total.txt", "reads /app/total.txt"),
        ("", "answer held no command"),
    ],
)
def test_an_unusable_second_answer_is_asked_again_told_why(
    second: str, told: str, tmp_path: Path
) -> None:
    """The 1.5B's first second commands failed or printed nothing (`grep -E '\\d'`, a stray
    argument to sqlite3): asked again with the reason, its next command may do."""
    answers = [write("/app/total.txt", "12\n"), DONE, second, AWK]
    outcome, model, log_dir = run_agent(tmp_path, answers)
    assert outcome.info["loop_exit"] == "agreed"
    model.assert_complete()
    asked_again = model.requests[3].messages[-1].content
    assert "Your last " in asked_again and told in asked_again
    retry_temperature = preset("fm").ask.retry_temperature
    assert model.requests[2].temperature != retry_temperature
    assert model.requests[3].temperature == retry_temperature
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    second_steps = [s["extra"] for s in steps if s.get("message") == "second answer"]
    outcomes = [(s["agrees"], bool(s["unusable"])) for s in second_steps]
    assert outcomes == [(False, True), (True, False)]


def test_the_command_that_made_the_answer_is_not_a_second_way(tmp_path: Path) -> None:
    answers = [run_command(f"{AWK} > /app/total.txt"), DONE, AWK, AWK, DONE]
    outcome, model, _ = run_agent(tmp_path, answers)
    assert outcome.info["loop_exit"] == "confirmed"
    model.assert_complete()
    assert "is the way the answer was made, not another" in model.requests[3].messages[-1].content


@pytest.mark.parametrize(
    ("held", "printed"),
    [
        ("12\n", "12"),
        ("12", "12.0"),
        ("3.14", "3.14159"),  # to the precision the answer is written with
        ('{"a": 1, "b": [2, 3]}', '{"b": [2, 3.0], "a": 1}'),
        ("x 1\ny 2\n", "y 2\nx 1\n"),  # the same lines in another order
        ("a  b\n", "a b"),
        ("Ann Lee,5086.83\nBo,4232.2\n", "Ann Lee|5086.83\nBo|4232.20"),  # values, not the form
        ('{"ok": true, "n": null}', "{'ok': True, 'n': None}"),  # a program's print(dict)
        ('["a", "b"]', "['a', 'b']"),
        ("COUNT=6\nFILE=/a b\n", "COUNT=6 FILE=/a b"),  # print(f"COUNT={n} FILE={f}")
        ("risk: high\nusers: a,b\n", "risk:  high users: a,b\n"),
    ],
)
def test_answers_that_agree(held: str, printed: str) -> None:
    assert same(held, printed)


@pytest.mark.parametrize(
    ("held", "printed"),
    [
        ("12", "13"),
        ("3", "3.4"),  # an integer is exact
        ("3.1", "3.2"),
        ('{"a": 1}', '{"a": 1, "b": 2}'),
        ("x\ny\n", "x\n"),
        ("", ""),
        ("true", "1"),
        ("12", "total: 12"),
        ("Ann,5086.83\n", "Ann|5086.38"),
        ('{"ok": true}', "{'ok': False}"),
        ("a\n", "['a']"),  # Python's notation is read only where the answer is JSON
        ("Ann Lee,1\n", "Ann,Lee 1"),  # the same words, but not the same fields
        ("COUNT=6\nVALID=NO\n", "COUNT=6 VALID=YES"),
        ("COUNT=6\n", "COUNT=6 VALID=YES"),  # one field is no line of fields run together
    ],
)
def test_answers_that_differ(held: str, printed: str) -> None:
    assert not same(held, printed)


@pytest.mark.parametrize(
    ("answer", "command"),
    [
        ("wc -l < /app/a.txt", "wc -l < /app/a.txt"),
        ("```bash\nwc -l /app/a.txt\n```\nThis counts lines.", "wc -l /app/a.txt"),
        ("$ sort -u /app/a | \\\n  wc -l", "sort -u /app/a | wc -l"),
        ("`grep -c x /app/a`", "grep -c x /app/a"),
        (  # the 1.5B, asked again after its command printed nothing
            "The command `awk -F'=' '{print $2}' /app/r.txt` is correct and should print it",
            "awk -F'=' '{print $2}' /app/r.txt",
        ),
        ("Use `wc -l /app/a.txt` here.", "wc -l /app/a.txt"),
        ("echo `date`", "echo `date`"),  # a command with a backquoted part stays whole
        ("Rscript -e 'cat(1)'", "Rscript -e 'cat(1)'"),  # a capital, but no sentence
        ("PYTHONPATH=/app python3 -c 'print(1)'", "PYTHONPATH=/app python3 -c 'print(1)'"),
        (  # the 1.5B's awk program over several lines, unfenced
            "awk '\n  $3 > 32 { n++ }\n  END { print n }\n' /app/q.jsonl\nThis counts them.",
            "awk '\n$3 > 32 { n++ }\nEND { print n }\n' /app/q.jsonl",
        ),
        (  # a fence never closed: the answer stopped, or was cut, before its end (the 1.5B)
            "```sh\nawk '{print $1}' /var/log/a.log | sort | uniq -c\nawk '{print $2}' x",
            "awk '{print $1}' /var/log/a.log | sort | uniq -c",
        ),
        ("```bash\npython -c 'print(1)'", "python -c 'print(1)'"),
        (  # comment lines are no command (the 1.5B opened its `sh` blocks with them)
            "```sh\n# Check if the file exists\nif [ -f /app/a ]; then\n  wc -l /app/a\nfi\n```",
            "if [ -f /app/a ]; then\nwc -l /app/a\nfi",
        ),
        ("```sh\n# Read the input\n# Write the output\n```", ""),
        ("`# This command will analyze the shader`", ""),
        ("#!/bin/bash\nwc -l /app/a", "wc -l /app/a"),
        (
            'for f in /app/*.log; do\n  wc -l "$f"\ndone\nThat counts.',
            'for f in /app/*.log; do\nwc -l "$f"\ndone',
        ),
        (  # a loop in a quoted program opens no block
            "python3 -c 'import sys; for x in sys.argv: print(x)' a\nThat prints them.",
            "python3 -c 'import sys; for x in sys.argv: print(x)' a",
        ),
        ("Sure, I can help you with that. Please provide the input files.", ""),
        ("```", ""),
        ("", ""),
    ],
)
def test_the_command_of_an_answer(answer: str, command: str) -> None:
    assert command_in(answer) == command


def test_a_second_answer_that_could_not_be_the_answer_is_no_judge(tmp_path: Path) -> None:
    """What the second command prints must pass the checks the answer passes (written in its
    place, put back after): on log-summary the 0.5B's second command printed every word of the
    log, and as the judge of every later answer it would have failed the right one too."""
    answers = [write("/app/total.txt", "12\n"), DONE, "sort -n /app/numbers.txt", AWK]
    outcome, model, log_dir = run_agent(tmp_path, answers)
    assert outcome.info["loop_exit"] == "agreed"
    model.assert_complete()
    assert (tmp_path / "trial" / "workspace" / "total.txt").read_text() == "12\n"  # put back
    steps = json.loads((log_dir / "trajectory.json").read_text())["steps"]
    second = [s["extra"] for s in steps if s.get("message") == "second answer"]
    assert second[0]["unusable"].startswith("printed what cannot be the answer (")
    assert "not a copy of an input" in second[0]["unusable"]
    assert "printed what cannot be the answer" in model.requests[3].messages[-1].content


def test_a_second_answer_is_judged_by_its_values_not_its_layout(tmp_path: Path) -> None:
    """sqlite-query (mini-34): the 0.5B's query printed the right rows as `name|total`; as it
    was, it failed "fields separated by ','", and the made-up answer was left unjudged."""
    instruction = ("Write each name in /app/people.txt with its length to /app/out.txt, one per"
                   " line, in the form `name,length`.")  # fmt: skip
    awk = "awk '{print $1 \"|\" length($1)}' /app/people.txt"
    loop = 'while read -r n; do echo "$n,${#n}"; done < /app/people.txt'
    answers = [write("/app/out.txt", "ann,9\nbo,9\n"), DONE, awk,
               write("/app/out.txt", "ann,3\nbo,2\n"), DONE, loop]  # fmt: skip
    files = {"people.txt": "ann\nbo\n"}
    outcome, model, _ = run_agent(tmp_path, answers, None, instruction, files)
    model.assert_complete()
    assert outcome.info["loop_exit"] == "agreed"
    told = model.requests[3].messages[-1].content
    assert "A second computation disagrees with /app/out.txt" in told and "ann|3" in told


@pytest.mark.parametrize(
    ("held", "printed", "laid_out"),
    [
        ("name,total\nAnn,3\n", "Ann Lee|5.5\nBo|2\n", "Ann Lee,5.5\nBo,2\n"),
        ("ERROR 3\nINFO 5\n", "ERROR|3\n", "ERROR 3\n"),
        ("ERROR 3\n", "ERROR\nINFO\nx\n", "ERROR\nINFO\nx\n"),  # one word a line stays so
        ('{"n": 1}', '{"n": 2}', '{"n": 2}'),  # JSON as it is
        ('{"n": 1}', "{'n': 2, 'ok': True}", '{\n  "n": 2,\n  "ok": true\n}\n'),  # a dict printed
        ("n 1\n", "{'n': 2}", "{'n': 2}\n"),  # where the answer is no JSON, the text is
        ("a,b\nc|d\n", "x;y\n", "x y\n"),  # no delimiter shared by the answer's lines
        ("N=6\nF=/x\n", "N=7 F=/y\n", "N=7\nF=/y\n"),  # a line for each field
        ("A: 1\nB: x,y\n", "A: 2 B: z,w\nnote a,b\n", "A: 2\nB: z,w\nnote a b\n"),
    ],
)
def test_a_second_answer_laid_out_as_the_answer(held: str, printed: str, laid_out: str) -> None:
    assert laid_out_as(held, printed) == laid_out


@pytest.mark.parametrize(
    ("command", "itself"),
    [
        ("echo 12", True),
        ("printf '%s\\n' Ann Bo", True),
        ("echo $((3 + 4 + 5))", True),  # arithmetic on numbers the model wrote
        ("cat <<EOF\n12\nEOF", True),
        ("echo '^[0-9]{4}$'", True),
        ("echo $(wc -l < /app/a.txt)", False),  # the count worked out from the input
        ("awk '{s+=$1} END {print s}' /app/n.txt", False),
        ("cat /app/n.txt | wc -l", False),
        ("sort -u /app/a.txt", False),
        (run_program("print(12)"), True),  # a program that opens no file
        (run_program("print(sum(int(x) for x in open('/app/n.txt')))"), False),
        (run_program("import pandas as pd\nprint(pd.read_csv('/app/a.csv').a.sum())"), False),
    ],
)
def test_a_command_that_only_prints_what_is_written_in_it(command: str, itself: bool) -> None:
    assert _prints_itself(command) is itself


def test_a_second_answer_may_be_a_program(tmp_path: Path) -> None:
    """`ask.code = "program"`: asked for a Python program, the prompt shows the input's first
    lines and the modules python3 has; the program runs with its output compared."""
    config = preset("fm", planner=False, probe_commands=False, propose=False, agreement=True,
                    code="program")  # fmt: skip
    program = "```python\nprint(sum(int(x) for x in open('/app/numbers.txt')))\n```"
    answers = [write("/app/total.txt", "12\n"), DONE, program]
    outcome, model, _ = run_agent(tmp_path, answers, config)
    model.assert_complete()
    assert outcome.info["loop_exit"] == "agreed"
    asked = model.requests[-1]
    assert "Reply with one short Python 3 program" in asked.messages[0].content
    assert "Write a short Python 3 program that works out the same answer" in (
        asked.messages[-1].content
    )
    assert "The input files begin:\n--- /app/numbers.txt ---\n3\n4\n5" in asked.messages[-1].content


def test_a_failed_second_program_is_asked_again_told_its_error(tmp_path: Path) -> None:
    config = preset("fm", planner=False, probe_commands=False, propose=False, agreement=True,
                    code="program")  # fmt: skip
    broken = "```python\nprint(sum(open('/app/numbers.txt')))\n```"
    answers = [write("/app/total.txt", "12\n"), DONE, broken, AWK]  # a command comes instead
    outcome, model, _ = run_agent(tmp_path, answers, config)
    model.assert_complete()
    again = model.requests[-1].messages[-1].content
    error = "TypeError: unsupported operand type(s) for +: 'int' and 'str'."
    assert f"Your last program failed (exit 1): {error}" in again
    assert "Write a different program." in again
    assert outcome.info["loop_exit"] == "agreed"


def test_a_second_answer_that_writes_the_answer_file_is_read_from_it(tmp_path: Path) -> None:
    """The 1.5B's second code often wrote the answer file instead of printing (`… >
    /app/total.txt`, a program's `open(…, "w")`): what it wrote is its answer, and the file is
    put back after. Sending output there is no reading of it."""
    sandbox_root = tmp_path / "trial" / "workspace"
    writes = f"{AWK} > /app/total.txt"
    answers = [write("/app/total.txt", "12\n"), DONE, writes]
    outcome, model, _ = run_agent(tmp_path, answers)
    model.assert_complete()
    assert outcome.info["loop_exit"] == "agreed"
    assert (sandbox_root / "total.txt").read_text() == "12\n"
    program = "```python\nn = sum(int(x) for x in open('/app/numbers.txt'))\n" \
        "open('/app/total.txt', 'w').write(f'{n}\\n')\n```"  # fmt: skip
    config = preset("fm", planner=False, probe_commands=False, propose=False, agreement=True,
                    code="program")  # fmt: skip
    outcome, model, _ = run_agent(tmp_path / "program", [write("/app/total.txt", "12\n"), DONE,
                                                          program], config)  # fmt: skip
    model.assert_complete()
    assert outcome.info["loop_exit"] == "agreed"


def test_a_second_program_that_reads_the_answer_file_finds_none(tmp_path: Path) -> None:
    """The answer file is gone while second code runs: reading it fails, and is said."""
    config = preset("fm", planner=False, probe_commands=False, propose=False, agreement=True,
                    code="program")  # fmt: skip
    peek = "```python\nprint(open('/app/total.txt').read())\n```"
    answers = [write("/app/total.txt", "12\n"), DONE, peek, AWK]
    outcome, model, _ = run_agent(tmp_path, answers, config)
    model.assert_complete()
    again = model.requests[-1].messages[-1].content
    assert "Your last program failed (exit 1): FileNotFoundError:" in again
    assert (tmp_path / "trial" / "workspace" / "total.txt").read_text() == "12\n"
    assert outcome.info["loop_exit"] == "agreed"
