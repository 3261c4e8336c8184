from __future__ import annotations

from hillclimber.models.repetition import repeating

LINES = (
    "DB_HOST=db.internal\nDB_PORT=5432\nMETRICS_PORT=9100\nHEALTHCHECK_URL=http://localhost:9090\n"
)


def test_a_file_said_over_and_over_is_repeating() -> None:
    assert repeating("content: " + LINES * 4)
    # the loop need not end on a whole block
    assert repeating("content: " + LINES * 4 + LINES[:17])


def test_a_few_words_looping_is_repeating() -> None:
    assert repeating('{"command": "echo max=M; count=N; sum=S; ' + "max=M; count=N; sum=S; " * 12)


def test_one_character_needs_the_whole_span() -> None:
    assert not repeating("x" * 239)
    assert repeating("x" * 240)
    assert not repeating("=" * 80 + "\n" + "title\n" + "=" * 80)


def test_ordinary_answers_are_not_repeating() -> None:
    counting = "\n".join(str(n) for n in range(100, 200))
    assert not repeating(counting)
    assert not repeating(LINES * 2)  # twice is not a loop
    code = "\n".join(f"    total += values[{i}] * {i + 3}" for i in range(30))
    assert not repeating(code)
    assert not repeating("")


def test_a_block_longer_than_the_limit_is_not_looked_for() -> None:
    block = "".join(chr(65 + i % 26) + str(i) for i in range(120))  # ~300 characters
    assert not repeating(block * 3)
    assert repeating(block * 3, max_period=len(block))
