"""A gate shared by every worker of one client: one 429 slows every request of its family.

urllib3's own ``Retry`` sleeps in the thread that saw the 429 while the other workers keep
hammering the service. Here, a worker that gets a 429 closes the gate of its key (the interface
family: each has its own credential, so its own rate limit) until the moment the service named
(or its own backoff ran out), and every worker waits at that gate before its next request of
that family: :meth:`RateGate.block_for`, always waited out. The other family's requests go on.

A wait the client does not make (longer than ``retry_after_max``) is a *hold* instead, kept
apart for each key (the interface family, each with its own credential and so its own rate
limit): :meth:`RateGate.hold`. The transport sends that family nothing until it has passed
(see ``Transport._held_back``); the gate keeps what the transport said of the hold, to say so.
A backoff closure never refuses a request; only a hold does.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["RateGate", "clock_text", "utc_in"]


class RateGate:
    """Thread-safe "do not send before" moments shared by all workers, and holds, per key.

    Parameters
    ----------
    clock : callable
        Monotonic clock in seconds (stubbable).
    sleep : callable
        How to wait (stubbable); called with the seconds left.

    Examples
    --------
    On a stub clock that a sleep moves (by default: ``time.monotonic``, and a wait on the
    gate's condition):

    >>> now = [100.0]
    >>> def sleep(seconds):
    ...     now[0] += seconds
    >>> gate = RateGate(clock=lambda: now[0], sleep=sleep)
    >>> gate.block_for(1.5, key="private")
    >>> gate.block_for(0.5, key="private")  # never shortens a closure
    >>> gate.remaining("public"), gate.wait(key="public")  # the other key goes on
    (0.0, 0.0)
    >>> gate.remaining("private"), gate.wait(key="private"), now[0]
    (1.5, 1.5, 101.5)

    A closure without a key closes the gate for every key.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._open_at: dict[str | None, float] = {}
        self._holds: dict[str, tuple[float, Any]] = {}
        self.closures = 0

    @property
    def open_at(self) -> float:
        """Monotonic time at which the gate opens for every key (in the past when open)."""
        with self._lock:
            return self._latest()

    def _latest(self) -> float:
        return max(self._open_at.values(), default=0.0)

    def _opens(self, key: str | None) -> float:
        """When the gate opens for ``key``: its own closure, or one of every key (None)."""
        mine = self._open_at.get(key, 0.0) if key is not None else 0.0
        return max(mine, self._open_at.get(None, 0.0))

    def _opening(self, key: str | None) -> float:
        """When the gate opens for ``key``, its hold on ``key`` passed too (no clock read:
        the same moment each time it is asked until a closure or hold moves it)."""
        hold = self._holds.get(key, (0.0, None))[0] if key is not None else 0.0
        return max(self._opens(key), hold)

    def remaining(self, key: str | None = None) -> float:
        """Seconds until the gate opens for ``key`` (0 when open; without ``key``: the
        closures of every key); holds are not counted (:meth:`held`)."""
        with self._lock:
            opens = self._opens(key) if key is not None else self._latest()
            return max(0.0, opens - self._clock())

    def held(self, key: str) -> tuple[float, Any]:
        """Seconds until the hold on ``key`` ends (0 when none), and what the :meth:`hold`
        that set it said (None when none).

        Examples
        --------
        >>> now = [100.0]  # a stub clock
        >>> gate = RateGate(clock=lambda: now[0])
        >>> gate.hold("public", 30, by="a 429")
        >>> gate.held("public"), gate.held("private"), gate.remaining()
        ((30.0, 'a 429'), (0.0, None), 0.0)
        >>> now[0] += 30
        >>> gate.held("public")
        (0.0, None)
        """
        with self._lock:
            return self._held(key)

    def _held(self, key: str) -> tuple[float, Any]:
        until, by = self._holds.get(key, (0.0, None))
        left = until - self._clock()
        if left > 0:
            return left, by
        self._holds.pop(key, None)  # passed: what it said is kept no longer
        return 0.0, None

    def block_for(self, seconds: float, key: str | None = None) -> None:
        """Close the gate of ``key`` (None: of every key) for ``seconds`` from now; never
        shortens an existing closure."""
        with self._changed:
            until = self._clock() + max(0.0, seconds)
            if until > self._open_at.get(key, 0.0):
                self._open_at[key] = until
                self.closures += 1
                self._changed.notify_all()

    def forget(self, key: str) -> None:
        """Drop the closure and the hold of ``key``: a key used for one wait alone (the
        doctor's) leaves no entry behind, so the gate does not grow with every such key.

        Examples
        --------
        >>> now = [100.0]  # a stub clock
        >>> gate = RateGate(clock=lambda: now[0])
        >>> gate.block_for(5, key="doctor:1:public")
        >>> gate.forget("doctor:1:public")
        >>> gate.remaining("doctor:1:public"), gate.open_at
        (0.0, 0.0)
        """
        with self._changed:
            self._open_at.pop(key, None)
            self._holds.pop(key, None)
            self._changed.notify_all()

    def hold(self, key: str, seconds: float, by: Any = None) -> None:
        """Hold ``key`` back for ``seconds`` from now (never shortens a hold); ``by`` is kept
        while it stands (:meth:`held`). The gate itself stays as it is."""
        with self._changed:
            until = self._clock() + max(0.0, seconds)
            if until > self._holds.get(key, (0.0, None))[0]:
                self._holds[key] = (until, by)
                self._changed.notify_all()

    def wait(
        self,
        deadline: float | None = None,
        *,
        key: str | None = None,
        longest: float | None = None,
    ) -> float:
        """Block until the gate is open for ``key`` (and the hold on ``key`` has ended);
        return the seconds waited.

        Parameters
        ----------
        deadline : float, optional
            Monotonic time not to wait past: the call returns at once when the gate opens
            after the deadline, as found or as a new closure (or hold) moves it while it waits
            (another request's 429): the wait could not end in time, and the caller then
            gives up without sleeping until the deadline.
        key : str, optional
            Whose closure and hold are waited out (without it: only a closure of every key).
        longest : float, optional
            The longest hold on ``key`` waited out: the call returns at once when ``key`` is
            (or, while it waits, becomes) held for longer (the caller then sends nothing). A
            closure of the gate is waited out however long it is.

        Examples
        --------
        Another request's 429 closes the gate past the deadline while this one waits (on a
        stub clock that a sleep moves): the wait ends then, not at the deadline.

        >>> now = [0.0]
        >>> def sleep(seconds):
        ...     now[0] += 0.5
        ...     gate.block_for(20, key="public")
        >>> gate = RateGate(clock=lambda: now[0], sleep=sleep)
        >>> gate.block_for(1, key="public")
        >>> gate.wait(5.0, key="public"), gate.remaining("public")
        (0.5, 20.0)
        """
        start = self._clock()
        while True:
            with self._changed:
                now = self._clock()
                left = self._opens(key) - now
                if key is not None:
                    held = self._held(key)[0]
                    if longest is not None and held > longest:
                        return now - start
                    left = max(left, held)
                if deadline is not None:
                    # past the deadline, as it was found or moved there meanwhile (between the
                    # caller's check of its budget and this look, too): the caller checks again
                    if self._opening(key) > deadline:
                        return now - start
                    left = min(left, deadline - now)
                if left <= 0:
                    return now - start
                if self._sleep is None:
                    self._changed.wait(left)
                    continue
            self._sleep(left)


def utc_in(seconds: float) -> dt.datetime:
    """The moment (UTC, whole seconds, rounded up) ``seconds`` from now: until when a held
    family of a client sends nothing.

    Examples
    --------
    >>> utc_in(60) > dt.datetime.now(dt.UTC)
    True
    """
    moment = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=max(0.0, seconds))
    return moment.replace(microsecond=0) + dt.timedelta(seconds=1 if moment.microsecond else 0)


def clock_text(moment: dt.datetime) -> str:
    """``moment`` as an error message says it: the time of day in UTC, and the date when it
    is not today's.

    Examples
    --------
    >>> clock_text(dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.UTC))
    '2020-01-02 03:04:05 UTC'
    """
    moment = moment.astimezone(dt.UTC)
    if moment.date() == dt.datetime.now(dt.UTC).date():
        return f"{moment:%H:%M:%S} UTC"
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"
