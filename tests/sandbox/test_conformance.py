"""The conformance list (`conformance/`) run over every kind of sandbox: bwrap, namespace and
local over host folders, container (a task's image, marked `images`), and the Harbor bridge
(run once from Harbor's own Python, marked `harbor` and `slow` as the tests of `harbor run`
with our environment are). What a kind declares it cannot do is an expected failure, tried where
trying is harmless: a kind that learns it fails here until its declaration goes."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hillclimber.image import build_image, engine
from hillclimber.loaders.dataset import load_task
from hillclimber.sandbox import SandboxKind
from hillclimber.task import Task

from conformance import BEHAVIOURS, CANNOT, KINDS, Behaviour, NotHere, Trials, cannot
from conformance.trials import HostTrials, ImageTrials
from conftest import FIXTURES, REPO, missing, require_images, require_sandbox
from harbor_venv import require_harbor

MARKS = {"container": [pytest.mark.images], "harbor": [pytest.mark.harbor, pytest.mark.slow]}


def cases() -> Iterator[Any]:
    """(kind, behaviour) for every kind and behaviour, with the kind's marks and what it
    declares it cannot do."""
    for kind in KINDS:
        for behaviour in BEHAVIOURS:
            marks = list(MARKS.get(kind, []))
            gap = cannot(kind, behaviour)
            if gap is not None:
                why = f"{kind} cannot, by design: {gap.why}"
                marks.append(pytest.mark.xfail(reason=why, strict=True, run=gap.tried))
            yield pytest.param(kind, behaviour, marks=marks, id=f"{kind}-{behaviour.__name__}")


@pytest.fixture(scope="module")
def image_task() -> Task:
    """The fixture task whose image the container kind runs in, built once (or found)."""
    require_images()
    task = load_task(FIXTURES / "tb2" / "fx-hello")
    build_image(task, engine())
    return task


@pytest.fixture(scope="module")
def harbor_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """How each behaviour went on the Harbor bridge, from one run of the list in Harbor's
    Python."""
    python = require_harbor()
    report = tmp_path_factory.mktemp("harbor") / "report.json"
    paths = os.pathsep.join(str(path) for path in (REPO / "src", REPO / "tests" / "sandbox"))
    done = subprocess.run(
        [str(python), "-m", "conformance.harbor", str(report)],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=REPO,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(Path.home()), "PYTHONPATH": paths,
             "HARBOR_TELEMETRY": "0"},
    )  # fmt: skip
    assert done.returncode == 0 and report.exists(), done.stderr[-3000:]
    found: dict[str, dict[str, Any]] = json.loads(report.read_text())
    return found


def host_trials(kind: str, folder: Path, request: pytest.FixtureRequest) -> Trials:
    if kind == "container":
        return ImageTrials(request.getfixturevalue("image_task"), folder)
    require_sandbox(SandboxKind(kind))
    return HostTrials(SandboxKind(kind), folder)


@pytest.mark.parametrize(("kind", "behaviour"), list(cases()))
def test_conformance(
    kind: str, behaviour: Behaviour, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if kind == "harbor":
        found = request.getfixturevalue("harbor_outcomes")[behaviour.__name__]
        if found["outcome"] == "not here":
            missing(found["detail"])
        assert found["outcome"] == "passed", found["detail"]
        return
    try:
        with host_trials(kind, tmp_path, request) as trials:
            behaviour(trials)
    except NotHere as err:
        missing(str(err))


def test_what_a_kind_cannot_do_is_declared_of_the_list() -> None:
    """A declaration names a kind and a behaviour of the list, with its reason."""
    assert set(CANNOT) <= set(KINDS)
    for declared in CANNOT.values():
        assert set(declared) <= set(BEHAVIOURS)
        assert all(gap.why for gap in declared.values())
