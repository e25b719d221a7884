"""A rate limit whose wait is longer than ``retry_after_max`` holds its family of the client back.

Such a 429 is not retried (waiting less than the service asked would only meet the same
answer), but it used to stop only its own request: the rest of the call went out at once, and
so did the next call (issue 8's audit: ``company()`` of 200 ids against a sandbox limited to a
few requests a second sent 200 requests, 195 answered 429; a ``Retry-After: 120`` on page 3 of
``deals()`` let pages 4-15 and the next call go out). Now the client's gate is closed for the
whole wait the service stated: the call's requests not yet sent are not sent (it raises
``IncompleteResultError`` carrying what arrived and the wait), and a later call fails at once
with a ``RateLimitedError`` saying how long is left, without sending, until the wait has
passed. Requests are counted at a proxy in front of the sandbox (what the service saw), never
timed; the wait passes on a manual clock.

The hold is the family's: each family has its own credential, so its own rate limit (a hold
made by a Family A 429 refused every Family B request too). Only a wait the service stated
holds: the client's own backoff, however much longer than ``retry_after_max``, is waited out
(it was read as a hold, and a 429 without ``Retry-After`` ended the call).
"""

from __future__ import annotations

import email.utils
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ManualClock
from _drift_proxy import Action, Exchange, Proxy

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import IncompleteResultError, RateLimitedError
from dealframe.sandbox.faults import FaultPlan
from dealframe.transport import retry

DEALS = r"^/api/private/v1/transactions$"
SETTINGS: dict[str, Any] = {
    "retries": 2,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "retry_after_max": 5.0,
    "max_workers": 4,
    "progress": False,
    "cache_enabled": False,
    "cut_stragglers": False,
}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, FaultPlan, Proxy]]:
    """A sandbox with a fault plan (``Retry-After: 120`` on its 429s), behind a proxy that
    counts the requests it receives."""
    plan = FaultPlan(retry_after=120)
    with dealframe.sandbox.run(scale=0.1, seed=7, faults=plan) as sb, Proxy(sb.url) as proxy:
        yield sb, plan, proxy


@pytest.fixture
def parts(served: tuple[Any, FaultPlan, Proxy]) -> Iterator[tuple[Any, FaultPlan, Proxy]]:
    sb, plan, proxy = served
    plan.reset()
    proxy.reset()
    yield sb, plan, proxy
    plan.reset()


def _client(sb: Any, proxy: Proxy, **settings: Any) -> Client:
    return Client(proxy.url, sb.public_token, sb.private_key, **{**SETTINGS, **settings})


def test_a_long_retry_after_on_page_3_sends_no_later_page_nor_the_next_call(parts):
    sb, plan, proxy = parts
    with _client(sb, proxy, max_workers=1) as c:  # one page at a time: exact counts
        total = len(c.private.deals())
        pages = -(-total // 1000)
        assert pages >= 4  # pages after page 3 exist to be held back
        proxy.reset()
        clock = ManualClock()
        c._transport.gate = clock.gate()
        plan.script(DEALS, [None, None, "429"])  # page 3's first request
        with pytest.raises(IncompleteResultError) as info:
            c.private.deals()
        sent = proxy.count(DEALS)
        assert sent == 3, proxy.seen  # pages 1-3; page 3 answered 429 and not retried
        error = info.value
        assert error.retry_after == 120
        assert error.failed == list(range(3, pages + 1))  # named, not sent
        assert error.labels[0] == "page 3" and "failed item(s): page 3, page 4" in str(error)
        assert len(error.partial) == 2000 and error.partial["id"].is_unique
        # the next call: not sent, the time left named
        with pytest.raises(RateLimitedError, match=r"not sent: .* wait 120 s") as again:
            c.private.deals(limit=10)
        assert proxy.count(DEALS) == sent
        assert again.value.attempts == 0 and again.value.held_until is not None
        assert 119 <= again.value.retry_after <= 120
        assert "retry_after_max (5 s)" in str(again.value)
        # once the stated time has passed, requests go out again
        clock.advance(121)
        assert len(c.private.deals(limit=10)) == 10
        assert proxy.count(DEALS) == sent + 1
    assert plan.counts() == {"429": 1}


def test_a_long_retry_after_is_honoured_by_every_worker_of_a_profile_call(parts):
    """200 profiles, four workers: one 429 asking 120 s stops the requests not yet sent."""
    sb, plan, proxy = parts
    ids = [o["id"] for o in sb.state.dataset.orgs if o["_company"] and not o["deleted"]][:200]
    with _client(sb, proxy) as c:
        plan.script(r"^/api/private/v1/companies/[^/]+$", [None] * 5 + ["429"])
        with pytest.raises(IncompleteResultError) as info:
            c.private.company(ids)
        sent = proxy.count(r"^/api/private/v1/companies/")
        # not 200: the hold is set as the 429 is read, and the workers' requests already out
        # (or sent by a worker in the moment before) finish; how many depends on the machine's
        # load, so the bound is what "not hammered" means, not an exact count
        assert 6 <= sent < len(ids) // 4, sent
        error = info.value
        assert error.retry_after == 120 and error.received == len(error.partial) >= 5
        assert len(error.failed) == len(ids) - error.received
        assert sum(e.attempts == 0 for e in error.errors) >= len(ids) - sent
        assert c.stats.snapshot()["held_back"] >= len(ids) - sent
        # a later call of many requests: the RateLimitedError itself, nothing sent
        with pytest.raises(RateLimitedError, match="not sent"):
            c.private.company(ids[:3])
        assert proxy.count(r"^/api/private/v1/companies/") == sent


def test_a_rate_limited_sandbox_is_not_hammered(parts):
    """``sandbox.run(rate_limit=...)``: its 429s ask at least 1 s, more than this client's
    ``retry_after_max`` of 0.5 s. The call used to send all its 200 requests at once."""
    sb, _, _ = parts
    ids = [o["id"] for o in sb.state.dataset.orgs if o["_company"] and not o["deleted"]][:200]
    with dealframe.sandbox.run(scale=0.1, seed=7, rate_limit=0.5) as limited:
        with Proxy(limited.url) as proxy:
            with _client(limited, proxy, retry_after_max=0.5) as c:
                c._transport.gate = ManualClock().gate()  # the second call comes at once
                with pytest.raises((IncompleteResultError, RateLimitedError)) as info:
                    c.private.company(ids)
                sent = proxy.count()
                # not 200: how many the workers had out when the first 429 was read depends on
                # the machine's load, so the bound is what "not hammered" means
                assert 1 <= sent < len(ids) // 4, sent
                assert info.value.retry_after is not None and info.value.retry_after >= 1
                with pytest.raises(RateLimitedError, match="not sent"):
                    c.private.company(ids[:5])
                assert proxy.count() == sent


def test_a_wait_within_retry_after_max_is_still_waited_out_and_every_row_arrives(parts):
    """A 429 asking less than ``retry_after_max`` is retried after the wait, as before."""
    sb, plan, proxy = parts
    plan.retry_after = 2
    try:
        with _client(sb, proxy) as c:
            want = len(c.private.deals())
            clock = ManualClock()
            c._transport.gate = clock.gate()
            plan.script(DEALS, [None, "429"])
            assert len(c.private.deals()) == want
            assert clock.slept >= 2
            assert c.stats.snapshot()["held_back"] == 0
    finally:
        plan.retry_after = 120


def test_fault_kinds_given_as_one_string_are_one_kind(parts):
    """``FaultPlan(kinds="429")`` and ``plan.script(path, "503")`` read a bare string as one
    kind (they were read as its characters: ``got ['4', '2', '9']``)."""
    sb, plan, proxy = parts
    assert FaultPlan(kinds="429").kinds == ("429",)
    plan.script(DEALS, "503")
    with _client(sb, proxy) as c:
        assert len(c.private.deals(limit=10)) == 10
        assert c.stats.snapshot()["faults"] == {"503": 1}
    assert plan.counts() == {"503": 1}


def test_an_answer_in_the_http_cache_is_still_served_while_held_back(parts, tmp_path):
    """Held back, the client sends nothing; what its cache holds needs no request."""
    sb, plan, proxy = parts
    with _client(sb, proxy, cache_enabled=True, cache_path=tmp_path / "cache.sqlite") as c:
        cached = c.private.deals(limit=10)
        plan.script(DEALS, ["429"])
        with pytest.raises(RateLimitedError, match="this client sends no private request before"):
            c.private.deals(limit=20)
        sent = proxy.count(DEALS)
        again = c.private.deals(limit=10)  # from the cache: not refused
        assert again["id"].tolist() == cached["id"].tolist()
        with pytest.raises(RateLimitedError, match="not sent"):
            c.private.deals(limit=30)  # not in the cache: refused, unsent
        assert proxy.count(DEALS) == sent == 2


def test_a_hold_on_one_family_lets_the_other_family_through(parts):
    """Family A's 429 asks 120 s: its requests are held back, Family B's (another credential,
    so another rate limit) go on. They were refused as well, unsent."""
    sb, plan, proxy = parts
    with _client(sb, proxy) as c:
        plan.script(r"^/api/v[12]/", ["429"])
        with pytest.raises(RateLimitedError, match="not retried") as first:
            c.public.search(countries=["USA"])
        assert len(c.private.deals(limit=5)) == 5
        assert "this client sends no public request before" in str(first.value)
        sent = proxy.count(r"^/api/v[12]/")
        with pytest.raises(RateLimitedError, match="not sent: .* wait 120 s"):
            c.public.search(countries=["USA"])
        assert proxy.count(r"^/api/v[12]/") == sent
        assert c.stats.snapshot()["held_back"] == 1
    assert plan.counts() == {"429": 1}


def _limited_without_a_wait(ex: Exchange) -> None:
    """A 429 that states no wait (no ``Retry-After``, no reset)."""
    ex.forward, ex.status, ex._doc = False, 429, None
    ex.headers = {"Content-Type": "application/json"}
    ex.content = orjson.dumps({"error": {"code": "RATE_LIMITED", "message": "slow down"}})


def test_the_clients_own_backoff_is_waited_out_however_long(parts, monkeypatch):
    """Four 429s without ``Retry-After``: backed off 0.5, 1, 2 and 4 s (the jitter's top)
    with ``retry_after_max=1``, and the fifth request gets the rows. The 2 s backoff was read
    as a wait the service asked longer than ``retry_after_max``: the call failed, "a rate
    limit holds this client back"."""
    sb, _, proxy = parts
    monkeypatch.setattr(
        retry, "backoff_delay", lambda n, base, cap, **_: min(cap, base * 2 ** (n - 1))
    )
    proxy.add(DEALS, Action("429", on_request=_limited_without_a_wait), times=4)
    fast = {"retries": 5, "backoff_base": 0.5, "backoff_cap": 30.0, "retry_after_max": 1.0}
    with _client(sb, proxy, **fast) as c:
        clock = ManualClock()
        c._transport.gate = clock.gate()
        assert len(c.private.deals(limit=5)) == 5
        assert clock.slept == 7.5
        assert proxy.count(DEALS) == 5
        assert c.stats.snapshot()["held_back"] == 0


def _limited_for(seconds: str) -> Action:
    """A 429 asking ``Retry-After: seconds``."""

    def apply(ex: Exchange) -> None:
        _limited_without_a_wait(ex)
        ex.headers["Retry-After"] = seconds

    return Action("429", on_request=apply)


def test_a_short_wait_of_one_family_lets_the_other_family_through(parts):
    """Family B's 429 asks 6 s (within ``retry_after_max``): its worker waits, and so does
    every later Family B request; a Family A call meanwhile is sent at once (its own
    credential, its own limit). It waited at the same gate for the rest of the 6 s."""
    sb, _, proxy = parts
    with _client(sb, proxy, retry_after_max=10.0) as c:
        clock = ManualClock(hold=True)  # the 6 s end when the test says so
        c._transport.gate = clock.gate()
        proxy.add(DEALS, _limited_for("6"), times=1)
        rows: list[int] = []
        deals = threading.Thread(target=lambda: rows.append(len(c.private.deals(limit=5))))
        deals.start()
        clock.wait_for_sleepers(1)  # the deals worker got its 429 and waits
        found: list[int] = []
        search = threading.Thread(
            target=lambda: found.append(len(c.public.search(countries=["USA"])))
        )
        search.start()
        while search.is_alive() and clock.sleepers < 2:  # done, or waiting at the gate too
            search.join(0.05)
        waiting = clock.sleepers
        clock.advance(6)
        search.join(30)
        deals.join(30)
        assert waiting == 1, "the search waited for the other family's 429"
        assert found and found[0] > 0 and rows == [5]
        assert proxy.count(DEALS) == 2


@pytest.mark.parametrize(("said", "waited"), [("5.", 5.0), (".5", 0.5), ("0.5", 0.5)])
def test_a_retry_after_with_a_bare_point_is_waited_out(parts, said, waited):
    """``Retry-After: 5.`` and ``.5`` are delays (digits and a point): waited out, as
    ``0.5`` is. They were read as no wait, and the retry backed off 0.01 s."""
    sb, _, proxy = parts
    proxy.add(DEALS, _limited_for(said), times=1)
    with _client(sb, proxy, retry_after_max=10.0) as c:
        clock = ManualClock()
        c._transport.gate = clock.gate()
        assert len(c.private.deals(limit=5)) == 5
        assert clock.slept == waited
        assert proxy.count(DEALS) == 2


def test_a_retry_after_of_0_backs_off_instead_of_spending_every_retry_at_once(parts, monkeypatch):
    """Six 429s asking ``Retry-After: 0``: each retry waits its backoff (0.5, 1, 2, 4, 8 s
    at the jitter's top), as after a stated reset of 0. They were sent back to back."""
    sb, _, proxy = parts
    monkeypatch.setattr(
        retry, "backoff_delay", lambda n, base, cap, **_: min(cap, base * 2 ** (n - 1))
    )
    proxy.add(DEALS, _limited_for("0"), times=6)
    slow = {"retries": 5, "backoff_base": 0.5, "backoff_cap": 30.0, "retry_after_max": 10.0}
    with _client(sb, proxy, **slow) as c:
        clock = ManualClock()
        c._transport.gate = clock.gate()
        with pytest.raises(RateLimitedError):
            c.private.deals(limit=5)
        assert proxy.count(DEALS) == 6
        assert clock.slept == 15.5


@pytest.mark.parametrize("header", ["X-RateLimit-Reset", "RateLimit-Reset"])
def test_a_reset_sent_as_an_http_date_is_waited_out(parts, header):
    """A 429 whose reset is an HTTP date about 30 s ahead (as ``Retry-After``'s may be): the
    retry waits until then. The date stated no wait: the retry backed off 0.01 s."""
    sb, _, proxy = parts
    when = email.utils.formatdate(time.time() + 30, usegmt=True)

    def apply(ex: Exchange) -> None:
        _limited_without_a_wait(ex)
        ex.headers[header] = when

    proxy.add(DEALS, Action("429", on_request=apply), times=1)
    with _client(sb, proxy, retry_after_max=60.0) as c:
        clock = ManualClock()
        c._transport.gate = clock.gate()
        assert len(c.private.deals(limit=5)) == 5
        assert 25 <= clock.slept <= 31, clock.slept
        assert proxy.count(DEALS) == 2
