"""Values decoded from a raw answer that may hold a call: the JSON the model wrote, wherever
and however it is.

Each strategy here proposes decoded values from one form: `<tool_call>` tags (closed or not),
Llama's `<function=…>` tags, the bare answer, fenced blocks, JSON with prose around it, JSON
with invalid escapes (unescaped regex backslashes) and JSON cut off by max_tokens. They only
decode; which value is a call to which tool is decided by the parser (`parse.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import json_repair

from hillclimber.harness.acting.tools import ToolSpec


@dataclass(frozen=True)
class Decoded:
    value: Any
    """A decoded value that may hold a call."""
    shape: str


Strategy = Callable[[str, Sequence[ToolSpec]], Iterator[Decoded]]
"""Proposes candidates from the answer; only the loose forms look at the tool names."""

FENCE = re.compile(r"```[ \t]*[\w+-]*[^\n]*\n(.*?)(?:```|\Z)", re.S)
DECODER = json.JSONDecoder(strict=False)  # strict=False: raw newlines/tabs inside strings
MAX_STARTS = 200
"""At most this many starts are tried in one answer: a bound on work for looping output."""

_ANY_TAG = re.compile(r"<\s*tool_?calls?\s*>(.*?)<\s*/\s*tool_?calls?\s*>", re.S | re.I)
_OPEN_TAG = re.compile(r"<\s*tool_?calls?\s*>(?!.*<\s*/\s*tool_?calls?\s*>)(.*)", re.S | re.I)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>(.*?)(?:</function>|\Z)", re.S)
_OPENING = re.compile(r"[{\[]")
_CALL_START = re.compile(r"[\[{]\s*[\"']?(?:name|tool|function|tool_calls?|action)\b", re.I)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.|\Z)", re.S)
_JSON_ESCAPES = set('"\\/nrt')
_MAX_NESTING = 32


# -- decoding ----------------------------------------------------------------------------------


def loads(text: str) -> Any:
    """Exact JSON (raw control characters inside strings allowed), or None."""
    try:
        return DECODER.decode(text.strip())
    except json.JSONDecodeError:
        return None


def objects(text: str) -> Iterator[tuple[int, Any]]:
    """Each complete JSON object or array in `text`, in order, with what follows ignored.

    `raw_decode` stops at the end of the first complete value, so this is the shortest prefix
    from a `{` that parses — never "first `{` to last `}`". A failed start moves on to the next.
    """
    pos, tries = 0, 0
    while tries < MAX_STARTS and (match := _OPENING.search(text, pos)):
        tries += 1
        try:
            value, end = DECODER.raw_decode(text, match.start())
        except json.JSONDecodeError:
            pos = match.start() + 1
            continue
        yield match.start(), value
        pos = end


def fix_escapes(text: str) -> str:
    r"""Invalid JSON escapes (`\d`, `\s`, `\.` in regexes, `\$` in shell) become literal
    backslashes. Where the model did not escape its backslashes, `\b` and `\f` are regex or
    printf text too, not control characters; a lone backslash at a cut-off end is dropped.
    Text without an invalid escape comes back unchanged."""

    def literal(match: re.Match[str]) -> str:
        escape = match.group(1)
        if not escape:
            return ""
        if escape in _JSON_ESCAPES or len(escape) == 5:
            return match.group(0)
        return "\\\\" + escape

    return _ESCAPE.sub(literal, text)


def _has_bad_escape(text: str) -> bool:
    return any(
        m.group(1) not in _JSON_ESCAPES and len(m.group(1)) != 5 for m in _ESCAPE.finditer(text)
    )


def decode_text(text: str) -> Any:
    """A JSON object or list in a string (OpenAI's `"arguments": "{…}"`), however broken."""
    if (value := loads(text)) is not None:
        return value
    for _, value in objects(fix_escapes(text)):
        return value
    return _repair(text) if "{" in text or "[" in text else None


def _repair(text: str) -> Any:
    """`json_repair` closes what was cut off (max_tokens mid-`content`), quotes bare keys,
    turns single quotes into double. It is a heuristic: it must never crash a trial, and it
    takes seconds on deeply nested garbage (a model looping `{[{[…`), which is no call."""
    if _nesting(text) > _MAX_NESTING:
        return None
    try:
        return json_repair.repair_json(fix_escapes(text), return_objects=True, skip_json_loads=True)
    except Exception:  # a third-party heuristic on arbitrary text
        return None


def _nesting(text: str) -> int:
    """The deepest bracket nesting, strings not told apart (a bound, not a parse)."""
    depth = deepest = 0
    for char in text:
        if char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth = max(depth - 1, 0)
    return deepest


# -- the strategies, in the parser's order -----------------------------------------------------


def tagged(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """`<tool_call>{…}</tool_call>` (also `<toolcall>`, `<tool_calls>`, any case)."""
    for match in _ANY_TAG.finditer(text):
        if (value := loads(match.group(1))) is not None:
            yield Decoded(value, "tagged")


def unclosed_tag(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """`<tool_call>{…}` with no closing tag: the first complete value after the tag."""
    if match := _OPEN_TAG.search(text):
        for _, value in objects(match.group(1)):
            yield Decoded(value, "unclosed_tag")
            return


def function_tag(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """Llama 3.x: `<function=write_file>{"path": …}</function>`."""
    for match in _FUNCTION_TAG.finditer(text):
        yield Decoded({"name": match.group(1), "arguments": match.group(2)}, "function_tag")


def bare_json(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """The whole answer is the JSON call (the 0.5B model never writes tags)."""
    if (value := loads(text)) is not None:
        yield Decoded(value, "bare_json")


def fenced(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """```json blocks, or ``` without a language; an unclosed last fence too."""
    for block in FENCE.findall(text):
        if (value := loads(block)) is not None:
            yield Decoded(value, "fenced")


def embedded(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """JSON with explanations before or after it, or trailing junk (`}}`, `<|im_end|>`)."""
    for _, value in objects(text):
        yield Decoded(value, "embedded")


def salvaged(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """Bad escapes fixed, then the first complete value of each span."""
    for span in _spans(text):
        if _has_bad_escape(span):
            for _, value in objects(fix_escapes(span)):
                yield Decoded(value, "salvaged")
                break


def repaired(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """Each span as `json_repair` completes it (a call cut off by max_tokens)."""
    for span in _spans(text):
        if isinstance(value := _repair(span), dict | list) and value:
            yield Decoded(value, "repaired")


def _spans(text: str) -> list[str]:
    """Where a broken call may be: inside tags and fences, and from each call-like `{` on."""
    spans = [m.group(1) for m in _ANY_TAG.finditer(text)]
    if match := _OPEN_TAG.search(text):
        spans.append(match.group(1))
    spans += FENCE.findall(text)
    spans += [text[m.start() :] for m in _CALL_START.finditer(text)][:5]
    if (brace := text.find("{")) >= 0:
        spans.append(text[brace:])
    return list(dict.fromkeys(s.strip() for s in spans if "{" in s or "[" in s))
