"""Closed lists of values over real HTTP: a value outside one is refused before any request,
with the closest value named, and an aggregate frame is reconciled only by its own metric and
time bucket.

- Every closed-choice argument of the client, the analytics, the mirror and the currency
  helpers (``metric``, ``time_bucket``, ``on_ambiguous``, ``what``, ``entity``, ``shape``,
  ``Conventions`` fields, mirror ``entities``, ``to_usd`` ``fields``) is a ``ValidationError``
  naming the argument, listing the values and suggesting the closest one, case ignored
  (``'Quarter'`` -> ``'quarter'``), as the report and the CLI already do; no request is sent
  (counted at the drift proxy).
- ``reconcile_frames`` refuses a ``metric`` or ``time_bucket`` other than the one the
  aggregate's meta says (``service.attrs``), naming the argument and the frame's value,
  instead of reporting "0 of n buckets match".
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Proxy,
    direct,
    fresh_rules,
    proxy,
    via,
)

import dealframe
import dealframe.analytics as analytics
import dealframe.mirror as mirror
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def known(direct: Any) -> dict[str, Any]:
    """An investor id, a SKU, its current data and some deals, read without the proxy."""
    sku = direct.public.search().index[:1].tolist()
    return {
        "investor": direct.private.investors(limit=1)["id"].iloc[0],
        "sku": sku,
        "current": direct.public.current(sku),
        "deals": direct.private.deals(limit=50),
    }


def _calls(known: dict[str, Any], tmp: Path) -> dict[str, tuple[Callable[[Any], Any], str, str]]:
    """label -> (call on a client, argument named, value suggested)."""
    return {
        "aggregate metric": (lambda c: c.private.aggregate("evrevenue"), "metric", "ev_revenue"),
        "aggregate time_bucket": (
            lambda c: c.private.aggregate("ev_revenue", "Quarter"),
            "time_bucket",
            "quarter",
        ),
        "resolve on_ambiguous": (
            lambda c: c.private.resolve_companies(["Acme"], on_ambiguous="Best"),
            "on_ambiguous",
            "best",
        ),
        "investor_top what": (
            lambda c: c.private.investor_top(known["investor"], what="country"),
            "what",
            "countries",
        ),
        "lookup entity": (lambda c: c.private.lookup("compnies"), "entity", "companies"),
        "schema entity": (lambda c: c.private.schema("Investors"), "entity", "investors"),
        "page entity": (lambda c: c.private.page("transactons"), "entity", "transactions"),
        "time_series shape": (
            lambda c: c.public.time_series(known["sku"], shape="Long"),
            "shape",
            "long",
        ),
        "mirror.sync entities": (
            lambda c: mirror.sync(c, tmp / "mirror", ["compnies"]),
            "entities",
            "companies",
        ),
        "bucket_medians metric": (
            lambda c: analytics.bucket_medians(known["deals"], "evrevenue"),
            "metric",
            "ev_revenue",
        ),
        "bucket_medians time_bucket": (
            lambda c: analytics.bucket_medians(known["deals"], "ev_revenue", "Year"),
            "time_bucket",
            "year",
        ),
        "to_usd fields": (
            lambda c: dealframe.to_usd(known["current"], ["marketcaplcu"]),
            "fields",
            "marketCapLcu",
        ),
        "to_local fields": (
            lambda c: dealframe.to_local(known["current"], ["marketcap"]),
            "fields",
            "marketCap",
        ),
    }


CASES = [
    "aggregate metric",
    "aggregate time_bucket",
    "resolve on_ambiguous",
    "investor_top what",
    "lookup entity",
    "schema entity",
    "page entity",
    "time_series shape",
    "mirror.sync entities",
    "bucket_medians metric",
    "bucket_medians time_bucket",
    "to_usd fields",
    "to_local fields",
]


@pytest.mark.parametrize("label", CASES)
def test_a_value_outside_a_closed_list_names_the_closest_before_any_request(
    label: str, known: dict[str, Any], via: Any, proxy: Proxy, tmp_path: Path
) -> None:
    call, argument, closest = _calls(known, tmp_path)[label]
    with pytest.raises(ValidationError) as caught:
        call(via)
    assert caught.value.argument == argument
    assert f"(did you mean {closest!r}?)" in str(caught.value)
    assert proxy.count() == 0, proxy.seen


def test_the_words_of_each_message_are_kept(known: dict[str, Any], via: Any) -> None:
    """The suggestion is added to what each message said: the values are still listed."""
    with pytest.raises(ValidationError, match=r"expected one of ev_revenue, ev_ebitda, .*ebitda"):
        via.private.aggregate("evrevenue")
    with pytest.raises(ValidationError, match=r"expected 'none', 'best' or 'raise' \(did you"):
        via.private.resolve_companies(["Acme"], on_ambiguous="Best")
    with pytest.raises(ValidationError, match=r"expected 'wide' or 'long' \(did you mean 'long'"):
        via.public.time_series(known["sku"], shape="Long")
    with pytest.raises(ValidationError, match=r"local-currency columns \(ending in 'Lcu'\)"):
        dealframe.to_usd(known["current"], ["marketcaplcu"])


def test_a_value_close_to_none_is_refused_with_the_list_only(via: Any, proxy: Proxy) -> None:
    with pytest.raises(ValidationError) as caught:
        via.private.aggregate("ev_revenue", "fortnight")
    assert "did you mean" not in str(caught.value)
    assert "one of month, quarter, year, none" in str(caught.value)
    with pytest.raises(ValidationError, match="invalid entity"):
        via.private.lookup(3)
    assert proxy.count() == 0


def test_the_values_in_the_lists_are_still_taken(known: dict[str, Any], via: Any) -> None:
    """The check passes what it always passed (aliases too)."""
    assert len(via.private.lookup("deals")) > 0  # an alias of transactions
    assert len(via.private.aggregate("ev_revenue", "year")) > 0
    long = via.public.time_series(known["sku"], fields=["evRevenueNtm"], shape="long")
    assert list(long.columns[:2]) == ["sku", "field"]


@pytest.fixture(scope="module")
def by_year(direct: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The service's yearly ev_revenue aggregate and the deals of its window."""
    service = direct.private.aggregate("ev_revenue", "year")
    window = service.attrs["date_range"]
    deals = direct.private.deals(date_from=window["from"], date_to=window["to"])
    return service, deals


@pytest.mark.parametrize(
    ("metric", "time_bucket", "argument", "said"),
    [
        ("ev_revenue", "quarter", "time_bucket", "year"),
        ("ev_ebitda", "year", "metric", "ev_revenue"),
    ],
)
def test_reconcile_frames_refuses_another_metric_or_bucket_than_the_frames(
    by_year: tuple[pd.DataFrame, pd.DataFrame],
    metric: str,
    time_bucket: str,
    argument: str,
    said: str,
) -> None:
    service, deals = by_year
    with pytest.raises(ValidationError) as caught:
        analytics.reconcile_frames(service, deals, metric, time_bucket)
    assert caught.value.argument == argument
    assert repr(said) in caught.value.expected
    assert "service.attrs" in caught.value.expected


def test_reconcile_frames_by_the_frames_own_metric_and_bucket_matches(
    by_year: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    service, deals = by_year
    rec = analytics.reconcile_frames(service, deals, "ev_revenue", "year")
    assert rec.frame.attrs["buckets"] > 0
    assert rec.frame.attrs["matched"] == rec.frame.attrs["buckets"]


def test_reconcile_frames_lets_a_frame_without_the_echo_through(
    by_year: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    """A frame whose attrs do not say the metric (built by hand, a service that does not
    echo it) is no evidence: it is reconciled as asked."""
    service, deals = by_year
    bare = service.copy()
    bare.attrs = {k: v for k, v in service.attrs.items() if k not in ("metric", "time_bucket")}
    rec = analytics.reconcile_frames(bare, deals, "ev_revenue", "year")
    assert rec.frame.attrs["matched"] == rec.frame.attrs["buckets"] > 0
