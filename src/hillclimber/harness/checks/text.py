"""An instruction read as sentences, each with the code it quotes and the block of text that
follows it when it ends with a colon ("whose only line is exactly:" then the line)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hillclimber.harness.instruction import Where, named_paths

_FENCE = re.compile(r"```([^\n]*)\n(.*?)\n?```", re.DOTALL)
_CODE = re.compile(r"`([^`\n]+)`")
_BULLET = re.compile(r"[-*•]\s|\d+[.)]\s")
_CONTENT = re.compile(
    r"(?:exactly|these (?:\w+ )?lines|this line|this text|only line is|contents?|containing)\s*:$",
    re.I,
)
_SPLIT = re.compile(r"(?<=[.!?;])\s+(?=[A-Z`/(\"'])|\n\s*\n|\n(?=\s*[-*•]\s)")


@dataclass
class Sentence:
    text: str
    """The sentence with its code spans as written."""
    code: list[str] = field(default_factory=list)
    """Its inline code spans (`…`), in order."""
    block: str | None = None
    """The text quoted after it (a fence, or a paragraph after a colon)."""
    language: str = ""
    """The fence's language tag (`json`, `bash`), if it has one."""
    paths: list[str] = field(default_factory=list)
    """The sandbox paths it names."""

    @property
    def lower(self) -> str:
        return self.text.lower()

    @property
    def quotes_content(self) -> bool:
        """Whether its block is the text to write ("whose only line is exactly:", "with these
        lines:"), not an example of a form."""
        return self.block is not None and _CONTENT.search(" ".join(self.text.split())) is not None

    def has(self, *words: str) -> bool:
        """Whether it holds any of `words` as whole words (case-insensitive)."""
        return any(re.search(rf"\b{re.escape(w)}\b", self.lower) for w in words)


def sentences(instruction: str, workdir: str, where: Where | None = None) -> list[Sentence]:
    """The instruction's sentences, in order, with their code, paths (`named_paths`) and
    quoted blocks."""
    parts: list[Sentence] = []
    last = 0
    for fence in _FENCE.finditer(instruction):
        parts += _prose(instruction[last : fence.start()], workdir, where)
        if parts and parts[-1].block is None:
            parts[-1].block = fence.group(2).strip("\n")
            parts[-1].language = fence.group(1).strip().lower()
        last = fence.end()
    parts += _prose(instruction[last:], workdir, where)
    return parts


def _prose(text: str, workdir: str, where: Where | None) -> list[Sentence]:
    found: list[Sentence] = []
    for raw in _SPLIT.split(text):
        chunk = raw.strip()
        if not chunk:
            continue
        quoted = not _BULLET.match(chunk)  # a list after a colon is more sentences
        if found and found[-1].text.endswith(":") and found[-1].block is None and quoted:
            found[-1].block = chunk  # a paragraph quoted after a colon
            continue
        paths = named_paths(chunk, workdir, where)
        found.append(Sentence(chunk, _CODE.findall(chunk), paths=paths))
    return found
