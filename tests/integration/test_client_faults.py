"""The client under injected faults, over real HTTP: whole results or a typed error, never a
silently short frame.

One sandbox at scale 1.0 (1,000 listed companies) carries a :class:`FaultPlan` whose random rate
and scripts each test sets; a fault-free pull from the same sandbox is the reference. Retry waits
are kept tiny (``Retry-After`` 0.05 s, backoff capped at 0.05 s) so the file stays fast.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import (
    IncompleteResultError,
    RateLimitedError,
    ServerError,
    TransportError,
)
from dealframe.sandbox.faults import FaultPlan

sys.path.insert(0, str(Path(__file__).parent))
from _clock import ManualClock

KINDS = ("429", "500", "502", "503", "truncate", "cut", "drop")
FAST = {
    "retries": 8,
    "backoff_base": 0.01,
    "backoff_cap": 0.05,
    "retry_after_max": 0.5,
    "read_timeout": 10.0,
    "max_workers": 4,
    "progress": False,
}
EARLY = {"deal_type": ["Early"]}  # about 11,000 deals at scale 1.0: 12 pages


class PassFirst(FaultPlan):
    """A plan whose faults start after the first ``n`` requests (e.g. only pages 2..n fail)."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._free = itertools.count()
        self._n = n
        self._guard = threading.Lock()

    def passing(self, n: int) -> None:
        """Let the next ``n`` requests through, then fault again."""
        with self._guard:
            self._free = itertools.count()
            self._n = n

    def draw(self, path: str) -> str | None:
        with self._guard:
            if next(self._free) < self._n:
                return None
        return super().draw(path)


@pytest.fixture(scope="module")
def plan() -> FaultPlan:
    return FaultPlan(rate=0.0, kinds=KINDS, seed=11, retry_after=0.05)


@pytest.fixture(scope="module")
def faulty(plan: FaultPlan) -> Iterator[Any]:
    with dealframe.sandbox.run(scale=1.0, seed=7, faults=plan) as sb:
        yield sb


@pytest.fixture(autouse=True)
def clean_plan(plan: FaultPlan) -> Iterator[None]:
    plan.reset()
    plan.rate, plan.retry_after = 0.0, 0.05
    yield
    plan.reset()
    plan.rate, plan.retry_after = 0.0, 0.05


@pytest.fixture(scope="module")
def client(faulty: Any) -> Iterator[Client]:
    with Client.for_sandbox(faulty, **FAST) as c:
        yield c


@pytest.fixture(scope="module")
def skus(client: Client, plan: FaultPlan) -> list[str]:
    plan.rate = 0.0
    return client.public.search().index.tolist()


# ---------------------------------------------------------------------------- whole results


def test_deals_pull_under_random_faults_equals_a_fault_free_pull(client, plan):
    reference = client.private.deals(**EARLY)
    assert reference.attrs["requests"] >= 10 and plan.total == 0
    plan.rate = 0.2
    plan.script(r"/transactions$", ["truncate", "cut", "drop", "503", "429", "500", "502"])
    before = client.stats.snapshot()
    pulled = client.private.deals(strict=True, **EARLY)
    after = client.stats.snapshot()
    assert set(plan.counts()) == set(KINDS)  # every kind of fault was served at least once
    assert after["retries"] - before["retries"] >= plan.total
    assert pulled["id"].is_unique
    assert pulled["id"].tolist() == reference["id"].tolist()
    pd.testing.assert_frame_equal(pulled, reference)
    assert pulled.attrs["rows_received"] == pulled.attrs["rows_expected"] == len(reference)


def test_current_1000_skus_under_random_faults_equals_a_fault_free_pull(client, plan, skus):
    assert len(skus) == 1000
    asked = skus[::-1]
    reference = client.public.current(asked)
    plan.rate = 0.2
    plan.script(r"/companies/current$", ["drop", "cut", "truncate", "429", "503"])
    pulled = client.public.current(asked, strict=True)
    assert plan.total >= 5
    assert pulled.attrs["requests"] == 10
    assert pulled.index.tolist() == asked and pulled.index.is_unique
    pd.testing.assert_frame_equal(pulled, reference)


def test_time_series_and_profiles_under_faults(client, plan, skus):
    reference = client.public.time_series(skus[:250], fields=["marketCap", "evRevenueLtm"])
    ids = client.private.companies(limit=40)["id"].tolist()
    profiles = client.private.company(ids)
    plan.rate = 0.25
    pd.testing.assert_frame_equal(
        client.public.time_series(skus[:250], fields=["marketCap", "evRevenueLtm"]), reference
    )
    pd.testing.assert_frame_equal(client.private.company(ids), profiles)
    assert plan.total > 0


# ---------------------------------------------------------------------------- Retry-After


@pytest.mark.parametrize("cut", [True, False])
def test_after_a_retry_a_stalled_page_is_sent_again_after_a_few_pages_time(
    faulty, plan, client, cut, monkeypatch
):
    # Page 1 needs a retry; page 3 then stalls for 1 s. The transport's own rule knows too few
    # answers to cut it (it waits for 8), but the pull knows its pages' pace: the page's first
    # attempt is cut after 4 typical pages (at least 0.05 s) and sent again at once.
    reference = client.private.deals(**EARLY)
    monkeypatch.setattr(plan, "slow_seconds", 1.0)
    plan.script(r"/v1/transactions$", ["503", None, None, "slow"])  # page 1 twice, 2, 3
    settings = {**FAST, "max_workers": 1, "cut_stragglers": cut}
    with Client.for_sandbox(faulty, **settings) as fresh:
        pulled = fresh.private.deals(strict=True, **EARLY)
        faults = fresh.stats.snapshot()["faults"]
    assert plan.counts() == {"503": 1, "slow": 1}
    assert faults == ({"503": 1, "straggler": 1} if cut else {"503": 1})
    pd.testing.assert_frame_equal(pulled, reference)


def test_a_429_storm_with_retry_after_is_honoured(client, plan, monkeypatch):
    plan.retry_after = 0.2
    plan.script(r"^/api/v2/companies$", ["429"] * 4)
    clock = ManualClock()  # the Retry-After windows pass on this clock, not in real time
    monkeypatch.setattr(client._transport, "gate", clock.gate())
    before = client.stats.snapshot()
    started = clock.now()
    frame = client.public.search()
    elapsed = clock.now() - started
    after = client.stats.snapshot()
    assert len(frame) == 1000
    assert plan.counts() == {"429": 4} and plan.pending() == 0
    assert after["retries"] - before["retries"] == 4
    assert elapsed >= 4 * 0.2 * 0.9  # waited what the service asked, every time
    assert after["gate_wait_seconds"] - before["gate_wait_seconds"] >= 4 * 0.2 * 0.8


def test_a_retry_after_over_the_setting_is_not_waited_for(faulty, plan):
    """The service asks for 30 s, the client allows 0.1 s: RateLimitedError at once, naming
    the wait; it used to sleep 0.1 s per retry and ask again, as if it had waited."""
    plan.retry_after = 30.0
    plan.script(r"^/api/v1/companies$", ["429", "429"])
    with Client.for_sandbox(faulty, **{**FAST, "retry_after_max": 0.1}) as c:
        with pytest.raises(RateLimitedError, match="wait 30 s; not retried") as info:
            c.public_v1.search()
    assert info.value.retry_after == 30.0 and plan.counts() == {"429": 1}


def test_a_429_on_one_chunk_slows_every_worker(client, plan, skus, monkeypatch):
    plan.retry_after = 0.3
    plan.script(r"/companies/current$", ["429"])
    clock = ManualClock()
    monkeypatch.setattr(client._transport, "gate", clock.gate())
    started = clock.now()
    frame = client.public.current(skus[:400])
    assert len(frame) == 400
    assert clock.now() - started >= 0.3 * 0.9
    assert client.stats.snapshot()["gate_wait_seconds"] > 0


def test_a_503_burst_and_dropped_connections_are_survived(client, plan):
    plan.script(r"/lookup/", ["503", "503", "503", "drop", "drop"])
    frame = client.private.lookup("investors")
    assert "name" in set(frame["field"])
    assert plan.counts() == {"503": 3, "drop": 2}


# ---------------------------------------------------------------------------- retries exhausted


@pytest.fixture
def small_faulty() -> Iterator[tuple[Any, PassFirst]]:
    gated = PassFirst(0, rate=1.0, kinds=("503",), seed=1, retry_after=0.05)
    with dealframe.sandbox.run(scale=0.05, seed=7, faults=gated) as sb:
        yield sb, gated


def _few_retries(sb: Any) -> Client:
    return Client.for_sandbox(sb, **{**FAST, "retries": 2})


def test_exhausted_429_raises_rate_limited_with_the_wait(faulty, plan):
    plan.rate, plan.kinds = 1.0, ("429",)
    try:
        with _few_retries(faulty) as c, pytest.raises(RateLimitedError) as info:
            c.public.search()
    finally:
        plan.kinds = KINDS
    assert info.value.status == 429 and info.value.attempts == 3
    assert info.value.retry_after == pytest.approx(0.05)
    assert "429" in str(info.value)


def test_exhausted_5xx_raises_server_error(faulty, plan):
    plan.rate, plan.kinds = 1.0, ("502",)
    try:
        with _few_retries(faulty) as c, pytest.raises(ServerError) as info:
            c.private.deal("00000000-0000-4000-8000-000000000001")
    finally:
        plan.kinds = KINDS
    assert info.value.status == 502 and info.value.attempts == 3
    assert "/transactions/" in str(info.value)


def test_exhausted_drops_raise_transport_error(faulty, plan):
    plan.rate, plan.kinds = 1.0, ("drop",)
    try:
        with _few_retries(faulty) as c, pytest.raises(TransportError) as info:
            c.private.lookup("companies")
    finally:
        plan.kinds = KINDS
    assert info.value.attempts == 3


def test_failed_later_pages_raise_incomplete_naming_the_pages(small_faulty):
    sb, gated = small_faulty
    with _few_retries(sb) as c:
        gated.passing(1)
        c.private.schema("transactions")  # discovery passes
        gated.passing(1)  # and so does page 1; pages 2..n fail
        with pytest.raises(IncompleteResultError) as info:
            c.private.deals()
    total = len([d for d in sb.state.dataset.deals if not d["deleted"]])
    pages = -(-total // 1000)
    assert pages >= 2
    assert info.value.failed == list(range(2, pages + 1))
    assert info.value.expected == total and info.value.received == 1000
    assert all(isinstance(e, ServerError) for e in info.value.errors)
    assert "2" in str(info.value) and "failed" in str(info.value)


@pytest.mark.parametrize("workers", [1, 4])
def test_a_service_down_after_page_1_stops_the_walk_after_three_pages(faulty, plan, workers):
    with Client.for_sandbox(faulty, **{**FAST, "retries": 2, "max_workers": workers}) as c:
        c.private.schema("transactions")
        plan.script(r"/transactions$", [None] + ["503"] * 200)  # page 1, then down for good
        with pytest.raises(IncompleteResultError) as info:
            c.private.deals(**EARLY)
    error = info.value
    pages = -(-error.expected // 1000)
    assert pages >= 10
    # three pages in a row with their 3 attempts each (and the pages already in flight),
    # not every page's: the pages left are named but never sent
    sent = plan.counts()["503"]
    assert sent == 9 if workers == 1 else 9 <= sent <= (3 + workers) * 3 < (pages - 1) * 3
    assert error.failed == list(range(2, pages + 1))
    assert error.received == 1000 and len(error.partial) == 1000
    assert all(isinstance(e, ServerError) and e.status == 503 for e in error.errors)


def test_failed_chunks_of_current_raise_incomplete_naming_the_skus(small_faulty):
    sb, gated = small_faulty
    with _few_retries(sb) as c:
        gated.passing(1)
        known = c.public.search().index.tolist()
        asked = (known * 3)[:1] + [f"ZZ{i:03d}-ZZZ" for i in range(150)]
        with pytest.raises(IncompleteResultError) as info:
            c.public.current(asked)
    assert info.value.expected == len(asked)
    failed = [s for chunk in info.value.failed for s in chunk]
    assert failed == asked  # both chunks named, SKU by SKU
    assert isinstance(info.value.errors[0], ServerError)


def test_failed_sub_collections_of_many_ids_raise_incomplete_naming_the_ids(small_faulty):
    sb, gated = small_faulty
    with _few_retries(sb) as c:
        gated.passing(2)  # discovery and one page
        wanted = c.private.companies(limit=3)["id"].tolist()
        with pytest.raises(IncompleteResultError) as info:
            c.private.fundings(wanted)
        assert sorted(info.value.failed) == sorted(wanted)
        with pytest.raises(IncompleteResultError) as info:
            c.private.company(wanted)
        assert info.value.failed == wanted
