"""What the escape benchmark listens with on the host: one run's TCP and UDP port on the
loopback (a connection or datagram there came out of a sandbox), ICMP echoes carrying a run's
mark, and the host's available memory while a command runs. Each stops by itself after its
lifetime, whatever happens to the benchmark.

Not a benchmark itself; `escapes.py` uses it.
"""

from __future__ import annotations

import contextlib
import re
import select
import socket
import threading
import time
from types import TracebackType

from _escape_checks import memory_available

_MARK_IN_PACKET = re.compile(rb"hc-(\d{6,})")


def _bound(
    family: socket.AddressFamily, kind: socket.SocketKind, host: str, port: int
) -> socket.socket:
    sock = socket.socket(family, kind)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _ipv6_loopback() -> bool:
    try:
        _bound(socket.AF_INET6, socket.SOCK_STREAM, "::1", 0).close()
    except OSError:
        return False
    return True


_HAS_IPV6_LOOPBACK = _ipv6_loopback()


class Listener:
    """A port on 127.0.0.1 (TCP and UDP) and ::1 (TCP, where the host has IPv6) that counts
    whatever reaches it: connections are accepted and closed, datagrams read."""

    def __init__(self, lifetime: float = 120.0) -> None:
        self.sockets: list[socket.socket] = []
        self.port = self._bind_all()
        self.hits: list[str] = []
        self._stop = threading.Event()
        self._deadline = time.monotonic() + lifetime
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _bind_all(self) -> int:
        """One port free on all three: TCP and UDP on 127.0.0.1, TCP on ::1 (where it works)."""
        for _ in range(50):
            tcp = _bound(socket.AF_INET, socket.SOCK_STREAM, "127.0.0.1", 0)
            port: int = tcp.getsockname()[1]
            wanted = [(socket.AF_INET, socket.SOCK_DGRAM, "127.0.0.1")]
            if _HAS_IPV6_LOOPBACK:
                wanted.append((socket.AF_INET6, socket.SOCK_STREAM, "::1"))
            opened = [tcp]
            try:
                for family, kind, host in wanted:
                    opened.append(_bound(family, kind, host, port))
            except OSError:
                for sock in opened:
                    sock.close()
                continue
            for sock in opened:
                if sock.type == socket.SOCK_STREAM:
                    sock.listen(16)
                sock.setblocking(False)
            self.sockets = opened
            return port
        raise OSError("no loopback port free for TCP, UDP and IPv6 at once")

    def _serve(self) -> None:
        while not self._stop.is_set() and time.monotonic() < self._deadline:
            ready, _, _ = select.select(self.sockets, [], [], 0.2)
            for sock in ready:
                with contextlib.suppress(OSError):
                    if sock.type == socket.SOCK_DGRAM:
                        _, peer = sock.recvfrom(4096)
                        self.hits.append(f"a UDP datagram reached port {self.port} from {peer[0]}")
                    else:
                        conn, peer = sock.accept()
                        conn.close()
                        self.hits.append(
                            f"a TCP connection reached port {self.port} from {peer[0]}"
                        )
        for sock in self.sockets:
            sock.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


class IcmpSniffer:
    """Every ICMP packet the host receives, looking for a run's mark (`hc-MARK` in the payload):
    an echo from a sandbox that shared the host's network. Needs root (a raw socket)."""

    def __init__(self, lifetime: float = 4 * 3600.0) -> None:
        self.marks: set[str] = set()
        self._stop = threading.Event()
        self._deadline = time.monotonic() + lifetime
        try:
            self.sock: socket.socket | None = socket.socket(
                socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP
            )
            self.note = ""
        except OSError as err:
            self.sock = None
            self.note = f"ICMP not watched: {err}"
            return
        self._thread = threading.Thread(target=self._sniff, daemon=True)
        self._thread.start()

    def _sniff(self) -> None:
        assert self.sock is not None
        while not self._stop.is_set() and time.monotonic() < self._deadline:
            ready, _, _ = select.select([self.sock], [], [], 0.2)
            if ready:
                with contextlib.suppress(OSError):
                    packet = self.sock.recv(65536)
                    self.marks.update(m.decode() for m in _MARK_IN_PACKET.findall(packet))
        self.sock.close()

    def close(self) -> None:
        self._stop.set()
        if self.sock is not None:
            self._thread.join(timeout=2)


class MemoryLow:
    """The lowest memory available on the host while a command runs (sampled every 50 ms)."""

    def __init__(self) -> None:
        self.before = memory_available()
        self.lowest = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        deadline = time.monotonic() + 600
        while not self._stop.wait(0.05) and time.monotonic() < deadline:
            self.lowest = min(self.lowest, memory_available())

    def __enter__(self) -> MemoryLow:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    @property
    def drop(self) -> int:
        """Bytes less available at the lowest than before the command."""
        return max(0, self.before - self.lowest)
