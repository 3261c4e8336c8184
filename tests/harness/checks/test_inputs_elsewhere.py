"""An input the instruction names by its bare file name, in a folder it names elsewhere
("two BED files in `/data/genomics/`: `regions_a.bed` …"), is read, not a file to make: a
check that it exists in the working folder would fail every right answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from hillclimber.harness.checks import build_checks
from hillclimber.harness.prompting.templates import shipped
from hillclimber.sandbox import Mount, SandboxKind, create_sandbox, trial_layout

INPUTS_ELSEWHERE = [
    "You have two BED files in `/data/genomics/`:\n- `regions_a.bed` - reference regions\n"
    "- `regions_b.bed` - query regions\n\nWrite the overlaps of `regions_b.bed` with "
    "`regions_a.bed` to `/solution/overlaps.bed`.",
    "The sensor readings are in /data/genomics. Read readings.csv and regions_a.bed there and "
    "save the summary to /solution/overlaps.bed.",
    "Inputs (folder `/data/genomics`): `regions_a.bed`. Produce /solution/overlaps.bed listing "
    "each region of regions_a.bed with its length.",
]


def _checks(instruction: str, tmp_path: Path, inputs: dict[str, str]) -> list[str]:
    layout = trial_layout(tmp_path)
    data = tmp_path / "data"
    for name, text in inputs.items():
        (data / "genomics" / name).parent.mkdir(parents=True, exist_ok=True)
        (data / "genomics" / name).write_text(text)
    (tmp_path / "solution").mkdir()
    layout = layout.with_mounts(Mount("/data", data), Mount("/solution", tmp_path / "solution"))
    sandbox = create_sandbox(SandboxKind.LOCAL, layout)
    return [check.name for check in build_checks(instruction, sandbox).checks]


@pytest.mark.parametrize("instruction", INPUTS_ELSEWHERE)
def test_an_input_in_a_named_folder_is_not_a_file_to_make(instruction: str, tmp_path: Path) -> None:
    inputs = {"regions_a.bed": "chr1\t1\t5\n", "regions_b.bed": "chr1\t2\t3\n",
              "readings.csv": "a,b\n1,2\n"}  # fmt: skip
    found = _checks(instruction, tmp_path, inputs)
    assert "/solution/overlaps.bed exists and is not empty" in found
    assert not [name for name in found if "/app/regions_" in name]


def test_a_file_to_make_that_no_named_folder_holds_is_still_checked(tmp_path: Path) -> None:
    instruction = ("The inputs are in `/data/genomics/`. Write the merged regions to "
                   "`merged.bed`.")  # fmt: skip
    found = _checks(instruction, tmp_path, {"regions_a.bed": "chr1\t1\t5\n"})
    assert "/app/merged.bed exists and is not empty" in found


def test_the_prompt_shows_the_input_from_the_folder_the_instruction_names(tmp_path: Path) -> None:
    from hillclimber.harness.prompting.shown import shown
    from hillclimber.harness.task_paths import TaskPaths

    layout = trial_layout(tmp_path).with_mounts(Mount("/data", tmp_path / "data"))
    (tmp_path / "data/genomics").mkdir(parents=True)
    (tmp_path / "data/genomics/regions_a.bed").write_text("chr1\t1\t5\n")
    sandbox = create_sandbox(SandboxKind.LOCAL, layout)
    assert shown(
        TaskPaths.read(INPUTS_ELSEWHERE[0], sandbox, "/app").named, sandbox, shipped()
    ).startswith("--- /data/genomics/regions_a.bed (1 lines) ---\nchr1\t1\t5")


def test_a_read_of_the_bare_name_says_where_the_input_is(tmp_path: Path) -> None:
    from hillclimber.harness.acting.handlers import ToolEnv, execute
    from hillclimber.harness.acting.tools import ToolCall
    from hillclimber.harness.instruction import search_roots

    layout = trial_layout(tmp_path).with_mounts(Mount("/data", tmp_path / "data"))
    (tmp_path / "data/genomics").mkdir(parents=True)
    (tmp_path / "data/genomics/regions_a.bed").write_text("chr1\t1\t5\n")
    sandbox = create_sandbox(SandboxKind.LOCAL, layout)
    env = ToolEnv(sandbox, roots=search_roots(INPUTS_ELSEWHERE[0], "/app"))
    read = execute(ToolCall(name="read_file", arguments={"path": "regions_a.bed"}), env)
    assert "(the file /data/genomics/regions_a.bed has that name)" in read.output
