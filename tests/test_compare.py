"""`compare`: settings from presets and files, one folder per setting, resuming, the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hillclimber.compare import folder_name, load_setting
from hillclimber.errors import HillclimberError
from hillclimber.harness.config import HarnessConfig
from hillclimber.models.scripted import WINDOW
from hillclimber.report.rundata import load_runs

from conftest import FIXTURES, hc

HELLO = FIXTURES / "tb2" / "fx-hello"
ANSWERS = [
    json.dumps(
        {"name": "write_file", "arguments": {"path": "hello.txt", "content": "Hello, world!\n"}}
    ),
    json.dumps({"name": "task_complete", "arguments": {}}),
]


def _setting(item: str, sets: list[str] | None = None) -> tuple[str, HarnessConfig]:
    setting = load_setting(item, sets or [])
    assert setting.agent == "harness" and setting.harness is not None
    return setting.label, setting.harness


def test_a_peer_is_a_setting_of_its_own_agent() -> None:
    setting = load_setting("mini-swe-agent", ["max_turns=7"])
    assert (setting.label, setting.agent, setting.harness) == (
        "mini-swe-agent",
        "mini-swe-agent",
        None,
    )


def test_a_setting_is_a_preset_or_a_file(tmp_path: Path) -> None:
    label, config = _setting("fm", ["max_turns=7"])
    assert (label, config.preset, config.max_turns) == ("fm", "fm", 7)
    toml = tmp_path / "quick-climber.toml"
    toml.write_text('preset = "climber"\ncandidates = 2\n')
    label, config = _setting(str(toml))
    assert (label, config.preset, config.climbing.candidates, config.climbing.auto_verify) == (
        "quick-climber",
        "climber",
        2,
        True,
    )
    plain = tmp_path / "mine.json"
    plain.write_text(json.dumps({"tools": ["run_command", "task_complete"], "max_turns": 5}))
    label, config = _setting(str(plain))
    assert (label, config.preset, config.tools) == (
        "mine",
        "mine",
        ("run_command", "task_complete"),
    )


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("bad.toml", "preset = \n", ["bad.toml", "not valid TOML"]),
        ("typo.json", '{"max_turn": 3}', ["typo.json", "max_turn", "no setting"]),
        ("range.json", '{"preset": "fm", "candidates": 0}', ["range.json", "candidates"]),
        ("tools.toml", 'tools = ["rm_rf"]', ["tools.toml", "tools", "task_complete"]),
    ],
)
def test_a_bad_setting_file_names_the_file_and_field(
    tmp_path: Path, name: str, text: str, words: list[str]
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(HillclimberError) as err:
        load_setting(str(path))
    assert "\n" not in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_an_unknown_setting_is_named() -> None:
    with pytest.raises(HillclimberError, match="'smart' is neither a preset"):
        load_setting("smart")


@pytest.mark.slow
def test_compare_runs_every_setting_on_the_same_tasks_and_resumes(tmp_path: Path) -> None:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps(ANSWERS))
    custom = tmp_path / "bash-only.toml"
    custom.write_text('preset = "fm"\ntools = ["run_command", "task_complete"]\n')
    runs = tmp_path / "runs"
    args = [
        "compare",
        "--dataset",
        str(HELLO),
        "--model",
        f"scripted:{script}",
        "--presets",
        f"fm,naive,{custom}",
        "--set",
        "feedback=tests",
        "--run-id",
        "cmp",
        "--runs-dir",
        str(runs),
    ]
    result = hc(*args)
    assert result.returncode == 0, result.stderr
    comparison = json.loads((runs / "cmp" / "compare.json").read_text())
    assert comparison["labels"] == ["fm", "naive", "bash-only"]
    loaded = {run.label: run for run in load_runs([runs / "cmp"])}
    assert [t.passed for t in loaded["fm"].trials] == [True]
    # naive has no write_file: the same answers fail there, and so in the custom setting
    assert [t.passed for t in loaded["naive"].trials] == [False]
    assert [t.passed for t in loaded["bash-only"].trials] == [False]
    assert loaded["bash-only"].config.harness is not None
    assert loaded["bash-only"].config.harness.tools == ("run_command", "task_complete")
    assert f"scripted:{script} (window {WINDOW:,})" in " ".join(result.stdout.split())
    for label in ("fm", "naive", "bash-only", "fx-hello", "✓", "✗"):
        assert label in result.stdout, label
    # the feedback row: only fm's trial saw test results (naive never does; bash-only never wrote)
    feedback_row = next(line for line in result.stdout.splitlines() if "feedback" in line)
    assert feedback_row.split()[2:] == ["│", "tests", "│", "none", "│", "none", "│"]

    first = (runs / "cmp" / "fm" / "fx-hello.1" / "result.json").read_text()
    again = hc(*args)
    assert again.returncode == 0, again.stderr
    assert (runs / "cmp" / "fm" / "fx-hello.1" / "result.json").read_text() == first

    other = hc(*args[:-8], "--presets", "fm", "--run-id", "cmp", "--runs-dir", str(runs))
    assert other.returncode == 2
    assert "use the same --presets" in other.stderr and "Traceback" not in other.stderr

    # a setting named after the earlier ones joins the comparison; those are resumed
    more = [*args[:-8], "--presets", f"fm,naive,{custom},full", "--run-id", "cmp"]
    grown = hc(*more, "--runs-dir", str(runs))
    assert grown.returncode == 0, grown.stderr
    comparison = json.loads((runs / "cmp" / "compare.json").read_text())
    assert comparison["labels"] == ["fm", "naive", "bash-only", "full"]
    assert (runs / "cmp" / "fm" / "fx-hello.1" / "result.json").read_text() == first
    assert (runs / "cmp" / "full" / "fx-hello.1" / "result.json").exists()
    assert "full" in grown.stdout


def test_a_preset_with_another_feedback_kind() -> None:
    label, config = _setting("climber@tests")
    assert (label, config.feedback, config.climbing.candidates) == ("climber@tests", "tests", 3)
    assert _setting("naive")[1].feedback == "none"
    assert _setting("fm", ["feedback=none"])[1].feedback == "none"  # a kind, not "no value"
    with pytest.raises(HillclimberError, match="feedback"):
        load_setting("fm", ["feedback=answers"])


def test_a_folder_named_after_a_relative_path_is_not_hidden() -> None:
    assert folder_name("../shared/termigen-dev") == "up-shared-termigen-dev"
    assert folder_name("./my.toml") == "my.toml"
    assert folder_name("climber@tests") == "climber-tests"
