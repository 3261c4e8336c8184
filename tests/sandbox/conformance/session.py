"""The trial as a session, as a container is: what a command leaves running lives on for later
commands (and the task's tests) until the trial ends, unless it was run with `linger=False`;
nothing outlives the trial. "Nothing is left" is read in the host's own /proc."""

from __future__ import annotations

import secrets

from hillclimber.sandbox import Mount

from conformance.host import gone_within, left_running, new_mark, running, running_within
from conformance.trials import Trials, run

SERVE = (
    'setsid python3 -c "import http.server as h; '
    "h.HTTPServer(('127.0.0.1', {port}), h.SimpleHTTPRequestHandler).serve_forever()\" "
    "{mark} >/dev/null 2>&1 < /dev/null & sleep 1"
)
FETCH = (
    'python3 -c "import urllib.request as u; '
    "print(u.urlopen('http://127.0.0.1:{port}/', timeout=5).status)\""
)
LEAVERS = {
    "background job": "sleep 300.{mark} >/dev/null 2>&1 &",
    "nohup": "nohup sleep 300.{mark} >/dev/null 2>&1 &",
    "setsid": "setsid sleep 300.{mark} >/dev/null 2>&1 < /dev/null &",
    "setsid --fork": "setsid -f sleep 300.{mark} >/dev/null 2>&1 < /dev/null",
    "disown": "sleep 300.{mark} >/dev/null 2>&1 & disown",
    "double fork": "( ( exec sleep 300.{mark} ) & ) >/dev/null 2>&1",
    "signals ignored": "(trap '' HUP TERM INT; exec sleep 300.{mark}) >/dev/null 2>&1 &",
    "python daemon": (
        'python3 -c "import os, subprocess\n'
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.chdir('/'); os.umask(0)\n"
        "        subprocess.Popen(['sleep', '300.{mark}'], stdout=subprocess.DEVNULL,"
        " stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)\n"
        '    os._exit(0)" '
    ),
}
"""Every way a command may leave a process running, each marked for the host's /proc."""


def session_serves_later_commands(trials: Trials) -> None:
    """A server a command leaves running in the background answers later commands until the
    trial ends; then it is gone."""
    mark, port = new_mark(), 8000 + secrets.randbelow(1000)
    box = trials.open()
    run(box, SERVE.format(port=port, mark=mark))
    assert run(box, FETCH.format(port=port)) == "200\n"
    assert running(mark), "the server ended with the command that started it"
    trials.end(box)
    assert gone_within(mark) == []


def session_shared_by_views(trials: Trials) -> None:
    """Another view of the trial (`with_layout`: the verifier's, with /tests laid in) is the
    same session: a server the agent left running answers it."""
    mark, port = new_mark(), 8000 + secrets.randbelow(1000)
    tests = trials.folder / "tests"
    tests.mkdir()
    box = trials.open()
    run(box, SERVE.format(port=port, mark=mark))
    view = box.with_layout(box.layout.with_mounts(Mount("/tests", tests, readonly=True)))
    assert run(view, FETCH.format(port=port)) == "200\n"


def session_ends_every_leftover(trials: Trials) -> None:
    """Whichever way a command leaves a process running (a background job, nohup, setsid, a
    double fork, a daemon, signals ignored) it lives on until the trial ends, and not a moment
    longer."""
    marks = {name: new_mark() for name in LEAVERS}
    box = trials.open()
    for name, command in LEAVERS.items():
        done = box.run(command.format(mark=marks[name]), timeout=30)
        assert done.ok and done.duration_sec < 10, (name, done.output)
    assert {name for name, mark in marks.items() if running_within(mark)} == set(LEAVERS)
    trials.end(box)
    assert left_running(marks) == {}


def session_no_linger(trials: Trials) -> None:
    """A command run with `linger=False` (the harness's own look: a check, a program run to
    compare tries) leaves nothing running, whichever way it tried."""
    marks = {name: new_mark() for name in LEAVERS}
    box = trials.open()
    for name, command in LEAVERS.items():
        done = box.run(command.format(mark=marks[name]), timeout=30, linger=False)
        assert done.ok, (name, done.output)
    assert left_running(marks) == {}


def session_outlives_looks_and_timeouts(trials: Trials) -> None:
    """A look that may not linger, or a command's time limit, ends what that command started,
    not what earlier commands left running."""
    earlier = new_mark()
    box = trials.open()
    run(box, LEAVERS["setsid"].format(mark=earlier))
    assert box.run("sleep 0.2 & echo looked", timeout=30, linger=False).ok
    assert box.run("sleep 30", timeout=1).timed_out
    assert running(earlier)


def session_survives_kill_all(trials: Trials) -> None:
    """`kill -9 -1` from inside ends the trial's processes, not the trial: its pid 1 cannot be
    killed from inside (as a container's init), and later commands run and leave processes
    again."""
    mark = new_mark()
    box = trials.open()
    run(box, LEAVERS["setsid"].format(mark=mark))
    box.run("kill -9 -1; kill -KILL 1; kill -INT 1; kill -TERM 1", timeout=30)
    assert gone_within(mark) == []
    assert run(box, LEAVERS["setsid"].format(mark=mark) + " echo on") == "on\n"
    assert running_within(mark)
    trials.end(box)
    assert gone_within(mark) == []
