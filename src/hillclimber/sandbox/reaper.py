"""pid 1 of a trial's session (`session.py`), run as a script: `python -I -S reaper.py [lo]`.

It makes itself undumpable first: it lives in the host's mount namespace, and a command (which
sees it as pid 1, as root) must not reach the host's files through /proc/1/root, /proc/1/cwd or
/proc/1/mem (that now takes CAP_SYS_PTRACE, which no command has). With `lo` (a network
namespace of its own) it brings loopback up, as bwrap does. Then it reaps every process whose
parent left (a double fork ends here), prints its pid as the host sees it (its /proc is the
host's), and exits at the end of its input: the session closed, or the process holding it died.
Signals from inside its pid namespace reach it only where it has a handler: SIGCHLD.
"""

import ctypes
import fcntl
import os
import signal
import struct
import sys
from types import FrameType

PR_SET_NAME, PR_SET_DUMPABLE = 15, 4
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1


def loopback_up() -> None:
    import _socket  # the C module: `socket` costs this pid 1's start more

    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))
    finally:
        sock.close()


def reap(number: int = 0, frame: FrameType | None = None) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main() -> None:
    libc = ctypes.CDLL(None)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        sys.exit("the session's pid 1 cannot make itself undumpable")
    libc.prctl(PR_SET_NAME, b"hc-session", 0, 0, 0)
    os.chdir("/")
    if sys.argv[1:] == ["lo"]:
        loopback_up()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, reap)
    sys.stdout.write(os.readlink("/proc/self") + "\n")
    sys.stdout.flush()
    while os.read(0, 512):
        pass


if __name__ == "__main__":
    main()
