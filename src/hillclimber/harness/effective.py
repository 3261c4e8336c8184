"""What a trial's loop really has on, and why each part a setting asks for is off.

A setting asks; the trial decides. The planner is off on a simple task, climbing where nothing
checks the work (no usable check was made), the hints where the suite's own file says so. The
`Effective` record says which, decided once in `assemble` from the setting and what the trial
found, written into the trial's result and shown by `show`: a user who reads "climbing: off,
nothing to check with" knows why a setting did nothing on that task.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Part:
    name: str
    on: bool
    why: str
    """For a part on, what it is set to; for one off, why it is off."""

    def text(self) -> str:
        return f"{self.name}: {'on' if self.on else 'off'}" + (f", {self.why}" if self.why else "")


@dataclass(frozen=True)
class Effective:
    parts: tuple[Part, ...]

    def on(self, name: str) -> bool:
        return any(part.name == name and part.on for part in self.parts)

    def record(self) -> dict[str, str]:
        """For the trial's result: each part's state and reason, in one line each."""
        return {part.name: part.text().partition(": ")[2] for part in self.parts}

    @staticmethod
    def lines(record: dict[str, str]) -> list[str]:
        """A result's record, as `show` prints it."""
        return [f"{name}: {state}" for name, state in record.items()]


def part(name: str, asked: bool, why_off: str, *, why_on: str = "", when: bool = True) -> Part:
    """A part the setting may ask for (`asked`) and the trial may not allow (`when`): off
    with the setting's word when not asked, with `why_off` when not allowed."""
    if not asked:
        return Part(name, False, "not in the setting")
    return Part(name, when, why_on if when else why_off)
