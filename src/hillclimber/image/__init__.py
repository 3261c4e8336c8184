"""Task images: each task's environment built from its own Dockerfile by a container engine.

`engine` finds podman; `base` makes the local bases that stand in for images no registry here
serves; `build` builds a task's image, cached by content; `trial` gives one trial the image
with a writable layer of its own (`hillclimber.sandbox.container`).
"""

from __future__ import annotations

from hillclimber.image.build import TaskImage, build_image
from hillclimber.image.engine import Podman, engine, find_engine
from hillclimber.image.placement import Placement, image_needs, needs_image, place
from hillclimber.image.trial import image_sandbox

__all__ = [
    "Placement",
    "Podman",
    "TaskImage",
    "build_image",
    "engine",
    "find_engine",
    "image_needs",
    "image_sandbox",
    "needs_image",
    "place",
]
