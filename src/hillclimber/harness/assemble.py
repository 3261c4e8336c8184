"""Assembling the agent loop from a config: the trial's context, the model and a
`HarnessConfig` in; the loop with its prompter, checks, events, trajectory writer and skills
out. The one place where a setting becomes the parts it switches on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from hillclimber.context import AgentContext
from hillclimber.harness.acting.diagnosis import RecoveryTracker
from hillclimber.harness.acting.handlers import ToolEnv, execute
from hillclimber.harness.acting.probe import availability_note, probe_commands
from hillclimber.harness.acting.tools import tool_list
from hillclimber.harness.asking import Asker
from hillclimber.harness.checks import SelfChecks, build_checks
from hillclimber.harness.checks.base import describe
from hillclimber.harness.checks.propose import ModelProposer
from hillclimber.harness.climbing.computed import Computer
from hillclimber.harness.climbing.step import Climb, ClimbStep
from hillclimber.harness.completion.gate import Gate
from hillclimber.harness.config import HarnessConfig
from hillclimber.harness.effective import Effective, Part, part
from hillclimber.harness.guards import Guards
from hillclimber.harness.instruction import (
    Complexity,
    classify,
    named_paths,
    search_roots,
    turn_budget,
    wants_planner,
)
from hillclimber.harness.loop import AgentLoop, LoopParts
from hillclimber.harness.programs import CodeAsk
from hillclimber.harness.prompting import hints
from hillclimber.harness.prompting.budget import PromptBudget
from hillclimber.harness.prompting.offer import ToolOffer
from hillclimber.harness.prompting.prompters import (
    ConversationPrompter,
    MicroPrompter,
    Rules,
    description,
    skills_section,
)
from hillclimber.harness.prompting.shown import listed, shown
from hillclimber.harness.prompting.templates import Prompts, load_prompts
from hillclimber.harness.recording.events import ChecksMade, EventBus, Listener, on_tool_ran
from hillclimber.harness.recording.trajectory import TrajectoryWriter
from hillclimber.harness.state import LoopState
from hillclimber.harness.task_paths import TaskPaths
from hillclimber.models.base import Model
from hillclimber.sandbox import SandboxKind
from hillclimber.shell.command import inside
from hillclimber.skills.trial import TrialSkills
from hillclimber.verify.verifier import Evaluation


@dataclass
class Assembly:
    """One trial's loop and the parts the agent reads after it ran."""

    loop: AgentLoop
    kind: Complexity
    budget: PromptBudget
    skills: TrialSkills
    checks: SelfChecks | None
    proposer: ModelProposer | None
    verify: Callable[[], Evaluation] | None
    """What the loop checks with: the task's tests, the harness's checks, or nothing."""
    effective: Effective


def assemble(
    config: HarnessConfig, model: Model, ctx: AgentContext, *listeners: Listener
) -> Assembly:
    """The loop for one trial of `ctx.task`, as `config` sets it."""
    task = ctx.task
    kind = classify(task.instruction)
    rules = _rules(config, ctx, load_prompts(config.view.prompts))
    use_hints = hints.hints_on(config.view.hints, ctx.suite_hints)
    skills = _skills(config, ctx)
    shown_skills = skills_section(skills.shown, rules.prompts)
    writer = _writer(config, model, ctx, rules, (kind, use_hints, skills))
    events = EventBus(writer, on_tool_ran(skills.took), *listeners)
    paths = TaskPaths.read(task.instruction, ctx.sandbox, ctx.workdir)
    checks, proposer = _checks(config, model, ctx, events, paths, rules.prompts)
    verify = ctx.verify if config.feedback == "tests" else checks.verify if checks else None
    answers = checks.built.answers if checks and verify is checks.verify else ()
    turns, why_turns = _turn_budget(config, ctx, kind)
    effective = _effective(config, ctx, kind, (checks, verify), f"{turns}, {why_turns}")
    budget = PromptBudget(model.profile, answer_tokens=config.ask.max_answer_tokens)
    env = _tool_env(config, ctx, verify)
    prompter = _prompter(config, budget, rules, ctx.task.instruction, shown_skills)
    state = LoopState(show_failing=config.completion.show_failing_checks, prompts=rules.prompts)
    events.subscribe(state)  # it records every check that ran
    asker = Asker(config.ask, model, prompter, events, remaining=env.remaining)
    guards = Guards(config.guards.rules)
    loop = AgentLoop(
        LoopParts(
            env=env,
            instruction=task.instruction,
            prompter=prompter,
            asker=asker,
            state=state,
            gate=Gate(config.completion, env.verify, state, events, rules.prompts),
            guards=guards,
            offer=ToolOffer.of(config, checks=verify is not None),
            events=events,
            max_turns=turns,
            paths=paths,
            climb=_climb_step(config, ctx, env, (asker, guards, events), (paths, answers))
            if effective.on("climbing")
            else None,
            recovery=RecoveryTracker(rules.prompts) if config.view.error_recovery else None,
            hint=partial(hints.build_hint, task.instruction) if use_hints else None,
            files=partial(shown, paths.named, ctx.sandbox, rules.prompts)
            if config.view.mode == "micro" and config.view.show_named_files
            else lambda: "",
            folder=partial(listed, env.workdir, ctx.sandbox, rules.prompts)
            if config.view.mode == "micro" and config.view.show_folder
            else lambda: "",
            seed_fixes=config.planning.seed_fixes,
            planner=effective.on("planner"),
            verify_after_writes=config.climbing.auto_verify and verify is not None,
            forgiving=config.ask.forgiving_parser,
            skills=frozenset(skills.ids),
            skill_text=shown_skills if config.skills.for_planner else "",
            answers=answers,
        )
    )
    return Assembly(loop, kind, budget, skills, checks, proposer, verify, effective)


def _skills(config: HarnessConfig, ctx: AgentContext) -> TrialSkills:
    """The trial's skills: those shown, and the one it may learn."""
    return TrialSkills(
        config.skills,
        ctx.task.instruction,
        task_id=ctx.task.id,
        show=hints.hints_on(config.skills.show, ctx.suite_hints),
        named=tuple(named_paths(ctx.task.instruction)),
    )


def _writer(
    config: HarnessConfig,
    model: Model,
    ctx: AgentContext,
    rules: Rules,
    found: tuple[Complexity, bool, TrialSkills],
) -> TrajectoryWriter:
    """The trial's trajectory, with what the setting and the trial `found` (the task's class,
    whether hints are shown, the skills) at its head."""
    kind, use_hints, skills = found
    return TrajectoryWriter(
        ctx.log_dir / "trajectory.json",
        session_id=ctx.trial_name or ctx.task.id,
        model=model.profile.name,
        extra={
            "preset": config.preset,
            "config": config.model_dump(mode="json"),
            "complexity": kind.value,
            "hints": use_hints,
            "skills": skills.ids,
            "prompts": {"source": rules.prompts.source, "digest": rules.prompts.digest()},
        },
        instruction=ctx.task.instruction,
        tool_definitions=[
            tool.definition(description(rules.prompts, tool, rules.checks))
            for tool in tool_list(config.tools)
        ],
    )


def _effective(
    config: HarnessConfig,
    ctx: AgentContext,
    kind: Complexity,
    checking: tuple[SelfChecks | None, Callable[[], Evaluation] | None],
    turns: str,
) -> Effective:
    """Which parts the setting asks for this trial can have, and why not the others; `checking`
    is the harness's checks and what the loop checks with."""
    checks, verify = checking
    use_hints = hints.hints_on(config.view.hints, ctx.suite_hints)
    return Effective(
        (
            _feedback(config, checks, ctx.verify),
            part(
                "planner",
                config.planning.planner,
                f"a {kind.value} task",
                when=not config.planning.complexity or wants_planner(kind),
            ),
            part(
                "climbing",
                config.climbing.candidates > 1,
                "nothing to check with",
                why_on=f"{config.climbing.candidates} candidates",
                when=verify is not None,
            ),
            Part("hints", use_hints, _hints_why(config, ctx.suite_hints)),
            Part("turns", True, turns),
        )
    )


def _hints_why(config: HarnessConfig, declared: str | None) -> str:
    if config.view.hints == "suite":
        return f"the suite's file says {declared or 'nothing'}"
    return "the setting"


def _feedback(
    config: HarnessConfig, checks: SelfChecks | None, tests: Callable[[], Evaluation] | None
) -> Part:
    """What the loop checks its work with, as the trial found it."""
    if config.feedback == "tests":
        return Part("checks", tests is not None, "the task's tests (feedback tests)")
    if config.feedback == "none" or not config.consults_checks():
        why = "feedback none" if config.feedback == "none" else "the setting looks at none"
        return Part("checks", False, why)
    if checks is None or checks.verify is None:
        return Part("checks", False, "no usable check made from the instruction")
    return Part("checks", True, f"{len(checks.built.checks)} made from the instruction")


def _checks(
    config: HarnessConfig,
    model: Model,
    ctx: AgentContext,
    events: EventBus,
    paths: TaskPaths,
    prompts: Prompts,
) -> tuple[SelfChecks | None, ModelProposer | None]:
    """The acceptance checks, built before the first action (`feedback = "self"` and a
    loop that looks at checks), and the model's proposer if it was asked."""
    if config.feedback != "self" or not config.consults_checks():
        return None, None
    proposer = (
        ModelProposer(model, prompts, config.ask.constrained, events)
        if config.checks.propose
        else None
    )
    built = build_checks(
        ctx.task.instruction,
        ctx.sandbox,
        ctx.workdir,
        propose=proposer,
        remaining=ctx.remaining,
        where=paths.where,
        prompts=prompts,
    )
    events.emit(
        ChecksMade(
            0,
            tuple(describe(check) for check in built.checks),
            tuple(built.dropped),
            built.usable,
        )
    )
    return SelfChecks(built), proposer


def _climb_step(
    config: HarnessConfig,
    ctx: AgentContext,
    env: ToolEnv,
    shared: tuple[Asker, Guards, EventBus],
    found: tuple[TaskPaths, tuple[str, ...]],
) -> ClimbStep:
    """Climbing on the checks, with the loop's asker, guards and events (`shared`), for the
    task's paths and answer files (`found`)."""
    asker, guards, events = shared
    paths = found[0]
    assert env.verify is not None
    return ClimbStep(
        Climb(
            env.sandbox,
            env.workdir,
            partial(execute, env=env),
            env.verify,
            elsewhere=[p for p in paths.named if not inside(p, [env.workdir])],
        ),
        asker,
        candidates=config.climbing.candidates,
        unpaid_asks=config.climbing.unpaid_asks,
        forgiving=config.ask.forgiving_parser,
        guards=guards,
        env=env,
        named=paths.named,
        protected=paths.protected,
        events=events,
        computer=_computer(config, ctx.task.instruction, env, asker, found),
    )


def _computer(
    config: HarnessConfig,
    instruction: str,
    env: ToolEnv,
    asker: Asker,
    found: tuple[TaskPaths, tuple[str, ...]],
) -> Computer | None:
    """Asks for commands computing the answer, where there is an answer file (`found`: the
    task's paths and answer files) and input to work it out from (a file to read, or one to
    leave alone)."""
    paths, answers = found
    asks = config.climbing.computed
    if not asks or not answers or not (paths.inputs or paths.protected):
        return None
    inputs = sorted(paths.inputs or paths.protected)
    code = CodeAsk.probe(env.sandbox, inputs, program=config.ask.code == "program")
    return Computer(asker, instruction, answers, asks, code, env.workdir)


def _tool_env(
    config: HarnessConfig, ctx: AgentContext, verify: Callable[[], Evaluation] | None
) -> ToolEnv:
    return ToolEnv(
        sandbox=ctx.sandbox,
        workdir=ctx.workdir,
        command_timeout=config.command_timeout_sec,
        remaining=ctx.remaining,
        verify=verify,
        output_chars=config.view.output_chars,
        roots=search_roots(ctx.task.instruction, ctx.workdir),
    )


def _rules(config: HarnessConfig, ctx: AgentContext, prompts: Prompts) -> Rules:
    """The rules every prompt starts with, for this trial's sandbox and feedback."""
    view = config.view
    return Rules(
        prompts,
        local_paths=ctx.sandbox.kind is SandboxKind.LOCAL,
        workdir=ctx.workdir,
        availability=availability_note(probe_commands(ctx.sandbox), prompts)
        if view.probe_commands
        else None,
        guidance=view.verification_guidance,
        by_tests=config.feedback == "tests",
    )


def _prompter(
    config: HarnessConfig, budget: PromptBudget, rules: Rules, instruction: str, skills: str
) -> MicroPrompter | ConversationPrompter:
    """How the model's prompts are built, as the setting's view says."""
    view = config.view
    if view.mode == "micro":
        return MicroPrompter(
            budget,
            rules,
            previous_steps=view.previous_steps,
            show_latest_output=view.show_latest_output,
            skills=skills,
        )
    return ConversationPrompter(
        budget,
        instruction,
        tool_list(config.tools),
        rules,
        trim=view.trim_history,
        token_display=view.token_display,
        compact_at=view.compact_at,
    )


def _turn_budget(config: HarnessConfig, ctx: AgentContext, kind: Complexity) -> tuple[int, str]:
    """The setting's turns, no more than the task allows, cut to the task's class; and why."""
    max_turns, why = config.max_turns, "the setting"
    if ctx.task.limits.max_turns and ctx.task.limits.max_turns < max_turns:
        max_turns, why = ctx.task.limits.max_turns, "the task's limit"
    if config.planning.complexity and turn_budget(kind, max_turns) < max_turns:
        max_turns, why = turn_budget(kind, max_turns), f"a {kind.value} task"
    return max_turns, why
