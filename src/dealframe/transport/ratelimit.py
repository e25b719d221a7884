"""A gate shared by every worker of one client: one 429 slows them all.

urllib3's own ``Retry`` sleeps in the thread that saw the 429 while the other workers keep
hammering the service. Here, a worker that gets a 429 closes the gate until the moment the
service named, and every worker waits at the gate before its next request. A wait the client
does not make (longer than ``retry_after_max``) still closes the gate for the time the service
stated: the transport then sends nothing until it has passed (see ``Transport._held_back``), and
the gate keeps the error that closed it, to say so.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["RateGate", "clock_text", "utc_in"]


class RateGate:
    """Thread-safe "do not send before" moment, shared by all workers.

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
    >>> gate.block_for(1.5)
    >>> gate.block_for(0.5)  # never shortens a closure
    >>> gate.remaining(), gate.wait(), now[0]
    (1.5, 1.5, 101.5)
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
        self._open_at = 0.0
        self._by: Any = None
        self.closures = 0

    @property
    def open_at(self) -> float:
        """Monotonic time at which the gate opens (in the past when open)."""
        with self._lock:
            return self._open_at

    def remaining(self) -> float:
        """Seconds until the gate opens (0 when open)."""
        with self._lock:
            return max(0.0, self._open_at - self._clock())

    def held(self) -> tuple[float, Any]:
        """Seconds until the gate opens (0 when open), and what closed it (the ``by`` of the
        :meth:`block_for` that set the closure; None when open or not said).

        Examples
        --------
        >>> now = [100.0]  # a stub clock
        >>> gate = RateGate(clock=lambda: now[0])
        >>> gate.block_for(30, by="a 429")
        >>> gate.held()
        (30.0, 'a 429')
        >>> now[0] += 30
        >>> gate.held()
        (0.0, None)
        """
        with self._lock:
            left = self._open_at - self._clock()
            return (left, self._by) if left > 0 else (0.0, None)

    def block_for(self, seconds: float, by: Any = None) -> None:
        """Close the gate for ``seconds`` from now; never shortens an existing closure.

        ``by`` (the error whose wait it is) is kept while this closure stands: :meth:`held`
        returns it."""
        with self._changed:
            until = self._clock() + max(0.0, seconds)
            if until > self._open_at:
                self._open_at = until
                self._by = by
                self.closures += 1
                self._changed.notify_all()

    def wait(self, deadline: float | None = None, longest: float | None = None) -> float:
        """Block until the gate is open; return the seconds waited.

        Parameters
        ----------
        deadline : float, optional
            Monotonic time not to wait past; the call returns at the deadline even when the
            gate is still closed (the caller then decides to give up).
        longest : float, optional
            The longest closure waited for: the call returns at once when the gate is (or,
            while it waits, becomes) closed for longer (the caller then sends nothing).
        """
        start = self._clock()
        while True:
            with self._changed:
                now = self._clock()
                left = self._open_at - now
                if longest is not None and left > longest:
                    return now - start
                if deadline is not None:
                    left = min(left, deadline - now)
                if left <= 0:
                    return now - start
                if self._sleep is None:
                    self._changed.wait(left)
                    continue
            self._sleep(left)


def utc_in(seconds: float) -> dt.datetime:
    """The moment (UTC, whole seconds, rounded up) ``seconds`` from now: until when a held
    client sends nothing.

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
