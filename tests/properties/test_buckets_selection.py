"""Property tests: every statistic of bucket_medians is numpy's quantile of the values it claims.

For every convention, with NaN values, empty and tiny buckets, ties, all-equal buckets and
values large enough for the IQR to overflow, a plain per-bucket reference (pandas groupby and
``np.quantile`` with the convention's method) gives the same trimming bounds, the same kept
values (``explain=True``) and the same median, q1 and q3, bit for bit.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealframe.analytics import Conventions, bucket_medians, buckets
from dealframe.analytics.conventions import QUANTILE_METHODS

conventions = st.builds(
    Conventions,
    quantile_method=st.sampled_from(QUANTILE_METHODS),
    trim_scope=st.sampled_from(("bucket", "window")),
    n_counted=st.sampled_from(("before", "after")),
    stats_on=st.sampled_from(("kept", "all")),
    inclusive_bounds=st.booleans(),
    iqr_multiplier=st.sampled_from((0.0, 0.5, 1.5, 3.0)),
)

special = st.sampled_from((0.0, -0.0, 1.0, 1.0, 2.5, -3.0, 1e308, -1e308, 5e-324, np.nan))
value = st.one_of(
    special,
    st.integers(-4, 4).map(float),  # many ties
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)
MONTHS = pd.date_range("2024-01-01", periods=6, freq="MS")


@st.composite
def deals(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(0, 60))
    month = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    if draw(st.booleans()):  # all-equal values outside month 0
        values = [draw(special) if m == 0 else 7.0 for m in month]
    else:
        values = draw(st.lists(value, min_size=n, max_size=n))
    day = draw(st.lists(st.integers(0, 27), min_size=n, max_size=n))
    dates = (MONTHS[np.array(month, dtype=np.intp)] + pd.to_timedelta(day, unit="D")).as_unit("s")
    return pd.DataFrame({"deal_date": dates, "ev_revenue": np.array(values, dtype=np.float64)})


def reference(frame: pd.DataFrame, conv: Conventions, threshold: int) -> pd.DataFrame:
    """Per month: n, bounds, kept count and the three statistics, by the plainest numpy."""
    method, k = conv.quantile_method, conv.iqr_multiplier
    finite = frame[np.isfinite(frame["ev_revenue"])]
    all_values = finite["ev_revenue"].to_numpy()
    month_of = finite["deal_date"].dt.month.to_numpy()  # every date is in 2024
    if conv.trim_scope == "window" and len(finite):
        window = np.quantile(all_values, [0.25, 0.75], method=method)
    rows = []
    for start in MONTHS:
        values = all_values[month_of == start.month]
        trim = len(values) >= max(threshold, 1) if conv.n_counted == "before" else len(values) > 0
        lower = upper = np.nan
        kept = values
        if trim:
            q1, q3 = (
                window
                if conv.trim_scope == "window"
                else np.quantile(values, [0.25, 0.75], method=method)
            )
            lower, upper = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
            inside = (
                (values >= lower) & (values <= upper)
                if conv.inclusive_bounds
                else (values > lower) & (values < upper)
            )
            kept = values[inside]
        n = len(values) if conv.n_counted == "before" else len(kept)
        used = values if conv.stats_on == "all" else kept
        stats = [np.nan] * 3
        if not 0 < n < threshold and len(used):
            stats = np.quantile(used, [0.25, 0.5, 0.75], method=method).tolist()
        rows.append(
            {
                "n": n,
                "lower": lower,
                "upper": upper,
                "kept": len(kept),
                "q1": stats[0],
                "median": stats[1],
                "q3": stats[2],
            }
        )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("arranged", [False, True], ids=["as-given", "arranged-by-size"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=deals(), conv=conventions, threshold=st.integers(0, 6))
def test_statistics_are_numpy_quantiles_of_the_kept_values(frame, conv, threshold, arranged):
    # arranged: every bucket is arranged by size first, as large ones are (_by_size)
    conv = Conventions(**{**conv.to_dict(), "suppressed": "null_stats", "empty": "return"})
    args = ("ev_revenue", "month", "2024-01-01", "2024-06-30")
    with np.errstate(over="ignore", invalid="ignore"):
        expected = reference(frame, conv, threshold)
    from_size = 0 if arranged else buckets._BY_SIZE_FROM
    with mock.patch.object(buckets, "_BY_SIZE_FROM", from_size):
        out = bucket_medians(frame, *args, small_n_threshold=threshold, conventions=conv)
    audit = bucket_medians(
        frame, *args, small_n_threshold=threshold, conventions=conv, explain=True
    )
    assert out["n"].tolist() == expected["n"].tolist()
    for column in ("median", "q1", "q3"):
        np.testing.assert_array_equal(
            out[column].to_numpy(), expected[column].to_numpy(), err_msg=column
        )
    by_bucket = audit.groupby("bucket", sort=True)
    labels = out["bucket"].tolist()
    kept = by_bucket["kept"].sum().reindex(labels, fill_value=0)
    assert kept.tolist() == expected["kept"].tolist()
    for column in ("lower", "upper"):
        got = by_bucket[column].first().reindex(labels).to_numpy(dtype=float)
        np.testing.assert_array_equal(got, expected[column].to_numpy(), err_msg=column)
    assert out.attrs["outliers_trimmed"] == int(audit["kept"].eq(False).sum())
    assert (audit.groupby("bucket")["value"].apply(lambda v: v.is_monotonic_increasing)).all()


@settings(max_examples=100, deadline=None)
@given(frame=deals(), conv=conventions)
def test_explain_and_the_frame_are_one_computation(frame, conv):
    args = ("ev_revenue", "quarter", "2024-01-01", "2024-06-30")
    out = bucket_medians(frame, *args, conventions=conv)
    audit = bucket_medians(frame, *args, conventions=conv, explain=True)
    assert len(audit) == out.attrs["total_deals"] == int(np.isfinite(frame["ev_revenue"]).sum())
    assert audit.attrs == out.attrs
    assert (frame.loc[audit.index, "ev_revenue"].to_numpy() == audit["value"].to_numpy()).all()
