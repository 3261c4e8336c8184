"""Other readings of a small model's call (the shapes seen in real 0.5B trajectories)."""

from __future__ import annotations

from typing import Any

import pytest

from hillclimber.harness.acting.tools import ToolCall
from hillclimber.harness.climbing.readings import planned_command
from hillclimber.harness.climbing.readings import readings as readings_of

FILES = {
    "/app/log.txt": "one\ntwo\nthree\nDONE\n",
    "/app/config.txt": "DEBUG=false\n",
    "/app/docker.env": "APP_PORT=8080\nADMIN_PORT=18080\nNAME=inventory\n",
    "/app/app.ini": "[server]\nport = 8080\n[admin]\nport = 18080\n",
}


def readings(name: str, **arguments: Any) -> list[ToolCall]:
    return readings_of(ToolCall(name=name, arguments=arguments), FILES.get)


def test_a_command_written_as_content_is_also_run_into_the_file() -> None:
    found = readings("write_file", path="/app/listing.txt", content="ls /app")
    assert found == [
        ToolCall(name="run_command", arguments={"command": "ls /app > /app/listing.txt"})
    ]


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("/app/run.sh", "ls /app"),  # a script holds commands as text
        ("/app/notes.txt", "list the files"),  # prose, not a command
        ("/app/two.txt", "ls /app\nwc -l x"),  # several lines: data
    ],
)
def test_text_that_is_meant_as_text_has_no_command_reading(path: str, content: str) -> None:
    assert not [
        c for c in readings("write_file", path=path, content=content) if c.name == "run_command"
    ]


def test_a_short_overwrite_of_a_longer_file_is_also_tried_as_an_append() -> None:
    found = readings("write_file", path="/app/log.txt", content="[DONE]")
    assert found == [
        ToolCall(
            name="write_file",
            arguments={"path": "/app/log.txt", "content": "one\ntwo\nthree\nDONE\n[DONE]\n"},
        )
    ]
    assert readings("write_file", path="/app/new.txt", content="[DONE]") == []
    assert readings("write_file", path="/app/log.txt", content="two") == []  # already there


def test_a_swapped_edit_is_also_tried_the_right_way_round() -> None:
    found = readings("edit_file", path="/app/log.txt", old_text="[DONE]", new_text="DONE")
    assert found == [
        ToolCall(
            name="edit_file",
            arguments={"path": "/app/log.txt", "old_text": "DONE", "new_text": "[DONE]"},
        )
    ]
    assert readings("edit_file", path="/app/config.txt", old_text="DEBUG=false", new_text="x") == []


@pytest.mark.parametrize(
    ("command", "reading"),
    [
        ("python3 /app/greet.sh", "bash /app/greet.sh"),
        ("python greet.sh > out.txt", "bash greet.sh > out.txt"),
        ("bash tool.py", "python3 tool.py"),
        ("bash greet.sh", None),
        ("sh greet.sh", None),
        ("python3 tool.py", None),
        ("ls /app", None),
    ],
)
def test_a_script_run_with_the_wrong_interpreter(command: str, reading: str | None) -> None:
    found = readings("run_command", command=command)
    assert found == (
        [] if reading is None else [ToolCall(name="run_command", arguments={"command": reading})]
    )


def test_a_script_of_plain_sentences_is_also_tried_as_a_script_that_prints_them() -> None:
    found = readings("write_file", path="/app/greet.sh", content="Hello from script!\n")
    assert found == [
        ToolCall(
            name="write_file",
            arguments={
                "path": "/app/greet.sh",
                "content": "#!/bin/bash\necho 'Hello from script!'\n",
            },
        )
    ]
    for script in ("#!/bin/bash\necho hi\n", "echo hi\n", "set -e\nls\n"):
        assert readings("write_file", path="/app/run.sh", content=script) == []
    assert readings("write_file", path="/app/notes.txt", content="Hello there\n") == []


def test_content_in_a_markdown_fence_is_also_tried_without_it() -> None:
    """The task showed the file's lines in a fence; the 0.5B copied the fence too."""
    fenced = "```\n# Usage\n\nRun `python3 main.py` to print the project name.\n```"
    found = readings("write_file", path="/app/repo/docs/usage.md", content=fenced)
    assert [c.arguments["content"] for c in found] == [
        "# Usage\n\nRun `python3 main.py` to print the project name.\n"
    ]
    labelled = readings("write_file", path="/app/a.py", content="```python\nprint(1)\n```\n")
    assert [c.arguments["content"] for c in labelled] == ["print(1)\n"]
    for plain in ("print(1)\n", "```\n```", "see ```x``` here\n"):
        assert readings("write_file", path="/app/a.py", content=plain) == []


def test_an_edit_of_a_misremembered_line_is_also_tried_on_the_closest_line() -> None:
    found = readings(
        "edit_file", path="/app/docker.env", old_text="APP_PORT=18080", new_text="APP_PORT=9090"
    )
    assert [c.arguments["old_text"] for c in found] == ["APP_PORT=8080"]
    assert found[0].arguments["new_text"] == "APP_PORT=9090"  # 18080 -> 9090 is not in it
    spaced = readings("edit_file", path="/app/app.ini", old_text="port=8080", new_text="port=9090")
    assert [(c.arguments["old_text"], c.arguments["new_text"]) for c in spaced] == [
        ("port = 8080", "port = 9090"),  # the change made in the line: its spaces kept
        ("port = 8080", "port=9090"),  # the model's line as it wrote it
    ]
    for far in ("DB_HOST=db", "APP_PORT=1\nNAME=x"):  # nothing close; more than one line
        assert readings("edit_file", path="/app/docker.env", old_text=far, new_text="Q=1") == []


def test_a_command_is_also_tried_in_each_folder_the_task_names() -> None:
    call = ToolCall(name="run_command", arguments={"command": "git add docs/usage.md"})
    assert readings_of(call, FILES.get, ["/app/repo", "/app/my dir"]) == [
        ToolCall(
            name="run_command", arguments={"command": "cd /app/repo && git add docs/usage.md"}
        ),
        ToolCall(
            name="run_command", arguments={"command": "cd '/app/my dir' && git add docs/usage.md"}
        ),
    ]


@pytest.mark.parametrize(
    "command", ["cd /app/repo && git status", "git -C /app/repo status", "pushd /tmp", "  "]
)
def test_a_command_that_chooses_its_folder_is_run_only_there(command: str) -> None:
    call = ToolCall(name="run_command", arguments={"command": command})
    assert readings_of(call, FILES.get, ["/app/repo"]) == []


@pytest.mark.parametrize(
    ("step", "command"),
    [
        ("git commit -m 'Add usage docs'", "git commit -m 'Add usage docs'"),
        ("Run `make` in /app/project", "make"),
        ("gcc -o /app/sum /app/sum.c", "gcc -o /app/sum /app/sum.c"),
        ("Create the file /app/hello.txt", None),  # a step in words is the worker's to do
        ("echo 'unclosed", None),
        ("ls /app\nwc -l x", None),
    ],
)
def test_a_plan_step_is_a_command_only_when_it_reads_as_one(step: str, command: str | None) -> None:
    assert planned_command(step) == command
