"""The rooms of `src/hillclimber` in layers (docs/README.md, "Rooms in layers"): a module
imports only from its own room, its layer or the layers below. A new room is placed in a layer
here, or this test fails."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "hillclimber"

LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(names.split())
    for names in (
        "errors process paths provenance text suites",
        "sandbox",
        "shell",
        "task setup image verify loaders models grades skills context",
        "harness",
        "agents tries",
        "results",
        "trial",
        "runner compare climb report harbor harvest",
        "cli __main__ __init__",
    )
)


def layer_of(room: str) -> int:
    found = [n for n, rooms in enumerate(LAYERS) if room in rooms]
    assert found, f"room {room} has no layer: place it in LAYERS and in docs/README.md"
    return found[0]


def room_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else path.stem


def imported_rooms(path: Path) -> set[str]:
    """The rooms of the package a module imports from."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found |= {name.split(".")[1] for name in names if name.startswith("hillclimber.")}
    return found


def test_no_room_imports_from_a_layer_above_its_own() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        room = room_of(path)
        for other in imported_rooms(path) - {room}:
            if layer_of(other) > layer_of(room):
                upward.append(f"{path.relative_to(PACKAGE)} ({room}) imports {other}")
    assert upward == []


def test_every_room_is_in_one_layer() -> None:
    rooms = {room_of(path) for path in PACKAGE.rglob("*.py")}
    assert all(layer_of(room) >= 0 for room in rooms)
    placed = [room for rooms in LAYERS for room in rooms]
    assert len(placed) == len(set(placed))
    assert set(placed) - rooms == set(), "a layer names a room that is gone"


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from hillclimber.trial import run_trial\nimport os\n")
    assert imported_rooms(module) == {"trial"}
    assert layer_of("trial") > layer_of("harness")
