"""Unit tests of dealframe.analytics.buckets on small hand-computed cases.

Expected numbers are computed here with plain Python (the ``statistics`` module), never with
the code under test. ``statistics.quantiles(method="inclusive")`` is numpy's "linear" (type 7)
and ``method="exclusive"`` is numpy's "weibull" (type 6).
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
import warnings

import numpy as np
import pandas as pd
import pytest

from dealframe.analytics import Conventions, bucket_medians, resolve_window
from dealframe.analytics.conventions import QUANTILE_METHODS
from dealframe.errors import ValidationError


def deals_of(dates, values, **extra):
    """A frame shaped like the client's deals (deal_date + metric columns)."""
    frame = pd.DataFrame(
        {"deal_date": pd.to_datetime(list(dates)), "ev_revenue": list(values), **extra}
    )
    return frame


def quartiles(values, method="inclusive"):
    q1, _, q3 = statistics.quantiles(values, n=4, method=method)
    return q1, q3


def trimmed_stats(values, k=1.5, method="inclusive"):
    """(kept, median, q1, q3) of the IQR rule with inclusive bounds, in plain Python."""
    q1, q3 = quartiles(values, method)
    low, high = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
    kept = [v for v in values if low <= v <= high]
    kq1, kq3 = quartiles(kept, method) if len(kept) > 1 else (kept[0], kept[0])
    return kept, statistics.median(kept), kq1, kq3


# ------------------------------------------------------------------------------------------
# the sandbox's conventions
# ------------------------------------------------------------------------------------------


def test_one_bucket_with_an_outlier_matches_statistics():
    values = [1.0, 2.5, 3.0, 3.5, 4.0, 4.25, 5.0, 60.0]
    deals = deals_of(["2024-02-10"] * len(values), values)
    out = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-03-31")
    kept, median, q1, q3 = trimmed_stats(values)
    assert len(kept) == 7  # 60 is outside the upper bound
    row = out.iloc[0]
    assert row["bucket"] == "2024-Q1"
    assert row["n"] == len(values)  # n counts before trimming
    assert row["median"] == pytest.approx(median)
    assert row["q1"] == pytest.approx(q1)
    assert row["q3"] == pytest.approx(q3)
    assert pd.isna(row["warning"])
    assert out.attrs["total_deals"] == 8
    assert out.attrs["outliers_trimmed"] == 1


def test_several_buckets_in_order_with_empty_and_small_ones():
    dates = ["2023-11-03"] * 6 + ["2024-01-15"] * 2 + ["2024-03-31"]
    values = [10, 11, 12, 13, 14, 100, 7, 8, 9]
    deals = deals_of(dates, values)
    out = bucket_medians(deals, "ev_revenue", "month", "2023-11-01", "2024-03-31")
    assert out["bucket"].tolist() == ["2023-11", "2023-12", "2024-01", "2024-02", "2024-03"]
    assert out["n"].tolist() == [6, 0, 2, 0, 1]
    assert out["warning"].tolist()[1:] == ["empty", "small_n", "empty", "small_n"]
    assert pd.isna(out["warning"].iloc[0])
    assert out.loc[1:, ["median", "q1", "q3"]].isna().all().all()
    assert out["median"].iloc[0] == pytest.approx(trimmed_stats(values[:6])[1])
    assert out.attrs["total_deals"] == 9
    # small buckets are not trimmed: only the 100 in November goes
    assert out.attrs["outliers_trimmed"] == 1


def test_result_types_and_meta():
    deals = deals_of(["2024-05-01"] * 5, [1.0, 2.0, 3.0, 4.0, 5.0])
    out = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-12-31")
    assert list(out.columns) == [
        "bucket",
        "period_start",
        "period_end",
        "n",
        "median",
        "q1",
        "q3",
        "warning",
    ]
    assert out["bucket"].dtype == "str"
    assert out["n"].dtype == "Int64"
    for column in ("median", "q1", "q3"):
        assert out[column].dtype == np.float64
    assert pd.api.types.is_datetime64_dtype(out["period_start"])
    starts = ["2024-01-01", "2024-04-01", "2024-07-01", "2024-10-01"]
    ends = ["2024-03-31", "2024-06-30", "2024-09-30", "2024-12-31"]
    assert out["period_start"].tolist() == list(pd.to_datetime(starts))
    assert out["period_end"].tolist() == list(pd.to_datetime(ends))
    meta = out.attrs
    assert meta["metric"] == "ev_revenue" and meta["time_bucket"] == "quarter"
    assert meta["methodology"] == {
        "small_n_threshold": 5,
        "outlier_rule": "iqr_1.5",
        "default_date_range_years": 5,
        "empty_buckets_returned": True,
        "date_range": {"from": "2024-01-01", "to": "2024-12-31"},
    }
    assert Conventions(**meta["conventions"]) == Conventions()


@pytest.mark.parametrize(
    ("bucket", "labels"),
    [
        ("month", ["2023-12", "2024-01", "2024-02"]),
        ("quarter", ["2023-Q4", "2024-Q1"]),
        ("year", ["2023", "2024"]),
        ("none", ["all"]),
    ],
)
def test_labels_cover_every_period_intersecting_the_window(bucket, labels):
    deals = deals_of(["2024-01-10"], [1.0])
    out = bucket_medians(deals, "ev_revenue", bucket, "2023-12-31", "2024-02-01")
    assert out["bucket"].tolist() == labels
    assert out["n"].sum() == 1


def test_metric_names_map_to_the_client_columns():
    deals = pd.DataFrame(
        {
            "deal_date": pd.to_datetime(["2024-01-02"] * 5),
            "deal_valuation": [5.0, 1.0, 3.0, 2.0, 4.0],
            "ev_revenue": [np.nan] * 5,
        }
    )
    out = bucket_medians(deals, "valuation", "none", "2024-01-01", "2024-01-31")
    assert out["median"].iloc[0] == 3.0
    empty = bucket_medians(deals, "ev_revenue", "none", "2024-01-01", "2024-01-31")
    assert empty["n"].iloc[0] == 0 and empty["warning"].iloc[0] == "empty"


def test_value_column_overrides_the_mapping():
    frame = pd.DataFrame({"when": pd.to_datetime(["2024-01-02"] * 5), "x": [9, 7, 8, 6, 5]})
    out = bucket_medians(
        frame, "custom", "none", "2024-01-01", "2024-01-31", date_column="when", value_column="x"
    )
    assert out["median"].iloc[0] == statistics.median([9, 7, 8, 6, 5])
    assert out.attrs["metric"] == "custom"


# ------------------------------------------------------------------------------------------
# edge cases
# ------------------------------------------------------------------------------------------


def test_bucket_of_one_value():
    deals = deals_of(["2024-01-02"], [4.2])
    suppressed = bucket_medians(deals, "ev_revenue", "none", "2024-01-01", "2024-01-31")
    assert suppressed["n"].iloc[0] == 1 and suppressed["warning"].iloc[0] == "small_n"
    shown = bucket_medians(
        deals, "ev_revenue", "none", "2024-01-01", "2024-01-31", small_n_threshold=1
    )
    assert shown[["median", "q1", "q3"]].iloc[0].tolist() == [4.2, 4.2, 4.2]
    assert shown.attrs["outliers_trimmed"] == 0


def test_all_equal_values_have_zero_iqr_and_keep_everything():
    deals = deals_of(["2024-01-02"] * 6, [3.0] * 6)
    out = bucket_medians(deals, "ev_revenue", "none", "2024-01-01", "2024-01-31")
    assert out[["median", "q1", "q3"]].iloc[0].tolist() == [3.0, 3.0, 3.0]
    assert out.attrs["outliers_trimmed"] == 0


def test_zero_iqr_trims_any_other_value():
    values = [5.0, 5.0, 5.0, 5.0, 5.0, 6.0]
    q1, q3 = quartiles(values)
    assert q1 == q3 == 5.0
    out = bucket_medians(
        deals_of(["2024-01-02"] * 6, values), "ev_revenue", "none", "2024-01-01", "2024-01-31"
    )
    assert out.attrs["outliers_trimmed"] == 1
    assert out["n"].iloc[0] == 6
    assert out["median"].iloc[0] == 5.0


def test_values_exactly_on_the_bounds_are_kept():
    values = [-1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 7.0]
    q1, q3 = quartiles(values)
    assert (q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)) == (-1.0, 7.0)
    deals = deals_of(["2024-01-02"] * 7, values)
    out = bucket_medians(deals, "ev_revenue", "none", "2024-01-01", "2024-01-31")
    assert out.attrs["outliers_trimmed"] == 0
    assert out["median"].iloc[0] == statistics.median(values)
    exclusive = bucket_medians(
        deals,
        "ev_revenue",
        "none",
        "2024-01-01",
        "2024-01-31",
        conventions=Conventions(inclusive_bounds=False),
    )
    assert exclusive.attrs["outliers_trimmed"] == 2
    assert exclusive["median"].iloc[0] == statistics.median(values[1:-1])


def test_infinities_and_nulls_are_excluded_negative_values_kept():
    values = [-3.0, -1.0, 0.5, 2.0, 2.5, math.inf, -math.inf, np.nan, None]
    deals = deals_of(["2024-01-02"] * len(values), values)
    out = bucket_medians(deals, "ev_revenue", "none", "2024-01-01", "2024-01-31")
    finite = [-3.0, -1.0, 0.5, 2.0, 2.5]
    assert out["n"].iloc[0] == 5
    assert out.attrs["total_deals"] == 5
    assert out["median"].iloc[0] == pytest.approx(trimmed_stats(finite)[1])
    assert out["q1"].iloc[0] == pytest.approx(quartiles(finite)[0])


def test_window_edges_are_inclusive():
    dates = ["2023-12-31", "2024-01-01", "2024-03-31", "2024-04-01"]
    deals = deals_of(dates, [1.0, 2.0, 3.0, 4.0])
    out = bucket_medians(
        deals, "ev_revenue", "quarter", "2024-01-01", "2024-03-31", small_n_threshold=1
    )
    assert out["bucket"].tolist() == ["2024-Q1"]
    assert out["n"].iloc[0] == 2
    assert out["median"].iloc[0] == 2.5
    # a window starting mid-period still makes the whole period a bucket
    mid = bucket_medians(
        deals, "ev_revenue", "quarter", "2024-03-31", "2024-04-01", small_n_threshold=1
    )
    assert mid["bucket"].tolist() == ["2024-Q1", "2024-Q2"]
    assert mid["n"].tolist() == [1, 1]


def test_default_window_from_as_of_and_leap_day():
    assert resolve_window(as_of="2024-02-29") == (dt.date(2019, 2, 28), dt.date(2024, 2, 29))
    assert resolve_window(as_of=dt.date(2026, 6, 30)) == (
        dt.date(2021, 6, 30),
        dt.date(2026, 6, 30),
    )
    assert resolve_window(date_to="2024-02-29", conventions=Conventions(window_years=4)) == (
        dt.date(2020, 2, 29),
        dt.date(2024, 2, 29),
    )
    anchored = Conventions(window_anchor="period_start")
    for bucket, start in (
        ("quarter", (2019, 1, 1)),
        ("year", (2019, 1, 1)),
        ("month", (2019, 2, 1)),
        ("none", (2019, 2, 28)),
    ):
        window = resolve_window(as_of="2024-02-29", time_bucket=bucket, conventions=anchored)
        assert window[0] == dt.date(*start)
    deals = deals_of(["2019-02-27", "2019-02-28", "2024-02-29"], [1.0, 2.0, 3.0])
    out = bucket_medians(deals, "ev_revenue", "month", as_of="2024-02-29")
    assert out["bucket"].iloc[0] == "2019-02" and out["bucket"].iloc[-1] == "2024-02"
    assert len(out) == 61
    assert out.attrs["total_deals"] == 2
    assert out.attrs["methodology"]["date_range"] == {"from": "2019-02-28", "to": "2024-02-29"}


def test_window_starting_on_a_leap_day():
    deals = deals_of(["2024-02-28", "2024-02-29", "2024-03-01"], [1.0, 2.0, 3.0])
    out = bucket_medians(
        deals, "ev_revenue", "month", "2024-02-29", "2024-03-01", small_n_threshold=1
    )
    assert out["bucket"].tolist() == ["2024-02", "2024-03"]
    assert out["n"].tolist() == [1, 1]
    assert out["median"].tolist() == [2.0, 3.0]


def test_empty_window():
    deals = deals_of(["2020-01-01"], [1.0])
    out = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-06-30")
    assert out["n"].tolist() == [0, 0]
    assert out["warning"].tolist() == ["empty", "empty"]
    assert out.attrs["total_deals"] == 0 and out.attrs["outliers_trimmed"] == 0
    no_rows = bucket_medians(deals.iloc[:0], "ev_revenue", "year", "2024-01-01", "2024-06-30")
    assert no_rows["n"].tolist() == [0]


def test_all_buckets_small():
    deals = deals_of(["2024-01-05", "2024-02-05", "2024-02-06"], [1.0, 2.0, 300.0])
    out = bucket_medians(deals, "ev_revenue", "month", "2024-01-01", "2024-02-29")
    assert out["warning"].tolist() == ["small_n", "small_n"]
    assert out["n"].tolist() == [1, 2]
    assert out[["median", "q1", "q3"]].isna().all().all()
    assert out.attrs["total_deals"] == 3 and out.attrs["outliers_trimmed"] == 0


def test_deleted_rows_are_excluded_unless_asked():
    deals = deals_of(
        ["2024-01-02"] * 6,
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        deleted=[False, False, None, False, False, True],
    )
    out = bucket_medians(deals, "ev_revenue", "none", "2024-01-01", "2024-01-31")
    assert out["n"].iloc[0] == 5 and out["median"].iloc[0] == 3.0
    every = bucket_medians(
        deals, "ev_revenue", "none", "2024-01-01", "2024-01-31", include_deleted=True
    )
    assert every["n"].iloc[0] == 6 and every["median"].iloc[0] == 3.5


def test_string_dates_and_object_numbers_are_accepted():
    frame = pd.DataFrame(
        {"deal_date": ["2024-01-02"] * 5, "ev_revenue": [1, 2.5, None, 4, 5]}, dtype=object
    )
    out = bucket_medians(
        frame, "ev_revenue", "none", "2024-01-01", "2024-01-31", small_n_threshold=4
    )
    assert out["n"].iloc[0] == 4
    assert out["median"].iloc[0] == statistics.median([1, 2.5, 4, 5])


def test_unsorted_input_and_order_do_not_matter():
    rng = np.random.default_rng(3)
    values = rng.lognormal(size=200).round(3).tolist()
    dates = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 366, 200), unit="D")
    deals = pd.DataFrame({"deal_date": dates, "ev_revenue": values})
    out = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-12-31")
    shuffled = bucket_medians(
        deals.sample(frac=1, random_state=1), "ev_revenue", "quarter", "2024-01-01", "2024-12-31"
    )
    pd.testing.assert_frame_equal(out, shuffled)
    for quarter, row in zip(range(4), out.itertuples(), strict=True):
        in_quarter = [
            v for v, d in zip(values, dates, strict=True) if (d.month - 1) // 3 == quarter
        ]
        assert row.n == len(in_quarter)
        assert row.median == pytest.approx(trimmed_stats(in_quarter)[1])


# ------------------------------------------------------------------------------------------
# explain
# ------------------------------------------------------------------------------------------


def test_explain_lets_a_median_be_audited_by_hand():
    values = [1.0, 2.5, 3.0, 3.5, 4.0, 4.25, 5.0, 60.0, 2.0, 9.0]
    dates = ["2024-02-10"] * 8 + ["2024-05-01", "2023-01-01"]
    deals = deals_of(dates, values, id=[f"d{i}" for i in range(10)])
    deals.index = pd.Index([f"row{i}" for i in range(10)])
    audit = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-06-30", explain=True)
    assert list(audit.columns) == [
        "id",
        "date",
        "value",
        "bucket",
        "lower",
        "upper",
        "kept",
        "suppressed",
    ]
    assert len(audit) == 9  # the 2023 deal is outside the window
    assert audit.loc["row7", "kept"] == np.False_
    assert audit.loc["row7", "id"] == "d7"
    q1 = audit[audit["bucket"] == "2024-Q1"]
    assert q1["value"].is_monotonic_increasing
    kept_values = q1.loc[q1["kept"], "value"].tolist()
    assert statistics.median(kept_values) == trimmed_stats(values[:8])[1]
    b_q1, b_q3 = quartiles(values[:8])
    assert q1["lower"].iloc[0] == pytest.approx(b_q1 - 1.5 * (b_q3 - b_q1))
    assert q1["upper"].iloc[0] == pytest.approx(b_q3 + 1.5 * (b_q3 - b_q1))
    q2 = audit[audit["bucket"] == "2024-Q2"]
    assert q2["suppressed"].all() and q2["lower"].isna().all() and q2["kept"].all()
    assert audit.attrs["outliers_trimmed"] == 1


# ------------------------------------------------------------------------------------------
# conventions
# ------------------------------------------------------------------------------------------

BUCKET = [0.5, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 3.5, 4.0, 40.0, -30.0]


def _one_bucket(**conventions):
    deals = deals_of(["2024-01-02"] * len(BUCKET), BUCKET)
    return bucket_medians(
        deals,
        "ev_revenue",
        "none",
        "2024-01-01",
        "2024-01-31",
        conventions=Conventions(**conventions),
    )


def test_weibull_quantiles_match_statistics_exclusive():
    out = _one_bucket(quantile_method="weibull")
    kept, median, q1, q3 = trimmed_stats(BUCKET, method="exclusive")
    assert out["median"].iloc[0] == pytest.approx(median)
    assert out["q1"].iloc[0] == pytest.approx(q1)
    assert out["q3"].iloc[0] == pytest.approx(q3)
    assert out.attrs["outliers_trimmed"] == len(BUCKET) - len(kept)


def test_n_after_trimming_and_stats_on_all_values():
    kept = trimmed_stats(BUCKET)[0]
    after = _one_bucket(n_counted="after")
    assert after["n"].iloc[0] == len(kept) == 9
    on_all = _one_bucket(stats_on="all")
    assert on_all["median"].iloc[0] == statistics.median(BUCKET)
    assert on_all["q1"].iloc[0] == pytest.approx(quartiles(BUCKET)[0])
    assert on_all.attrs["outliers_trimmed"] == 2


def test_iqr_multiplier():
    out = _one_bucket(iqr_multiplier=100.0)
    assert out.attrs["outliers_trimmed"] == 0
    assert out.attrs["methodology"]["outlier_rule"] == "iqr_100"


def test_window_trim_scope_uses_one_pair_of_bounds():
    # bucket A is tight around 10, bucket B around 100: window bounds trim all of A's spread
    dates = ["2024-01-05"] * 6 + ["2024-02-05"] * 6
    values = [9.0, 10.0, 10.0, 10.0, 11.0, 30.0, 90.0, 100.0, 100.0, 100.0, 110.0, 300.0]
    deals = deals_of(dates, values)
    out = bucket_medians(
        deals,
        "ev_revenue",
        "month",
        "2024-01-01",
        "2024-02-29",
        conventions=Conventions(trim_scope="window"),
    )
    w_q1, w_q3 = quartiles(values)
    low, high = w_q1 - 1.5 * (w_q3 - w_q1), w_q3 + 1.5 * (w_q3 - w_q1)
    for month, chunk in enumerate((values[:6], values[6:])):
        kept = [v for v in chunk if low <= v <= high]
        assert out["median"].iloc[month] == statistics.median(kept)
    per_bucket = bucket_medians(deals, "ev_revenue", "month", "2024-01-01", "2024-02-29")
    assert per_bucket.attrs["outliers_trimmed"] == 2
    assert out.attrs["outliers_trimmed"] == sum(not (low <= v <= high) for v in values)


def test_dropping_suppressed_and_empty_buckets():
    deals = deals_of(["2024-01-05"] * 5 + ["2024-03-01"], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    out = bucket_medians(
        deals,
        "ev_revenue",
        "month",
        "2024-01-01",
        "2024-03-31",
        conventions=Conventions(suppressed="drop", empty="drop"),
    )
    assert out["bucket"].tolist() == ["2024-01"]
    assert out.attrs["total_deals"] == 6
    assert out.attrs["methodology"]["empty_buckets_returned"] is False


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"trim_scope": "global"}, "trim_scope"),
        ({"quantile_method": np.array(["linear"])}, "quantile_method"),
        ({"inclusive_bounds": 1}, "inclusive_bounds"),
        ({"window_years": 0}, "window_years"),
        ({"window_years": 10**30}, "window_years"),
        ({"iqr_multiplier": float("nan")}, "iqr_multiplier"),
        ({"iqr_multiplier": "1.5"}, "iqr_multiplier"),
    ],
)
def test_conventions_name_the_bad_field(kwargs, field):
    with pytest.raises(ValidationError) as caught:
        Conventions(**kwargs)
    assert caught.value.argument == f"Conventions.{field}"
    assert isinstance(caught.value, ValueError)  # callers catching ValueError keep working


def test_conventions_validation_and_variants():
    for bad in (
        {"quantile_methods": ("linear", "type7")},
        {"quantile_methods": "linear"},
        {"max_changes": -1},
        {"base": {"trim_scope": "window"}},
    ):
        with pytest.raises(ValidationError):
            list(Conventions.variants(**bad))
    variants = list(Conventions.variants())
    assert variants[0] == Conventions()
    assert len(set(variants)) == len(variants)
    assert len(variants) == 11 * 2**5
    first_changes = [len(v.describe()) for v in variants]
    assert first_changes == sorted(first_changes)
    assert all(len(v.describe()) <= 1 for v in Conventions.variants(max_changes=1))
    base = Conventions(empty="drop")
    assert all(v.empty == "drop" for v in Conventions.variants(base, quantile_methods=("linear",)))


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------

GOOD = deals_of(["2024-01-02"], [1.0])
JAN = ("2024-01-01", "2024-02-01")


def _call(deals=GOOD, metric="ev_revenue", bucket="quarter", window=JAN, **kwargs):
    return bucket_medians(deals, metric, bucket, *window, **kwargs)


@pytest.mark.parametrize(
    ("call", "argument", "text"),
    [
        (lambda: _call(metric="pe"), "metric", "ev_revenue, ev_ebitda"),
        (lambda: _call(bucket="week"), "time_bucket", "month, quarter, year, none"),
        (lambda: _call(metric="ebitda"), "deals", "deal_ebitda"),
        (lambda: _call(GOOD.assign(ev_revenue=["x"])), "ev_revenue", "numeric"),
        (lambda: _call(GOOD.assign(ev_revenue=[True])), "ev_revenue", "numeric"),
        (lambda: _call(window=("2024-03-01", "2024-02-01")), "date_from", "on or before"),
        (lambda: _call(window=("2024-13-01", "2024-02-01")), "date_from", "date"),
        (lambda: _call(GOOD.to_dict()), "deals", "DataFrame"),
        (lambda: _call(window=(None, None)), "as_of", "date_to"),
        (lambda: _call(window=("2024-01-01", None)), "as_of", "as_of"),
        (lambda: _call(as_of="2024-01-01", small_n_threshold=-1), "small_n_threshold", "integer"),
        (lambda: _call(conventions={"trim_scope": "window"}), "conventions", "Conventions"),
        (lambda: _call(metric=["ev_revenue"]), "metric", "ev_revenue"),
        (lambda: _call(bucket=np.array(["quarter"])), "time_bucket", "quarter"),
        (lambda: _call(date_column="when"), "deals", "'when'"),
        (lambda: _call(date_column=["deal_date"]), "deals", "deal_date"),
        (lambda: _call(GOOD.assign(ev_revenue=[1 + 2j])), "ev_revenue", "numeric"),
        (lambda: _call(GOOD.assign(deal_date=["yesterday"])), "deal_date", "dates"),
        (lambda: _call(pd.concat([GOOD, GOOD["ev_revenue"]], axis=1)), "deals", "one column"),
        (lambda: _call(explain="yes"), "explain", "True or False"),
        (lambda: _call(include_deleted=None), "include_deleted", "True or False"),
        (lambda: _call(small_n_threshold=2.5), "small_n_threshold", "integer"),
        (lambda: _call(client="http://localhost"), "client", "Client"),
        (lambda: _call(window=(None, "0003-01-01")), "date_to", "years after year 1"),
        (lambda: _call(window=(float("nan"), "2024-01-01")), "date_from", "date"),
        # a bad date given is named before the missing as_of/date_to
        (lambda: _call(window=("xx", None)), "date_from", "YYYY-MM-DD"),
        (lambda: _call(window=(2**64, None)), "date_from", "YYYY-MM-DD"),
        (lambda: _call(window=(None, None), as_of="later"), "as_of", "YYYY-MM-DD"),
        (lambda: _call(window=("2024-01-01", "2024-02-01"), as_of="later"), "as_of", "YYYY"),
    ],
)
def test_bad_input_raises_a_typed_error_naming_the_problem(call, argument, text):
    with pytest.raises(ValidationError) as caught:
        call()
    assert isinstance(caught.value, ValueError)
    assert caught.value.argument == argument
    assert text in str(caught.value)


# ------------------------------------------------------------------------------------------
# dates and speed
# ------------------------------------------------------------------------------------------


def test_timezone_aware_dates_use_their_calendar_day():
    deals = deals_of(["2024-03-31 23:30"] * 5, [1.0, 2.0, 3.0, 4.0, 5.0])
    deals["deal_date"] = deals["deal_date"].dt.tz_localize("UTC")
    out = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-06-30")
    assert out["n"].tolist() == [5, 0]


def test_agrees_with_the_groupby_apply_a_user_would_write():
    # Speed against this baseline is a benchmark figure (bucket_medians_speedup), not a test.
    rng = np.random.default_rng(5)
    size = 40_000
    deals = pd.DataFrame(
        {
            "deal_date": pd.Timestamp("2016-07-01")
            + pd.to_timedelta(rng.integers(0, 3650, size), unit="D"),
            "ev_revenue": rng.lognormal(1, 1, size),
        }
    )

    def user_apply():
        def trimmed(values):
            q1, q3 = values.quantile([0.25, 0.75])
            kept = values[values.between(q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1))]
            return pd.Series({"n": len(values), "median": kept.median()})

        return deals.groupby(deals["deal_date"].dt.to_period("Q"))["ev_revenue"].apply(trimmed)

    out = bucket_medians(deals, "ev_revenue", "quarter", "2016-07-01", "2026-06-30")
    expected = user_apply().unstack()
    assert np.allclose(out["median"].to_numpy(), expected["median"].to_numpy())
    assert out["n"].tolist() == expected["n"].astype(int).tolist()


def _user_quartiles(deals):
    """n, median, q1 and q3 of the trimmed values per quarter, as a pandas user writes it."""

    def trimmed(values):
        q1, q3 = values.quantile([0.25, 0.75])
        kept = values[values.between(q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1))]
        stats = kept.quantile([0.5, 0.25, 0.75]).tolist()
        return pd.Series({"n": len(values), "median": stats[0], "q1": stats[1], "q3": stats[2]})

    by_quarter = deals.groupby(deals["deal_date"].dt.to_period("Q"))["ev_revenue"]
    return by_quarter.apply(trimmed).unstack()


def test_a_large_frame_spread_over_the_cores_agrees_and_leaves_no_thread():
    # above the size from which the buckets are summarised on every core
    import threading

    from dealframe.analytics import buckets

    rng = np.random.default_rng(11)
    size = buckets._SPREAD_VALUES + 50_000
    deals = pd.DataFrame(
        {
            "deal_date": pd.Timestamp("2016-07-01")
            + pd.to_timedelta(rng.integers(0, 3652, size), unit="D"),
            "ev_revenue": rng.lognormal(1, 1, size) * np.where(rng.random(size) < 0.01, 40, 1),
        }
    )
    given = deals.copy()
    out = bucket_medians(deals, "ev_revenue", "quarter", "2016-07-01", "2026-06-30")
    pd.testing.assert_frame_equal(deals, given)  # its columns are read, never written
    expected = _user_quartiles(deals)
    assert out["n"].tolist() == expected["n"].astype(int).tolist()
    for column in ("median", "q1", "q3"):
        assert np.allclose(out[column].to_numpy(), expected[column].to_numpy(), rtol=1e-12)
    assert out.attrs["outliers_trimmed"] > 0
    assert not [t for t in threading.enumerate() if t.name.startswith("dealframe-buckets")]


@pytest.mark.parametrize(
    "conventions",
    [
        Conventions(),
        Conventions(trim_scope="window", inclusive_bounds=False),
        Conventions(stats_on="all", n_counted="after", quantile_method="hazen"),
    ],
    ids=["default", "window-exclusive", "all-after-hazen"],
)
@pytest.mark.parametrize("explain", [False, True])
def test_spread_and_serial_summaries_are_the_same(monkeypatch, conventions, explain):
    from dealframe.analytics import buckets

    rng = np.random.default_rng(3)
    size = 30_000
    values = rng.lognormal(1, 1, size)
    values[rng.random(size) < 0.02] *= 60
    deals = pd.DataFrame(
        {
            "deal_date": pd.Timestamp("2020-01-01")
            + pd.to_timedelta(rng.integers(0, 1461, size), unit="D"),
            "ev_revenue": values,
        }
    )
    kw = dict(conventions=conventions, explain=explain, small_n_threshold=5)
    serial = bucket_medians(deals, "ev_revenue", "month", "2020-01-01", "2023-12-31", **kw)
    monkeypatch.setattr(buckets, "_SPREAD_VALUES", 0)
    monkeypatch.setattr(buckets, "_cores", lambda: 2)
    spread = bucket_medians(deals, "ev_revenue", "month", "2020-01-01", "2023-12-31", **kw)
    pd.testing.assert_frame_equal(spread, serial)
    assert spread.attrs == serial.attrs
    if explain:  # the kept flags follow the rows they explain
        assert 0 < (~spread["kept"]).sum() < len(spread)


def test_a_bucket_arranged_by_size_holds_the_same_values_roughly_in_order():
    from dealframe.analytics.buckets import _by_size

    rng = np.random.default_rng(5)
    plain = rng.lognormal(1, 0.8, 5_000) * np.where(rng.random(5_000) < 0.01, 40, 1)
    special = [0.0, -0.0, 5e-324, -5e-324, 1e308, -1e308, -3.0, 2.5, 2.5, 7.0]
    mixed = np.concatenate([plain - 3, special])
    for values in (plain, mixed, np.array(special), np.full(100, 7.0), np.array([1.0])):
        arranged = _by_size(values)
        assert arranged is not values
        np.testing.assert_array_equal(np.sort(arranged), np.sort(values))  # the same values
    ranks = np.argsort(np.argsort(_by_size(plain)))
    assert np.corrcoef(ranks, np.arange(len(plain)))[0, 1] > 0.99  # roughly ascending
    assert _by_size(np.array([1e9, 3.0, 0.01, 70.0])).tolist() == [0.01, 3.0, 70.0, 1e9]


@pytest.mark.parametrize("method", QUANTILE_METHODS)
def test_buckets_arranged_by_size_give_the_same_frames(monkeypatch, method):
    """Arranging a bucket by size before numpy selects its quantiles changes no statistic,
    bound, count or interval, bit for bit, for every quantile method."""
    from dealframe.analytics import buckets

    rng = np.random.default_rng(8)
    size = 9_000
    values = np.round(rng.lognormal(1, 1, size), 2) - 2  # ties, negatives
    values[rng.random(size) < 0.02] *= 80
    values[:4] = (0.0, -0.0, 1e300, -1e300)
    deals = pd.DataFrame(
        {
            "deal_date": pd.Timestamp("2023-01-01")
            + pd.to_timedelta(rng.integers(0, 730, size), unit="D"),
            "ev_revenue": values,
        }
    )
    args = ("ev_revenue", "year", "2023-01-01", "2024-12-31")
    for conventions in (
        Conventions(quantile_method=method),
        Conventions(quantile_method=method, stats_on="all", n_counted="after", iqr_multiplier=0.5),
        Conventions(quantile_method=method, trim_scope="window", inclusive_bounds=False),
    ):
        kw = dict(conventions=conventions, ci=0.9, ci_resamples=50, rng=1)
        monkeypatch.setattr(buckets, "_BY_SIZE_FROM", 10**9)
        as_given = bucket_medians(deals, *args, **kw)
        monkeypatch.setattr(buckets, "_BY_SIZE_FROM", 0)
        arranged = bucket_medians(deals, *args, **kw)
        pd.testing.assert_frame_equal(arranged, as_given, check_exact=True)
        assert arranged.attrs == as_given.attrs


def test_rows_read_in_blocks_give_the_same_buckets(monkeypatch):
    """Dates are read a block of rows at a time: blocks of a few rows give the same frames,
    NaT, dates outside the window, deleted rows and NaN values included."""
    from dealframe.analytics import periods

    rng = np.random.default_rng(4)
    size = 1_000
    dates = pd.Timestamp("1969-06-01") + pd.to_timedelta(rng.integers(0, 400, size), unit="D")
    dates = dates + pd.to_timedelta(rng.integers(0, 86_400, size), unit="s")
    values = rng.lognormal(1, 1, size)
    values[rng.random(size) < 0.05] = np.nan
    deals = pd.DataFrame(
        {
            "deal_date": dates.where(rng.random(size) > 0.05),
            "ev_revenue": values,
            "deleted": rng.random(size) < 0.05,
        }
    )
    args = ("ev_revenue", "month", "1969-07-15", "1970-05-31")
    whole = bucket_medians(deals, *args)
    audit = bucket_medians(deals, *args, explain=True)
    monkeypatch.setattr(periods, "_BLOCK", 7)
    pd.testing.assert_frame_equal(bucket_medians(deals, *args), whole, check_exact=True)
    pd.testing.assert_frame_equal(bucket_medians(deals, *args, explain=True), audit)
    assert whole["n"].sum() == len(audit) > 0
    assert audit["date"].min() >= pd.Timestamp("1969-07-15")


def test_conventions_take_numpy_numbers():
    """Numbers from numpy (a frame's cell, a config read with numpy) are numbers: kept as
    Python numbers, equal to the same Python values."""
    made = Conventions(window_years=np.int64(3), iqr_multiplier=np.int64(2))
    assert made == Conventions(window_years=3, iqr_multiplier=2.0)
    assert type(made.window_years) is int and type(made.iqr_multiplier) is float
    assert Conventions(iqr_multiplier=np.float64(1.5)).outlier_rule == "iqr_1.5"
    for bad in ({"window_years": np.float64(3)}, {"window_years": np.bool_(True)}):
        with pytest.raises(ValidationError, match="window_years"):
            Conventions(**bad)


def test_several_bad_arguments_name_the_first_in_reading_order():
    """``ci`` before ``ci_resamples``; a missing column before a bad ``rng`` seed."""
    deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-05"]), "ev_revenue": [1.0]})
    with pytest.raises(ValidationError, match="invalid ci:"):
        bucket_medians(deals, "ev_revenue", ci=1.5, ci_resamples=0)
    with pytest.raises(ValidationError, match="date_column"):
        bucket_medians(deals, "ev_revenue", date_column="when", ci=0.9, rng="seed")


def test_explain_keeps_ids_that_are_not_text_as_they_are():
    """``explain=True`` gives text ids as ``str`` (for 0 rows too); other ids keep their dtype
    and values, so the explanation merges back onto the deals."""
    import uuid

    dates = pd.to_datetime(["2024-01-05"] * 6)
    values = [1.0, 2.0, 3.0, 4.0, 5.0, 100.0]
    ids = [uuid.UUID(int=i) for i in range(6)]
    for column in (pd.Series(ids, dtype=object), pd.Series(pd.Categorical(range(6)))):
        deals = pd.DataFrame({"id": column, "deal_date": dates, "ev_revenue": values})
        shown = bucket_medians(
            deals, "ev_revenue", "quarter", "2024-01-01", "2024-03-31", explain=True
        )
        assert shown["id"].dtype == column.dtype
        assert len(shown.merge(deals, on="id")) == 6
    text = pd.DataFrame(
        {"id": pd.Series(list("abcdef"), dtype=object), "deal_date": dates, "ev_revenue": values}
    )
    for window in (("2024-01-01", "2024-03-31"), ("2030-01-01", "2030-03-31")):  # N and 0 rows
        shown = bucket_medians(text, "ev_revenue", "quarter", *window, explain=True)
        assert str(shown["id"].dtype) == "str"


def test_explain_reads_arrow_ids_as_the_client_holds_them():
    """Ids read with ``dtype_backend="pyarrow"`` explain as the default reader's do: an Arrow
    dictionary of text is a categorical, Arrow text is ``str`` (no Arrow dtype in the output)."""
    import pyarrow as pa

    dates = pd.to_datetime(["2024-01-05"] * 6)
    values = [1.0, 2.0, 3.0, 4.0, 5.0, 100.0]
    text = pa.array(list("abcdef"))
    for arrow, expected in ((text.dictionary_encode(), "category"), (text, "str")):
        ids = pd.Series(pd.arrays.ArrowExtensionArray(arrow))
        deals = pd.DataFrame({"id": ids, "deal_date": dates, "ev_revenue": values})
        shown = bucket_medians(
            deals, "ev_revenue", "quarter", "2024-01-01", "2024-03-31", explain=True
        )
        assert str(shown["id"].dtype) == expected
        assert len(shown.merge(deals.astype({"id": shown["id"].dtype}), on="id")) == 6


@pytest.mark.parametrize("scope", ["bucket", "window"])
def test_values_near_the_float_limit_give_no_numpy_warning(scope):
    """Quartiles of ±1.6e308 overflow the IQR bounds to infinity: read as no trimming bound,
    without a RuntimeWarning (or, under ``np.seterr(all="raise")``, a bare FloatingPointError)."""
    deals = deals_of(["2024-01-05", "2024-01-06", "2024-04-05"], [-1.6e308, 1.6e308, 1.6e308])
    old = np.seterr(all="raise")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = bucket_medians(
                deals,
                "ev_revenue",
                "quarter",
                "2024-01-01",
                "2024-06-30",
                small_n_threshold=1,
                conventions=Conventions(trim_scope=scope),
            )
    finally:
        np.seterr(**old)
    assert out["n"].tolist() == [2, 1]


@pytest.mark.parametrize("n", [3_000, 250_000], ids=["one-thread", "helper-threads"])
def test_the_callers_numpy_error_settings_change_nothing(n):
    """Subnormal values underflow in the trimming bounds: with numpy set to raise on every
    floating-point error, small frames (the calling thread) and large ones (helper threads,
    which have numpy's defaults) give the same frame as with numpy's defaults."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "deal_date": np.datetime64("2020-01-01")
            + rng.integers(0, 700, n).astype("timedelta64[D]"),
            "ev_revenue": rng.choice([5e-324, -5e-324, 1e-310, 0.0], n) * rng.integers(1, 5, n),
        }
    )
    expected = bucket_medians(frame, "ev_revenue", "month", "2020-01-01", "2021-12-31")
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        got = bucket_medians(frame, "ev_revenue", "month", "2020-01-01", "2021-12-31")
    pd.testing.assert_frame_equal(got, expected)


def test_a_zero_statistic_is_positive_zero_whatever_the_row_order():
    """-0.0 and 0.0 compare equal, so which one numpy selects depends on the values' order;
    the frame does not (a CSV writes ``-0.0``): every zero statistic and bound is +0.0."""
    rng = np.random.default_rng(0)
    n = 2_500
    frame = pd.DataFrame(
        {
            "deal_date": np.datetime64("2024-01-02")
            + rng.integers(0, 20, n).astype("timedelta64[D]"),
            "ev_revenue": rng.choice([-0.0, 0.0, 1.0], n, p=[0.4, 0.4, 0.2]),
        }
    )
    for seed in range(6):
        shuffled = frame.sample(frac=1, random_state=seed)
        out = bucket_medians(
            shuffled, "ev_revenue", "quarter", "2024-01-01", "2024-03-31", ci=0.9, rng=0
        )
        for c in ("median", "q1", "q3", "median_low", "median_high"):
            assert out.loc[0, c] == 0.0 and not np.signbit(out.loc[0, c]), (seed, c)
        explained = bucket_medians(
            shuffled, "ev_revenue", "quarter", "2024-01-01", "2024-03-31", explain=True
        )
        assert not np.signbit(explained[["lower", "upper"]].to_numpy()).any(), seed


def test_nanosecond_nat_is_no_day_of_the_window():
    """NaT of nanosecond columns floored to days is 1677-09-21: never counted in a window
    holding that day."""
    from dealframe.analytics.periods import bucket_of_rows

    times = np.array(["NaT", "1677-09-22"], dtype="datetime64[ns]")
    rows, _, counts = bucket_of_rows(
        times, np.ones(2, dtype=bool), (dt.date(1677, 9, 1), dt.date(1677, 9, 30)), "month"
    )
    assert rows.tolist() == [1, 0] and counts.tolist() == [1]
