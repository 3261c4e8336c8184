"""Unit tests of the loop's small parts: summaries, budget, hints, complexity, planner, tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.harness.acting.handlers import ToolEnv, execute, tool_path
from hillclimber.harness.acting.tools import (
    TOOLS,
    ToolCall,
    ToolResult,
    call_schema,
    tool_list,
    truncate,
)
from hillclimber.harness.instruction import Complexity, classify, turn_budget
from hillclimber.harness.planner import Plan
from hillclimber.harness.prompting import hints
from hillclimber.harness.prompting.budget import (
    TRUNCATED,
    BudgetExceeded,
    PromptBudget,
    Section,
    cut_instruction,
)
from hillclimber.harness.prompting.prompters import ConversationPrompter
from hillclimber.harness.prompting.summary import StepSummary, previous_field, summarize
from hillclimber.harness.prompting.templates import shipped
from hillclimber.models import ModelProfile
from hillclimber.sandbox import Mount, SandboxKind, create_sandbox, trial_layout

# -- summaries ------------------------------------------------------------------------------


def test_summaries_are_tool_aware_and_short() -> None:
    wrote = summarize(
        1,
        ToolCall(name="write_file", arguments={"path": "foo.txt", "content": "x" * 123}),
        ToolResult(True, "ok", {"bytes": 123}),
    )
    assert wrote.message == "Wrote 123 bytes to foo.txt"
    ran = summarize(
        2,
        ToolCall(
            name="run_command", arguments={"command": "gcc -static -o image image.c -lm -Wall"}
        ),
        ToolResult(False, "[exit code 1]\nimage.c:(.text+0x1a): undefined reference to `sqrt'"),
    )
    assert ran.message.startswith("Ran: gcc -static") and "undefined reference" in ran.message
    long = summarize(
        3,
        ToolCall(name="run_command", arguments={"command": "x" * 500}),
        ToolResult(False, "y" * 500),
    )
    assert len(long.message) <= 100


def test_previous_field_keeps_the_last_three() -> None:
    history = [StepSummary(i, "read_file", True, f"Read {c}.txt") for i, c in enumerate("abcd", 1)]
    text = previous_field(history)
    assert "a.txt" not in text and "b.txt" in text and "d.txt" in text
    assert previous_field([]) == "none"


# -- budget ---------------------------------------------------------------------------------


def test_instruction_cut_keeps_paths_and_formats_first() -> None:
    lines = [f"Some background prose number {i} about why this matters." for i in range(30)]
    lines.insert(5, "Write the result to /app/out.csv with the header `id,score`.")
    lines.append("The file must end with exactly one newline.")
    text = "\n".join(lines)
    cut = cut_instruction(text, 300)
    assert len(cut) <= 300 + len(TRUNCATED)
    assert "/app/out.csv" in cut and "`id,score`" in cut and "exactly one newline" in cut
    assert cut.endswith(TRUNCATED)
    assert cut_instruction("short", 300) == "short"


def test_budget_shrinks_the_least_useful_section_first() -> None:
    profile = ModelProfile(name="tiny", context_window=600, chars_per_token=4.0)
    budget = PromptBudget(profile, answer_tokens=100)
    sections = [
        Section("task", "Create /app/a.txt containing hi.", priority=90, min_chars=20),
        Section("latest", "line\n" * 1000, priority=10),
        Section("previous", "Step 1 (read_file): Read a.txt", priority=60),
    ]
    messages = budget.fit("system rules", sections)
    assert budget.tokens(messages) <= budget.limit
    body = messages[1].content
    assert "Create /app/a.txt containing hi." in body and "Step 1" in body
    assert budget.shrinks >= 1


def test_budget_refuses_when_the_minimum_does_not_fit() -> None:
    budget = PromptBudget(ModelProfile(name="t", context_window=100), answer_tokens=50)
    with pytest.raises(BudgetExceeded):
        budget.fit("x" * 1000, [Section("task", "y" * 500, priority=1, min_chars=500)])


def test_token_display_warns_at_60_and_80_percent() -> None:
    budget = PromptBudget(ModelProfile(name="t", context_window=128_000), answer_tokens=100)
    prompter = ConversationPrompter(budget, instruction="Write hello.txt.", tools=[])
    assert prompter.usage_line(45_000) == "[Token usage: 45,000/128,000 (35%)]"
    assert "60%" in prompter.usage_line(80_000) and "80%" in prompter.usage_line(110_000)


# -- hints ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "declared", "on"),
    [
        ("suite", "on", True),
        ("suite", None, False),  # a dataset's name or path decides nothing
        ("suite", "off", False),
        ("on", None, True),
        ("off", "on", False),
    ],
)
def test_hint_policy(setting: str, declared: str | None, on: bool) -> None:
    assert hints.hints_on(setting, declared) is on  # type: ignore[arg-type]


def test_hints_are_generic_and_none_states_a_tasks_solution() -> None:
    assert "read_file" in (hints.build_hint("Copy source.txt to echo.txt", []) or "")
    assert "EXACTLY" in (hints.build_hint("Copy source.txt to echo.txt", ["read_file"]) or "")
    assert hints.build_hint("Create hello.txt", []) is None
    script = "Write a bash script /app/greet.sh that prints a line, then save its output to x"
    for instruction in ("Count the words in doc.txt", "Append [DONE] to log.txt", script):
        for done in ([], ["read_file"], ["run_command", "write_file"]):
            hint = hints.build_hint(instruction, done) or ""
            assert not any(line in hint for line in ("wc -w", ">>", "> FILE", "#!/bin/bash"))


# -- complexity and planner -----------------------------------------------------------------


def test_complexity_classes() -> None:
    assert classify("Create hello.txt containing hi.") is Complexity.SIMPLE
    many = "\n".join(f"{i}. Write /app/f{i}.txt then check /app/g{i}.json" for i in range(8))
    assert classify(many * 3) is Complexity.COMPLEX
    assert turn_budget(Complexity.SIMPLE, 30) == 15
    assert turn_budget(Complexity.COMPLEX, 30) == 30


def test_plan_from_answers_and_its_state() -> None:
    plan = Plan.from_answer('{"steps": ["read config.txt", "edit DEBUG", "check"]}')
    assert [s.text for s in plan.steps] == ["read config.txt", "edit DEBUG", "check"]
    assert plan.current() is not None and plan.current().text == "read config.txt"  # type: ignore[union-attr]
    plan.advance("Read config.txt (5 lines)")
    plan.fix("old_text is not in the file")
    current = plan.current()
    assert current is not None and current.text.startswith("Fix: old_text")
    plan.advance("Edited config.txt")
    plan.advance("Edited config.txt")
    plan.advance("ok")
    assert plan.exhausted
    assert "[x] 1. read config.txt -> Read config.txt" in plan.render()
    broken = Plan.from_answer('{"steps": ["one", "two"')
    assert [s.text for s in broken.steps] == ["one", "two"]
    assert [s.text for s in Plan.from_answer("no json at all").steps] == ["Do the task"]
    said = '{"steps": ["read_file", "cat a.txt", "read_file", "cat a.txt", " run_command "]}'
    assert [s.text for s in Plan.from_answer(said).steps] == ["cat a.txt"]
    assert [s.text for s in Plan.from_answer('["read_file"]').steps] == ["Do the task"]
    # names of tools the model made up (the 1.5B then calls them): no steps either
    made_up = '{"steps": ["read_file", "parse_csv", "clean_data", "make", "sort by id"]}'
    assert [s.text for s in Plan.from_answer(made_up).steps] == ["make", "sort by id"]


def test_a_plan_that_never_writes_the_answer_ends_in_writing_it() -> None:
    plan = Plan.from_answer('{"steps": ["Read /app/log.txt", "Count the errors"]}')
    plan.ends_in(["/app/report.json", "/app/other.txt"])
    assert plan.steps[-1].text == "Write /app/report.json in the form the task asks"
    named = Plan.from_answer('{"steps": ["Read the log", "Save the counts to report.json"]}')
    named.ends_in(["/app/report.json"])
    assert len(named.steps) == 2
    alone = Plan.from_answer('{"steps": ["Read the log"]}')
    alone.ends_in([])
    assert len(alone.steps) == 1


# -- tools ----------------------------------------------------------------------------------


def test_truncation_marks_what_was_cut() -> None:
    text = "\n".join(f"line {i}" for i in range(5000))
    out, meta = truncate(text)
    assert "[output truncated: showing first 66 and last 34 of 5000 lines]" in out
    assert meta["truncated"] and meta["lines_total"] == 5000
    assert out.startswith("line 0") and out.rstrip().endswith("line 4999")


def test_truncation_keeps_whole_lines_and_says_how_many() -> None:
    """Long lines cut at the character budget: no line is shown broken in two."""
    text = "\n".join(f"line {i} " + "word " * 30 for i in range(129))
    out, meta = truncate(text, 40, 3000)
    shown = [line for line in out.splitlines() if not line.startswith("[output truncated")]
    assert all(line.startswith("line ") and line.endswith("word ") for line in shown)
    assert "showing first 12 and last 6 of 129 lines" in out and meta["lines_shown"] == 18


def test_a_file_larger_than_the_output_is_read_in_pieces(tmp_path: Path) -> None:
    """Head and tail hid the middle of a long input; a piece says where the next one starts,
    and reading on from there reaches every line."""
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    env = ToolEnv(sandbox=sandbox, output_chars=2000)
    sandbox.write_file(
        "/app/big.log", "".join(f"event {i:04d} ok\n" for i in range(1, 501)).encode()
    )
    first = execute(ToolCall(name="read_file", arguments={"path": "big.log"}), env)
    assert first.output.startswith("event 0001 ok\nevent 0002 ok")
    assert first.output.endswith(  # a data file: the rest is for a command, not for reading
        "[lines 1-100 of 500 shown; the rest (from line 101) is more rows of the same kind: work"
        " on the whole file with a command (run_command) instead of reading it]"
    )
    sandbox.write_file("/app/big.py", "".join(f"x{i} = {i}\n" for i in range(500)).encode())
    code = execute(ToolCall(name="read_file", arguments={"path": "big.py"}), env)
    assert code.output.endswith("shown; the next piece: read_file big.py start=101]")
    seen, start = [], 1
    while True:
        call = ToolCall(name="read_file", arguments={"path": "big.log", "start": start})
        result = execute(call, env)
        seen += [line for line in result.output.splitlines() if line.startswith("event")]
        if "next_start" not in result.metadata:
            break
        start = result.metadata["next_start"]
    assert seen == [f"event {i:04d} ok" for i in range(1, 501)]
    wide = "x" * 900
    sandbox.write_file("/app/wide.txt", f"{wide}\n{wide}\n{wide}\n".encode())
    piece = execute(ToolCall(name="read_file", arguments={"path": "wide.txt"}), env)
    assert piece.metadata["lines_shown"] == 2 and piece.metadata["next_start"] == 3
    small = execute(ToolCall(name="read_file", arguments={"path": "wide.txt", "start": 3}), env)
    assert small.output == wide and not small.metadata["truncated"]


def test_schema_and_prompt_come_from_one_declaration() -> None:
    tools = tool_list(["write_file", "task_complete"])
    schema = call_schema(tools)
    assert schema["anyOf"][0]["properties"]["name"] == {"const": "write_file"}
    assert schema["anyOf"][0]["properties"]["arguments"]["required"] == ["path", "content"]
    assert TOOLS["read_file"].signature() == "read_file(path, start?, end?)"


def test_tools_act_in_the_sandbox(tmp_path: Path) -> None:
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    env = ToolEnv(sandbox=sandbox)
    assert execute(
        ToolCall(name="write_file", arguments={"path": "/app/a.txt", "content": "x=1\ny=2\n"}), env
    ).success
    read = execute(ToolCall(name="read_file", arguments={"path": "a.txt", "start": 2}), env)
    assert read.success and read.output == "y=2"
    zero = execute(ToolCall(name="read_file", arguments={"path": "a.txt", "start": 0}), env)
    assert zero.output == "x=1\ny=2"  # line 0 is read as line 1
    again = ToolCall(name="write_file", arguments={"path": "a.txt", "content": "x=1\ny=2\n"})
    same = execute(again, env)
    assert same.success and same.metadata["unchanged"] and "nothing changed" in same.output
    edit = execute(
        ToolCall(
            name="edit_file", arguments={"path": "a.txt", "old_text": "x=1", "new_text": "x=9"}
        ),
        env,
    )
    assert edit.success and (tmp_path / "workspace/a.txt").read_text() == "x=9\ny=2\n"
    noop = ToolCall(
        name="edit_file", arguments={"path": "a.txt", "old_text": "y=2", "new_text": "y=2"}
    )
    assert execute(noop, env).metadata["unchanged"]
    missing = execute(
        ToolCall(name="edit_file", arguments={"path": "a.txt", "old_text": "z=1", "new_text": "z"}),
        env,
    )
    assert not missing.success and "not in the file" in missing.output
    outside = execute(
        ToolCall(name="write_file", arguments={"path": "/etc/x", "content": "x"}), env
    )
    assert not outside.success and "outside" in outside.output
    ran = execute(ToolCall(name="run_command", arguments={"command": "cat a.txt; exit 3"}), env)
    assert not ran.success and ran.metadata["exit_code"] == 3 and "x=9" in ran.output


FENCE = "(without the ``` fence around it: it is not the file's)"
AS_JSON = "(as JSON: it was written in Python's notation)"
REJOINED = "(a line break inside a quoted string written as the escape \\n: it parses now)"


@pytest.mark.parametrize(
    ("path", "content", "written", "told"),
    [
        ("r.txt", "```json\nrecoverable=2\nrows=847\n```", "recoverable=2\nrows=847\n", FENCE),
        ("r.csv", "```\na,b\n1,2\n```\n", "a,b\n1,2\n", FENCE),
        ("run.sh", "  ```bash\necho hi\n```", "echo hi\n", FENCE),
        (  # the 1.5B's answer file on the dev split
            "t.json",
            "{'min_q': 35, 'strict': True, 'x': None}",
            '{\n  "min_q": 35,\n  "strict": true,\n  "x": null\n}\n',
            AS_JSON,
        ),
        ("t.json", "```json\n['a', 1.5]\n```", '[\n  "a",\n  1.5\n]\n', f"{FENCE} {AS_JSON}"),
        (  # the 1.5B on Terminal-Bench 2: `split('\n')` in JSON, read as a line break
            "check.py",
            "head = text.split('\n')[0]\nprint(head)\n",
            "head = text.split('\\n')[0]\nprint(head)\n",
            REJOINED,
        ),
    ],
)
def test_a_write_is_of_the_file_its_content_stands_for(
    path: str, content: str, written: str, told: str, tmp_path: Path
) -> None:
    """A fence around the whole content is not written; a `.json` file written in Python's
    notation is written as JSON; either is said."""
    env = ToolEnv(sandbox=create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path)))
    result = execute(ToolCall(name="write_file", arguments={"path": path, "content": content}), env)
    assert result.success and result.output.endswith(told)
    assert (tmp_path / "workspace" / path).read_text() == written


def test_an_edit_that_cuts_a_string_literal_is_joined_only_where_the_file_parsed(
    tmp_path: Path,
) -> None:
    env = ToolEnv(sandbox=create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path)))
    (tmp_path / "workspace/ok.py").write_text("print('a')\n")
    (tmp_path / "workspace/bad.py").write_text("print('a')\ndef f(:\n")
    for name in ("ok.py", "bad.py"):
        edit = {"path": name, "old_text": "print('a')", "new_text": "print('a\nb')"}
        result = execute(ToolCall(name="edit_file", arguments=edit), env)
        assert result.success and result.output.endswith(REJOINED) == (name == "ok.py")
    assert (tmp_path / "workspace/ok.py").read_text() == "print('a\\nb')\n"
    assert (tmp_path / "workspace/bad.py").read_text() == "print('a\nb')\ndef f(:\n"


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("notes.md", "```\ncode\n```\n"),  # Markdown: the fence is text
        ("r.txt", "before\n```\ncode\n```\n"),  # a fence inside, not around
        ("r.txt", "```\na\n```\nand\n```\nb\n```\n"),  # two blocks
    ],
)
def test_a_fence_that_is_the_files_own_is_kept(path: str, content: str, tmp_path: Path) -> None:
    env = ToolEnv(sandbox=create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path)))
    result = execute(ToolCall(name="write_file", arguments={"path": path, "content": content}), env)
    assert result.success and "fence" not in result.output
    assert (tmp_path / "workspace" / path).read_text() == content


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("t.json", '{"a": 1}'),  # JSON already
        ("t.json", "{'a': open('x')}"),  # no literal: nothing runs, it is kept as written
        ("t.json", "{...}"),
        ("t.json", "[...]"),  # a list of Ellipsis, which JSON cannot hold
        ("t.json", "{'a': {1, 2}}"),
        ("t.py", "{'a': 1}"),  # Python where Python belongs
    ],
)
def test_other_writes_are_kept_as_written(path: str, content: str, tmp_path: Path) -> None:
    env = ToolEnv(sandbox=create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path)))
    result = execute(ToolCall(name="write_file", arguments={"path": path, "content": content}), env)
    assert result.success and "as JSON" not in result.output
    assert (tmp_path / "workspace" / path).read_text() == content


def test_a_bare_name_is_found_in_a_folder_of_the_workspace(tmp_path: Path) -> None:
    """The task names `ec-policies.json`; it lies in /app/conf/: the prompt shows it there, and
    a read of /app/ec-policies.json says where it is. Two files of that name: neither."""
    from hillclimber.harness.prompting.shown import shown
    from hillclimber.harness.task_paths import TaskPaths

    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    (tmp_path / "workspace/conf").mkdir()
    (tmp_path / "workspace/conf/ec-policies.json").write_text('{"p": 1}\n')
    instruction = "Pick the best policy from ec-policies.json and write it to /app/out.txt."
    assert shown(TaskPaths.read(instruction, sandbox, "/app").named, sandbox, shipped()).startswith(
        "--- /app/conf/ec-policies.json"
    )
    read = execute(
        ToolCall(name="read_file", arguments={"path": "ec-policies.json"}), ToolEnv(sandbox)
    )
    assert not read.success and "(the file /app/conf/ec-policies.json has that name)" in read.output
    (tmp_path / "workspace/old").mkdir()
    (tmp_path / "workspace/old/ec-policies.json").write_text("{}\n")
    assert shown(TaskPaths.read(instruction, sandbox, "/app").named, sandbox, shipped()) == ""
    again = execute(
        ToolCall(name="read_file", arguments={"path": "ec-policies.json"}), ToolEnv(sandbox)
    )
    assert again.output == ("no such file: ec-policies.json (/app holds 2 entries: conf/, old/)")


def test_a_pattern_read_says_the_files_it_matches(tmp_path: Path) -> None:
    """The 1.5B read `container_*.json`: the file tools take one file, and are told which."""
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    (tmp_path / "workspace/data").mkdir()
    for name in ("container_b.json", "container_a.json", "notes.txt"):
        (tmp_path / "workspace/data" / name).write_text("{}\n")
    read = execute(
        ToolCall(name="read_file", arguments={"path": "/app/data/container_*.json"}),
        ToolEnv(sandbox),
    )
    assert not read.success
    assert read.output == (
        "no such file: /app/data/container_*.json (a path names one file; it matches"
        " /app/data/container_a.json, /app/data/container_b.json)"
    )
    none = execute(
        ToolCall(name="read_file", arguments={"path": "/app/data/*.csv"}), ToolEnv(sandbox)
    )
    assert none.output == (
        "no such file: /app/data/*.csv (/app/data holds 3 entries: container_a.json,"
        " container_b.json, notes.txt)"
    )


def test_a_missing_file_is_told_what_the_nearest_folder_holds(tmp_path: Path) -> None:
    """The 1.5B read a file it guessed the name of, was told "no such file" and read it again;
    the folder's entries are what it needs to look at next. The nearest folder that is there
    is listed, never `/`."""
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    (tmp_path / "workspace/src").mkdir()
    (tmp_path / "workspace/src/main.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "workspace/notes.txt").write_text("x\n")
    guessed = execute(
        ToolCall(name="read_file", arguments={"path": "/app/secret_program"}), ToolEnv(sandbox)
    )
    assert not guessed.success
    assert (
        guessed.output
        == "no such file: /app/secret_program (/app holds 2 entries: notes.txt, src/)"
    )
    deeper = execute(
        ToolCall(
            name="edit_file",
            arguments={"path": "/app/cache/model/x.bin", "old_text": "a", "new_text": "b"},
        ),
        ToolEnv(sandbox),
    )
    assert deeper.output.startswith("no such file: /app/cache/model/x.bin (/app holds 2 entries")
    (tmp_path / "workspace/empty").mkdir()
    empty = execute(ToolCall(name="read_file", arguments={"path": "empty/a.txt"}), ToolEnv(sandbox))
    assert empty.output == "no such file: empty/a.txt (/app/empty is empty)"
    (tmp_path / "workspace/empty/only.txt").write_text("x\n")
    one = execute(ToolCall(name="read_file", arguments={"path": "empty/b.txt"}), ToolEnv(sandbox))
    assert one.output == "no such file: empty/b.txt (/app/empty holds 1 entry: only.txt)"


def test_a_folder_read_as_a_file_says_what_it_holds(tmp_path: Path) -> None:
    """The 1.5B read a folder of manifests as a file, three times: it exists, and holds these."""
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    (tmp_path / "workspace/manifests/old").mkdir(parents=True)
    for name in ("b.yaml", "a.yaml"):
        (tmp_path / "workspace/manifests" / name).write_text("kind: CronJob\n")
    read = execute(
        ToolCall(name="read_file", arguments={"path": "/app/manifests"}), ToolEnv(sandbox)
    )
    assert not read.success and read.metadata["folder"]
    assert read.output.startswith(
        "/app/manifests is a folder, not a file: it holds 3 entries: a.yaml, b.yaml, old/."
    )
    (tmp_path / "workspace/empty").mkdir()
    empty = execute(ToolCall(name="read_file", arguments={"path": "empty"}), ToolEnv(sandbox))
    assert empty.output == "empty is an empty folder, not a file"


def test_text_tools_refuse_a_binary_file(tmp_path: Path) -> None:
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    env = ToolEnv(sandbox=sandbox)
    database = b"SQLite format 3\0\x10\x00customers chair"
    (tmp_path / "workspace" / "shop.db").write_bytes(database)
    for call in (
        ToolCall(name="read_file", arguments={"path": "/app/shop.db"}),
        ToolCall(
            name="edit_file",
            arguments={"path": "/app/shop.db", "old_text": "chair", "new_text": "table"},
        ),
    ):
        result = execute(call, env)
        assert not result.success and result.metadata["binary"]
        assert "not a text file (it starts with 'SQLite format 3')" in result.output
    assert (tmp_path / "workspace" / "shop.db").read_bytes() == database
    from hillclimber.harness.prompting.shown import shown
    from hillclimber.harness.task_paths import TaskPaths

    assert (
        shown(TaskPaths.read("Query /app/shop.db.", sandbox, "/app").named, sandbox, shipped())
        == ""
    )


def test_a_path_without_its_leading_slash_means_the_workspace_file(tmp_path: Path) -> None:
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    env = ToolEnv(sandbox=sandbox)
    assert tool_path("app/app.ini", env) == "/app/app.ini"  # no folder /app/app
    assert tool_path("/app/x.txt", env) == tool_path("x.txt", env) == "/app/x.txt"
    write = ToolCall(name="write_file", arguments={"path": "app/out/a.txt", "content": "a"})
    assert execute(write, env).success
    assert (tmp_path / "workspace/out/a.txt").read_text() == "a"
    (tmp_path / "workspace/app").mkdir()  # now app/ is a real folder of the workspace
    assert tool_path("app/app.ini", env) == "/app/app/app.ini"
    assert tool_path("../etc/passwd", env) == "/etc/passwd"
    outside = ToolCall(name="read_file", arguments={"path": "../etc/passwd"})
    assert not execute(outside, env).success


def test_the_working_folder_put_before_a_path_outside_it_means_that_path(
    tmp_path: Path,
) -> None:
    """The 1.5B, working in /home/agent, read /home/agent/opt/webapp/app.py for the task's
    /opt/webapp/app.py three times and was told each time there was no such file."""
    layout = trial_layout(tmp_path).with_mounts(Mount("/data", tmp_path / "data"))
    (tmp_path / "data/logs").mkdir(parents=True)
    (tmp_path / "data/logs/access.log").write_text("GET /\n")
    env = ToolEnv(sandbox=create_sandbox(SandboxKind.LOCAL, layout))
    assert tool_path("/app/data/logs/access.log", env) == "/data/logs/access.log"
    read = execute(ToolCall(name="read_file", arguments={"path": "/app/data/logs/access.log"}), env)
    assert read.success and read.output == "GET /"
    assert tool_path("/app/data/logs/new.log", env) == "/app/data/logs/new.log"  # not there
    (tmp_path / "workspace/data").mkdir()  # a folder of the working folder: its path
    assert tool_path("/app/data/logs/access.log", env) == "/app/data/logs/access.log"


def test_files_the_task_protects_and_names(tmp_path: Path) -> None:
    from hillclimber.harness.instruction import protected_files
    from hillclimber.harness.prompting.shown import shown
    from hillclimber.harness.task_paths import TaskPaths

    text = "Copy /app/source.txt to /app/echo.txt exactly. Do not change /app/source.txt."
    assert protected_files(text) == {"/app/source.txt"}
    assert protected_files("Don't modify notes.md or the tests.") == {"/app/notes.md"}
    assert protected_files("Create hello.txt.") == set()
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path))
    (tmp_path / "workspace" / "source.txt").write_text("a\tb\n")
    blocks = shown(TaskPaths.read(text, sandbox, "/app").named, sandbox, shipped())
    assert "--- /app/source.txt (1 lines) ---\na\tb" in blocks and "echo.txt" not in blocks


def test_an_overwrite_that_drops_most_lines_is_detected() -> None:
    from hillclimber.harness.guards.files import lost_lines

    old = "one\ntwo\nthree\nfour\n"
    assert lost_lines(old, "[DONE]") == (4, 4)
    assert lost_lines(old, old + "[DONE]\n") is None
    assert lost_lines(None, "x") is None  # a new file loses nothing
    assert lost_lines("a\nb\n", "") is None  # under three lines: nothing to guard
