"""compare_buckets matches buckets by period, so the service's label format does not matter."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dealframe.analytics import bucket_medians, compare_buckets
from dealframe.errors import ValidationError
from dealframe.frames.private import aggregate_frame


def local_quarters():
    rng = np.random.default_rng(0)
    days = np.datetime64("2024-01-01") + rng.integers(0, 366, 60).astype("timedelta64[D]")
    deals = pd.DataFrame({"deal_date": days, "ev_revenue": rng.lognormal(size=60)})
    return bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-12-31")


def as_service(local, labels, *, with_periods=True):
    """The local frame as a service would send it, with other labels."""
    service = local.copy()
    service["bucket"] = labels
    if not with_periods:
        service = service.drop(columns=["period_start", "period_end"])
    return service


@pytest.mark.parametrize(
    "labels",
    [["2024Q1", "2024Q2", "2024Q3", "2024Q4"], ["Q1 2024", "Q2 2024", "Q3 2024", "Q4 2024"]],
)
def test_other_quarter_labels_match_by_period(labels):
    local = local_quarters()
    out = compare_buckets(as_service(local, labels), local)
    assert len(out) == 4 and out["match"].all()
    assert out["bucket"].tolist() == labels  # the service's labels are shown
    assert (out["n_service"] == out["n_local"]).all()


def test_labels_parsed_by_the_client_match():
    local = local_quarters()
    rows = [
        {
            "bucket": label.replace("-", ""),
            "n": int(n),
            "median": m,
            "q1": a,
            "q3": b,
            "warning": None,
        }
        for label, n, m, a, b in local[["bucket", "n", "median", "q1", "q3"]].itertuples(
            index=False
        )
    ]
    service = aggregate_frame(
        rows, {"methodology": {"date_range": {"from": "2024-01-01", "to": "2024-12-31"}}}
    )
    assert service["period_start"].notna().all()
    assert compare_buckets(service, local)["match"].all()


def test_month_labels_with_days_match_by_period():
    rng = np.random.default_rng(1)
    days = np.datetime64("2024-01-01") + rng.integers(0, 90, 40).astype("timedelta64[D]")
    local = bucket_medians(
        pd.DataFrame({"deal_date": days, "ev_revenue": rng.random(40)}),
        "ev_revenue",
        "month",
        "2024-01-01",
        "2024-03-31",
    )
    service = as_service(local, ["2024-01-01", "2024-02-01", "2024-03-01"])
    assert compare_buckets(service, local)["match"].all()


def test_a_different_value_is_still_flagged_when_matching_by_period():
    local = local_quarters()
    service = as_service(local, ["2024Q1", "2024Q2", "2024Q3", "2024Q4"])
    service.loc[2, "median"] += 0.5
    out = compare_buckets(service, local)
    assert out["match"].tolist() == [True, True, False, True]
    assert out.loc[2, "median_diff"] == pytest.approx(-0.5)


def test_without_periods_labels_are_matched_and_unknown_labels_do_not_match():
    local = local_quarters()
    same = compare_buckets(as_service(local, local["bucket"].tolist(), with_periods=False), local)
    assert len(same) == 4 and same["match"].all()
    other = compare_buckets(as_service(local, ["a", "b", "c", "d"], with_periods=False), local)
    assert len(other) == 8 and not other["match"].any()


def test_a_service_row_without_a_period_falls_back_to_its_label():
    local = local_quarters()
    service = local.copy()
    service.loc[1, "period_start"] = pd.NaT  # a label the client could not read, same text
    out = compare_buckets(service, local)
    assert len(out) == 4 and out["match"].all()


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda s: compare_buckets(s.to_dict(), s), "service"),
        (lambda s: compare_buckets(s, s.drop(columns=["q3"])), "local"),
        (lambda s: compare_buckets(s, s, tolerance=-1), "tolerance"),
        (lambda s: compare_buckets(s, s, tolerance="tight"), "tolerance"),
    ],
)
def test_bad_arguments_are_named(call, argument):
    with pytest.raises(ValidationError) as caught:
        call(local_quarters())
    assert caught.value.argument == argument


def test_an_aggregate_meta_without_its_window_breaks_the_contract():
    from dealframe.analytics.buckets import aggregate_methodology
    from dealframe.errors import ServiceContractError

    good = local_quarters()
    assert aggregate_methodology(good) == (5, "2024-01-01", "2024-12-31")
    window = {"from": "2024-01-01", "to": "2024-12-31"}
    for methodology, kind, named in (
        (None, "missing_field", "meta.methodology is None"),
        ({}, "missing_field", "meta.methodology.date_range is None"),
        ({"date_range": {"from": "2024-01-01"}}, "missing_field", "date_range is {'from'"),
        ({"date_range": window, "small_n_threshold": "five"}, "bad_meta", "threshold is 'five'"),
        ({"date_range": window, "small_n_threshold": 2**70}, "bad_meta", "threshold is 1180"),
        ({"date_range": {**window, "to": "end"}}, "bad_meta", "date_range.to is 'end'"),
        ({"date_range": {**window, "from": "2024-02-30"}}, "bad_meta", "from is '2024-02-30'"),
    ):
        bad = good.copy()
        bad.attrs = {"methodology": methodology}
        with pytest.raises(ServiceContractError, match=named) as caught:
            aggregate_methodology(bad)
        assert caught.value.finding == kind
    no_threshold = good.copy()
    no_threshold.attrs = {"methodology": {"date_range": window}}
    assert aggregate_methodology(no_threshold) == (None, "2024-01-01", "2024-12-31")


def test_an_aggregate_meta_with_times_and_a_threshold_as_text_is_read():
    """A window written with times of day is its days; a threshold written "3" is 3."""
    from dealframe.analytics.buckets import aggregate_methodology

    answer = local_quarters()
    window = {"from": "2024-01-01T00:00:00Z", "to": "2024-12-31T23:59:59.999+00:00"}
    answer.attrs = {"methodology": {"date_range": window, "small_n_threshold": "3"}}
    assert aggregate_methodology(answer) == (3, "2024-01-01", "2024-12-31")
