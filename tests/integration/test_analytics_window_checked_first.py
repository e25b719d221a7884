"""A bad window is refused before any request (docs/aggregates.md: each bad argument of the
analytics functions is checked before any computation or request).

``bucket_medians(client=...)`` used to ask the service (its discovery document, an aggregate)
for its threshold and date before reading ``date_from`` / ``date_to`` / ``as_of``: a window
ending before it starts cost two requests, then a ValidationError; a dead client gave a
TransportError instead. ``reconcile`` fetched the transactions discovery document before
refusing a ``date_from`` that is no day. And a ``date_to`` too early for the default window
was blamed on ``as_of``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

import dealframe
from dealframe.analytics import bucket_medians, reconcile
from dealframe.errors import ValidationError

DEALS = pd.DataFrame(
    {
        "id": ["a", "b"],
        "deal_date": pd.to_datetime(["2024-01-05", "2024-02-01"]),
        "ev_revenue": [1.0, 2.0],
    }
)

BAD_WINDOWS = {
    "from-after-to": ({"date_from": "2024-05-01", "date_to": "2024-01-01"}, "date_from"),
    "from-after-as_of": ({"date_from": "2024-05-01", "as_of": "2024-01-01"}, "date_from"),
    "from-a-month": ({"date_from": "2024-01", "date_to": "2024-06-30"}, "date_from"),
    "from-a-month-alone": ({"date_from": "2024-01"}, "date_from"),
    "to-no-date": ({"date_to": "junk"}, "date_to"),
    "as_of-no-date": ({"as_of": "junk"}, "as_of"),
    # the default start would be before year 1: date_to's fault, as_of being beside it
    "to-too-early": ({"date_to": "0003-01-01", "as_of": "2026-06-30"}, "date_to"),
}


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[dealframe.Client]:
    with dealframe.Client.for_sandbox(sandbox, cache_enabled=False, progress=False) as c:
        yield c


def _sent(client: dealframe.Client) -> int:
    return int(client.stats.snapshot()["calls"])


@pytest.mark.parametrize(("window", "named"), BAD_WINDOWS.values(), ids=list(BAD_WINDOWS))
def test_bucket_medians_refuses_a_bad_window_before_any_request(client, window, named):
    before = _sent(client)
    with pytest.raises(ValidationError) as caught:
        bucket_medians(DEALS, "ev_revenue", "quarter", client=client, **window)
    assert caught.value.argument == named
    assert _sent(client) == before, "no request before the window is read"


@pytest.mark.parametrize(("window", "named"), BAD_WINDOWS.values(), ids=list(BAD_WINDOWS))
def test_a_dead_client_still_gets_the_validation_error(window, named):
    with dealframe.Client(
        base_url="http://127.0.0.1:1", public_token="a", private_key="b", retries=0
    ) as dead:
        with pytest.raises(ValidationError) as caught:
            bucket_medians(DEALS, "ev_revenue", "quarter", client=dead, **window)
    assert caught.value.argument == named


def test_a_good_window_with_a_client_still_asks_the_service(client):
    before = _sent(client)
    out = bucket_medians(DEALS, "ev_revenue", "quarter", "2024-01-01", client=client)
    assert _sent(client) > before  # the threshold and date are the service's
    assert out.attrs["methodology"]["date_range"]["from"] == "2024-01-01"


@pytest.mark.parametrize(
    ("filters", "named"),
    [
        ({"date_from": "2024-13-01"}, "date_from"),
        ({"date_to": "2024-13-01"}, "date_to"),
        ({"date_from": "2024-05-01", "date_to": "2024-01-01"}, "date_from"),
    ],
    ids=["from-no-day", "to-no-day", "from-after-to"],
)
def test_reconcile_refuses_a_bad_filter_window_before_any_request(sandbox, filters, named):
    # a client of its own: one that has read the discovery document sends nothing either way
    with dealframe.Client.for_sandbox(sandbox, cache_enabled=False, progress=False) as fresh:
        with pytest.raises(ValidationError) as caught:
            reconcile(fresh, "ev_revenue", "year", filters)
        assert caught.value.argument == named
        assert _sent(fresh) == 0
