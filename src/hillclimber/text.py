"""Text as the harness shows it: one line, clipped."""

from __future__ import annotations


def clip(text: str, limit: int) -> str:
    """One line of at most `limit` characters, with an ellipsis when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"
