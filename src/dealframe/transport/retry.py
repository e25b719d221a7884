"""What to retry and how long to wait: small pure functions, stubbable in tests.

Backoff is exponential with *full jitter* (a uniform draw between 0 and the exponential
ceiling), so many workers that fail together do not retry together. A ``Retry-After`` from the
service (or the reset of a rate limit it states, :func:`dealframe.errors.stated_wait`)
replaces the backoff; one longer than ``retry_after_max`` is not waited for at all (the
transport gives up at once, see ``Transport._give_up_note``, and for a rate limit sends
nothing more until it has passed, see ``Transport._hold``). No stated wait backs off: none
sent, an unreadable or negative ``Retry-After`` (``-1``), a reset at or before now (a client
whose clock runs ahead of the service's sees one past; a wait of 0 would spend every retry in
a burst).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from dealframe.errors import parse_retry_after

__all__ = [
    "RETRYABLE_STATUSES",
    "backoff_delay",
    "is_retryable_status",
    "parse_retry_after",
    "retry_delay",
    "sleep",
]

#: Statuses retried for every method (POST included: every endpoint of the service is a read).
RETRYABLE_STATUSES: frozenset[int] = frozenset({429, 500, 502, 503, 504})

#: The sleep used between attempts; tests replace it to run without waiting.
sleep: Callable[[float], None] = time.sleep


def is_retryable_status(status: int) -> bool:
    """Whether a response with ``status`` is worth sending again.

    Examples
    --------
    >>> is_retryable_status(503), is_retryable_status(404)
    (True, False)
    """
    return status in RETRYABLE_STATUSES


def backoff_delay(
    retry_number: int,
    base: float,
    cap: float,
    *,
    uniform: Callable[[float, float], float] = random.uniform,
) -> float:
    """Full-jitter exponential backoff: ``uniform(0, min(cap, base * 2 ** (retry_number - 1)))``.

    Parameters
    ----------
    retry_number : int
        1 for the first retry, 2 for the second, ...
    base, cap : float
        Ceiling of the first retry, and the largest ceiling.
    uniform : callable
        Random draw ``(low, high) -> float``; stub it for deterministic tests.

    Examples
    --------
    >>> backoff_delay(3, 0.5, 30.0, uniform=lambda lo, hi: hi)
    2.0
    >>> backoff_delay(20, 0.5, 30.0, uniform=lambda lo, hi: hi)
    30.0
    """
    exponent = min(max(retry_number - 1, 0), 62)
    ceiling = min(cap, base * (2.0**exponent))
    return uniform(0.0, ceiling)


def retry_delay(
    retry_number: int,
    retry_after: float | None,
    *,
    base: float,
    cap: float,
    retry_after_max: float,
    uniform: Callable[[float, float], float] = random.uniform,
) -> float:
    """Seconds to wait before retry ``retry_number``: the service's wish (``retry_after``,
    capped at ``retry_after_max``), never less than the backoff; the backoff alone when
    ``retry_after`` is None (no wait stated).

    A ``Retry-After: 0`` (or a date already past) is floored at the backoff as a stated reset
    of 0 is (:func:`dealframe.errors.stated_wait`): waits of 0 spent every retry in a burst.

    Examples
    --------
    >>> retry_delay(1, 120.0, base=0.5, cap=30, retry_after_max=60)
    60.0
    >>> retry_delay(2, None, base=0.5, cap=30, retry_after_max=60, uniform=lambda lo, hi: hi)
    1.0
    >>> retry_delay(3, 0.0, base=0.5, cap=30, retry_after_max=60, uniform=lambda lo, hi: hi)
    2.0
    """
    backoff = backoff_delay(retry_number, base, cap, uniform=uniform)
    if retry_after is not None:
        return max(float(min(retry_after, retry_after_max)), backoff)
    return backoff
