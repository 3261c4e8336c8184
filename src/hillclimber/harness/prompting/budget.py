"""The context budget: every prompt fits the model's window with room for the answer.

A prompt is built from sections (system rules, task, plan step, previous steps, the latest
output, feedback). When the whole is too large, the least useful section is shrunk first, again
and again, until it fits. The task's instruction is kept whole where it fits; when it must be
cut, lines that name paths, files and formats (what the tests check) are kept and the rest goes
first, marked `...[truncated]`. Sizes are measured in the model's tokens where it has a
tokenizer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hillclimber.models.base import Message, ModelProfile

TRUNCATED = "...[truncated]"
SAFETY_TOKENS = 32
"""Slack for the chat template's own tokens and estimate error."""


@dataclass
class Section:
    name: str
    text: str
    priority: int
    """Higher is kept longer; the lowest-priority shrinkable section is cut first."""
    min_chars: int = 0
    """Never cut below this (0: the section may disappear)."""
    cut: Callable[[str, int], str] | None = None
    """How to shorten to about n chars; default: keep the head and tail."""
    title: str | None = None

    def render(self) -> str:
        if not self.text:
            return ""
        return f"{self.title}:\n{self.text}" if self.title else self.text


class BudgetExceeded(Exception):
    """Even with every section at its minimum the prompt does not fit."""


def cut_middle(text: str, n: int) -> str:
    """Keep the head and tail of `text` in about `n` characters."""
    if len(text) <= n:
        return text
    if n < 40:
        return text[: max(n, 0)]
    head = n * 2 // 3
    tail = n - head - len(TRUNCATED) - 2
    return text[:head] + f"\n{TRUNCATED}\n" + (text[-tail:] if tail > 0 else "")


def cut_tail(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(n - len(TRUNCATED) - 1, 0)] + "\n" + TRUNCATED


_KEY = re.compile(
    r"/app/|/[\w.-]+/|\b[\w.-]+\.(?:txt|csv|json|py|sh|c|h|md|log|db|ini|env|yaml|yml|toml|"
    r"html|xml|sql|ppm|out|conf|cfg)\b|`[^`]+`|\bexact|\bformat|\bmust\b|\bonly\b",
    re.IGNORECASE,
)


def cut_instruction(text: str, n: int) -> str:
    """Shorten an instruction to about `n` chars, dropping its least useful lines first.

    Lines that name paths, files, formats, numbers or code keep their place; plain prose goes
    first, from the end. Kept lines stay in their original order.
    """
    if len(text) <= n:
        return text
    lines = text.splitlines()
    scored = sorted(
        range(len(lines)),
        key=lambda i: (len(_KEY.findall(lines[i])) > 0, -i),
    )
    keep = set(range(len(lines)))
    size = len(text)
    for index in scored:
        if size <= n - len(TRUNCATED) - 1:
            break
        keep.discard(index)
        size -= len(lines[index]) + 1
    kept = "\n".join(lines[i] for i in sorted(keep))
    if len(kept) > n - len(TRUNCATED) - 1:
        kept = kept[: max(n - len(TRUNCATED) - 1, 0)]
    return kept + "\n" + TRUNCATED


@dataclass
class PromptBudget:
    profile: ModelProfile
    answer_tokens: int
    safety: int = SAFETY_TOKENS
    shrinks: int = field(default=0)
    """How many times a section had to be shrunk (for the results)."""

    @property
    def limit(self) -> int:
        """Tokens the prompt may use."""
        return self.profile.context_window - self.answer_tokens - self.safety

    def tokens(self, messages: Sequence[Message]) -> int:
        return self.profile.count_messages(messages)

    def fit(self, system: str, sections: list[Section]) -> list[Message]:
        """[system, user] messages within the limit, shrinking sections as needed."""
        sections = [s for s in sections if s.text]
        while True:
            messages = self._messages(system, sections)
            over = self.tokens(messages) - self.limit
            if over <= 0:
                return messages
            candidates = [s for s in sections if len(s.text) > s.min_chars]
            if not candidates:
                raise BudgetExceeded(
                    f"prompt needs {self.tokens(messages)} tokens, the limit is {self.limit}"
                )
            victim = min(candidates, key=lambda s: s.priority)
            chars_per_token = max(
                len(victim.text) / max(self.profile.count_tokens(victim.text), 1), 1.0
            )
            target = max(int(len(victim.text) - (over + 8) * chars_per_token), victim.min_chars)
            if target >= len(victim.text):
                target = len(victim.text) - 1
            cut = victim.cut or cut_middle
            victim.text = cut(victim.text, target) if target > 0 else ""
            if len(victim.text) > target + len(TRUNCATED) + 2:
                victim.text = victim.text[:target]  # a cut function that did not shorten enough
            self.shrinks += 1
            sections = [s for s in sections if s.text]

    def _messages(self, system: str, sections: Sequence[Section]) -> list[Message]:
        body = "\n\n".join(s.render() for s in sections if s.text)
        return [Message(role="system", content=system), Message(role="user", content=body)]


__all__ = [
    "TRUNCATED",
    "BudgetExceeded",
    "PromptBudget",
    "Section",
    "cut_instruction",
    "cut_middle",
    "cut_tail",
]
