"""Every prompter shows the model what the harness says this turn: a failed verification, a
weak pass to judge, the checks' progress, the hint. (The conversation prompter once dropped
them, so `full` never saw "Verification failed".)"""

from __future__ import annotations

import pytest

from hillclimber.harness.acting.tools import tool_list
from hillclimber.harness.prompting.budget import PromptBudget
from hillclimber.harness.prompting.prompters import (
    ConversationPrompter,
    MicroPrompter,
    Rules,
    TurnView,
)
from hillclimber.models import ModelProfile

PROFILE = ModelProfile(name="roomy", context_window=4096, supports_constraint=False)
TOOLS = tool_list(["write_file", "run_command", "task_complete"])
FEEDBACK = "Verification failed (acceptance checks 1/2): the task is NOT done."
PROGRESS = "acceptance checks 1/2 passing"
HINT = "Read a file before you copy it."


def micro() -> MicroPrompter:
    return MicroPrompter(PromptBudget(PROFILE, answer_tokens=128))


def conversation(trim: bool) -> ConversationPrompter:
    budget = PromptBudget(PROFILE, answer_tokens=128)
    return ConversationPrompter(budget, instruction="Write hello.txt.", tools=TOOLS, trim=trim)


@pytest.mark.parametrize(
    "make", [micro, lambda: conversation(True), lambda: conversation(False)],
    ids=["micro", "conversation", "plain conversation"],
)  # fmt: skip
@pytest.mark.parametrize("turns", [0, 2])
def test_what_the_harness_says_reaches_the_prompt(make: object, turns: int) -> None:
    prompter = make()  # type: ignore[operator]
    if isinstance(prompter, ConversationPrompter):
        for n in range(turns):
            prompter.record(
                f'{{"name": "run_command", "arguments": {{"command": "ls {n}"}}}}', "ok"
            )
    view = TurnView(
        instruction="Write hello.txt.",
        tools=TOOLS,
        history=[],
        feedback=[FEEDBACK],
        progress=PROGRESS,
        hint=HINT,
    )
    prompt = "\n".join(message.content for message in prompter.build(view))
    for said in (FEEDBACK, PROGRESS, HINT):
        assert said in prompt


@pytest.mark.parametrize("kind", ["micro", "conversation"])
def test_the_rules_name_the_tasks_own_working_folder(kind: str) -> None:
    """A TermiGen task works in /workspace: the rules told the model its files were in /app."""
    prompter = micro() if kind == "micro" else conversation(True)
    prompter.rules = Rules(workdir="/workspace")
    view = TurnView(instruction="Write out.txt.", tools=TOOLS, history=[], turn=1, max_turns=5)
    system = prompter.build(view)[0].content
    assert "your working directory is /workspace; a relative path is a path in it" in system
    assert "/app" not in system


@pytest.mark.parametrize(
    "make", [micro, lambda: conversation(True), lambda: conversation(False)],
    ids=["micro", "conversation", "plain conversation"],
)  # fmt: skip
def test_the_turns_own_tools_are_said_at_the_end_and_the_rules_stay(make: object) -> None:
    """The rules list every tool of the trial, the same each turn (a back end reuses what it
    computed for them); where a turn offers fewer, its last message says which."""
    prompter = make()  # type: ignore[operator]
    now = tool_list(["run_command", "task_complete"])
    built = [
        prompter.build(
            TurnView(
                instruction="Write hello.txt.",
                tools=tools,
                history=[],
                known=TOOLS,
                turn=turn,
                max_turns=5,
            )
        )
        for turn, tools in ((1, TOOLS), (2, now))
    ]
    assert built[0][0].content == built[1][0].content
    assert "may call are: write_file, run_command, task_complete." in built[1][0].content
    assert "This turn you may call ONLY" not in built[0][-1].content
    assert "This turn you may call ONLY: run_command, task_complete." in built[1][-1].content


def test_the_micro_prompts_parts_keep_their_order_whatever_else_is_shown() -> None:
    """Task, files named, folder, plan, current step, then the latest output, the hint and the
    rest. (Adding the folder's part once moved the latest output above the current step in
    every micro prompt, the folder shown or not.)"""
    view = TurnView(
        instruction="Write hello.txt.",
        tools=TOOLS,
        history=[],
        plan="[>] 1. echo hi > /app/hello.txt",
        step="echo hi > /app/hello.txt",
        files="Content of /app/in.txt:\nx\n",
        latest=("Output", "hi"),
        hint=HINT,
    )
    prompt = micro().build(view)[-1].content
    order = ["Task:", "Files named", "Plan:", "Current step:", "Output:", HINT, "Your next tool"]
    found = [prompt.find(part) for part in order]
    assert -1 not in found and found == sorted(found), prompt
