"""Skills: the shipped library, the rankers, the choice and its threshold, the store, the
prompt section, and a skill's name called as a tool."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from hillclimber.harness.acting.tools import tool_list
from hillclimber.harness.parsing.outcome import ParseFailureReason
from hillclimber.harness.parsing.parse import parse_tool_call
from hillclimber.harness.prompting.budget import PromptBudget
from hillclimber.harness.prompting.prompters import (
    ConversationPrompter,
    MicroPrompter,
    TurnView,
    skills_section,
)
from hillclimber.harness.prompting.templates import shipped
from hillclimber.models import ModelProfile
from hillclimber.skills.rank import BM25Ranker, HashedRanker, Scored
from hillclimber.skills.select import choose
from hillclimber.skills.settings import SkillSettings
from hillclimber.skills.skill import Skill, SkillError, bootstrap, digest, load_file
from hillclimber.skills.store import SkillStore, standing

from conftest import REPO

LABELLED = REPO / "benchmarks" / "data" / "skills_labelled.toml"


def skill(id: str, description: str, example: str = "true", **more: object) -> Skill:
    return Skill.model_validate({"id": id, "description": description, "example": example, **more})


APPEND = skill(
    "append-line",
    "Add a line to the end of a file with >> (keeps the rest).",
    "printf 'DONE\\n' >> notes.txt",
    when="append add line end",
)
COUNT = skill(
    "count-words",
    "Count the words of a file with wc -w.",
    "wc -w < input.txt",
    when="count words how many",
)
JSON = skill(
    "read-json",
    "Read a field of a JSON file with jq or python3 -c.",
    "jq -r .name data.json",
    when="json field value",
)


# -- the library -----------------------------------------------------------------------------


def test_the_shipped_library_has_enough_distinct_short_skills() -> None:
    skills = bootstrap()
    assert len(skills) >= 60
    assert len({s.id for s in skills}) == len(skills)
    assert all(len(s.description) <= 200 and s.example.strip() for s in skills)
    topics = {s.topic for s in skills}
    for topic in (
        "files",
        "text",
        "data",
        "builds",
        "git",
        "processes",
        "archives",
        "permissions",
        "scripts",
        "regex",
        "checking",
    ):
        assert topic in topics, topic


def test_the_labelled_set_names_skills_that_exist() -> None:
    queries = tomllib.loads(LABELLED.read_text())["query"]
    ids = {s.id for s in bootstrap()}
    assert len(queries) >= 60
    assert sum(q["source"].startswith("mini:") for q in queries) == 19
    for query in queries:
        assert query["skills"] and set(query["skills"]) <= ids, query["instruction"][:60]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[skill]]\nid = 'x'\n", ["bad.toml", "skill x", "description"]),
        ("[[skill]\n", ["bad.toml", "not valid TOML"]),
        (
            f"[[skill]]\nid = 'long'\ndescription = '{'x' * 201}'\nexample = 'true'\n",
            ["bad.toml", "skill long", "description", "200"],
        ),
        (
            "[[skill]]\nid = 'Bad Id'\ndescription = 'something to do'\nexample = 'true'\n",
            ["bad.toml", "field 'id'"],
        ),
        ("skill = 3\n", ["bad.toml", "field 'skill'"]),
    ],
)
def test_a_bad_skill_file_is_one_line_naming_file_and_field(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SkillError) as err:
        load_file(path)
    assert "\n" not in str(err.value)
    for word in words:
        assert word in str(err.value)


# -- ranking ---------------------------------------------------------------------------------


def test_bm25_finds_the_skill_by_stem_and_ignores_stop_words() -> None:
    ranker = BM25Ranker([APPEND, COUNT, JSON])
    found = ranker.search("Appending DONE at the end of /app/notes.txt", 3)
    assert found[0].skill.id == "append-line"
    assert all(s.score > 0 for s in found)
    assert ranker.search("the of and", 3) == []
    assert BM25Ranker([]).search("anything", 3) == []


def test_the_hashed_baseline_ranks_by_shared_words() -> None:
    ranker = HashedRanker([APPEND, COUNT, JSON])
    assert ranker.search("how many words are in the file", 1)[0].skill.id == "count-words"
    assert ranker.search("zzz", 3) == []


def test_bm25_on_the_library_finds_the_obvious_skill() -> None:
    ranker = BM25Ranker(bootstrap())
    found = [s.skill for s in ranker.search("Compile hello.c with gcc into ./hello and run it", 3)]
    assert any(s.topic == "builds" for s in found)


# -- choosing --------------------------------------------------------------------------------


def test_no_skill_beats_a_wrong_skill() -> None:
    settings = SkillSettings(show="on")
    assert (
        choose(settings, "Please be kind to the penguins of the southern seas.", task_id="x") == []
    )
    shown = choose(settings, "Append the line DONE to the end of notes.txt", task_id="x")
    assert shown and len(shown) <= settings.top_k
    best = shown[0].score
    assert all(s.score >= max(settings.min_score, best * settings.min_share) for s in shown)


def _store(tmp_path: Path, *skills: Skill) -> SkillStore:
    store = SkillStore(tmp_path / "skills.db")
    for s in skills:
        store.add(s)
    return store


LEARNED = skill(
    "learned-append-done",
    "Steps that solved a similar task: append DONE to FILE1.",
    "printf 'DONE\\n' >> FILE1.txt",
    when="append done line end notes",
    source="learned",
    source_task="append-done",
    source_digest=digest("Append DONE to notes.txt."),
)


def test_a_learned_skill_is_never_shown_on_its_own_task(tmp_path: Path) -> None:
    store = _store(tmp_path, LEARNED)
    settings = SkillSettings(show="on", min_score=0)

    def ids(instruction: str, task_id: str) -> list[str]:
        return [s.skill.id for s in choose(settings, instruction, task_id=task_id, store=store)]

    assert "learned-append-done" in ids("Append DONE to the end of log.txt", "other-task")
    assert "learned-append-done" not in ids("Append DONE to the end of log.txt", "append-done")
    # the same instruction under another id is the same task
    assert "learned-append-done" not in ids("Append   DONE to notes.txt.", "renamed")
    off = settings.model_copy(update={"learned": False})
    assert "learned-append-done" not in [
        s.skill.id for s in choose(off, "Append DONE to log.txt", task_id="o", store=store)
    ]


def test_uses_demote_then_retire_a_failing_skill(tmp_path: Path) -> None:
    assert [standing(u, p) for u, p in [(2, 0), (3, 0), (3, 1), (6, 0), (6, 1), (6, 2)]] == [
        "active",
        "demoted",
        "active",
        "retired",
        "demoted",
        "active",
    ]
    store = _store(tmp_path, LEARNED)
    settings = SkillSettings(show="on", min_score=0, min_share=0)
    text = "Append DONE to the end of log.txt"
    before = {s.skill.id: s.score for s in choose(settings, text, task_id="t", store=store)}
    store.record_uses(
        ["learned-append-done"] * 3, task="t", trial="t.1", passed=False, judged_by="self"
    )
    after = {s.skill.id: s.score for s in choose(settings, text, task_id="t", store=store)}
    assert (
        after.get("learned-append-done", 0)
        == pytest.approx(before["learned-append-done"] / 2, rel=1e-6)
        or "learned-append-done" not in after
    )
    store.record_uses(
        ["learned-append-done"] * 3, task="t", trial="t.2", passed=False, judged_by="self"
    )
    assert store.records()["learned-append-done"].standing == "retired"
    assert "learned-append-done" not in [
        s.skill.id for s in choose(settings, text, task_id="t", store=store)
    ]


def test_the_store_keeps_skills_and_replaces_by_id(tmp_path: Path) -> None:
    store = _store(tmp_path, APPEND, COUNT)
    assert store.add(APPEND) is False  # the same text
    changed = APPEND.model_copy(update={"description": "Append with >> to keep the file."})
    assert store.add(changed) is True
    assert [s.id for s in SkillStore(tmp_path / "skills.db").skills()] == [
        "count-words",
        "append-line",
    ] or {s.id for s in store.skills()} == {"append-line", "count-words"}
    assert store.remove("count-words") and not store.remove("count-words")
    assert [s.description for s in store.skills()] == ["Append with >> to keep the file."]


# -- in the prompt ---------------------------------------------------------------------------


HEADER = shipped()("skills.title")


def section(shown: list[Scored]) -> str:
    return skills_section(shown, shipped())


def test_the_section_shows_descriptions_and_examples_never_ids() -> None:
    shown = BM25Ranker([APPEND, COUNT]).search("append a line at the end", 1)
    text = section(shown)
    assert text.startswith(HEADER) and "NOT callable tools" in text
    assert APPEND.description in text and "printf 'DONE\\n' >> notes.txt" in text
    assert "append-line" not in text
    assert section([]) == ""


PROFILE = ModelProfile(name="tiny", context_window=1024, supports_constraint=False)


def test_the_skills_are_cut_first_when_the_prompt_does_not_fit() -> None:
    tools = tool_list(["run_command", "task_complete"])
    view = TurnView(instruction="Append DONE to notes.txt. " * 3, tools=tools, history=[])
    roomy = MicroPrompter(
        PromptBudget(PROFILE, answer_tokens=64),
        skills=section(BM25Ranker([APPEND]).search("append", 1)),
    )
    prompt = "\n".join(m.content for m in roomy.build(view))
    assert HEADER in prompt
    tight = MicroPrompter(
        PromptBudget(PROFILE, answer_tokens=64),
        skills="x" * 3000 + "\n" + HEADER,
    )
    squeezed = "\n".join(m.content for m in tight.build(view))
    assert "Task:" in squeezed and "x" * 2000 not in squeezed
    talk = ConversationPrompter(
        PromptBudget(PROFILE, answer_tokens=64),
        instruction="Append DONE to notes.txt.",
        tools=tools,
        skills=HEADER + "\n" + "y" * 5000,
    )
    messages = talk.build(view)
    assert "y" * 100 not in "\n".join(m.content for m in messages) and talk.skills == ""


def test_a_skill_called_as_a_tool_gets_its_own_feedback() -> None:
    tools = tool_list(["run_command", "task_complete"])
    outcome = parse_tool_call('{"name": "Append_Line", "arguments": {}}', tools)
    assert not hasattr(outcome, "call")
    assert outcome.reason is ParseFailureReason.UNKNOWN_TOOL  # type: ignore[union-attr]
    as_skill = outcome.as_skill({"append-line"})  # type: ignore[union-attr]
    assert as_skill.reason is ParseFailureReason.SKILL_AS_TOOL
    message = as_skill.feedback(tools)
    assert "example approaches" in message and "NOT tools" in message, message
    assert "run_command" in message
    other = outcome.as_skill({"count-words"})  # type: ignore[union-attr]
    assert other.reason is ParseFailureReason.UNKNOWN_TOOL


# -- learning --------------------------------------------------------------------------------


def test_a_skill_is_distilled_from_the_commands_that_changed_the_workspace() -> None:
    from hillclimber.harness.instruction import named_paths
    from hillclimber.skills.learn import ToolStep, changed_workspace, distill

    instruction = "Copy /app/input.txt to /app/backup/input.txt. Then count its lines."
    steps = [
        ToolStep("read_file", {"path": "/app/input.txt"}, True),
        ToolStep("run_command", {"command": "cat /app/input.txt | wc -l"}, True),
        ToolStep("run_command", {"command": "mkdir -p /app/backup"}, False),
        ToolStep(
            "run_command",
            {"command": "mkdir -p /app/backup && cp /app/input.txt /app/backup/"},
            True,
        ),
        ToolStep("write_file", {"path": "/app/count.txt", "content": "3\nmore\n"}, True),
    ]
    assert [changed_workspace(s) for s in steps] == [False, False, False, True, True]
    named = named_paths(instruction)
    skill = distill(instruction, steps, task_id="copy-it", named=named)
    assert skill is not None and skill.source == "learned" and skill.source_task == "copy-it"
    assert skill.example.splitlines() == [
        "mkdir -p /app/backup && cp FILE1.txt /app/backup/",
        "write_file /app/count.txt: 3 …",
    ]
    assert "FILE1.txt" in skill.description and len(skill.description) <= 200
    assert skill.learned_from("copy-it", "x") and skill.learned_from("other", instruction)
    # files written and nothing else: the task's data, not an approach
    assert distill(instruction, [steps[-1]], task_id="copy-it", named=named) is None


def test_steps_are_read_back_from_a_trajectory() -> None:
    from hillclimber.harvest import steps_from_trajectory
    from hillclimber.skills.learn import ToolStep

    doc = {
        "steps": [
            {"source": "agent", "message": "thinking"},
            {
                "tool_calls": [{"function_name": "run_command", "arguments": {"command": "ls"}}],
                "observation": {"results": [{"content": "a\n", "success": True}]},
            },
            {
                "tool_calls": [{"function_name": "write_file", "arguments": {"path": "x"}}],
                "observation": {"results": [{"content": "no", "success": False}]},
            },
        ]
    }
    assert steps_from_trajectory(doc) == [
        ToolStep("run_command", {"command": "ls"}, True),
        ToolStep("write_file", {"path": "x"}, False),
    ]
