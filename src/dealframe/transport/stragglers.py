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

A caller that knows better may shorten the limit for the first attempts it makes
(:func:`sooner`): a page walk that has needed a retry knows how long its pages take, and gives
the first attempt of each page it fetches alone 4 times that (:mod:`dealframe.private.paging`).

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
from contextlib import AbstractContextManager
from contextvars import ContextVar

from dealframe.notices import setting

__all__ = ["FACTOR", "FLOOR", "MIN_SAMPLES", "WINDOW", "Latencies", "sooner"]

#: Answers remembered per endpoint.
WINDOW = 32
#: Answers seen before a first attempt is given a shorter read timeout.
MIN_SAMPLES = 8
#: The shorter read timeout, in multiples of the slowest remembered answer.
FACTOR = 4.0
#: The shortest read timeout a first attempt gets, in seconds.
FLOOR = 0.25

#: The caller's limit for first attempts made in this context (:func:`sooner`).
_SOONER: ContextVar[float | None] = ContextVar("dealframe_first_attempt_limit", default=None)


def sooner(seconds: float) -> AbstractContextManager[None]:
    """Within this block (this thread or task only), a first attempt waits at most
    ``seconds`` before it is sent again, whatever the endpoint's recent answers say.

    Examples
    --------
    >>> answers = Latencies()
    >>> with sooner(0.05):
    ...     answers.first_timeout(("POST", "/deals"), read_timeout=30.0)
    0.05
    >>> answers.first_timeout(("POST", "/deals"), read_timeout=30.0) is None
    True
    """
    return setting(_SOONER, seconds)


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
        (too few answers seen and no :func:`sooner` limit, or it would not be shorter)."""
        limit = _SOONER.get()
        with self._lock:
            seen = self._seen.get(endpoint)
            slowest = max(seen) if seen is not None and len(seen) >= MIN_SAMPLES else None
        if slowest is not None:
            ours = max(FLOOR, FACTOR * slowest)
            limit = ours if limit is None else min(limit, ours)
        return limit if limit is not None and limit < read_timeout else None
