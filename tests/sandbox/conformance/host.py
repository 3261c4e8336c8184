"""The host's own view, for checking what a sandbox's commands reached: its processes (from its
/proc), a server listening on its address, marks no other process carries."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path


class NotHere(Exception):
    """This machine lacks what a behaviour needs (a limit it cannot enforce, slirp4netns, a
    network route): skipped on a developer's machine, a failure in CI."""


def new_mark() -> str:
    """A number no other process's command line carries, to find a trial's processes by."""
    return str(secrets.randbelow(10**8) + 10**8)


def running(mark: str) -> list[str]:
    """The host's live processes with `mark` in their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if state not in ("Z", "X") and mark.encode() in cmdline:
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def running_within(mark: str, seconds: float = 5.0) -> list[str]:
    """The processes with `mark` once one is there, waiting up to `seconds` (a process a
    command started in the background may not have reached its own command line yet)."""
    deadline = time.monotonic() + seconds
    while not (found := running(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def gone_within(mark: str, seconds: float = 5.0) -> list[str]:
    """What is still running with `mark` after waiting up to `seconds` for it to go."""
    return left_running({mark: mark}, seconds).get(mark, [])


def left_running(marks: dict[str, str], seconds: float = 5.0) -> dict[str, list[str]]:
    """{name: its processes} of the `marks` (name: mark) still running after waiting up to
    `seconds` for all of them to go."""
    deadline = time.monotonic() + seconds
    while True:
        left = {name: found for name, mark in marks.items() if (found := running(mark))}
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


@contextlib.contextmanager
def serving(address: str) -> Iterator[int]:
    """A server on the host at `address` that answers `hello` to the first connection (for
    five seconds at most): its port."""
    server = socket.socket()
    server.bind((address, 0))
    server.listen(1)
    server.settimeout(5)

    def accept() -> None:
        with contextlib.suppress(OSError):
            conn, _ = server.accept()
            conn.sendall(b"hello")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)  # wakes the accept of a server never reached
        thread.join(5)
        server.close()


def host_address() -> str:
    """This machine's address on its default route (no packet is sent): how a server outside
    the trial is reached."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))
        except OSError as err:
            raise NotHere("no network route on this machine") from err
        address: str = probe.getsockname()[0]
    if address.startswith("127."):
        raise NotHere("no address but loopback on this machine")
    return address


PROBE = (
    "python3 -c \"import socket,sys; s=socket.create_connection(('{address}', {port}), 3);"
    ' print(s.recv(5).decode())"'
)
"""A command that prints what a server at address:port says first."""
