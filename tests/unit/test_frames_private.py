"""Family B shaping on hand-written payloads (tests/unit/payloads/*.json)."""

from __future__ import annotations

import importlib.util
import json
from decimal import Decimal
from functools import partial
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pytest
from _client_pages import RefusedBody, list_from_items, list_from_pages

from dealframe._vocab import DEAL_SUBTYPES, DEAL_TYPES, REGIONS
from dealframe.contract import Findings, read_page
from dealframe.errors import ValidationError
from dealframe.frames import (
    aggregate_frame,
    co_investors_frame,
    company_investors_frame,
    company_profiles_frame,
    deals_frame,
    investor_profiles_frame,
    lookup_frame,
    portfolio_frame,
    resolve_frames,
    top_countries_frame,
    top_verticals_frame,
)
from dealframe.frames.nested import encode, to_lists
from dealframe.frames.normalize import to_date, to_utc

PAYLOADS = Path(__file__).parent / "payloads"
STR = pd.api.types.pandas_dtype("str")
UTC = pd.DatetimeTZDtype("us", "UTC")
DATE = np.dtype("datetime64[us]")


def load(name: str):
    return json.loads((PAYLOADS / name).read_text())


def synth():
    spec = importlib.util.spec_from_file_location("dealframe_test_synth", PAYLOADS / "synth.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def utc(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


def assert_prefix_schema(empty: pd.DataFrame, other: pd.DataFrame) -> None:
    """``other`` starts with exactly ``empty``'s columns and dtypes (extras may follow)."""
    n = len(empty.columns)
    assert list(other.columns[:n]) == list(empty.columns)
    assert list(other.dtypes.iloc[:n]) == list(empty.dtypes)


# ------------------------------------------------------------------ companies / investors
def test_company_list_types_and_offsets():
    df = list_from_items("companies", load("companies.json"))
    assert df["id"].dtype == STR
    assert df["founded"].dtype == pd.Int64Dtype()
    assert df.loc[0, "founded"] == 2004 and pd.isna(df.loc[1, "founded"])
    assert df["created_at"].dtype == UTC
    assert df.loc[0, "created_at"] == utc("2021-02-03 08:15")  # +01:00
    assert df.loc[0, "updated_at"] == utc("2025-03-04 15:15")  # -05:00
    assert df.loc[1, "updated_at"] == utc("2024-12-31 23:30")  # +01:00 crosses a year
    assert df["ipoed"].dtype == DATE
    assert df.loc[0, "ipoed"] == pd.Timestamp("2015-06-18") and pd.isna(df.loc[1, "ipoed"])
    assert df["active"].dtype == pd.BooleanDtype() and df["deleted"].tolist() == [False, True]
    assert df.loc[0, "revenue_model"] == '["Hardware","SaaS"]'
    assert list(df["region"].cat.categories) == list(REGIONS)
    assert df.loc[1, "headcount_band"] == "11-50"  # unknown field kept
    assert df.columns[-1] == "headcount_band"


def test_investor_list():
    df = list_from_items("investors", load("investors.json")["data"])
    assert list(df.columns) == [
        "id",
        "name",
        "short_name",
        "website",
        "country",
        "updated_at",
        "deleted",
    ]
    assert df.loc[0, "updated_at"] == utc("2025-05-06 06:00")
    assert df.loc[1, "updated_at"] == utc("2024-12-31 23:59:59")
    assert pd.isna(df.loc[1, "country"]) and pd.isna(df.loc[1, "website"])


@pytest.mark.parametrize(
    "func,payload",
    [
        (partial(list_from_items, "companies"), "companies.json"),
        (partial(list_from_items, "investors"), "investors.json"),
        (company_profiles_frame, "company_profiles.json"),
        (investor_profiles_frame, "investor_profiles.json"),
        (deals_frame, "deals_page.json"),
        (company_investors_frame, "company_investors.json"),
        (portfolio_frame, "portfolio.json"),
        (co_investors_frame, "co_investors.json"),
    ],
)
def test_schema_is_the_same_for_0_1_n_rows(func, payload):
    data = load(payload)
    items = data if isinstance(data, list) else data["data"]
    empty, one, many = func([]), func(items[:1]), func(items)
    assert len(empty) == 0 and len(one) == 1 and len(many) == len(items)
    assert_prefix_schema(empty, one)
    assert_prefix_schema(empty, many)
    many.attrs["request"] = {"page": 1}
    assert many.copy().attrs["request"] == {"page": 1}


# ------------------------------------------------------------------ profiles
def test_company_profiles_flatten_nested_objects():
    df = company_profiles_frame(load("company_profiles.json"))
    assert len(df) == 3
    assert df.loc[0, "stock_listing_ticker"] == "ACME"
    assert df.loc[0, "valuation_market_cap"] == 14100.0
    assert df.loc[0, "valuation_updated_at"] == utc("2025-06-27 21:30")  # -04:00
    assert df["valuation_updated_at"].dtype == UTC
    assert df.loc[0, "fundamentals_ev_revenue_ntm"] == 5.93
    assert df.loc[0, "deal_activity_last_deal_date"] == pd.Timestamp("2024-11-05")
    assert df["deal_activity_last_deal_date"].dtype == DATE
    assert df["deal_activity_total_investments_made"].dtype == pd.Int64Dtype()
    assert df.loc[0, "employee_count"] == 8200 and pd.isna(df.loc[1, "employee_count"])
    # null nested objects give null columns
    assert pd.isna(df.loc[1, "stock_listing_ticker"]) and pd.isna(df.loc[1, "stock_listing_id"])
    assert np.isnan(df.loc[1, "fundamentals_ev_revenue_ntm"])
    assert pd.isna(df.loc[1, "valuation_updated_at"])
    assert pd.isna(df.loc[1, "verticals"])
    # unknown nested key kept with the prefix
    assert df.loc[0, "fundamentals_fcf_margin_ltm"] == 0.08


def test_company_profile_with_fields_allowlist_has_full_schema():
    sparse = company_profiles_frame({"data": {"id": "c3d4", "founded": 2011}})
    full = company_profiles_frame([])
    assert list(sparse.columns) == list(full.columns)
    assert list(sparse.dtypes) == list(full.dtypes)
    assert sparse.loc[0, "founded"] == 2011 and pd.isna(sparse.loc[0, "valuation_beta"])


def test_investor_profiles_and_top_frames():
    items = load("investor_profiles.json")
    df = investor_profiles_frame(items)
    assert df.loc[0, "stats_total_deals"] == 57
    assert df["stats_total_deals"].dtype == pd.Int64Dtype()
    assert df.loc[0, "stats_avg_round_size"] == 14.5 and np.isnan(df.loc[1, "stats_avg_round_size"])
    assert df.loc[0, "stats_most_common_deal_type"] == "Venture"
    assert list(df["stats_most_common_deal_type"].cat.categories) == list(DEAL_TYPES)
    assert df.loc[1, "created_at"] == utc("2023-04-05 13:07:08")  # -07:00
    countries = top_countries_frame(items)
    assert list(countries.columns) == ["investor_id", "country", "count", "rank"]
    assert countries["country"].tolist() == ["USA", "GBR", "CAN"]
    assert countries["count"].tolist() == [40, 9, 3]
    assert countries["rank"].tolist() == [1, 2, 3]
    assert set(countries["investor_id"]) == {items[0]["id"]}
    verticals = top_verticals_frame(df)  # from the frame as well
    assert verticals["vertical"].tolist() == ["Fintech", "Healthtech"]
    assert verticals["rank"].tolist() == [1, 2]
    empty = top_countries_frame([])
    assert list(empty.dtypes) == list(countries.dtypes)


# ------------------------------------------------------------------ deals
def test_deals_frame_list_rows():
    df = deals_frame(load("deals_page.json"))
    assert len(df) == 4
    assert df["deal_date"].dtype == DATE and df.loc[0, "deal_date"] == pd.Timestamp("2025-03-14")
    assert df.loc[0, "created_at"] == utc("2025-03-14 23:00")  # -05:00
    assert df.loc[0, "updated_at"] == utc("2025-03-15 00:30")  # +01:00
    assert df.loc[1, "created_at"] == utc("2024-11-05 00:00")  # +09:00
    assert df.loc[3, "updated_at"] == utc("2024-12-31 18:30")  # +05:30
    assert list(df["deal_type"].cat.categories) == list(DEAL_TYPES)
    assert list(df["deal_subtype"].cat.categories) == list(DEAL_SUBTYPES)
    assert df.loc[0, "ev_revenue"] == 12.0 and df.loc[0, "ev_ebitda"] == -100.0
    assert np.isnan(df.loc[1, "ev_revenue"])
    assert df.loc[3, "deal_valuation"] == 2600.0 and df["deal_valuation"].dtype == np.float64
    assert df.loc[0, "target_name"] == "Fjord Labs AS"
    assert pd.isna(df.loc[2, "target_country"]) and pd.isna(df.loc[2, "target_short_name"])
    buyers, leads = to_lists(df["buyers"]), to_lists(df["lead_investors"])
    assert [p["name"] for p in buyers[0]] == ["Acme Robotics Inc", "Harbour Capital"]
    assert len(leads[1]) == 3 and leads[2] == [] and df.loc[2, "lead_investors"] == "[]"
    # list rows hold what list answers hold: no profile-only column
    for column in (
        "investors",
        "target_region",
        "target_city",
        "target_founded",
        "target_verticals",
    ):
        assert column not in df.columns
    assert "role" not in df.columns
    assert df.loc[3, "source_url"].startswith("https://")  # unknown field kept
    assert df["deleted"].tolist() == [False, False, False, True]


def test_deals_frame_single_profile():
    df = deals_frame(load("deal_profile.json"))
    assert len(df) == 1
    assert df.loc[0, "target_region"] == "Northern Europe"
    assert df.loc[0, "target_city"] == "Oslo"
    assert df.loc[0, "target_founded"] == 2019 and df["target_founded"].dtype == pd.Int64Dtype()
    assert df.loc[0, "target_verticals"] == '["Cloud infrastructure"]'
    assert to_lists(df["target_client_focus"])[0] == ["B2B"]
    investors = to_lists(df["investors"])[0]
    assert [p["short_name"] for p in investors] == ["Northwind", "Bayside"]
    assert investors[1]["country"] is None
    same = deals_frame([], profile=True)
    assert list(same.columns) == list(df.columns) and list(same.dtypes) == list(df.dtypes)


def test_deals_frame_role_rows():
    df = deals_frame(load("investments.json"))
    assert df["role"].tolist() == ["buyer", "lead_investor"]
    assert list(df["role"].cat.categories) == ["lead_investor", "buyer", "investor"]
    assert list(df.columns[-1:]) == ["role"]
    empty = deals_frame([], with_role=True)
    assert "role" in empty.columns and empty["role"].dtype == df["role"].dtype
    assert "role" not in deals_frame(load("investments.json"), with_role=False).columns


def test_deals_frame_roles_in_another_case_are_the_vocabulary():
    """Roles differing only in case, spaces, ``-`` or ``_`` are written as the vocabulary's
    (in every page layout); any other value is kept as an extra category."""
    rows = [
        {"id": "a", "role": "Lead_Investor"},
        {"id": "b", "role": " buyer"},
        {"id": "c", "role": "LEAD-INVESTOR"},
        {"id": "d", "role": "seller"},
        {"id": "e", "role": None},
    ]
    for df in (deals_frame(rows), list_from_pages([orjson.dumps({"data": rows})], with_role=None)):
        assert df["role"].tolist()[:4] == ["lead_investor", "buyer", "lead_investor", "seller"]
        assert pd.isna(df["role"].iloc[4])
        assert list(df["role"].cat.categories) == ["lead_investor", "buyer", "investor", "seller"]


def test_deals_frame_unknown_vocabulary_values_are_kept():
    df = deals_frame(
        [
            {"id": "a", "deal_type": "Crowdfunding", "deal_subtype": "Seed"},
            {"id": "b", "deal_type": "M&A"},
        ]
    )
    assert df["deal_type"].tolist() == ["Crowdfunding", "M&A"]
    cats = list(df["deal_type"].cat.categories)
    assert cats[: len(DEAL_TYPES)] == list(DEAL_TYPES) and cats[-1] == "Crowdfunding"


def test_deals_frame_bad_input():
    with pytest.raises(ValidationError):
        deals_frame("not a list")
    with pytest.raises(ValidationError):
        deals_frame([1, 2])
    with pytest.raises(ValidationError):
        deals_frame([{"id": "a", "created_at": "yesterday"}])
    with pytest.raises(ValidationError):
        deals_frame([{"id": "a", "deal_date": "14/03/2025"}])
    with pytest.raises(ValidationError):
        deals_frame([{"id": "a", "target": "Acme"}])
    with pytest.raises(ValueError):  # ValidationError is a ValueError too
        deals_frame([{"id": "a", "deal_raised": "ten"}])


# ------------------------------------------------------------------ pages
def test_deal_pages_equals_deals_frame_on_payload():
    page = (PAYLOADS / "deals_page.json").read_bytes()
    items = load("deals_page.json")["data"]
    pd.testing.assert_frame_equal(list_from_pages([page]), deals_frame(items))


def test_deal_pages_equals_deals_frame_across_pages():
    s = synth()
    pages = s.deal_pages(2_500, page_size=400, seed=3, n_investors=50)
    items = [item for p in pages for item in orjson.loads(p)["data"]]
    got = list_from_pages(pages)
    pd.testing.assert_frame_equal(got, deals_frame(items))
    assert got["buyers"].dtype == STR
    assert got["id"].tolist() == [i["id"] for i in items]
    assert [len(x) for x in to_lists(got["lead_investors"])] == [
        len(i["lead_investors"]) for i in items
    ]


def test_deal_pages_extras_and_categories_in_some_pages_only():
    pages_items = [
        [{"id": "a", "deal_type": "Venture", "deal_date": "2024-01-02"}],
        [{"id": "b", "deal_type": "Crowdfunding", "flag": True, "role": "buyer"}],
        [],
        [{"id": "c", "deal_type": "M&A", "score": 3, "target": {"id": "t", "rank": 2}}],
    ]
    pages = [orjson.dumps({"data": p, "meta": {"returned": len(p)}}) for p in pages_items]
    got = list_from_pages(pages, with_role=None)  # a role kept, as deals_frame keeps it
    want = deals_frame([i for p in pages_items for i in p])
    pd.testing.assert_frame_equal(got, want)
    assert got["flag"].dtype == pd.BooleanDtype() and got["score"].dtype == np.float64
    assert got["target_rank"].tolist()[2] == 2.0
    assert got["role"].tolist()[1] == "buyer" and pd.isna(got["role"].tolist()[0])


def test_deal_pages_text_that_is_not_text_in_one_page_only():
    # Text columns are typed once over every page; a page whose values are not all text
    # (an id sent as a number) takes the general path, and the frame is still the one
    # deals_frame builds from the same rows in one go.
    pages_items = [
        [{"id": "a", "deal_type": "Venture", "deal_date": "2024-01-02"}],
        [{"id": 7, "deal_type": 3, "deal_date": "2024-01-03", "updated_at": None}],
        [{"id": "c", "deal_type": "M&A", "updated_at": "2024-01-04T10:00:00+02:00"}],
    ]
    pages = [orjson.dumps({"data": p, "meta": {}}) for p in pages_items]
    got = list_from_pages(pages)
    pd.testing.assert_frame_equal(got, deals_frame([i for p in pages_items for i in p]))
    assert got["id"].tolist() == ["a", "7", "c"]
    assert got["deal_type"].tolist()[1] == 3 and got["deal_type"].tolist()[2] == "M&A"
    assert str(got["updated_at"].iloc[2]) == "2024-01-04 08:00:00+00:00"


@pytest.mark.parametrize("bad", [20240103, "03/01/2024"])
def test_deal_pages_a_bad_date_in_a_later_page_names_the_column(bad):
    pages = [
        orjson.dumps({"data": [{"id": "a", "deal_date": "2024-01-02"}], "meta": {}}),
        orjson.dumps({"data": [{"id": "b", "deal_date": bad}], "meta": {}}),
    ]
    with pytest.raises(ValidationError, match="deal_date"):
        list_from_pages(pages)


def test_deal_pages_empty_and_bad():
    empty = list_from_pages([])
    pd.testing.assert_frame_equal(empty, deals_frame([]))
    with pytest.raises(RefusedBody):  # the transport sends it again or fails it
        list_from_pages([b"{not json"])
    # ``data`` that is no list: the walk reads an empty page, and says so
    found = Findings("POST /transactions")
    assert (
        read_page(
            orjson.loads(b'{"data": {"id": "x"}, "meta": {"has_more": false}}'), found, number=1
        ).items
        == []
    )
    assert [f.kind for f in found] == ["wrong_shape"]


# ------------------------------------------------------------------ sub-collections
def test_subcollection_frames():
    ci = company_investors_frame(load("company_investors.json"))
    assert ci["rounds_participated"].tolist() == [2, 1]
    assert ci["is_lead_any_round"].tolist() == [True, False]
    assert ci.loc[0, "first_round_date"] == pd.Timestamp("2023-07-01")
    pf = portfolio_frame(load("portfolio.json"))
    assert pf["rounds_count"].dtype == pd.Int64Dtype()
    assert pf["led_any_round"].tolist() == [True, False]
    assert pd.isna(pf.loc[1, "country"])
    assert pf.loc[0, "last_invested"] == pd.Timestamp("2025-03-14")
    co = co_investors_frame(load("co_investors.json"))
    assert co["shared_deals"].tolist() == [2, 1]
    assert co["last_shared_date"].dtype == DATE


# ------------------------------------------------------------------ resolve
def test_resolve_frames():
    results, candidates = resolve_frames(load("resolve.json"))
    assert results["query"].tolist() == ["Acme Robotics", "Fjord", "Nonexistent Widgets"]
    assert results["match_type"].tolist() == ["exact", "ambiguous", "no_match"]
    assert list(results["match_type"].cat.categories) == ["exact", "ambiguous", "no_match"]
    assert results.loc[0, "id"].startswith("0b6c2f0e")
    assert results["id"].isna().tolist()[1:] == [True, True]
    assert "candidates" not in results.columns
    assert candidates["query"].tolist() == ["Fjord", "Fjord"]
    assert candidates["rank"].tolist() == [1, 2]
    assert candidates["score"].tolist() == [0.83, 0.61]
    assert candidates["country"].tolist() == ["NOR", "DNK"]
    r0, c0 = resolve_frames([])
    assert list(r0.dtypes) == list(results.dtypes) and list(c0.dtypes) == list(candidates.dtypes)
    _, c1 = resolve_frames([{"query": "x", "id": "i", "match_type": "exact"}])
    assert len(c1) == 0 and list(c1.columns) == ["query", "id", "name", "country", "score", "rank"]


# ------------------------------------------------------------------ aggregate
def test_aggregate_frame_quarters():
    payload = load("aggregate_quarter.json")
    df = aggregate_frame(payload["data"], payload["meta"])
    assert list(df.columns) == [
        "bucket",
        "period_start",
        "period_end",
        "n",
        "median",
        "q1",
        "q3",
        "warning",
    ]
    assert df["period_start"].tolist() == [
        pd.Timestamp(d) for d in ("2024-07-01", "2024-10-01", "2025-01-01", "2025-04-01")
    ]
    assert df["period_end"].tolist() == [
        pd.Timestamp(d) for d in ("2024-09-30", "2024-12-31", "2025-03-31", "2025-06-30")
    ]
    assert df["period_start"].dtype == DATE
    assert df["n"].dtype == pd.Int64Dtype() and df["n"].tolist() == [3, 12, 0, 9]
    assert np.isnan(df.loc[0, "median"]) and df.loc[1, "q3"] == 12.7
    assert df["warning"].dtype == STR
    assert df.loc[0, "warning"] == "small_n" and pd.isna(df.loc[1, "warning"])
    assert df.attrs["metric"] == "ev_revenue" and df.attrs["time_bucket"] == "quarter"
    assert df.attrs["total_deals"] == 24 and df.attrs["outliers_trimmed"] == 2
    assert df.attrs["methodology"]["small_n_threshold"] == 5
    assert df.attrs["date_range"] == {"from": "2024-08-15", "to": "2025-06-30"}


def test_aggregate_frame_labels_all_month_year():
    payload = load("aggregate_none.json")
    df = aggregate_frame(payload)  # envelope
    assert df.loc[0, "period_start"] == pd.Timestamp("2021-06-30")
    assert df.loc[0, "period_end"] == pd.Timestamp("2026-06-30")
    assert df.loc[0, "n"] == 412
    other = aggregate_frame(
        [{"bucket": "2024-02", "n": 5}, {"bucket": "2023", "n": 6}, {"bucket": "mystery", "n": 1}],
        {"metric": "raised"},
    )
    ts = pd.Timestamp
    assert other["period_start"].tolist()[:2] == [ts("2024-02-01"), ts("2023-01-01")]
    assert other["period_end"].tolist()[:2] == [ts("2024-02-29"), ts("2023-12-31")]
    assert pd.isna(other.loc[2, "period_start"])
    empty = aggregate_frame([], {})
    assert list(empty.dtypes) == list(other.dtypes)


# ------------------------------------------------------------------ participant columns
def test_participant_columns_are_canonical_json_text(tmp_path):
    df = deals_frame(load("deals_page.json"))
    for role in ("buyers", "lead_investors"):
        assert df[role].dtype == STR
    fields = ["country", "id", "name", "short_name", "website"]
    buyers = to_lists(df["buyers"])
    assert isinstance(buyers[0], list)
    assert [list(p) for p in buyers[0]] == [fields] * 2  # every field, sorted keys
    items = load("deals_page.json")["data"]
    assert [p["id"] for p in to_lists(df["lead_investors"])[1]] == [
        p["id"] for p in items[1]["lead_investors"]
    ]
    assert df.loc[2, "lead_investors"] == "[]"
    # the same participants in another key order (and missing fields) give the same text
    shuffled = [
        {**d, "buyers": [dict(reversed(list(p.items()))) for p in d["buyers"]]} for d in items
    ]
    assert deals_frame(shuffled)["buyers"].equals(df["buyers"])
    # plain strings: Parquet with default arguments gives them back
    df.to_parquet(tmp_path / "deals.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "deals.parquet"), df)


def test_deal_pages_reads_any_json_layout_and_refuses_bad_items():
    item = {"id": "a", "deal_date": "2024-01-02", "buyers": [{"id": "p", "name": "P"}]}

    def page(*items, indent=False):
        return orjson.dumps(
            {"data": list(items), "meta": {}}, option=orjson.OPT_INDENT_2 if indent else 0
        )

    readable = [
        [page(item, indent=True)],  # a page over many lines
        [page({**item, "seen": "2024-01-01T00:00:00Z"})],  # an unknown timestamp-like
        [page({**item, "meta": {"a": 1}})],  # an unknown object
    ]
    for pages in readable:
        items = [i for p in pages for i in orjson.loads(p)["data"]]
        pd.testing.assert_frame_equal(list_from_pages(pages), deals_frame(items))
    for bad in ([page({**item, "buyers": [None]})], [b'{"data": [null]}']):
        with pytest.raises(ValidationError):
            list_from_pages(bad)
    for refused in ([b'{"meta": {}}'], [b"[1, 2]"], [b"{not json"]):
        with pytest.raises(RefusedBody):
            list_from_pages(refused)


# ------------------------------------------------------------------ lookup
def test_lookup_frame():
    doc = load("lookup_transactions.json")
    df = lookup_frame(doc)
    assert list(df.columns) == ["field", "type", "operators", "values", "description"]
    assert len(df) == 7
    assert df.loc[0, "operators"] == '["in"]'
    assert pd.isna(df.loc[0, "values"])
    assert to_lists(df["values"])[1] == list(DEAL_TYPES)
    assert to_lists(df["values"])[4] == list(REGIONS)
    assert pd.isna(df.loc[1, "description"])
    assert df.attrs["sort_fields"] == ["deal_date", "deal_valuation", "deal_raised", "updated_at"]
    assert df.attrs["sub_resources"] == []
    assert df.attrs["aggregate"]["time_buckets"] == ["month", "quarter", "year", "none"]
    doc["data"]["sort_fields"].append("mutated")
    assert "mutated" not in df.attrs["sort_fields"]
    with pytest.raises(ValidationError):
        lookup_frame(["not", "a", "doc"])


def test_values_orjson_does_not_know_are_written_as_their_str():
    texts = encode([[{"id": Decimal("1.5")}], None, [1, "a"]], "x", array=True)
    assert list(texts)[0] == '[{"id":"1.5"}]' and list(texts)[2] == '[1,"a"]'
    assert pd.isna(list(texts)[1])


@pytest.mark.parametrize(
    ("field", "value"),
    [("deal_date", "29/06/2026"), ("deal_date", "2026-06-29T10:00:00Z"), ("created_at", "soon")],
)
def test_an_unreadable_date_is_a_one_line_error_without_pandas_advice(field, value):
    read = to_date if field == "deal_date" else to_utc
    with pytest.raises(ValidationError) as info:
        read([value, "2026-06-29" if field == "deal_date" else None], field)
    message = str(info.value)
    assert "\n" not in message and "You might want" not in message and field in message
    assert info.value.__suppress_context__  # the foreign error is not chained


def test_list_builders_name_an_unknown_entity():
    """A list name the builders do not know is a typed error naming ``entity`` (was a bare
    ``KeyError: 'deals'``: the deal list is ``transactions``, as the service names it)."""
    from dealframe.frames.private import list_frame, list_page_columns

    for build in (list_frame, list_page_columns):
        with pytest.raises(ValidationError, match="invalid entity: expected one of companies"):
            build("deals", [])
