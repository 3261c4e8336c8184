"""A run's stop (`process.stop_all`) as what waits outside a process sees it: `unless_stopped`."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from hillclimber import process


@pytest.fixture(autouse=True)
def resumed() -> Iterator[None]:
    yield
    process.resume()


def test_a_call_gives_its_answer_or_its_error() -> None:
    assert process.unless_stopped(lambda: 42) == 42
    with pytest.raises(ZeroDivisionError):
        process.unless_stopped(lambda: 1 / 0)


def test_a_call_still_waiting_is_given_up_once_the_run_stops() -> None:
    asked, answer = threading.Event(), threading.Event()

    def call() -> str:
        asked.set()
        answer.wait(60)
        return "late"

    def stop_once_asked() -> None:
        asked.wait(30)
        process.stop_all()

    threading.Thread(target=stop_once_asked).start()
    with pytest.raises(process.Stopped):
        process.unless_stopped(call, poll=0.05)
    assert not answer.is_set()  # given up while the call still waited
    answer.set()


def test_nothing_starts_once_the_run_stops() -> None:
    process.stop_all()
    assert process.stopping()
    called: list[bool] = []
    with pytest.raises(process.Stopped):
        process.unless_stopped(lambda: called.append(True))
    assert not called
    with pytest.raises(process.Stopped):
        process.run_process(["true"], timeout=10)
    process.resume()
    assert not process.stopping() and process.run_process(["true"], timeout=10).ok
