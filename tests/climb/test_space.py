"""The search space file: grouped or by name, values read as the settings read them, and one
clear line for each mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.climb.space import Dimension, load_space
from hillclimber.errors import HillclimberError


def test_the_shipped_space_loads_in_its_order() -> None:
    space = load_space()
    assert space[0].key == "planning.planner" and len(space) >= 5
    assert all(dim.values for dim in space)


def test_settings_are_grouped_or_by_name_and_none_is_no_value(tmp_path: Path) -> None:
    path = tmp_path / "space.toml"
    path.write_text(
        'max_turns = [10, 20]\n"view.mode" = ["micro"]\nstall_turns = [6, "none"]\n'
        "[view]\nprevious_steps = [1, 5, 5]\n"
    )
    assert load_space(path) == [
        Dimension("max_turns", (10, 20)),
        Dimension("view.mode", ("micro",)),
        Dimension("completion.stall_turns", (6, None)),
        Dimension("view.previous_steps", (1, 5)),
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[view]\nprevious_step = [1]\n", ["view.previous_step", "no setting"]),
        ("[climbing]\ncandidates = [0, 2]\n", ["climbing.candidates", "0", "greater than"]),
        ("[view]\nprevious_steps = 3\n", ["view.previous_steps", "a list of values"]),
        ("[view\n", ["not valid TOML"]),
        ("", ["no settings to try"]),
    ],
)
def test_a_bad_space_is_one_line_naming_file_and_setting(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(HillclimberError) as err:
        load_space(path)
    assert "\n" not in str(err.value) and "mine.toml" in str(err.value)
    for word in words:
        assert word in str(err.value)
