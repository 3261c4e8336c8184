"""Harbor's own `harbor run` (from `.venv-harbor`) with our environment
(`-e hillclimber.harbor:SandboxEnvironment`: no Docker) and our agent
(`-a hillclimber.harbor:HillclimberAgent`), on the Terminal-Bench 2 fixture tasks, on this
machine only (telemetry off, no registry, no network in the sandbox)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, require_images
from golden import DONE, WRITE_BAD, WRITE_OK
from harbor_venv import harbor_errors, require_harbor
from openai_server import FakeServer, Reply

TB2 = FIXTURES / "tb2"
ENV = "hillclimber.harbor:SandboxEnvironment"
AGENT = "hillclimber.harbor:HillclimberAgent"

pytestmark = [pytest.mark.slow, pytest.mark.harbor]


def harbor_run(
    jobs: Path, *args: str, tasks: Path = TB2, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    harbor = require_harbor().parent / "harbor"
    return subprocess.run(
        [str(harbor), "run", "-p", str(tasks), "-e", ENV, "-n", "1", "-o", str(jobs),
         "--job-name", "job", "-y", *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=jobs.parent,
        env={"HARBOR_TELEMETRY": "0", "PATH": "/usr/local/bin:/usr/bin:/bin", "COLUMNS": "200",
             "HOME": str(Path.home()), **(env or {})},
    )  # fmt: skip


def trials(jobs: Path) -> dict[str, dict[str, Any]]:
    """{task: its TrialResult} of the job."""
    found = {}
    for path in sorted((jobs / "job").glob("*/result.json")):
        result = json.loads(path.read_text())
        found[result["task_name"]] = result | {"dir": path.parent}
    return found


def reward(trial: dict[str, Any]) -> float | None:
    verifier = trial.get("verifier_result") or {}
    value = (verifier.get("rewards") or {}).get("reward")
    return None if value is None else float(value)


def test_the_oracle_passes_every_fixture_task_in_our_sandbox(tmp_path: Path) -> None:
    ran = harbor_run(tmp_path / "jobs", "-a", "oracle")
    assert ran.returncode == 0, ran.stderr[-2000:] + ran.stdout[-2000:]
    found = trials(tmp_path / "jobs")
    assert {task: reward(trial) for task, trial in found.items()} == {
        "fx-fix-script": 1.0,
        "fx-hello": 1.0,
        "fx-sales-total": 1.0,
    }
    for trial in found.values():
        assert trial.get("exception_info") is None
        # the test script ran offline: pytest from our cached environment, its output kept
        assert "passed" in (trial["dir"] / "verifier" / "test-stdout.txt").read_text()
        assert not (trial["dir"] / "hillclimber").exists()  # stop(delete=True) cleared it


def test_a_service_the_oracle_leaves_running_answers_the_tests_harbor_runs(
    tmp_path: Path,
) -> None:
    """Harbor runs the solution, then the tests, in one environment of ours: the server the
    solution started with `setsid … &` is still there for them (the trial is a session)."""
    ran = harbor_run(tmp_path / "jobs", "-a", "oracle", tasks=FIXTURES / "service")
    assert ran.returncode == 0, ran.stderr[-2000:] + ran.stdout[-2000:]
    assert {task: reward(trial) for task, trial in trials(tmp_path / "jobs").items()} == {
        "fx-kv-service": 1.0
    }


def test_doing_nothing_fails_every_task(tmp_path: Path) -> None:
    ran = harbor_run(tmp_path / "jobs", "-a", "nop")
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert {reward(trial) for trial in trials(tmp_path / "jobs").values()} == {0.0}


def test_a_task_this_machine_cannot_lay_out_fails_alone(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    shutil.copytree(TB2 / "fx-hello", tasks / "fx-hello")
    shutil.copytree(TB2 / "fx-hello", tasks / "needs-apt")
    dockerfile = tasks / "needs-apt" / "environment" / "Dockerfile"
    dockerfile.write_text(
        dockerfile.read_text() + "\nRUN apt-get update && apt-get install -y primer3\n"
    )
    ran = harbor_run(tmp_path / "jobs", "-a", "oracle", "--ek", "sandbox=bwrap", tasks=tasks)
    assert ran.returncode == 0, ran.stderr[-2000:]
    found = trials(tmp_path / "jobs")
    assert reward(found["fx-hello"]) == 1.0
    failed = found["needs-apt"]["exception_info"]
    assert failed["exception_type"] == "Unsupported" and "primer3" in failed["exception_message"]


@pytest.mark.images
def test_a_task_that_needs_its_image_runs_in_it_under_harbor(tmp_path: Path) -> None:
    """No registry serves the image and Docker is not here: our build stands in for both."""
    require_images()
    tasks = tmp_path / "tasks"
    shutil.copytree(TB2 / "fx-hello", tasks / "outside-app")
    dockerfile = tasks / "outside-app" / "environment" / "Dockerfile"
    dockerfile.write_text(
        dockerfile.read_text() + "\nRUN mkdir -p /opt/tool && echo ok > /opt/tool/x\n"
    )
    ran = harbor_run(tmp_path / "jobs", "-a", "oracle", tasks=tasks)
    assert ran.returncode == 0, ran.stderr[-2000:]
    found = trials(tmp_path / "jobs")
    assert reward(found["outside-app"]) == 1.0, found["outside-app"].get("exception_info")


def test_our_agent_runs_in_harbor_and_its_trajectory_is_valid(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([WRITE_OK, DONE]))
    ran = harbor_run(
        tmp_path / "jobs", "-a", AGENT, "-m", f"scripted:{answers}",
        "--ak", "preset=climber", "--ak", "feedback=self", "-i", "fx-hello",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    trial = trials(tmp_path / "jobs")["fx-hello"]
    assert reward(trial) == 1.0 and trial.get("exception_info") is None
    agent = trial["agent_result"]
    assert agent["n_input_tokens"] > 0 and agent["n_output_tokens"] > 0
    assert agent["metadata"]["feedback"] == "self"
    assert agent["metadata"]["hillclimber"]["loop_exit"] == "verified"
    trajectory = trial["dir"] / "agent" / "trajectory.json"
    assert harbor_errors("trajectory", trajectory) == {str(trajectory): []}


def test_feedback_tests_is_refused_before_any_trial(tmp_path: Path) -> None:
    ran = harbor_run(
        tmp_path / "jobs", "-a", AGENT, "-m", "local", "--ak", "feedback=tests", "-i", "fx-hello"
    )
    assert "use self or none" in ran.stdout + ran.stderr
    assert not list((tmp_path / "jobs").glob("job/*/result.json"))


def test_tries_are_refused_before_any_trial(tmp_path: Path) -> None:
    """Harbor hands the agent one environment; tries need a fresh one each."""
    ran = harbor_run(
        tmp_path / "jobs", "-a", AGENT, "-m", "local", "--ak", "set=tries.n=3", "-i", "fx-hello"
    )
    assert "tries need a fresh one each" in ran.stdout + ran.stderr
    assert not list((tmp_path / "jobs").glob("job/*/result.json"))


@pytest.mark.model
def test_our_agent_with_the_embedded_model_in_harbor(tmp_path: Path) -> None:
    ran = harbor_run(tmp_path / "jobs", "-a", AGENT, "-m", "local", "-i", "fx-hello")
    assert ran.returncode == 0, ran.stderr[-2000:]
    trial = trials(tmp_path / "jobs")["fx-hello"]
    assert reward(trial) in (0.0, 1.0) and trial.get("exception_info") is None
    assert trial["agent_result"]["metadata"]["hillclimber"]["model_calls"] >= 1
    trajectory = trial["dir"] / "agent" / "trajectory.json"
    assert harbor_errors("trajectory", trajectory) == {str(trajectory): []}


def test_harbors_time_limit_stops_our_agent_and_keeps_what_it_did(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    sleep = json.dumps({"name": "run_command", "arguments": {"command": "sleep 15"}})
    answers.write_text(json.dumps([WRITE_BAD, sleep, sleep, sleep]))
    ran = harbor_run(
        tmp_path / "jobs", "-a", AGENT, "-m", f"scripted:{answers}", "--ak", "preset=fm",
        "--agent-timeout-multiplier", "0.05", "-i", "fx-hello",  # 120 s × 0.05: 6 s
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    trial = trials(tmp_path / "jobs")["fx-hello"]
    assert trial["exception_info"]["exception_type"] == "AgentTimeoutError"
    assert reward(trial) == 0.0  # its work was scored all the same: the wrong greeting
    assert trial["agent_result"]["n_input_tokens"] > 0  # read back from the trajectory
    trajectory = json.loads((trial["dir"] / "agent" / "trajectory.json").read_text())
    assert any(
        call["function_name"] == "write_file"
        for step in trajectory["steps"]
        for call in step.get("tool_calls") or []
    )


def terminus_answer(*keystrokes: str, complete: bool = False) -> Reply:
    """One answer in Terminus-2's JSON format: keys to type, or the task marked complete."""
    commands = [{"keystrokes": keys, "duration": 0.5} for keys in keystrokes]
    answer = {"analysis": "-", "plan": "-", "commands": commands, "task_complete": complete}
    return Reply(text=json.dumps(answer))


def test_terminus_2_types_into_a_terminal_our_environment_keeps_for_the_trial(
    tmp_path: Path,
) -> None:
    """Harbor's Terminus-2, the agent of the Terminal-Bench board, drives one tmux session
    across its commands: the tmux server it starts lives in the trial's session until the trial
    ends. Its answers come from a real local HTTP server, scripted: this checks the way through
    our environment, not what a model can do."""
    typed = "printf 'Hello, world!\\n' > /app/hello.txt\n"
    with FakeServer() as server:
        server.script(
            terminus_answer(typed),
            terminus_answer(complete=True),
            terminus_answer(complete=True),  # it asks once more before it ends
        )
        ran = harbor_run(
            tmp_path / "jobs", "-a", "terminus-2", "-m", "openai/scripted",
            "--ak", f"api_base={server.url}", "--ak", "record_terminal_session=false",
            "-i", "fx-hello", env={"OPENAI_API_KEY": "none"},
        )  # fmt: skip
        asked = len(server.bodies())
    assert ran.returncode == 0, ran.stderr[-2000:]
    trial = trials(tmp_path / "jobs")["fx-hello"]
    assert reward(trial) == 1.0 and trial.get("exception_info") is None
    assert asked == 3
    steps = json.loads((trial["dir"] / "agent" / "trajectory.json").read_text())["steps"]
    calls = [call for step in steps for call in step.get("tool_calls") or []]
    assert [call["function_name"] for call in calls] == [
        "bash_command", "mark_task_complete", "mark_task_complete",
    ]  # fmt: skip
    assert calls[0]["arguments"]["keystrokes"] == typed
    seen = steps[1]["observation"]["results"][0]["content"]
    assert "printf 'Hello, world!" in seen  # the terminal showed what was typed
