"""``deals(..., with_investors=True)`` whose single forms fail names each deal left without
its investor list, with the error of each.

The ``IncompleteResultError`` of such a pull listed every missing id in ``.failed`` beside
one error for all of them: a private gate closed past the call's budget (no profile sent)
gave 30 ids and one ``RateLimitedError``, and a 503 on one profile beside a 404 on another
gave both ids and the 503's error alone, so ``.errors`` did not pair with ``.failed``. Each
failed id now has its error, in the same order (the one rate limit, once per id), and the
ids answered 404 are in ``attrs["profiles"]["missing_ids"]`` only, as ``deal(ids)`` has them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ManualClock
from _drift_proxy import Action, Exchange, Proxy, api_error

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import IncompleteResultError, RateLimitedError, ServerError

LISTING = r"^/api/private/v1/transactions$"
SETTINGS: dict[str, Any] = {
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "retry_after_max": 5.0,
    "progress": False,
    "cut_stragglers": False,
    "retries": 0,
}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, Proxy]]:
    with dealframe.sandbox.run(scale=0.1, seed=7) as sb, Proxy(sb.url) as proxy:
        yield sb, proxy


@pytest.fixture
def parts(served: tuple[Any, Proxy]) -> Iterator[tuple[Any, Proxy]]:
    sb, proxy = served
    proxy.reset()
    yield sb, proxy
    proxy.reset()


def _limited(seconds: int) -> Action:
    """A 429 asking ``Retry-After: seconds``, nothing forwarded."""

    def apply(ex: Exchange) -> None:
        ex.forward, ex.status = False, 429
        ex.headers = {"Content-Type": "application/json", "Retry-After": str(seconds)}
        ex.content = b'{"error": {"code": "RATE_LIMITED", "message": "slow down"}}'

    return Action(f"429 asking {seconds} s", on_request=apply)


def test_each_deal_not_sent_is_named_with_its_error(parts, tmp_path):
    sb, proxy = parts
    client = Client(
        proxy.url,
        sb.public_token,
        sb.private_key,
        **SETTINGS,
        call_budget=2,
        cache_enabled=True,
        cache_path=tmp_path / "c.sqlite",
    )
    client._transport.gate = ManualClock(start=time.monotonic()).gate()
    with client:
        listing = client.private.deals(deal_type=["Venture"], limit=30)  # stored
        proxy.add(LISTING, _limited(20), times=1)
        with pytest.raises(RateLimitedError):  # another listing shuts the gate for 20 s
            client.private.deals(deal_type=["M&A"], limit=5)
        with pytest.raises(IncompleteResultError) as info:
            client.private.deals(deal_type=["Venture"], limit=30, with_investors=True)
    error = info.value
    assert proxy.count(r"^/api/private/v1/transactions/[^/]+$") == 0  # no profile sent
    ids = listing["id"].tolist()
    assert sorted(error.failed) == sorted(ids) and len(error.failed) == 30
    assert len(error.errors) == len(error.failed)  # one error per deal named
    assert all(isinstance(e, RateLimitedError) and e.attempts == 0 for e in error.errors)
    assert error.labels == error.failed
    assert "30 failed item(s): " + ", ".join(error.failed[:3]) in str(error)
    assert error.partial["investors"].isna().all()


def test_a_failed_profile_is_named_apart_from_one_answered_404(parts):
    sb, proxy = parts
    client = Client(proxy.url, sb.public_token, sb.private_key, **SETTINGS, cache_enabled=False)
    with client:
        ids = client.private.deals(deal_type=["Venture"], limit=6)["id"].tolist()
        failing, unknown = ids[1], ids[4]
        proxy.add(rf"/transactions/{failing}$", api_error(503, "UNAVAILABLE", "down"))
        proxy.add(rf"/transactions/{unknown}$", api_error(404, "NOT_FOUND", "no such deal"))
        with pytest.raises(IncompleteResultError) as info:
            client.private.deals(deal_type=["Venture"], limit=6, with_investors=True)
    error = info.value
    assert error.failed == [failing]
    assert len(error.errors) == 1 and isinstance(error.errors[0], ServerError)
    assert error.received == 4 and error.expected == 6
    missing = error.partial.attrs["profiles"]["missing_ids"]
    assert sorted(missing) == sorted([failing, unknown])
    # the deal answered 404 has no error of its own, but the error says it all the same
    notes = "\n".join(getattr(error, "__notes__", []))
    assert "1 more deal has no single form to read (answered 404): " + unknown in notes, notes
