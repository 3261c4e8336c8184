"""Asking the model the same step again with another tool (and file): the turn's own request,
its answer constrained to a call of that tool on that file where the back end can constrain
answers, or the ask said in words where it cannot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hillclimber.errors import ContextExceeded
from hillclimber.harness.acting.tools import pinned_schema
from hillclimber.harness.asking import Asker
from hillclimber.harness.prompting.templates import Prompts
from hillclimber.models.base import CompletionRequest, OutputConstraint


@dataclass(frozen=True)
class Target:
    """What another candidate is asked for: a tool, and for the file tools perhaps the file
    (the answer's schema then fixes its path)."""

    tool: str
    path: str | None = None

    def words(self, say: Prompts) -> str:
        """The ask in words, for back ends that cannot constrain the answer."""
        if self.path:
            return say("feedback.climbing.use_on", tool=self.tool, path=self.path)
        return say("feedback.climbing.use", tool=self.tool)


def ask_alternative(
    asker: Asker, request: CompletionRequest, target: Target, turn: int
) -> str | None:
    """The answer to `request` with the target's tool (and file); None when it no longer
    fits the window."""
    if asker.constrains:
        schema = pinned_schema(target.tool, target.path)
        update: dict[str, Any] = {"constraint": OutputConstraint(json_schema=schema)}
    else:
        messages = list(request.messages)
        last = messages[-1]
        messages[-1] = last.model_copy(
            update={"content": f"{last.content} {target.words(asker.prompts)}"}
        )
        update = {"messages": messages}
    try:
        return asker.complete(request.model_copy(update=update), role="candidate", turn=turn)
    except ContextExceeded:
        return None
