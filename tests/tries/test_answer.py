"""What a try left, read so that equal work compares equal: named outputs, else every change;
normalised text and JSON; programs compared by what they do."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hillclimber.harness.task_paths import TaskPaths
from hillclimber.sandbox import Sandbox
from hillclimber.tries.answer import (
    Answer,
    files_now,
    how_to_run,
    normalised,
    read_answer,
)

from conftest import host_sandbox, isolated_sandbox


def answer_of(sandbox: Sandbox, instruction: str, work: callable) -> Answer:  # type: ignore[valid-type]
    paths = TaskPaths.read(instruction, sandbox, "/app")
    before = files_now(sandbox, "/app")
    work(sandbox)
    return read_answer(sandbox, "/app", paths, before, instruction)


def test_line_endings_trailing_space_and_blank_lines_do_not_make_answers_differ() -> None:
    assert normalised(b"a \r\nb\t\r\n\n\n") == normalised(b"a\nb")
    assert normalised(b"a\nb") != normalised(b"b\na")


def test_json_compares_by_value_keys_in_any_order_numbers_in_any_form() -> None:
    one = normalised(b'{"b": 1.0, "a": [1, 2.50]}', "x.json")
    other = normalised(b'{\n  "a": [1.0, 2.5],\n  "b": 1\n}\n', "x.json")
    assert one == other
    assert normalised(b'{"a": "1"}', "x.json") != normalised(b'{"a": 1}', "x.json")


def test_the_answer_is_the_named_output_file_not_other_changes(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path / "one")
    instruction = "Write the sum of the numbers in /app/in.txt to /app/out.txt"
    sandbox.write_file("/app/in.txt", b"1\n2\n")

    def work(box: Sandbox, scratch: bytes = b"") -> None:
        box.write_file("/app/out.txt", b"3\n")
        box.write_file("/app/notes.txt", scratch)

    first = answer_of(sandbox, instruction, lambda box: work(box, b"tried awk"))
    sandbox2, _ = host_sandbox(tmp_path / "two")
    sandbox2.write_file("/app/in.txt", b"1\n2\n")
    second = answer_of(sandbox2, instruction, lambda box: work(box, b"tried python"))
    assert set(first.parts) == {"/app/out.txt"}
    assert first.digest == second.digest and first.given


def test_without_a_named_output_every_changed_file_is_the_answer(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path)
    sandbox.write_file("/app/keep.txt", b"same\n")
    sandbox.write_file("/app/gone.txt", b"x\n")

    def work(box: Sandbox) -> None:
        box.write_file("/app/made.txt", b"new\n")
        box.run("rm /app/gone.txt", timeout=10)

    answer = answer_of(sandbox, "Tidy up the folder.", work)
    assert set(answer.parts) == {"/app/made.txt", "/app/gone.txt"}
    assert answer.parts["/app/gone.txt"] == "absent"


def test_a_try_that_left_nothing_has_no_answer_to_agree_on(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path)
    answer = answer_of(sandbox, "Write the result to /app/out.txt", lambda box: None)
    assert not answer.given and answer.digest == ""


def test_a_blank_file_is_no_answer_to_agree_on(tmp_path: Path) -> None:
    """Two tries that wrote an empty array have not agreed on anything (the 0.5B did, twice,
    on a conversion its weak checks passed)."""
    for n, blank in enumerate((b"[]\n", b"", b"\n\n", b"{ }", b"null", b'""')):
        sandbox, _ = host_sandbox(tmp_path / str(n))
        write = lambda box, data=blank: box.write_file("/app/out.json", data)  # noqa: E731
        answer = answer_of(sandbox, "Convert it to /app/out.json", write)
        assert answer.parts == {"/app/out.json": "blank"} and not answer.given, blank
        assert answer.digest == ""
    sandbox, _ = host_sandbox(tmp_path / "full")
    answer = answer_of(sandbox, "Convert it to /app/out.json",
                       lambda box: box.write_file("/app/out.json", b"[0]"))  # fmt: skip
    assert answer.given and answer.digest


def test_a_script_that_does_not_run_is_no_answer_to_agree_on(tmp_path: Path) -> None:
    """Two tries that wrote the line to print into the script, not a script that prints it,
    have not agreed on anything: run, it stops at `command not found`."""
    sandbox, _ = host_sandbox(tmp_path / "text")
    instruction = "Write a bash script /app/greet.sh that prints exactly: Hello there"
    text = lambda box: box.write_file("/app/greet.sh", b"Hello there\n")  # noqa: E731
    answer = answer_of(sandbox, instruction, text)
    assert answer.parts == {"run: bash greet.sh": "broken"} and not answer.given
    sandbox, _ = host_sandbox(tmp_path / "script")
    script = lambda box: box.write_file("/app/greet.sh", b"echo Hello there\n")  # noqa: E731
    answer = answer_of(sandbox, instruction, script)
    assert answer.given and answer.parts["run: bash greet.sh"] != "broken"


def test_a_script_that_does_not_run_spoils_the_answer_it_is_part_of(tmp_path: Path) -> None:
    """The output file written by hand beside it does not make it an answer (mini's
    greet-script: two tries of the 0.5B "agreed" so, and the tests failed them)."""
    sandbox, _ = host_sandbox(tmp_path / "text")
    instruction = (
        "Write a bash script /app/greet.sh that prints exactly: Hello there\n"
        "Then run it and save its output to /app/result.txt."
    )

    def by_hand(box: Sandbox) -> None:
        box.write_file("/app/greet.sh", b"Hello there\n")
        box.write_file("/app/result.txt", b"Hello there\n")

    answer = answer_of(sandbox, instruction, by_hand)
    assert answer.parts["run: bash greet.sh"] == "broken" and "/app/result.txt" in answer.parts
    assert not answer.given and answer.digest == ""


def test_a_commit_is_part_of_the_answer(tmp_path: Path) -> None:
    """What a try committed is compared by the commits' trees and subjects (not their hashes,
    which hold times), beside the files; a repository left as it was adds nothing."""
    instruction = "Fix the typo in /app/repo/a.txt and commit it with the message 'fix typo'"

    def repo(name: str) -> Sandbox:
        sandbox, _ = host_sandbox(tmp_path / name)
        sandbox.write_file("/app/repo/a.txt", b"helo\n")
        done = sandbox.run("cd /app/repo && git init -q && git add a.txt && git -c user.name=a "
                           "-c user.email=a@b commit -qm start", timeout=30)  # fmt: skip
        assert done.ok, done.output
        return sandbox

    def fix(commit: bool) -> Callable[[Sandbox], None]:
        def work(box: Sandbox) -> None:
            box.write_file("/app/repo/a.txt", b"hello\n")
            if commit:
                box.run("cd /app/repo && git -c user.name=b -c user.email=b@c commit -qam "
                        "'fix typo'", timeout=30)  # fmt: skip

        return work

    committed = answer_of(repo("one"), instruction, fix(commit=True))
    again = answer_of(repo("two"), instruction, fix(commit=True))
    uncommitted = answer_of(repo("three"), instruction, fix(commit=False))
    assert "git: /app" in committed.parts
    assert committed.digest == again.digest  # other author, other time: the same answer
    assert committed.digest != uncommitted.digest
    assert "git: /app" not in answer_of(repo("four"), "Say hi.", lambda box: None).parts


def test_git_objects_and_caches_are_nobodys_answer(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path)

    def work(box: Sandbox) -> None:
        box.write_file("/app/.git/objects/ab/cdef", b"zlib")
        box.write_file("/app/pkg/__pycache__/m.cpython-311.pyc", b"\0")
        box.write_file("/app/pkg/m.py", b"x = 1\n")

    answer = answer_of(sandbox, "Fix the package.", work)
    assert set(answer.parts) == {"/app/pkg/m.py"}


def test_a_script_is_compared_by_what_it_prints_not_its_text(tmp_path: Path) -> None:
    instruction = "Write /app/greet.sh that prints `Hello from script!`."
    answers = []
    for index, text in enumerate(
        (b"#!/bin/bash\necho 'Hello from script!'\n", b"printf 'Hello from script!\\n'\n")
    ):
        sandbox, _ = isolated_sandbox(tmp_path / str(index))
        answers.append(
            answer_of(sandbox, instruction, lambda box, t=text: box.write_file("/app/greet.sh", t))
        )
    assert answers[0].digest == answers[1].digest
    assert list(answers[0].parts) == ["run: bash greet.sh"]


def test_a_program_that_does_nothing_visible_is_compared_by_its_text(tmp_path: Path) -> None:
    instruction = "Implement add(a, b) in /app/calc.py."
    texts = (b"def add(a, b):\n    return a + b\n", b"import sys\nsys.exit('usage: calc.py N')\n")
    answers = []
    for index, text in enumerate(texts):
        sandbox, _ = isolated_sandbox(tmp_path / str(index))
        answers.append(
            answer_of(sandbox, instruction, lambda box, t=text: box.write_file("/app/calc.py", t))
        )
    assert answers[0].digest != answers[1].digest
    assert list(answers[0].parts) == ["/app/calc.py"]


def test_running_a_program_leaves_the_workspace_as_it_was(tmp_path: Path) -> None:
    sandbox, workspace = isolated_sandbox(tmp_path)
    instruction = "Write /app/make.sh which writes 42 to /app/out.txt."

    def work(box: Sandbox) -> None:
        box.write_file("/app/make.sh", b"echo 42 > /app/out.txt\n")

    answer = answer_of(sandbox, instruction, work)
    assert "run: bash make.sh" in answer.parts
    assert not (workspace / "out.txt").exists()


def test_a_program_runs_as_the_instruction_shows() -> None:
    instruction = "Fix /app/wordfreq.py so that `python3 /app/wordfreq.py data.txt` works."
    assert (
        how_to_run("/app/wordfreq.py", instruction, "/app") == "python3 /app/wordfreq.py data.txt"
    )
    shown = "Run it as:\n```\n$ ./tool --fast in.txt\n```\n"
    assert how_to_run("/app/tool", shown, "/app") == "./tool --fast in.txt"
    assert how_to_run("/app/tool", "Build /app/tool.", "/app") == "./tool"
    assert how_to_run("/app/sub/run.py", "Write it.", "/app") == "python3 sub/run.py"


def test_a_named_program_the_try_left_alone_is_not_run(tmp_path: Path) -> None:
    sandbox, _ = isolated_sandbox(tmp_path)
    sandbox.write_file("/app/run_tests.sh", b"date +%N\n")
    instruction = "Fix /app/calc.c; /app/run_tests.sh runs its tests."
    sandbox.write_file("/app/calc.c", b"int main(){return 1;}\n")
    answer = answer_of(
        sandbox, instruction, lambda box: box.write_file("/app/calc.c", b"int main(){}\n")
    )
    assert "/app/run_tests.sh" in answer.parts and "/app/calc.c" in answer.parts
    assert not any(name.startswith("run: ") for name in answer.parts)


def test_a_working_folder_of_root_is_not_walked(tmp_path: Path) -> None:
    sandbox, _ = host_sandbox(tmp_path)
    assert files_now(sandbox, "/") == {}


def test_an_answer_of_nothing_but_lines_of_the_instruction_is_copied(tmp_path: Path) -> None:
    """Lines the instruction holds as lines of their own, spacing aside, and nothing else: the
    prompt spells the answer out. A line it does not hold, or a line found only inside a
    sentence, is the try's own."""
    instruction = (
        "Save your findings to /app/result.txt in this form:\n```\nmethod: <a|b>\n```\n"
        "Example:\n```\nmethod: a\nreason: a works\n```\nThe word both is not an answer."
    )
    written = {
        b"method: a\n  reason: a works\n\n": True,
        b"method: a\n": True,
        b"method: b\nreason: a works\n": False,
        b"both\n": False,
    }
    for n, (text, copied) in enumerate(written.items()):
        sandbox, _ = host_sandbox(tmp_path / str(n))

        def work(box: Sandbox, text: bytes = text) -> None:
            box.write_file("/app/result.txt", text)

        assert answer_of(sandbox, instruction, work).copied is copied, text
