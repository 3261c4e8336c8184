"""Tool calls out of a small model's raw answer.

Small models rarely write a call exactly as asked: the 0.5B model never writes `<tool_call>`
tags, the 1.5B sometimes fences the JSON, long file contents come back with unescaped regex
backslashes or cut off by max_tokens, and some describe the call in words. The forgiving
parser tries a list of strategies in order (`decode.py` for the JSON forms, `described.py`
for the others), each proposing decoded values; the first value that validates as a call to
one of the offered tools wins. Otherwise the first specific failure (unknown tool, bad
arguments) is returned, else a JSON error or "no call"; each failure's `feedback()` tells the
model what to fix.

With `forgiving=False` it is the `naive` baseline's parser: `json.loads` of the whole answer,
of the inside of one `<tool_call>` tag or of a single fenced block, exact names, no help.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from hillclimber.harness.acting.tools import ToolCall, ToolSpec
from hillclimber.harness.parsing.decode import (
    DECODER,
    FENCE,
    Decoded,
    Strategy,
    bare_json,
    decode_text,
    embedded,
    fenced,
    function_tag,
    objects,
    repaired,
    salvaged,
    tagged,
    unclosed_tag,
)
from hillclimber.harness.parsing.described import bare_name, call_syntax, descriptive
from hillclimber.harness.parsing.names import find_tool, parameter
from hillclimber.harness.parsing.outcome import (
    Parsed,
    ParsedCall,
    ParseFailure,
    ParseFailureReason,
)
from hillclimber.text import clip

STRATEGIES: tuple[Strategy, ...] = (
    tagged,
    unclosed_tag,
    function_tag,
    bare_json,
    fenced,
    embedded,
    salvaged,
    repaired,
    descriptive,
    call_syntax,
    bare_name,
)
"""Tried in this order; the first candidate that validates wins."""


def parse_tool_call(text: str, tools: Sequence[ToolSpec], *, forgiving: bool = True) -> Parsed:
    """The first valid call in `text` to one of `tools`, or why there is none."""
    strict = _parse_strict(text, tools)
    if not forgiving:
        return strict
    outcome = _parse_forgiving(text, tools)
    if isinstance(outcome, ParsedCall):
        same = isinstance(strict, ParsedCall) and strict.call == outcome.call
        return replace(outcome, repaired=not same)
    return outcome


# -- the strict parser (the naive baseline) ----------------------------------------------------

_TAG = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)


def _parse_strict(text: str, tools: Sequence[ToolSpec]) -> Parsed:
    candidates = [("bare_json", text.strip())]
    if tag := _TAG.search(text):
        candidates.append(("tagged", tag.group(1).strip()))
    if len(fences := FENCE.findall(text)) == 1:
        candidates.append(("fenced", fences[0].strip()))
    for shape, candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        return _validate_strict(value, shape, tools)
    return _no_call(text)


def _validate_strict(value: Any, shape: str, tools: Sequence[ToolSpec]) -> Parsed:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return ParseFailure(ParseFailureReason.NO_VALID_FORMAT, _NO_NAME)
    tool = next((t for t in tools if t.name == value["name"]), None)
    if tool is None:
        return _unknown(value["name"])
    arguments = value.get("arguments", {})
    if not isinstance(arguments, dict):
        return ParseFailure(
            ParseFailureReason.MISSING_REQUIRED_FIELDS, '"arguments" must be a JSON object'
        )
    return _validated(tool, arguments, shape, strict=True)


# -- the forgiving parser ----------------------------------------------------------------------


def _parse_forgiving(text: str, tools: Sequence[ToolSpec]) -> Parsed:
    text = _drop_thinking(text)
    first_failure: ParseFailure | None = None
    for strategy in STRATEGIES:
        for candidate in strategy(text, tools):
            outcome = _interpret(candidate, tools)
            if isinstance(outcome, ParsedCall):
                return outcome
            first_failure = first_failure or outcome
    if first_failure is None:
        return _no_call(text)
    if first_failure.reason is ParseFailureReason.MISSING_REQUIRED_FIELDS and _cut_off(text):
        return replace(first_failure, detail=f"{first_failure.detail} ({_CUT_OFF})")
    return first_failure


def _drop_thinking(text: str) -> str:
    """Reasoning models think first; a draft call inside the thoughts is not the answer."""
    _, closed, after = text.rpartition("</think>")
    return after if closed else text


# -- from a decoded value to a validated call --------------------------------------------------

_NAME_KEYS = ("name", "tool", "tool_name", "function", "function_name", "action")
_ARGUMENT_KEYS = (
    "arguments",
    "args",
    "parameters",
    "params",
    "input",
    "action_input",
    "tool_input",
    "kwargs",
)
_WRAPPER_KEYS = ("tool_call", "function_call", "function", "call", "tool", "tool_calls")
_META_KEYS = {"type", "id", "index", "call_id"}


def _interpret(candidate: Decoded, tools: Sequence[ToolSpec]) -> Parsed | None:
    """The call in a decoded value, validated; None when the value holds no call at all."""
    found = _unwrap(candidate.value)
    if found is None:
        return None
    call, nested = found
    name_key = next(k for k in _NAME_KEYS if isinstance(call.get(k), str))
    tool = find_tool(call[name_key], tools)
    if tool is None:
        return _unknown(call[name_key])
    rest = {k: v for k, v in call.items() if k != name_key and k not in _META_KEYS}
    args_key = next((k for k in _ARGUMENT_KEYS if k in rest), None)
    given = rest.pop(args_key) if args_key else rest
    tool, arguments_given = _named_as_command(tool, _as_arguments(given), tools)
    arguments = _map_arguments(tool, arguments_given, rest if args_key else {})
    return _validated(tool, arguments, "nested" if nested else candidate.shape, strict=False)


def _named_as_command(
    tool: ToolSpec, given: dict[str, Any] | list[Any], tools: Sequence[ToolSpec]
) -> tuple[ToolSpec, dict[str, Any] | list[Any]]:
    """A command that is another offered tool's bare name, that tool's arguments beside it
    (`run_command` with `{"command": "read_file", "path": "/app/numbers.txt"}`, the 0.5B):
    that tool's call, where the shell would only say `read_file: command not found`."""
    command = given.get("command") if isinstance(given, dict) else None
    if tool.name != "run_command" or not isinstance(command, str) or len(command.split()) != 1:
        return tool, given
    other = find_tool(command, tools)
    if other is None or other.name == tool.name:
        return tool, given
    assert isinstance(given, dict)
    return other, {k: v for k, v in given.items() if k != "command"}


def _unwrap(value: Any, depth: int = 0) -> tuple[dict[str, Any], bool] | None:
    """The innermost object with a name: `{"tool_call": {…}}`, OpenAI's `{"function": {…}}`
    and `{"tool_calls": [{…}]}`, a list of calls (the first)."""
    if depth > 4:
        return None
    if isinstance(value, list):
        for item in value:
            if (found := _unwrap(item, depth + 1)) is not None:
                return found[0], True
        return None
    if not isinstance(value, dict):
        return None
    if any(isinstance(value.get(k), str) for k in _NAME_KEYS):
        return value, depth > 0
    for key in _WRAPPER_KEYS:
        if isinstance(value.get(key), dict | list) and (found := _unwrap(value[key], depth + 1)):
            return found[0], True
    return None


def _as_arguments(given: Any) -> dict[str, Any] | list[Any]:
    """Arguments as an object or a positional list; a JSON string is decoded first."""
    if isinstance(given, str):
        decoded = decode_text(given)
        return decoded if isinstance(decoded, dict | list) else [given]
    if isinstance(given, dict | list):
        return given
    return [] if given is None else [given]


def _map_arguments(
    tool: ToolSpec, given: dict[str, Any] | list[Any], extra: dict[str, Any]
) -> dict[str, Any]:
    """To the tool's parameter names: positional in order, exact names first, then case
    variants and aliases (`p`→`path`); arguments beside `name` fill gaps; unknown ones drop."""
    if isinstance(given, list) and _argv(tool, given):
        given = {tool.params[0]: given}  # ["python3", "-c", "…"]: one command, not three values
    if isinstance(given, list):
        given = dict(zip(tool.params, given, strict=False))
    arguments: dict[str, Any] = {}
    for source in (given, extra):
        exact = {k: v for k, v in source.items() if k in tool.params}
        for key, value in [*exact.items(), *source.items()]:
            target = parameter(tool, key)
            if target is not None and target not in arguments and value is not None:
                arguments[target] = _coerce(tool, target, value)
    return arguments


def _argv(tool: ToolSpec, given: list[Any]) -> bool:
    """A list of words given to a tool that takes one command."""
    words = all(isinstance(word, str) for word in given) and len(given) > len(tool.params)
    return words and tool.params[:1] == ["command"]


_CONTROLS = str.maketrans({"\b": "\\b", "\f": "\\f"})
r"""JSON's `\b` and `\f` decode to a backspace and a form feed, which no command or file
means: the model wrote a regex's `\b` (`grep -oP '\bword\b'`) without doubling it."""


def _coerce(tool: ToolSpec, name: str, value: Any) -> Any:
    r"""Text fields take text: an object written as `content` becomes its JSON, a list of words
    given as a `command` the command they make; a backspace or form feed is the `\b` or `\f`
    the model meant. Numbers given as strings for int fields are coerced by pydantic's lax
    mode."""
    if isinstance(value, str):
        return value.translate(_CONTROLS)
    annotation = tool.args.model_fields[name].annotation
    wants_text = str in (annotation, *getattr(annotation, "__args__", ()))
    if name == "command" and isinstance(value, list) and all(isinstance(w, str) for w in value):
        return shlex.join(value)
    if wants_text and not isinstance(value, str):
        indent = 2 if isinstance(value, dict | list) else None
        return json.dumps(value, indent=indent, ensure_ascii=False)
    return value


def _validated(tool: ToolSpec, arguments: dict[str, Any], shape: str, *, strict: bool) -> Parsed:
    try:
        checked = tool.args.model_validate(arguments, strict=strict)
    except ValidationError as err:
        return ParseFailure(ParseFailureReason.MISSING_REQUIRED_FIELDS, _schema_error(tool, err))
    call = ToolCall(name=tool.name, arguments=checked.model_dump(exclude_unset=True))
    return ParsedCall(call, shape, repaired=False)


def _schema_error(tool: ToolSpec, err: ValidationError) -> str:
    errors = err.errors()
    missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing" and e["loc"]]
    if missing:
        return f"{tool.name} is missing required argument(s): {', '.join(missing)}"
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    if first["type"] == "extra_forbidden":
        return f"{tool.name} has no argument {where!r}; it takes {tool.signature()}"
    return f"{tool.name} argument {where!r}: {first['msg']}"


def _unknown(name: str) -> ParseFailure:
    return ParseFailure(
        ParseFailureReason.UNKNOWN_TOOL, f"unknown tool {clip(name, 60)!r}", name=name
    )


# -- why nothing parsed ------------------------------------------------------------------------

_CALL_HINT = re.compile(
    r"<\s*/?\s*tool_?call|\{\s*[\"']?(?:name|tool|tool_name|function|tool_calls?|function_call"
    r"|action)[\"']?\s*:",
    re.I,
)
_NO_NAME = 'found JSON but no "name" field: no tool call'
_CUT_OFF = "the answer was cut off before the call ended: write less per call"


def _no_call(text: str) -> ParseFailure:
    """Why nothing parsed: a broken call (with the JSON error) or no call at all."""
    if not text.strip():
        return ParseFailure(ParseFailureReason.NO_VALID_FORMAT, "the answer was empty")
    if _CALL_HINT.search(text):
        return ParseFailure(ParseFailureReason.JSON_PARSE_ERROR, _json_error(_call_span(text)))
    if any(isinstance(v, dict) for _, v in objects(text)):
        return ParseFailure(ParseFailureReason.NO_VALID_FORMAT, _NO_NAME)
    return ParseFailure(ParseFailureReason.NO_VALID_FORMAT, "no tool call found in the answer")


def _call_span(text: str) -> str:
    """The text from the `{` where the call seems to begin."""
    hint = _CALL_HINT.search(text)
    brace = text.find("{", hint.start() if hint else 0)
    return text[brace:] if brace >= 0 else ""


def _json_error(span: str) -> str:
    if not span:
        return "no JSON object after the tag"
    try:
        DECODER.raw_decode(span)
    except json.JSONDecodeError as err:
        if err.msg.startswith("Unterminated string") or err.pos >= len(span.rstrip()) - 1:
            return _CUT_OFF
        return f"{err.msg} at line {err.lineno} column {err.colno}"
    return "the JSON does not hold a call"


def _cut_off(text: str) -> bool:
    """Whether the call ends unfinished (max_tokens hit in the middle of it)."""
    return _CALL_HINT.search(text) is not None and _json_error(_call_span(text)) == _CUT_OFF
