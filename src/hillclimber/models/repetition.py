"""Spotting an answer that has begun to repeat itself.

Small models fall into loops: the same line of a file, or the same few words, again and again
until `max_tokens` runs out. With the embedded 0.5B model such runaway answers were 11 of 270
calls in one run but 30% of its model time (each 512 tokens, half a minute or more). Whatever
they hold after the loop began is noise, so the local back end stops generating as soon as the
end of the answer is one block said several times over.
"""

from __future__ import annotations

MIN_SPAN = 240
"""Characters the repeated block must cover before the answer counts as looping: long enough
that a legitimate run (a `----` rule, a few equal CSV rows) does not trip it."""

MAX_PERIOD = 200
"""The longest block looked for: a few lines of a file said again."""

MIN_REPEATS = 3


def repeating(text: str, *, min_span: int = MIN_SPAN, max_period: int = MAX_PERIOD) -> bool:
    """Whether `text` ends in one block of at most `max_period` characters said at least three
    times in a row, covering at least `min_span` characters."""
    for period in range(1, max_period + 1):
        span = max(min_span, MIN_REPEATS * period)
        if len(text) < span:
            return False
        tail = text[-span:]
        # a string repeats with period p exactly when it equals itself shifted by p
        if tail[period:] == tail[:-period]:
            return True
    return False
