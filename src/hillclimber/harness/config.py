"""`HarnessConfig`: everything that makes one harness setting differ from another, as data.

Settings are grouped by what they shape: how the model is asked (`ask`), what it sees
(`view`), when the loop may end (`completion`), climbing on checks (`climbing`), which guard
rules refuse calls (`guards`), planning (`planning`) and skills (`skills`). The presets are
TOML files shipped in `harness/presets/`, loaded by `presets.py`; the CLI only picks one and
overrides fields. No behaviour depends on a preset's name. See docs/presets.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from hillclimber.harness.acting.tools import TOOLS
from hillclimber.skills.settings import SkillSettings

ALL_TOOLS = tuple(TOOLS)
"""Every tool's name, in the order they are declared (`tools.py`)."""
COMMAND_TIMEOUT_SEC = 60.0
TRY_SEED_STRIDE = 7919
"""Seeds of successive tries lie this far apart, past the turn numbers a stuck turn adds."""


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Asking(_Settings):
    """How the model is asked."""

    temperature: float = 0.0
    retry_temperature: float | None = 0.8
    """When the model is stuck (a refused or repeated action, a failed check), ask the next
    turn at this temperature, seeded by the turn, so it explores another action instead of
    repeating a deterministic mistake. None: always `temperature`."""
    seed: int = Field(default=0, ge=0)
    """Added to the seed of every request: another seed is another draw of the warmer turns
    (`climb` repeats the starting setting with other seeds to measure the noise)."""
    max_answer_tokens: int = Field(default=512, ge=32)
    constrained: bool = True
    """Constrain the answer to the tool-call schema where the back end can."""
    free_first: bool = True
    """With `constrained`: decode the answer freely first, and under the schema only when the
    forgiving parser cannot read it. Decoding under the schema's grammar costs 1.7x here on
    the harness's own prompts; the free answer reads as a call in nearly every case
    (benchmarks/models.py)."""
    forgiving_parser: bool = True
    """Read whatever shape the answer has (tags, fences, bare or broken JSON, prose forms);
    off: a plain JSON parser."""
    code: Literal["command", "program"] = "command"
    """What the model writes when asked apart from the loop for code that works an answer out
    (a computed answer): one shell command, or a short Python program (where
    the sandbox has python3; run from a here-document). `harness/programs.py`."""


class View(_Settings):
    """What the model sees each turn."""

    mode: Literal["conversation", "micro"] = "micro"
    """conversation: the model sees the history; micro: every prompt is built anew from the
    harness's state (task, step, last results), so it fits a tiny window."""
    trim_history: bool = True
    """Conversation mode: trim older outputs and compact older turns to fit the window; off:
    the plain growing history, and an overflow ends the trial."""
    previous_steps: int = Field(default=3, ge=0)
    """How many step summaries go into `Previous:` (micro mode)."""
    show_latest_output: bool = True
    """Put the latest file content / command output the model asked for into the prompt."""
    output_chars: int = 2000
    """Tool output cap in characters (the tool also caps at 100 lines)."""
    show_named_files: bool = True
    """Show the current content of the existing files the task names (micro mode)."""
    show_folder: bool = False
    """Show what the working folder holds, its entries by name (micro mode): a task that names
    no input file leaves a small model to guess one (on TB2 the 1.5B read made-up names)."""
    hints: Literal["suite", "on", "off"] = "suite"
    """Generic hints: as the suite declares, always, or never."""
    probe_commands: bool = True
    """Tell the model up front which common commands the sandbox has."""
    error_recovery: bool = False
    """After a failed command, say what kind of failure it was and what to try instead."""
    verification_guidance: bool = False
    """The list of self-check commands by task kind."""
    token_display: bool = False
    """`[Token usage: n/window (p%)]` in each observation, warnings at 60% and 80%."""
    compact_at: float | None = None
    """Share of the window at which older turns are summarised (conversation mode)."""
    prompts: str | None = None
    """A folder of prompt templates of one's own (`hillclimber prompts copy DIR`): each of
    its files replaces the shipped file's texts key by key; none: the shipped ones."""


class CompletionSettings(_Settings):
    """When the loop may end."""

    verify_gated: bool = True
    """Every end of the loop goes through a check when there are checks; off: the model's
    task_complete (or the turn budget) ends it."""
    show_failing_checks: bool = True
    """After a failed check, name the failing checks in the feedback."""
    max_verify_retries: int = Field(default=2, ge=1)
    """Checks at done-signals before the trial ends as failed."""
    same_action_limit: int = 3
    failures_after_success: int = 3
    no_progress_turns: int | None = 8
    """End (through a check) after this many turns without a new successful action."""
    stall_turns: int | None = 10
    """End the trial (through one last check) after this many turns with no news: no more
    checks passing than ever (on the workspace, or by a step climbing tried and put back) and
    no successful action not seen before (small models spin for the rest of their budget)."""
    confirm: bool = True
    """On a pass of the harness's own checks with none that shows the values right, the model
    is shown the result; its next done-signal with nothing changed ends the trial `confirmed`.
    False: the model's word never ends it, and it goes on to its last chance
    (`unconfirmed`)."""


class Climbing(_Settings):
    """Climbing on checks: the workspace is tried, scored and put back."""

    auto_verify: bool = False
    """Run the checks after every successful change and show `tests p/t passing`."""
    candidates: int = Field(default=1, ge=1, le=len(ALL_TOOLS))
    """When the model's call does not pass every check, also try up to this many calls in
    all (other tools, other files), each on the workspace with the checks run and the
    workspace put back; apply the best, never one that loses checks. 1: take the model's call
    as it is."""
    unpaid_asks: int = Field(default=0, ge=0)
    """Stop asking other tools for the rest of the trial once this many such answers in a row
    were not applied (one applied as it came, not another reading of it, starts the count
    again): an ask that has not paid in a trial seldom pays later in it, and each is a whole
    answer of the model (`benchmarks/asides.py`). 0: no limit."""
    computed: int = Field(default=0, ge=0, le=10)
    """While no candidate passes every check, ask up to this many times a trial for one shell
    command that works the answer file out from the input, and try it with its output sent to
    that file (`climbing/computed.py`). 0: never."""
    dynamic_tools: bool = False
    """Offer the tools the state calls for: after a write, only checking (when checks do not
    run by themselves); when stuck, every acting tool and no read_file."""
    drop_reads_after: int | None = Field(default=4, ge=1)
    """dynamic_tools: after this many turns with no check newly passing, read_file is not
    offered (none: always offered)."""


class GuardSettings(_Settings):
    """Which rules may refuse a call before it runs (harness/guards)."""

    rules: tuple[str, ...] = ()
    """Among: protected_files, inputs_read_only, overwrites, rereading, tool_sequence,
    workspace_bounds, dangerous_commands, repetition, test_before_submit."""
    verify_between_writes: bool = False
    """tool_sequence: a write must be checked before the next write — where there are checks
    and they do not run after every write by themselves (`auto_verify`)."""

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, rules: tuple[str, ...]) -> tuple[str, ...]:
        from hillclimber.harness.guards import RULES

        unknown = [rule for rule in rules if rule not in RULES]
        if unknown:
            raise ValueError(f"unknown rule {unknown[0]} (known: {', '.join(RULES)})")
        return rules


class Checks(_Settings):
    """The harness's own acceptance checks (`feedback = "self"`)."""

    propose: bool = False
    """Also ask the model, once, for a few shell checks (kept only if they only look, fail
    before any work and pass the guards). Off by default: a small model's proposals are often
    unsatisfiable (`… succeeds and prints 'done'` of a command that prints nothing), and an
    unsatisfiable check blocks a correct answer (see benchmarks/checks.py --model)."""


class Planning(_Settings):
    planner: bool = False
    """Supervisor/worker micro-steps: the task broken into a short list of steps first."""
    complexity: bool = True
    """Classify the task once; the class sets the turn budget and whether the planner runs."""
    seed_fixes: bool = False
    """A corrected version the task asks for (`fixed_x.R` of `x.R`) starts as a copy of the
    original, made before the first turn (`seeding.py`)."""


class Tries(_Settings):
    """Independent tries of the whole task in one trial: each from the same fresh start, in a
    workspace of its own, sampled with a seed of its own; what each left is compared and the
    answer most tries agree on is kept (`hillclimber/tries/`). The task's tests score only
    the kept answer: one trial, one score."""

    n: int = Field(default=1, ge=1, le=9)
    """Tries at most. 1: the agent runs once, as without this."""
    stop: Literal["agreement", "all"] = "agreement"
    """agreement: stop as soon as two tries left the same answer and no check fails on it
    (agreement then costs about two tries, not n); all: run every try."""
    temperature: float = Field(default=0.5, gt=0, le=2)
    """The temperature every try samples at (n > 1), each with its own seed: tries that could
    not have differed prove nothing by agreeing. A stuck turn still asks at
    `ask.retry_temperature` where that is warmer."""
    vary: tuple[dict[str, Any], ...] = ()
    """Settings changed for one try each, in order (keys as for `--set`): with
    `[{}, {"view.show_folder" = true}]` the second try also sees the working folder's entries;
    tries past the list run the setting as it is. Tries that see the task another way are less
    likely to make the same mistake, so their agreeing says more. `tries.*`, `feedback` and
    `preset` stay the trial's."""


_IDLE_IN = {
    "conversation": ("previous_steps", "show_latest_output", "show_named_files", "show_folder"),
    "micro": ("trim_history", "token_display", "compact_at"),
}
"""The view's settings each mode ignores: the conversation shows the history itself; a micro
prompt is built anew each turn and never grows."""

GROUPS = (
    "ask", "view", "completion", "climbing", "guards", "checks", "planning", "skills", "tries",
)  # fmt: skip
Feedback = Literal["tests", "self", "none"]


class HarnessConfig(_Settings):
    preset: str = "custom"
    """The setting's name (a preset's, or a settings file's)."""
    feedback: Feedback = "self"
    """What checks the work during the run: `tests` (the task's own tests, where the task has
    them), `self` (acceptance checks the harness builds from the instruction and the starting
    workspace), `none`. The task's tests always score the trial after the agent stops."""
    tools: tuple[str, ...] = ALL_TOOLS
    """The tools offered; verify_progress only where there are checks."""
    max_turns: int = Field(default=30, ge=1)
    """Model calls that may act (parse failures and refusals count too)."""
    command_timeout_sec: float = COMMAND_TIMEOUT_SEC
    ask: Asking = Asking()
    view: View = View()
    completion: CompletionSettings = CompletionSettings()
    climbing: Climbing = Climbing()
    guards: GuardSettings = GuardSettings()
    checks: Checks = Checks()
    planning: Planning = Planning()
    skills: SkillSettings = SkillSettings()
    tries: Tries = Tries()

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, tools: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [t for t in tools if t not in ALL_TOOLS]
        if unknown or "task_complete" not in tools:
            raise ValueError(
                f"tools must be among {', '.join(ALL_TOOLS)} and include task_complete"
            )
        return tools

    @model_validator(mode="after")
    def _every_setting_counts(self) -> HarnessConfig:
        """A setting that does nothing in this combination keeps its default: one changed
        there would be a setting a user believes in and the loop ignores."""
        idle = _IDLE_IN[self.view.mode]
        changed = [
            name for name in idle if getattr(self.view, name) != View.model_fields[name].default
        ]
        if changed:
            raise ValueError(f"view.{changed[0]} does nothing in {self.view.mode} mode")
        if self.guards.verify_between_writes and "tool_sequence" not in self.guards.rules:
            raise ValueError("guards.verify_between_writes needs the rule tool_sequence")
        if self.ask.code != "command" and not self.climbing.computed:
            raise ValueError("ask.code asks for no code without climbing.computed")
        if self.tries.n == 1 and self.tries.model_dump() != Tries(n=1).model_dump():
            raise ValueError("tries.stop, .temperature and .vary do nothing with tries.n = 1")
        self._check_vary()
        return self

    def _check_vary(self) -> None:
        """Each try's changes name settings a try may change, and make a valid setting."""
        vary = self.tries.vary
        if len(vary) > self.tries.n:
            raise ValueError(f"tries.vary has {len(vary)} tables for {self.tries.n} tries")
        for index, changes in enumerate(vary):
            try:
                for key in changes:
                    group, name = setting_path(key)
                    if group == "tries" or name in ("feedback", "preset"):
                        raise ValueError(f"{key} is the trial's, not a try's")
                self._varied(index)
            except ValidationError as err:
                message = str(err.errors()[0]["msg"]).removeprefix("Value error, ")
                raise ValueError(f"tries.vary[{index}]: {message}") from None
            except ValueError as err:
                raise ValueError(f"tries.vary[{index}]: {err}") from None

    def _varied(self, index: int) -> HarnessConfig:
        """This setting with try `index`'s changes (`tries.vary`) made."""
        if index >= len(self.tries.vary) or not self.tries.vary[index]:
            return self
        bare = self.model_copy(update={"tries": Tries()})  # validated without the tries again
        return bare.with_settings(self.tries.vary[index]).model_copy(update={"tries": self.tries})

    def for_try(self, index: int) -> HarnessConfig:
        """The setting of try `index` (0-based) of several: its changes (`tries.vary`) made,
        sampled at `tries.temperature` with a seed of its own (recorded with the try). One
        try: the setting as it is."""
        if self.tries.n == 1:
            return self
        setting = self._varied(index)
        ask = setting.ask.model_copy(
            update={
                "temperature": max(setting.ask.temperature, self.tries.temperature),
                "seed": setting.ask.seed + TRY_SEED_STRIDE * index,
            }
        )
        return setting.model_copy(update={"ask": ask})

    def consults_checks(self) -> bool:
        """Whether the loop looks at checks at all (gated ends, verify_progress, auto-verify);
        `naive` does not, whatever the feedback."""
        return (
            self.climbing.auto_verify
            or "verify_progress" in self.tools
            or self.completion.verify_gated
        )

    def sequences_writes(self, *, checks: bool) -> bool:
        """Whether a write must be checked before the next one (`verify_between_writes`): only
        where there are checks to call and they do not already run after every write."""
        return self.guards.verify_between_writes and checks and not self.climbing.auto_verify

    def with_settings(self, settings: Mapping[str, Any]) -> HarnessConfig:
        """A copy with `settings` changed: keys are dotted (`completion.max_verify_retries`)
        or a setting's own name when only one group has it (`max_verify_retries`)."""
        data = self.model_dump()
        for key, value in settings.items():
            group, name = setting_path(key)
            (data[group] if group else data)[name] = value
        return HarnessConfig.model_validate(data)


def setting_path(key: str) -> tuple[str | None, str]:
    """(group or None for a top-level setting, name) of a setting key; ValueError if none."""
    group, _, name = key.rpartition(".")
    if group:
        if group in GROUPS and name in _group_fields(group):
            return group, name
        raise ValueError(f"no setting {key}")
    if key in HarnessConfig.model_fields and key not in GROUPS:
        return None, key
    owners = [g for g in GROUPS if key in _group_fields(g)]
    if len(owners) != 1:
        raise ValueError(f"no setting {key}" if not owners else f"say which: {owners}.{key}")
    return owners[0], key


def _group_fields(group: str) -> dict[str, Any]:
    annotation = HarnessConfig.model_fields[group].annotation
    assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return dict(annotation.model_fields)
