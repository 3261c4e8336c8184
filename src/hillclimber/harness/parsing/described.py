"""Calls written without JSON: described in words, or in Python call syntax.

Some small models answer "Using write_file tool with arguments: path=hello.txt, content=Hello"
or `write_file(path="x", content="y")`. Prose is full of look-alikes ("use the following: …",
`open("hello.txt", "w")`), so these forms count only with an offered tool's name, and the
worded one only with at least one of that tool's argument names.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from hillclimber.harness.acting.tools import ToolSpec
from hillclimber.harness.parsing.decode import (
    MAX_STARTS,
    Decoded,
    decode_text,
    fix_escapes,
    loads,
)
from hillclimber.harness.parsing.names import find_tool, parameter

_DESCRIBED = re.compile(
    r"\b(?:using|use|call|calling|invoke|invoking|execute|executing|tool|action|function)\b"
    r"[ \t:=]*(?:the\s+)?[`'\"*]*(?P<name>[A-Za-z_][\w-]*)[`'\"*]*(?:\s+(?:tool|function)\b)?"
    r"[ \t]*,?\s*(?:with\b\s*(?:the\s+)?)?"
    r"(?:(?:arguments|args|parameters|params|action[ _]input|input)\b\s*[:=]?|[:=])?[ \t]*\n?",
    re.I,
)
_KEY = re.compile(r"[ \t]*[`*]*(?P<key>[A-Za-z_]\w*)[`*]*[ \t]*[=:][ \t]*")
_SEPARATOR = re.compile(r"[ \t]*(?:[,;]|\band\b)?\s*")
_UNQUOTED_END = re.compile(r"(?=[,;][ \t]*[A-Za-z_]\w*[ \t]*[=:])|\n|\Z")
_FENCE_OPENING = re.compile(r"\A\s*```[\w-]*[ \t]*\n")
_NO_ARGUMENTS = re.compile(r"(?:\{\s*\}|none|no arguments|\(\s*\))", re.I)
_CALL_HEAD = re.compile(r"(?<![\w.])((?:functions\.)?[A-Za-z_][\w-]*)\s*\(")


def descriptive(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """Calls in words: `Using write_file tool with arguments: path=hello.txt, content=Hello`,
    `Tool: read_file` / `Arguments: {…}`, `Action: …` / `Action Input: {…}`. Only the offered
    tools and their arguments count: prose is full of "use the following: …", which is no call
    to a tool named `following`."""
    pos = 0
    while match := _DESCRIBED.search(text, pos):
        pos = match.start() + 1  # overlapping: "calling tool write_file" has two heads
        if (tool := find_tool(match.group("name"), tools)) is None:
            continue
        rest = _FENCE_OPENING.sub("", text[match.end() :], count=1)
        if rest.startswith(("{", "[")):
            arguments: Any = decode_text(rest)
        elif _NO_ARGUMENTS.match(rest):
            arguments = {}
        else:
            pairs = _pairs(rest)
            arguments = pairs if any(parameter(tool, k) for k in pairs) else None
        if arguments is not None:
            yield Decoded({"name": match.group("name"), "arguments": arguments}, "descriptive")


def _pairs(text: str) -> dict[str, str]:
    """`key=value, key="value"` (or `key: value`); an unquoted value runs to the next
    `, key=` or the end of the line, so `content=Hello, world!` keeps its comma."""
    pairs: dict[str, str] = {}
    pos = 0
    while key := _KEY.match(text, pos):
        pos = key.end()
        quoted = _quoted(text, pos) if text[pos : pos + 1] in ("'", '"', "`") else None
        if quoted is not None:
            value, pos = quoted
        else:
            end = _UNQUOTED_END.search(text, pos)
            stop = end.start() if end else len(text)
            value, pos = text[pos:stop].strip(), stop
        pairs[key.group("key")] = value
        pos = _SEPARATOR.match(text, pos).end()  # type: ignore[union-attr]  # always matches
    return pairs


def _quoted(text: str, start: int) -> tuple[str, int] | None:
    """A quoted value at `start`: its text (escapes decoded) and where it ends."""
    quote = text[start]
    match = re.compile(rf"{quote}((?:[^{quote}\\]|\\.)*){quote}", re.S).match(text, start)
    if match is None:
        return None
    if quote == '"':
        value = loads(fix_escapes(match.group(0)))
        return (value if isinstance(value, str) else match.group(1)), match.end()
    return match.group(1).replace(f"\\{quote}", quote), match.end()


def call_syntax(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """`write_file(path="x", content="y")`: Python call syntax of an offered tool, literals
    only; each `)` after the head is tried until the call parses."""
    for match in _CALL_HEAD.finditer(text):
        if find_tool(match.group(1), tools) is None:
            continue
        close = match.end() - 1
        for _ in range(MAX_STARTS):
            if (close := text.find(")", close + 1)) < 0:
                break
            arguments = _literal_call(text[match.end() : close])
            if arguments is not None:
                yield Decoded({"name": match.group(1), "arguments": arguments}, "call_syntax")
                break


def _literal_call(inner: str) -> dict[str, Any] | list[Any] | None:
    """The arguments of `f(inner)` when they are all literals: keywords, or positional in
    order, or the one dict given; None for anything else (names, calls, both kinds mixed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # `"\d"` in a literal warns; the model meant it
        try:
            node = ast.parse(f"f({inner})", mode="eval").body
            if not isinstance(node, ast.Call):
                return None
            positional = [ast.literal_eval(a) for a in node.args]
            keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            return None
    if len(positional) == 1 and not keywords and isinstance(positional[0], dict):
        return positional[0]
    if positional and keywords:
        return None
    return keywords or positional


_BARE = re.compile(r"\A[\s`'\"\[\]*]*(?P<name>[A-Za-z_][\w-]*)[\s`'\"\[\].!*]*\Z")


def bare_name(text: str, tools: Sequence[ToolSpec]) -> Iterator[Decoded]:
    """An answer that is only the name of a tool that takes no arguments (`task_complete`,
    `["verify_progress"]`): the 0.5B, decoding freely, often answers so, and it is that call."""
    match = _BARE.match(text)
    if match and (tool := find_tool(match.group("name"), tools)) is not None and not tool.required:
        yield Decoded({"name": match.group("name"), "arguments": {}}, "bare_name")
