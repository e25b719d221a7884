"""The sandbox's transactions aggregate against hand-computed expectations.

Expected statistics come from the ``statistics`` module and plain Python
(``statistics.quantiles(..., method="inclusive")`` is the linear, type-7
quantile numpy uses by default), never from the module under test.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics

import numpy as np
import pytest

from dealframe.sandbox.models.aggregate import (
    AggregateInputError,
    compute_aggregate,
    resolve_window,
)

AS_OF = dt.date(2026, 6, 30)


def ref_stats(vals: list[float]) -> tuple[float, float, float, int]:
    """Trimmed (median, q1, q3, n_trimmed) by the iqr_1.5 rule, in plain Python."""
    q1, _, q3 = statistics.quantiles(vals, n=4, method="inclusive")
    iqr = q3 - q1
    kept = [v for v in vals if q1 - 1.5 * iqr <= v <= q3 + 1.5 * iqr]
    k1, _, k3 = statistics.quantiles(kept, n=4, method="inclusive")
    return statistics.median(kept), k1, k3, len(vals) - len(kept)


def run(deals: list[tuple[str, float]], **kw):
    """Aggregate ``[(date, value), ...]`` with month buckets over 2024 H1 by default."""
    dates = np.array([d for d, _ in deals], dtype="datetime64[D]")
    values = np.array([v for _, v in deals], dtype=np.float64)
    args = dict(
        metric="ev_revenue",
        time_bucket="month",
        date_from=dt.date(2024, 1, 1),
        date_to=dt.date(2024, 6, 30),
        as_of=AS_OF,
    )
    args.update(kw)
    return compute_aggregate(dates, values, **args)


# --- labels -------------------------------------------------------------------------------


def labels(bucket: str, start: dt.date | None, end: dt.date | None) -> list[str]:
    """The bucket labels of an aggregate of no deals over ``[start, end]``."""
    data, _ = run([], time_bucket=bucket, date_from=start, date_to=end)
    return [b["bucket"] for b in data]


@pytest.mark.parametrize(
    ("bucket", "start", "end", "expected"),
    [
        ("month", "2023-11-15", "2024-02-01", ["2023-11", "2023-12", "2024-01", "2024-02"]),
        ("month", "2024-03-31", "2024-03-31", ["2024-03"]),
        ("quarter", "2023-12-31", "2024-04-01", ["2023-Q4", "2024-Q1", "2024-Q2"]),
        ("quarter", "2024-07-01", "2024-09-30", ["2024-Q3"]),
        ("quarter", "1969-11-01", "1970-01-01", ["1969-Q4", "1970-Q1"]),
        ("year", "2019-12-31", "2021-01-01", ["2019", "2020", "2021"]),
        ("year", "0999-01-01", "0999-12-31", ["0999"]),
        ("none", "2019-12-31", "2021-01-01", ["all"]),
    ],
)
def test_bucket_labels_cover_every_intersecting_period(bucket, start, end, expected):
    assert labels(bucket, dt.date.fromisoformat(start), dt.date.fromisoformat(end)) == expected


def test_bucket_labels_of_default_window_quarters():
    # 2021-06-30 is in 2021-Q2; 2026-06-30 in 2026-Q2: 5 years of quarters plus one.
    quarters = ["2021-Q2", "2021-Q3", "2021-Q4"]
    quarters += [f"{y}-Q{q}" for y in range(2022, 2026) for q in (1, 2, 3, 4)]
    quarters += ["2026-Q1", "2026-Q2"]
    assert labels("quarter", None, None) == quarters


@pytest.mark.parametrize(
    ("bucket", "expected"),
    [
        ("month", ["2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06"]),
        ("quarter", ["2024-Q1", "2024-Q2"]),
        ("year", ["2024"]),
        ("none", ["all"]),
    ],
)
def test_data_labels_are_every_period_of_the_window(bucket, expected):
    data, _ = run([("2024-02-10", 1.0)], time_bucket=bucket)
    assert [b["bucket"] for b in data] == expected


# --- statistics and trimming ----------------------------------------------------------------


def test_obvious_outlier_is_trimmed():
    vals = [10.0, 11.0, 12.0, 13.0, 14.0, 1000.0]
    data, meta = run([("2024-01-15", v) for v in vals])
    jan = data[0]
    median, q1, q3, trimmed = ref_stats(vals)
    assert trimmed == 1  # the plain-Python rule drops 1000
    assert jan["n"] == 6  # n counts before trimming
    assert jan["median"] == pytest.approx(12.0) == pytest.approx(median)
    assert jan["q1"] == pytest.approx(q1) and jan["q3"] == pytest.approx(q3)
    assert jan["warning"] is None
    assert meta["outliers_trimmed"] == 1 and meta["total_deals"] == 6


def test_statistics_are_bit_identical_to_numpy_linear_quantiles():
    vals = [0.3, 1.7, 2.2, 2.9, 3.1, 4.4, 5.0, 90.0]
    data, _ = run([("2024-04-02", v) for v in vals])
    _, _, _, trimmed = ref_stats(vals)
    q1, q3 = np.quantile(vals, [0.25, 0.75])
    kept = [v for v in vals if q1 - 1.5 * (q3 - q1) <= v <= q3 + 1.5 * (q3 - q1)]
    assert len(vals) - len(kept) == trimmed == 1
    apr = data[3]
    assert apr["bucket"] == "2024-04"
    assert (apr["q1"], apr["median"], apr["q3"]) == tuple(
        float(x) for x in np.quantile(kept, [0.25, 0.5, 0.75])
    )


def test_trim_bounds_are_inclusive():
    # Sorted: q1 = 1 (position 2), q3 = 3 (position 6), IQR 2, bounds [-2, 6].
    on_bounds = [-2.0, 0.0, 1.0, 2.0, 2.0, 2.0, 3.0, 5.0, 6.0]
    assert statistics.quantiles(on_bounds, n=4, method="inclusive") == [1.0, 2.0, 3.0]
    data, meta = run([("2024-01-01", v) for v in on_bounds])
    assert meta["outliers_trimmed"] == 0
    assert data[0]["median"] == 2.0 and data[0]["q1"] == 1.0 and data[0]["q3"] == 3.0

    past_bound = on_bounds[:-1] + [6.0001]
    data, meta = run([("2024-01-01", v) for v in past_bound])
    assert meta["outliers_trimmed"] == 1
    median, q1, q3, trimmed = ref_stats(past_bound)
    assert trimmed == 1
    assert data[0]["median"] == pytest.approx(median)
    assert data[0]["q1"] == pytest.approx(q1) and data[0]["q3"] == pytest.approx(q3)


def test_constant_values_are_all_kept():
    data, meta = run([("2024-05-05", 7.5)] * 9)
    assert meta["outliers_trimmed"] == 0
    assert (data[4]["median"], data[4]["q1"], data[4]["q3"], data[4]["n"]) == (7.5, 7.5, 7.5, 9)


def test_negative_values_are_kept_and_trimmed_like_any_other():
    vals = [-400.0, -3.0, -2.5, -2.0, -1.0, 0.5, 2.0]
    data, meta = run([("2024-06-30", v) for v in vals], metric="ev_ebitda")
    median, q1, q3, trimmed = ref_stats(vals)
    assert trimmed == 1 and meta["outliers_trimmed"] == 1
    assert data[5]["median"] == pytest.approx(median)
    assert data[5]["q1"] == pytest.approx(q1) and data[5]["q3"] == pytest.approx(q3)


# --- suppression, empty buckets, exclusions -------------------------------------------------


def test_small_n_buckets_are_suppressed_and_not_trimmed():
    deals = [("2024-02-03", v) for v in (1.0, 1.0, 1.0, 500.0)]  # n = 4 < 5
    deals += [("2024-03-03", v) for v in (1.0, 2.0, 3.0, 4.0, 5.0)]  # n = 5: reported
    data, meta = run(deals)
    feb, mar = data[1], data[2]
    assert feb == {
        "bucket": "2024-02",
        "n": 4,
        "median": None,
        "q1": None,
        "q3": None,
        "warning": "small_n",
    }
    assert mar["n"] == 5 and mar["warning"] is None
    assert mar["median"] == statistics.median([1.0, 2.0, 3.0, 4.0, 5.0])
    assert meta["total_deals"] == 9 and meta["outliers_trimmed"] == 0


def test_small_n_threshold_is_a_parameter_and_reported():
    data, meta = run([("2024-02-03", v) for v in (1.0, 2.0, 3.0)], small_n_threshold=3)
    assert data[1]["median"] == 2.0 and data[1]["warning"] is None
    assert meta["methodology"]["small_n_threshold"] == 3


def test_empty_buckets_are_returned_in_order():
    data, meta = run([("2024-03-10", 1.0)])
    assert [b["bucket"] for b in data] == [f"2024-{m:02d}" for m in range(1, 7)]
    for b in data:
        if b["bucket"] != "2024-03":
            assert b == {
                "bucket": b["bucket"],
                "n": 0,
                "median": None,
                "q1": None,
                "q3": None,
                "warning": "empty",
            }
    assert data[2]["warning"] == "small_n" and data[2]["n"] == 1
    assert meta["methodology"]["empty_buckets_returned"] is True


def test_no_deals_at_all_gives_only_empty_buckets():
    data, meta = run([])
    assert len(data) == 6 and all(b["warning"] == "empty" for b in data)
    assert meta["total_deals"] == 0 and meta["outliers_trimmed"] == 0


def test_nan_and_infinite_values_are_excluded():
    vals = [1.0, 2.0, float("nan"), 3.0, float("inf"), 4.0, float("-inf"), 5.0, 6.0]
    data, meta = run([("2024-01-20", v) for v in vals])
    finite = [v for v in vals if np.isfinite(v)]
    assert data[0]["n"] == len(finite) == 6
    assert data[0]["median"] == pytest.approx(statistics.median(finite))
    assert meta["total_deals"] == 6


def test_nat_dates_are_excluded():
    dates = np.array(["2024-01-02", "NaT", "2024-01-03"], dtype="datetime64[D]")
    data, meta = compute_aggregate(
        dates,
        np.array([1.0, 2.0, 3.0]),
        metric="raised",
        time_bucket="none",
        date_from=dt.date(2024, 1, 1),
        date_to=dt.date(2024, 1, 31),
        as_of=AS_OF,
    )
    assert data[0]["n"] == 2 and meta["total_deals"] == 2


def test_total_deals_is_sum_of_n_and_outliers_trimmed_sums_buckets():
    rng = np.random.default_rng(3)
    deals = []
    for month in range(1, 7):
        vals = list(rng.lognormal(size=int(rng.integers(5, 30))))
        vals.append(1e6)  # one outlier per month
        deals += [
            (f"2024-{month:02d}-{int(d):02d}", float(v))
            for v, d in zip(vals, rng.integers(1, 29, len(vals)))
        ]
    data, meta = run(deals)
    assert meta["total_deals"] == sum(b["n"] for b in data) == len(deals)
    expected_trimmed = 0
    for b in data:
        vals = [v for d, v in deals if d.startswith(b["bucket"])]
        median, q1, q3, trimmed = ref_stats(vals)
        expected_trimmed += trimmed
        assert b["median"] == pytest.approx(median)
        assert b["q1"] == pytest.approx(q1) and b["q3"] == pytest.approx(q3)
    assert expected_trimmed >= 6
    assert meta["outliers_trimmed"] == expected_trimmed


# --- window -------------------------------------------------------------------------------


def test_window_bounds_are_inclusive():
    deals = [("2023-12-31", 1.0), ("2024-01-01", 2.0), ("2024-06-30", 3.0), ("2024-07-01", 4.0)]
    data, meta = run(deals, time_bucket="none")
    assert data[0]["n"] == 2 and meta["total_deals"] == 2
    assert meta["methodology"]["date_range"] == {"from": "2024-01-01", "to": "2024-06-30"}


@pytest.mark.parametrize(
    ("date_from", "date_to", "as_of", "expected"),
    [
        (None, None, "2026-06-30", ("2021-06-30", "2026-06-30")),
        (None, None, "2028-02-29", ("2023-02-28", "2028-02-29")),  # leap day maps to Feb 28
        (None, "2024-02-29", "2026-06-30", ("2019-02-28", "2024-02-29")),
        (None, "2020-03-01", "2026-06-30", ("2015-03-01", "2020-03-01")),
        ("2020-02-29", None, "2026-06-30", ("2020-02-29", "2026-06-30")),
        ("2022-01-01", "2022-01-01", "2026-06-30", ("2022-01-01", "2022-01-01")),
        ("2001-01-01", "2030-01-01", "2026-06-30", ("2001-01-01", "2030-01-01")),
    ],
)
def test_window_defaults(date_from, date_to, as_of, expected):
    parse = lambda s: None if s is None else dt.date.fromisoformat(s)  # noqa: E731
    start, end = resolve_window(parse(date_from), parse(date_to), parse(as_of))
    assert (start.isoformat(), end.isoformat()) == expected


def test_default_window_is_reported_and_applied():
    deals = [("2021-06-29", 1.0), ("2021-06-30", 2.0), ("2026-06-30", 3.0), ("2026-07-01", 4.0)]
    data, meta = run(deals, time_bucket="year", date_from=None, date_to=None)
    assert meta["methodology"]["date_range"] == {"from": "2021-06-30", "to": "2026-06-30"}
    assert [b["bucket"] for b in data] == ["2021", "2022", "2023", "2024", "2025", "2026"]
    assert meta["total_deals"] == 2


def test_date_from_after_date_to_is_an_input_error():
    with pytest.raises(AggregateInputError, match="date_from") as info:
        resolve_window(dt.date(2024, 5, 2), dt.date(2024, 5, 1), AS_OF)
    assert isinstance(info.value, ValueError)
    assert info.value.field == "filters.date_from"
    with pytest.raises(AggregateInputError, match="date_from"):
        run([], date_from=dt.date(2027, 1, 1), date_to=None)  # date_to defaults to as_of


@pytest.mark.parametrize(
    ("kw", "field"), [({"metric": "price"}, "metric"), ({"time_bucket": "week"}, "time_bucket")]
)
def test_unknown_metric_or_bucket_is_an_input_error(kw, field):
    with pytest.raises(AggregateInputError, match=field):
        run([("2024-01-01", 1.0)], **kw)


def test_mismatched_array_lengths_are_an_input_error():
    with pytest.raises(AggregateInputError):
        compute_aggregate(
            np.array(["2024-01-01"], dtype="datetime64[D]"),
            np.array([1.0, 2.0]),
            metric="revenue",
            time_bucket="none",
            date_from=None,
            date_to=None,
            as_of=AS_OF,
        )


# --- wire shape ---------------------------------------------------------------------------


def test_meta_shape_and_json_ready_output():
    deals = [("2024-01-02", float(v)) for v in range(1, 8)]
    data, meta = run(deals, metric="valuation", time_bucket="quarter")
    assert meta == {
        "metric": "valuation",
        "time_bucket": "quarter",
        "total_deals": 7,
        "outliers_trimmed": 0,
        "methodology": {
            "small_n_threshold": 5,
            "outlier_rule": "iqr_1.5",
            "default_date_range_years": 5,
            "empty_buckets_returned": True,
            "date_range": {"from": "2024-01-01", "to": "2024-06-30"},
        },
    }
    assert [b["bucket"] for b in data] == ["2024-Q1", "2024-Q2"]
    for b in data:
        assert type(b["n"]) is int
        for key in ("median", "q1", "q3"):
            assert b[key] is None or type(b[key]) is float
    assert json.loads(json.dumps({"data": data, "meta": meta})) == {"data": data, "meta": meta}


def test_datetime64_of_other_units_is_accepted():
    dates = np.array(["2024-01-31T23:59:59", "2024-02-01T00:00:00"], dtype="datetime64[s]")
    data, _ = compute_aggregate(
        dates,
        np.array([1.0, 2.0]),
        metric="ebitda",
        time_bucket="month",
        date_from=dt.date(2024, 1, 1),
        date_to=dt.date(2024, 2, 29),
        as_of=AS_OF,
    )
    assert [(b["bucket"], b["n"]) for b in data] == [("2024-01", 1), ("2024-02", 1)]


def test_large_cohort_matches_plain_python_reference():
    rng = np.random.default_rng(11)
    n = 3000
    days = np.datetime64("2019-01-01") + rng.integers(0, 6 * 365, n)
    vals = rng.lognormal(1.0, 1.0, n)
    vals[rng.random(n) < 0.02] *= 40
    vals[rng.random(n) < 0.1] = np.nan
    start, end = dt.date(2020, 2, 15), dt.date(2024, 11, 3)
    data, meta = compute_aggregate(
        days,
        vals,
        metric="ev_revenue",
        time_bucket="quarter",
        date_from=start,
        date_to=end,
        as_of=AS_OF,
    )
    by_label: dict[str, list[float]] = {}
    for d, v in zip(days.tolist(), vals.tolist()):
        if start <= d <= end and v == v:
            by_label.setdefault(f"{d.year}-Q{(d.month - 1) // 3 + 1}", []).append(v)
    trimmed_total = 0
    for b in data:
        vals_b = by_label.get(b["bucket"], [])
        assert b["n"] == len(vals_b)
        if len(vals_b) >= 5:
            median, q1, q3, trimmed = ref_stats(vals_b)
            trimmed_total += trimmed
            assert b["median"] == pytest.approx(median, rel=1e-12)
            assert b["q1"] == pytest.approx(q1, rel=1e-12)
            assert b["q3"] == pytest.approx(q3, rel=1e-12)
    assert set(by_label) <= {b["bucket"] for b in data}
    assert meta["outliers_trimmed"] == trimmed_total > 0
