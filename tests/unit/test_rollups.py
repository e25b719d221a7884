"""Unit tests of dealframe.analytics.rollups against plain pandas computations."""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest

from dealframe.analytics import current_fields, group_current, group_time_series
from dealframe.errors import ValidationError

SUM_ONLY = ["marketCap", "enterpriseValue"]
SUM_AND_MEDIAN = ["revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm"]


def current_frame(n=40, seed=0):
    """A frame shaped like the client's current data, with nulls, text and list columns."""
    rng = np.random.default_rng(seed)
    numeric = SUM_ONLY + SUM_AND_MEDIAN + ["evRevenueLtm", "marginEbitdaLtm", "employeeCount"]
    frame = pd.DataFrame(
        {name: rng.lognormal(3, 1, n).round(2) for name in numeric},
        index=pd.Index([f"T{i}-USA" for i in range(n)], name="sku"),
    )
    frame = frame.mask(rng.random(frame.shape) < 0.15)
    frame["employeeCount"] = frame["employeeCount"].round().astype("Int64")
    frame["marketCapLcu"] = frame["marketCap"] * 3
    frame["rateToUsd"] = 0.33
    frame["name"] = pd.array([f"Company {i}" for i in range(n)], dtype="str")
    frame["tags"] = [["SaaS"]] * n
    frame["region"] = pd.array(rng.choice(["Europe", "Asia", "Americas"], n), dtype="str")
    frame["ruleOf40"] = np.nan  # a field with no value at all
    return frame


def test_fields_exclude_text_and_lists_but_keep_lcu_and_rate():
    fields = current_fields(current_frame())
    assert fields[:6] == SUM_ONLY + SUM_AND_MEDIAN
    assert set(fields) == set(SUM_ONLY + SUM_AND_MEDIAN) | {
        "evRevenueLtm",
        "marginEbitdaLtm",
        "employeeCount",
        "ruleOf40",
        "marketCapLcu",
        "rateToUsd",
    }


def test_lcu_and_rate_get_a_median_only():
    """Section 2.1: "Median only: all other numeric fields" -- the service medians these too."""
    frame = current_frame()
    out = group_current(frame)
    for field in ("marketCapLcu", "rateToUsd"):
        assert np.isnan(out.loc[field, "sum"]), field
        assert out.loc[field, "median"] == pytest.approx(frame[field].median(skipna=True)), field
    assert out.loc["marketCapLcu", "median"] == pytest.approx(3 * frame["marketCap"].median())


def test_group_current_matches_pandas():
    frame = current_frame()
    out = group_current(frame)
    assert out.attrs["companies"] == len(frame)
    assert list(out.columns) == ["sum", "median"]
    assert out.index.name == "field"
    for field in SUM_ONLY:
        assert out.loc[field, "sum"] == pytest.approx(frame[field].sum(skipna=True))
        assert np.isnan(out.loc[field, "median"])
    for field in SUM_AND_MEDIAN:
        assert out.loc[field, "sum"] == pytest.approx(frame[field].sum(skipna=True))
        assert out.loc[field, "median"] == frame[field].median(skipna=True)
    for field in ("evRevenueLtm", "marginEbitdaLtm", "employeeCount"):
        assert np.isnan(out.loc[field, "sum"])
        assert out.loc[field, "median"] == pytest.approx(float(frame[field].median(skipna=True)))
    assert out.loc["ruleOf40"].isna().all()


def test_group_current_even_count_median_is_mean_of_middle_values():
    frame = pd.DataFrame(
        {"revenueLtm": [4.0, 1.0, None, 3.0, 10.0]}, index=pd.Index(list("abcde"), name="sku")
    )
    out = group_current(frame)
    assert out.loc["revenueLtm", "median"] == statistics.median([4.0, 1.0, 3.0, 10.0])
    assert out.loc["revenueLtm", "sum"] == 18.0


def test_group_current_all_null_sum_field_is_nan_not_zero():
    frame = pd.DataFrame({"marketCap": [np.nan, np.nan], "revenueLtm": [1.0, 2.0]})
    out = group_current(frame)
    assert np.isnan(out.loc["marketCap", "sum"])
    assert out.loc["revenueLtm", "sum"] == 3.0


def test_group_current_by_many_groups_matches_groupby():
    frame = current_frame(n=120, seed=4)
    frame.loc[frame.index[:3], "region"] = None  # rows without a group are left out
    out = group_current(frame, by="region")
    assert out.index.names == ["region", "field"]
    grouped = frame.dropna(subset=["region"]).groupby("region")
    expected_medians = grouped[SUM_AND_MEDIAN + ["evRevenueLtm"]].median()
    expected_sums = grouped[SUM_ONLY + SUM_AND_MEDIAN].sum(min_count=1)
    for region in expected_medians.index:
        for field in SUM_AND_MEDIAN + ["evRevenueLtm"]:
            expected = expected_medians.loc[region, field]
            assert out.loc[(region, field), "median"] == pytest.approx(expected, nan_ok=True)
        for field in SUM_ONLY + SUM_AND_MEDIAN:
            expected = expected_sums.loc[region, field]
            assert out.loc[(region, field), "sum"] == pytest.approx(expected, nan_ok=True)
    assert out.attrs["companies"] == grouped.size().to_dict()
    single = group_current(frame[frame["region"] == "Asia"])
    pd.testing.assert_frame_equal(out.loc["Asia"], single, check_names=False)


def test_group_current_by_series_and_labels():
    frame = current_frame(n=10, seed=2)
    labels = pd.Series(["x"] * 5 + ["y"] * 5, index=frame.index[::-1], name="half")
    by_series = group_current(frame, by=labels)
    assert by_series.index.get_level_values(0).unique().tolist() == ["x", "y"]
    expected = group_current(frame.iloc[5:])
    pd.testing.assert_frame_equal(by_series.loc["x"], expected, check_names=False)
    by_list = group_current(frame, by=["a"] * 10)
    pd.testing.assert_frame_equal(by_list.loc["a"], group_current(frame), check_names=False)


def test_group_current_agrees_with_a_per_field_groupby_loop():
    # Speed against this baseline is a benchmark figure (group_rollup_speedup), not a test.
    frame = current_frame(n=5000, seed=9)
    fields = current_fields(frame)
    one_group = np.zeros(len(frame))

    def per_field_loop():
        return {field: frame.groupby(one_group)[field].agg(["sum", "median"]) for field in fields}

    reference = per_field_loop()
    out = group_current(frame)
    for field in fields:
        if field in ("marketCap", "enterpriseValue"):  # sum only: no median by definition
            assert np.isnan(out.loc[field, "median"])
            continue
        assert out.loc[field, "median"] == pytest.approx(
            reference[field]["median"].iloc[0], nan_ok=True
        )
    for field in ("marketCap", "revenueLtm"):
        assert out.loc[field, "sum"] == pytest.approx(reference[field]["sum"].iloc[0])


def wide_frame(
    seed=0,
    months=6,
    skus=("A-USA", "B-USA", "C-GBR", "D-FRA"),
    fields=("evRevenueLtm", "marginEbitdaLtm"),
):
    rng = np.random.default_rng(seed)
    index = pd.period_range("2024-01", periods=months, freq="M", name="month")
    columns = pd.MultiIndex.from_product([list(fields), list(skus)], names=["field", "sku"])
    wide = pd.DataFrame(
        rng.normal(5, 2, (months, len(columns))).round(2), index=index, columns=columns
    )
    return wide.mask(rng.random(wide.shape) < 0.3)


def test_group_time_series_matches_pandas_medians():
    wide = wide_frame()
    wide.iloc[2, :] = np.nan  # a month without any value is dropped
    wide.loc[wide.index[3], "evRevenueLtm"] = np.nan  # a field without value that month
    out = group_time_series(wide, counts=True)
    expected = wide.T.groupby(level="field", sort=False).median().T
    expected = expected.dropna(how="all")
    assert out.index.equals(expected.index)
    assert out.index.name == "month"
    pd.testing.assert_frame_equal(
        out[["evRevenueLtm", "marginEbitdaLtm"]], expected, check_names=False
    )
    assert np.isnan(out.loc[wide.index[3], "evRevenueLtm"])
    counted = wide.T.groupby(level="field", sort=False).count().T.loc[expected.index]
    assert out["n_evRevenueLtm"].tolist() == counted["evRevenueLtm"].tolist()
    assert out["n_evRevenueLtm"].dtype == "Int64"
    assert out.attrs == {"companies": 4, "count": len(expected)}
    assert list(group_time_series(wide).columns) == ["evRevenueLtm", "marginEbitdaLtm"]


def test_group_time_series_column_order_and_input_untouched():
    wide = wide_frame(seed=5)
    before = wide.copy()
    out = group_time_series(wide)
    pd.testing.assert_frame_equal(wide, before)
    interleaved = wide.sort_index(axis=1, level="sku")  # fields no longer side by side
    pd.testing.assert_frame_equal(group_time_series(interleaved), out)
    frame = current_frame()
    kept = frame.copy()
    group_current(frame)
    group_current(frame, by="region")
    pd.testing.assert_frame_equal(frame, kept)


def test_group_time_series_with_ragged_fields():
    wide = wide_frame(seed=3)
    wide = wide.drop(columns=[("marginEbitdaLtm", "A-USA"), ("marginEbitdaLtm", "C-GBR")])
    out = group_time_series(wide)
    for month in out.index:
        for field in ("evRevenueLtm", "marginEbitdaLtm"):
            present = wide.loc[month, field].dropna().tolist()
            expected = statistics.median(present) if present else np.nan
            assert out.loc[month, field] == pytest.approx(expected, nan_ok=True)
    assert out.attrs["companies"] == 4


def test_group_time_series_single_company_and_empty():
    wide = wide_frame(skus=("A-USA",), fields=("marketCap",))
    out = group_time_series(wide)
    pd.testing.assert_series_equal(
        out["marketCap"], wide[("marketCap", "A-USA")].dropna(), check_names=False
    )
    empty = group_time_series(wide.iloc[:0])
    assert len(empty) == 0 and list(empty.columns) == ["marketCap"]


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"]), "deal_raised": [5.0]}),
        pd.DataFrame({"sku": ["A-USA"], "field": ["marketCap"], "value": [3.0]}),  # long series
        pd.DataFrame({"name": ["a", "b"]}),
    ],
    ids=["deals", "long time series", "text only"],
)
def test_a_frame_without_current_data_fields_is_refused(frame):
    for rollup in (group_current, current_fields):
        with pytest.raises(ValidationError, match="current-data frame") as caught:
            rollup(frame)
        assert caught.value.argument == "current"


def test_rollups_reject_bad_input():
    with pytest.raises(ValidationError) as caught:
        group_current([1, 2, 3])
    assert caught.value.argument == "current"
    with pytest.raises(ValidationError, match="by"):
        group_current(current_frame(), by="no_such_column")
    with pytest.raises(ValidationError, match="MultiIndex"):
        group_time_series(pd.DataFrame({"a": [1.0]}))
    with pytest.raises(ValidationError, match="DataFrame"):
        group_time_series({"a": 1})
