"""Base images made on this machine, for tasks whose `FROM` image cannot be pulled.

Most task images start from an image in a registry (`ghcr.io/…/ubuntu-24-04`, `python:3.12-slim`).
Where no registry answers, a base bootstrapped once from the distribution's archive stands in:
Debian 12 with Python 3 and pip (`mmdebstrap`, about 20 s), with this machine's package settings
in it (its CA bundle, which a TLS-inspecting proxy needs, and `/etc/pip.conf`), so a build
inside it installs as the host does. For `python:*` images the Python flavour adds `python`,
`pip` and Python's headers (a C extension builds against them there) and lets pip install into
the system as those images do. The trial result says which base stood in for which image.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

from hillclimber.errors import SetupError
from hillclimber.image.engine import ENGINE_ENV, Podman, images_lock
from hillclimber.process import last_lines, run_process
from hillclimber.sandbox.base import STANDARD_PATH

SUITE = "bookworm"
NAME = "debian-12"
PACKAGES = ("python3", "python3-pip", "python3-venv", "ca-certificates")
RECIPE_VERSION = "1"
"""Raise to make every machine build its bases again."""
HOST_SETTINGS = (Path("/etc/ssl/certs/ca-certificates.crt"), Path("/etc/pip.conf"))

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


def base_image(engine: Podman, flavour: str) -> str:
    """The local base of that flavour, made the first time it is asked for (one process at a
    time: the others wait for it)."""
    tag = f"localhost/hillclimber/base:{NAME}-{flavour}-{_settings_hash(flavour)}"
    if tag in _ready or engine.exists(tag):
        _ready.add(tag)
        return tag
    below = base_image(engine, "plain") if flavour == "python" else None
    with images_lock("base"):
        if not engine.exists(tag):
            _make(engine, tag, below)
    _ready.add(tag)
    return tag


_ready: set[str] = set()
"""Bases this process has seen made: every trial of a run asks for its base again."""


def _settings_hash(flavour: str) -> str:
    """The base's version: its recipe and the host settings it carries."""
    digest = hashlib.sha256(f"{RECIPE_VERSION} {SUITE} {PACKAGES}".encode())
    if flavour == "python":
        digest.update(_PYTHON.encode())
    for path in HOST_SETTINGS:
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def _make(engine: Podman, tag: str, below: str | None) -> None:
    """The base `tag`: the Python flavour over the plain base `below`, else the plain one."""
    with tempfile.TemporaryDirectory(prefix="hc-base-") as tmp:
        context = Path(tmp)
        if below is not None:
            (context / "Dockerfile").write_text(_PYTHON.format(plain=below))
        else:
            raw = _bootstrap(engine, context)
            settings = context / "settings"
            settings.mkdir()
            for path in HOST_SETTINGS:
                if path.is_file():
                    shutil.copyfile(path, settings / path.name)
            (context / "Dockerfile").write_text(_PLAIN.format(raw=raw, path=STANDARD_PATH))
        result = engine.run("build", "--network", "host", "-t", tag, str(context), timeout=900)
        if not result.ok:
            raise SetupError(f"could not make the local base {tag}:\n{last_lines(result.output)}")


def _bootstrap(engine: Podman, work: Path) -> str:
    """Debian from the archive this machine installs from, imported as an image."""
    raw = f"localhost/hillclimber/raw:{NAME}-{RECIPE_VERSION}"
    if engine.exists(raw):
        return raw
    mmdebstrap = shutil.which("mmdebstrap", path=STANDARD_PATH)
    if mmdebstrap is None:
        raise SetupError(
            "no base image can be pulled and mmdebstrap is not installed to make one "
            "(bash scripts/install.sh)"
        )
    tar = work / "rootfs.tar"
    result = run_process(
        [mmdebstrap, "--variant=apt", f"--include={','.join(PACKAGES)}", SUITE, str(tar)],
        timeout=1200,
        env=ENGINE_ENV,
    )
    if not result.ok:
        raise SetupError(f"mmdebstrap could not make a {NAME} root:\n{last_lines(result.output)}")
    engine.import_tar(tar, raw)
    return raw
