"""Climbing: try candidate actions on the workspace, keep the one the checks like best.

"The checks" are what the trial checks its work with: the acceptance checks the harness made
from the instruction (climber's default, `feedback: self`), or the task's own tests where a
setting puts them in the loop (`feedback: tests`). A tiny model's first idea is often the right
step with the wrong tool: it edits a file it should append to, or writes the text of a command
into a file instead of running it. With checks at hand the harness need not take that idea on
trust. It tries the model's call on the workspace, runs the checks and puts the workspace back;
unless that passes every check, it asks for the same step again with other targets — each
other acting tool, an edit of each other file the task names, a write of each file it names that
is not there yet (the prompt stays the same, only the answer's schema names the tool and the
file), the least asked first so that over the turns each gets its turn — tries those too, and
keeps the one that passes the most checks. A step that passes more checks can still be wrong (an
append written as an overwrite may pass the check on the last line), which is why the other
tools are tried even after a gain. It never keeps a step that passes fewer checks than before,
nor one that gains none and removes existing lines: if every candidate is like that, none is
applied and the model is told so. The steps of the model's own plan that are commands (the
planner wrote `git commit -m '…'`, the worker never ran it) are tried too, at no model call,
and so is a command asked for apart from the loop that computes the answer file
(`computed.py`).
When the model's own call is refused (by a guard) the other tools are still tried, and one is
applied only if it gains checks.

Only the workspace (`/app`) is put back; it is copied whole, so climbing is off for large
workspaces and for tests too slow to run once per candidate.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence

from hillclimber.harness.acting.handlers import ToolEnv
from hillclimber.harness.acting.tools import ACTING_TOOLS, ToolCall, ToolResult, ToolSpec
from hillclimber.harness.asking import Asker, Reply
from hillclimber.harness.climbing.candidate import Candidate, pick, solved
from hillclimber.harness.climbing.computed import Computer
from hillclimber.harness.climbing.readings import planned_command, readings
from hillclimber.harness.climbing.reasking import Target, ask_alternative
from hillclimber.harness.guards import Guards, Situation
from hillclimber.harness.parsing.outcome import ParseFailure
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.harness.planner import Plan
from hillclimber.harness.prompting.summary import first_lines
from hillclimber.harness.prompting.templates import Prompts
from hillclimber.harness.recording.events import CandidateLine, CandidatesTried, EventBus
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.workspace import (
    FileState,
    file_states,
    fits,
    kept_files,
    lines_lost,
    named_folders,
    restored,
)
from hillclimber.text import clip
from hillclimber.verify.verifier import Evaluation

MAX_TEST_SECONDS = 20.0
"""Tests slower than this make trying candidates too dear: climbing stops for the trial."""


def _printed(tried: Sequence[Candidate], chosen: Candidate | None, prompts: Prompts) -> str:
    """The output of the first command tried that succeeded, printed something and is not the
    one applied: a line of feedback (`feedback.toml`, [climbing])."""
    for candidate in tried:
        command = candidate.call.arguments.get("command")
        if candidate is chosen or not command or not candidate.success:
            continue
        if candidate.output.strip():
            shown = first_lines(candidate.output.strip("\n"), 8, 400)
            said = prompts("feedback.climbing.not_applied", command=clip(str(command), 100),
                           shown=shown)  # fmt: skip
            return said
    return ""


def _passed(candidate: Candidate) -> int:
    """The checks a step tried passed, -1 when it failed to run: a step that passes more than
    any before is news, applied or not (`LoopState.saw`)."""
    return candidate.passing if candidate.success else -1


_FILE_NAME = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")


def targets(
    call: ToolCall, own_path: str | None, offered: Collection[str], files: Sequence[FileState]
) -> list[Target]:
    """The candidates worth asking for besides the model's `call`: each other acting tool,
    edit_file on each other existing file the task names, and write_file on each file it
    names that is not there yet. A model that fixes on one file (or one tool) still gets a
    candidate for the others."""
    pool = [Target(tool) for tool in ACTING_TOOLS if tool != call.name and tool in offered]
    for path, state in files:
        if path == own_path or state == "other":
            continue
        tool = "edit_file" if state == "file" else "write_file"
        if tool in offered and (state == "file" or _FILE_NAME.search(path)):
            pool.append(Target(tool, path))
    return pool


class Climb:
    """Tries calls on the trial's workspace and scores them by the task's tests."""

    def __init__(
        self,
        sandbox: Sandbox,
        workspace: str,
        execute: Callable[[ToolCall], ToolResult],
        verify: Callable[[], Evaluation],
        elsewhere: Collection[str] = (),
    ) -> None:
        self.sandbox = sandbox
        self.workspace = workspace
        self.elsewhere = elsewhere
        """The files the task names outside the workspace: put back after each try too."""
        self.execute = execute
        self.verify = verify
        self.verifications = 0
        self.asked: Counter[Target] = Counter()
        self.enabled = fits(sandbox, workspace)
        self.why_off = "" if self.enabled else "the workspace is too large to copy per candidate"

    def order(self, pool: Sequence[Target]) -> list[Target]:
        """The targets, least asked first (over the turns every one gets its turn)."""
        return sorted(pool, key=lambda target: self.asked[target])

    def measure(self) -> Evaluation:
        evaluation = self.verify()
        self.verifications += 1
        if evaluation.duration_sec > MAX_TEST_SECONDS:
            self.enabled = False
            self.why_off = f"the tests take {evaluation.duration_sec:.0f}s a run"
        return evaluation

    def attempt(
        self, call: ToolCall, text: str, origin: str = "model", *, borrowed: bool = False
    ) -> Candidate:
        """Apply `call`, run the tests, and put the workspace back."""
        with (
            restored(self.sandbox, self.workspace) as saved,
            kept_files(self.sandbox, self.elsewhere),
        ):
            result = self.execute(call)
            # counted before the tests, which may write too
            lost = lines_lost(saved, self.sandbox, self.workspace)
            evaluation = self.measure()
        return Candidate(
            call,
            text,
            result.success,
            evaluation.passing,
            evaluation.total,
            result.output,
            lost,
            origin,
            evaluation.label,
            evaluation.weak_passing,
            evaluation.weak_total,
            borrowed,
            "" if evaluation.passed else evaluation.digest,
        )


class ClimbStep:
    """The loop's climbing step: which call to apply this turn."""

    def __init__(
        self,
        climb: Climb,
        asker: Asker,
        *,
        candidates: int,
        unpaid_asks: int,
        forgiving: bool,
        guards: Guards,
        env: ToolEnv,
        named: Sequence[str],
        protected: Collection[str],
        events: EventBus,
        computer: Computer | None = None,
    ) -> None:
        self.climb = climb
        self.asker = asker
        self.candidates = candidates
        self.unpaid_asks = unpaid_asks
        self.unpaid = 0
        """Answers asked of other tools since the last one applied (`unpaid_asks`)."""
        self.forgiving = forgiving
        self.guards = guards
        self.env = env
        self.named = named
        """The paths the instruction names (not those it protects)."""
        self.protected = protected
        self.situation: Situation | None = None
        """The turn's, for the guards: a candidate that would be refused is not tried (quietly:
        no feedback, no count)."""
        self.events = events
        self.computer = computer
        """Asks for commands that compute the answer file, tried as candidates (None: off)."""
        self.applied = ""
        """Where this turn's applied call came from (`Candidate.origin`), "" when none was."""
        self.seen = ""
        """What a command tried this turn, not applied, printed: the model sees it next turn
        (the plan's `grep` found the setting the task asks about; the model never ran it)."""

    def choose(
        self,
        call: ToolCall,
        answer: Reply,
        tools: Sequence[ToolSpec],
        *,
        own: bool,
        passing: int,
        turn: int,
        situation: Situation,
        plan: Plan | None,
    ) -> tuple[Candidate | None, str | None]:
        """The call to apply: the model's own (tried unless refused: `own`), another reading
        of it, or another acting tool's answer to the same prompt if it passes more tests;
        with None, what to tell the model when its own call is not applied."""
        self.situation = situation
        tried: list[Candidate] = []
        env = self.env
        folders = named_folders(env.sandbox, self.named, env.workdir)  # once a turn
        self._attempt(tried, call, answer.text, "model", folders, itself=own)
        self._plan_steps(tried, folders, plan)
        self._computed(tried, folders, passing, turn)
        self._alternatives(
            tried, call, answer, tools, own=own, turn=turn, folders=folders, situation=situation
        )
        chosen = pick(tried, passing, own=own, strong_now=self._strong_now(tried, passing, own))
        say = self.asker.prompts
        self.seen = _printed(tried, chosen, say)
        self.applied = chosen.origin if chosen is not None else ""
        if self.applied == "tool":  # an ask paid: the count of unpaid ones starts again
            self.unpaid = 0
        self.events.emit(
            CandidatesTried(
                turn,
                passing,
                not own,
                tuple(
                    CandidateLine(c.call.model_dump(), c.line(say), c.origin, _passed(c))
                    for c in tried
                ),
                tried.index(chosen) if chosen is not None else None,
                tried[0].total if tried else 0,
            )
        )
        if chosen is not None or not own:
            return chosen, None
        return None, say(
            "feedback.climbing.nothing",
            passing=passing,
            noun=tried[0].noun(),
            tried="; ".join(c.line(say) for c in tried),
        )

    def _alternatives(
        self,
        tried: list[Candidate],
        call: ToolCall,
        answer: Reply,
        tools: Sequence[ToolSpec],
        *,
        own: bool,
        turn: int,
        folders: Sequence[str],
        situation: Situation,
    ) -> None:
        """Ask other acting tools for their answer to the same prompt, one target at a time,
        until enough candidates are tried or one solves the task; each tried joins `tried`."""
        own_path = (
            situation.resolve(str(call.arguments["path"])) if "path" in call.arguments else None
        )
        named = file_states(self.env.sandbox, self.named, self.protected)
        pool = targets(call, own_path, {t.name for t in tools}, named)
        for target in self.climb.order(pool):
            asked = sum(c.origin in ("model", "tool", "computed") for c in tried) + (not own)
            if asked >= self.candidates or not self.climb.enabled or any(map(solved, tried)):
                break
            if self.unpaid_asks and self.unpaid >= self.unpaid_asks:
                break
            self.climb.asked[target] += 1
            self.unpaid += 1
            alternative = ask_alternative(self.asker, answer.request, target, turn)
            if alternative is None:
                continue
            outcome = parse_tool_call(alternative, tools, forgiving=self.forgiving)
            if isinstance(outcome, ParseFailure) or not self._safe(outcome.call):
                continue
            if any(c.call.signature() == outcome.call.signature() for c in tried):
                continue
            self._attempt(tried, outcome.call, alternative, "tool", folders, itself=True)

    def _strong_now(self, tried: Sequence[Candidate], passing: int, own: bool) -> int:
        """Checks passing now that show more than a file there, parsing or changed: measured
        only when the model's own call was refused and a borrowed step gains (attention
        heatmap, the 1.5B: its refused edit of an input let `... (heatmap content here) ...`
        be written as the PNG, for "exists")."""
        if own or not any(c.borrowed and c.success and c.passing > passing for c in tried):
            return 0
        now = self.climb.measure()
        return now.passing - now.weak_passing

    def _plan_steps(
        self, tried: list[Candidate], folders: Sequence[str], plan: Plan | None
    ) -> None:
        """Try the steps of the model's plan that are commands (the planner wrote `git add …`
        and `git commit -m '…'`; the worker never ran them): each step not done yet, and all
        the plan's commands one after the other (a step counts as done after any successful
        action, whether or not it ran). Free: no model call."""
        if plan is None or any(map(solved, tried)):
            return
        commands = [(step.text, planned_command(step.text)) for step in plan.steps]
        every = [c for _, c in commands if c is not None]
        known = dict(commands)
        runs = [c for text in plan.pending() if (c := known[text]) is not None]
        if len(every) > 1:
            runs.append(" && ".join(every))
        for command in runs:
            call = ToolCall(name="run_command", arguments={"command": command})
            if self._safe(call) and all(c.call != call for c in tried):
                text = json.dumps(call.model_dump())
                self._attempt(tried, call, text, "plan", folders, itself=True)

    def _computed(
        self, tried: list[Candidate], folders: Sequence[str], passing: int, turn: int
    ) -> None:
        """While nothing tried passes every check, ask for one command that computes the
        answer file and try it (`computed.py`); what it showed goes into the next ask."""
        if self.computer is None or any(map(solved, tried)):
            return
        call = self.computer.call(turn)
        if call is None or not self._safe(call):
            return
        first = len(tried)
        self._attempt(tried, call, json.dumps(call.model_dump()), "computed", folders, itself=True)
        self.computer.learn(tried[first], passing)

    def _attempt(
        self,
        tried: list[Candidate],
        call: ToolCall,
        text: str,
        origin: str,
        folders: Sequence[str],
        *,
        itself: bool,
    ) -> None:
        """Try `call` (when `itself`) and the other readings of it (`folders`: the folders the
        task names now)."""
        borrowed = origin != "model"  # another tool's answer, a plan step, and their readings
        if itself:
            tried.append(self.climb.attempt(call, text, origin=origin, borrowed=borrowed))
        for reading in readings(call, self._read, folders):
            if self._safe(reading) and all(c.call != reading for c in tried):
                tried.append(self.climb.attempt(reading, text, origin="reading", borrowed=borrowed))

    def _safe(self, call: ToolCall) -> bool:
        """Whether a candidate may run at all: no guard refuses it."""
        assert self.situation is not None
        return self.guards.decide(call, self.situation).action != "deny"

    def _read(self, path: str) -> str | None:
        """A file as a tool's `path` names it, read as the guards read it."""
        assert self.situation is not None
        return self.situation.read(self.situation.resolve(path))
