"""Asking the model: one request per turn, built to fit, constrained to the tool-call schema
where the back end can, at a higher temperature when the model is stuck; a back end that still
reports an overflow gets a smaller prompt. Every answer is counted and emitted."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hillclimber.errors import AgentTimeout, ContextExceeded, ModelTimeout
from hillclimber.harness.acting.tools import ToolSpec, call_schema
from hillclimber.harness.config import Asking
from hillclimber.harness.parsing.outcome import ParseFailure
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.harness.prompting.budget import BudgetExceeded
from hillclimber.harness.prompting.prompters import ConversationPrompter, MicroPrompter, TurnView
from hillclimber.harness.prompting.templates import Prompts
from hillclimber.harness.recording.events import EventBus, ModelAnswered, PromptShrunk
from hillclimber.models.base import CompletionRequest, Message, Model, OutputConstraint

SHRINK_ATTEMPTS = 3


@dataclass(frozen=True)
class Reply:
    """A model's reply to one request: its text, and what was asked."""

    text: str
    request: CompletionRequest
    """What was asked: a climbing step asks the same again for other tools."""


class Asker:
    def __init__(
        self,
        settings: Asking,
        model: Model,
        prompter: MicroPrompter | ConversationPrompter,
        events: EventBus,
        *,
        remaining: Callable[[], float] = lambda: math.inf,
    ) -> None:
        self.settings = settings
        self.model = model
        self.prompter = prompter
        self.events = events
        self.remaining = remaining
        """Seconds left of the agent's time: every request carries it as its deadline."""

    @property
    def prompts(self) -> Prompts:
        """The prompt templates, for the questions asked apart from the loop."""
        return self.prompter.rules.prompts

    @property
    def constrains(self) -> bool:
        return self.settings.constrained and self.model.profile.supports_constraint

    def ask(self, view: TurnView, *, stuck: bool) -> Reply:
        """The turn's answer to the prompt built from `view`. ContextExceeded when even a
        shrunk prompt does not fit."""
        tools, turn = view.tools, view.turn
        constraint = OutputConstraint(json_schema=call_schema(tools)) if self.constrains else None
        explore = stuck and self.settings.retry_temperature is not None
        temperature = self.settings.retry_temperature if explore else None
        for attempt in range(SHRINK_ATTEMPTS):
            try:
                built = self.prompter.build(view)
            except BudgetExceeded as err:
                raise ContextExceeded(str(err)) from err
            request = CompletionRequest(
                messages=built,
                max_tokens=self.settings.max_answer_tokens,
                temperature=self.settings.temperature if temperature is None else temperature,
                seed=self.settings.seed + (turn if explore else 0),
                constraint=constraint,
            )
            try:
                return Reply(self._answer(request, tools, turn), request)
            except ContextExceeded:
                if attempt == SHRINK_ATTEMPTS - 1 or not self.prompter.can_shrink:
                    raise
                self.prompter.shrink()
                self.events.emit(PromptShrunk(turn))
        raise AssertionError("unreachable")

    def _answer(self, request: CompletionRequest, tools: Sequence[ToolSpec], turn: int) -> str:
        """With `free_first`, the answer decoded freely, and only when the forgiving parser
        cannot read it, again under the schema (decoding under a grammar costs 2-3x)."""
        if request.constraint is None or not self.settings.free_first:
            return self.complete(request, role="worker", turn=turn)
        free = request.model_copy(update={"constraint": None})
        text = self.complete(free, role="worker", turn=turn)
        if not isinstance(parse_tool_call(text, tools), ParseFailure):
            return text
        return self.complete(request, role="worker", turn=turn, again=True)

    def apart(
        self, system: str, prompt: str, *, role: str, turn: int, max_tokens: int, stuck: bool
    ) -> str:
        """The answer to one small question apart from the loop (a computed answer): its own
        system line and prompt, free text, at the temperature for a stuck turn when asked again
        (`stuck`)."""
        explore = stuck and self.settings.retry_temperature is not None
        request = CompletionRequest(
            messages=[Message(role="system", content=system), Message(role="user", content=prompt)],
            max_tokens=max_tokens,
            temperature=self.settings.retry_temperature if explore else self.settings.temperature,
            seed=self.settings.seed + (turn if explore else 0),
            aside=True,
        )
        return self.complete(request, role=role, turn=turn)

    def complete(
        self, request: CompletionRequest, *, role: str, turn: int, again: bool = False
    ) -> str:
        """One completion, counted and emitted. AgentTimeout once the agent's time is up,
        before the call or during it (the back end stops at the deadline)."""
        start = time.monotonic()
        left = self.remaining()
        if left <= 0:
            raise AgentTimeout("agent time is up")
        if math.isfinite(left):
            request = request.model_copy(update={"deadline": start + left})
        try:
            answer = self.model.complete(request)
        except ModelTimeout as err:
            if self.remaining() <= 0:
                raise AgentTimeout(f"agent time is up: {err}") from err
            raise
        self.events.emit(
            ModelAnswered(
                turn,
                role,
                answer.text,
                tuple(request.messages),
                answer.usage,
                answer.latency_sec,
                answer.finish_reason,
                seconds=time.monotonic() - start,
                again=again,
            )
        )
        return answer.text
