"""Skills in real trials (the scripted model, the real sandbox): chosen by the suite's policy
and never retrieved for Terminal-Bench 2, learned after a pass, never shown on the task they
came from; and the `skills` commands."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from hillclimber.agents.harness import HarnessAgent
from hillclimber.context import AgentContext
from hillclimber.harness.presets import preset
from hillclimber.harness.prompting.templates import shipped
from hillclimber.loaders import load_task
from hillclimber.models import ModelProfile, ScriptedModel
from hillclimber.models.base import CompletionRequest
from hillclimber.skills import trial as trial_skills
from hillclimber.skills.skill import Skill
from hillclimber.skills.store import SkillStore

from conftest import FIXTURES, hc, isolated_sandbox

HELLO = FIXTURES / "tb2" / "fx-hello"
HEADER = shipped()("skills.title")
WRITE = json.dumps(
    {"name": "write_file", "arguments": {"path": "/app/hello.txt", "content": "Hello, world!\n"}}
)
PRINTF = json.dumps(
    {"name": "run_command", "arguments": {"command": "printf 'Hello, world!\\n' > /app/hello.txt"}}
)
DONE = json.dumps({"name": "task_complete", "arguments": {}})
GREETING = Skill(
    id="greeting-file",
    description="Create a greeting file whose only line is the exact text asked for.",
    when="create file hello world only line exactly",
    example="printf 'Hello, world!\\n' > /app/hello.txt",
    source="user",
)


def run_agent(
    root: Path,
    *,
    suite: str | None,
    answers: list[str],
    requests: list[CompletionRequest] | None = None,
    **settings: Any,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(agent info, trajectory) of the fm preset with `settings` on the hello fixture; the
    model's requests are added to `requests` when given."""
    task = load_task(HELLO)
    sandbox, _ = isolated_sandbox(root / "trial")
    model = ScriptedModel(
        answers, ModelProfile(name="scripted", context_window=4096, supports_constraint=True)
    )
    log_dir = root / "log"
    log_dir.mkdir(parents=True)
    ctx = AgentContext(
        task,
        sandbox,
        time.monotonic() + 120,
        log_dir,
        suite_hints="on" if suite == "mini" else None,
        suite_source=suite,
        trial_name="t.1",
    )
    settings = {"planner": False, **settings}
    config = preset("fm", probe_commands=False, **settings)
    outcome = HarnessAgent(model, config).run(ctx)
    if requests is not None:
        requests.extend(model.requests)
    return outcome.info, json.loads((log_dir / "trajectory.json").read_text())


def prompts(trajectory: dict[str, Any]) -> str:
    return "\n".join(
        message["content"]
        for step in trajectory["steps"]
        for message in (step.get("extra") or {}).get("prompt", [])
    )


def test_a_tb2_dataset_gets_no_skill_text_and_no_retrieval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_retrieval(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("skills were retrieved for a Terminal-Bench 2 dataset")

    monkeypatch.setattr(trial_skills, "choose", no_retrieval)
    info, trajectory = run_agent(
        tmp_path, suite=str(FIXTURES / "tb2"), answers=[WRITE, DONE], **{"skills.show": "suite"}
    )
    assert info["skills"] == [] and trajectory["agent"]["extra"]["skills"] == []
    assert prompts(trajectory) and HEADER not in prompts(trajectory)
    assert "Example approaches" not in prompts(trajectory)


def test_the_built_in_suite_shows_skills_and_the_result_records_them(tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "skills.db")
    store.add(GREETING)
    info, trajectory = run_agent(
        tmp_path / "run",
        suite="mini",
        answers=[WRITE, DONE],
        **{"skills.show": "suite", "skills.store": str(store.path)},
    )
    assert "greeting-file" in info["skills"]
    assert trajectory["agent"]["extra"]["skills"] == info["skills"]
    text = prompts(trajectory)
    assert HEADER in text and GREETING.description in text and "greeting-file" not in text


PLAN = json.dumps({"steps": ["write the file"]})


@pytest.mark.parametrize("to_planner", [False, True])
def test_the_planner_sees_the_skills_only_when_asked(tmp_path: Path, to_planner: bool) -> None:
    store = SkillStore(tmp_path / "skills.db")
    store.add(GREETING)
    requests: list[CompletionRequest] = []
    info, _ = run_agent(
        tmp_path / "run",
        suite="mini",
        answers=[PLAN, WRITE, DONE],
        requests=requests,
        planner=True,
        **{
            "planning.complexity": False,
            "skills.show": "on",
            "skills.store": str(store.path),
            "skills.for_planner": to_planner,
        },
    )
    asked = ["\n".join(m.content for m in r.messages) for r in requests]
    plans = [
        text
        for r, text in zip(requests, asked, strict=True)
        if r.constraint and r.constraint.name == "plan"
    ]
    workers = [text for text in asked if text not in plans]
    assert "greeting-file" in info["skills"] and plans and workers
    assert all(GREETING.description in text for text in workers)
    assert all((GREETING.description in text) is to_planner for text in plans)


def test_a_pass_teaches_a_skill_that_its_own_task_never_sees(tmp_path: Path) -> None:
    store_path = str(tmp_path / "skills.db")
    SkillStore(store_path).add(GREETING)
    settings = {"skills.show": "on", "skills.learn": True, "skills.store": store_path}
    info, _ = run_agent(tmp_path / "first", suite=None, answers=[PRINTF, DONE], **settings)
    learned = info["skill_learned"]
    assert learned and learned.startswith("learned-")
    assert "greeting-file" in info["skills"]
    skill = next(s for s in SkillStore(store_path).skills() if s.id == learned)
    assert skill.source_task == "fx-hello" and "FILE1.txt" in skill.example
    assert "hello.txt" not in skill.example and "Hello, world!" in skill.example
    uses = SkillStore(store_path).records()
    assert all(uses[i].uses == 1 and uses[i].passes == 1 for i in info["skills"])

    again, trajectory = run_agent(
        tmp_path / "again", suite=None, answers=[PRINTF, DONE], **settings
    )
    assert learned not in again["skills"]
    assert skill.description not in prompts(trajectory)


def test_a_failed_trial_is_counted_and_teaches_nothing(tmp_path: Path) -> None:
    store_path = str(tmp_path / "skills.db")
    SkillStore(store_path).add(GREETING)
    settings = {"skills.show": "on", "skills.learn": True, "skills.store": store_path}
    wrong = WRITE.replace("Hello, world!", "Bye")
    info, _ = run_agent(tmp_path / "t", suite=None, answers=[wrong, DONE, DONE, DONE], **settings)
    assert info["skill_learned"] is None
    assert SkillStore(store_path).skills() == [GREETING]
    records = SkillStore(store_path).records()
    assert "greeting-file" in info["skills"] and all(records[i].passes == 0 for i in info["skills"])


# -- the commands ----------------------------------------------------------------------------


def test_the_skills_commands(tmp_path: Path) -> None:
    store = ["--store", str(tmp_path / "skills.db")]
    listed = hc("skills", "list", *store)
    assert listed.returncode == 0 and "append" in listed.stdout
    added = hc(
        "skills",
        "add",
        "my-trick",
        "--description",
        "Say hi with printf.",
        "--example",
        "printf 'hi\\n'",
        "--when",
        "greet",
        *store,
    )
    assert added.returncode == 0, added.stderr
    shown = hc("skills", "show", "my-trick", *store)
    assert 'id = "my-trick"' in shown.stdout and 'source = "user"' in shown.stdout
    out = tmp_path / "mine.toml"
    assert hc("skills", "export", str(out), *store).returncode == 0
    other = ["--store", str(tmp_path / "other.db")]
    imported = hc("skills", "import", str(out), *other)
    assert imported.returncode == 0 and "1 of 1" in imported.stdout
    assert "my-trick" in hc("skills", "list", "--source", "user", *other).stdout
    stats = hc("skills", "stats", *other)
    assert stats.returncode == 0 and "bootstrap" in stats.stdout
    bad = hc("skills", "add", "Bad Id", "--description", "x" * 10, "--example", "true", *store)
    assert bad.returncode == 2 and "field 'id'" in bad.stderr and "Traceback" not in bad.stderr
    missing = hc("skills", "show", "no-such", *store)
    assert missing.returncode == 2 and "no skill 'no-such'" in missing.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("[[skill]]\nid = 'x'\n")
    refused = hc("skills", "import", str(broken), *store)
    assert refused.returncode == 2 and "broken.toml" in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.slow
def test_learn_from_a_finished_run(tmp_path: Path) -> None:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([PRINTF, DONE]))
    runs = tmp_path / "runs"
    ran = hc(
        "bench",
        "--dataset",
        str(HELLO),
        "--model",
        f"scripted:{script}",
        "--preset",
        "fm",
        "--set",
        "planner=false",
        "--run-id",
        "r",
        "--runs-dir",
        str(runs),
    )
    assert ran.returncode == 0, ran.stderr
    store = ["--store", str(tmp_path / "skills.db")]
    learned = hc("skills", "learn", str(runs / "r"), *store)
    assert learned.returncode == 0, learned.stderr
    assert "fx-hello.1: learned-" in learned.stdout and "1 new skills" in learned.stdout
    assert "learned" in hc("skills", "list", "--source", "learned", *store).stdout
    nothing = hc("skills", "learn", str(tmp_path), *store)
    assert nothing.returncode == 0 and "0 new skills" in nothing.stdout
