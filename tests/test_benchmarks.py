"""The benchmarks under benchmarks/ run and end with their line of figures. Only the shape of
that line is checked: the figures themselves (timings above all) are what the benchmarks are for,
not something a test may assert."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hillclimber.paths import write_json
from hillclimber.results import ExitReason, TrialResult
from hillclimber.sandbox import SandboxKind

from conftest import FIXTURES, REPO, require_images, require_sandbox
from rundirs import CLIMBER_ANSWERS, NAIVE_ANSWERS, call, comparison, scripted

NUMBER = r"\d+(?:\.\d+)?"


def run_benchmark(script: str, *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def final_line(script: str, *args: str) -> str:
    return run_benchmark(script, *args)[-1]


def test_parser_benchmark() -> None:
    line = final_line("parser.py")
    match = re.fullmatch(
        rf"parser: recovery (\d+)/(\d+) \({NUMBER}%\) target>=98%; "
        rf"strict (\d+)/(\d+) \({NUMBER}%\)",
        line,
    )
    assert match, line
    recovered, total, strict, strict_total = map(int, match.groups())
    assert total == strict_total > 0 and recovered <= total and strict <= total


def test_skills_benchmark() -> None:
    lines = run_benchmark("skills.py")
    assert any(re.match(rf"\s+bm25: precision@3 {NUMBER}  recall@5 {NUMBER}$", x) for x in lines)
    assert any(re.match(rf"\s+bm25 on 1000 skills: .* query median {NUMBER} ms", x) for x in lines)
    assert re.fullmatch(
        rf"bm25 precision@3 {NUMBER} vs hashed baseline {NUMBER}: {NUMBER}x", lines[-1]
    ), lines[-1]


@pytest.mark.slow
def test_context_benchmark() -> None:
    line = final_line("context.py", "--tasks", "hello-file,word-count", "--turns", "5")
    match = re.fullmatch(
        rf"context: over window (\d+)/(\d+) \(fm \d+/\d+, climber \d+/\d+, full \d+/\d+\) "
        rf"target 0; largest prompt {NUMBER}% of 4096; runs ended early (\d+); "
        rf"tasks 2 \(0 on an empty workspace, 0 without tests in the loop\)",
        line,
    )
    assert match, line
    assert int(match.group(2)) >= 2 * 3 * 5  # two tasks, three presets, five turns


@pytest.mark.slow
def test_a_task_that_cannot_be_set_up_is_measured_on_an_empty_workspace(tmp_path: Path) -> None:
    """A benchmark never stops at a task it cannot run: it says why, and goes on."""
    dataset = tmp_path / "ds"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", dataset / "fine")
    needs = dataset / "needs-a-package"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", needs)
    (needs / "environment" / "Dockerfile").write_text(
        "FROM python:3.13-slim\nWORKDIR /app\nRUN pip install hc-fake-package==1.0\n"
    )
    lines = run_benchmark(
        "context.py", "--dataset", str(dataset), "--presets", "fm", "--turns", "3"
    )
    said = [line for line in lines if line.strip().startswith("needs-a-package:")]
    assert said and "empty workspace" in said[0] and "hc-fake-package" in said[0]
    assert lines[-1].endswith("tasks 2 (1 on an empty workspace, 0 without tests in the loop)")


@pytest.mark.slow
def test_checks_benchmark(tmp_path: Path) -> None:
    line = final_line("checks.py", "--dataset", str(FIXTURES / "tb2"))
    share = rf"\d+/\d+ \((?:{NUMBER}%|-)\)"
    assert re.fullmatch(
        rf"checks: tasks \d+/3 measured; with a strong check \(form or value\) {share} "
        rf"target>=80%, of value {share}; with a "
        rf"solution \d+: sound and informative {share} target>=90%; any check failing the "
        rf"solution {share} target<=10%",
        line,
    ), line
    line = final_line("checks.py", "--run", str(tmp_path))  # an empty run: nothing to count
    assert line == "false passes: 0/0 (-) target<=20%; value 0/0; agreed 0/0; form 0/0; weak 0/0"


def _trial(
    folder: Path, name: str, passed: bool, exit_: str, checks: list[dict[str, object]]
) -> None:
    trial = TrialResult(
        trial=name, task_id=name, attempt=1, agent="harness", sandbox="bwrap",
        sandbox_isolated=True, exit_reason=ExitReason.PASSED if passed else ExitReason.FAILED,
        passed=passed, feedback="self", agent_info={"loop_exit": exit_, "checks": checks},
    )  # fmt: skip
    (folder / name).mkdir(parents=True)
    write_json(folder / name / "result.json", trial)


def test_inputs_benchmark() -> None:
    """fx-sales-total reads the daily files of the folder /app/data: they are its inputs."""
    lines = run_benchmark("inputs.py", "--dataset", str(FIXTURES / "tb2"), "--list")
    assert re.fullmatch(r"tasks with inputs: \d+/3 \(0 not set up\)", lines[-1])
    [sales] = [line for line in lines if line.startswith("fx-sales-total")]
    assert re.fullmatch(r"fx-sales-total\s+7 inputs: /app/data/2026-03-01\.csv, .*", sales)


def test_false_passes_are_counted_by_the_strength_of_the_pass(tmp_path: Path) -> None:
    exists = {"name": "/app/a exists and is not empty", "goal": True}
    holds = {"name": "/app/a has the line '12'", "goal": True}
    _trial(tmp_path, "strong-wrong", False, "verified", [{**exists, "strong": False},
                                                         {**holds, "strong": True}])  # fmt: skip
    _trial(tmp_path, "weak-wrong", False, "confirmed", [{**exists, "strong": False}])
    _trial(tmp_path, "form-wrong", False, "confirmed", [{**exists, "strength": "form"}])
    _trial(tmp_path, "agreed-right", True, "agreed", [{**exists, "strength": "form"}])
    _trial(tmp_path, "old-weak-wrong", False, "verified", [exists])  # recorded before strength
    _trial(tmp_path, "old-strong-right", True, "verified", [exists, holds])
    _trial(tmp_path, "failed-checks", False, "verification_failed", [exists])
    # its checks passed to the last turn, the model's word not taken: a pass all the same
    _trial(tmp_path, "unconfirmed-wrong", False, "unconfirmed", [{**exists, "strength": "form"}])
    line = final_line("checks.py", "--run", str(tmp_path))
    assert line == "false passes: 5/7 (71%) target<=20%; value 1/2; agreed 0/1; form 2/2; weak 2/2"


def test_recheck_replays_a_trials_actions_under_the_checks_as_they_are_now(
    tmp_path: Path,
) -> None:
    """A real run (scripted model, feedback self) replayed: its answer rebuilt, its checks
    built again; then the same trial with its last write made wrong in the record: the tests
    disagree with the tests then, so the replay says it did not rebuild the answer."""
    run = scripted(tmp_path / "run", "climber", CLIMBER_ANSWERS, feedback="self")
    args = ("--run", str(run), "--dataset", str(FIXTURES / "tb2"))
    lines = run_benchmark("recheck.py", *args)
    assert re.fullmatch(r"fx-hello\.1 +checks pass \(value\) → pass, tests pass→pass, 2 actions",
                        lines[0]), lines  # fmt: skip
    assert lines[1:] == [
        "1 trials replayed, 1 rebuilt (the tests now as then)",
        "false passes then: 0, stopped now 0 (0 by a check the trial did not have)",
        "true passes then: 1, blocked now 0",
        "tests passed, checks failed then: 0, passed now 0",
        "false passes now: 0/1 (then: 0/1)",
    ]
    [trajectory] = run.glob("*/logs/agent/trajectory.json")
    trajectory.write_text(trajectory.read_text().replace("Hello, world!\\n", "Hello\\n"))
    lines = run_benchmark("recheck.py", *args)
    assert "checks pass (value) → fail, tests pass→fail" in lines[0], lines
    assert lines[1] == "1 trials replayed, 0 rebuilt (the tests now as then)"


def test_reanswer_reads_each_tries_saved_workspace_under_the_answer_rules_now(
    tmp_path: Path,
) -> None:
    """A real run of two tries (scripted model, feedback self), recorded as if its back end
    sampled: both wrote the greeting. The instruction spells the greeting out as a line, so
    their agreement counts for nothing now; where the same task words it inside a sentence,
    they agree then and now. With one try's saved file blanked, as an older rule would have
    let agree, they agree no longer."""
    write = call("write_file", path="/app/hello.txt", content="Hello, world!\n")
    run = scripted(tmp_path / "run", "climber", [write, call("task_complete")] * 2,
                   feedback="self", tries=2)  # fmt: skip
    [result] = run.glob("*/result.json")
    doc = json.loads(result.read_text())
    assert doc["tries"]["groups"] == [[1, 2]], doc["tries"]
    doc["tries"].update(independent=True, agreed=True)
    doc["grade"] = "agreed"
    result.write_text(json.dumps(doc))
    lines = run_benchmark("reanswer.py", "--run", str(run), "--dataset", str(FIXTURES / "tb2"))
    assert re.match(r"fx-hello +agreed → verified +groups \[\[1, 2\]\] → \[\[1, 2\]\]", lines[0])
    reworded = tmp_path / "reworded"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", reworded / "fx-hello")
    instruction = "Create a file /app/hello.txt whose only line greets the world: Hello, world!"
    (reworded / "fx-hello" / "instruction.md").write_text(instruction)
    args = ("--run", str(run), "--dataset", str(reworded))
    lines = run_benchmark("reanswer.py", *args)
    assert re.fullmatch(r"fx-hello +agreed → agreed +groups \[\[1, 2\]\] → \[\[1, 2\]\]"
                        r" +tests passed", lines[0]), lines  # fmt: skip
    assert lines[2] == "agreed then: 1 (0 the tests failed); now: 1 (0 the tests failed)"
    other = 2 if doc["tries"]["chosen"] == 1 else 1
    (result.parent / "tries" / str(other) / "workspace" / "hello.txt").write_text("\n")
    lines = run_benchmark("reanswer.py", *args)
    assert "groups [[1, 2]] → [[" in lines[0] and "[[1, 2]] → [[1, 2]]" not in lines[0], lines
    assert lines[2] == "agreed then: 1 (0 the tests failed); now: 0 (0 the tests failed)"
    assert lines[-1] == "done now: 1 (0 the tests failed); disputed now: 0 (0 the tests passed)"
    lines = run_benchmark("reanswer.py", *args, "--as-recorded")
    assert lines[0].endswith("(answers as recorded)") and "[[1, 2]] → [[1, 2]]" in lines[0]
    assert lines[1] == "1 trials with tries graded again, 1 of them from the answers as recorded"
    lines = run_benchmark("reanswer.py", *args, "--tests")
    assert lines[0].endswith(f"each try: 1{'✓✗'[other == 1]} 2{'✓✗'[other == 2]}"), lines
    assert lines[-1] == (
        "tests on each try: 1 trials; the kept try passed 1, some try passed 1;"
        " a passing try left out 0"
    )
    doc["passed"] = False  # as if the tests had failed the kept try: a passing one left out
    result.write_text(json.dumps(doc))
    lines = run_benchmark("reanswer.py", *args, "--tests")
    assert lines[-1].endswith("the kept try passed 0, some try passed 1; a passing try left out 1"
                              " (fx-hello)"), lines  # fmt: skip


def test_reanswer_reads_a_named_file_outside_the_workspace_as_each_try_left_it(
    tmp_path: Path,
) -> None:
    """A task whose answer is a file outside the workspace (`/tmp/hello.txt`): each try's copy
    is kept beside it and laid back when the answers are read again."""
    dataset = tmp_path / "ds"
    shutil.copytree(FIXTURES / "tb2" / "fx-hello", dataset / "fx-hello")
    for name in ("instruction.md", "tests/test_outputs.py"):
        path = dataset / "fx-hello" / name
        path.write_text(path.read_text().replace("/app/hello.txt", "/tmp/hello.txt"))
    write = call("write_file", path="/tmp/hello.txt", content="Hello, world!\n")
    run = scripted(tmp_path / "run", "climber", [write, call("task_complete")] * 2,
                   feedback="self", tries=2, dataset=dataset)  # fmt: skip
    [result] = run.glob("*/result.json")
    doc = json.loads(result.read_text())
    assert doc["tries"]["groups"] == [[1, 2]], doc["tries"]
    doc["tries"].update(independent=True, agreed=True)
    result.write_text(json.dumps(doc))
    args = ("--run", str(run), "--dataset", str(dataset))
    assert "→ [[1, 2]]" in run_benchmark("reanswer.py", *args)[0]
    other = 2 if doc["tries"]["chosen"] == 1 else 1
    kept = result.parent / "tries" / str(other) / "outside" / "tmp" / "hello.txt"
    kept.write_text("Hello, there!\n")
    lines = run_benchmark("reanswer.py", *args)
    assert "groups [[1, 2]] → [[" in lines[0] and "→ [[1, 2]]" not in lines[0], lines


def test_same_calls_tells_same_cut_and_differ_apart(tmp_path: Path) -> None:
    """Two real runs of the scripted model with the same answers make the same calls; one
    whose trajectory lost its last call is the other cut short; a changed answer differs."""
    a = scripted(tmp_path / "a", "climber", CLIMBER_ANSWERS, feedback="self")
    b = scripted(tmp_path / "b", "climber", CLIMBER_ANSWERS, feedback="self")
    line = run_benchmark("same_calls.py", str(a), str(b))
    assert line[-1] == "1 tasks in both: same 1, cut 0, differ 0", line
    [trajectory] = b.glob("*/logs/agent/trajectory.json")
    doc = json.loads(trajectory.read_text())
    agent = [n for n, step in enumerate(doc["steps"]) if step["source"] == "agent"]
    assert len(agent) >= 2
    del doc["steps"][agent[-1]]
    trajectory.write_text(json.dumps(doc))
    line = run_benchmark("same_calls.py", str(a), str(b))
    assert re.search(r"cut +the same \d+ calls, then B stopped; the other made 1 more", line[0])
    doc["steps"][agent[0]]["message"] = "something else"
    trajectory.write_text(json.dumps(doc))
    line = run_benchmark("same_calls.py", str(a), str(b))
    assert "differ  call 1 of" in line[0] and "(its answer)" in line[0], line


def test_stalls_counts_a_step_tried_that_passes_more_as_news_only_when_asked() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import stalls
    finally:
        sys.path.pop(0)
    read = {"function_name": "read_file", "arguments": {"path": "/app/in.txt"}}
    tried = {"passing_before": 2, "candidates": [{"result": "run_command: checks 3/3"}]}
    steps = [
        {"source": "agent", "message": "a", "extra": {"turn": 1, "latency_sec": 1.0},
         "tool_calls": [read], "observation": {"results": [{"extra": {"success": True}}]}},
        {"source": "agent", "message": "b", "extra": {"turn": 2, "candidates": tried}},
        *({"source": "agent", "message": "c", "extra": {"turn": n}} for n in (3, 4, 5)),
        {"source": "system", "extra": {"turn": 6, "passing": 3}},
    ]  # fmt: skip
    applied = stalls.read({"steps": steps}, "t", True)
    assert [t.news for t in applied.turns] == [True, False, False, False, False, True]
    assert applied.stuck_at(4) == 4  # turns 2 to 5: the cut would have lost the pass at 6
    seen = stalls.read({"steps": steps}, "t", True, tried=True)
    assert [t.news for t in seen.turns] == [True, True, False, False, False, False]
    assert seen.stuck_at(4) == 5  # after the step that passes was applied: nothing lost


def test_asides_cut_counts_the_asks_after_n_unapplied_and_the_applied_ones_it_loses() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import asides
    finally:
        sys.path.pop(0)

    def turn(number: int, chosen: int, asks: int) -> list[dict[str, object]]:
        origins = ["model", "tool", "tool"]
        tried = {"candidates": [{"origin": o} for o in origins], "chosen": chosen}
        worker = {
            "source": "agent",
            "extra": {"turn": number, "role": "worker", "latency_sec": 1.0, "candidates": tried},
        }
        ask = {
            "source": "agent",
            "extra": {"turn": number, "role": "candidate", "latency_sec": 10.0},
        }
        return [worker, *[ask] * asks]  # fmt: skip

    # turns 1 and 2 ask two each, unapplied; turn 3's second ask is applied; turn 4 asks two
    steps = [*turn(1, 0, 2), *turn(2, 0, 2), *turn(3, 2, 2), *turn(4, 0, 2)]
    tally = asides.Tally()
    trial = asides.read({"steps": steps}, "t", True, tally)
    assert tally.calls == {"worker": 4, "candidate": 8} and tally.seconds["candidate"] == 80
    assert tally.applied == {"model": 3, "tool": 1} and tally.applied_passed["tool"] == 1
    assert [t.applied for t in trial.turns] == [None, None, 1, None]
    assert trial.cut(6) == (0.0, 0)  # turn 3's applied ask starts the count again
    assert trial.cut(5) == (30.0, 1)  # stops before turn 3's second ask: it is lost
    assert trial.cut(4) == (40.0, 1)


def test_overhead_benchmark() -> None:
    line = final_line("overhead.py", "--steps", "10")
    assert re.fullmatch(
        rf"overhead: harness median {NUMBER}ms p95 {NUMBER}ms target<=5ms; "
        rf"\w+ start median {NUMBER}ms p95 {NUMBER}ms target<=10ms",
        line,
    ), line


@pytest.mark.slow
def test_escapes_benchmark() -> None:
    require_sandbox(SandboxKind.BWRAP)
    require_sandbox(SandboxKind.NAMESPACE)
    line = final_line("escapes.py", "--limit", "3")
    assert re.fullmatch(
        r"escapes: bwrap \d+, namespace \d+; left running: bwrap \d+, namespace \d+ "
        r"\(3 commands × 2 kinds × 2 modes\)",
        line,
    ), line


@pytest.mark.slow
@pytest.mark.images
def test_containers_benchmark() -> None:
    require_images()
    line = final_line("containers.py", "--runs", "3", "--setups", "1")
    ms = rf"{NUMBER}ms"
    assert re.fullmatch(
        rf"containers: command median bwrap {ms} container {ms} podman-exec {ms}; "
        rf"trial setup cold {NUMBER}s warm {NUMBER}s bwrap-path {NUMBER}s",
        line,
    ), line


@pytest.mark.slow
@pytest.mark.images
def test_escapes_benchmark_in_the_container_runner() -> None:
    require_images()
    line = final_line("escapes.py", "--kinds", "container", "--limit", "3")
    assert re.fullmatch(
        r"escapes: container \d+; left running: container \d+ \(3 commands × 1 kinds × 2 modes\)",
        line,
    ), line


@pytest.mark.slow
@pytest.mark.model
def test_solve_rate_benchmark(tmp_path: Path) -> None:
    """The real embedded model on one task, three turns per preset: the shape, not a rate."""
    line = final_line(
        "solve_rate.py",
        "--tasks",
        "hello-file",
        "--presets",
        "naive,climber",
        "--max-turns",
        "3",
        "--runs-dir",
        str(tmp_path),
    )
    assert re.fullmatch(r"solve_rate: naive \d+/1, climber \d+/1; best: \d.* naive.*", line), line


def test_solve_rate_reads_a_finished_comparison(tmp_path: Path) -> None:
    """--no-run: the table of a comparison already run (scripted model, real runner)."""
    folder = tmp_path / "cmp"
    runs = {
        "naive": scripted(folder / "naive", "naive", NAIVE_ANSWERS),
        "climber": scripted(folder / "climber", "climber", CLIMBER_ANSWERS),
    }
    comparison(folder, runs)
    lines = run_benchmark(
        "solve_rate.py", "--no-run", "--run-id", "cmp", "--runs-dir", str(tmp_path)
    )
    assert re.fullmatch(r"\s*naive: 1/1 solved, .* feedback none", lines[0]), lines[0]
    assert re.fullmatch(
        r"\s*climber: 1/1 solved \(1\.00x naive\), .* feedback \w+(, false passes \d+/\d+)?",
        lines[1],
    ), lines[1]
    assert lines[-1].startswith("solve_rate: naive 1/1, climber 1/1; best: 1.00x naive"), lines


def test_by_commit_benchmark(tmp_path: Path) -> None:
    """Two runs of the real runner (scripted model) in one folder, one trial's commit changed
    as a resume on a newer commit would leave it: told apart, and summed."""
    folder = tmp_path / "cmp"
    scripted(folder / "naive", "naive", NAIVE_ANSWERS)
    scripted(folder / "climber", "climber", CLIMBER_ANSWERS)
    [moved] = list((folder / "climber").glob("*/result.json"))
    result = TrialResult.model_validate_json(moved.read_text())
    write_json(moved, result.model_copy(update={"commit": "f" * 40}))
    lines = run_benchmark("by_commit.py", "--run", str(folder))
    # Both trials may start in the same second, so the two commits' order is not asserted.
    assert len(lines) == 3, lines
    assert sum(line.startswith("fffffff: solved 1/1; ends: ") for line in lines[:2]) == 1, lines
    assert re.fullmatch(
        rf"all: solved 2/2; ends: .*; second answers {NUMBER} usable of {NUMBER}; computed"
        rf" answers {NUMBER} applied of {NUMBER}; {NUMBER} model s a trial",
        lines[-1],
    ), lines[-1]


def test_turn_path_benchmark() -> None:
    lines = run_benchmark("turn_path.py", "--presets", "fm")
    assert re.fullmatch(
        r"fm: longest turn \d+: \d+ files, \d+ lines; in harness/ \d+ files, \d+ lines", lines[0]
    ), lines[0]
    assert "  harness/loop.py" in lines and "  harness/completion/gate.py" in lines


def test_prompt_reuse_lays_a_prompt_out_both_ways() -> None:
    """The replay moves the turn's tools between the top of the prompt and its end, and
    nothing else of it."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import prompt_reuse

    old = [
        {"role": "system", "content": "Rules.\nThe ONLY tools you may call now are: write_file, "
         "task_complete. Any other name fails.\n- write_file(path, content): W.\n"
         "- task_complete(): Done.\nPATHS: here.\n- not a tool, a rule"},
        {"role": "user", "content": "Task: x\nTurn 2 of 10. Your next tool call:"},
    ]  # fmt: skip
    now, known = prompt_reuse._offered(old) or ([], [])
    assert now == known == ["write_file", "task_complete"]
    everything = ["read_file", "write_file", "task_complete"]
    top = prompt_reuse.laid_out(old, now, everything, at_end=False)
    end = prompt_reuse.laid_out(old, now, everything, at_end=True)
    assert "may call are: write_file, task_complete." in top[0].content
    assert top[1].content == old[1]["content"]
    assert "may call are: read_file, write_file, task_complete." in end[0].content
    assert "- read_file(" in end[0].content and end[0].content.endswith("- not a tool, a rule")
    assert end[1].content.endswith(
        "Turn 2 of 10. This turn you may call ONLY: write_file, task_complete. Your next tool call:"
    )
    assert prompt_reuse._offered([end[0].model_dump(), end[1].model_dump()]) == (now, everything)


@pytest.mark.model
def test_prompt_reuse_benchmark(tmp_path: Path) -> None:
    """The real embedded model replays a scripted climber trial's prompts each way."""
    run = scripted(tmp_path / "climber", "climber", CLIMBER_ANSWERS)
    line = final_line("prompt_reuse.py", "--run", str(run), "--trials", "1", "--calls", "3")
    ratio = rf"{NUMBER}x tokens {NUMBER}x seconds"
    assert re.fullmatch(
        rf"prompt reuse against before: tools at the end {ratio}; "
        rf"tools at the end, asides kept {ratio}",
        line,
    ), line


def test_the_speed_sample_holds_both_kinds_of_recorded_calls() -> None:
    """The stored sample replays in a fresh clone: write_file answers and the rest, free and
    under a schema, each with the settings it was asked under."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import _recorded
    import speed

    calls = _recorded.load()
    chosen = speed.sample(calls, 2)
    assert [c.tool == "write_file" for c in chosen] == [True, False, True, False]
    assert any(c.schema for c in calls) and any(c.schema is None for c in calls)
    assert all(c.request().temperature == 0.0 and c.max_tokens >= 256 for c in calls)


def test_speed_records_a_runs_calls_and_compares_two_runs(tmp_path: Path) -> None:
    """--record: the calls of a run's trajectories with their settings (scripted model, real
    runner); --runs: model seconds per trial and per solved task, after over before."""
    before = scripted(tmp_path / "before", "climber", CLIMBER_ANSWERS)
    after = scripted(tmp_path / "after", "naive", NAIVE_ANSWERS)
    sample = tmp_path / "calls.json.gz"
    lines = run_benchmark("speed.py", "--record", str(before), str(after), "--sample", str(sample))
    # the longest write_file answer of the task, and one call of each other role and tool
    assert lines[-1] == f"4 calls in {sample}", lines
    lines = run_benchmark("speed.py", "--runs", str(before), str(after))
    assert re.fullmatch(
        rf"RESULT model_sec_per_trial={NUMBER}x model_sec_per_solved={NUMBER}x "
        r"solved=1->1 \(after over before\)",
        lines[-1],
    ), lines


@pytest.mark.model
def test_speed_benchmark(tmp_path: Path) -> None:
    """The real embedded model replays a scripted trial's calls without and with lookup."""
    writes = scripted(tmp_path / "climber", "climber", CLIMBER_ANSWERS)
    runs = scripted(tmp_path / "naive", "naive", NAIVE_ANSWERS)
    sample = tmp_path / "calls.json.gz"
    run_benchmark("speed.py", "--record", str(writes), str(runs), "--sample", str(sample))
    line = final_line("speed.py", "--model", "local", "--calls", "1", "--sample", str(sample))
    ratio = rf"{NUMBER}x"
    assert re.fullmatch(
        rf"RESULT model=local write_file_gen={ratio} rest_gen={ratio} prompt_sec={ratio} "
        rf"end_to_end_sec={ratio} identical=\d+/2 peak_rss={NUMBER}GB \(both instances\)",
        line,
    ), line


def test_missing_sorts_what_the_model_did_after_no_such_file(tmp_path: Path) -> None:
    """A real scripted run: a missing file read, read again, then (the file written) another
    missing one whose folder's listing the next command uses."""
    answers = [
        call("read_file", path="/app/missing.txt"),
        call("read_file", path="/app/missing.txt"),
        call("write_file", path="/app/hello.txt", content="Hello, world!\n"),
        call("read_file", path="/app/notes/a.txt"),
        call("run_command", command="cat hello.txt"),
        call("task_complete"),
    ]
    run = scripted(tmp_path / "run", "fm", answers)
    [line] = run_benchmark("missing.py", str(run))
    assert line.endswith(
        "3 missing in 1 agent runs (1 passed); again 1, listed 1, looked 0, other 1, none 0"
    ), line
