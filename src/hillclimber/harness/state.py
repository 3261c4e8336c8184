"""What the loop keeps between turns (outside the model), what it counts, and how a trial ends.

Every counter the completion signals read is changed here, by the event that changes it: a
refused call, an unreadable answer, an action and its result, a check. `LoopStats` counts what
the run cost and did from the events the loop emits, and nothing else writes it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from hillclimber.harness.acting.tools import ACTING_TOOLS, WRITES, ToolCall, ToolResult
from hillclimber.harness.prompting.summary import StepSummary, summarize
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.harness.recording.events import (
    CallRead,
    CandidatesTried,
    Event,
    FinalizeAsked,
    GuardVerdict,
    Measured,
    ModelAnswered,
    ParseFailed,
    PromptShrunk,
    ToolRan,
    Verified,
)
from hillclimber.text import clip
from hillclimber.verify.verifier import Evaluation


class LoopExit(StrEnum):
    VERIFIED = "verified"  # the checks passed, a value check among them (or the task's tests)
    CONFIRMED = "confirmed"  # form or weak checks pass; the model saw the result and stood by it
    UNCONFIRMED = "unconfirmed"  # form or weak checks pass; the model never saw the result
    VERIFICATION_FAILED = "verification_failed"  # checks failed max_verify_retries times
    COMPLETED = "completed"  # ended without checks: the agent's word
    MAX_TURNS = "max_turns"
    CONTEXT_EXCEEDED = "context_exceeded"  # the plain history no longer fits the window
    TIMED_OUT = "timed_out"  # the agent's time ran out (in a command, a model call, a check)


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
    constrained_retries: int = 0
    """Free answers no parser could read, asked again under the schema (`free_first`)."""
    verifications: int = 0
    candidates: int = 0
    """Alternative calls asked for and tried on the workspace (climbing)."""
    readings: int = 0
    """Other readings of the model's calls tried on the workspace (climbing)."""
    planned: int = 0
    """Steps of the model's plan that are commands, tried on the workspace (climbing)."""
    computed: int = 0
    """Commands asked for that compute the answer file, tried on the workspace (climbing)."""
    candidate_verifications: int = 0
    verified_before_complete: int = 0
    completes: int = 0
    limits_hit: int = 0
    """The model's commands ended by a resource limit (memory, processes, file size, …)."""
    limit: str | None = None
    """The last such limit, in words."""
    model_seconds: float = 0.0
    tool_seconds: float = 0.0
    progress: list[tuple[int, int, int]] = field(default_factory=list)
    """(turn, checks passing, checks total) after each check."""
    _checked_last: bool = field(default=False, repr=False)
    """The last call recorded was a check (for `verified_before_complete`)."""

    def __call__(self, event: Event) -> None:
        """Count `event` (the stats listen on the loop's event bus)."""
        match event:
            case ModelAnswered():
                self.model_calls += 1
                self.prompt_tokens += event.usage.prompt_tokens
                self.completion_tokens += event.usage.completion_tokens
                self.model_seconds += event.seconds
                self.constrained_retries += event.again
            case PromptShrunk():
                self.context_shrinks += 1
            case CallRead():
                self.parse_recovered += event.repaired
            case ParseFailed():
                self.parse_failures += 1
            case GuardVerdict():
                self.warnings += event.action == "warn"
                self.denials += event.action == "deny"
            case ToolRan():
                self._ran(event)
            case CandidatesTried():
                origins = [line.origin for line in event.candidates]
                self.candidate_verifications += len(origins)
                self.candidates += origins.count("tool")
                self.readings += origins.count("reading")
                self.planned += origins.count("plan")
                self.computed += origins.count("computed")
            case Measured():
                self.candidate_verifications += 1
                self.progress.append((event.turn, event.passing, event.total))
            case Verified():
                self.verifications += 1
                self.progress.append((event.turn, event.passing, event.total))
                self._checked_last = True
            case FinalizeAsked() if event.reason == "task_complete":
                self.completes += 1
                self.verified_before_complete += self._checked_last

    def record(self) -> dict[str, Any]:
        """The counts, for the trial's result and the trajectory."""
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}

    def _ran(self, event: ToolRan) -> None:
        self.tool_seconds += event.duration_sec
        if limit := event.metadata.get("limit"):
            self.limits_hit += 1
            self.limit = str(limit)
        self._checked_last = event.tool == "verify_progress"
        if event.tool == "verify_progress" and "total" in event.metadata:
            meta = event.metadata
            self.progress.append((event.turn, meta["passing"], meta["total"]))


@dataclass
class LoopResult:
    exit: LoopExit
    reason: str
    turns: int
    stats: LoopStats
    evaluation: Evaluation | None = None


class LoopEnd(Exception):
    """Raised wherever the trial ends; the loop returns its result."""

    def __init__(self, exit_: LoopExit, reason: str, evaluation: Evaluation | None = None):
        super().__init__(reason)
        self.exit = exit_
        self.reason = reason
        self.evaluation = evaluation


@dataclass
class LoopState:
    history: list[StepSummary] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    latest: tuple[str, str] | None = None
    """(label, text) of the output the model asked for last."""
    feedback: list[str] = field(default_factory=list)
    """Said to the model on the next turn, then cleared."""
    best_progress: float = -1.0
    passing: int = 0
    """Checks passing at the last check."""
    turns_since_improvement: int = 0
    turns_since_news: int = 0
    """Turns since more checks passed than ever (on the workspace, or by a step climbing tried
    and put back) or an action succeeded that had not before."""
    best_seen: float = -1.0
    """The largest share of the checks that passed, on the workspace or by a step tried."""
    succeeded: set[str] = field(default_factory=set)
    """Signatures of the calls that succeeded."""
    consecutive_failures: int = 0
    had_success: bool = False
    repeats: int = 0
    last_signature: str | None = None
    turns_since_success: int = 0
    last_write_failed: bool = False
    stuck: bool = False
    """A refused or repeated action or a failed check: ask for something different."""
    refused_call: tuple[str, str] | None = None
    """(tool, rule) of the call refused last, until a call runs."""
    progress: str | None = None
    """`tests p/t passing` (and the failing checks), shown to the model."""
    weak_shown: bool = False
    """Weak checks passed and the model was shown what they looked at, with nothing changed
    since: its next done-signal confirms the result."""
    denied: set[tuple[str, str]] = field(default_factory=set)
    """(guard rule, call signature) of every call a guard refused (some rules let a call
    asked for again pass)."""
    show_failing: bool = True
    """Name the failing checks in the progress line (`completion.show_failing_checks`)."""
    prompts: Prompts = field(default_factory=shipped)
    """The titles of the latest output (`feedback.toml`, [latest])."""

    def __call__(self, event: Event) -> None:
        """A check that ran (the state listens to the loop's events for them): the harness's,
        climbing's baseline, or the model's own `verify_progress`."""
        match event:
            case Verified():
                self.verified(event)
            case Measured():
                self.checked(event.passing, event.total, event.label)
            case ToolRan(tool="verify_progress", metadata={"total": total, **meta}):
                self.checked(meta["passing"], total, meta["label"])
            case CandidatesTried(candidates=lines, total=total) if total:
                # a step that passes more is the way forward seen, applied or not: not a stall
                self.saw(max((line.passing for line in lines), default=-1) / total)

    def turn_started(self) -> None:
        self.turns_since_news += 1

    def asked(self) -> None:
        """The model was asked with what was to be said: it is said."""
        self.feedback = []

    def tell(self, feedback: str) -> None:
        """Say `feedback` to the model on the next turn (a warning, a redirect, a diagnosis,
        what climbing saw, a file the harness seeded)."""
        self.feedback.append(feedback)

    def no_gain(self) -> None:
        """Climbing's best step gained nothing: explore on the next turn."""
        self.stuck = True

    def refused(
        self,
        feedback: str,
        *,
        repeated: bool = False,
        call: tuple[str, str] | None = None,
        signature: str | None = None,
    ) -> None:
        """A call was refused (by a guard, or no candidate was worth applying); `repeated`: as
        a repetition, which is the model's way of saying it is done (counted as a repeat);
        `call`: its (tool, guard rule); `signature`: the call's, where a guard refused it."""
        self.feedback.append(feedback)
        if call is not None and signature is not None:
            self.denied.add((call[1], signature))
        self.stuck = True
        self.refused_call = call
        self.turns_since_success += 1
        if repeated:
            self.repeats += 1

    def unreadable(self, feedback: str) -> None:
        """The answer could not be read as a call."""
        self.feedback.append(feedback)
        self.stuck = True
        self.consecutive_failures += 1
        self.turns_since_success += 1

    def ran(self, call: ToolCall, result: ToolResult) -> str:
        """A call ran: its summary joins the history, and what it shows is the latest output
        the model sees (the file it read, the command's output, the checks, an error); a change
        drops the checks' results and the file's content it made stale."""
        summary = summarize(len(self.history) + 1, call, result, self.prompts)
        self.refused_call = None
        self.history.append(summary)
        self.calls.append(call)
        say, path = self.prompts, call.arguments.get("path")
        if call.name == "read_file":
            self.latest = (say("feedback.latest.content", path=path), result.output)
        elif call.name == "run_command":
            command = clip(str(call.arguments.get("command")), 60)
            self.latest = (say("feedback.latest.output", command=command), result.output)
        elif call.name == "verify_progress":
            self.latest = (say("feedback.latest.checks"), result.output)
        elif not result.success:
            self.latest = (say("feedback.latest.failed", tool=call.name), result.output)
        elif call.name in WRITES and self.latest is not None:
            stale = (say("feedback.latest.checks"), say("feedback.latest.content", path=path))
            if self.latest[0] in stale:
                self.latest = None  # what the change made stale: no longer shown as it is
        return summary.message

    def acted(self, call: ToolCall, result: ToolResult) -> None:
        """A call ran with this result."""
        if result.success and call.signature() not in self.succeeded:
            self.succeeded.add(call.signature())
            self.turns_since_news = 0
        if result.success:
            self.consecutive_failures = 0
            self.had_success = True
            self.turns_since_success = 0
        else:
            self.consecutive_failures += 1
            self.turns_since_success += 1
        if call.name in WRITES:
            self.last_write_failed = not result.success
        if result.success and call.name in ACTING_TOOLS and not result.metadata.get("unchanged"):
            self.weak_shown = False  # what it was shown may have changed
        signature = call.signature()
        self.repeats = self.repeats + 1 if signature == self.last_signature else 1
        self.last_signature = signature
        self.stuck = self.repeats >= 2 or not result.success

    def checked(self, passing: int, total: int, label: str = "tests") -> None:
        """The checks ran: `passing` of `total` pass."""
        progress = passing / total if total else 0.0
        self.progress = self.prompts(
            "feedback.verification.progress", label=label, passing=passing, total=total
        )
        self.passing = passing
        self.saw(progress)
        if progress > self.best_progress:
            self.best_progress = progress
            self.turns_since_improvement = 0
        else:
            self.turns_since_improvement += 1

    def saw(self, progress: float) -> None:
        """A share of the checks passed, on the workspace or by a step tried: more than ever is
        news."""
        if progress > self.best_seen:
            self.best_seen = progress
            self.turns_since_news = 0

    def verified(self, check: Verified) -> None:
        """The harness ran the checks (`why`: what made it): a step of the history, shown as
        the model's own check would be."""
        self.checked(check.passing, check.total, check.label)
        if self.show_failing and check.digest and not check.passed:
            failing = clip(check.digest, 240)
            self.progress = self.prompts(
                "feedback.verification.progress_failing", progress=self.progress, digest=failing
            )
        counts = {"label": check.label, "passing": check.passing, "total": check.total}
        what = clip(self.prompts("feedback.verification.step", why=check.why, **counts), 100)
        self.history.append(StepSummary(len(self.history) + 1, "verification", check.passed, what))
        self.calls.append(ToolCall(name="verify_progress"))

    def weak_passed(self, feedback: str) -> None:
        """Only weak checks passed: the model is shown the result and asked to confirm or fix
        it; its next done-signal is its answer, counted afresh."""
        self.feedback.append(feedback)
        self.weak_shown = True
        self.repeats = 0
        self.consecutive_failures = 0
        self.turns_since_success = 0

    def check_failed(self, feedback: str) -> None:
        """A done-signal's check failed: say so, and count afresh towards the next signal."""
        self.feedback.append(feedback)
        self.consecutive_failures = 0
        self.repeats = 0
        self.turns_since_success = 0
        self.stuck = True
