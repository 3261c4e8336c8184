"""The agent loop: ask, parse, check, act, summarise, verify — until the task's tests pass or
the budget is spent. Everything it does is set by a `HarnessConfig`; each part lives in its own
module (prompts, budget, parse, monitor, recovery, planner, summary, hints).

Every way the loop can end goes through `finalize`: with a verifier it runs the task's tests;
on failure it says so to the model, resets the counters and goes on, up to
`max_verify_retries` verifications. Nothing ends as passed without a passing verification when
a verifier exists.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from hillclimber.errors import ContextExceeded
from hillclimber.harness.budget import BudgetExceeded
from hillclimber.harness.climb import (
    ACTING_TOOLS,
    Candidate,
    Climb,
    FileState,
    Target,
    pick,
    solved,
    targets,
)
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.context import named_paths, protected_files
from hillclimber.harness.events import EventBus
from hillclimber.harness.monitor import Monitor, MonitorState
from hillclimber.harness.parse import ParseFailure, parse_tool_call
from hillclimber.harness.planner import PLAN_SCHEMA, SUPERVISOR_SYSTEM, Plan, supervisor_prompt
from hillclimber.harness.prompts import ConversationPrompter, MicroPrompter, TurnView
from hillclimber.harness.recovery import RecoveryTracker
from hillclimber.harness.summary import StepSummary, clip, summarize
from hillclimber.harness.tools import (
    ToolCall,
    ToolEnv,
    ToolResult,
    call_schema,
    execute,
    host_file,
    is_binary,
    lost_lines,
    pinned_schema,
    tool_list,
    tool_path,
)
from hillclimber.harness.variants import variants
from hillclimber.models.base import CompletionRequest, Message, Model, OutputConstraint
from hillclimber.sandbox import OutsideSandbox
from hillclimber.verifier import Evaluation

WRITES = ("write_file", "edit_file")


class LoopExit(StrEnum):
    VERIFIED = "verified"  # the task's tests passed
    VERIFICATION_FAILED = "verification_failed"  # tests failed max_verify_retries times
    COMPLETED = "completed"  # ended without a verifier: the agent's word
    MAX_TURNS = "max_turns"
    CONTEXT_EXCEEDED = "context_exceeded"  # naive only: no help when the history overflows


@dataclass
class LoopStats:
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    parse_failures: int = 0
    parse_recovered: int = 0
    denials: int = 0
    warnings: int = 0
    context_shrinks: int = 0
    verifications: int = 0
    candidates: int = 0
    """Alternative calls asked for and tried on the workspace (climbing)."""
    readings: int = 0
    """Other readings of the model's calls tried on the workspace (climbing)."""
    candidate_verifications: int = 0
    verified_before_complete: int = 0
    completes: int = 0
    model_seconds: float = 0.0
    tool_seconds: float = 0.0
    progress: list[tuple[int, int, int]] = field(default_factory=list)
    """(turn, tests passing, tests total) after each verification."""


@dataclass
class LoopResult:
    exit: LoopExit
    reason: str
    turns: int
    stats: LoopStats
    evaluation: Evaluation | None = None


@dataclass
class _State:
    history: list[StepSummary] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    latest: tuple[str, str] | None = None
    feedback: list[str] = field(default_factory=list)
    verify_count: int = 0
    best_progress: float = -1.0
    passing: int = 0
    """Tests passing at the last verification."""
    turns_since_improvement: int = 0
    consecutive_failures: int = 0
    had_success: bool = False
    repeats: int = 0
    last_signature: str | None = None
    turns_since_success: int = 0
    written_since_check: bool = False
    last_write_failed: bool = False
    stuck: bool = False
    """A refused or repeated action or a failed verification: ask for something different."""
    progress: str | None = None

    def reset_counters(self) -> None:
        self.consecutive_failures = 0
        self.repeats = 0
        self.turns_since_success = 0


class AgentLoop:
    def __init__(
        self,
        config: HarnessConfig,
        model: Model,
        env: ToolEnv,
        instruction: str,
        *,
        prompter: MicroPrompter | ConversationPrompter,
        hint: Callable[[list[str]], str | None] = lambda tools: None,
        files: Callable[[], str] = lambda: "",
        events: EventBus | None = None,
        max_turns: int | None = None,
        use_planner: bool = False,
    ) -> None:
        self.config = config
        self.model = model
        self.env = env
        self.instruction = instruction
        self.prompter = prompter
        self.hint = hint
        self.files = files
        self.events = events or EventBus()
        self.max_turns = max_turns or config.max_turns
        self.monitor = Monitor(config.monitor) if config.monitor else None
        self.recovery = RecoveryTracker() if config.error_recovery else None
        self.plan: Plan | None = None
        self.use_planner = use_planner
        self.state = _State()
        self.stats = LoopStats()
        self.guarded: set[str] = set()
        self.protected = protected_files(instruction)
        self.named = named_paths(instruction, env.workdir)
        self.turn = 0
        self.climb = (
            Climb(env.sandbox.host_path(env.workdir), self._try, env.verify)
            if config.candidates > 1 and env.verify is not None
            else None
        )
        self._request: CompletionRequest | None = None

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> LoopResult:
        if self.use_planner:
            self._make_plan()
        if self.climb is not None and self.climb.enabled:
            baseline = self.climb.measure()
            self.stats.candidate_verifications += 1
            self._track_progress(baseline.tests_passing, baseline.tests_total)
        while self.turn < self.max_turns:
            self.turn += 1
            self.events.emit("turn_started", self.turn)
            tools = self._offered_tools()
            try:
                text = self._ask(tools)
            except ContextExceeded as err:
                return self._end(LoopExit.CONTEXT_EXCEEDED, str(err))
            outcome = parse_tool_call(text, tools, forgiving=self.config.forgiving_parser)
            if isinstance(outcome, ParseFailure):
                self._on_parse_failure(text, outcome, tools)
                if (done := self._check_heuristics()) is not None:
                    return done
                continue
            self.stats.parse_recovered += outcome.repaired
            call = outcome.call
            if self.climb is not None and self.climb.enabled and call.name in ACTING_TOOLS:
                allowed = self._allowed(call, text)
                chosen = self._climb(call, text, tools, own=allowed)
                if chosen is None:
                    if (done := self._check_heuristics()) is not None:
                        return done
                    continue
                call, text = chosen.call, chosen.text
            elif not self._allowed(call, text):
                if (done := self._check_heuristics()) is not None:
                    return done
                continue
            if call.name == "task_complete":
                self.stats.completes += 1
                if self.state.calls and self.state.calls[-1].name == "verify_progress":
                    self.stats.verified_before_complete += 1
                self.prompter.record(text, "task_complete received: checking the task.")
                if (done := self.finalize("task_complete")) is not None:
                    return done
                continue
            result = self._act(call, text)
            if (done := self._after_action(call, result)) is not None:
                return done
        return self.finalize("max_turns", last_chance=True) or self._end(
            LoopExit.MAX_TURNS, "turn budget spent"
        )

    # -- one turn's parts -------------------------------------------------------------------

    def _offered_tools(self) -> list[Any]:
        names = [n for n in self.config.tools if n != "verify_progress" or self.env.verify]
        if self.config.dynamic_tools:
            last = self.state.calls[-1].name if self.state.calls else None
            if self.config.climber_sequencing and last in WRITES and not self.config.auto_verify:
                names = [n for n in names if n in ("verify_progress", "task_complete")] or names
            elif self.config.no_progress_turns and self.state.turns_since_improvement >= max(
                self.config.no_progress_turns // 2, 2
            ):
                # stuck: stop looking around and change something, with any acting tool (a
                # task done through commands needs run_command most of all)
                names = [n for n in names if n != "read_file"] or names
        return tool_list(names)

    def _view(self, tools: list[Any]) -> TurnView:
        step = self.plan.current() if self.plan else None
        return TurnView(
            instruction=self.instruction,
            tools=tools,
            history=self.state.history,
            latest=self.state.latest,
            feedback=self.state.feedback,
            plan=self.plan.render() if self.plan else None,
            step=step.text if step else None,
            hint=self.hint([c.name for c in self.state.calls]),
            progress=self.state.progress,
            files=self.files(),
            turn=self.turn,
            max_turns=self.max_turns,
        )

    def _ask(self, tools: list[Any], attempts: int = 3) -> str:
        """One answer. A back end that still reports an overflow gets a smaller prompt."""
        constraint = (
            OutputConstraint(json_schema=call_schema(tools))
            if self.config.constrained and self.model.profile.supports_constraint
            else None
        )
        for attempt in range(attempts):
            try:
                messages = self.prompter.build(self._view(tools))
            except BudgetExceeded as err:
                raise ContextExceeded(str(err)) from err
            explore = self.state.stuck and self.config.retry_temperature is not None
            request = CompletionRequest(
                messages=messages,
                max_tokens=self.config.max_answer_tokens,
                temperature=self.config.retry_temperature
                if explore and self.config.retry_temperature is not None
                else self.config.temperature,
                seed=self.turn if explore else 0,
                constraint=constraint,
            )
            self._request = request
            try:
                answer = self._complete(request, role="worker")
            except ContextExceeded:
                plain = isinstance(self.prompter, ConversationPrompter) and not self.prompter.trim
                if attempt == attempts - 1 or plain:
                    raise
                self.prompter.shrink()
                self.stats.context_shrinks += 1
                continue
            self.state.feedback = []
            return answer
        raise AssertionError("unreachable")

    def _complete(self, request: CompletionRequest, role: str) -> str:
        start = time.monotonic()
        answer = self.model.complete(request)
        self.stats.model_seconds += time.monotonic() - start
        self.stats.model_calls += 1
        self.stats.prompt_tokens += answer.usage.prompt_tokens
        self.stats.completion_tokens += answer.usage.completion_tokens
        self.events.emit(
            "model_answered",
            self.turn,
            role=role,
            text=answer.text,
            prompt=[m.model_dump() for m in request.messages],
            usage=answer.usage.model_dump(),
            latency_sec=answer.latency_sec,
            finish_reason=answer.finish_reason,
        )
        return answer.text

    def _on_parse_failure(self, text: str, failure: ParseFailure, tools: list[Any]) -> None:
        self.stats.parse_failures += 1
        self.state.stuck = True
        self.state.consecutive_failures += 1
        self.state.turns_since_success += 1
        message = failure.feedback(tools)
        self.events.emit(
            "parse_failed", self.turn, reason=failure.reason.value, detail=failure.detail
        )
        self.state.feedback.append(message)
        self.prompter.record(text, message)

    def _allowed(self, call: ToolCall, text: str) -> bool:
        guarded = self.config.guard_overwrites and call.name in WRITES
        if guarded and (target := self._target(call)) in self.protected:
            return self._deny(
                call,
                text,
                "protected_file",
                f"{call.name} – the task says not to change {target}. Leave it as it is; "
                "write your result to the file the task asks for.",
            )
        climbing = self.climb is not None and self.climb.enabled  # there the tests judge it
        if (
            guarded
            and not climbing
            and call.signature() not in self.guarded  # asked again as it was: let it through
            and (loss := lost_lines(call, self.env)) is not None
        ):
            self.guarded.add(call.signature())
            path = call.arguments.get("path")
            return self._deny(
                call,
                text,
                "overwrite_guard",
                f"{call.name} – it would delete {loss[0]} of the {loss[1]} lines of {path}. "
                "To add lines at the end run: printf '%s\\n' 'TEXT' >> FILE; to change one "
                "line use edit_file with the exact old line. (Send the same write again if "
                "you really mean to replace the file.)",
            )
        if self.monitor is None:
            return True
        verdict = self.monitor.decide(
            call,
            MonitorState(
                history=self.state.calls,
                climber=self.config.climber_sequencing,
                last_write_failed=self.state.last_write_failed,
            ),
        )
        if verdict.action == "allow":
            return True
        self.events.emit(
            "monitor_verdict",
            self.turn,
            action=verdict.action,
            rule=verdict.rule,
            reason=verdict.reason,
        )
        message = verdict.feedback(call.name)
        self.state.feedback.append(message)
        if verdict.action == "warn":
            self.stats.warnings += 1
            return True
        self.stats.denials += 1
        self.state.turns_since_success += 1
        self.state.stuck = True
        if verdict.rule == "repetition":
            # asking again for what was just done is the model's way of saying it is done
            self.state.repeats += 1
        self.prompter.record(text, message)
        return False

    def _deny(self, call: ToolCall, text: str, rule: str, reason: str) -> bool:
        self.events.emit("monitor_verdict", self.turn, action="deny", rule=rule, reason=reason)
        self.state.feedback.append(f"REJECTED: {reason}")
        self.state.stuck = True
        self.stats.denials += 1
        self.state.turns_since_success += 1
        self.prompter.record(text, f"REJECTED: {reason}")
        return False

    # -- climbing: candidates tried on the workspace, scored by the tests -------------------

    def _climb(self, call: ToolCall, text: str, tools: list[Any], *, own: bool) -> Candidate | None:
        """The call to apply this turn: the model's own (tried unless refused: `own`), or one
        of the other acting tools' answers to the same prompt if it passes more tests; None
        if there is nothing worth applying."""
        assert self.climb is not None
        climb, now = self.climb, self.state.passing
        tried: list[Candidate] = []

        def attempt(candidate: ToolCall, answer: str, origin: str, *, itself: bool) -> None:
            """Try `candidate` (when `itself`) and the other readings of it."""
            if itself:
                tried.append(climb.attempt(candidate, answer, origin=origin))
            for reading in variants(candidate, self._read):
                if self._safe(reading) and all(c.call != reading for c in tried):
                    self.stats.readings += 1
                    tried.append(climb.attempt(reading, answer, origin="reading"))

        attempt(call, text, "model", itself=own)
        own_path = self._target(call) if "path" in call.arguments else None
        pool = targets(call, own_path, {t.name for t in tools}, self._named_files())
        for target in climb.order(pool):
            asked = sum(c.origin != "reading" for c in tried) + (0 if own else 1)
            if asked >= self.config.candidates or not climb.enabled:
                break
            if any(solved(c) for c in tried):
                break
            climb.asked[target] += 1
            alternative = self._ask_alternative(target)
            if alternative is None:
                continue
            outcome = parse_tool_call(alternative, tools, forgiving=self.config.forgiving_parser)
            if isinstance(outcome, ParseFailure) or not self._safe(outcome.call):
                continue
            if any(c.call.signature() == outcome.call.signature() for c in tried):
                continue
            self.stats.candidates += 1
            attempt(outcome.call, alternative, "tool", itself=True)
        self.stats.candidate_verifications += len(tried)
        chosen = pick(tried, now, own=own)
        self.events.emit(
            "candidates_tried",
            self.turn,
            passing_before=now,
            own_refused=not own,
            candidates=[{"call": c.call.model_dump(), "result": c.line()} for c in tried],
            chosen=tried.index(chosen) if chosen is not None else None,
        )
        if chosen is None and own:
            tried_lines = "; ".join(c.line() for c in tried)
            message = (
                f"REJECTED: no way tried keeps the {now} passing tests and the existing lines "
                f"without gaining a test: {tried_lines}. Nothing was changed. Do something else."
            )
            self.state.feedback.append(message)
            self.state.stuck = True
            self.state.turns_since_success += 1
            self.prompter.record(text, message)
        return chosen

    def _ask_alternative(self, target: Target) -> str | None:
        """The same prompt as this turn's, answered with the target's tool (and file)."""
        assert self._request is not None
        if self.config.constrained and self.model.profile.supports_constraint:
            schema = pinned_schema(target.tool, target.path)
            update: dict[str, Any] = {"constraint": OutputConstraint(json_schema=schema)}
        else:
            messages = list(self._request.messages)
            last = messages[-1]
            asked = f"{last.content} {target.words()}"
            messages[-1] = last.model_copy(update={"content": asked})
            update = {"messages": messages}
        try:
            return self._complete(self._request.model_copy(update=update), role="candidate")
        except ContextExceeded:
            return None

    def _named_files(self) -> list[FileState]:
        """The files the task names (not those it says to leave alone), as they are now."""
        states: list[FileState] = []
        for path in self.named:
            if path in self.protected:
                continue
            try:
                host = self.env.sandbox.host_path(path)
            except (OutsideSandbox, ValueError):
                continue
            if host.is_file():
                states.append((path, "other" if is_binary(host) else "file"))
            elif not host.exists() and host.parent.is_dir():
                states.append((path, "missing"))
        return states

    def _read(self, path: str) -> str | None:
        try:
            host = host_file(path, self.env)
            return host.read_text(errors="replace") if host.is_file() else None
        except (OSError, ValueError):
            return None

    def _try(self, call: ToolCall) -> tuple[bool, str]:
        result = execute(call, self.env)
        return result.success, result.output

    def _safe(self, call: ToolCall) -> bool:
        """Whether a candidate may run at all (it is tried quietly: no feedback, no count)."""
        if call.name in WRITES and self._target(call) in self.protected:
            return False
        if self.monitor is None:
            return True
        verdict = self.monitor.decide(
            call,
            MonitorState(history=self.state.calls, climber=self.config.climber_sequencing),
        )
        return verdict.action != "deny"

    def _target(self, call: ToolCall) -> str:
        return tool_path(str(call.arguments.get("path", "")), self.env)

    def _act(self, call: ToolCall, text: str) -> ToolResult:
        start = time.monotonic()
        result = execute(call, self.env)
        seconds = time.monotonic() - start
        self.stats.tool_seconds += seconds
        summary = summarize(len(self.state.history) + 1, call, result)
        self.state.history.append(summary)
        self.state.calls.append(call)
        self.events.emit(
            "tool_ran",
            self.turn,
            by="model",
            tool=call.name,
            arguments=call.arguments,
            success=result.success,
            output=result.output,
            metadata=result.metadata,
            summary=summary.message,
            duration_sec=seconds,
        )
        if call.name in ("read_file", "run_command", "verify_progress"):
            label = {
                "read_file": f"Content of {call.arguments.get('path')}",
                "run_command": f"Output of `{clip(str(call.arguments.get('command')), 60)}`",
                "verify_progress": "Test results",
            }[call.name]
            self.state.latest = (label, result.output)
        elif not result.success:
            self.state.latest = (f"{call.name} failed", result.output)
        observation = result.output
        if self.recovery is not None and call.name == "run_command":
            diagnosis = self.recovery.record(str(call.arguments.get("command", "")), result)
            if diagnosis is not None:
                self.state.feedback.append(diagnosis.feedback())
                observation += "\n" + diagnosis.feedback()
        if call.name == "verify_progress" and "tests_total" in result.metadata:
            self._track_progress(result.metadata["tests_passing"], result.metadata["tests_total"])
        self.prompter.record(text, observation)
        return result

    def _after_action(self, call: ToolCall, result: ToolResult) -> LoopResult | None:
        state = self.state
        if result.success:
            state.consecutive_failures = 0
            state.had_success = True
            state.turns_since_success = 0
            if self.plan is not None:
                self.plan.advance(state.history[-1].message)
        else:
            state.consecutive_failures += 1
            state.turns_since_success += 1
            if self.plan is not None:
                self.plan.fix(state.history[-1].message)
        if call.name in WRITES:
            state.last_write_failed = not result.success
        signature = call.signature()
        state.repeats = state.repeats + 1 if signature == state.last_signature else 1
        state.last_signature = signature
        state.stuck = state.repeats >= 2 or not result.success
        if result.metadata.get("unchanged"):
            # writing what is already there: the model sees nothing left to do
            return self.finalize("nothing changed")
        changes = call.name in WRITES or (self.climb is not None and call.name in ACTING_TOOLS)
        if changes and result.success:
            state.written_since_check = True
            if self.config.auto_verify and self.env.verify is not None:
                evaluation = self._verify("auto_verify")
                if evaluation.passed:
                    return self._end(LoopExit.VERIFIED, "tests pass after a write", evaluation)
                if self.climb is not None and state.turns_since_improvement > 0:
                    state.stuck = True  # no gain from the best step found: explore next turn
        return self._check_heuristics()

    def _check_heuristics(self) -> LoopResult | None:
        """The signals that the model thinks it is done, or is stuck: each is verified."""
        config, state = self.config, self.state
        reason = None
        if state.repeats >= config.same_action_limit:
            reason = "same action repeated"
        elif state.had_success and state.consecutive_failures >= config.failures_after_success:
            reason = "failures after a success"
        elif config.no_progress_turns and state.turns_since_success >= config.no_progress_turns:
            reason = "no progress"
        elif self.plan is not None and self.plan.exhausted:
            reason = "plan done"
        if reason is None:
            return None
        return self.finalize(reason)

    # -- verification and the end -----------------------------------------------------------

    def _verify(self, why: str) -> Evaluation:
        assert self.env.verify is not None
        evaluation: Evaluation = self.env.verify()
        self.stats.verifications += 1
        self.state.written_since_check = False
        self._track_progress(evaluation.tests_passing, evaluation.tests_total)
        if self.config.show_failing_checks and evaluation.digest and not evaluation.passed:
            self.state.progress = f"{self.state.progress}; failing: {clip(evaluation.digest, 240)}"
        self.events.emit(
            "verify_done",
            self.turn,
            why=why,
            passed=evaluation.passed,
            tests_passing=evaluation.tests_passing,
            tests_total=evaluation.tests_total,
            digest=evaluation.digest,
        )
        summary = StepSummary(
            len(self.state.history) + 1,
            "verification",
            evaluation.passed,
            clip(f"{why}: {evaluation.summary()}", 100),
        )
        self.state.history.append(summary)
        self.state.calls.append(ToolCall(name="verify_progress"))
        return evaluation

    def _track_progress(self, passing: int, total: int) -> None:
        progress = passing / total if total else 0.0
        self.stats.progress.append((self.turn, passing, total))
        self.state.progress = f"tests {passing}/{total} passing"
        self.state.passing = passing
        if progress > self.state.best_progress:
            self.state.best_progress = progress
            self.state.turns_since_improvement = 0
        else:
            self.state.turns_since_improvement += 1

    def finalize(self, reason: str, *, last_chance: bool = False) -> LoopResult | None:
        """End here if the task is done; else feed the failure back and go on (or end failed)."""
        self.events.emit("finalize", self.turn, reason=reason)
        if not self.config.verify_gated:  # naive: only the model's word or the budget ends it
            if reason == "task_complete" or last_chance:
                exit_ = LoopExit.COMPLETED if reason == "task_complete" else LoopExit.MAX_TURNS
                return self._end(exit_, reason)
            return None
        if self.env.verify is None:  # nothing to check with: trust the signal (SPEC §3.7)
            return self._end(LoopExit.MAX_TURNS if last_chance else LoopExit.COMPLETED, reason)
        self.state.verify_count += 1
        evaluation = self._verify(reason)
        if evaluation.passed:
            return self._end(LoopExit.VERIFIED, reason, evaluation)
        if last_chance or self.state.verify_count >= self.config.max_verify_retries:
            return self._end(LoopExit.VERIFICATION_FAILED, reason, evaluation)
        message = f"Verification failed ({evaluation.summary()}): the task is NOT done."
        if self.config.show_failing_checks and evaluation.digest:
            message += f" Failing: {clip(evaluation.digest, 300)}"
        self.state.feedback.append(message + " Fix it, then call task_complete again.")
        self.state.reset_counters()
        self.state.stuck = True
        if self.plan is not None and self.plan.exhausted:
            self._make_plan(feedback=clip(evaluation.digest or evaluation.summary(), 200))
        return None

    def _make_plan(self, feedback: str | None = None) -> None:
        request = CompletionRequest(
            messages=[
                Message(role="system", content=SUPERVISOR_SYSTEM),
                Message(role="user", content=supervisor_prompt(self.instruction, feedback)),
            ],
            max_tokens=300,
            temperature=self.config.temperature,
            constraint=OutputConstraint(json_schema=PLAN_SCHEMA, name="plan")
            if self.config.constrained and self.model.profile.supports_constraint
            else None,
        )
        replans = self.plan.replans + 1 if self.plan else 0
        self.plan = Plan.from_answer(self._complete(request, role="supervisor"))
        self.plan.replans = replans
        self.events.emit("plan_made", self.turn, steps=[s.text for s in self.plan.steps])

    def _end(
        self, exit_: LoopExit, reason: str, evaluation: Evaluation | None = None
    ) -> LoopResult:
        self.events.emit(
            "finalize",
            self.turn,
            final=True,
            exit=exit_.value,
            reason=reason,
            turns=self.turn,
            stats=self.stats.__dict__,
        )
        return LoopResult(exit_, reason, self.turn, self.stats, evaluation)
