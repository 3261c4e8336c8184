"""The agent loop: ask, parse, guard, act, summarise, check — until the checks pass or the
budget is spent. Its parts come made from `assemble` (`LoopParts`); each lives in its own
module (asking, parse, guards, tools, climb, gate, prompts, planner, recovery). Every end of a
trial is a `LoopEnd` raised where it happens and caught once in `run`. See docs/loop.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from hillclimber.errors import AgentTimeout, ContextExceeded
from hillclimber.harness.acting.diagnosis import RecoveryTracker
from hillclimber.harness.acting.handlers import ToolEnv, execute, tool_path
from hillclimber.harness.acting.tools import ACTING_TOOLS, WRITES, ToolCall, ToolResult, ToolSpec
from hillclimber.harness.asking import Asker, Reply
from hillclimber.harness.climbing.step import ClimbStep
from hillclimber.harness.completion.gate import Gate, Told
from hillclimber.harness.guards import Guards, Situation
from hillclimber.harness.parsing.outcome import ParseFailure
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.harness.planner import Plan, make_plan
from hillclimber.harness.prompting.offer import ToolOffer
from hillclimber.harness.prompting.prompters import ConversationPrompter, MicroPrompter, TurnView
from hillclimber.harness.recording.events import (
    CallRead,
    EventBus,
    GuardVerdict,
    LoopEnded,
    Measured,
    ParseFailed,
    PlanMade,
    ToolRan,
    TurnStarted,
)
from hillclimber.harness.seeding import seed_calls
from hillclimber.harness.state import LoopEnd, LoopExit, LoopResult, LoopState, LoopStats
from hillclimber.harness.task_paths import TaskPaths
from hillclimber.sandbox.files import read_text
from hillclimber.text import clip


@dataclass
class LoopParts:
    """Everything the loop works with, made by `assemble` from the setting and what the trial
    found: the loop itself reads no setting."""

    env: ToolEnv
    instruction: str
    prompter: MicroPrompter | ConversationPrompter
    asker: Asker
    state: LoopState
    gate: Gate
    guards: Guards
    offer: ToolOffer
    events: EventBus
    max_turns: int
    paths: TaskPaths
    climb: ClimbStep | None = None
    recovery: RecoveryTracker | None = None
    hint: Callable[[list[str]], str | None] | None = None
    """The hint for the tools called so far (none: hints are off)."""
    files: Callable[[], str] = lambda: ""
    folder: Callable[[], str] = lambda: ""
    """The working folder's entries now ("" where `view.show_folder` is off)."""
    seed_fixes: bool = False
    planner: bool = False
    verify_after_writes: bool = False
    """Check after every successful change (`climbing.auto_verify`, where there are checks)."""
    forgiving: bool = False
    skills: frozenset[str] = frozenset()
    """Ids of the skills shown (called as a tool, they get feedback of their own)."""
    skill_text: str = ""
    """Their text for the planner (empty unless `skills.for_planner`)."""
    answers: tuple[str, ...] = ()


class AgentLoop:
    def __init__(self, parts: LoopParts) -> None:
        self.parts = parts
        self.env, self.instruction, self.paths = parts.env, parts.instruction, parts.paths
        self.prompter, self.asker, self.events = parts.prompter, parts.asker, parts.events
        self.state, self.gate, self.guards = parts.state, parts.gate, parts.guards
        self.climb, self.recovery = parts.climb, parts.recovery
        self.max_turns, self.answers = parts.max_turns, parts.answers
        self.prompts = parts.prompter.rules.prompts
        self.turn = 0
        self.plan: Plan | None = None
        self.stats = LoopStats()
        self.events.subscribe(self.stats)  # it counts what the events say, and nothing else
        self._path = partial(tool_path, env=parts.env)
        self._read = partial(read_text, parts.env.sandbox)

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> LoopResult:
        try:
            self._start()
            while self.turn < self.max_turns:
                self.turn += 1
                self._turn()
            self._finalize("max_turns", last_chance=True)
            raise LoopEnd(LoopExit.MAX_TURNS, "turn budget spent")
        except LoopEnd as end:
            result = LoopResult(end.exit, end.reason, self.turn, self.stats, end.evaluation)
        except AgentTimeout as err:  # wherever the time ran out: what was done is kept
            result = LoopResult(LoopExit.TIMED_OUT, str(err), self.turn, self.stats, None)
        self.events.emit(
            LoopEnded(self.turn, result.exit.value, result.reason, self.stats.record())
        )
        return result

    def _start(self) -> None:
        if self.parts.seed_fixes:
            self._seed()
        if self.parts.planner:
            self._make_plan()
        if self.climb is not None and self.climb.climb.enabled:
            baseline = self.climb.climb.measure()
            self.events.emit(Measured(self.turn, baseline.passing, baseline.total,
                                      baseline.label))  # fmt: skip

    def _seed(self) -> None:
        """Each corrected version the task asks for starts as a copy of its original, made
        by the harness before the first turn and told to the model (`seeding.py`)."""
        for call, told in seed_calls(
            self.paths.named, self.env.sandbox, self.answers, self.prompts
        ):
            if self._act(call, "", by="harness").success:
                self.state.tell(told)

    def _turn(self) -> None:
        self.events.emit(TurnStarted(self.turn))
        self.state.turn_started()
        tools = self.parts.offer.turn(self.state)
        try:
            answer = self.asker.ask(self._view(tools), stuck=self.state.stuck)
        except ContextExceeded as err:
            raise LoopEnd(LoopExit.CONTEXT_EXCEEDED, str(err)) from err
        self.state.asked()
        outcome = parse_tool_call(answer.text, tools, forgiving=self.parts.forgiving)
        if isinstance(outcome, ParseFailure):
            outcome = outcome.as_skill(self.parts.skills)
            message = outcome.feedback(tools, self.prompts)
            self.events.emit(ParseFailed(self.turn, outcome.reason.value, outcome.detail))
            self.state.unreadable(message)
            self.prompter.record(answer.text, message)
            return self._signals()
        self.events.emit(CallRead(self.turn, outcome.call.name, outcome.repaired))
        call, text = outcome.call, answer.text
        if self.climb is not None and self.climb.climb.enabled and call.name in ACTING_TOOLS:
            chosen = self._climb(call, answer, tools)
            if chosen is None:
                return self._signals()
            call, text = chosen
        elif (screened := self._screen(call, text)) is not None:
            call = screened
        else:
            return self._signals()
        if call.name == "task_complete":
            self.prompter.record(text, "task_complete received: checking the task.")
            self._finalize("task_complete")
            return None
        result = self._act(call, text)
        self._after(call, result)
        return None

    def _climb(
        self, call: ToolCall, answer: Reply, tools: list[ToolSpec]
    ) -> tuple[ToolCall, str] | None:
        assert self.climb is not None
        own = self._screen(call, answer.text) == call
        chosen, refusal = self.climb.choose(
            call,
            answer,
            tools,
            own=own,
            passing=self.state.passing,
            turn=self.turn,
            situation=self._situation(),
            plan=self.plan,
        )
        if refusal is not None:
            self.state.refused(refusal)
            self.prompter.record(answer.text, refusal)
        if self.climb.seen:
            self.state.tell(self.climb.seen)
        return (chosen.call, chosen.text) if chosen is not None else None

    # -- one turn's parts -------------------------------------------------------------------

    def _view(self, tools: list[ToolSpec]) -> TurnView:
        """What the model is shown this turn."""
        step = self.plan.current() if self.plan else None
        return TurnView(
            instruction=self.instruction,
            tools=tools,
            history=self.state.history,
            latest=self.state.latest,
            feedback=self.state.feedback,
            plan=self.plan.render(self.prompts) if self.plan else None,
            step=step.text if step else None,
            hint=self.parts.hint([c.name for c in self.state.calls]) if self.parts.hint else None,
            progress=self.state.progress,
            files=self.parts.files(),
            folder=self.parts.folder() or None,
            turn=self.turn,
            max_turns=self.max_turns,
            known=self.parts.offer.all(),
        )

    def _situation(self) -> Situation:
        return Situation(
            history=self.state.calls,
            resolve=self._path,
            read=self._read,
            verify_between_writes=self.parts.offer.sequences_writes,
            last_write_failed=self.state.last_write_failed,
            protected=self.paths.protected,
            inputs=self.paths.inputs,
            answers=self.answers,
            named=self.paths.named,
            workdir=self.env.workdir,
            outputs=self.paths.outputs,
            climbing=self.climb is not None and self.climb.climb.enabled,
            refused=frozenset(self.state.denied),
            prompts=self.prompts,
        )

    def _screen(self, call: ToolCall, text: str) -> ToolCall | None:
        """The call to run — `call`, or the one a guard runs in its place — or None where it
        may not run: every guard verdict is handled here."""
        verdict = self.guards.decide(call, self._situation())
        if verdict.action == "allow":
            return call
        self.events.emit(GuardVerdict(self.turn, verdict.action, verdict.rule, verdict.reason))
        message = verdict.feedback(call.name, self.prompts)
        if verdict.action == "warn":
            self.state.tell(message)
            return call
        if verdict.instead is not None:  # a read of a file not read yet: nothing to screen
            self.state.tell(message)
            return verdict.instead
        self.state.refused(
            message,
            repeated=verdict.rule == "repetition",
            call=(call.name, verdict.rule),
            signature=call.signature(),
        )
        self.prompter.record(text, message)
        return None

    def _act(self, call: ToolCall, text: str, by: str = "model") -> ToolResult:
        start = time.monotonic()
        result = execute(call, self.env)
        seconds = time.monotonic() - start
        summary = self.state.ran(call, result)
        self.events.emit(
            ToolRan(
                turn=self.turn,
                by=by,
                tool=call.name,
                arguments=call.arguments,
                success=result.success,
                output=result.output,
                metadata=result.metadata,
                summary=summary,
                duration_sec=seconds,
            )
        )
        observation = result.output
        if self.recovery is not None and call.name == "run_command":
            diagnosis = self.recovery.record(str(call.arguments.get("command", "")), result)
            if diagnosis is not None:
                self.state.tell(diagnosis.feedback())
                observation += "\n" + diagnosis.feedback()
        if by == "model":
            self.prompter.record(text, observation)
        return result

    def _after(self, call: ToolCall, result: ToolResult) -> None:
        state = self.state
        state.acted(call, result)
        if self.plan is not None and result.success:
            self.plan.advance(state.history[-1].message)
        elif self.plan is not None:
            self.plan.fix(state.history[-1].message, self.prompts)
        if result.metadata.get("unchanged"):
            # writing what is already there: the model sees nothing left to do
            return self._finalize("nothing changed")
        changes = call.name in WRITES or (self.climb is not None and call.name in ACTING_TOOLS)
        if changes and result.success and self.parts.verify_after_writes:
            evaluation = self.gate.verify("auto_verify", self.turn)
            if evaluation.passed and evaluation.conclusive:
                why = f"{evaluation.label} pass after a write"
                raise LoopEnd(LoopExit.VERIFIED, why, evaluation)
            if evaluation.passed:  # form or weak checks only: not the end by themselves
                told = self.gate.inconclusive(
                    evaluation, "auto_verify", self.turn, last_chance=False
                )
                self._tell(told)
                return self._signals()
            if self.climb is not None and state.turns_since_improvement > 0:
                state.no_gain()
        return self._signals()

    def _signals(self) -> None:
        """The signals that the model thinks it is done, or is stuck: each is checked."""
        plan_done = self.plan is not None and self.plan.exhausted
        for reason, last_chance in self.gate.signals(plan_done=plan_done):
            self._finalize(reason, last_chance=last_chance)

    def _finalize(self, reason: str, *, last_chance: bool = False) -> None:
        told = self.gate.finalize(reason, self.turn, last_chance=last_chance)
        if told is None:
            return
        self._tell(told)
        if told.kind == "failed" and self.plan is not None and self.plan.exhausted:
            failed = told.evaluation
            self._make_plan(feedback=clip(failed.digest or failed.summary(), 200))

    def _tell(self, told: Told) -> None:
        """Record what the gate decided the model must hear."""
        if told.kind == "weak":
            self.state.weak_passed(told.message)
        else:
            self.state.check_failed(told.message)

    def _make_plan(self, feedback: str | None = None) -> None:
        self.plan = make_plan(
            self.asker,
            self.instruction,
            turn=self.turn,
            feedback=feedback,
            previous=self.plan,
            skills=self.parts.skill_text,
            answers=self.answers,
        )
        self.events.emit(PlanMade(self.turn, tuple(s.text for s in self.plan.steps)))
