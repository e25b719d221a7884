"""SKU chunks that fail after their retries (issue 3's audit): the error's message stays short
whatever the number of SKUs, and a call whose requests all failed with one error class says so
and carries the wait the service asked for.

Before, ``current()`` of 1,000 SKUs whose every request got a 429 ``Retry-After: 3600`` (more
than ``retry_after_max``) raised an ``IncompleteResultError`` of 13,236 characters listing
every SKU, with no ``.retry_after`` (a single request raised the ``RateLimitedError`` itself).
Now each chunk is named by its positions and first and last SKU, within about 1,000
characters (``... and N more``; ``.failed`` keeps every chunk whole), and ``.retry_after`` is
the longest wait the failed requests carry. Faults are the sandbox's own (its fault plan).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ManualClock

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import IncompleteResultError, RateLimitedError
from dealframe.sandbox.faults import FaultPlan

SETTINGS = {
    "retries": 1,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "retry_after_max": 3,
    "max_workers": 4,
    "progress": False,
    "cache_enabled": False,
}
CURRENT = r"/companies/current$"


@pytest.fixture(scope="module")
def limited() -> Iterator[tuple[Any, FaultPlan]]:
    plan = FaultPlan(rate=0.0, kinds=("429",), paths=CURRENT, retry_after=3600)
    with dealframe.sandbox.run(scale=0.05, seed=7, faults=plan) as sb:
        yield sb, plan


def _skus(n: int) -> list[str]:
    return [f"T{i:04d}-USA" for i in range(n)]


@pytest.mark.parametrize("n", [1000, 1500])
def test_every_chunk_rate_limited_is_one_short_error_with_the_wait(
    limited: tuple[Any, FaultPlan], n: int
) -> None:
    sb, plan = limited
    plan.rate = 1.0
    try:
        with Client.for_sandbox(sb, **SETTINGS) as c, pytest.raises(IncompleteResultError) as info:
            c.public.current(_skus(n))
    finally:
        plan.rate = 0.0
    error, text = info.value, str(info.value)
    assert len(text) <= 1_300, len(text)
    assert "SKUs 1-100 (T0000-USA ... T0099-USA)" in text, text
    assert "each failed with RateLimitedError" in text
    assert error.retry_after == 3600
    assert all(isinstance(e, RateLimitedError) for e in error.errors)
    assert [s for chunk in error.failed for s in chunk] == _skus(n)  # every SKU kept
    assert len(error.labels) == n // 100
    if n > 1000:
        assert text.count("SKUs ") == 10 and f"... and {n // 100 - 10} more" in text


def test_one_chunk_failed_among_many_is_named_compactly(limited: tuple[Any, FaultPlan]) -> None:
    """One chunk fails after its retries (a 503 twice; one worker, so both are its own); the
    others arrive. (A 429 beyond ``retry_after_max`` holds back every chunk not yet sent
    instead: below.)"""
    sb, plan = limited
    plan.script(CURRENT, ["503", "503"])
    one_worker = {**SETTINGS, "max_workers": 1}
    with Client.for_sandbox(sb, **one_worker) as c, pytest.raises(IncompleteResultError) as info:
        c.public.current(_skus(1000))
    error, text = info.value, str(info.value)
    assert len(error.failed) == 1 and len(error.failed[0]) == 100
    start = _skus(1000).index(error.failed[0][0])
    label = f"SKUs {start + 1}-{start + 100} ({error.failed[0][0]} ... {error.failed[0][-1]})"
    assert error.labels == [label] and label in text, text
    assert len(text) < 600, len(text)
    assert error.retry_after is None
    # received: the SKUs that came back (none of these is a company), as docs/errors.md says;
    # the 900 of the chunks that arrived are the partial's missing SKUs, the 100 its .failed
    assert error.received == 0 and error.expected == 1000
    assert len(error.partial.attrs["missing_skus"]) == 900


def test_a_chunks_429_beyond_retry_after_max_holds_back_the_chunks_not_yet_sent(
    limited: tuple[Any, FaultPlan],
) -> None:
    """The first chunk gets ``Retry-After: 3600`` (more than ``retry_after_max``): the nine
    chunks after it are not sent (they used to go out at once, and the next call too); the
    call names every chunk, with the wait. The next call sends nothing and raises the
    ``RateLimitedError`` saying how long is left."""
    sb, plan = limited
    before = plan.total
    plan.script(CURRENT, ["429"])
    with Client.for_sandbox(sb, **{**SETTINGS, "max_workers": 1}) as c:
        c._transport.gate = ManualClock().gate()  # no time passes between the two calls
        with pytest.raises(IncompleteResultError) as info:
            c.public.current(_skus(1000))
        assert c.stats.snapshot()["network"] == 1
        error = info.value
        assert len(error.failed) == 10 and error.received == 0
        assert error.retry_after == 3600
        assert [e.attempts for e in error.errors] == [1] + [0] * 9  # sent once, then held back
        with pytest.raises(RateLimitedError, match="not sent") as again:
            c.public.current(_skus(300))
        assert c.stats.snapshot()["network"] == 1
    assert plan.total == before + 1
    assert again.value.attempts == 0 and again.value.retry_after == 3600
