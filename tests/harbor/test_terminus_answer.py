"""Why the 1.5B cannot drive Terminus-2 (Harbor's agent) on fx-hello, and what our parser does
with the same answer.

Recorded on 2026-11-29 (`harbor run … -a terminus-2 -m openai/qwen2.5-coder-1.5b` against
`hillclimber models serve local:qwen2.5-coder-1.5b`, our environment, fx-hello): the model's
first answer holds the right command, but its `plan` string spans two lines with a raw newline
in it. Terminus-2 reads answers with `json.loads`, which refuses that, says so, and the model
gave the same answer nine times more; the file was never written (reward 0). Our decoder takes
raw control characters inside strings (`json.JSONDecoder(strict=False)`)."""

from __future__ import annotations

import json
import subprocess

import pytest

from hillclimber.harness.parsing.decode import FENCE, loads

from harbor_venv import require_harbor

KEYSTROKES = (
    "if [ ! -f /app/hello.txt ]; then touch /app/hello.txt; "
    "echo 'Hello, world!' >> /app/hello.txt; fi\n"
)
ANSWER = (
    '```json\n{\n  "analysis": "The terminal is currently empty and does not contain the file '
    "/app/hello.txt with the specified content. The last command executed was likely to clear "
    'the screen or display a prompt without writing anything to disk.",\n  "plan": "1. Verify '
    "if the file /app/hello.txt exists.\n2. If it does not exist, create it using touch command "
    'and write \'Hello, world!\' to it.",\n  "commands": [\n    {\n      "keystrokes": '
    + json.dumps(KEYSTROKES)
    + ',\n      "duration": 1.0\n    }\n  ],\n  "task_complete": false\n}\n```'
)

PARSE = """
import json, sys
from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser
result = TerminusJSONPlainParser().parse_response(sys.stdin.read())
print(json.dumps({"error": result.error, "commands": [c.keystrokes for c in result.commands]}))
"""


def test_our_decoder_reads_the_command_from_the_answer_terminus_refused() -> None:
    [body] = FENCE.findall(ANSWER)
    with pytest.raises(json.JSONDecodeError, match="Invalid control character"):
        json.loads(body)  # as Terminus-2 reads it
    decoded = loads(body)
    assert decoded["commands"][0]["keystrokes"] == KEYSTROKES
    assert decoded["task_complete"] is False


@pytest.mark.harbor
def test_terminus_refuses_the_answer_for_a_raw_newline_in_a_string() -> None:
    done = subprocess.run(
        [str(require_harbor()), "-c", PARSE],
        input=ANSWER,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    parsed = json.loads(done.stdout)
    assert "Invalid control character" in parsed["error"]
    assert parsed["commands"] == []
