"""Resource limits per command: over one, a command is ended and the result names the limit
(for the model's next step and the trial's `resource_limit`); within them, nothing changes."""

from __future__ import annotations

from hillclimber.sandbox import CommandResult
from hillclimber.sandbox.limits import ResourceLimits, enforcement

from conformance.host import NotHere
from conformance.trials import Trials, run

SMALL = ResourceLimits(memory_mb=512, processes=64, file_mb=64, output_mb=4, workspace_mb=200)
GRADUAL = "python3 -c \"a = []\nfor _ in range(30000): a.append(b'x' * (1 << 20))\""
AT_ONCE = "python3 -c \"b = b'x' * (30 << 30)\""


def ended_by(done: CommandResult, words: str) -> None:
    """`done` was ended by the limit its reason names with `words`, not by its time."""
    assert done.limit is not None and words in done.limit, (done.limit, done.output[-500:])
    assert not done.ok and not done.timed_out


def limit_memory(trials: Trials) -> None:
    """A command that takes more memory than its limit, at once or bit by bit, is ended."""
    box = trials.open(limits=SMALL)
    for command in (AT_ONCE, GRADUAL):
        ended_by(box.run(command, timeout=60), "memory limit (512 MiB)")


def limit_file_size(trials: Trials) -> None:
    """A command that writes a file larger than the limit is ended."""
    box = trials.open(limits=SMALL)
    ended_by(box.run("head -c 100M /dev/zero > /app/big", timeout=60), "size limit (64 MiB)")


def limit_output(trials: Trials) -> None:
    """A command that prints more than the output limit is ended (not only cut)."""
    box = trials.open(limits=SMALL)
    ended_by(box.run("yes", timeout=60), "output limit (4 MiB)")


def limit_folders(trials: Trials) -> None:
    """A command that fills the trial's folders past their limit is ended within a second or
    two (a command that ends within a second is never walked)."""
    box = trials.open(limits=SMALL)
    fill = "for i in 1 2 3 4 5; do head -c 60M /dev/zero > /app/part$i; done"
    done = box.run(f"sleep 1.5; {fill}; sleep 5", timeout=60)
    ended_by(done, "folders past their limit (200 MiB more)")


def limit_processes(trials: Trials) -> None:
    """A fork bomb meets the process limit and is ended, not the machine."""
    if "not enforced" in enforcement()["processes"]:
        raise NotHere("no control group for processes here: the process limit is not enforced")
    box = trials.open(limits=SMALL)
    done = box.run("bomb() { bomb | bomb & }; bomb; sleep 2", timeout=30)
    ended_by(done, "process limit (64 at once)")


def limits_leave_the_rest_alone(trials: Trials) -> None:
    """Commands within the limits run untouched: some memory, some output, a file."""
    box = trials.open(limits=SMALL)
    shown = run(box, "python3 -c \"b = b'x' * (50 << 20); print(len(b))\"")
    assert shown == f"{50 << 20}\n"
    assert run(box, "seq 1 100000 | tail -1") == "100000\n"
    assert run(box, "head -c 10M /dev/zero > /app/f && wc -c < /app/f") == f"{10 << 20}\n"
