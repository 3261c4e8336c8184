"""Which tools a turn offers (`harness/prompting/offer.py`)."""

from __future__ import annotations

from hillclimber.harness.acting.tools import ToolCall, ToolResult
from hillclimber.harness.presets import preset
from hillclimber.harness.prompting.offer import ToolOffer
from hillclimber.harness.state import LoopState


def names(config_name: str, state: LoopState, *, checks: bool, **settings: object) -> list[str]:
    config = preset(config_name, **settings)
    return [tool.name for tool in ToolOffer.of(config, checks=checks).turn(state)]


def test_checking_is_offered_only_where_there_are_checks() -> None:
    assert "verify_progress" in names("full", LoopState(), checks=True)
    assert "verify_progress" not in names("full", LoopState(), checks=False)


def test_checking_is_not_offered_where_the_checks_run_after_every_change() -> None:
    assert "verify_progress" not in names("climber", LoopState(), checks=True)
    assert "verify_progress" in names("climber", LoopState(), checks=True, auto_verify=False)


def test_after_an_unchecked_write_only_checking_is_offered() -> None:
    state = LoopState(calls=[ToolCall(name="write_file", arguments={"path": "a", "content": ""})])
    after = names("climber", state, checks=True, auto_verify=False)
    assert after == ["verify_progress", "task_complete"]
    assert "write_file" in names("climber", state, checks=True)  # auto-verify checks the write


def test_without_improvement_every_acting_tool_and_no_reading() -> None:
    state = LoopState(turns_since_improvement=4)
    offered = names("climber", state, checks=True)
    assert "read_file" not in offered and {"write_file", "run_command"} <= set(offered)
    assert "read_file" in names("climber", LoopState(), checks=True)


def test_after_a_refused_read_no_reading_until_a_call_runs() -> None:
    state = LoopState()
    state.refused("REJECTED: read_file – x was read twice", call=("read_file", "tool_sequence"))
    offered = names("climber", state, checks=True)
    assert "read_file" not in offered and "run_command" in offered
    ran = ToolCall(name="run_command", arguments={"command": "ls"})
    state.ran(ran, ToolResult(True, "a"))
    assert "read_file" in names("climber", state, checks=True)
    state.refused("REJECTED: write_file – …", call=("write_file", "overwrites"))
    assert "read_file" in names("climber", state, checks=True)


def test_after_a_refused_edit_of_a_file_to_leave_alone_no_editing_until_a_call_runs() -> None:
    state = LoopState()
    for rule in ("protected_files", "inputs_read_only"):
        state.refused("REJECTED: edit_file – …", call=("edit_file", rule))
        offered = names("climber", state, checks=True)
        assert "edit_file" not in offered and "write_file" in offered
    state.refused("REJECTED: edit_file – …", call=("edit_file", "repetition"))
    assert "edit_file" in names("climber", state, checks=True)


def test_a_fixed_offer_does_not_follow_the_state() -> None:
    state = LoopState(turns_since_improvement=9)
    assert names("fm", state, checks=True) == names("fm", LoopState(), checks=True)


def test_reads_are_dropped_after_the_setting_s_turns_without_improvement() -> None:
    state = LoopState(turns_since_improvement=2)
    assert "read_file" in names("climber", state, checks=True)
    assert "read_file" not in names("climber", state, checks=True, drop_reads_after=2)
    never = names("climber", LoopState(turns_since_improvement=50), checks=True,
                  drop_reads_after=None)  # fmt: skip
    assert "read_file" in never
