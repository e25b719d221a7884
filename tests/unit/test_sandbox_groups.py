"""Family A group computations of the sandbox against plain pandas."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dealframe.sandbox.models.groups import (
    CURRENT_NUMERIC_FIELDS,
    GroupInputError,
    group_current,
    group_time_series,
)

SUM_ONLY = ["marketCap", "enterpriseValue"]
SUM_AND_MEDIAN = ["revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm"]


def make_records(n: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    records = []
    for i in range(n):
        rec: dict = {
            "sku": f"C{i}-USA",
            "ticker": f"C{i}",
            "name": f"Company {i}",
            "currency": "EUR",
            "tags": ["AI"],
            "isListed": True,  # a bool: never aggregated
            "rateToUsd": 1.1,
            "employeeCount": int(rng.integers(10, 5000)),
            "customScore": float(rng.normal()),  # unknown numeric field: median only
        }
        for field in CURRENT_NUMERIC_FIELDS:
            if field == "employeeCount":
                continue
            rec[field] = None if rng.random() < 0.2 else float(rng.lognormal(2, 1))
        for field in SUM_ONLY + SUM_AND_MEDIAN:
            rec[field + "Lcu"] = None if rec[field] is None else rec[field] / 1.1
        records.append(rec)
    return records


def test_group_current_matches_pandas_sum_and_median():
    records = make_records(37)
    data, meta = group_current(records)
    df = pd.DataFrame(records)
    assert meta == {"count": 37, "companies": 37}
    assert list(data["sum"]) == SUM_ONLY + SUM_AND_MEDIAN
    for field in SUM_ONLY + SUM_AND_MEDIAN:
        assert data["sum"][field] == pytest.approx(df[field].sum(min_count=1), rel=1e-12)
    expected_median_fields = [f for f in CURRENT_NUMERIC_FIELDS if f not in SUM_ONLY] + [
        "customScore"
    ]
    assert sorted(data["median"]) == sorted(expected_median_fields)
    for field in expected_median_fields:
        assert data["median"][field] == pytest.approx(df[field].median(), rel=1e-12)


LCU = [f + "Lcu" for f in SUM_ONLY + SUM_AND_MEDIAN]


def test_group_current_medians_lcu_and_rate_and_excludes_bool_and_strings():
    """Section 2.1: "Median only: all other numeric fields" -- *Lcu and rateToUsd included."""
    records = make_records(9)
    data, _ = group_current(records)
    keys = set(data["sum"]) | set(data["median"])
    assert set(LCU) | {"rateToUsd", "employeeCount", "customScore"} <= set(data["median"])
    assert not (set(LCU) | {"rateToUsd"}) & set(data["sum"])  # median only, never summed
    assert not keys & {"isListed", "sku", "name", "currency", "tags"}
    assert not set(SUM_ONLY) & set(data["median"])
    df = pd.DataFrame(records)
    for field in LCU + ["rateToUsd"]:
        assert data["median"][field] == pytest.approx(df[field].median(), rel=1e-12), field


def test_group_current_unknown_lcu_field_is_a_median_too():
    data, _ = group_current([{"priceLcu": 2.0}, {"priceLcu": 4.0}, {"priceLcu": None}])
    assert data["median"]["priceLcu"] == 3.0 and "priceLcu" not in data["sum"]


def test_group_current_nulls_and_non_finite_are_skipped():
    records = [
        {"sku": "A", "marketCap": 1.0, "revenueLtm": None, "evRevenueLtm": float("nan")},
        {"sku": "B", "marketCap": None, "revenueLtm": 4.0, "evRevenueLtm": 3.0},
        {"sku": "C", "marketCap": 2.0, "revenueLtm": 6.0, "evRevenueLtm": float("inf")},
        {"sku": "D"},
    ]
    data, meta = group_current(records)
    assert data["sum"]["marketCap"] == 3.0
    assert data["sum"]["revenueLtm"] == 10.0 and data["median"]["revenueLtm"] == 5.0
    assert data["median"]["evRevenueLtm"] == 3.0
    assert data["sum"]["enterpriseValue"] is None  # no company has a value
    assert data["median"]["ruleOf40"] is None
    assert meta == {"count": 4, "companies": 4}


def test_group_current_even_count_median_is_mean_of_middle_pair():
    records = [{"evEbitdaLtm": v} for v in (1.0, 10.0, 2.0, 4.0)]
    data, _ = group_current(records)
    assert data["median"]["evEbitdaLtm"] == (2.0 + 4.0) / 2


def test_group_current_integers_are_numbers():
    data, _ = group_current(
        [{"marketCap": 3, "employeeCount": 10}, {"marketCap": 4, "employeeCount": 11}]
    )
    assert data["sum"]["marketCap"] == 7.0 and data["median"]["employeeCount"] == 10.5


def test_group_current_of_no_companies_is_all_null_and_json_ready():
    data, meta = group_current([])
    assert meta == {"count": 0, "companies": 0}
    assert all(v is None for v in data["sum"].values())
    assert all(v is None for v in data["median"].values())
    assert json.loads(json.dumps(data)) == data


# --- time series ------------------------------------------------------------------------------

FIELDS = ["marketCap", "evRevenueLtm", "marginEbitdaLtm"]
MONTHS = [f"{2023 + (m // 12)}-{m % 12 + 1:02d}" for m in range(18)]  # 2023-01 .. 2024-06


def make_values(n_companies: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.lognormal(1, 1, (n_companies, len(FIELDS), len(MONTHS)))
    values[rng.random(values.shape) < 0.3] = np.nan
    values[:, :, 4] = np.nan  # 2023-05: no value in any field
    values[:, 2, 7] = np.nan  # 2023-08: margin has no value, the others do
    return values


def pandas_medians(values: np.ndarray, fields: list[str]) -> pd.DataFrame:
    """Month x field medians through a long frame and groupby (pandas skips NaN)."""
    c, f, m = np.meshgrid(
        np.arange(values.shape[0]),
        np.arange(values.shape[1]),
        np.arange(values.shape[2]),
        indexing="ij",
    )
    long = pd.DataFrame(
        {
            "field": np.array(FIELDS)[f.ravel()],
            "period": np.array(MONTHS)[m.ravel()],
            "value": values.ravel(),
        }
    )
    wide = long.groupby(["period", "field"])["value"].median().unstack("field")
    return wide[fields]


def test_group_time_series_matches_pandas_medians():
    values = make_values(41)
    data, meta = group_time_series(values, FIELDS, MONTHS)
    expected = pandas_medians(values, FIELDS).dropna(how="all")
    assert [item["period"] for item in data] == list(expected.index)
    assert "2023-05" not in [item["period"] for item in data]
    assert meta == {"count": len(expected), "companies": 41}
    for item in data:
        row = expected.loc[item["period"]]
        assert list(item["median"]) == FIELDS
        for field in FIELDS:
            if math.isnan(row[field]):
                assert item["median"][field] is None
            else:
                assert item["median"][field] == pytest.approx(row[field], rel=1e-12)
    aug = next(item for item in data if item["period"] == "2023-08")
    assert aug["median"]["marginEbitdaLtm"] is None and aug["median"]["marketCap"] is not None


def test_group_time_series_field_subset_and_date_range():
    values = make_values(9, seed=5)
    data, meta = group_time_series(
        values,
        FIELDS,
        MONTHS,
        field_subset=["marginEbitdaLtm"],
        date_from="2023-06",
        date_to="2024-01",
    )
    expected = pandas_medians(values, ["marginEbitdaLtm"])
    expected = expected.loc["2023-06":"2024-01"].dropna(how="all")
    assert [item["period"] for item in data] == list(expected.index)
    assert "2023-08" not in [item["period"] for item in data]  # only margin was asked for
    assert all(list(item["median"]) == ["marginEbitdaLtm"] for item in data)
    for item in data:
        assert item["median"]["marginEbitdaLtm"] == pytest.approx(
            expected.loc[item["period"], "marginEbitdaLtm"], rel=1e-12
        )
    assert meta == {"count": len(expected), "companies": 9}


def test_group_time_series_bounds_are_inclusive_and_one_sided():
    values = np.ones((2, 1, len(MONTHS)))
    data, _ = group_time_series(values, ["marketCap"], MONTHS, date_from="2024-03")
    assert [item["period"] for item in data] == ["2024-03", "2024-04", "2024-05", "2024-06"]
    data, _ = group_time_series(values, ["marketCap"], MONTHS, date_to="2023-02")
    assert [item["period"] for item in data] == ["2023-01", "2023-02"]
    data, _ = group_time_series(
        values, ["marketCap"], MONTHS, date_from="2023-07", date_to="2023-07"
    )
    assert data == [{"period": "2023-07", "median": {"marketCap": 1.0}}]


def test_group_time_series_even_count_median_and_no_warning():
    values = np.full((4, 1, 2), np.nan)
    values[:, 0, 0] = [1.0, 2.0, 10.0, 3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the all-NaN month must not warn
        data, meta = group_time_series(values, ["evRevenueLtm"], ["2024-01", "2024-02"])
    assert data == [{"period": "2024-01", "median": {"evRevenueLtm": 2.5}}]
    assert meta == {"count": 1, "companies": 4}


def test_group_time_series_no_companies():
    data, meta = group_time_series(np.empty((0, 3, len(MONTHS))), FIELDS, MONTHS)
    assert data == [] and meta == {"count": 0, "companies": 0}


def test_group_time_series_input_errors():
    values = make_values(2)
    with pytest.raises(GroupInputError, match="fields"):
        group_time_series(values, FIELDS, MONTHS, field_subset=["nope"])
    with pytest.raises(GroupInputError, match="values"):
        group_time_series(values, FIELDS[:2], MONTHS)
    assert issubclass(GroupInputError, ValueError)


def test_a_period_whose_median_is_not_a_number_is_left_out_without_a_warning():
    values = np.array([[[np.inf, 1.0]], [[-np.inf, 3.0]]])  # 2 companies, 1 field, 2 months
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's invalid-value warning would fail here
        data, meta = group_time_series(values, ["evRevenueLtm"], ["2024-01", "2024-02"])
    assert data == [{"period": "2024-02", "median": {"evRevenueLtm": 2.0}}]
    assert meta == {"count": 1, "companies": 2}
