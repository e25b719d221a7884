"""Two charts said what they could not know, on the sandbox's data over HTTP.

``deals_per_quarter`` and ``capital_raised`` counted a deal whose ``id`` repeats (a
concatenation of two pulls, the investments of several investors) once per row without a
word, where ``analytics.bucket_medians`` warns of it: they now warn alike, in its words.
``growth_vs_multiple`` wrote "correlation of growth with log multiple 0.00" when every
company had the same multiple (a correlation is undefined without spread; pandas' rounding
gave 0.00): its alt text now says it is undefined, and why.
"""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import dealframe
from dealframe import DealframeWarning
from dealframe.analytics import bucket_medians
from dealframe.plot import alt_text, capital_raised, deals_per_quarter, figure, growth_vs_multiple


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def deals(client: Any) -> pd.DataFrame:
    return client.private.deals(limit=300)


def _said(draw: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw()
    return [str(w.message) for w in caught if issubclass(w.category, DealframeWarning)]


@pytest.mark.parametrize("chart", [deals_per_quarter, capital_raised])
def test_repeated_deal_ids_are_said_as_bucket_medians_says_them(deals, chart):
    twice = pd.concat([deals, deals], ignore_index=True)
    assert _said(lambda: chart(deals, ax=figure()[1])) == []  # one row a deal: nothing said
    said = _said(lambda: chart(twice, ax=figure()[1]))
    assert len(said) == 1, said
    assert said[0].startswith(f"repeated deal ids: {deals['id'].nunique():,} among the ")
    assert 'pass deals.drop_duplicates("id") to count each deal once' in said[0]
    # the words of bucket_medians on the same rows: the chart's window holds every deal, and
    # bucket_medians uses the rows with a value (here every one)
    dates = pd.to_datetime(twice["deal_date"])
    window = (dates.min().date().isoformat(), dates.max().date().isoformat())
    valued = twice.assign(ev_revenue=1.0)
    theirs = _said(lambda: bucket_medians(valued, "ev_revenue", "quarter", *window))
    assert said == theirs


def test_repeated_ids_outside_the_window_are_not_said(deals):
    dates = pd.to_datetime(deals["deal_date"])
    last = dates.max()
    old = deals[dates < last - pd.Timedelta(days=100)]
    assert len(old)  # the sandbox's deals span more than 100 days
    frame = pd.concat([deals, old], ignore_index=True)
    window = ((last - pd.Timedelta(days=60)).date().isoformat(), last.date().isoformat())
    assert _said(lambda: deals_per_quarter(frame, window=window, ax=figure()[1])) == []


@pytest.fixture(scope="module")
def current(client: Any) -> pd.DataFrame:
    frame = client.public.current(client.public.search(regions=["Western Europe"]).index)
    assert len(frame) > 2
    return frame


@pytest.mark.parametrize(
    ("column", "value", "same"),
    [("evRevenueNtm", 5.0, "EV/Revenue NTM"), ("revenueGrowthNtmLtm", 12.0, "growth")],
)
def test_a_correlation_without_spread_is_said_undefined(current, column, value, same):
    flat = current.copy()
    flat[column] = value
    text = alt_text(growth_vs_multiple(flat, ax=figure()[1]))
    assert "correlation of growth with log multiple is undefined (every company has the same " in (
        text
    )
    assert f"the same {same})." in text
    assert "0.00" not in text


def test_a_correlation_with_spread_is_given(current):
    text = alt_text(growth_vs_multiple(current, ax=figure()[1]))
    assert "; correlation of growth with log multiple " in text
    assert "undefined" not in text
