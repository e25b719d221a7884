"""Family A shaping on hand-written payloads (tests/unit/payloads/*.json)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dealframe._vocab import REGIONS
from dealframe.errors import ValidationError
from dealframe.frames import (
    current_frame,
    group_current_frame,
    group_time_series_frame,
    search_frame,
    time_series_long,
    time_series_wide,
)
from dealframe.frames.nested import to_lists
from dealframe.frames.schemas import CURRENT_DATA
from dealframe.frames.schemas import STRING_DTYPE as STR_DTYPE

PAYLOADS = Path(__file__).parent / "payloads"


def load(name: str) -> dict:
    return json.loads((PAYLOADS / name).read_text())


def same_schema(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    assert list(a.dtypes) == list(b.dtypes)
    assert a.index.name == b.index.name


# ------------------------------------------------------------------ search
def test_search_frame_types_and_index():
    df = search_frame(load("search_v2.json")["data"])
    assert df.index.name == "sku"
    assert df.index.tolist() == ["ACME-USA", "ACME-USA.1", "NRDC-SWE"]
    assert df["enterpriseValue"].dtype == np.float64
    assert np.isnan(df.loc["ACME-USA.1", "enterpriseValue"])
    assert df.loc["NRDC-SWE", "enterpriseValue"] == 812.0
    assert isinstance(df["region"].dtype, pd.CategoricalDtype)
    assert list(df["region"].cat.categories) == list(REGIONS)
    assert df.loc["ACME-USA", "verticals"] == '["Robotics","Industrial automation"]'
    assert df.loc["ACME-USA.1", "themes"] == "[]"
    assert df["verticals"].dtype == STR_DTYPE  # JSON text
    assert df["name"].dtype == pd.api.types.pandas_dtype("str")


def test_search_frame_keeps_unknown_fields():
    df = search_frame(load("search_v2.json"))  # whole envelope accepted
    assert "listingDate" in df.columns
    assert df.loc["NRDC-SWE", "listingDate"] == "2019-04-02"
    assert pd.isna(df.loc["ACME-USA", "listingDate"])


def test_search_frame_unknown_region_is_kept_as_category():
    items = [{"sku": "X-ATA", "region": "Antarctica"}, {"sku": "Y-USA", "region": "North America"}]
    df = search_frame(items)
    assert df.loc["X-ATA", "region"] == "Antarctica"
    assert "Antarctica" in df["region"].cat.categories
    assert list(df["region"].cat.categories[: len(REGIONS)]) == list(REGIONS)


def test_search_frame_schema_0_1_n():
    items = [
        {k: v for k, v in it.items() if k != "listingDate"} for it in load("search_v2.json")["data"]
    ]
    frames = [search_frame([]), search_frame(items[:1]), search_frame(items)]
    for f in frames[1:]:
        same_schema(frames[0], f)
    assert len(frames[0]) == 0


# ------------------------------------------------------------------ current
def test_current_frame_every_field_and_order():
    df = current_frame(load("current_v2.json")["data"])
    known = [c.name for c in CURRENT_DATA if c.name != "sku"]
    assert list(df.columns) == known  # the payload holds no field beyond the known ones
    assert known[-6:] == [
        "region",
        "verticals",
        "evEbitdaNtm",
        "marginEbitdaNtm",
        "revenueGrowthLtm",
        "employeeCount",
    ]
    unknown = current_frame([{"sku": "A-USA", "zetaScore": 1.5, "alphaNote": "x"}])
    assert list(unknown.columns[len(known) :]) == ["alphaNote", "zetaScore"]
    for col in ("marketCapLcu", "ebitdaNtmLcu", "rateToUsd", "employeeCount", "evEbitdaNtm"):
        assert df[col].dtype == np.float64, col
    assert df.loc["NRDC-SWE", "rateToUsd"] == 0.0952
    assert df.loc["NRDC-SWE", "marketCapLcu"] == 7378.2
    assert df.loc["NRDC-SWE", "ebitdaLtm"] == -14.5
    assert np.isnan(df.loc["NRDC-SWE", "revenueNtm"])
    assert np.isnan(df.loc["NRDC-SWE", "employeeCount"])
    assert to_lists(df["tags"])["ACME-USA"] == ["Robotics", "Industrial automation"]
    assert to_lists(df["verticals"])["NRDC-SWE"] == ["Cloud infrastructure"]
    assert isinstance(df["region"].dtype, pd.CategoricalDtype)
    assert df["currency"].dtype == pd.api.types.pandas_dtype("str")


def test_current_frame_schema_0_1_n():
    empty = current_frame([])
    one = current_frame([{"sku": "A-USA", "marketCap": 3}])
    assert list(empty.columns) == [c.name for c in CURRENT_DATA if c.name != "sku"]
    same_schema(empty, one)
    assert one.loc["A-USA", "marketCap"] == 3.0


def test_current_frame_rejects_non_numeric_money():
    with pytest.raises(ValidationError):
        current_frame([{"sku": "A-USA", "marketCap": "lots"}])


# ------------------------------------------------------------------ time series
def test_time_series_wide_layout_and_missing_months():
    ts = time_series_wide(load("time_series_v2.json")["data"])
    assert isinstance(ts.index, pd.PeriodIndex)
    assert ts.index.name == "month"
    assert ts.index.freqstr == "M"
    assert [str(p) for p in ts.index] == ["2024-01", "2024-02", "2024-03", "2024-04", "2024-05"]
    assert ts.columns.names == ["field", "sku"]
    ev = ts["evRevenueLtm"]
    assert list(ev.columns) == ["ACME-USA", "ACME-USA.1", "NRDC-SWE"]
    assert ev.loc[pd.Period("2024-03", "M"), "ACME-USA"] == 6.9
    assert np.isnan(ev.loc[pd.Period("2024-03", "M"), "ACME-USA.1"])  # gap month
    assert ev["NRDC-SWE"].isna().tolist() == [True, True, False, False, False]  # late listing
    assert ts["marginEbitdaLtm"]["NRDC-SWE"].isna().all()  # empty object: column kept
    assert (ts.dtypes == np.float64).all()


def test_time_series_wide_fields_and_range():
    items = load("time_series_v2.json")["data"]
    ts = time_series_wide(
        items, fields=["marginEbitdaLtm", "marketCap"], date_from="2023-12", date_to="2024-02"
    )
    assert list(ts.columns.get_level_values("field").unique()) == ["marginEbitdaLtm", "marketCap"]
    assert [str(p) for p in ts.index] == ["2023-12", "2024-01", "2024-02"]
    assert ts["marketCap"].isna().all().all()
    assert ts.loc[pd.Period("2024-02", "M"), ("marginEbitdaLtm", "ACME-USA.1")] == 0.091
    assert ts.loc[pd.Period("2023-12", "M")].isna().all()


def test_time_series_wide_empty_and_errors():
    empty = time_series_wide([])
    assert empty.shape == (0, 0)
    assert isinstance(empty.index, pd.PeriodIndex) and empty.index.name == "month"
    assert empty.columns.names == ["field", "sku"]
    with pytest.raises(ValidationError):
        time_series_wide([{"sku": "A-USA", "data": {"marketCap": {"2024-13": 1.0}}}])
    with pytest.raises(ValidationError):
        time_series_wide([], date_from="2024-05", date_to="2024-01")
    with pytest.raises(ValidationError):
        time_series_wide([{"sku": None, "data": {}}])


def test_time_series_long_matches_payload():
    items = load("time_series_v2.json")["data"]
    long = time_series_long(items)
    assert list(long.columns) == ["sku", "field", "month", "value"]
    assert long["month"].dtype == pd.PeriodDtype("M")
    assert len(long) == 5 * 2 + 4 * 2 + 3
    row = long[(long.sku == "ACME-USA.1") & (long.field == "evRevenueLtm")]
    assert [str(m) for m in row["month"]] == ["2024-01", "2024-02", "2024-04", "2024-05"]
    assert row["value"].tolist() == [1.2, 1.25, 1.31, 1.3]
    empty = time_series_long([])
    assert list(empty.dtypes) == list(long.dtypes)


def test_time_series_long_and_wide_agree():
    items = load("time_series_v2.json")["data"]
    wide = time_series_wide(items)
    for row in time_series_long(items).itertuples():
        assert wide.loc[row.month, (row.field, row.sku)] == row.value


# ------------------------------------------------------------------ groups
def test_group_current_sandbox_layout():
    payload = load("group_current.json")
    df = group_current_frame(payload["data"], payload["meta"])
    assert df.index.name == "field"
    assert list(df.columns) == ["sum", "median"]
    assert df.loc["marketCap", "sum"] == 14802.4 and np.isnan(df.loc["marketCap", "median"])
    assert np.isnan(df.loc["evRevenueLtm", "sum"]) and df.loc["evRevenueLtm", "median"] == 6.825
    assert df.loc["revenueLtm", "sum"] == 2330.6 and df.loc["revenueLtm", "median"] == 1165.3
    assert np.isnan(df.loc["ruleOf40", "median"])
    assert df.attrs["count"] == 2 and df.attrs["companies"] == 2
    assert len(df) == 14


def test_group_current_variants_agree():
    payload = load("group_current.json")
    base = group_current_frame(payload)  # envelope: meta taken from it
    field_major: dict = {}
    for stat, cells in payload["data"].items():
        for field, value in cells.items():
            field_major.setdefault(field, {})[stat] = value
    rows = [{"field": f, **cells} for f, cells in field_major.items()]
    flat = [  # the statistic in each key: marketCapSum, sum_marketCap, marketCap.sum
        {name(stat, f): v for stat, cells in payload["data"].items() for f, v in cells.items()}
        for name in (
            lambda stat, f: f + stat.title(),
            lambda stat, f: f"{stat}_{f}",
            lambda stat, f: f"{f}.{stat.upper()}",
        )
    ]
    for variant in (field_major, rows, *flat):
        other = group_current_frame(variant, payload["meta"])
        pd.testing.assert_frame_equal(base.sort_index(), other.sort_index())
    assert base.attrs["companies"] == 2


def test_group_current_of_an_empty_group_has_every_field_in_every_layout():
    """A group with no companies has every statistic null: the flat layout gives the same
    rows of NaN as the documented one (it gave no rows at all)."""
    payload = load("group_current.json")
    nulls = {stat: dict.fromkeys(cells) for stat, cells in payload["data"].items()}
    base = group_current_frame(nulls)
    flat = {f + stat.title(): None for stat, cells in nulls.items() for f in cells}
    other = group_current_frame(flat)
    assert len(base) == 14 and base.isna().all().all()
    pd.testing.assert_frame_equal(base.sort_index(), other.sort_index())


@pytest.mark.parametrize(
    "data",
    [
        {"marketCap": 1.0, "evRevenueLtm": 2.0},  # a sum or a median?
        {"marketCapSum": 1.0, "evRevenueLtm": 2.0},
        {"sum": {"marketCap": 1.0}, "evRevenueLtm": 2.0},
        {"marketCapSum": 1.0, "sum_marketCap": 1.0},
    ],
    ids=["no-statistic", "one-unnamed", "scalar-beside-objects", "twice"],
)
def test_group_current_statistics_are_never_guessed(data):
    with pytest.raises(ValidationError, match=r"invalid data\b"):
        group_current_frame(data)


def test_group_current_meta_is_copied():
    meta = {"count": 1, "companies": 1}
    df = group_current_frame({"sum": {}, "median": {}}, meta)
    meta["count"] = 99
    assert df.attrs["count"] == 1
    assert list(df.columns) == ["sum", "median"] and len(df) == 0


def test_group_time_series_frame():
    payload = load("group_time_series.json")
    df = group_time_series_frame(payload["data"], payload["meta"])
    assert [str(p) for p in df.index] == ["2024-01", "2024-02", "2024-03", "2024-04"]
    assert df.index.name == "month"
    assert list(df.columns) == ["evRevenueLtm", "marginEbitdaLtm"]
    assert df.loc[pd.Period("2024-03", "M")].isna().all()
    assert np.isnan(df.loc[pd.Period("2024-04", "M"), "marginEbitdaLtm"])
    assert df.loc[pd.Period("2024-02", "M"), "evRevenueLtm"] == 3.825
    assert df.attrs == {"count": 3, "companies": 3}
    empty = group_time_series_frame([], {"count": 0, "companies": 0})
    assert len(empty) == 0 and isinstance(empty.index, pd.PeriodIndex)


def _schema(df):
    return [(c, str(t)) for c, t in df.dtypes.items()], df.index.name, type(df.index)


def test_group_time_series_frame_same_columns_for_0_1_and_n_months():
    payload = load("group_time_series.json")
    fields = ["marginEbitdaLtm", "evRevenueLtm", "marketCap"]
    many = group_time_series_frame(payload["data"], payload["meta"], fields=fields)
    one = group_time_series_frame(payload["data"][:1], fields=fields)
    none = group_time_series_frame([], {"count": 0, "companies": 0}, fields=fields)
    assert (len(none), len(one), len(many)) == (0, 1, 4)
    assert _schema(none) == _schema(one) == _schema(many)
    assert list(many.columns) == fields  # requested order, absent field kept as all-NaN
    assert many["marketCap"].isna().all() and many.attrs["companies"] == 3
    # a field the service sends beyond the requested ones is appended, not lost
    extra = group_time_series_frame(
        [{"period": "2024-01", "median": {"ruleOf40": 7.0}}], fields=["marketCap"]
    )
    assert list(extra.columns) == ["marketCap", "ruleOf40"] and extra.iloc[0, 1] == 7.0


def test_group_time_series_frame_index_covers_the_requested_window():
    payload = load("group_time_series.json")  # 2024-01 .. 2024-04 with 2024-03 skipped
    df = group_time_series_frame(
        payload["data"], fields=["evRevenueLtm"], date_from="2023-11", date_to="2024-02"
    )
    assert [str(p) for p in df.index] == ["2023-11", "2023-12", "2024-01", "2024-02"]
    assert df["evRevenueLtm"].iloc[:2].isna().all() and df["evRevenueLtm"].iloc[2:].notna().all()
    nothing = group_time_series_frame(
        [], fields=["marketCap"], date_from="2030-01", date_to="2030-03"
    )
    assert [str(p) for p in nothing.index] == ["2030-01", "2030-02", "2030-03"]
    assert nothing.shape == (3, 1) and nothing["marketCap"].isna().all()
    one_sided = group_time_series_frame(payload["data"], date_from="2024-02")
    assert [str(p) for p in one_sided.index] == ["2024-02", "2024-03", "2024-04"]
    with pytest.raises(ValidationError) as info:
        group_time_series_frame([], date_from="2024-05", date_to="2024-01")
    assert info.value.argument == "date_from"
    with pytest.raises(ValidationError) as info:
        group_time_series_frame([{"period": "2024-01", "median": {"marketCap": "big"}}])
    assert info.value.argument == "median.marketCap"


def test_frames_accept_attrs():
    payload = load("time_series_v2.json")
    for df in (
        search_frame([]),
        current_frame([]),
        time_series_wide(payload),
        time_series_long(payload),
        group_current_frame(load("group_current.json")),
    ):
        df.attrs["source"] = {"endpoint": "x"}
        assert copy.deepcopy(df).attrs["source"] == {"endpoint": "x"}


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"skus": "A-USA"}, "skus"),
        ({"fields": "marketCap"}, "fields"),
        ({"skus": ["A-USA", None]}, r"skus\[1\]"),
        ({"fields": {"marketCap": 1}}, "fields"),
    ],
)
def test_time_series_wide_refuses_names_that_are_not_a_list_of_strings(kwargs, named):
    """A bare string was read as its characters (no column kept, silently), a None as a
    ``nan`` column label."""
    items = [{"sku": "A-USA", "data": {"marketCap": {"2024-01": 1.0}}}]
    with pytest.raises(ValidationError, match=f"invalid {named}: expected a"):
        time_series_wide(items, **kwargs)
