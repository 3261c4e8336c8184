"""The one-line outline of a JSON input (`harness/outline.py`) and where prompts show it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hillclimber.harness.outline import MAX_CHARS, outline
from hillclimber.harness.programs import input_heads

from conftest import host_sandbox


def test_a_list_of_records_is_counted_by_kind() -> None:
    nodes = [{"node_type": "node", "node_id": f"R{n}"} for n in range(3)]
    edges = [{"node_type": "edge", "source": "R1", "target": "R2"} for _ in range(5)]
    assert outline(json.dumps(nodes + edges)) == (
        'JSON: [5 × {"node_type": str, "source": str, "target": str},'
        ' 3 × {"node_type": str, "node_id": str}]'
    )


def test_an_object_names_its_keys_and_nests() -> None:
    text = json.dumps({"nodes": [{"id": 1, "ok": True}], "meta": {"v": 1.5, "x": None}})
    assert (
        outline(text)
        == 'JSON: {"nodes": [1 × {"id": int, "ok": bool}], "meta": {"v": float, "x": null}}'
    )


def test_an_object_keyed_by_data_shows_one_key() -> None:
    hosts = {f"web{n}.example.com": {"cpu": n, "up": True} for n in range(10)}
    assert (
        outline(json.dumps(hosts))
        == 'JSON: {10 keys like "web0.example.com": {"cpu": int, "up": bool}}'
    )


def test_sections_of_different_kinds_are_all_named() -> None:
    config = {f"section{n}": {f"key{n}": n} for n in range(8)}
    assert outline(json.dumps(config)).startswith('JSON: {"section0": {"key0": int}, "section1"')


def test_json_lines_are_outlined_by_their_records() -> None:
    text = "\n".join(json.dumps({"ts": "2024-01-01", "level": "INFO"}) for _ in range(4))
    assert outline(text) == 'JSON Lines, 4 records: 4 × {"ts": str, "level": str}'


@pytest.mark.parametrize("text", ["a,b\n1,2\n", "42", '"text"', "{broken", ""])
def test_what_is_no_json_container_has_no_outline(text: str) -> None:
    assert outline(text) == ""


def test_a_long_outline_is_cut() -> None:
    wide = {f"key_{n}_{'x' * 30}": {f"inner_{n}": [n]} for n in range(8)}
    found = outline(json.dumps([wide, [1], "s", 2.5]))
    assert len(found) == MAX_CHARS and found.endswith("…")


def test_the_heads_of_json_inputs_have_their_outline(tmp_path: Path) -> None:
    sandbox, workspace = host_sandbox(tmp_path)
    records = [{"user": f"u{n}", "keys": ["a"]} for n in range(30)]
    (workspace / "snap.json").write_text(json.dumps(records, indent=2))
    heads = input_heads(sandbox, ["/app/snap.json"])
    assert heads.startswith('--- /app/snap.json ---\n[\n  {\n    "user": "u0",')
    assert heads.endswith('\n(JSON: [30 × {"user": str, "keys": [1 × str]}])')
