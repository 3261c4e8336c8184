"""Harness settings (`harness/config.py`, `harness/presets.py`): the shipped presets, presets
that start from another, and settings refused where they would do nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.errors import HillclimberError
from hillclimber.harness.presets import load_harness, preset, preset_names


def test_the_presets() -> None:
    assert set(preset_names()) == {"naive", "fm", "climber", "full"}
    naive = preset("naive")
    assert naive.tools == ("run_command", "task_complete") and not naive.guards.rules
    assert not naive.completion.verify_gated and not naive.ask.forgiving_parser
    assert naive.feedback == "none" and not naive.consults_checks()
    assert naive.ask.retry_temperature is None
    assert not naive.view.trim_history and naive.completion.no_progress_turns is None
    fm = preset("fm")
    assert fm.planning.planner and fm.view.mode == "micro"
    climber = preset("climber")
    assert climber.climbing.auto_verify and climber.climbing.dynamic_tools
    assert climber.feedback == "self" and climber.consults_checks()
    assert climber.guards.verify_between_writes
    assert fm.completion.max_verify_retries == 2 and climber.completion.max_verify_retries == 8
    full = preset("full")
    assert full.view.mode == "conversation" and full.view.token_display
    assert full.view.compact_at == 0.8 and full.view.trim_history


def test_a_preset_starts_from_another_and_changes_only_what_it_says() -> None:
    fm, climber = preset("fm"), preset("climber")
    assert climber.view == fm.view  # inherited from fm
    assert climber.planning == fm.planning.model_copy(update={"seed_fixes": True})
    assert climber.ask == fm.ask.model_copy(update={"code": "program"})
    assert climber.climbing.computed and not fm.climbing.computed


@pytest.mark.parametrize(
    ("sets", "refused"),
    [
        (["previous_steps=5"], "view.previous_steps does nothing in conversation mode"),
        (["show_named_files=false"], "view.show_named_files does nothing in conversation mode"),
        (["mode=micro"], "view.trim_history does nothing in micro mode"),  # naive trims nothing
        (["verify_between_writes=true"], "verify_between_writes needs the rule tool_sequence"),
        (["code=program"], "ask.code asks for no code without climbing.computed"),
    ],
)
def test_a_setting_that_does_nothing_is_refused_in_one_line(sets: list[str], refused: str) -> None:
    with pytest.raises(HillclimberError) as err:
        load_harness("naive", sets)
    assert refused in str(err.value) and "\n" not in str(err.value)


def test_a_settings_file_that_sets_an_idle_setting_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('preset = "fm"\n[view]\ntoken_display = true\n')
    with pytest.raises(HillclimberError, match=r"mine.toml: .*token_display does nothing in micro"):
        load_harness(str(path))


def test_a_setting_that_counts_in_its_mode_is_kept() -> None:
    assert load_harness("naive", ["token_display=true"]).view.token_display
    assert load_harness("fm", ["previous_steps=5"]).view.previous_steps == 5


def test_each_try_gets_its_own_changes_seed_and_temperature(tmp_path: Path) -> None:
    path = tmp_path / "varied.toml"
    path.write_text(
        'preset = "climber"\n[tries]\nn = 3\n'
        'vary = [{}, {"view.show_folder" = true},\n'
        '        {"climbing.computed" = 0, "ask.code" = "command"}]\n'
    )
    setting = load_harness(str(path))
    first, second, third = (setting.for_try(index) for index in range(3))
    assert not first.view.show_folder and second.view.show_folder and not third.view.show_folder
    assert (third.climbing.computed, third.ask.code) == (0, "command")
    assert second.climbing == setting.climbing  # only what its table says changes
    assert len({t.ask.seed for t in (first, second, third)}) == 3
    assert {t.ask.temperature for t in (first, second, third)} == {0.5}
    assert third.tries == setting.tries  # a try's setting still says what the trial runs


@pytest.mark.parametrize(
    ("vary", "refused"),
    [
        ('[{"tries.n" = 2}]', "tries.vary[0]: tries.n is the trial's, not a try's"),
        ('[{}, {"feedback" = "none"}]', "tries.vary[1]: feedback is the trial's, not a try's"),
        ('[{"nothing" = 1}]', "tries.vary[0]: no setting nothing"),
        ('[{"trim_history" = false}]', "tries.vary[0]: view.trim_history does nothing in micro"),
        ('[{"max_turns" = "x"}]', "tries.vary[0]: Input should be a valid integer"),
        ("[{}, {}, {}]", "tries.vary has 3 tables for 2 tries"),
    ],
)
def test_a_try_change_that_cannot_be_is_refused_in_one_line(
    tmp_path: Path, vary: str, refused: str
) -> None:
    path = tmp_path / "varied.toml"
    path.write_text(f'preset = "climber"\n[tries]\nn = 2\nvary = {vary}\n')
    with pytest.raises(HillclimberError) as err:
        load_harness(str(path))
    assert str(err.value).startswith(f"{path}: {refused}") and "\n" not in str(err.value)
