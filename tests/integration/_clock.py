"""Clocks for tests that would otherwise wait for time to pass (a ``Retry-After`` window, a
cache entry's expiry)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from requests_cache import SQLiteCache

from dealframe.transport import session
from dealframe.transport.ratelimit import RateGate

__all__ = ["ListedClock", "ManualClock", "age_cache_entries", "clock"]


class ManualClock:
    """Monotonic seconds that move only when told, for a transport's 429 gate.

    :meth:`gate` gives a :class:`~dealframe.transport.ratelimit.RateGate` on this clock. By
    default a sleep on it moves the clock at once (a ``Retry-After`` is waited in no time, and
    :attr:`slept` says how long it was). With ``hold=True`` a sleeper blocks until the test
    moves the clock past its wake-up with :meth:`advance`: the test decides when the window
    ends and can look at every worker waiting before it does. Thread-safe.

    Examples
    --------
    >>> clock = ManualClock()
    >>> gate = clock.gate()
    >>> gate.block_for(1.5)
    >>> gate.wait(), clock.slept
    (1.5, 1.5)
    """

    def __init__(self, start: float = 1_000.0, *, hold: bool = False) -> None:
        self._now = start
        self._hold = hold
        self._moved = threading.Condition()
        self.slept = 0.0
        self.sleepers = 0

    def now(self) -> float:
        with self._moved:
            return self._now

    def sleep(self, seconds: float) -> None:
        with self._moved:
            seconds = max(0.0, seconds)
            self.slept += seconds
            wake = self._now + seconds
            if not self._hold:
                self._now = wake
                return
            self.sleepers += 1
            self._moved.notify_all()
            try:
                if not self._moved.wait_for(lambda: self._now >= wake, timeout=30):
                    raise TimeoutError("nobody advanced the clock")
            finally:
                self.sleepers -= 1

    def advance(self, seconds: float) -> None:
        """Move the clock (``hold=True``: wakes the sleepers whose time has come)."""
        with self._moved:
            self._now += seconds
            self._moved.notify_all()

    def wait_for_sleepers(self, count: int, timeout: float = 10.0) -> None:
        """Block (in real time) until ``count`` threads sleep on this clock."""
        deadline = time.monotonic() + timeout
        with self._moved:
            while self.sleepers < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.sleepers} of {count} sleepers")
                self._moved.wait(left)

    def gate(self) -> RateGate:
        return RateGate(clock=self.now, sleep=self.sleep)


class ListedClock(ManualClock):
    """A manual clock (its sleeps move it at once) that lists each wait made on it."""

    def __init__(self) -> None:
        super().__init__()
        self.made: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.made.append(seconds)
        super().sleep(seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> ListedClock:
    """The clock of the gate of every client made in the test (a command's too): the doctor
    waits at the client's gate, so its waits pass on this clock, not in real time (import
    it by name: ``from _clock import clock``)."""
    made = ListedClock()
    monkeypatch.setattr(session, "RateGate", lambda: made.gate())
    return made


def age_cache_entries(path: Path, seconds: float) -> None:
    """Move the clock on by ``seconds`` for every entry of the cache file at ``path``: each
    was written (and expires) that much earlier, through requests-cache's public API (which
    keeps the ``expires`` column that ``delete(expired=True)`` reads in step)."""
    responses = SQLiteCache(str(path), wal=True).responses
    for key in list(responses.keys()):
        entry = responses[key]
        entry.created_at -= timedelta(seconds=seconds)
        if entry.expires is not None:
            entry.expires -= timedelta(seconds=seconds)
        responses[key] = entry
    responses.close()
