"""A request given up on says every answer it got, in order, not the last alone.

A request answered 503, 503, then 429 (``Retry-After: 3``) that the client gave up on (its
``retries`` spent, or a wait its ``call_budget`` could not hold) raised ``429 RATE_LIMITED:
...; gave up after 3 attempts; the service asked to wait 3 s``: nothing said the two 503s
before it. One answered 503 twice that a closed gate then kept out (``not sent again``) named
only the rate limit. The message now lists the answers when one of them is not of the
error's own status (``gave up after 3 attempts (503, 503, 429)``), ``.answers`` holds them
all (``("503", "503", "429 (asked to wait 3 s)")``) and ``.attempts`` counts them. Answers
all of one status are said as before (``gave up after 3 attempts``).
"""

from __future__ import annotations

import pickle
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ManualClock
from _drift_proxy import Proxy

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import RateLimitedError, ServerError
from dealframe.sandbox.faults import FaultPlan
from dealframe.transport import retry as _retry

SEARCH = r"^/api/v2/companies$"
WAIT = 3.0
SETTINGS: dict[str, Any] = {
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "retry_after_max": 5.0,
    "progress": False,
    "cache_enabled": False,
    "cut_stragglers": False,
}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, FaultPlan, Proxy]]:
    """A sandbox whose scripted 429s ask ``Retry-After: 3``, behind a counting proxy."""
    plan = FaultPlan(retry_after=WAIT)
    with dealframe.sandbox.run(scale=0.1, seed=7, faults=plan) as sb, Proxy(sb.url) as proxy:
        yield sb, plan, proxy


@pytest.fixture
def parts(served: tuple[Any, FaultPlan, Proxy]) -> Iterator[tuple[Any, FaultPlan, Proxy]]:
    sb, plan, proxy = served
    plan.reset()
    proxy.reset()
    yield sb, plan, proxy
    plan.reset()


def _client(sb: Any, proxy: Proxy, **settings: Any) -> tuple[Client, ManualClock]:
    client = Client(proxy.url, sb.public_token, sb.private_key, **{**SETTINGS, **settings})
    clock = ManualClock(start=time.monotonic())  # nothing sleeps the 429's wait
    client._transport.gate = clock.gate()
    return client, clock


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ({"retries": 2}, ""),
        ({"retries": 5, "call_budget": 2}, "; call budget exhausted (next retry was due in 3.0 s)"),
    ],
    ids=["retries-spent", "budget-short"],
)
def test_the_503s_before_the_429_given_up_on_are_said(parts, settings, why):
    sb, plan, proxy = parts
    client, _ = _client(sb, proxy, **settings)
    with client:
        plan.script(SEARCH, ["503", "503", "429"])
        with pytest.raises(RateLimitedError) as info:
            client.public.search()
    error = info.value
    assert proxy.count(SEARCH) == 3 and error.attempts == 3
    assert str(error) == (
        "429 RATE_LIMITED: Too many requests (POST /api/v2/companies); gave up after 3 "
        f"attempts (503, 503, 429); the service asked to wait 3 s{why}"
    )
    assert error.answers == ("503", "503", "429 (asked to wait 3 s)")
    again = pickle.loads(pickle.dumps(error))
    assert again.answers == error.answers and str(again) == str(error)


def test_answers_all_of_the_error_s_status_are_not_listed(parts):
    sb, plan, proxy = parts
    client, _ = _client(sb, proxy, retries=2)
    with client:
        plan.script(SEARCH, ["503", "503", "503"])
        with pytest.raises(ServerError) as info:
            client.public.search()
    assert info.value.answers == ("503", "503", "503") and info.value.attempts == 3
    assert "; gave up after 3 attempts" in str(info.value)
    assert "attempts (" not in str(info.value)


@pytest.mark.parametrize("held", [False, True], ids=["gate-outlasts-budget", "held-back"])
def test_a_request_not_sent_again_says_the_answers_it_got(parts, monkeypatch, held):
    """503, 503, then another request's 429 lands while it backs off: its gate closed past
    the call's budget (3 s against 2), or its family held back for a wait longer than
    ``retry_after_max``. The error is the rate limit's (429), not sent again, and says the
    two 503s the request got."""
    sb, plan, proxy = parts
    client, clock = _client(sb, proxy, retries=5, call_budget=2)
    gate = client._transport.gate
    calls = [0]

    def backoff(seconds: float) -> None:  # after the second 503: the rate limit lands
        calls[0] += 1
        if calls[0] == 2:
            if held:
                gate.hold("public", 120.0)
            else:
                gate.block_for(WAIT, key="public")

    monkeypatch.setattr(_retry, "sleep", backoff)
    with client:
        plan.script(SEARCH, ["503", "503"])
        with pytest.raises(RateLimitedError) as info:
            client.public.search()
    error = info.value
    assert proxy.count(SEARCH) == 2 and clock.slept == 0
    assert error.attempts == 2 and error.status == 429
    said = str(error)
    assert said.startswith("429 RATE_LIMITED: not sent again: ")
    assert "(POST /api/v2/companies); gave up after 2 attempts (503, 503); call again after " in (
        said
    )
    assert error.answers == ("503", "503")


def test_a_failure_without_an_answer_is_said_by_its_kind(parts):
    """A dropped connection, then a 503: the ``ServerError`` says both (straight to the
    sandbox: the proxy answers a dropped connection itself)."""
    sb, plan, _ = parts
    client = Client(sb.url, sb.public_token, sb.private_key, **SETTINGS, retries=1)
    with client:
        plan.script(SEARCH, ["drop", "503"])
        with pytest.raises(ServerError) as info:
            client.public.search()
    assert str(info.value).endswith("; gave up after 2 attempts (connection, 503)")
    assert info.value.answers == ("connection", "503") and info.value.attempts == 2
