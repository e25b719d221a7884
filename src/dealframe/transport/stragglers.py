"""Stragglers: a first attempt that waits far longer than its endpoint's recent answers.

One answer that never comes (a stalled connection, a request the service lost) costs the
whole read timeout, while every other request of the pull waits behind it. The transport
remembers, per endpoint (method and path), how long its last answers took: from sending the
request to the last byte of the body (the read timeout bounds every wait for bytes, in the
body too, so an endpoint whose bodies arrive slowly is given their time). Once it has seen
:data:`MIN_SAMPLES` of them, a first attempt gets a shorter read timeout: :data:`FACTOR` times
the slowest of the last :data:`WINDOW`, and never less than :data:`FLOOR` seconds. When that
runs out the request is sent again at once with the full read timeout, so an endpoint that is
slow for good still gets all its time, and a wrong guess costs one request (counted as a
``straggler`` fault and a retry, but not taken from the ``retries`` a request may use). A call
whose budget (``call_budget``) is shorter than that limit is bounded by its budget instead.

Examples
--------
>>> answers = Latencies()
>>> for _ in range(MIN_SAMPLES):
...     answers.record(("GET", "/deals"), 0.02)
>>> answers.first_timeout(("GET", "/deals"), read_timeout=30.0)
0.25
>>> answers.first_timeout(("GET", "/other"), read_timeout=30.0) is None
True
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Hashable

__all__ = ["FACTOR", "FLOOR", "MIN_SAMPLES", "WINDOW", "Latencies"]

#: Answers remembered per endpoint.
WINDOW = 32
#: Answers seen before a first attempt is given a shorter read timeout.
MIN_SAMPLES = 8
#: The shorter read timeout, in multiples of the slowest remembered answer.
FACTOR = 4.0
#: The shortest read timeout a first attempt gets, in seconds.
FLOOR = 0.25


class Latencies:
    """Seconds each of an endpoint's recent answers took, to its last byte (thread-safe).

    Examples
    --------
    >>> answers = Latencies()
    >>> for seconds in [0.1] * 7 + [0.3]:
    ...     answers.record("list", seconds)
    >>> round(answers.first_timeout("list", read_timeout=30.0), 3)
    1.2
    >>> answers.first_timeout("list", read_timeout=1.0) is None  # no shorter than it is
    True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[Hashable, deque[float]] = {}

    def record(self, endpoint: Hashable, seconds: float) -> None:
        """Remember how long one answer of ``endpoint`` took, to its last byte."""
        with self._lock:
            self._seen.setdefault(endpoint, deque(maxlen=WINDOW)).append(seconds)

    def first_timeout(self, endpoint: Hashable, read_timeout: float) -> float | None:
        """The read timeout of a first attempt to ``endpoint``, or None for ``read_timeout``
        (too few answers seen, or the shorter one would not be shorter)."""
        with self._lock:
            seen = self._seen.get(endpoint)
            if seen is None or len(seen) < MIN_SAMPLES:
                return None
            slowest = max(seen)
        limit = max(FLOOR, FACTOR * slowest)
        return limit if limit < read_timeout else None
