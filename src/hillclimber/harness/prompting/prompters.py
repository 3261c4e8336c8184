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
from hillclimber.harness.acting.tools import ToolSpec
from hillclimber.harness.prompting.budget import (
    BudgetExceeded,
    PromptBudget,
    Section,
    cut_instruction,
    cut_middle,
)
from hillclimber.harness.prompting.summary import StepSummary, previous_field
from hillclimber.harness.prompting.templates import Prompts, shipped
from hillclimber.models.base import Message
from hillclimber.sandbox import APP
from hillclimber.skills.rank import Scored


@dataclass(frozen=True)
class Rules:
    """The rules of the game, the system message of every turn (`rules.toml`), the same for
    both prompters."""

    prompts: Prompts = field(default_factory=shipped)
    local_paths: bool = False
    """The task runs in a plain folder, not at its own paths."""
    workdir: str = APP
    """The task's working folder, as the rules name it."""
    availability: str | None = None
    """What the sandbox has, where probed."""
    guidance: bool = False
    by_tests: bool = True
    """The task's tests check the work (feedback tests), else the harness's checks."""

    @property
    def checks(self) -> str:
        """What checks the work, as the rules say it."""
        by = "tests" if self.by_tests else "checks"
        return self.prompts(f"rules.checked_by_{by}")

    def system(self, tools: Sequence[ToolSpec]) -> str:
        """The rules for `tools`: every tool of the trial, not only this turn's. They stay the
        same all trial long, so the model's back end reuses what it computed for them
        (`offered_now` says the turn's own)."""
        say = self.prompts
        parts = [
            say("rules.intro"),
            say("rules.format"),
            say("rules.only", names=", ".join(t.name for t in tools)),
            tool_lines(say, tools, self.checks),
            say("rules.paths_local")
            if self.local_paths
            else say("rules.paths", workdir=self.workdir),
            say("rules.writing"),
            say("rules.complete", checks=self.checks),
        ]
        if self.availability:
            parts.append(self.availability)
        if self.guidance:
            parts.append(say("rules.guidance"))
        return "\n".join(parts)


def tool_lines(prompts: Prompts, tools: Sequence[ToolSpec], checks: str) -> str:
    """The tool list: a line per tool, its signature and description."""
    return "\n".join(
        prompts("rules.tool", signature=t.signature(), description=description(prompts, t, checks))
        for t in tools
    )


def description(prompts: Prompts, tool: ToolSpec, checks: str) -> str:
    """What the model is told of `tool`; `checks` is what checks the work, as said."""
    return prompts(f"rules.tools.{tool.name}", checks=checks)


def offered_now(prompts: Prompts, view: TurnView) -> str:
    """The tools of this turn where they are fewer than the trial's (the rules list those),
    said at the end of the prompt: a list that changed at the top of it made llama.cpp
    compute the whole prompt again (a third of the 1.5B's prompt work on 20 TermiGen tasks)."""
    names = [t.name for t in view.tools]
    if not view.known or names == [t.name for t in view.known]:
        return ""
    return prompts("rules.only_now", names=", ".join(names))


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
    folder: str | None = None
    """The working folder and its entries (`view.show_folder`)."""
    turn: int = 1
    max_turns: int = 1
    known: Sequence[ToolSpec] = ()
    """Every tool the trial may offer, which the rules list (empty: this turn's)."""


def harness_notes(prompts: Prompts, view: TurnView) -> tuple[tuple[str, str], ...]:
    """The turn's feedback (a verification that failed, a refusal, a weak pass to judge), the
    progress of the checks, the hint and the turn's tools where they are fewer than the
    trial's, for a conversation to show after its last output: (what is said, the line that
    says it)."""
    notes = [(line, line) for line in view.feedback]
    if view.progress:
        notes.append((view.progress, prompts("conversation.progress", progress=view.progress)))
    if view.hint:
        notes.append((view.hint, prompts("conversation.hint", hint=view.hint)))
    if now := offered_now(prompts, view):
        notes.append((now, now))
    return tuple(notes)


@dataclass
class MicroPrompter:
    budget: PromptBudget
    rules: Rules = field(default_factory=Rules)
    previous_steps: int = 3
    show_latest_output: bool = True
    skills: str = ""
    """The example approaches chosen for the task (`skills_section`); the first part
    cut when the prompt does not fit."""
    squeeze: int = 0
    """Raised after a back end still reported an overflow: shrinks every later prompt more."""

    def build(self, view: TurnView) -> list[Message]:
        system = self.rules.system(view.known or view.tools)
        return self.budget.fit(system, self.sections(view))

    def sections(self, view: TurnView) -> list[Section]:
        """The prompt's parts, each with its priority in the budget (the lowest is cut first)."""
        say = self.rules.prompts
        progress = "micro.progress_tests" if self.rules.by_tests else "micro.progress_checks"
        sections = [
            Section("task", view.instruction, 90, min_chars=200, cut=cut_instruction,
                    title=say("micro.task")),
            Section("files", view.files or "", 65, cut=cut_middle, title=say("micro.files")),
            Section("folder", view.folder or "", 64, cut=cut_middle, title=say("micro.folder")),
            Section("plan", view.plan or "", priority=50, title=say("micro.plan")),
            Section("step", view.step or "", priority=95, title=say("micro.step")),
            Section("hint", view.hint or "", priority=40),
            Section("skills", self.skills, priority=30),
            Section("previous", previous_field(view.history, self.previous_steps, say), 60,
                    min_chars=0, title=say("micro.previous")),
            Section("progress", view.progress or "", 85, title=say(progress)),
            Section("feedback", "\n".join(view.feedback), 80, min_chars=120,
                    title=say("micro.feedback")),
        ]  # fmt: skip
        if self.show_latest_output and view.latest is not None:
            label, text = view.latest
            limit = max(len(text) >> self.squeeze, 200) if self.squeeze else len(text)
            latest = cut_middle(text, limit)
            after_step = next(i for i, s in enumerate(sections) if s.name == "step") + 1
            sections.insert(  # by name: a section added above must not move it
                after_step, Section("latest", latest, 70, min_chars=0, cut=cut_middle, title=label)
            )
        turn = say("micro.turn", turn=view.turn, max_turns=view.max_turns)
        last = (turn, offered_now(say, view), say("micro.ask"))
        sections.append(Section("ask", " ".join(part for part in last if part), 100, min_chars=10))
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
    instruction: str
    tools: Sequence[ToolSpec]
    rules: Rules = field(default_factory=Rules)
    trim: bool = True
    """Trim older outputs and compact (full); off: the plain history (naive)."""
    token_display: bool = False
    compact_at: float | None = None
    skills: str = ""
    """The example approaches chosen for the task, after it; dropped first when too long."""
    turns: list[tuple[str, str]] = field(default_factory=list)
    """(assistant answer, observation) per turn."""
    compacted: str = ""
    keep_full: int = 2
    notes: tuple[tuple[str, str], ...] = ()
    """What the harness says this turn (the view's feedback, progress and hint: (what is
    said, the line that says it)), after the latest observation where it does not already say
    it."""

    @property
    def can_shrink(self) -> bool:
        """The plain history (naive) is never shrunk: an overflow ends the trial."""
        return self.trim

    def _messages(
        self, turns: Sequence[tuple[str, str]], older: set[int] | frozenset[int]
    ) -> list[Message]:
        say = self.rules.prompts
        task = [say("conversation.task", instruction=self.instruction)]
        if self.skills:
            task.append(self.skills)
        if self.compacted:
            task.append(say("conversation.summary", summary=self.compacted))
        messages = [
            Message(role="system", content=self.rules.system(self.tools)),
            Message(role="user", content="\n\n".join(task)),
        ]
        for index, (answer, observation) in enumerate(turns):
            messages.append(Message(role="assistant", content=answer))
            if index in older:
                observation = cut_middle(observation, 300)
            messages.append(Message(role="user", content=observation))
        last = messages[-1]
        said = [line for text, line in self.notes if text not in last.content]
        if said:
            messages[-1] = Message(role="user", content=last.content + "\n\n" + "\n".join(said))
        return messages

    def build(self, view: TurnView) -> list[Message]:
        self.tools = view.known or view.tools
        self.notes = harness_notes(self.rules.prompts, view)
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
        self.compacted = previous_field(history, len(history), self.rules.prompts)[-1500:]
        self.turns = keep

    def record(self, answer: str, observation: str) -> None:
        if self.token_display:
            used = self.budget.tokens(self._messages(self.turns, frozenset()))
            observation = f"{observation}\n{self.usage_line(used)}"
        self.turns.append((answer, observation))

    def usage_line(self, used: int) -> str:
        """`[Token usage: 45,000/128,000 (35%)]`, with a warning at 60% and 80%."""
        window = self.budget.profile.context_window
        share = used / window
        say = self.rules.prompts
        line = say(
            "conversation.usage", used=f"{used:,}", window=f"{window:,}", share=f"{share:.0%}"
        )
        if share >= 0.8:
            line += say("conversation.usage_full")
        elif share >= 0.6:
            line += say("conversation.usage_high")
        return line

    def shrink(self) -> None:
        if len(self.turns) > 1:
            self.turns = self.turns[-1:]
        self.budget.safety *= 2


def skills_section(chosen: Sequence[Scored], prompts: Prompts) -> str:
    """The example approaches chosen for the task (`skills.toml`): each description (never
    its id) and its example, indented."""
    if not chosen:
        return ""
    parts = [prompts("skills.title")]
    for scored in chosen:
        example = "\n".join(f"    {line}" for line in scored.skill.example.strip().splitlines())
        parts.append(prompts("skills.skill", description=scored.skill.description, example=example))
    return "\n".join(parts)
