"""Property tests: bucket_medians against a slow, obviously-correct reference.

The reference walks the window day by day to list the buckets, filters deals with plain loops
and computes quartiles with the ``statistics`` module: ``method="inclusive"`` is numpy's
"linear" (type 7), ``method="exclusive"`` numpy's "weibull" (type 6, identical for the 3 or
more values every unsuppressed bucket keeps). Values are multiples of 1/8 so that both sides
compute every quantile and bound exactly and ties at the bounds are decided the same way.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealframe.analytics import Conventions, bucket_medians

START = dt.date(2023, 1, 1)
SPAN_DAYS = 800


def label(day: dt.date, time_bucket: str) -> str:
    if time_bucket == "month":
        return f"{day.year:04d}-{day.month:02d}"
    if time_bucket == "quarter":
        return f"{day.year:04d}-Q{(day.month - 1) // 3 + 1}"
    if time_bucket == "year":
        return f"{day.year:04d}"
    return "all"


def reference(deals, time_bucket, date_from, date_to, threshold, method):
    """(rows, total_deals, outliers_trimmed) computed with loops and the statistics module."""
    labels = []
    day = date_from
    while day <= date_to:
        if label(day, time_bucket) not in labels:
            labels.append(label(day, time_bucket))
        day += dt.timedelta(days=1)
    rows, total, trimmed = [], 0, 0
    for name in labels:
        values = [
            v
            for d, v in deals
            if date_from <= d <= date_to and label(d, time_bucket) == name and math.isfinite(v)
        ]
        n = len(values)
        total += n
        if n == 0:
            rows.append((name, 0, None, None, None, "empty"))
        elif n < threshold:
            rows.append((name, n, None, None, None, "small_n"))
        else:
            q1, _, q3 = statistics.quantiles(values, n=4, method=method)
            low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
            kept = [v for v in values if low <= v <= high]
            trimmed += n - len(kept)
            k1, _, k3 = statistics.quantiles(kept, n=4, method=method)
            rows.append((name, n, statistics.median(kept), k1, k3, None))
    return rows, total, trimmed


_typical = st.integers(80, 160).map(lambda i: i / 8)  # a cluster: outliers stand out
_anything = st.integers(-800, 8000).map(lambda i: i / 8)  # dyadic: exact arithmetic both sides
_ties = st.integers(9, 12).map(float)  # many ties, zero IQRs
_not_finite = st.sampled_from([math.inf, -math.inf, math.nan])  # excluded
values_strategy = st.one_of(_typical, _typical, _typical, _ties, _anything, _not_finite)
_hot_days = st.integers(0, 45)  # most deals in a few weeks, so buckets reach the threshold
_any_day = st.integers(0, SPAN_DAYS)
_deal = st.tuples(
    st.one_of(_hot_days, _hot_days, _hot_days, _any_day).map(
        lambda k: START + dt.timedelta(days=k)
    ),
    values_strategy,
)
deals_strategy = st.one_of(st.lists(_deal, max_size=10), st.lists(_deal, min_size=25, max_size=150))
window_first = st.one_of(st.just(0), st.integers(0, SPAN_DAYS))
window_length = st.one_of(st.just(SPAN_DAYS), st.integers(0, SPAN_DAYS))


def frame_of(deals):
    return pd.DataFrame(
        {
            "deal_date": pd.to_datetime([d for d, _ in deals]).astype("datetime64[us]"),
            "ev_revenue": np.array([v for _, v in deals], dtype=np.float64),
        }
    )


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    deals=deals_strategy,
    time_bucket=st.sampled_from(["month", "quarter", "year", "none"]),
    first=window_first,
    length=window_length,
    threshold=st.integers(1, 8),
    method=st.sampled_from([("linear", "inclusive"), ("weibull", "exclusive")]),
)
def test_bucket_medians_match_the_reference(deals, time_bucket, first, length, threshold, method):
    numpy_method, statistics_method = method
    date_from = START + dt.timedelta(days=first)
    date_to = date_from + dt.timedelta(days=length)
    # a bucket of 1 or 2 kept values has no statistics.quantiles; keep the threshold >= 3
    threshold = max(threshold, 3)
    out = bucket_medians(
        frame_of(deals),
        "ev_revenue",
        time_bucket,
        date_from,
        date_to,
        small_n_threshold=threshold,
        conventions=Conventions(quantile_method=numpy_method),
    )
    rows, total, trimmed = reference(
        deals, time_bucket, date_from, date_to, threshold, statistics_method
    )
    assert out["bucket"].tolist() == [r[0] for r in rows]
    assert out["n"].tolist() == [r[1] for r in rows]
    assert [None if pd.isna(w) else w for w in out["warning"]] == [r[5] for r in rows]
    for column, position in (("median", 2), ("q1", 3), ("q3", 4)):
        got = out[column].tolist()
        for value, row in zip(got, rows, strict=True):
            if row[position] is None:
                assert math.isnan(value)
            else:
                assert value == pytest.approx(row[position], rel=1e-12, abs=1e-12)
    assert out.attrs["total_deals"] == total
    assert out.attrs["outliers_trimmed"] == trimmed


@settings(max_examples=40, deadline=None)
@given(deals=deals_strategy, time_bucket=st.sampled_from(["month", "quarter", "year"]))
def test_explain_rows_reproduce_every_bucket(deals, time_bucket):
    date_from, date_to = START, START + dt.timedelta(days=SPAN_DAYS)
    frame = frame_of(deals)
    out = bucket_medians(frame, "ev_revenue", time_bucket, date_from, date_to)
    audit = bucket_medians(frame, "ev_revenue", time_bucket, date_from, date_to, explain=True)
    assert len(audit) == out.attrs["total_deals"]
    assert (~audit["kept"]).sum() == out.attrs["outliers_trimmed"]
    # every deal in the audit is the frame's own row
    assert (frame.loc[audit.index, "ev_revenue"].to_numpy() == audit["value"].to_numpy()).all()
    trimmed = audit[~audit["suppressed"]]
    inside = (trimmed["value"] >= trimmed["lower"]) & (trimmed["value"] <= trimmed["upper"])
    assert (inside == trimmed["kept"]).all()
    for row in out.itertuples():
        mine = audit[audit["bucket"] == row.bucket]
        assert len(mine) == row.n
        if row.warning is None or pd.isna(row.warning):
            assert row.median == statistics.median(mine.loc[mine["kept"], "value"])


@settings(max_examples=30, deadline=None)
@given(deals=deals_strategy, seed=st.integers(0, 2**16))
def test_row_order_does_not_matter(deals, seed):
    frame = frame_of(deals)
    shuffled = frame.sample(frac=1.0, random_state=seed)
    window = (START, START + dt.timedelta(days=SPAN_DAYS))
    pd.testing.assert_frame_equal(
        bucket_medians(frame, "ev_revenue", "quarter", *window),
        bucket_medians(shuffled, "ev_revenue", "quarter", *window),
    )
