"""POST /transactions/aggregate over HTTP: rules 1-9 of the interface document (section 4.3) and
the decisions of docs/sandbox.md, on small cohorts whose statistics are computed here with the
``statistics`` module (``quantiles(method="inclusive")`` is the linear, type-7 interpolation).
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api, Truth, assert_bad_request, is_date

METRICS = {
    "ev_revenue": lambda d: d["deal_multiples"]["ev_revenue"],
    "ev_ebitda": lambda d: d["deal_multiples"]["ev_ebitda"],
    "valuation": lambda d: d["deal_valuation"],
    "raised": lambda d: d["deal_raised"],
    "revenue": lambda d: d["deal_revenue"],
    "ebitda": lambda d: d["deal_ebitda"],
}


@pytest.fixture(scope="module")
def as_of(sandbox) -> dt.date:
    return sandbox.state.config.as_of.date()


@pytest.fixture(scope="module")
def threshold(api) -> int:
    out = api.ok_post("/transactions/aggregate", {"metric": "valuation", "time_bucket": "none"})
    value = out["meta"]["methodology"]["small_n_threshold"]
    assert isinstance(value, int) and value >= 2
    return value


# ------------------------------------------------------------------ the reference computation


def label(day: str, bucket: str) -> str:
    d = dt.date.fromisoformat(day)
    return {
        "month": f"{d.year:04d}-{d.month:02d}",
        "quarter": f"{d.year:04d}-Q{(d.month - 1) // 3 + 1}",
        "year": f"{d.year:04d}",
        "none": "all",
    }[bucket]


def labels_between(lo: dt.date, hi: dt.date, bucket: str) -> list[str]:
    if bucket == "none":
        return ["all"]
    out: list[str] = []
    d = lo.replace(day=1)
    while d <= hi:
        lab = label(d.isoformat(), bucket)
        if lab not in out:
            out.append(lab)
        d = (d.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return out


def summarise(values: list[float], threshold: int) -> tuple[dict, int]:
    """Expected bucket statistics and the number of values trimmed."""
    n = len(values)
    if n == 0:
        return {"n": 0, "median": None, "q1": None, "q3": None, "warning": "empty"}, 0
    if n < threshold:
        return {"n": n, "median": None, "q1": None, "q3": None, "warning": "small_n"}, 0
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    kept = [v for v in values if lo <= v <= hi]
    if len(kept) == 1:
        k1 = med = k3 = kept[0]
    else:
        k1, med, k3 = statistics.quantiles(kept, n=4, method="inclusive")
    return {"n": n, "median": med, "q1": k1, "q3": k3, "warning": None}, n - len(kept)


def expected(deals: list[dict], metric: str, bucket: str, lo: dt.date, hi: dt.date, threshold: int):
    per: dict[str, list[float]] = {lab: [] for lab in labels_between(lo, hi, bucket)}
    for d in deals:
        v = METRICS[metric](d)
        if v is None or not lo.isoformat() <= d["deal_date"] <= hi.isoformat():
            continue
        per[label(d["deal_date"], bucket)].append(v)
    buckets, trimmed = [], 0
    for lab, values in per.items():
        stats, cut = summarise(values, threshold)
        buckets.append({"bucket": lab, **stats})
        trimmed += cut
    return buckets, trimmed


def assert_buckets(got: list[dict], want: list[dict]) -> None:
    assert [b["bucket"] for b in got] == [b["bucket"] for b in want]
    for g, w in zip(got, want):
        assert set(g) == {"bucket", "n", "median", "q1", "q3", "warning"}, g
        assert isinstance(g["n"], int) and g["n"] == w["n"], (g, w)
        assert g["warning"] == w["warning"], (g, w)
        for key in ("median", "q1", "q3"):
            if w[key] is None:
                assert g[key] is None, (g, w)
            else:
                assert isinstance(g[key], (int, float)) and g[key] == pytest.approx(
                    w[key], rel=1e-6, abs=1e-6
                ), (key, g, w)


def aggregate(api: Api, body: dict) -> dict:
    out = api.ok_post("/transactions/aggregate", body)
    assert set(out) == {"data", "meta"}
    meta = out["meta"]
    assert set(meta) == {"metric", "time_bucket", "total_deals", "outliers_trimmed", "methodology"}
    m = meta["methodology"]
    assert set(m) == {
        "small_n_threshold",
        "outlier_rule",
        "default_date_range_years",
        "empty_buckets_returned",
        "date_range",
    }
    assert (
        m["outlier_rule"] == "iqr_1.5"
        and m["default_date_range_years"] == 5
        and m["empty_buckets_returned"] is True
    )
    assert set(m["date_range"]) == {"from", "to"} and all(
        is_date(v) for v in m["date_range"].values()
    )
    assert meta["total_deals"] == sum(b["n"] for b in out["data"])
    return out


def window(out: dict) -> tuple[dt.date, dt.date]:
    r = out["meta"]["methodology"]["date_range"]
    return dt.date.fromisoformat(r["from"]), dt.date.fromisoformat(r["to"])


# ------------------------------------------------------------------ cohorts


def year_cohort(truth: Truth, metric: str, year: int, size: int, with_outlier: bool) -> list[dict]:
    """``size`` live deals of one year with a value (plus the year's largest value as an outlier)."""
    pool = [
        d
        for d in Truth.live(truth.deals)
        if d["deal_date"].startswith(str(year)) and METRICS[metric](d) is not None
    ]
    pool.sort(key=lambda d: d["id"])
    chosen = pool[:size]
    if with_outlier:
        values = sorted(METRICS[metric](d) for d in chosen)
        big = max(pool, key=lambda d: METRICS[metric](d))
        assert METRICS[metric](big) > values[-1] + 3 * (values[-1] - values[0])
        chosen = chosen + [big]
    return chosen


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.parametrize("bucket", ["year", "none", "quarter", "month"])
def test_small_cohort_each_label_format(api, truth, threshold, metric, bucket):
    cohort = year_cohort(
        truth, metric, 2024, 14, with_outlier=metric in ("ev_revenue", "valuation")
    )
    lo, hi = dt.date(2024, 1, 1), dt.date(2024, 12, 31)
    out = aggregate(
        api,
        {
            "metric": metric,
            "time_bucket": bucket,
            "filters": {
                "id": [d["id"] for d in cohort],
                "date_from": lo.isoformat(),
                "date_to": hi.isoformat(),
            },
        },
    )
    assert out["meta"]["metric"] == metric and out["meta"]["time_bucket"] == bucket
    assert window(out) == (lo, hi)
    want, trimmed = expected(cohort, metric, bucket, lo, hi, threshold)
    assert_buckets(out["data"], want)
    assert out["meta"]["outliers_trimmed"] == trimmed
    assert out["meta"]["total_deals"] == len(cohort)
    if bucket in ("year", "none") and metric in ("ev_revenue", "valuation"):
        assert trimmed >= 1  # the cohort really exercises the trimming


def test_quarter_and_month_show_small_n_and_empty(api, truth, threshold):
    # nine deals of the first half of 2023: the second half's quarters and months are empty
    pool = [
        d
        for d in Truth.live(truth.deals)
        if "2023-01" <= d["deal_date"][:7] <= "2023-05" and METRICS["valuation"](d) is not None
    ]
    cohort = sorted(pool, key=lambda d: d["id"])[:9]
    assert len(cohort) == 9
    lo, hi = dt.date(2023, 1, 1), dt.date(2023, 12, 31)
    for bucket in ("quarter", "month"):
        out = aggregate(
            api,
            {
                "metric": "valuation",
                "time_bucket": bucket,
                "filters": {
                    "id": [d["id"] for d in cohort],
                    "date_from": "2023-01-01",
                    "date_to": "2023-12-31",
                },
            },
        )
        want, _ = expected(cohort, "valuation", bucket, lo, hi, threshold)
        assert_buckets(out["data"], want)
        warnings = {b["warning"] for b in out["data"]}
        assert "empty" in warnings and "small_n" in warnings
        assert len(out["data"]) == (4 if bucket == "quarter" else 12)
        assert out["data"][0]["bucket"] == ("2023-Q1" if bucket == "quarter" else "2023-01")


def test_threshold_boundary(api, truth, threshold):
    pool = sorted(
        (
            d
            for d in Truth.live(truth.deals)
            if d["deal_date"].startswith("2022") and d["deal_raised"] is not None
        ),
        key=lambda d: d["id"],
    )
    for size in (threshold - 1, threshold):
        cohort = pool[:size]
        out = aggregate(
            api,
            {
                "metric": "raised",
                "time_bucket": "none",
                "filters": {
                    "id": [d["id"] for d in cohort],
                    "date_from": "2022-01-01",
                    "date_to": "2022-12-31",
                },
            },
        )
        (b,) = out["data"]
        assert b["n"] == size
        if size < threshold:
            assert (
                b["warning"] == "small_n"
                and b["median"] is None
                and b["q1"] is None
                and b["q3"] is None
            )
        else:
            assert b["warning"] is None and b["median"] is not None
            want, _ = expected(
                cohort, "raised", "none", dt.date(2022, 1, 1), dt.date(2022, 12, 31), threshold
            )
            assert_buckets(out["data"], want)


def test_one_target_over_a_wide_window(api, truth, threshold):
    live = Truth.live(truth.deals)
    counts: dict[str, int] = {}
    for d in live:
        if d["deal_valuation"] is not None:
            counts[d["target"]["id"]] = counts.get(d["target"]["id"], 0) + 1
    target = max(counts, key=lambda k: (counts[k], k))
    cohort = [d for d in live if d["target"]["id"] == target]
    lo, hi = dt.date(2000, 1, 1), dt.date(2026, 6, 30)
    for bucket in ("none", "year"):
        out = aggregate(
            api,
            {
                "metric": "valuation",
                "time_bucket": bucket,
                "filters": {
                    "target_id": [target],
                    "date_from": lo.isoformat(),
                    "date_to": hi.isoformat(),
                },
            },
        )
        want, trimmed = expected(cohort, "valuation", bucket, lo, hi, threshold)
        assert_buckets(out["data"], want)
        assert out["meta"]["outliers_trimmed"] == trimmed
        if bucket == "year":
            assert len(out["data"]) == 27 and out["data"][0]["bucket"] == "2000"


# ------------------------------------------------------------------ window defaults (rule 4)


def _minus_years(d: dt.date, years: int) -> dt.date:
    try:
        return d.replace(year=d.year - years)
    except ValueError:  # February 29
        return d.replace(year=d.year - years, day=28)


@pytest.mark.parametrize("bucket", ["year", "quarter"])
def test_default_five_year_window_over_everything(api, truth, as_of, threshold, bucket):
    out = aggregate(api, {"metric": "valuation", "time_bucket": bucket})
    lo, hi = _minus_years(as_of, 5), as_of
    assert window(out) == (lo, hi)
    want, trimmed = expected(Truth.live(truth.deals), "valuation", bucket, lo, hi, threshold)
    assert_buckets(out["data"], want)
    assert out["meta"]["outliers_trimmed"] == trimmed
    assert len(out["data"]) == (6 if bucket == "year" else 21)


def test_time_bucket_defaults_to_quarter(api):
    a = api.post("/transactions/aggregate", {"metric": "raised"})
    b = api.post("/transactions/aggregate", {"metric": "raised", "time_bucket": "quarter"})
    assert a.status_code == b.status_code == 200 and a.content == b.content


@pytest.mark.parametrize(
    "given, lo, hi",
    [
        ({"date_from": "2019-03-15"}, "2019-03-15", None),
        ({"date_to": "2022-08-31"}, "2017-08-31", "2022-08-31"),
        ({"date_to": "2024-02-29"}, "2019-02-28", "2024-02-29"),
        ({"date_from": "2020-01-01", "date_to": "2020-01-01"}, "2020-01-01", "2020-01-01"),
        (
            {"date_from": {"gte": "2018-05-05"}, "date_to": {"lte": "2019-05-04"}},
            "2018-05-05",
            "2019-05-04",
        ),
    ],
)
def test_window_rules(api, truth, as_of, threshold, given, lo, hi):
    out = aggregate(api, {"metric": "raised", "time_bucket": "month", "filters": given})
    lo_d = dt.date.fromisoformat(lo)
    hi_d = dt.date.fromisoformat(hi) if hi else as_of
    assert window(out) == (lo_d, hi_d)
    want, _ = expected(Truth.live(truth.deals), "raised", "month", lo_d, hi_d, threshold)
    assert_buckets(out["data"], want)


def test_window_ends_are_inclusive(api, truth, threshold):
    deal = next(
        d
        for d in Truth.live(truth.deals)
        if d["deal_raised"] is not None and d["deal_date"] > "2021"
    )
    day = deal["deal_date"]
    out = aggregate(
        api,
        {
            "metric": "raised",
            "time_bucket": "none",
            "filters": {"id": [deal["id"]], "date_from": day, "date_to": day},
        },
    )
    assert out["data"][0]["n"] == 1


# ------------------------------------------------------------------ filters and deleted deals


def test_filters_apply_and_include_deleted(api, truth, threshold):
    deleted = [d for d in truth.deals if d["deleted"] and d["deal_raised"] is not None]
    live = [d for d in Truth.live(truth.deals) if d["deal_raised"] is not None][:10]
    cohort = deleted[:3] + live
    ids = [d["id"] for d in cohort]
    lo, hi = dt.date(1990, 1, 1), dt.date(2026, 6, 30)
    base = {
        "metric": "raised",
        "time_bucket": "none",
        "filters": {"id": ids, "date_from": lo.isoformat(), "date_to": hi.isoformat()},
    }
    out = aggregate(api, base)
    want, _ = expected(live, "raised", "none", lo, hi, threshold)
    assert_buckets(out["data"], want)
    base["filters"]["include_deleted"] = True
    out = aggregate(api, base)
    want, _ = expected(cohort, "raised", "none", lo, hi, threshold)
    assert_buckets(out["data"], want)
    assert out["data"][0]["n"] == len(cohort)


def test_deal_type_and_region_filters(api, truth, as_of, threshold):
    filters = {
        "deal_type": ["Venture", "Early"],
        "target_region": ["North America", "Western Europe"],
    }
    out = aggregate(api, {"metric": "ev_revenue", "time_bucket": "year", "filters": filters})
    cohort = [
        d
        for d in Truth.live(truth.deals)
        if d["deal_type"] in ("Venture", "Early")
        and truth.target_of(d)["region"] in ("North America", "Western Europe")
    ]
    want, trimmed = expected(cohort, "ev_revenue", "year", _minus_years(as_of, 5), as_of, threshold)
    assert_buckets(out["data"], want)
    assert out["meta"]["outliers_trimmed"] == trimmed


def test_negative_ebitda_multiples_are_kept(api, truth, threshold):
    lo, hi = dt.date(2021, 6, 30), dt.date(2026, 6, 30)
    out = aggregate(
        api, {"metric": "ev_ebitda", "time_bucket": "none", "filters": {"ev_ebitda_max": 0}}
    )
    cohort = [
        d
        for d in Truth.live(truth.deals)
        if d["deal_multiples"]["ev_ebitda"] is not None and d["deal_multiples"]["ev_ebitda"] <= 0
    ]
    want, _ = expected(cohort, "ev_ebitda", "none", lo, hi, threshold)
    assert want[0]["n"] > 0
    assert_buckets(out["data"], want)


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "metric"),
        ({"time_bucket": "year"}, "metric"),
        ({"metric": "ebit"}, "metric"),
        ({"metric": "Valuation"}, "metric"),
        ({"metric": 3}, "metric"),
        ({"metric": "valuation", "time_bucket": "week"}, "time_bucket"),
        ({"metric": "valuation", "time_bucket": None}, "time_bucket"),
        ({"metric": "valuation", "bucket": "year"}, "bucket"),
        ({"metric": "valuation", "filters": {"name": "x"}}, "name"),
        ({"metric": "valuation", "filters": {"deal_type": ["Nope"]}}, "deal_type"),
        (
            {
                "metric": "valuation",
                "filters": {"date_from": "2022-01-01", "date_to": "2021-01-01"},
            },
            "date_from",
        ),
        ({"metric": "valuation", "filters": {"date_from": "2022-13-01"}}, "date_from"),
        ({"metric": "valuation", "filters": []}, "filters"),
        ({"metric": "valuation", "limit": 5}, "limit"),
    ],
)
def test_bad_aggregate_bodies(api, body, field):
    assert_bad_request(api.post("/transactions/aggregate", body), field)


@pytest.mark.parametrize("raw", [b"", b"[]", b"null", b"{", b'"valuation"'])
def test_aggregate_needs_a_json_object(api, raw):
    resp = api.post(
        "/transactions/aggregate", data=raw, headers={"Content-Type": "application/json"}
    )
    assert_bad_request(resp)
