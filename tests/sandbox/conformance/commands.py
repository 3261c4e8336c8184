"""Commands: what comes back from one (exit code, output apart and capped, duration), where it
starts, what environment it gets, and a time limit that ends all of it."""

from __future__ import annotations

import os
import time

from hillclimber.sandbox.limits import group_folders

from conformance.host import NotHere, gone_within, new_mark
from conformance.trials import Trials, run


def commands_report_exit_and_output(trials: Trials) -> None:
    """A command's exit code, its stdout and stderr apart, and its duration come back; `ok` is
    a zero exit within the time."""
    box = trials.open()
    done = box.run("echo out; echo err >&2; exit 3", timeout=30)
    assert (done.exit_code, done.stdout, done.stderr) == (3, "out\n", "err\n"), done
    assert not done.ok and not done.timed_out and 0 < done.duration_sec < 30
    assert box.run("true", timeout=30).ok


def commands_start_in_the_tasks_folder(trials: Trials) -> None:
    """Commands start in the task's folder, /app (an image's WORKDIR where it has none), and
    where `cwd` says."""
    box = trials.open()
    box.mkdir("/app/sub")
    assert run(box, "pwd") == "/app\n"
    assert box.run("pwd", timeout=30, cwd="/app/sub").stdout == "/app/sub\n"
    assert box.run("pwd", timeout=30, cwd="/tmp").stdout == "/tmp\n"


def commands_get_no_host_environment(trials: Trials) -> None:
    """A command's environment is the sandbox's and what the caller gives (`env`), nothing of
    the runner's: its API keys and tokens stay out."""
    secret = f"hc-secret-{new_mark()}"
    os.environ["HC_CONFORMANCE_SECRET"] = secret
    try:
        box = trials.open()
        shown = box.run("env", timeout=30, env={"HC_GIVEN": "given"}).stdout
    finally:
        del os.environ["HC_CONFORMANCE_SECRET"]
    assert "HC_GIVEN=given" in shown.splitlines(), shown
    assert secret not in shown and "HC_CONFORMANCE_SECRET" not in shown


def commands_output_capped(trials: Trials) -> None:
    """Output past `output_cap` is cut, and the result says it was."""
    box = trials.open()
    done = box.run("head -c 3000000 /dev/zero | tr '\\0' x", timeout=30, output_cap=10_000)
    assert done.ok and len(done.stdout) == 10_000 and done.truncated, done.output[-300:]


def commands_return_while_output_held(trials: Trials) -> None:
    """A command returns when its shell does, with what it printed, though a process it left
    running still holds its output open."""
    box = trials.open()
    done = box.run("(while true; do echo tick; sleep 0.2; done) & echo started", timeout=30)
    assert done.ok and "started" in done.stdout and done.duration_sec < 5, done
    assert run(box, "echo next") == "next\n"


def timeout_ends_the_whole_group(trials: Trials) -> None:
    """A command over its time is reported timed out and ended with everything it started: its
    background children, and (where the machine gives control groups) those that left its
    process group with `setsid`."""
    mark, groups = new_mark(), bool(group_folders())
    escaper = f"setsid sleep 300.{mark} >/dev/null 2>&1 < /dev/null & " if groups else ""
    box = trials.open()
    started = time.monotonic()
    done = box.run(f"(sleep 2; echo late > /app/late.txt) & {escaper}sleep 30", timeout=1)
    assert done.timed_out and not done.ok and time.monotonic() - started < 10, done
    assert gone_within(mark) == []
    time.sleep(max(0.0, started + 2.5 - time.monotonic()))
    assert not box.exists("/app/late.txt")
    if not groups:
        raise NotHere(
            "no control groups: a setsid child of a command that timed out ends with its trial"
        )
