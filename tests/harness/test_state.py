"""What the loop keeps and counts (`harness/state.py`): the stats are written only by the
events they listen to, and a check the harness ran is a step of the history."""

from __future__ import annotations

from hillclimber.harness.recording.events import (
    CallRead,
    CandidateLine,
    CandidatesTried,
    EventBus,
    FinalizeAsked,
    GuardVerdict,
    Measured,
    ModelAnswered,
    ParseFailed,
    PromptShrunk,
    ToolRan,
    Verified,
)
from hillclimber.harness.state import LoopState, LoopStats
from hillclimber.models.base import Usage


def ran(tool: str, **metadata: object) -> ToolRan:
    return ToolRan(1, "model", tool, {}, True, "", dict(metadata), "", 0.5)


def answered(again: bool = False) -> ModelAnswered:
    usage = Usage(prompt_tokens=100, completion_tokens=10)
    return ModelAnswered(1, "worker", "{}", (), usage, 0.2, "stop", seconds=0.3, again=again)


LINES = tuple(CandidateLine({}, "", origin) for origin in ("model", "reading", "tool", "plan"))


def test_the_stats_count_what_the_events_say() -> None:
    stats = LoopStats()
    bus = EventBus(stats)
    for event in (
        answered(),
        answered(again=True),
        PromptShrunk(1),
        CallRead(1, "write_file", repaired=2),
        ParseFailed(2, "no_json", "…"),
        GuardVerdict(2, "warn", "test_before_submit", "…"),
        GuardVerdict(2, "deny", "overwrites", "…"),
        ran("run_command", limit="memory"),
        Measured(0, 0, 2),
        CandidatesTried(3, 0, False, LINES, None),
        Verified(3, "auto_verify", False, 1, 2, ""),
        ran("verify_progress", passing=2, total=2),
        FinalizeAsked(4, "task_complete"),
        FinalizeAsked(5, "no progress"),
    ):
        bus.emit(event)
    record = stats.record()
    assert (record["model_calls"], record["prompt_tokens"], record["completion_tokens"]) == (
        2,
        200,
        20,
    )
    assert record["constrained_retries"] == 1 and record["context_shrinks"] == 1
    assert record["parse_recovered"] == 2 and record["parse_failures"] == 1
    assert (record["warnings"], record["denials"]) == (1, 1)
    assert record["limits_hit"] == 1 and record["limit"] == "memory"
    assert record["candidate_verifications"] == 1 + 4
    assert (record["candidates"], record["readings"], record["planned"]) == (1, 1, 1)
    assert record["verifications"] == 1
    assert record["progress"] == [(0, 0, 2), (3, 1, 2), (1, 2, 2)]
    assert record["completes"] == 1 and record["verified_before_complete"] == 1
    assert not any(key.startswith("_") for key in record)


def test_a_done_signal_after_an_action_was_not_checked_first() -> None:
    stats = LoopStats()
    bus = EventBus(stats)
    bus.emit(Verified(1, "auto_verify", True, 1, 1, ""))
    bus.emit(ran("write_file"))
    bus.emit(FinalizeAsked(2, "task_complete"))
    assert stats.completes == 1 and stats.verified_before_complete == 0


def test_a_check_the_harness_ran_is_a_step_the_model_sees() -> None:
    state = LoopState()
    EventBus(state).emit(Verified(2, "task_complete", False, 1, 2, "x.txt: not there", "tests"))
    assert state.progress == "tests 1/2 passing; failing: x.txt: not there"
    assert state.history[-1].tool == "verification" and not state.history[-1].success
    assert state.calls[-1].name == "verify_progress" and state.passing == 1


def test_a_step_tried_that_passes_more_than_ever_is_news_applied_or_not() -> None:
    state = LoopState()
    bus = EventBus(state)
    bus.emit(Measured(0, 2, 3, "acceptance checks"))
    state.turns_since_news = 3
    tried = (CandidateLine({}, "", "model", -1), CandidateLine({}, "", "computed", 3))
    bus.emit(CandidatesTried(4, 2, True, tried, None, 3))  # seen, not applied
    assert state.turns_since_news == 0 and state.passing == 2
    state.turns_since_news = 2
    bus.emit(Verified(5, "auto_verify", True, 3, 3, ""))  # applied later: nothing new
    bus.emit(CandidatesTried(6, 3, False, tried, 1, 3))
    assert state.turns_since_news == 2 and state.passing == 3
    bus.emit(CandidatesTried(7, 3, False, (CandidateLine({}, "", "model", -1),), None, 3))
    assert state.turns_since_news == 2  # a step that failed to run shows nothing


def test_a_change_drops_what_it_made_stale() -> None:
    from hillclimber.harness.acting.tools import ToolCall, ToolResult

    state = LoopState()
    read = ToolCall(name="read_file", arguments={"path": "/app/a.txt"})
    state.ran(read, ToolResult(True, "old"))
    other = ToolCall(name="write_file", arguments={"path": "/app/b.txt", "content": "x"})
    state.ran(other, ToolResult(True, "Wrote 1 bytes"))
    assert state.latest == ("Content of /app/a.txt", "old")  # another file: still as shown
    edit = ToolCall(
        name="edit_file", arguments={"path": "/app/a.txt", "old_text": "o", "new_text": "n"}
    )
    state.ran(edit, ToolResult(True, "Edited"))
    assert state.latest is None
    state.ran(ToolCall(name="verify_progress", arguments={}), ToolResult(True, "1/2 passing"))
    state.ran(other, ToolResult(True, "Wrote 1 bytes"))
    assert state.latest is None  # the checks' results were of the files before


def test_on_tool_ran_hands_on_each_tool_that_ran_and_nothing_else() -> None:
    from hillclimber.harness.recording.events import EventBus, ToolRan, TurnStarted, on_tool_ran

    heard: list[ToolRan] = []
    bus = EventBus(on_tool_ran(heard.append))
    ran = ToolRan(1, "model", "run_command", {"command": "ls"}, True, "a\n", {}, "ls: ok", 0.1)
    bus.emit(TurnStarted(1))
    bus.emit(ran)
    assert heard == [ran]
