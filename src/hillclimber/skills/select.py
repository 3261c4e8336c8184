"""Which skills a task is shown, and how: the library (bootstrap, and the store's skills when
asked) less the skills learned from this very task and the retired ones, ranked by BM25 on the
instruction, demoted ones at half their score, the best `top_k` above the threshold (no skill
beats a wrong one). Shown as example approaches, never as tools (in the words of
`harness/prompts/skills.toml`)."""

from __future__ import annotations

from functools import lru_cache

from hillclimber.skills.rank import BM25Ranker, Scored
from hillclimber.skills.settings import SkillSettings
from hillclimber.skills.skill import Skill, bootstrap
from hillclimber.skills.store import SkillStore

DEMOTED_WEIGHT = 0.5


@lru_cache(maxsize=4)
def _ranker(pool: tuple[Skill, ...]) -> BM25Ranker:
    return BM25Ranker(pool)


@lru_cache(maxsize=1)
def _bootstrap() -> tuple[Skill, ...]:
    return tuple(bootstrap())


def library(settings: SkillSettings, store: SkillStore | None) -> list[Skill]:
    """The skills there are to show: the bootstrap library, and the store's when asked."""
    skills = list(_bootstrap())
    if settings.learned and store is not None:
        known = {s.id for s in skills}
        skills += [s for s in store.skills() if s.id not in known]
    return skills


def choose(
    settings: SkillSettings,
    instruction: str,
    *,
    task_id: str | None,
    store: SkillStore | None = None,
) -> list[Scored]:
    """The skills to show for this task, best first (possibly none)."""
    records = store.records() if store is not None else {}
    pool = tuple(
        skill
        for skill in library(settings, store)
        if not skill.learned_from(task_id, instruction)
        and (skill.id not in records or records[skill.id].standing != "retired")
    )
    found = _ranker(pool).search(instruction, settings.top_k * 3)
    weighted = sorted(
        (
            Scored(s.skill, s.score * DEMOTED_WEIGHT)
            if s.skill.id in records and records[s.skill.id].standing == "demoted"
            else s
            for s in found
        ),
        key=lambda s: -s.score,
    )
    if not weighted:
        return []
    floor = max(settings.min_score, weighted[0].score * settings.min_share)
    return [s for s in weighted if s.score >= floor][: settings.top_k]
