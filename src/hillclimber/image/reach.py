"""Which hosts a task's image build downloads from, and whether a build here can reach them.

An image build has the network, but a machine's network may reach only some hosts (here: the
package archives, nothing else). A Dockerfile that clones from github.com or fetches a file
from huggingface.co cannot build where those hosts do not answer, and saying so before a
build is the truth `tasks check` owes (a build would fail minutes later, at that step). The
hosts are read from the Dockerfile's steps (`curl`/`wget` URLs, `git clone`, `ADD URL`,
`huggingface-cli download`, a URL handed to pip, the registry of an image a `COPY --from` takes
files out of) and each is asked once per process: its name resolved, then a TCP connection
made. Package installs (`apt-get`, `pip install NAME`) name no host: they go to the archives,
which a build here reaches. (A `FROM` image that cannot be pulled is replaced by a local base,
so it names no host; an image only copied from cannot be replaced.)
"""

from __future__ import annotations

import functools
import re
import socket
from collections.abc import Iterable

PROBE_SEC = 3.0
_URL = re.compile(r"\b(https?|ftp|git|ssh)://(?:[^@/\s]+@)?([A-Za-z0-9][A-Za-z0-9.-]*)(?::(\d+))?")
_SCP = re.compile(r"\bgit@([A-Za-z0-9][A-Za-z0-9.-]*):")
_PORTS = {"http": 80, "https": 443, "ftp": 21, "git": 9418, "ssh": 22}
HUGGING_FACE = "huggingface.co"
DOCKER_HUB = "registry-1.docker.io"
_IMAGE_NEED = re.compile(r"^files from image (\S+)")


def registry_of(image: str) -> str:
    """The registry host an image reference is pulled from (`ghcr.io/a/b:1` → ghcr.io;
    `python:3.12`, `library/x` → Docker Hub)."""
    first, _, rest = image.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        return first.split(":")[0].lower()
    return DOCKER_HUB


def hosts_in(need: str) -> list[tuple[str, int]]:
    """The (host, port) pairs a need names: the hosts of its URLs."""
    found = [
        (host.lower().rstrip("."), int(port) if port else _PORTS[scheme])
        for scheme, host, port in _URL.findall(need)
    ]
    found += [(host.lower(), 22) for host in _SCP.findall(need)]
    if need.startswith("download from Hugging Face"):
        found.append((HUGGING_FACE, 443))
    image = _IMAGE_NEED.match(need)
    if image:
        found.append((registry_of(image.group(1)), 443))
    return list(dict.fromkeys(found))


@functools.cache
def reachable(host: str, port: int) -> bool:
    """Whether this machine reaches `host` (its name resolves and a connection opens)."""
    try:
        with socket.create_connection((host, port), timeout=PROBE_SEC):
            return True
    except OSError:
        return False


def unreachable_downloads(needs: Iterable[str]) -> list[str]:
    """Each host a build's `needs` (`EnvironmentPlan.needs`) download from that no build here
    reaches, named with the step's download (empty: none)."""
    said = "which no build here reaches"
    return [f"downloads from {host}, {said} ({need})" for host, need in unreachable(needs).items()]


def unreachable(needs: Iterable[str]) -> dict[str, str]:
    """Each host the needs name that this machine does not reach → the first need naming it."""
    found: dict[str, str] = {}
    for need in needs:
        for host, port in hosts_in(need):
            if host not in found and not reachable(host, port):
                found[host] = need
    return found
