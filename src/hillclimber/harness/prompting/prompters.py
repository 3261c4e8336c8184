"""The prompts: what the model sees each turn, built to fit its window.

Two ways of asking. `MicroPrompter` (presets fm, climber): every prompt is built anew from the
harness's state — the task, the plan's current step, the last few step summaries, the latest
output the model asked for, and feedback — so it fits a 4,096-token window on any turn.
`ConversationPrompter` (naive, full): the model sees the conversation; `full` trims older
outputs, shows token usage and compacts older turns into summaries at 80% of the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hillclimber.errors import ContextExceeded
from hillclimber.harness.acting.tools import ToolSpec, describe
from hillclimber.harness.prompting.budget import (
    BudgetExceeded,
    PromptBudget,
    Section,
    cut_instruction,
    cut_middle,
)
from hillclimber.harness.prompting.summary import StepSummary, previous_field
from hillclimber.models.base import Message
from hillclimber.sandbox import APP

FORMAT = 'Answer with exactly ONE tool call as JSON: {"name": "<tool>", "arguments": {...}}'

PATHS_REAL = "PATHS: your working directory is {workdir}; a relative path is a path in it."
"""No example path: a small model wrote to `/app/x` itself, and the task's inputs may be in
other folders."""
PATHS_LOCAL = (
    "PATH RULES: your workspace is the current directory. When the task says /app/foo, use "
    "foo or ./foo. Never write outside the workspace."
)

GUIDANCE = """Before task_complete, CHECK your work with a command:
- a file you made: test -f FILE && wc -l FILE && head FILE
- a script: run it and check the exit code and output
- a format: head/tail/wc -l of the output file
- tests: run the whole test suite
- a build: clean rebuild, then run the program
Call task_complete only after such a check shows success."""


def system_prompt(
    tools: Sequence[ToolSpec],
    *,
    local_paths: bool,
    workdir: str = APP,
    availability: str | None = None,
    guidance: bool = False,
    checks: str = "the task's tests",
) -> str:
    """The rules of the game; `checks` names what checks the work (the task's tests, or the
    acceptance checks the harness made). `tools` are every tool of the trial, not only this
    turn's: the rules stay the same all trial long, so the model's back end reuses what it
    computed for them (`offered_now` says the turn's own)."""
    names = ", ".join(t.name for t in tools)
    parts = [
        "You are a careful terminal agent. You act only through tools.",
        FORMAT,
        f"The ONLY tools you may call are: {names}. Any other name fails.",
        describe(tools).replace("the task's tests", checks),
        PATHS_LOCAL if local_paths else PATHS_REAL.format(workdir=workdir),
        "Write files with write_file (exact content). Read a file before changing it.",
        f"Call task_complete when the task is done; it is then checked by {checks}.",
    ]
    if availability:
        parts.append(availability)
    if guidance:
        parts.append(GUIDANCE)
    return "\n".join(parts)


def offered_now(view: TurnView) -> str:
    """The tools of this turn where they are fewer than the trial's (the rules list those),
    said at the end of the prompt: a list that changed at the top of it made llama.cpp
    compute the whole prompt again (a third of the 1.5B's prompt work on 20 TermiGen tasks)."""
    names = [t.name for t in view.tools]
    if not view.known or names == [t.name for t in view.known]:
        return ""
    return f"This turn you may call ONLY: {', '.join(names)}."


def _title(checks: str) -> str:
    """`Tests` for the task's tests (as the prompts always said), else `Checks`."""
    return "Tests" if checks == "the task's tests" else "Checks"


@dataclass
class TurnView:
    """What the loop hands the prompter each turn."""

    instruction: str
    tools: Sequence[ToolSpec]
    """The tools offered this turn."""
    history: Sequence[StepSummary]
    latest: tuple[str, str] | None = None
    """(label, text) of the output the model asked for last."""
    feedback: Sequence[str] = ()
    plan: str | None = None
    step: str | None = None
    hint: str | None = None
    progress: str | None = None
    files: str | None = None
    """Current content of the existing files the task names."""
    turn: int = 1
    max_turns: int = 1
    known: Sequence[ToolSpec] = ()
    """Every tool the trial may offer, which the rules list (empty: this turn's)."""


def harness_notes(view: TurnView) -> tuple[tuple[str, str], ...]:
    """The turn's feedback (a verification that failed, a refusal, a weak pass to judge), the
    progress of the checks, the hint and the turn's tools where they are fewer than the
    trial's, as (label, text) for a conversation to show after its last output."""
    notes = [("", line) for line in view.feedback]
    if view.progress:
        notes.append(("Progress: ", view.progress))
    if view.hint:
        notes.append(("Hint: ", view.hint))
    if now := offered_now(view):
        notes.append(("", now))
    return tuple(notes)


@dataclass
class MicroPrompter:
    budget: PromptBudget
    local_paths: bool
    workdir: str = APP
    """The task's working folder, as the rules name it."""
    previous_steps: int = 3
    show_latest_output: bool = True
    availability: str | None = None
    guidance: bool = False
    checks: str = "the task's tests"
    """What checks the work, in the rules and as the title of the counts."""
    skills: str = ""
    """The example approaches chosen for the task (`skills.select.section`); the first part
    cut when the prompt does not fit."""
    squeeze: int = 0
    """Raised after a back end still reported an overflow: shrinks every later prompt more."""

    def build(self, view: TurnView) -> list[Message]:
        system = system_prompt(
            view.known or view.tools,
            local_paths=self.local_paths,
            workdir=self.workdir,
            availability=self.availability,
            guidance=self.guidance,
            checks=self.checks,
        )
        return self.budget.fit(system, self.sections(view))

    def sections(self, view: TurnView) -> list[Section]:
        """The prompt's parts, each with its priority in the budget (the lowest is cut first)."""
        sections = [
            Section("task", view.instruction, 90, min_chars=200, cut=cut_instruction, title="Task"),
            Section(
                "files",
                view.files or "",
                priority=65,
                cut=cut_middle,
                title="Files named in the task, as they are now",
            ),
            Section("plan", view.plan or "", priority=50, title="Plan"),
            Section("step", view.step or "", priority=95, title="Current step"),
            Section("hint", view.hint or "", priority=40),
            Section("skills", self.skills, priority=30),
            Section(
                "previous",
                previous_field(view.history, self.previous_steps),
                priority=60,
                min_chars=0,
                title="Previous",
            ),
            Section("progress", view.progress or "", 85, title=_title(self.checks)),
            Section(
                "feedback", "\n".join(view.feedback), priority=80, min_chars=120, title="Feedback"
            ),
        ]
        if self.show_latest_output and view.latest is not None:
            label, text = view.latest
            limit = max(len(text) >> self.squeeze, 200) if self.squeeze else len(text)
            latest = cut_middle(text, limit)
            sections.insert(
                4, Section("latest", latest, 70, min_chars=0, cut=cut_middle, title=label)
            )
        turn = f"Turn {view.turn} of {view.max_turns}."
        ask = " ".join(part for part in (turn, offered_now(view), "Your next tool call:") if part)
        sections.append(Section("ask", ask, priority=100, min_chars=10))
        return sections

    can_shrink = True

    def record(self, answer: str, observation: str) -> None:
        """Micro prompts keep no conversation: the state lives in the harness."""

    def shrink(self) -> None:
        self.squeeze += 1
        self.budget.safety *= 2


@dataclass
class ConversationPrompter:
    budget: PromptBudget
    local_paths: bool
    instruction: str
    tools: Sequence[ToolSpec]
    trim: bool = True
    """Trim older outputs and compact (full); off: the plain history (naive)."""
    workdir: str = APP
    """The task's working folder, as the rules name it."""
    token_display: bool = False
    compact_at: float | None = None
    availability: str | None = None
    guidance: bool = False
    checks: str = "the task's tests"
    skills: str = ""
    """The example approaches chosen for the task, after it; dropped first when too long."""
    turns: list[tuple[str, str]] = field(default_factory=list)
    """(assistant answer, observation) per turn."""
    compacted: str = ""
    keep_full: int = 2
    notes: tuple[tuple[str, str], ...] = ()
    """What the harness says this turn (the view's feedback, progress and hint: (label,
    text)), after the latest observation where it does not already say it."""

    @property
    def can_shrink(self) -> bool:
        """The plain history (naive) is never shrunk: an overflow ends the trial."""
        return self.trim

    def _system(self) -> str:
        return system_prompt(
            self.tools,
            local_paths=self.local_paths,
            workdir=self.workdir,
            availability=self.availability,
            guidance=self.guidance,
            checks=self.checks,
        )

    def _messages(
        self, turns: Sequence[tuple[str, str]], older: set[int] | frozenset[int]
    ) -> list[Message]:
        messages = [Message(role="system", content=self._system())]
        task = f"Task:\n{self.instruction}"
        if self.skills:
            task += f"\n\n{self.skills}"
        if self.compacted:
            task += f"\n\nSummary of earlier steps: {self.compacted}"
        messages.append(Message(role="user", content=task))
        for index, (answer, observation) in enumerate(turns):
            messages.append(Message(role="assistant", content=answer))
            if index in older:
                observation = cut_middle(observation, 300)
            messages.append(Message(role="user", content=observation))
        last = messages[-1]
        said = [label + text for label, text in self.notes if text not in last.content]
        if said:
            messages[-1] = Message(role="user", content=last.content + "\n\n" + "\n".join(said))
        return messages

    def build(self, view: TurnView) -> list[Message]:
        self.tools = view.known or view.tools
        self.notes = harness_notes(view)
        if not self.trim:
            messages = self._messages(self.turns, frozenset())
            if self.budget.tokens(messages) > self.budget.limit:
                raise ContextExceeded("the conversation no longer fits the window")
            return messages
        older = range(max(len(self.turns) - self.keep_full, 0))
        messages = self._messages(self.turns, set(older))
        if self.skills and self.budget.tokens(messages) > self.budget.limit:
            self.skills = ""  # the lowest priority: dropped before any turn is compacted
            messages = self._messages(self.turns, set(older))
        used = self.budget.tokens(messages)
        window = self.budget.profile.context_window
        if self.compact_at is not None and used > self.compact_at * window and len(self.turns) > 2:
            self.compact(view.history)
            messages = self._messages(self.turns, frozenset())
        while self.budget.tokens(messages) > self.budget.limit and len(self.turns) > 1:
            self.compact(view.history)
            messages = self._messages(self.turns, frozenset())
            self.budget.shrinks += 1
        for squeeze in (self._cut_last_output, self._cut_summary, self._cut_instruction):
            if self.budget.tokens(messages) <= self.budget.limit:
                break
            squeeze()
            self.budget.shrinks += 1
            messages = self._messages(self.turns, frozenset())
        if self.budget.tokens(messages) > self.budget.limit:
            raise BudgetExceeded("even the shortest conversation does not fit the window")
        return messages

    def _cut_last_output(self) -> None:
        if self.turns:
            answer, observation = self.turns[-1]
            self.turns[-1] = (cut_middle(answer, 1200), cut_middle(observation, 600))

    def _cut_summary(self) -> None:
        self.compacted = self.compacted[-300:]

    def _cut_instruction(self) -> None:
        over = self.budget.tokens(self._messages(self.turns, frozenset())) - self.budget.limit
        keep = max(len(self.instruction) - int((over + 16) * 4), 300)
        self.instruction = cut_instruction(self.instruction, keep)

    def compact(self, history: Sequence[StepSummary]) -> None:
        """Replace all but the last turn by the harness's step summaries."""
        keep = self.turns[-1:]
        dropped = len(self.turns) - len(keep)
        if dropped <= 0:
            return
        self.compacted = previous_field(history, n=len(history))[-1500:]
        self.turns = keep

    def record(self, answer: str, observation: str) -> None:
        if self.token_display:
            used = self.budget.tokens(self._messages(self.turns, frozenset()))
            observation = f"{observation}\n{self.budget.usage_line(used)}"
        self.turns.append((answer, observation))

    def shrink(self) -> None:
        if len(self.turns) > 1:
            self.turns = self.turns[-1:]
        self.budget.safety *= 2
