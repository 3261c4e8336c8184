"""Train and held-out tasks: `SOURCE[:TASKS]` items and files of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.climb.tasks import load_tasks, overlap, task_ids
from hillclimber.errors import HillclimberError
from hillclimber.loaders import load_suite

from conftest import FIXTURES

TB2 = FIXTURES / "tb2"


def test_items_name_sources_and_their_tasks() -> None:
    groups = load_tasks([f"{TB2}:fx-hello,fx-sales-*", "mini:copy-file"], "--train")
    assert [group.source for group in groups] == [str(TB2), "mini"]
    assert task_ids(groups) == ["fx-hello", "fx-sales-total", "copy-file"]
    assert groups[1].hints == load_suite("mini").hints


def test_a_file_lists_items_with_comments(tmp_path: Path) -> None:
    listing = tmp_path / "train.txt"
    listing.write_text(f"# the train half\n{TB2}:fx-hello  # one task\n\nmini:copy-file\n")
    assert task_ids(load_tasks([f"@{listing}"], "--train")) == ["fx-hello", "copy-file"]


def test_a_whole_source_when_no_tasks_are_named() -> None:
    assert task_ids(load_tasks([str(TB2)], "--train")) == [
        "fx-fix-script",
        "fx-hello",
        "fx-sales-total",
    ]


@pytest.mark.parametrize(
    ("items", "words"),
    [
        ([f"{TB2}:fx-hello", f"{TB2}:fx-hello"], ["named twice", "fx-hello"]),
        ([f"{TB2}:fx-nothing"], ["--train", "tb2", "fx-nothing"]),
        (["@/no/such/file.txt"], ["--train", "/no/such/file.txt", "cannot read"]),
        ([], ["--train", "no tasks"]),
    ],
)
def test_mistakes_are_one_line(items: list[str], words: list[str]) -> None:
    with pytest.raises(HillclimberError) as err:
        load_tasks(items, "--train")
    assert "\n" not in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_tasks_in_both_sets_are_found() -> None:
    train = load_tasks([f"{TB2}:fx-hello,fx-sales-total"], "--train")
    held = load_tasks([f"{TB2}:fx-hello,fx-fix-script"], "--held-out")
    assert overlap(train, held) == ["fx-hello"]
