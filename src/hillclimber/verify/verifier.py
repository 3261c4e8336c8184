"""Run a task's own tests in the sandbox and say how many pass.

The verifier never trusts the agent: it lays a fresh copy of the tests at /tests (the agent never
sees them), a logs folder at /logs, and the cached verifier environment at /verifier-env, runs
the task's test script (made offline by `testscript`), and reads pytest's own report.
"""

from __future__ import annotations

import functools
import json
import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field

from hillclimber.errors import VerifierError
from hillclimber.process import run_process
from hillclimber.sandbox import CommandResult, Mount, Sandbox, SandboxKind
from hillclimber.sandbox.base import APP, STANDARD_PATH, find_bash
from hillclimber.sandbox.files import read_bytes
from hillclimber.sandbox.host import copy_for_root
from hillclimber.setup.presence import apt_present
from hillclimber.task import Task, VerificationKind
from hillclimber.verify import venv as verifier_env
from hillclimber.verify.testscript import JUNIT_PATH, PYTHON_VAR, TestScript, translate

DIGEST_CHARS = 600

Strength = Literal["weak", "form", "value"]
"""What a pass of checks shows, weakest first: that something is there; that it has the stated
form; that its values are right."""
STRENGTHS: tuple[Strength, ...] = ("weak", "form", "value")


class Evaluation(BaseModel):
    passed: bool
    passing: int = Field(validation_alias=AliasChoices("passing", "tests_passing"))
    """Of the tests (or the harness's checks: `label`), those that pass; `tests_passing` in
    records before 2026-11-29."""
    total: int = Field(validation_alias=AliasChoices("total", "tests_total"))
    reward: float | None = None
    digest: str = ""
    """Short summary of what failed (test names and first lines of their messages)."""
    timed_out: bool = False
    duration_sec: float = 0.0
    notes: list[str] = []
    label: str = "tests"
    """What was run: the task's `tests`, or the harness's own `acceptance checks`."""
    strength: Strength = "value"
    """What a pass shows: the task's tests show the values are right; the harness's own checks
    as much as their strongest goal check (`harness/checks/base.py`)."""
    evidence: str = ""
    """On a pass that is not conclusive: what the checks looked at, for the model to judge."""
    weak_passing: int = 0
    weak_total: int = 0
    """Of the checks, those that only show a file is there, parses or changed (the harness's
    own checks; the task's tests have none): passing, and in all."""
    failing: list[str] = []
    """The names of the checks that failed (the harness's own checks; the task's tests say
    theirs in `digest`)."""
    value_passing: int | None = None
    """Of the checks, those passing that show the values right (the harness's own checks);
    None: every check does (the task's tests)."""

    @property
    def values_shown(self) -> int:
        """How many passing checks show the values right."""
        return self.passing if self.value_passing is None else self.value_passing

    @property
    def conclusive(self) -> bool:
        """Whether a pass shows the work is right (not only its form, or that it is there)."""
        return self.strength == "value"

    @property
    def progress(self) -> float:
        return self.passing / self.total if self.total else float(self.passed)

    def summary(self) -> str:
        return f"{self.label} {self.passing}/{self.total}"


def script_for(task: Task) -> TestScript:
    """The offline test script of a TB1/TB2 task."""
    verification = task.verification
    assert verification.script is not None
    return translate(verification.script.read_text(errors="replace"), verification.tests_dir)


def verifier_needs(task: Task, *, in_image: bool = False) -> list[str]:
    """Why this task's tests cannot run here (empty when they can). In the task's image the
    system packages the script installs are the image's affair, not this machine's."""
    if task.verification.kind not in (VerificationKind.TB2, VerificationKind.TB1):
        return []
    script = script_for(task)
    needs = list(script.needs)
    missing = [] if in_image else [p for p in script.apt_packages if not apt_present(p)]
    if missing:
        needs.append("tests need: " + ", ".join(missing))
    if not script.runs_pytest:
        needs.append("the test script does not run pytest in a form hillclimber knows")
    return needs


REWARD_DIR = "/logs/verifier"


def verify(
    task: Task,
    sandbox: Sandbox,
    work_dir: Path,
    timeout: float | None = None,
    cwd: str = APP,
) -> Evaluation:
    """Verify the workspace behind `sandbox`, with the tests started in `cwd` (the task's
    working folder, as Harbor starts them).

    `work_dir` holds this verification's files: `logs/` (seen at /logs; the verifier's output,
    reward and reports land in `logs/verifier/`) and `tests/` (the fresh copy seen at /tests).
    """
    timeout = timeout if timeout is not None else task.limits.verifier_timeout_sec
    kind = task.verification.kind
    start = time.monotonic()
    if kind in (VerificationKind.TB2, VerificationKind.TB1):
        evaluation = _verify_pytest_script(task, sandbox, work_dir, timeout, cwd)
    elif kind is VerificationKind.NONE:
        raise VerifierError(f"task {task.id} has no verifier")
    else:
        evaluation = _verify_inline(task, sandbox, work_dir, timeout, cwd)
    evaluation.duration_sec = time.monotonic() - start
    return evaluation


def _verify_inline(
    task: Task, sandbox: Sandbox, work_dir: Path, timeout: float, cwd: str
) -> Evaluation:
    verification = task.verification
    command = verification.command or ""
    result = sandbox.run(command, timeout=timeout, cwd=cwd)
    out = _fresh_verifier_dir(work_dir)
    (out / "output.txt").write_text(result.output)
    if verification.kind is VerificationKind.OUTPUT:
        expected = (verification.expected or "").strip()
        passed = result.ok and result.stdout.strip() == expected
        digest = "" if passed else f"expected {expected!r}, got {result.stdout.strip()[:200]!r}"
    else:
        passed = result.ok
        digest = "" if passed else _tail(result.output, f"exit code {result.exit_code}")
    if result.timed_out:
        digest = f"verification timed out after {timeout:.0f}s"
    return Evaluation(
        passed=passed,
        passing=int(passed),
        total=1,
        reward=float(passed),
        digest=digest[:DIGEST_CHARS],
        timed_out=result.timed_out,
    )


def _fresh_verifier_dir(work_dir: Path) -> Path:
    out = work_dir / "logs" / "verifier"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return out


def _verify_pytest_script(
    task: Task, sandbox: Sandbox, work_dir: Path, timeout: float, cwd: str
) -> Evaluation:
    verification = task.verification
    assert verification.tests_dir is not None
    script = script_for(task)
    if script.needs:
        raise VerifierError("cannot reproduce the test script here: " + "; ".join(script.needs))
    _check_syntax(script.text, verification.script)
    env_path = verifier_env.env_for(script.packages, sandbox)
    checker = _checker_with_fresh_tests(sandbox, work_dir, verification.tests_dir, env_path)
    out = work_dir / "logs" / "verifier"
    env = {**script_env_in(checker), "TEST_DIR": "/tests"}
    (out / "hillclimber-test.sh").write_text(script.text)
    result = checker.run(script.text, timeout=timeout, cwd=cwd, env=env, output_cap=4 << 20)
    (out / "output.txt").write_text(result.output)
    return _judge_pytest_run(task, script, checker, result, timeout)


def _check_syntax(text: str, source: Path | None) -> None:
    """A test script bash cannot even read judges nothing: VerifierError (the trial is an
    `error`, never a `failed` one scored on no test)."""
    problem = _syntax_problem(text)
    if problem is not None:
        raise VerifierError(f"{source}: the test script has a syntax error: {problem}")


@functools.cache
def _syntax_problem(text: str) -> str | None:
    """What `bash -n` says of a script, read once per script (the tests in the loop verify
    the same script again after every change)."""
    checked = run_process([find_bash(), "-n"], timeout=30, stdin=text.encode())
    if checked.exit_code == 0:
        return None
    problem = (checked.stderr.strip().splitlines() or ["bash -n failed"])[-1]
    return problem.replace("bash: ", "", 1)


def script_env() -> dict[str, str]:
    """What a translated test script needs to find the verifier environment (bound in at
    `verifier_env.MOUNT_TARGET`) and the agent's user site."""
    return {
        PYTHON_VAR: f"{verifier_env.MOUNT_TARGET}/bin/python",
        "PATH": f"{verifier_env.MOUNT_TARGET}/bin:{STANDARD_PATH}",
        verifier_env.USER_SITE_VAR: verifier_env.user_site(),
    }


def script_env_in(checker: Sandbox) -> dict[str, str]:
    """`script_env`, and in a task's image: the image's PATH first, the image's own Python
    where it has pytest (its tests import what its Dockerfile installed), and the user site of
    the image's python3."""
    env = script_env()
    if checker.kind is SandboxKind.CONTAINER:
        image_path = checker.layout.env.get("PATH", STANDARD_PATH)
        env["PATH"] = f"{image_path}:{verifier_env.MOUNT_TARGET}/bin"
        probe = checker.run(_PYTHON_PROBE, timeout=60)
        if probe.ok:
            env[PYTHON_VAR] = "python3"
        version = probe.stdout.strip() or None  # printed before pytest is looked for
        env[verifier_env.USER_SITE_VAR] = verifier_env.user_site(version)
    return env


_PYTHON_PROBE = (
    'python3 -c \'import sys; print("%d.%d" % sys.version_info[:2]); import pytest; '
    "sys.exit(sys.version_info < (3, 11))'"
)
"""The image's python3: its version (printed), and whether it has pytest and reads `-P` (3.11+),
as the translated call needs (its exit code)."""


def _checker_with_fresh_tests(
    sandbox: Sandbox, work_dir: Path, tests_dir: Path, env_path: Path
) -> Sandbox:
    """The sandbox that sees a fresh copy of the tests at /tests, empty logs at /logs and the
    verifier environment: nothing the agent or an earlier run did can leak into the tests."""
    tests_copy = work_dir / "tests"
    shutil.rmtree(tests_copy, ignore_errors=True)
    copy_for_root(tests_dir, tests_copy)  # a test may build into /tests, as root does there
    _fresh_verifier_dir(work_dir)
    logs_dir = work_dir / "logs"
    (logs_dir / "agent").mkdir(exist_ok=True)
    layout = sandbox.layout.with_mounts(
        Mount("/tests", tests_copy),
        Mount("/logs", logs_dir),
        Mount(verifier_env.MOUNT_TARGET, env_path, readonly=True),
    )
    checker = sandbox.with_layout(layout)
    checker.localize("/tests")
    return checker


def _judge_pytest_run(
    task: Task, script: TestScript, checker: Sandbox, result: CommandResult, timeout: float
) -> Evaluation:
    """Read the junit report and reward through the sandbox, as the test script left them."""
    passing, total, failures = _read_junit(read_bytes(checker, JUNIT_PATH))
    reward = _read_reward(checker)
    if task.verification.kind is VerificationKind.TB2 and reward is not None:
        passed = reward >= 1.0
    else:
        passed = result.ok and passing == total
    # A pass needs tests that ran: an empty pytest report never counts as solved.
    passed = passed and total > 0
    if result.timed_out:
        passed = False
        digest = f"verification timed out after {timeout:.0f}s"
    elif failures:
        digest = "; ".join(failures)
    elif not passed:
        digest = _tail(result.output, f"test script exit code {result.exit_code}")
    else:
        digest = ""
    return Evaluation(
        passed=passed,
        passing=passing,
        total=total,
        reward=reward,
        digest=digest[:DIGEST_CHARS],
        timed_out=result.timed_out,
        notes=script.notes,
    )


def _read_junit(report: bytes | None) -> tuple[int, int, list[str]]:
    """(passing, total, short failure lines) from pytest's junit XML; skipped tests don't count."""
    if report is None:
        return 0, 0, []
    try:
        root = ET.fromstring(report)
    except ET.ParseError:
        return 0, 0, []
    passing = total = 0
    failures: list[str] = []
    for case in root.iter("testcase"):
        if case.find("skipped") is not None:
            continue
        total += 1
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is None:
            passing += 1
            continue
        first = _first_line(problem)
        failures.append(f"{case.get('name')}: {first}" if first else str(case.get("name")))
    return passing, total, failures


def _first_line(problem: ET.Element) -> str:
    """What went wrong, in a line: the message, or, where pytest's says only that collecting
    failed, the error its text ends with (`E   ModuleNotFoundError: No module named 'x'`)."""
    message = (problem.get("message") or problem.text or "").strip()
    if message == "collection failure":
        text = (problem.text or "").splitlines()
        raised = [line[1:].strip() for line in text if line.startswith("E ")]
        message = f"{message}: {raised[-1]}" if raised else message
    lines = message.splitlines()
    return lines[0][:120] if lines else ""


def _read_reward(sandbox: Sandbox) -> float | None:
    """The reward the test script wrote to /logs/verifier/reward.txt (or reward.json)."""
    text = read_bytes(sandbox, f"{REWARD_DIR}/reward.txt")
    if text is not None:
        try:
            return float(text.decode(errors="replace").strip())
        except ValueError:
            return None
    found = read_bytes(sandbox, f"{REWARD_DIR}/reward.json")
    if found is not None:
        try:
            data = json.loads(found)
        except json.JSONDecodeError:
            return None
        if isinstance(data, dict) and data:
            value = data.get("reward", next(iter(data.values())))
            return float(value) if isinstance(value, int | float) else None
        if isinstance(data, int | float):
            return float(data)
    return None


def _tail(text: str, fallback: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-4:]) if lines else fallback
