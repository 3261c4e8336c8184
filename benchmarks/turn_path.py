"""How far one turn of the loop reaches: the source files a newcomer would open to follow it.

    python benchmarks/turn_path.py [--presets climber,full]

Runs each preset's golden scripted trial (`tests/golden.py`: the fixture task in the real
sandbox, the scripted model) with a tracer on, and splits what ran at each `TurnStarted` event.
For each turn it counts the files of `src/hillclimber` in which a function was called, and the
lines of those files (what a reader opens, not only what ran). It prints the longest turn of
each preset: its number, files and lines, and the files. Counted the same way on any commit,
so two commits compare.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hillclimber.agents.harness import HarnessAgent  # noqa: E402
from hillclimber.context import AgentContext  # noqa: E402
from hillclimber.harness.presets import preset  # noqa: E402
from hillclimber.loaders import load_task  # noqa: E402
from hillclimber.models import ModelProfile, ScriptedModel  # noqa: E402
from hillclimber.sandbox import create_sandbox, pick_sandbox_kind, trial_layout  # noqa: E402
from hillclimber.verify.verifier import verify  # noqa: E402

import golden  # type: ignore[import-not-found]  # noqa: E402  (tests/golden.py)

PACKAGE = str(ROOT / "src" / "hillclimber")


class Turns:
    """Files called into, per turn (turn 0: before the first)."""

    def __init__(self) -> None:
        self.turn = 0
        self.files: dict[int, set[str]] = defaultdict(set)
        self.functions: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))

    def listen(self, event: Any) -> None:
        if type(event).__name__ == "TurnStarted":
            self.turn = event.turn

    def trace(self, frame: FrameType, event: str, arg: Any) -> None:
        name = frame.f_code.co_filename
        if event == "call" and name.startswith(PACKAGE):
            self.files[self.turn].add(name)
            self.functions[self.turn][name].add(frame.f_code.co_name)


def measure(name: str) -> tuple[int, dict[str, set[str]]]:
    """The longest turn of the preset's scripted trial, and its files with the functions
    called in each."""
    turns = Turns()
    with tempfile.TemporaryDirectory(prefix="hc-turn-") as tmp:
        root = Path(tmp)
        task = load_task(golden.TASK)
        sandbox = create_sandbox(pick_sandbox_kind()[0], trial_layout(root / "trial"))
        profile = ModelProfile(name="scripted", context_window=4096, supports_constraint=True)
        (root / "log").mkdir()
        ctx = AgentContext(task, sandbox, time.monotonic() + 300, root / "log",
                           verify=lambda: verify(task, sandbox, root / "checks"))  # fmt: skip
        agent = HarnessAgent(ScriptedModel(golden.SCRIPTS[name], profile), preset(name),
                             turns.listen)  # fmt: skip
        sys.setprofile(turns.trace)
        try:
            agent.run(ctx)
        finally:
            sys.setprofile(None)
    longest = max((t for t in turns.files if t > 0), key=lambda t: len(turns.files[t]))
    return longest, turns.functions[longest]


def _count(files: set[str]) -> str:
    lines = sum(len(Path(f).read_text().splitlines()) for f in files)
    return f"{len(files)} files, {lines} lines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", default="climber,full")
    parser.add_argument("--functions", action="store_true", help="name what ran in each file")
    args = parser.parse_args()
    for name in args.presets.split(","):
        turn, called = measure(name)
        files = set(called)
        harness = {f for f in files if "/harness/" in f}
        print(f"{name}: longest turn {turn}: {_count(files)}; in harness/ {_count(harness)}")
        for file in sorted(files):
            ran = f": {', '.join(sorted(called[file]))}" if args.functions else ""
            print(f"  {Path(file).relative_to(PACKAGE)}{ran}")


if __name__ == "__main__":
    main()
