"""`HarnessConfig`: everything that makes one harness setting differ from another, as data.

The loop reads it; the CLI only picks a preset and overrides fields. Preset names are part of
the interface: `naive` (the honest baseline), `fm` (micro-tasks for tiny windows), `climber`
(fm plus test feedback after every write), `full` (conversation mode for larger windows).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hillclimber.errors import HillclimberError

ALL_TOOLS = (
    "read_file",
    "write_file",
    "edit_file",
    "run_command",
    "verify_progress",
    "task_complete",
)


class HarnessConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: str = "custom"
    mode: Literal["conversation", "micro"] = "micro"
    """conversation: the model sees the history (trimmed); micro: every prompt is built anew
    from the harness's state (task, step, last results), so it fits a tiny window."""
    tools: tuple[str, ...] = ALL_TOOLS
    """The tools offered; verify_progress only where a verifier exists."""

    # turns and time
    max_turns: int = Field(default=30, ge=1)
    """Model calls that may act (parse failures and denials count too)."""
    command_timeout_sec: float = 60.0

    # asking the model
    temperature: float = 0.0
    retry_temperature: float | None = 0.8
    """When the model is stuck (a refused or repeated action, a failed verification), ask the
    next turn at this temperature, seeded by the turn, so it explores another action instead
    of repeating a deterministic mistake. None: always `temperature`."""
    max_answer_tokens: int = Field(default=512, ge=32)
    constrained: bool = True
    """Constrain the answer to the tool-call schema where the back end can."""
    forgiving_parser: bool = True

    # what the model sees
    previous_steps: int = Field(default=3, ge=0)
    """How many step summaries go into `Previous:` (micro mode)."""
    show_latest_output: bool = True
    """Put the latest file content / command output the model asked for into the prompt."""
    output_chars: int = 2000
    """Tool output cap in characters (the tool also caps at 100 lines)."""
    show_named_files: bool = True
    """Show the current content of the existing files the task names (micro mode)."""
    hints: Literal["suite", "on", "off"] = "suite"
    """Generic hints: as the suite declares, always, or never."""
    probe_commands: bool = True
    """Tell the model up front which common commands the sandbox has."""
    verification_guidance: bool = False
    """The list of self-check commands by task kind (seed 004 §2)."""
    token_display: bool = False
    """`[Token usage: n/window (p%)]` in each observation, warnings at 60% and 80%."""
    compact_at: float | None = None
    """Share of the window at which older turns are summarised (conversation mode)."""

    # completion
    verify_gated: bool = True
    """Every end of the loop goes through a verification when a verifier exists."""
    show_failing_checks: bool = True
    """After a failed verification, name the failing checks in the feedback."""
    max_verify_retries: int = Field(default=2, ge=1)
    same_action_limit: int = 3
    failures_after_success: int = 3
    no_progress_turns: int | None = 8
    """End (through verification) after this many turns without a new successful action."""

    # climber behaviour
    auto_verify: bool = False
    """Run the tests after every successful write/edit and show `tests p/t passing`."""
    candidates: int = Field(default=1, ge=1, le=len(ALL_TOOLS))
    """Climbing (with a verifier): when the model's call does not raise the count of passing
    tests, also try up to this many calls in all, one per other acting tool, each on the
    workspace with the tests run and the workspace put back; apply the best, never one that
    loses tests. 1: take the model's call as it is."""
    guard_overwrites: bool = False
    """Refuse a write_file that would drop most lines of an existing file; suggest edit_file
    or appending instead."""
    monitor: tuple[str, ...] = ()
    """Monitor rules on: tool_sequence, workspace_bounds, dangerous_commands, repetition,
    test_before_submit."""
    climber_sequencing: bool = False
    dynamic_tools: bool = False
    error_recovery: bool = False

    # planning
    planner: bool = False
    """Supervisor/worker micro-steps (seed 002)."""
    complexity: bool = True
    """Classify the task once; the class sets the turn budget and whether the planner runs."""

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, tools: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [t for t in tools if t not in ALL_TOOLS]
        if unknown or "task_complete" not in tools:
            raise ValueError(
                f"tools must be among {', '.join(ALL_TOOLS)} and include task_complete"
            )
        return tools

    def feedback(self) -> Literal["tests", "none"]:
        """`tests` when the agent can see test results during its run."""
        sees = self.auto_verify or "verify_progress" in self.tools or self.verify_gated
        return "tests" if sees else "none"


_MONITOR_ALL = (
    "tool_sequence",
    "workspace_bounds",
    "dangerous_commands",
    "repetition",
    "test_before_submit",
)

PRESETS: dict[str, dict[str, Any]] = {
    "naive": {
        "mode": "conversation",
        "retry_temperature": None,
        "show_named_files": False,
        "tools": ("run_command", "task_complete"),
        "constrained": False,
        "forgiving_parser": False,
        "show_latest_output": True,
        "hints": "off",
        "probe_commands": False,
        "verify_gated": False,
        "no_progress_turns": None,
        "complexity": False,
    },
    "fm": {
        "mode": "micro",
        "tools": ("read_file", "write_file", "edit_file", "run_command", "task_complete"),
        "planner": True,
        "guard_overwrites": True,
        "monitor": ("workspace_bounds", "dangerous_commands", "repetition"),
        "error_recovery": True,
    },
    "climber": {
        "mode": "micro",
        "tools": ALL_TOOLS,
        "planner": True,
        "auto_verify": True,
        # it sees the tests after every change: a done-signal that fails them only says again
        # what it knows, so it keeps climbing instead of ending after two
        "max_verify_retries": 8,
        "candidates": 3,
        "guard_overwrites": True,
        "monitor": _MONITOR_ALL,
        "climber_sequencing": True,
        "dynamic_tools": True,
        "error_recovery": True,
    },
    "full": {
        "mode": "conversation",
        "show_named_files": False,
        "tools": ALL_TOOLS,
        "monitor": _MONITOR_ALL,
        "error_recovery": True,
        "guard_overwrites": True,
        "verification_guidance": True,
        "token_display": True,
        "compact_at": 0.8,
        "output_chars": 4000,
    },
}


def preset(name: str, **overrides: Any) -> HarnessConfig:
    if name not in PRESETS:
        raise HillclimberError(f"unknown preset '{name}' (choose from: {', '.join(PRESETS)})")
    return HarnessConfig(preset=name, **{**PRESETS[name], **overrides})
