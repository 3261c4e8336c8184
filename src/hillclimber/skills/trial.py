"""The skills of one trial: chosen before its first turn, and learned from after its last.

`TrialSkills` is told the steps the trial took; when the trial's checks
passed (the task's tests with feedback `tests`, the acceptance checks with `self`) and
`skills.learn` is on, it stores a skill distilled from them and counts each skill shown with
the outcome. With feedback `none` nothing judged the trial, so nothing is learned or counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from hillclimber.skills.learn import ToolStep, distill
from hillclimber.skills.rank import Scored
from hillclimber.skills.select import choose
from hillclimber.skills.settings import SkillSettings
from hillclimber.skills.store import SkillStore, default_path


class Ran(Protocol):
    """A tool call that ran, as the loop's events tell it."""

    @property
    def tool(self) -> str: ...
    @property
    def arguments(self) -> dict[str, Any]: ...
    @property
    def success(self) -> bool: ...


class TrialSkills:
    def __init__(
        self,
        settings: SkillSettings,
        instruction: str,
        *,
        task_id: str,
        show: bool,
        named: tuple[str, ...] = (),
    ) -> None:
        self.settings, self.instruction, self.task_id = settings, instruction, task_id
        self.named = named
        """The paths the instruction names, made generic in a skill learned."""
        path = Path(settings.store) if settings.store else default_path()
        wanted = settings.learn or (show and settings.learned and path.exists())
        self.store = SkillStore(path) if wanted else None
        self.shown: list[Scored] = (
            choose(settings, instruction, task_id=task_id, store=self.store) if show else []
        )
        self.steps: list[ToolStep] = []

    @property
    def ids(self) -> list[str]:
        return [s.skill.id for s in self.shown]

    def took(self, step: Ran) -> None:
        """A step the trial took (the loop's `ToolRan` events, in order)."""
        self.steps.append(ToolStep(step.tool, step.arguments, step.success))

    def finish(self, *, passed: bool, feedback: str, trial: str) -> str | None:
        """Count the skills shown and learn from a pass; the id of the skill learned, if any."""
        if not self.settings.learn or self.store is None or feedback == "none":
            return None
        self.store.record_uses(
            self.ids, task=self.task_id, trial=trial, passed=passed, judged_by=feedback
        )
        if not passed:
            return None
        skill = distill(self.instruction, self.steps, task_id=self.task_id, named=self.named)
        if skill is None:
            return None
        self.store.add(skill)
        return skill.id
