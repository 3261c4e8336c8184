"""Base images made on this machine, for tasks whose `FROM` image cannot be pulled.

Most task images start from an image in a registry (`ghcr.io/…/ubuntu-24-04`, `python:3.12-slim`).
Where no registry answers, a base bootstrapped once from the distribution's archive stands in
(`mmdebstrap`): the release the image's name says (`ubuntu:24.04` → Ubuntu 24.04 from its
archive, with its updates as the image has them; `debian:13.0-slim` → Debian 13;
`python:3.13-slim-bookworm` → Debian 12), so the package versions a Dockerfile or a solution
pins are there; Debian 12 where the name says no release known here, or where the release
cannot be bootstrapped on this machine. Python 3 and pip are in it, with this machine's package
settings (its CA bundle, which a TLS-inspecting proxy needs, and `/etc/pip.conf`), so a build
inside it installs as the host does. For `python:*` images the Python flavour adds `python`,
`pip` and Python's headers (a C extension builds against them there) and lets pip install into
the system as those images do. The trial result says which base stood in for which image.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hillclimber.errors import SetupError
from hillclimber.image.engine import ENGINE_ENV, Podman, images_lock
from hillclimber.process import last_lines, run_process
from hillclimber.sandbox.base import STANDARD_PATH

KEYS = Path(__file__).parent / "keys"
PACKAGES = ("python3", "python3-pip", "python3-venv", "ca-certificates")
RECIPE_VERSION = "1"
"""Raise to make every machine build its bases again."""
HOST_SETTINGS = (Path("/etc/ssl/certs/ca-certificates.crt"), Path("/etc/pip.conf"))


@dataclass(frozen=True)
class Release:
    """A distribution release a base is bootstrapped from."""

    name: str
    """As tags and records say it: `ubuntu-24.04`."""
    suite: str
    sources: tuple[str, ...] = ()
    """The archive's apt lines; none: mmdebstrap's own for a Debian suite (the suite, its
    updates and its security archive, as Debian's images have them)."""
    keyring: Path | None = None
    """The archive's signing key, where the host's keyrings lack it."""


def _ubuntu(version: str, suite: str) -> Release:
    parts = "main restricted universe multiverse"
    archive, security = "http://archive.ubuntu.com/ubuntu", "http://security.ubuntu.com/ubuntu"
    return Release(
        f"ubuntu-{version}",
        suite,
        (
            *(
                f"deb {archive} {pocket} {parts}"
                for pocket in (suite, f"{suite}-updates", f"{suite}-backports")
            ),
            f"deb {security} {suite}-security {parts}",
        ),
        KEYS / "ubuntu-archive-2018.asc",  # F6EC B376 2474 EDA9 D21B 7022 8719 20D1 991B C93C
    )


DEBIAN_12 = Release("debian-12", "bookworm")
RELEASES = {
    "debian": {
        "11": Release("debian-11", "bullseye"),
        "12": DEBIAN_12,
        "13": Release("debian-13", "trixie"),
    },
    "ubuntu": {
        "20.04": _ubuntu("20.04", "focal"),
        "22.04": _ubuntu("22.04", "jammy"),
        "24.04": _ubuntu("24.04", "noble"),
    },
}
"""The releases a base can stand in as, by distribution and version."""


def release_for(image: str) -> Release | None:
    """The release `image`'s name says, where it is one of `RELEASES`: `ubuntu:24.04` and
    `…/ubuntu-24-04:tag` by the version, `debian:13.0-slim` by the major version, any Debian-
    based name by the codename in its tag (`python:3.13-slim-bookworm`). None: Debian 12 stands
    in, as for a name that says nothing (`python:3.11`)."""
    last = image.rsplit("/", 1)[-1].split("@", 1)[0]
    name, _, tag = last.partition(":")
    words = set(re.split(r"[-_.]", tag))
    for release in (*RELEASES["debian"].values(), *RELEASES["ubuntu"].values()):
        if release.suite in words:
            return release
    if ubuntu := re.match(r"ubuntu\W*(\d\d)[.-](\d\d)\b", last):
        return RELEASES["ubuntu"].get(f"{ubuntu[1]}.{ubuntu[2]}")
    if name == "debian" and (major := re.match(r"(\d+)\b", tag)):
        return RELEASES["debian"].get(major[1])
    return None


_PLAIN = """\
FROM {raw}
COPY settings/ /hc-settings/
RUN set -e; \\
    if [ -f /hc-settings/ca-certificates.crt ]; then \\
      cp /hc-settings/ca-certificates.crt /usr/local/share/ca-certificates/host-bundle.crt; \\
      cp /hc-settings/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt; fi; \\
    if [ -f /hc-settings/pip.conf ]; then cp /hc-settings/pip.conf /etc/pip.conf; fi; \\
    rm -rf /hc-settings
ENV PATH={path}
CMD ["/bin/bash"]
"""
_PYTHON = """\
FROM {plain}
RUN apt-get update && apt-get install -y --no-install-recommends python3-dev && \\
    rm -rf /var/lib/apt/lists/*
RUN ln -s /usr/bin/python3 /usr/local/bin/python && \\
    printf '#!/bin/sh\\nexec python3 -m pip "$@"\\n' > /usr/local/bin/pip && \\
    chmod 755 /usr/local/bin/pip && cp /usr/local/bin/pip /usr/local/bin/pip3
ENV PIP_BREAK_SYSTEM_PACKAGES=1
"""


def flavour_for(image: str) -> str:
    """Which local base stands in for `image`: `python` for the official Python images."""
    name = image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]
    return "python" if name == "python" else "plain"


def stand_in(engine: Podman, image: str) -> str:
    """The local base that stands in for `image`: of the release its name says where that can
    be made here, else Debian 12. A release that could not be made is not tried again by this
    process (`unmade`)."""
    release, flavour = release_for(image) or DEBIAN_12, flavour_for(image)
    if release.name not in unmade:
        try:
            return base_image(engine, flavour, release)
        except SetupError:
            if release == DEBIAN_12:
                raise
            unmade.add(release.name)
    return base_image(engine, flavour, DEBIAN_12)


unmade: set[str] = set()
"""The releases whose base could not be made (in this process)."""


def base_image(engine: Podman, flavour: str, release: Release = DEBIAN_12) -> str:
    """The local base of that flavour and release, made the first time it is asked for (one
    process at a time: the others wait for it)."""
    tag = f"localhost/hillclimber/base:{release.name}-{flavour}-{_settings_hash(flavour, release)}"
    if tag in _ready or engine.exists(tag):
        _ready.add(tag)
        return tag
    below = base_image(engine, "plain", release) if flavour == "python" else None
    with images_lock("base"):
        if not engine.exists(tag):
            _make(engine, tag, below, release)
    _ready.add(tag)
    return tag


_ready: set[str] = set()
"""Bases this process has seen made: every trial of a run asks for its base again."""


def release_of(tag: str) -> str:
    """The release a base's tag (`base_image`) names: `debian-12` of `…/base:debian-12-plain-…`."""
    return tag.rsplit(":", 1)[-1].rsplit("-", 2)[0]


def _sources_hash(release: Release) -> str:
    """A suffix naming the release's archive lines, where it has its own (they are in the
    root: another set of lines is another root)."""
    if not release.sources:
        return ""
    return "-" + hashlib.sha256("\n".join(release.sources).encode()).hexdigest()[:8]


def _settings_hash(flavour: str, release: Release) -> str:
    """The base's version: its recipe, its release's archive and the host settings it carries."""
    digest = hashlib.sha256(f"{RECIPE_VERSION} {release.suite} {PACKAGES}".encode())
    for line in release.sources:
        digest.update(line.encode())
    if flavour == "python":
        digest.update(_PYTHON.encode())
    for path in HOST_SETTINGS:
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def _make(engine: Podman, tag: str, below: str | None, release: Release) -> None:
    """The base `tag`: the Python flavour over the plain base `below`, else the plain one."""
    with tempfile.TemporaryDirectory(prefix="hc-base-") as tmp:
        context = Path(tmp)
        if below is not None:
            (context / "Dockerfile").write_text(_PYTHON.format(plain=below))
        else:
            raw = _bootstrap(engine, context, release)
            settings = context / "settings"
            settings.mkdir()
            for path in HOST_SETTINGS:
                if path.is_file():
                    shutil.copyfile(path, settings / path.name)
            (context / "Dockerfile").write_text(_PLAIN.format(raw=raw, path=STANDARD_PATH))
        result = engine.run("build", "--network", "host", "-t", tag, str(context), timeout=900)
        if not result.ok:
            raise SetupError(f"could not make the local base {tag}:\n{last_lines(result.output)}")


def _bootstrap(engine: Podman, work: Path, release: Release) -> str:
    """The release from its archive, imported as an image."""
    raw = f"localhost/hillclimber/raw:{release.name}-{RECIPE_VERSION}{_sources_hash(release)}"
    if engine.exists(raw):
        return raw
    mmdebstrap = shutil.which("mmdebstrap", path=STANDARD_PATH)
    if mmdebstrap is None:
        raise SetupError(
            "no base image can be pulled and mmdebstrap is not installed to make one "
            "(bash scripts/install.sh)"
        )
    tar = work / "rootfs.tar"
    keyring = [f"--keyring={release.keyring}"] if release.keyring else []
    include = f"--include={','.join(PACKAGES)}"
    result = run_process(
        [mmdebstrap, "--variant=apt", include, *keyring, release.suite, str(tar), *release.sources],
        timeout=1800,
        env=ENGINE_ENV,
    )
    if not result.ok:
        raise SetupError(
            f"mmdebstrap could not make a {release.name} root:\n{last_lines(result.output)}"
        )
    engine.import_tar(tar, raw)
    return raw
