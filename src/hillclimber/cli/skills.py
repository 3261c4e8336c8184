"""`skills list|show|add|import|export|stats|learn`: the skill library and the skill store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.table import Table

from hillclimber.cli.app import console, fail, skills_app
from hillclimber.errors import HillclimberError
from hillclimber.harvest import JudgedBy, harvest
from hillclimber.skills.select import library
from hillclimber.skills.settings import SkillSettings
from hillclimber.skills.skill import Skill, load_file
from hillclimber.skills.store import SkillStore

StoreOption = Annotated[
    Path | None,
    typer.Option("--store", help="The skill store (default: skills.db in hillclimber's home)."),
]


def _everything(store: SkillStore) -> list[Skill]:
    return library(SkillSettings(learned=True), store)


def _find(store: SkillStore, skill_id: str) -> Skill:
    found = next((s for s in _everything(store) if s.id == skill_id), None)
    if found is None:
        fail(f"no skill '{skill_id}' (hillclimber skills list shows them)")
    return found


@skills_app.command("list")
def skills_list(
    store_path: StoreOption = None,
    source: Annotated[
        str | None, typer.Option(help="Only bootstrap, learned or user skills.")
    ] = None,
) -> None:
    """Every skill, with its uses and standing."""
    store = SkillStore(store_path)
    records = store.records()
    table = Table("id", "topic", "source", "uses", "passes", "standing", "description")
    for skill in _everything(store):
        if source and skill.source != source:
            continue
        record = records.get(skill.id)
        table.add_row(
            skill.id,
            skill.topic,
            skill.source,
            str(record.uses if record else 0),
            str(record.passes if record else 0),
            record.standing if record else "active",
            skill.description,
        )
    console.print(table)


@skills_app.command("show")
def skills_show(skill_id: str, store_path: StoreOption = None) -> None:
    """One skill, whole, as the library file writes it."""
    store = SkillStore(store_path)
    skill = _find(store, skill_id)
    console.print(_toml(skill), highlight=False, markup=False)
    record = store.records([skill.id]).get(skill.id)
    if record:
        console.print(f"# {record.uses} uses, {record.passes} passed: {record.standing}")


@skills_app.command("add")
def skills_add(
    skill_id: Annotated[str, typer.Argument(metavar="ID", help="kebab-case id.")],
    description: Annotated[str, typer.Option(help="What to do and the trick (<= 200 chars).")],
    example: Annotated[str, typer.Option(help="A few commands or a short file body.")],
    when: Annotated[str, typer.Option(help="Words a task uses when it applies.")] = "",
    topic: str = "user",
    store_path: StoreOption = None,
) -> None:
    """Add (or replace) one skill of your own."""
    try:
        skill = Skill(
            id=skill_id,
            description=description,
            when=when,
            example=example.replace("\\n", "\n"),
            topic=topic,
            source="user",
        )
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        fail(f"skill {skill_id}: field '{field}': {first['msg']}")
    SkillStore(store_path).add(skill)
    console.print(f"added {skill.id}")


@skills_app.command("import")
def skills_import(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="A TOML file of `[[skill]]` tables.")
    ],
    store_path: StoreOption = None,
) -> None:
    """Add the skills of a file (as `export` or the library writes them)."""
    store = SkillStore(store_path)
    skills = load_file(file, topic="user")
    added = sum(
        store.add(s if s.source != "bootstrap" else s.model_copy(update={"source": "user"}))
        for s in skills
    )
    console.print(f"{added} of {len(skills)} skills added or changed in {store.path}")


@skills_app.command("export")
def skills_export(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Where to write the TOML.")],
    everything: Annotated[bool, typer.Option("--all", help="The bootstrap library too.")] = False,
    store_path: StoreOption = None,
) -> None:
    """Write the stored skills (learned and added) as a TOML file `import` reads."""
    store = SkillStore(store_path)
    skills = _everything(store) if everything else store.skills()
    file.write_text("\n".join(_toml(s) for s in skills))
    console.print(f"{len(skills)} skills written to {file}")


@skills_app.command("stats")
def skills_stats(store_path: StoreOption = None) -> None:
    """Skills by source and standing, and the uses counted."""
    store = SkillStore(store_path)
    records = store.records()
    table = Table("source", "skills", "used", "uses", "passes", "demoted", "retired")
    for source in ("bootstrap", "learned", "user"):
        skills = [s for s in _everything(store) if s.source == source]
        mine = [records[s.id] for s in skills if s.id in records]
        table.add_row(
            source,
            str(len(skills)),
            str(len(mine)),
            str(sum(r.uses for r in mine)),
            str(sum(r.passes for r in mine)),
            str(sum(r.standing == "demoted" for r in mine)),
            str(sum(r.standing == "retired" for r in mine)),
        )
    console.print(table)
    console.print(f"store: {store.path}", highlight=False)


@skills_app.command("learn")
def skills_learn(
    run_dir: Annotated[
        Path, typer.Argument(metavar="RUN", help="A run's folder, or a comparison's.")
    ],
    by: Annotated[
        str,
        typer.Option(
            help="own: the trial's own checks passed in its loop; tests: the "
            "task's tests passed after it."
        ),
    ] = "own",
    store_path: StoreOption = None,
) -> None:
    """Learn a skill from every passed trial of a finished run."""
    if by not in ("own", "tests"):
        fail(f"--by {by}: expected own or tests")
    judged: JudgedBy = "own" if by == "own" else "tests"
    store = SkillStore(store_path)
    try:
        found = harvest(run_dir, store, by=judged)
    except HillclimberError as err:
        fail(str(err))
    for item in found:
        if item.skill_id is None:
            what = "no skill (no command changed anything)"
        else:
            what = item.skill_id + ("" if item.new else " (known)")
        console.print(f"{item.trial.name}: {what}", highlight=False)
    console.print(f"{sum(i.new for i in found)} new skills in {store.path}", highlight=False)


def _toml(skill: Skill) -> str:
    """A skill as a `[[skill]]` table (strings written as JSON strings, which TOML reads)."""
    lines = ["[[skill]]"]
    for key, value in skill.model_dump(exclude={"topic"}, exclude_none=True).items():
        if key == "source" and value == "bootstrap":
            continue
        lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"
