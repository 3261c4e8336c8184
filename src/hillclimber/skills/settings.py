"""The settings of the skills part (the `skills` group of a `HarnessConfig`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class SkillSettings(BaseModel):
    """Skills: reference approaches shown as examples (`hillclimber.skills`); the `skills`
    group of a harness setting."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    show: Literal["suite", "on", "off"] = "off"
    """suite: where the suite's policy turns generic aids on (the built-in suite; never
    Terminal-Bench 2, where the retrieval is not even called); on; off."""
    learned: bool = True
    """Also show the store's skills (learned from solved tasks, or added), never on the task
    a skill was learned from."""
    learn: bool = False
    """After a trial its checks passed (the task's tests with feedback tests, the acceptance
    checks with feedback self), store a skill distilled from its steps, and count each skill
    shown with the trial's outcome. Off by default: a run's results then do not depend on the
    order its trials ran in."""
    for_planner: bool = False
    """Also show them to the planner. Off: the 0.5B's planner copies an example's lines as its
    steps, paths and all (`cd /app/project && git init` on a task whose repository exists), and
    the worker then follows that plan (run `skills`, docs/results.md)."""
    top_k: int = Field(default=3, ge=1, le=10)
    min_score: float = Field(default=3.0, ge=0)
    """The BM25 score a skill needs at least."""
    min_share: float = Field(default=0.7, ge=0, le=1)
    """...and at least this share of the best skill's score (both set on the labelled set of
    benchmarks/skills.py: about half of what is shown is what a person would pick)."""
    store: str | None = None
    """The SQLite file of learned skills and uses; None: `<hillclimber home>/skills.db`."""
