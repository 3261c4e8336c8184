"""The prompt templates: every sentence the model is shown is in `harness/prompts/*.toml`; a
folder of one's own replaces them key by key, checked at load (one line naming file and key);
and every prompt, rendered at its largest, still fits the smallest window (Apple's 4,096)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hillclimber.harness.acting.diagnosis import FailureKind, RecoveryTracker
from hillclimber.harness.acting.probe import COMMON_COMMANDS, COMMON_MODULES, availability_note
from hillclimber.harness.acting.tools import TOOLS, ToolCall, ToolResult, tool_list
from hillclimber.harness.checks import build_checks
from hillclimber.harness.checks.propose import INSTRUCTION_CHARS, MAX_CHECKS
from hillclimber.harness.climbing.reasking import Target
from hillclimber.harness.guards import Guards, Situation, Verdict
from hillclimber.harness.parsing.outcome import ParseFailure, ParseFailureReason
from hillclimber.harness.planner import Plan, supervisor_prompt
from hillclimber.harness.presets import load_harness
from hillclimber.harness.programs import HEAD_CHARS, MAX_PROGRAM_TOKENS, CodeAsk
from hillclimber.harness.prompting.budget import PromptBudget
from hillclimber.harness.prompting.prompters import MicroPrompter, Rules, TurnView
from hillclimber.harness.prompting.shown import listed, shown
from hillclimber.harness.prompting.summary import previous_field, summarize
from hillclimber.harness.prompting.templates import PromptError, load_prompts, shipped
from hillclimber.harness.recording.events import Verified
from hillclimber.harness.state import LoopState
from hillclimber.models.base import Message
from hillclimber.models.fm import fm_profile
from hillclimber.sandbox import SandboxKind, create_sandbox, trial_layout


def test_the_shipped_templates_are_each_filled_in_by_name() -> None:
    prompts = shipped()
    assert prompts("rules.paths", workdir="/workspace").endswith(
        "/workspace; a relative path is a path in it."
    )
    assert prompts("rules.tools.verify_progress", checks="the acceptance checks") == (
        "Run the acceptance checks and see how many pass."
    )
    assert {f"rules.tools.{name}" for name in TOOLS} <= set(prompts.texts)
    with pytest.raises(KeyError):
        prompts("rules.paths")  # a placeholder left unfilled is the harness's mistake


def test_a_folder_of_ones_own_replaces_only_the_texts_it_holds(tmp_path: Path) -> None:
    (tmp_path / "rules.toml").write_text('intro = "You are a terse agent in $$HOME."\n')
    (tmp_path / "plan.toml").write_text("[nothing]\n")
    mine = load_prompts(tmp_path)
    assert mine("rules.intro") == "You are a terse agent in $HOME."
    assert mine.texts["rules.format"] == shipped().texts["rules.format"]
    assert mine.source == str(tmp_path) and mine.digest() != shipped().digest()
    view = TurnView(instruction="Write out.txt.", tools=tool_list(["task_complete"]), history=[])
    prompt = MicroPrompter(PromptBudget(fm_profile(), 256), Rules(mine)).build(view)
    assert prompt[0].content.startswith("You are a terse agent in $HOME.\nAnswer with exactly ONE")


@pytest.mark.parametrize(
    ("file", "text", "error"),
    [
        ("rules.toml", 'intro = "Hi $name."', "intro: unknown placeholder $name (offered: none)"),
        ("rules.toml", 'paths = "In $dir."', "paths: unknown placeholder $dir (offered: $workdir)"),
        ("rules.toml", 'intro = "costs $5"', "rules.toml: intro: a `$` that is no placeholder"),
        ("rules.toml", 'outro = "Bye."', "rules.toml: outro: no such template"),
        ("rules.toml", "intro = 3", "rules.toml: intro: expected text"),
        ("rules.toml", 'intro = "unclosed', "rules.toml: "),
        ("prompt.toml", 'intro = "Hi."', "prompt.toml: no prompt file of that name"),
    ],
)  # fmt: skip
def test_a_mistake_in_a_template_is_one_line_naming_file_and_key(
    tmp_path: Path, file: str, text: str, error: str
) -> None:
    (tmp_path / file).write_text(text + "\n")
    with pytest.raises(PromptError) as raised:
        load_prompts(tmp_path)
    said = str(raised.value)
    assert said.startswith(str(tmp_path / file)) and error in said and "\n" not in said


def test_a_settings_file_finds_its_prompts_beside_it_and_checks_them_at_load(
    tmp_path: Path,
) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "micro.toml").write_text('ask = "Your next call, $who:"\n')
    settings = tmp_path / "terse.toml"
    settings.write_text('preset = "climber"\n[view]\nprompts = "mine"\n')
    with pytest.raises(PromptError, match=r"mine/micro.toml: ask: unknown placeholder \$who"):
        load_harness(str(settings))
    (tmp_path / "mine" / "micro.toml").write_text('ask = "Your next call:"\n')
    assert load_harness(str(settings)).view.prompts == str(tmp_path / "mine")
    with pytest.raises(PromptError, match="is not a folder"):
        load_harness("climber", ["view.prompts=" + str(tmp_path / "nowhere")])


# -- every prompt at its largest fits the smallest window ----------------------------------

FM = fm_profile()
LONG = "Convert every record of /app/data/input-records.csv to JSON lines. " * 400


def _fits(messages: list[Message], answer_tokens: int) -> bool:
    return FM.count_messages(messages) + answer_tokens <= FM.context_window


def test_the_rules_at_their_largest_leave_most_of_the_window_to_the_task() -> None:
    found = {name: n % 2 == 0 for n, name in enumerate(COMMON_COMMANDS)}
    rules = Rules(
        workdir="/a/long/working/folder/of/a/task",
        availability=availability_note(found),
        guidance=True,
        by_tests=False,
    )
    system = rules.system(list(TOOLS.values()))
    assert FM.count_tokens(system) < FM.context_window // 3


def test_a_turn_at_its_largest_fits() -> None:
    view = TurnView(
        instruction=LONG, tools=list(TOOLS.values()), history=[], latest=("Output", LONG),
        feedback=[LONG], plan=LONG, step=LONG[:300], hint=LONG, progress=LONG, files=LONG,
        turn=30, max_turns=30,
    )  # fmt: skip
    rules = Rules(
        availability=availability_note(dict.fromkeys(COMMON_COMMANDS, True)), guidance=True
    )
    budget = PromptBudget(FM, answer_tokens=512)
    messages = MicroPrompter(budget, rules, skills=LONG).build(view)
    assert _fits(messages, 512)


def test_the_questions_asked_apart_fit_at_their_largest(tmp_path: Path) -> None:
    prompts = shipped()
    checks = prompts(
        "checks.ask",
        instruction=LONG[:INSTRUCTION_CHARS],
        workdir="/app",
        listing="\n".join(f"/app/some/deep/folder/file-{n}.csv" for n in range(31)),
        most=MAX_CHECKS,
    )
    assert _fits(
        [
            Message(role="system", content=prompts("checks.system")),
            Message(role="user", content=checks),
        ],
        300,
    )
    heads = "\n".join(f"--- /app/in{n}.csv ---\n" + "x" * HEAD_CHARS for n in range(4))
    code = CodeAsk(program=True, heads=heads, modules=dict.fromkeys(COMMON_MODULES, False))
    ask = prompts(
        "compute.ask",
        one="a short Python 3 program",
        path="/app/out.json",
        does="x" * 200,
        what="program",
    )
    again = prompts("compute.again", why="y" * 400, what="program")
    compute = (
        f"{prompts('compute.task', instruction=LONG[:1500])}{code.shown(prompts)}\n\n{ask}\n{again}"
    )
    assert _fits(
        [
            Message(role="system", content=prompts("compute.program_system")),
            Message(role="user", content=compute),
        ],
        MAX_PROGRAM_TOKENS,
    )
    plan = supervisor_prompt(prompts, LONG[:4000], feedback="z" * 200)
    assert _fits(
        [
            Message(role="system", content=prompts("plan.system")),
            Message(role="user", content=plan),
        ],
        300,
    )


def test_the_plans_own_steps_come_from_the_templates() -> None:
    plan = Plan.from_answer("not json at all, and no steps")
    assert [s.text for s in plan.steps] == [shipped()("plan.whole")]
    plan.ends_in(["/app/out.txt"])
    assert plan.steps[-1].text == shipped()("plan.write", path="/app/out.txt")


def test_the_plans_marks_are_in_the_templates(tmp_path: Path) -> None:
    plan = Plan.from_answer('{"steps": ["Read /app/in.txt", "Write /app/out.txt"]}')
    plan.advance("3 lines")
    plan.current()  # the next step is under way
    assert plan.render() == "[x] 1. Read /app/in.txt -> 3 lines\n[>] 2. Write /app/out.txt"
    (tmp_path / "plan.toml").write_text(
        'step = "$number) $step$result $mark"\n[mark]\ndone = "(done)"\n'
    )
    assert plan.render(load_prompts(tmp_path)).splitlines() == [
        "1) Read /app/in.txt -> 3 lines (done)",
        "2) Write /app/out.txt [>]",
    ]


def test_what_the_harness_says_back_is_in_the_templates_too(tmp_path: Path) -> None:
    (tmp_path / "feedback.toml").write_text('[guard]\ndeny = "NO: $tool ($reason)"\n')
    mine = load_prompts(tmp_path)
    verdict = Verdict("deny", "dangerous_commands", "it would delete everything.", "Do not.")
    assert verdict.feedback("run_command", mine) == "NO: run_command (it would delete everything)"
    assert verdict.feedback("run_command").startswith("REJECTED: run_command – it would delete")
    failure = ParseFailure(ParseFailureReason.NO_VALID_FORMAT, "the answer was empty")
    said = failure.feedback(tool_list(["task_complete"]), mine)
    assert said == (
        'Error: the answer was empty. Answer with exactly ONE tool call as JSON: {"name": '
        '"<tool>", "arguments": {...}} Tools: task_complete().'
    )


def test_the_progress_of_the_checks_is_in_the_templates(tmp_path: Path) -> None:
    check = Verified(2, "auto_verify", False, 1, 3, "b.txt: not there", "acceptance checks")
    state = LoopState(show_failing=True)
    state.verified(check)
    assert state.progress == "acceptance checks 1/3 passing; failing: b.txt: not there"
    assert state.history[-1].message == "auto_verify: acceptance checks 1/3"
    (tmp_path / "feedback.toml").write_text(
        '[verification]\nprogress = "$passing of $total $label pass"\nstep = "checked ($why)"\n'
    )
    mine = LoopState(show_failing=True, prompts=load_prompts(tmp_path))
    mine.verified(check)
    assert mine.progress == "1 of 3 acceptance checks pass; failing: b.txt: not there"
    assert mine.history[-1].message == "checked (auto_verify)"


def test_each_step_of_the_history_is_said_in_the_templates(tmp_path: Path) -> None:
    call = ToolCall(name="run_command", arguments={"command": "ls /app"})
    ran = ToolResult(True, "[exit code 0]\nhello.txt")
    (tmp_path / "history.toml").write_text('ran = "$$ $command"\nstep = "$number. $said"\n')
    mine = load_prompts(tmp_path)
    step = summarize(1, call, ran, mine)
    assert step.message == "$ ls /app"
    assert previous_field([step], prompts=mine) == "1. $ ls /app"
    assert (
        previous_field([summarize(1, call, ran)])
        == "Step 1 (run_command): Ran: ls /app (ok, output)"
    )


def test_the_files_and_folder_shown_and_a_tool_asked_for_are_in_the_templates(
    tmp_path: Path,
) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts/micro.toml").write_text(
        'file = "== $path, $lines line(s)\\n$text"\nfolder_line = "in $folder: $entries"\n'
    )
    (tmp_path / "prompts/feedback.toml").write_text('[climbing]\nuse_on = "[$tool $path]"\n')
    mine = load_prompts(tmp_path / "prompts")
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path / "trial"))
    sandbox.write_file("/app/a.txt", b"one\n")
    assert shown(["/app/a.txt"], sandbox, mine) == "== /app/a.txt, 1 line(s)\none\n"
    assert listed("/app", sandbox, mine) == "in /app: a.txt"
    assert Target("edit_file", "/app/a.txt").words(mine) == "[edit_file /app/a.txt]"
    assert Target("run_command").words(mine) == "(use run_command)"


def test_each_guard_rule_says_its_reason_and_suggestion_in_the_templates(tmp_path: Path) -> None:
    (tmp_path / "guards.toml").write_text(
        '[repetition]\nreason = "same again"\n'
        '[dangerous_commands]\nrm_workdir = "no `rm -r` of $path in $workdir"\n'
    )
    mine, guards = load_prompts(tmp_path), Guards()
    again = ToolCall(name="run_command", arguments={"command": "ls"})
    verdict = guards.decide(again, Situation([again, again], prompts=mine))
    assert (verdict.rule, verdict.reason) == ("repetition", "same again")
    assert verdict.suggestion == shipped()("guards.repetition.suggestion")  # not changed there
    wipe = ToolCall(name="run_command", arguments={"command": "rm -rf /app"})
    verdict = guards.decide(wipe, Situation([], prompts=mine))
    assert verdict.reason == "no `rm -r` of /app in /app"
    assert verdict.suggestion == "Delete only what you made, by name (e.g. rm -rf build)."
    shipped_words = guards.decide(wipe, Situation([]))  # the shipped words by default
    assert shipped_words.reason == "`rm -r` of /app deletes all of the task's files in /app"


def test_what_a_failed_command_is_told_is_in_the_templates(tmp_path: Path) -> None:
    (tmp_path / "recovery.toml").write_text(
        'error = "$kind! $suggestion"\n[suggestion]\npython = "try python3, not python"\n'
    )
    tracker = RecoveryTracker(load_prompts(tmp_path))
    failed = ToolResult(success=False, output="bash: python: command not found\n")
    said = [tracker.record("python x.py", failed) for _ in range(3)]
    assert (
        said[0] is not None and said[0].feedback() == "command not found! try python3, not python"
    )
    assert said[2] is not None and said[2].feedback() == (
        "command not found! try python3, not python. This has failed 3 times the same way: "
        "try a completely different approach."
    )
    assert all(f"recovery.kind.{kind.value}" in shipped().texts for kind in FailureKind)
    shipped_words = RecoveryTracker().record("python x.py", failed)
    assert shipped_words is not None
    assert shipped_words.feedback() == "Error: command not found — use python3"


def test_a_template_may_leave_out_what_it_is_offered(tmp_path: Path) -> None:
    (tmp_path / "feedback.toml").write_text('[parse]\nno_valid_format = "Not a call."\n')
    failure = ParseFailure(ParseFailureReason.NO_VALID_FORMAT, "the answer was empty")
    said = failure.feedback(tool_list(["task_complete"]), load_prompts(tmp_path))
    assert said.startswith("Not a call. Answer with exactly ONE tool call")


def test_what_each_check_looks_at_and_why_it_failed_are_in_the_templates(tmp_path: Path) -> None:
    (tmp_path / "checks.toml").write_text(
        '[check]\nexists = "$path must be there"\njson_keys = "$path: JSON with $keys"\n'
        '[failed]\nno_file = "it is missing"\njson_kind = "$where: $found (wanted $wanted)"\n'
        '[value]\ntop = "$$$path"\nnumber = "number"\n[evidence]\nholds = "$path: $head"\n'
    )
    mine = load_prompts(tmp_path)
    sandbox = create_sandbox(SandboxKind.LOCAL, trial_layout(tmp_path / "trial"))
    instruction = 'Write /app/out.json like this:\n```json\n{"total": 3}\n```'
    built = build_checks(instruction, sandbox, prompts=mine)
    shipped_names = {check.name for check in built.checks}  # a check's name: the shipped words
    assert "/app/out.json exists and is not empty" in shipped_names
    assert "/app/out.json must be there: it is missing" in built.evaluate().digest
    sandbox.write_file("/app/out.json", b'{"total": "three"}')
    assert "/app/out.json: JSON with total: $.total: a string (wanted number)" in (
        built.evaluate().digest
    )
    assert built.evidence() == '/app/out.json: {"total": "three"}'  # what it holds, to judge
    as_shipped = replace(built, prompts=shipped()).evaluate().digest
    assert "/app/out.json has the form of the JSON example (keys total): the top.total is a " \
        "string, not a number" in as_shipped  # fmt: skip
