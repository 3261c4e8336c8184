"""The paths of a task, read once per trial from its instruction against its sandbox: the
files it names (a bare name found where it really is: `instruction.relocated`), those it says
to leave alone, the data it names only to read, and where its work goes outside the working
folder. Every part of the loop that needs one of them asks here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from hillclimber.harness.instruction import (
    Where,
    named_paths,
    outside_places,
    protected_files,
    read_inputs,
    relocated,
)
from hillclimber.sandbox import Sandbox
from hillclimber.sandbox.files import exists, files_under, is_file, same_name


@dataclass(frozen=True)
class TaskPaths:
    named: tuple[str, ...]
    """The paths the instruction names, in its order (`instruction.named_paths`)."""
    protected: frozenset[str]
    """The files it says not to change (`instruction.protected_files`)."""
    inputs: frozenset[str]
    """The data files it names only to read (`instruction.read_inputs`)."""
    outputs: frozenset[str]
    """Where its work goes outside the working folder (`instruction.outside_places`)."""
    where: Where
    """Each bare name not in the working folder → the file it is (`instruction.relocated`);
    the checks are built with it too, so it is looked up once per trial."""

    @property
    def answers(self) -> tuple[str, ...]:
        """The named paths that may hold the work's answer: neither an input to read nor a
        file to leave alone, in the instruction's order."""
        return tuple(p for p in self.named if p not in self.inputs and p not in self.protected)

    @classmethod
    def read(cls, instruction: str, sandbox: Sandbox, workdir: str) -> TaskPaths:
        there = partial(exists, sandbox)
        where = relocated(instruction, workdir, there, partial(same_name, sandbox))
        named = named_paths(instruction, workdir, where)
        return cls(
            named=tuple(named),
            protected=frozenset(protected_files(instruction, workdir, where)),
            inputs=read_inputs(
                instruction,
                workdir,
                partial(is_file, sandbox),
                where,
                files_in=partial(files_under, sandbox),
            ),
            outputs=frozenset(outside_places(named, workdir, there)),
            where=where,
        )
