"""Nothing outside: a command cannot write the host outside its trial's folders, its /tmp and
/root are its own, and no process of the host (the runner, with its API keys) is in its
sight."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conformance.host import new_mark
from conformance.trials import Trials, run


def nothing_outside_written(trials: Trials) -> None:
    """A command cannot write the host outside the trial's folders: not its system folders, not
    the runner's home, not a folder beside the trial's, not its `/`; what it writes at /app
    lands in the trial's folder, never in a host /app."""
    marker = f"hc-escape-{new_mark()}"
    beside = trials.folder / "beside"
    beside.mkdir()
    host = [Path("/etc"), Path.home(), beside, Path("/usr"), Path("/"), Path("/app")]
    box = trials.open()
    for folder in host:
        box.run(f"echo x > {folder}/{marker}; mkdir -p {folder}/{marker}.d", timeout=30)
    run(box, f"echo inside > /app/{marker}")
    written = [str(f / name) for f in host for name in (marker, f"{marker}.d")]
    assert [path for path in written if Path(path).exists()] == []
    assert box.read_file(f"/app/{marker}") == b"inside\n"
    assert box.isolated


def own_tmp_and_home(trials: Trials) -> None:
    """/tmp and /root are the trial's own: what a command leaves there the next command finds
    and the file API reads; the host's /tmp and /root never see it, nor does another trial."""
    name = f"hc-own-{new_mark()}"
    box = trials.open()
    run(box, f"echo a > /tmp/{name} && echo b > ~/{name}")
    assert run(box, f"cat /tmp/{name} ~/{name}") == "a\nb\n"
    assert box.read_file(f"/tmp/{name}") == b"a\n" and box.read_file(f"/root/{name}") == b"b\n"
    assert not Path(f"/tmp/{name}").exists() and not Path(f"/root/{name}").exists()
    other = trials.open()
    assert not other.exists(f"/tmp/{name}") and not other.exists(f"/root/{name}")
    assert other.run(f"ls /tmp/{name} || ls ~/{name}", timeout=30).exit_code != 0


def host_processes_out_of_sight(trials: Trials) -> None:
    """A command sees its trial's processes only: a process of the host, and what its
    environment holds (an API key), is not in its /proc."""
    mark = new_mark()
    secret = f"hc-secret-{mark}"
    env = {"PATH": "/usr/bin:/bin", "HC_CONFORMANCE_SECRET": secret}
    holder = subprocess.Popen(["sleep", f"60.{mark}"], env=env)
    try:
        box = trials.open()
        look = "ps -eo args; cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ | tr '\\0' '\\n'"
        shown = box.run(look, timeout=30).stdout
    finally:
        holder.kill()
        holder.wait()
    assert mark not in shown and secret not in shown
