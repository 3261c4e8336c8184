"""Golden trajectories: one scripted run per preset (as `bench` runs it: the harness's own
acceptance checks in the loop) on a fixture task, in the real sandbox, its trajectory kept in
`tests/golden/<preset>.json` and its digest, what matters of it, in `<preset>.digest.txt`: each
step's tool calls and refusals, each check's verdict and count, the loop's end. `test_golden.py`
runs them again: a change in the digest (what the loop did) fails; a change in the text only (a
prompt's words) is shown for review. After a change you mean, record them again:

    .venv/bin/python scripts/record_golden.py
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.harness.presets import preset
from hillclimber.loaders import load_task
from hillclimber.models import ModelProfile, ScriptedModel
from hillclimber.sandbox import SandboxKind, create_sandbox, pick_sandbox_kind, trial_layout
from hillclimber.verify.verifier import verify

GOLDEN = Path(__file__).parent / "golden"
TASK = Path(__file__).parent / "fixtures" / "tb2" / "fx-hello"


def call(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


WRITE_OK = call("write_file", path="/app/hello.txt", content="Hello, world!\n")
WRITE_BAD = call("write_file", path="/app/hello.txt", content="Hello world\n")
DONE = call("task_complete")

SCRIPTS: dict[str, list[str]] = {
    # the plain loop: prose and an argv list are unreadable to a plain parser; its word ends it
    "naive": [
        "I will create the file now.",
        '{"name": "run_command", "arguments": ["printf hi > /app/hello.txt"]}',
        call("run_command", command="printf 'Hello, world!\\n' > /app/hello.txt"),
        DONE,
    ],
    # prose read as nothing, a dangerous command refused, a premature done checked and failed
    "fm": [
        "I will write the file now.",
        call("run_command", command="rm -rf /"),
        WRITE_BAD,
        DONE,
        WRITE_OK,
        DONE,
    ],
    # the model's call fails; the other tools are asked and the best applied; then solved
    "climber": [
        call("run_command", command="cat /app/hello.txt"),
        WRITE_BAD,
        call("edit_file", path="/app/hello.txt", old_text="Hello", new_text="Hi"),
        WRITE_OK,
    ],
    # conversation mode: a failed read, a write, a check by the model, then done
    "full": [
        call("read_file", path="/app/hello.txt"),
        WRITE_OK,
        call("verify_progress"),
        DONE,
    ],
}

_VOLATILE = {
    "timestamp",
    "latency_sec",
    "duration_sec",
    "model_seconds",
    "tool_seconds",
    "session_id",
    "version",
}
_PROBED = re.compile(r"Commands here: [^\n]*")


def run(name: str, root: Path) -> dict[str, Any]:
    """The trajectory of the preset `name` on the fixture task, with what differs from run to
    run or machine to machine taken out."""
    return _stable(json.loads(run_raw(name, root).read_text()))


def run_raw(name: str, root: Path) -> Path:
    """Run the preset `name` on the fixture task; the path of its trajectory, as written."""
    kind, _ = pick_sandbox_kind()
    if kind is SandboxKind.LOCAL:
        raise RuntimeError("golden runs need an isolated sandbox (bwrap or namespace)")
    task = load_task(TASK)
    sandbox = create_sandbox(kind, trial_layout(root / "trial"))
    profile = ModelProfile(name="scripted", context_window=4096, supports_constraint=True)
    model = ScriptedModel(SCRIPTS[name], profile)
    log_dir = root / "log"
    log_dir.mkdir(parents=True)
    ctx = AgentContext(
        task,
        sandbox,
        time.monotonic() + 300,
        log_dir,
        verify=lambda: verify(task, sandbox, root / "checks"),
        trial_name="golden",
    )
    HarnessAgent(model, preset(name)).run(ctx)
    model.assert_complete()
    return log_dir / "trajectory.json"


def _stable(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _stable(v) for k, v in data.items() if k not in _VOLATILE}
    if isinstance(data, list):
        return [_stable(v) for v in data]
    if isinstance(data, str):
        return _PROBED.sub("Commands here: (probed on this machine)", data)
    return data


def text(trajectory: dict[str, Any]) -> str:
    return json.dumps(trajectory, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def digest(trajectory: dict[str, Any]) -> str:
    """What matters of a trajectory, a line a step: the tools each turn called (or none) and
    what refused them, each check's verdict and count, the checks made, and how the loop
    ended."""
    lines = []
    for step in trajectory["steps"]:
        extra = step.get("extra", {})
        if step["source"] == "agent":
            called = ", ".join(c["function_name"] for c in step.get("tool_calls", []))
            refused = f", refused: {extra['guard']['rule']}" if extra.get("guard") else ""
            said = called or _named(step.get("message", "")) or "no readable call"
            lines.append(f"turn {extra.get('turn')} {extra.get('role')}: {said}{refused}")
        elif "passing" in extra:
            verdict = "passed" if extra["passed"] else "failed"
            counts = f"{extra['passing']}/{extra['total']}"
            lines.append(f"  {extra.get('label')} ({extra.get('why')}): {verdict} {counts}")
        elif "checks" in extra:
            strengths = sorted(check["strength"] for check in extra["checks"])
            lines.append(f"checks made: {', '.join(strengths) or 'none'}")
        elif step["source"] == "system":
            lines.append(f"  {step['message'].splitlines()[0]}")
    end = trajectory.get("final_metrics", {}).get("extra", {})
    lines.append(f"end: {end.get('exit')} after {end.get('turns')} turns ({end.get('reason')})")
    return "\n".join(lines) + "\n"


def _named(answer: str) -> str:
    """The tool an answer names that ran as no tool call (task_complete, a refused call)."""
    try:
        said = json.loads(answer)
    except ValueError:
        return ""
    return str(said.get("name", "")) if isinstance(said, dict) else ""


def record() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name in SCRIPTS:
        with tempfile.TemporaryDirectory(prefix="hc-golden-") as tmp:
            trajectory = run(name, Path(tmp))
        (GOLDEN / f"{name}.json").write_text(text(trajectory))
        (GOLDEN / f"{name}.digest.txt").write_text(digest(trajectory))
        print(f"recorded {GOLDEN / name}.json and its digest")
