"""What reading an answer gives: a valid call (`ParsedCall`), or why there is none
(`ParseFailure`) with the message that tells the model what to fix."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from hillclimber.harness.acting.tools import ToolCall, ToolSpec
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.text import clip

FEEDBACK_CHARS = 400
_DETAIL = "\x00"


class ParseFailureReason(StrEnum):
    NO_VALID_FORMAT = "no_valid_format"
    JSON_PARSE_ERROR = "json_parse_error"
    MISSING_REQUIRED_FIELDS = "missing_required_fields"
    """Also any other argument that does not fit the tool's schema (named in `detail`)."""
    UNKNOWN_TOOL = "unknown_tool"
    SKILL_AS_TOOL = "skill_as_tool"
    """An unknown tool named like one of the example approaches shown (skills)."""


@dataclass(frozen=True)
class ParsedCall:
    call: ToolCall
    """Validated: the name is one of the offered tools, the arguments fit its schema."""
    shape: str
    """The form it came in: tagged, unclosed_tag, bare_json, fenced, function_tag, embedded,
    nested, salvaged, repaired, descriptive, call_syntax."""
    repaired: bool
    """True when the strict (`naive`) parser would not have produced this same call."""


@dataclass(frozen=True)
class ParseFailure:
    reason: ParseFailureReason
    detail: str
    """One line: what exactly was wrong."""
    name: str | None = None
    """The tool name the answer called, when that name was the trouble."""

    def as_skill(self, skills: Collection[str]) -> ParseFailure:
        """This failure, or, when it called a tool named like one of `skills` (ids of the
        skills shown), the failure that says it is not a tool."""
        if self.reason is not ParseFailureReason.UNKNOWN_TOOL or self.name is None:
            return self
        if name_key(self.name) not in {name_key(skill) for skill in skills}:
            return self
        detail = f"{clip(self.name, 60)!r} is one of the example approaches, not a tool"
        return ParseFailure(ParseFailureReason.SKILL_AS_TOOL, detail, self.name)

    def feedback(self, tools: Sequence[ToolSpec], prompts: Prompts | None = None) -> str:
        """The message fed back to the model (`feedback.toml`, [parse]): what was wrong, the
        format and the tools, in at most FEEDBACK_CHARS: the tools' signatures where they leave
        the detail 80 chars, else their names; the detail is what gets clipped."""
        say = prompts or shipped()
        said = say(f"feedback.parse.{self.reason.value}", detail=_DETAIL)
        lead, marked, tail = said.partition(_DETAIL)
        detail = clip(self.detail, 160) if marked else ""  # a template may leave it out
        for listing in ([t.signature() for t in tools], [t.name for t in tools]):
            rest = f"{tail} " + say("feedback.parse.format", tools=", ".join(listing))
            room = FEEDBACK_CHARS - len(lead) - len(rest)
            if room >= min(len(detail), 80):
                break
        return clip(lead + clip(detail, max(room, 0)) + rest, FEEDBACK_CHARS)


Parsed = ParsedCall | ParseFailure


def name_key(name: str) -> str:
    """A name as written any way (`Append_Line`, `append line`) → `append-line`."""
    return "-".join(name.lower().replace("_", " ").replace("-", " ").split())
