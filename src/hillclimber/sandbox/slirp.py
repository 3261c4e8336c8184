"""A trial's own network with a way out: slirp4netns on the session's network namespace.

A task that may use the network gets what a container gets, not the host's network: its own
loopback (a server it starts binds no port of the host's, and two trials never meet on one),
and outbound connections made by slirp4netns in user space, with the host's loopback out of
reach (`--disable-host-loopback`: a model server or anything else listening on the host's
127.0.0.1 cannot be reached). DNS goes to slirp's own resolver (10.0.2.3), which asks the
host's. slirp4netns comes with podman (`scripts/install.sh`); without it a trial that may use
the network shares the host's, as before.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hillclimber.errors import SandboxUnavailable
from hillclimber.sandbox.base import STANDARD_PATH

RESOLVER = "10.0.2.3"
"""slirp4netns's DNS forwarder, as its commands see it."""
READY_SEC = 10.0


@functools.cache
def slirp_binary() -> str | None:
    return shutil.which("slirp4netns", path=STANDARD_PATH)


@dataclass
class Slirp:
    """slirp4netns serving one session's network namespace, and the resolv.conf that names
    its resolver; `close` ends it."""

    process: subprocess.Popen[bytes]
    exit_fd: int
    """Ours: closing it tells slirp4netns to exit (as our dying does)."""
    folder: Path

    @property
    def resolv_conf(self) -> Path:
        return self.folder / "resolv.conf"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.exit_fd)
        try:
            self.process.wait(timeout=READY_SEC)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_slirp(pid: int) -> Slirp:
    """slirp4netns on the network namespace of process `pid`, once it says it is ready."""
    binary = slirp_binary()
    if binary is None:
        raise SandboxUnavailable("slirp4netns is not installed")
    folder = Path(tempfile.mkdtemp(prefix="hc-net-"))
    folder.chmod(0o755)
    (folder / "resolv.conf").write_text(f"nameserver {RESOLVER}\n")
    (folder / "resolv.conf").chmod(0o644)
    exit_read, exit_write = os.pipe()
    ready_read, ready_write = os.pipe()
    argv = [binary, "--configure", "--mtu=65520", "--disable-host-loopback"]
    argv += ["--enable-sandbox", "--enable-seccomp"]
    argv += [f"--exit-fd={exit_read}", f"--ready-fd={ready_write}", str(pid), "tap0"]
    try:
        with (folder / "slirp.log").open("wb") as log:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                pass_fds=(exit_read, ready_write),
                env={"PATH": STANDARD_PATH},
                start_new_session=True,
            )
    finally:
        os.close(exit_read)
        os.close(ready_write)
    with os.fdopen(ready_read, "rb") as ready:
        came, _, _ = select.select([ready], [], [], READY_SEC)
        said = ready.read(1) if came else b""
    slirp = Slirp(process, exit_write, folder)
    if said != b"1":
        lines = (folder / "slirp.log").read_text(errors="replace").strip().splitlines()
        slirp.close()
        raise SandboxUnavailable(f"slirp4netns did not start: {lines[-1] if lines else said!r}")
    return slirp
