"""The tool-call parser against a corpus of raw answers: every distinct answer small models
gave in tests/data/hello-toolcall.jsonl, plus constructed shapes they produce.
Expectations in the corpus are written by hand, never computed by the parser."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from hillclimber.harness.acting.tools import TOOLS, ToolCall, tool_list
from hillclimber.harness.parsing.outcome import (
    FEEDBACK_CHARS,
    ParsedCall,
    ParseFailure,
    ParseFailureReason,
)
from hillclimber.harness.parsing.parse import parse_tool_call

from conftest import DATA

CORPUS_PATH = Path(__file__).parents[1] / "data" / "parser_corpus.jsonl"
CORPUS: list[dict[str, Any]] = [
    json.loads(line) for line in CORPUS_PATH.read_text().splitlines() if line.strip()
]
STRICT = [e for e in CORPUS if "strict_expect" in e]
ALL = list(TOOLS.values())
FOUR = tool_list(["read_file", "write_file", "run_command", "task_complete"])
REASONS = {r.value for r in ParseFailureReason}


def outcome_of(result: ParsedCall | ParseFailure) -> tuple[dict[str, Any] | None, str | None]:
    if isinstance(result, ParsedCall):
        return {"name": result.call.name, "arguments": result.call.arguments}, None
    return None, result.reason.value


def parse(text: str, tools: Any = None, **kwargs: Any) -> ParsedCall | ParseFailure:
    return parse_tool_call(text, ALL if tools is None else tools, **kwargs)


def parsed(text: str, tools: Any = None, **kwargs: Any) -> ParsedCall:
    result = parse(text, tools, **kwargs)
    assert isinstance(result, ParsedCall), result
    return result


def failed(text: str, tools: Any = None, **kwargs: Any) -> ParseFailure:
    result = parse(text, tools, **kwargs)
    assert isinstance(result, ParseFailure), result
    return result


# -- the corpus -------------------------------------------------------------------------------


def test_the_corpus_is_well_formed() -> None:
    assert len(CORPUS) >= 60
    assert len({e["id"] for e in CORPUS}) == len(CORPUS)
    for entry in CORPUS:
        assert set(entry) >= {"id", "shape", "text", "tools", "expect", "reason", "source"}
        assert entry["source"] in ("model-outputs", "constructed")
        assert all(name in TOOLS for name in entry["tools"])
        assert (entry["expect"] is None) != (entry["reason"] is None), entry["id"]
        assert entry["reason"] is None or entry["reason"] in REASONS
        if "strict_expect" in entry:
            assert (entry["strict_expect"] is None) != (entry["strict_reason"] is None)
            assert entry["strict_reason"] is None or entry["strict_reason"] in REASONS
    assert len(STRICT) >= 30


def test_the_corpus_holds_every_distinct_real_answer() -> None:
    outputs = DATA / "hello-toolcall.jsonl"
    real = {json.loads(line)["raw"] for line in outputs.read_text().splitlines() if line.strip()}
    ours = {e["text"] for e in CORPUS if e["source"] == "model-outputs"}
    assert real == ours


@pytest.mark.parametrize("entry", CORPUS, ids=[e["id"] for e in CORPUS])
def test_forgiving(entry: dict[str, Any]) -> None:
    result = parse(entry["text"], tool_list(entry["tools"]))
    assert outcome_of(result) == (entry["expect"], entry["reason"])


@pytest.mark.parametrize("entry", STRICT, ids=[e["id"] for e in STRICT])
def test_strict(entry: dict[str, Any]) -> None:
    result = parse(entry["text"], tool_list(entry["tools"]), forgiving=False)
    assert outcome_of(result) == (entry["strict_expect"], entry["strict_reason"])
    if isinstance(result, ParsedCall):
        assert not result.repaired


def test_recovery_rate_is_at_least_98_percent() -> None:
    """Entries with an expected call that parse to exactly that call."""
    expected = [e for e in CORPUS if e["expect"] is not None]
    recovered = [
        e for e in expected if outcome_of(parse(e["text"], tool_list(e["tools"])))[0] == e["expect"]
    ]
    assert len(recovered) / len(expected) >= 0.98


def test_the_forgiving_parser_recovers_what_the_strict_one_loses() -> None:
    lost = [e for e in STRICT if e["expect"] is not None and e["strict_expect"] is None]
    assert len(lost) >= 25
    for entry in lost:
        result = parse(entry["text"], tool_list(entry["tools"]))
        assert isinstance(result, ParsedCall) and result.repaired, entry["id"]


# -- shapes and the repaired flag --------------------------------------------------------------

HELLO = ToolCall(name="write_file", arguments={"path": "hello.txt", "content": "Hello, world!"})
HELLO_JSON = json.dumps({"name": "write_file", "arguments": HELLO.arguments})


@pytest.mark.parametrize(
    ("text", "shape", "repaired"),
    [
        (f"<tool_call>{HELLO_JSON}</tool_call>", "tagged", False),
        (f"Let me write it.\n<tool_call>{HELLO_JSON}</tool_call>\nDone.", "tagged", False),
        (f"<tool_call>{HELLO_JSON}", "unclosed_tag", True),
        (HELLO_JSON, "bare_json", False),
        (f"```json\n{HELLO_JSON}\n```", "fenced", False),
        (f"I will write the file: {HELLO_JSON} and then check it.", "embedded", True),
        (json.dumps({"tool_call": json.loads(HELLO_JSON)}), "nested", True),
        (HELLO_JSON[:-3], "repaired", True),
        (
            "Using write_file tool with arguments: path=hello.txt, content=Hello, world!",
            "descriptive",
            True,
        ),
        ('write_file(path="hello.txt", content="Hello, world!")', "call_syntax", True),
        (
            '{"name": "write_file", "arguments": {"p": "hello.txt", "c": "Hello, world!"}}',
            "bare_json",
            True,
        ),
    ],
)
def test_shape_and_repaired(text: str, shape: str, repaired: bool) -> None:
    result = parsed(text)
    assert result.call == HELLO
    assert (result.shape, result.repaired) == (shape, repaired)


def test_salvage_makes_bad_escapes_literal() -> None:
    result = parsed(r'{"name": "run_command", "arguments": {"command": "grep -P \d+ a.txt"}}')
    assert result.call.arguments["command"] == r"grep -P \d+ a.txt"
    assert (result.shape, result.repaired) == ("salvaged", True)


def test_salvage_is_not_first_brace_to_last_brace() -> None:
    text = '{"name": "run_command", "arguments": {"command": "ls"}} then maybe {"x": 1}'
    assert parsed(text).call == ToolCall(name="run_command", arguments={"command": "ls"})


def test_the_first_complete_call_wins() -> None:
    text = "\n".join(
        [
            '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>',
            '<tool_call>{"name": "task_complete", "arguments": {}}</tool_call>',
            '<tool_call>{"name": "run_command", "arg',
        ]
    )
    assert parsed(text).call.name == "read_file"


def test_a_draft_call_in_the_thinking_is_ignored() -> None:
    text = f'<think>{{"name": "task_complete", "arguments": {{}}}}</think>\n{HELLO_JSON}'
    assert parsed(text).call == HELLO


# -- content comes out byte-exact --------------------------------------------------------------

REGEX = r"^\d{4}-\d{2}$"


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"name": "write_file", "arguments": {"path": "p.txt", "content": REGEX}}),
        '{"name": "write_file", "arguments": {"path": "p.txt", "content": "' + REGEX + '"}}',
        '<tool_call>{"name": "write_file", "arguments": {"path": "p.txt", "content": "'
        + REGEX
        + '"}}</tool_call>',
        "write_file(path='p.txt', content=r'" + REGEX + "')",
    ],
    ids=["escaped", "unescaped", "unescaped-tagged", "call-syntax-raw-string"],
)
def test_a_regex_is_written_byte_exact(text: str, tmp_path: Path) -> None:
    content = parsed(text).call.arguments["content"]
    (tmp_path / "p.txt").write_text(content)
    assert (tmp_path / "p.txt").read_bytes() == REGEX.encode()


def _tricky_content(rng: random.Random) -> str:
    pieces = [
        '"',
        "'",
        "\\",
        "\\n",
        "\n",
        "\t",
        "{",
        "}",
        "[",
        "]",
        "```",
        "<tool_call>",
        '{"name": "x"}',
        "é",
        "世界",
        "🌍",
        "\\d{2}",
        "$HOME",
        "%s",
        " ",
        "word",
        "}}",
        "\r\n",
        "\u2028",
    ]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))


@pytest.mark.parametrize("seed", range(40))
def test_any_content_comes_out_exactly_in_every_wrapping(seed: int) -> None:
    rng = random.Random(seed)
    call = ToolCall(name="write_file", arguments={"path": "f.txt", "content": _tricky_content(rng)})
    body = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=seed % 2 == 0)
    for text in (
        body,
        f"<tool_call>{body}</tool_call>",
        f"<tool_call>\n{body}\n",
        f"```json\n{body}\n```",
        f"Here is my call:\n{body}\nIt writes the file.",
    ):
        assert parsed(text).call == call, text


def test_c_code_with_quotes_and_newlines() -> None:
    code = '#include <stdio.h>\nint main(void) {\n    printf("%d\\n", 42);\n    return 0;\n}\n'
    text = json.dumps({"name": "write_file", "arguments": {"path": "a.c", "content": code}})
    assert parsed(text).call.arguments["content"] == code


def test_truncated_content_is_repaired_up_to_the_cut() -> None:
    text = '{"name": "write_file", "arguments": {"path": "a.c", "content": "int main() {\\n  ret'
    result = parsed(text)
    assert result.call.arguments == {"path": "a.c", "content": "int main() {\n  ret"}
    assert result.shape == "repaired"


# -- arguments ---------------------------------------------------------------------------------


def test_positional_arguments_follow_the_parameter_order() -> None:
    assert parsed('{"name": "write_file", "arguments": ["hello.txt", "Hello, world!"]}').call == (
        HELLO
    )


def test_numbers_as_strings_become_ints_and_bad_ones_are_named() -> None:
    text = '{"name": "read_file", "arguments": {"path": "a", "start": "3", "end": 9}}'
    assert parsed(text).call.arguments == {"path": "a", "start": 3, "end": 9}
    zero = '{"name": "read_file", "arguments": {"path": "a", "start": 0}}'
    assert parsed(zero).call.arguments == {"path": "a", "start": 0}  # the tool reads it as 1
    failure = failed('{"name": "read_file", "arguments": {"path": "a", "start": -1}}')
    assert failure.reason is ParseFailureReason.MISSING_REQUIRED_FIELDS
    assert "start" in failure.detail


def test_exact_argument_names_win_over_aliases() -> None:
    text = '{"name": "write_file", "arguments": {"c": "alias", "content": "exact", "path": "x"}}'
    assert parsed(text).call.arguments["content"] == "exact"


def test_an_alias_means_what_the_tool_says() -> None:
    """`c` is `content` for write_file and `command` for run_command."""
    assert parsed('{"name": "run_command", "arguments": {"c": "ls"}}').call.arguments == {
        "command": "ls"
    }


def test_unknown_arguments_are_dropped_only_when_forgiving() -> None:
    text = '{"name": "task_complete", "arguments": {"summary": "done"}}'
    assert parsed(text).call == ToolCall(name="task_complete", arguments={})
    failure = failed(text, forgiving=False)
    assert "summary" in failure.detail


# -- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Write_File", "write-file", "WRITE_FILE", "writeFile"])
def test_name_variants_are_accepted(name: str) -> None:
    assert parsed(HELLO_JSON.replace("write_file", name)).call == HELLO


def test_a_tool_not_offered_is_unknown() -> None:
    failure = failed('{"name": "read_file", "arguments": {"path": "a"}}', tool_list(["write_file"]))
    assert failure.reason is ParseFailureReason.UNKNOWN_TOOL
    assert "read_file" in failure.detail


def test_prose_that_says_use_is_not_an_unknown_tool() -> None:
    failure = failed("Let me use the following: first read, then write.")
    assert failure.reason is ParseFailureReason.NO_VALID_FORMAT


# -- strict mode -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (HELLO_JSON.replace("write_file", "Write_File"), "unknown_tool"),
        ('{"name": "write_file", "arguments": {"p": "a", "c": "b"}}', "missing_required_fields"),
        (
            '{"name": "read_file", "arguments": {"path": "a", "start": "3"}}',
            "missing_required_fields",
        ),
        (f"Sure: {HELLO_JSON}", "json_parse_error"),
        (HELLO_JSON[:-3], "json_parse_error"),
        ("Using write_file tool with arguments: path=a, content=b", "no_valid_format"),
        ('write_file(path="a", content="b")', "no_valid_format"),
        (f"```json\n{HELLO_JSON}\n```\n```json\n{HELLO_JSON}\n```", "json_parse_error"),
    ],
)
def test_strict_gives_no_help(text: str, reason: str) -> None:
    assert failed(text, forgiving=False).reason.value == reason


@pytest.mark.parametrize(
    "text",
    [HELLO_JSON, f"<tool_call>{HELLO_JSON}</tool_call>", f"Ok:\n```\n{HELLO_JSON}\n```\n"],
)
def test_strict_takes_the_plain_forms(text: str) -> None:
    assert parsed(text, forgiving=False).call == HELLO


# -- failures and their feedback ---------------------------------------------------------------


def test_feedback_for_an_unknown_tool_names_it_and_the_valid_ones() -> None:
    failure = failed('{"name": "delete_everything", "arguments": {"path": "x"}}', FOUR)
    message = failure.feedback(FOUR)
    assert "delete_everything" in message
    assert all(t.name in message for t in FOUR)
    assert '{"name": "<tool>", "arguments": {...}}' in message


def test_feedback_for_missing_fields_names_them() -> None:
    failure = failed('{"name": "edit_file", "arguments": {"path": "a", "old_text": "x"}}')
    assert failure.reason is ParseFailureReason.MISSING_REQUIRED_FIELDS
    assert "new_text" in failure.detail and "new_text" in failure.feedback(ALL)


def test_feedback_for_bad_json_reminds_to_escape() -> None:
    failure = failed('<tool_call>{"name": [1, 2}</tool_call>')
    assert failure.reason is ParseFailureReason.JSON_PARSE_ERROR
    message = failure.feedback(ALL)
    assert "escape" in message.lower() or "\\n" in message
    assert '\\"' in message


def test_feedback_says_when_the_answer_was_cut_off() -> None:
    failure = failed('<tool_call>{"name": "write_file", "arguments": {"path": "big.c", "con')
    assert failure.reason is ParseFailureReason.MISSING_REQUIRED_FIELDS
    assert "cut off" in failure.feedback(ALL)


def test_feedback_for_no_call_and_empty_answers() -> None:
    assert failed("I think the file should say hello.").reason is (
        ParseFailureReason.NO_VALID_FORMAT
    )
    assert "empty" in failed("   \n").detail
    assert "name" in failed('{"path": "a.txt"}').detail


@pytest.mark.parametrize("reason", list(ParseFailureReason))
def test_feedback_is_short_and_always_shows_format_and_tools(reason: ParseFailureReason) -> None:
    failure = ParseFailure(reason, "x" * 1000)
    for tools in (ALL, FOUR, tool_list(["verify_progress"])):
        message = failure.feedback(tools)
        assert len(message) <= FEEDBACK_CHARS
        assert '{"name": "<tool>", "arguments": {...}}' in message
        assert all(t.name in message for t in tools)
    assert "write_file(path, content)" in failure.feedback(FOUR)  # signatures where they fit


def test_hopeless_input_fails_cleanly() -> None:
    garbage = "{[" * 3000 + "use write_file(" * 200 + "<tool_call>" + "}" * 500
    assert isinstance(parse(garbage), ParseFailure)
    assert isinstance(parse(garbage, forgiving=False), ParseFailure)


FUZZ_TOKENS = [
    "{", "}", "[", "]", '"', "'", ":", ",", "\\", "\\d", "\\n", "\n", '"name"', '"arguments"',
    "write_file", "run_command", "(", ")", "=", "<tool_call>", "</tool_call>", "```json\n",
    "using", "tool", "with arguments:", "path=", "content=", "null", "1", '"x"', " ",
    "</think>", "<function=read_file>", '"\\u12',
]  # fmt: skip


@pytest.mark.parametrize("seed", range(300))
def test_random_fragments_never_raise(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choice(FUZZ_TOKENS) for _ in range(rng.randint(0, 200)))
    for forgiving in (True, False):
        result = parse(text, forgiving=forgiving)
        assert isinstance(result, ParsedCall | ParseFailure)
        if isinstance(result, ParsedCall):
            TOOLS[result.call.name].args.model_validate(result.call.arguments)


def test_a_regexs_word_boundary_is_not_a_backspace() -> None:
    """`"\\b"` in JSON decodes to a backspace; the model meant the regex's `\\b`."""
    text = r'{"name": "run_command", "arguments": {"command": "grep -oP \"\bGET\b\" a.log"}}'
    assert parsed(text).call.arguments == {"command": r'grep -oP "\bGET\b" a.log'}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "run_command", "arguments": ["python3", "-c", "print(1 + 1)"]}',
        '{"name": "run_command", "arguments": {"command": ["python3", "-c", "print(1 + 1)"]}}',
    ],
)
def test_a_command_given_as_a_list_of_words_is_that_command(text: str) -> None:
    assert parsed(text).call.arguments == {"command": "python3 -c 'print(1 + 1)'"}


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        (  # the 0.5B on fix-python-script (mini-33): bash said `read_file: command not found`
            '{"name": "run_command", "arguments": {"command": "read_file", '
            '"path": "/app/numbers.txt", "start": 1, "end": 7}}',
            "read_file",
            {"path": "/app/numbers.txt", "start": 1, "end": 7},
        ),
        (
            '{"name": "run_command", "arguments": {"command": "write_file", "path": "a.txt",'
            ' "content": "hi"}}',
            "write_file",
            {"path": "a.txt", "content": "hi"},
        ),
        ('{"name": "run_command", "arguments": {"command": "task_complete"}}', "task_complete", {}),
    ],
)
def test_a_command_that_is_another_tools_name_is_that_tools_call(
    text: str, name: str, arguments: dict[str, Any]
) -> None:
    call = parsed(text).call
    assert (call.name, call.arguments) == (name, arguments)


@pytest.mark.parametrize(
    "command",
    [
        "read_file /app/numbers.txt",  # words after it: a command line, left to the shell
        "ls",  # a real command
        "cat",
    ],
)
def test_a_command_that_is_no_tools_bare_name_stays_a_command(command: str) -> None:
    text = json.dumps({"name": "run_command", "arguments": {"command": command, "path": "x"}})
    call = parsed(text).call
    assert (call.name, call.arguments) == ("run_command", {"command": command})


def test_a_tool_not_offered_named_as_a_command_stays_a_command() -> None:
    """After a refused read, read_file is not offered: the name does not bring it back."""
    tools = tool_list(["write_file", "run_command", "task_complete"])
    text = '{"name": "run_command", "arguments": {"command": "read_file", "path": "a.txt"}}'
    assert parsed(text, tools).call.arguments == {"command": "read_file"}
