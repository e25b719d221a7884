"""A gate shared by every worker of one client: one 429 slows them all.

urllib3's own ``Retry`` sleeps in the thread that saw the 429 while the other workers keep
hammering the service. Here, a worker that gets a 429 closes the gate until the moment the
service named, and every worker waits at the gate before its next request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["RateGate"]


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
    >>> gate = RateGate()
    >>> gate.block_for(0.05)
    >>> 0.04 < gate.wait() < 1.0
    True
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

    def block_for(self, seconds: float) -> None:
        """Close the gate for ``seconds`` from now; never shortens an existing closure."""
        with self._changed:
            until = self._clock() + max(0.0, seconds)
            if until > self._open_at:
                self._open_at = until
                self.closures += 1
                self._changed.notify_all()

    def wait(self, deadline: float | None = None) -> float:
        """Block until the gate is open; return the seconds waited.

        Parameters
        ----------
        deadline : float, optional
            Monotonic time not to wait past; the call returns at the deadline even when the
            gate is still closed (the caller then decides to give up).
        """
        start = self._clock()
        while True:
            with self._changed:
                now = self._clock()
                left = self._open_at - now
                if deadline is not None:
                    left = min(left, deadline - now)
                if left <= 0:
                    return now - start
                if self._sleep is None:
                    self._changed.wait(left)
                    continue
            self._sleep(left)
