"""Family B through the client, over real HTTP against the session sandbox.

Expectations come from raw ``requests`` calls to the same sandbox (the oracle), from the
interface document and docs/sandbox.md; never from the client's own shaping. Covered: every
filter operator (keyword arguments and a raw ``filters=`` dict, dates as str/date/Timestamp),
pagination edges, concurrent vs sequential pages, batches of more than 1,000 ids, profiles with
``fields``/``include_deleted``, the seven sub-collections for one id and many, resolve,
aggregate, lookup, and bad input refused before any request.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
import requests

import dealframe
from dealframe.client import Client
from dealframe.errors import (
    AmbiguousNameError,
    ConfigurationError,
    IncompleteResultError,
    NotFoundError,
    ValidationError,
)
from dealframe.notices import MissingDataWarning

PREFIX = "/api/private/v1"
TIMEOUT = 60
SUBS = {  # client method -> (entity, path, parent column, has role)
    "fundings": ("companies", "fundings", "company_id", False),
    "sellside": ("companies", "sellside", "company_id", False),
    "buyside": ("companies", "buyside", "company_id", True),
    "company_investors": ("companies", "investors", "company_id", False),
    "investments": ("investors", "investments", "investor_id", True),
    "co_investors": ("investors", "co_investors", "investor_id", False),
    "portfolio": ("investors", "portfolio", "investor_id", False),
}


# ---------------------------------------------------------------------------- oracle


class Raw:
    """Direct HTTP calls to Family B with ``requests``."""

    def __init__(self, sb: Any) -> None:
        self.base = sb.url + PREFIX
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {sb.private_key}"

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        resp = self.session.post(self.base + path, json=body, timeout=TIMEOUT)
        assert resp.status_code == 200, (path, body, resp.status_code, resp.text[:300])
        return resp.json()

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        resp = self.session.get(self.base + path, params=params, timeout=TIMEOUT)
        assert resp.status_code == 200, (path, params, resp.status_code, resp.text[:300])
        return resp.json()

    def pull(
        self, entity: str, filters: dict[str, Any] | None = None, sort: str | None = None
    ) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        page = 1
        while True:
            body: dict[str, Any] = {"filters": filters or {}, "limit": 1000, "page": page}
            if sort:
                body["sort"] = sort
            out = self.post(f"/{entity}", body)
            rows += out["data"]
            if not out["meta"]["has_more"]:
                return rows
            page += 1

    def sub(self, entity: str, ident: str, name: str) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        page = 1
        while True:
            out = self.get(f"/{entity}/{ident}/{name}", page=page, limit=1000)
            rows += out["data"]
            if not out["meta"]["has_more"]:
                return rows
            page += 1


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in rows]


@pytest.fixture(scope="module")
def raw(sandbox: Any) -> Raw:
    return Raw(sandbox)


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        for entity in ("companies", "investors", "transactions"):
            c.private.schema(entity)  # discovery loaded once, so later counts are about data
        yield c


@pytest.fixture(scope="module")
def world(raw: Raw) -> dict[str, Any]:
    """Ground truth pulled page by page with plain requests."""
    everything = {
        e: raw.pull(e, {"include_deleted": True})
        for e in ("companies", "investors", "transactions")
    }
    live = {e: [r for r in rows if not r["deleted"]] for e, rows in everything.items()}
    return {
        "all": everything,
        "live": live,
        "deleted": {e: [r["id"] for r in rows if r["deleted"]] for e, rows in everything.items()},
    }


def requests_made(client: Client) -> int:
    return client.stats.snapshot()["calls"]


# ---------------------------------------------------------------------------- filters


def _company_cases(world: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    rows = world["live"]["companies"]
    first = next(
        r
        for r in rows
        if r["verticals"]
        and r["themes"]
        and r["client_focus"]
        and r["revenue_model"]
        and r["company_type"]
    )
    listed = next(r for r in rows if r["ipoed"])
    word = first["name"].split()[0][:4].lower()
    return [
        ("name ilike", {"name": word}, {"name": {"ilike": word}}),
        ("name eq", {"name": {"eq": first["name"]}}, {"name": {"eq": first["name"]}}),
        (
            "name explicit ilike",
            {"name": {"ilike": word.upper()}},
            {"name": {"ilike": word.upper()}},
        ),  # two operators listed: written out
        (
            "country in",
            {"country": [first["country"], "GBR"]},
            {"country": [first["country"], "GBR"]},
        ),
        ("country one string", {"country": first["country"]}, {"country": [first["country"]]}),
        ("region in", {"region": [first["region"]]}, {"region": [first["region"]]}),
        (
            "verticals overlaps",
            {"verticals": first["verticals"][:1]},
            {"verticals": first["verticals"][:1]},
        ),
        ("themes overlaps", {"themes": first["themes"][:2]}, {"themes": first["themes"][:2]}),
        (
            "client_focus",
            {"client_focus": first["client_focus"][:1]},
            {"client_focus": first["client_focus"][:1]},
        ),
        (
            "revenue_model",
            {"revenue_model": first["revenue_model"][:1]},
            {"revenue_model": first["revenue_model"][:1]},
        ),
        (
            "company_type",
            {"company_type": first["company_type"][:1]},
            {"company_type": first["company_type"][:1]},
        ),
        ("ownership eq", {"ownership": first["ownership"]}, {"ownership": first["ownership"]}),
        ("active eq", {"active": False}, {"active": False}),
        (
            "founded gte/lte",
            {"founded_min": 2000, "founded_max": 2010},
            {"founded_min": 2000, "founded_max": 2010},
        ),
        (
            "ipoed str",
            {"ipoed_from": "2015-01-01", "ipoed_to": listed["ipoed"]},
            {"ipoed_from": "2015-01-01", "ipoed_to": listed["ipoed"]},
        ),
        ("ipoed date", {"ipoed_from": dt.date(2018, 3, 1)}, {"ipoed_from": "2018-03-01"}),
        (
            "ipoed Timestamp",
            {"ipoed_to": pd.Timestamp("2019-06-30 15:00")},
            {"ipoed_to": "2019-06-30"},
        ),
        (
            "updated_at str",
            {"updated_at": "2025-01-01T00:00:00+00:00"},
            {"updated_at": "2025-01-01T00:00:00+00:00"},
        ),
        (
            "updated_at datetime",
            {
                "updated_at": dt.datetime(
                    2025, 6, 1, 2, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))
                )
            },
            {"updated_at": "2025-06-01T00:00:00+00:00"},
        ),
        (
            "include_deleted",
            {"include_deleted": True, "country": [first["country"]]},
            {"include_deleted": True, "country": [first["country"]]},
        ),
    ]


def test_every_company_filter_matches_the_raw_endpoint(client, raw, world):
    for label, kwargs, wire in _company_cases(world):
        frame = client.private.companies(**kwargs)
        expected = ids(raw.pull("companies", wire))
        assert expected, label
        assert frame["id"].tolist() == expected, label
        assert frame.attrs["filters"] == wire, label
        # the same filters as a raw dict give the same rows
        assert client.private.companies(filters=kwargs)["id"].tolist() == expected, label


def _deal_cases(world: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    deals = world["live"]["transactions"]
    ma = next(d for d in deals if d["deal_type"] == "M&A" and d["buyers"])
    companies = {c["id"]: c for c in world["live"]["companies"]}
    fr = next(
        d
        for d in deals
        if d["lead_investors"] and companies.get(d["target"]["id"], {}).get("verticals")
    )
    fr_target = companies[fr["target"]["id"]]
    return [
        ("deal_type", {"deal_type": ["M&A", "Growth"]}, {"deal_type": ["M&A", "Growth"]}),
        ("deal_subtype", {"deal_subtype": "Series A"}, {"deal_subtype": ["Series A"]}),
        (
            "dates str",
            {"date_from": "2023-01-01", "date_to": "2023-12-31"},
            {"date_from": "2023-01-01", "date_to": "2023-12-31"},
        ),
        (
            "dates date/Timestamp",
            {"date_from": dt.date(2022, 4, 1), "date_to": pd.Timestamp("2022-09-30")},
            {"date_from": "2022-04-01", "date_to": "2022-09-30"},
        ),
        (
            "valuation",
            {"valuation_min": 100, "valuation_max": 5000.5},
            {"valuation_min": 100, "valuation_max": 5000.5},
        ),
        (
            "raised",
            {"raised_min": 10, "raised_max": np.float64(200)},
            {"raised_min": 10, "raised_max": 200.0},
        ),
        ("revenue", {"revenue_min": 5, "revenue_max": 500}, {"revenue_min": 5, "revenue_max": 500}),
        ("ebitda negative", {"ebitda_max": 0}, {"ebitda_max": 0}),
        ("ebitda min", {"ebitda_min": 10}, {"ebitda_min": 10}),
        (
            "ev_revenue",
            {"ev_revenue_min": 2, "ev_revenue_max": 8},
            {"ev_revenue_min": 2, "ev_revenue_max": 8},
        ),
        (
            "ev_ebitda",
            {"ev_ebitda_min": 5, "ev_ebitda_max": 30},
            {"ev_ebitda_min": 5, "ev_ebitda_max": 30},
        ),
        (
            "target_id",
            {"target_id": [ma["target"]["id"], fr["target"]["id"]]},
            {"target_id": [ma["target"]["id"], fr["target"]["id"]]},
        ),
        (
            "investor_id",
            {"investor_id": [ma["buyers"][0]["id"], fr["lead_investors"][0]["id"]]},
            {"investor_id": [ma["buyers"][0]["id"], fr["lead_investors"][0]["id"]]},
        ),
        (
            "target_country",
            {"target_country": [fr["target"]["country"]]},
            {"target_country": [fr["target"]["country"]]},
        ),
        (
            "target_region",
            {"target_region": ["Western Europe", "North America"]},
            {"target_region": ["Western Europe", "North America"]},
        ),
        (
            "target_verticals",
            {"target_verticals": fr_target["verticals"][:1]},
            {"target_verticals": fr_target["verticals"][:1]},
        ),
        (
            "target_themes",
            {"target_themes": ["Climate", "Generative AI"]},
            {"target_themes": ["Climate", "Generative AI"]},
        ),
        ("target_client_focus", {"target_client_focus": ["B2C"]}, {"target_client_focus": ["B2C"]}),
        (
            "target_revenue_model",
            {"target_revenue_model": ["Subscription"]},
            {"target_revenue_model": ["Subscription"]},
        ),
        (
            "target_company_type",
            {"target_company_type": ["Startup"]},
            {"target_company_type": ["Startup"]},
        ),
        (
            "updated_at Timestamp",
            {"updated_at": pd.Timestamp("2025-03-01", tz="UTC"), "include_deleted": True},
            {"updated_at": "2025-03-01T00:00:00+00:00", "include_deleted": True},
        ),
        ("id", {"id": [d["id"] for d in deals[:7]]}, {"id": [d["id"] for d in deals[:7]]}),
    ]


def test_every_deal_filter_matches_the_raw_endpoint(client, raw, world):
    nonempty = 0
    for label, kwargs, wire in _deal_cases(world):
        frame = client.private.deals(**kwargs)
        expected = ids(raw.pull("transactions", wire))
        nonempty += bool(expected)
        if "id" in wire:
            assert frame["id"].tolist() == wire["id"], label  # a batch by id keeps the ids' order
        else:
            assert frame["id"].tolist() == expected, label
        assert frame.attrs["filters"] == wire, label
        assert client.private.deals(filters=kwargs)["id"].tolist() == frame["id"].tolist(), label
    assert nonempty >= len(_deal_cases(world)) - 2


def test_investor_filters_and_sorts(client, raw, world):
    inv = world["live"]["investors"][3]
    cases = [
        ({"name": inv["name"].split()[0][:3]}, {"name": {"ilike": inv["name"].split()[0][:3]}}),
        ({"name": {"eq": inv["name"]}}, {"name": {"eq": inv["name"]}}),
        ({"country": [inv["country"]]}, {"country": [inv["country"]]}),
        ({"updated_at": "2024-01-01"}, {"updated_at": "2024-01-01T00:00:00+00:00"}),
    ]
    for kwargs, wire in cases:
        assert client.private.investors(**kwargs)["id"].tolist() == ids(raw.pull("investors", wire))
    for sort in ("name:desc", "updated_at", "updated_at:asc"):
        assert client.private.investors(sort=sort)["id"].tolist() == ids(
            raw.pull("investors", None, sort)
        )


def test_keyword_filters_conflicting_with_the_raw_dict_are_refused(client, raw):
    with pytest.raises(ValidationError, match=r"filters\['deal_type'\].*deal_type"):
        client.private.deals(filters={"deal_type": ["Growth"]}, deal_type=["M&A"], limit=50)
    frame = client.private.deals(filters={"deal_type": ["M&A"]}, deal_type=["M&A"], limit=50)
    assert set(frame["deal_type"].astype(str)) == {"M&A"}


def test_deals_sorts_match_the_raw_endpoint(client, raw):
    for sort in ("deal_valuation:desc", "deal_raised:asc", "deal_date:asc", "updated_at"):
        frame = client.private.deals(deal_type=["Venture"], sort=sort)
        assert frame["id"].tolist() == ids(
            raw.pull("transactions", {"deal_type": ["Venture"]}, sort)
        )


# ---------------------------------------------------------------------------- pagination


def test_pagination_edges(client, raw, world):
    deals = world["live"]["transactions"]
    assert len(deals) > 2500
    empty = client.private.deals(valuation_min=1e12)
    assert len(empty) == 0 and empty.attrs["requests"] == 1 and empty.attrs["rows_expected"] == 0
    one = client.private.deals(id=[deals[5]["id"]])
    assert one["id"].tolist() == [deals[5]["id"]] and one.attrs["requests"] == 1
    page = client.private.deals(limit=1000)
    assert page["id"].tolist() == ids(deals[:1000]) and page.attrs["requests"] == 1
    cut = client.private.deals(limit=1500)
    assert cut["id"].tolist() == ids(deals[:1500]) and cut.attrs["requests"] == 2
    small = client.private.deals(limit=7)
    assert small["id"].tolist() == ids(deals[:7]) and small.attrs["requests"] == 1
    full = client.private.deals(strict=True)
    assert full["id"].tolist() == ids(deals)
    assert full.attrs["requests"] == -(-len(deals) // 1000)
    assert full.attrs["rows_expected"] == full.attrs["rows_received"] == len(deals)
    assert full.attrs["duplicates_removed"] == 0 and full["id"].is_unique


def test_exactly_one_full_page_by_ids(client, world):
    wanted = ids(world["live"]["transactions"][1000:2000])
    frame = client.private.deals(id=wanted)
    assert frame["id"].tolist() == wanted
    assert frame.attrs["requests"] == 1 and frame.attrs["rows_expected"] == 1000


def test_more_than_1000_ids_are_split_into_batches(client, world):
    wanted = ids(world["live"]["transactions"][::2][:1700])[::-1]
    frame = client.private.deals(id=wanted)
    assert frame["id"].tolist() == wanted
    assert frame.attrs["requests"] == 2
    sorted_frame = client.private.deals(id=wanted, sort="deal_date:asc")
    assert sorted(sorted_frame["id"]) == sorted(wanted)
    assert sorted_frame["deal_date"].is_monotonic_increasing
    companies = ids(world["live"]["companies"][:1200])
    assert client.private.companies(id=companies)["id"].tolist() == companies


@pytest.mark.parametrize(
    ("method", "entity", "sort", "n"),
    [
        ("deals", "transactions", "deal_valuation:desc", 2400),
        ("deals", "transactions", "deal_date:asc", 2400),
        ("companies", "companies", "name:asc", 1500),
        ("companies", "companies", "founded:desc", 1500),
    ],
)
def test_a_sorted_lookup_of_several_batches_is_one_order(
    client, raw, world, method, entity, sort, n
):
    """Each batch of 1,000 ids is sorted by the service; the frame is in one order over all
    of them, and ``limit`` takes the first rows of that order, from whichever batch."""
    wanted = ids(world["live"][entity])[:n]
    np.random.default_rng(5).shuffle(wanted)
    asked = set(wanted)
    truth = [i for i in ids(raw.pull(entity, None, sort)) if i in asked]
    assert len(wanted) == n
    frame = getattr(client.private, method)(id=wanted, sort=sort)
    assert frame.attrs["requests"] == -(-n // 1000) > 1
    assert frame["id"].tolist() == truth
    top = getattr(client.private, method)(id=wanted, sort=sort, limit=7)
    assert top["id"].tolist() == truth[:7]
    assert top.attrs["missing_ids"] == []


def test_ids_in_any_case_and_repeated_keep_the_input_order(client, world):
    wanted = ids(world["live"]["transactions"][40:45])[::-1]
    given = [i.upper() for i in wanted] + [wanted[0]]
    frame = client.private.deals(id=given)
    assert frame["id"].tolist() == wanted
    assert frame.attrs["filters"]["id"] == wanted
    assert frame.attrs["rows_expected"] == len(wanted) and frame.attrs["duplicates_removed"] == 0


def test_concurrent_pages_equal_sequential_pages(sandbox, world):
    with (
        Client.for_sandbox(sandbox, progress=False, max_workers=1) as seq,
        Client.for_sandbox(sandbox, progress=False, max_workers=6) as par,
    ):
        for kwargs in ({}, {"sort": "deal_valuation:asc"}, {"include_deleted": True}):
            a, b = seq.private.deals(**kwargs), par.private.deals(**kwargs)
            assert a.attrs["requests"] > 2
            assert a["id"].tolist() == b["id"].tolist()
            pd.testing.assert_frame_equal(a, b)
        pd.testing.assert_frame_equal(seq.private.companies(), par.private.companies())


# ---------------------------------------------------------------------------- profiles


def test_company_profiles_single_and_many(client, raw, world):
    wanted = ids(world["live"]["companies"][10:16])[::-1]
    frame = client.private.company(wanted)
    assert frame["id"].tolist() == wanted and frame.attrs["requests"] == len(wanted)
    for ident in wanted[:2]:
        profile = raw.get(f"/companies/{ident}")["data"]
        row = frame.set_index("id").loc[ident]
        assert row["name"] == profile["name"]
        if profile["valuation"]["market_cap"] is not None:
            assert row["valuation_market_cap"] == profile["valuation"]["market_cap"]
        assert (
            row["deal_activity_total_fundings_as_target"]
            == profile["deal_activity"]["total_fundings_as_target"]
        )
    one = client.private.company(wanted[0])
    assert len(one) == 1 and list(one.columns) == list(frame.columns)


def test_profile_fields_allowlist(client, raw, world):
    ident = world["live"]["companies"][3]["id"]
    frame = client.private.company(ident, fields=["name", "country"])
    profile = raw.get(f"/companies/{ident}", fields="name,country")["data"]
    assert set(profile) == {"id", "name", "country"}
    assert frame.loc[0, "name"] == profile["name"] and frame.loc[0, "country"] == profile["country"]
    deal = world["live"]["transactions"][0]["id"]
    d = client.private.deal(deal, fields="deal_date")
    assert (
        d.loc[0, "id"] == deal
        and str(d.loc[0, "deal_date"].date()) == world["live"]["transactions"][0]["deal_date"]
    )


@pytest.mark.parametrize(
    "entity,method", [("companies", "company"), ("investors", "investor"), ("transactions", "deal")]
)
def test_soft_deleted_profiles(client, world, entity, method):
    ident = world["deleted"][entity][0]
    with pytest.raises(NotFoundError) as info:
        getattr(client.private, method)(ident)
    assert info.value.deleted is True and info.value.status == 404
    assert "include_deleted" in str(info.value)
    frame = getattr(client.private, method)(ident, include_deleted=True)
    assert frame["id"].tolist() == [ident] and bool(frame.loc[0, "deleted"]) is True


def test_unknown_id_is_not_found_and_not_deleted(client):
    with pytest.raises(NotFoundError) as info:
        client.private.investor("00000000-0000-4000-8000-000000000000")
    assert info.value.deleted is False


def test_profiles_of_many_ids_report_missing(client, world):
    live = world["live"]["investors"][0]["id"]
    gone = world["deleted"]["investors"][0]
    with pytest.warns(MissingDataWarning):
        frame = client.private.investor([gone, live])
    assert frame["id"].tolist() == [live]
    assert frame.attrs["missing_ids"] == [gone]


def test_investor_profile_and_top_lists(client, raw, world):
    ident = next(
        r["id"]
        for r in world["live"]["investors"]
        if raw.get(f"/investors/{r['id']}")["data"]["stats"]["top_countries"]
    )
    stats = raw.get(f"/investors/{ident}")["data"]["stats"]
    frame = client.private.investor(ident)
    assert frame.loc[0, "stats_total_deals"] == stats["total_deals"]
    top = client.private.investor_top(ident, "countries")
    assert top["country"].tolist() == [t["country"] for t in stats["top_countries"]]
    assert top["count"].tolist() == [t["count"] for t in stats["top_countries"]]
    verticals = client.private.investor_top(ident, "verticals")
    assert verticals["vertical"].tolist() == [t["vertical"] for t in stats["top_verticals"]]
    # provenance: the profile requests it was read from
    assert top.attrs["requests"] == frame.attrs["requests"] >= 1
    assert top.attrs["endpoint"] == frame.attrs["endpoint"]
    assert top.attrs["rows_received"] == len(top)


def test_investor_top_stopped_part_way_holds_the_top_rows_that_arrived(client, raw, world):
    """``strict=True`` and an id answered 404: the error's ``.partial`` is this call's frame
    (its top rows, columns and provenance, as docs/errors.md says of ``.partial``), not the
    profiles it was read from."""
    ident = next(
        r["id"]
        for r in world["live"]["investors"]
        if raw.get(f"/investors/{r['id']}")["data"]["stats"]["top_verticals"]
    )
    gone = "00000000-0000-4000-8000-000000000000"
    with pytest.raises(IncompleteResultError) as caught:
        client.private.investor_top([ident, gone], "verticals", strict=True)
    whole = client.private.investor_top(ident, "verticals")
    partial = caught.value.partial
    assert partial.columns.tolist() == ["investor_id", "vertical", "count", "rank"]
    pd.testing.assert_frame_equal(partial, whole)
    assert partial.attrs["missing_ids"] == [gone]
    assert partial.attrs["rows_received"] == len(whole)


def test_deal_profile_has_investors_and_rich_target(client, raw, world):
    deal = next(d for d in world["live"]["transactions"] if len(d["lead_investors"]) >= 1)
    profile = raw.get(f"/transactions/{deal['id']}")["data"]
    frame = client.private.deal(deal["id"])
    investors = dealframe.to_lists(frame["investors"])[0]
    assert [p["id"] for p in investors] == [p["id"] for p in profile["investors"]]
    assert frame.loc[0, "target_city"] == profile["target"]["city"]
    assert dealframe.to_lists(frame["target_verticals"])[0] == profile["target"]["verticals"]


# ---------------------------------------------------------------------------- sub-collections


@pytest.fixture(scope="module")
def busy(raw: Raw, world: dict[str, Any]) -> dict[str, list[str]]:
    """Ids with rows in their sub-collections: corporates that buy and lead, active investors."""
    company_ids = {r["id"] for r in world["live"]["companies"]}
    buyers = [
        p["id"]
        for d in world["live"]["transactions"]
        for p in d["buyers"] + d["lead_investors"]
        if p["id"] in company_ids
    ]
    targets = [d["target"]["id"] for d in world["live"]["transactions"] if d["deal_type"] == "M&A"]
    investors = [p["id"] for d in world["live"]["transactions"] for p in d["lead_investors"]]
    pick = lambda xs: list(dict.fromkeys(xs))[:3]  # noqa: E731
    return {"companies": pick(targets[:2] + buyers), "investors": pick(investors)}


@pytest.mark.parametrize("method", list(SUBS))
def test_sub_collections_for_one_id_and_many(client, raw, busy, method):
    entity, path, parent, has_role = SUBS[method]
    wanted = busy[entity]
    truth = {i: raw.sub(entity, i, path) for i in wanted}
    call = getattr(client.private, method)
    one = call(wanted[0])
    many = call(wanted)
    assert one[parent].tolist() == [wanted[0]] * len(truth[wanted[0]])
    assert one["id"].tolist() == ids(truth[wanted[0]])
    expected = [(i, r["id"]) for i in wanted for r in truth[i]]
    assert list(zip(many[parent], many["id"])) == expected
    assert sum(map(len, truth.values())) > 0, "pick ids with rows"
    assert list(one.columns) == list(many.columns) and list(one.dtypes) == list(many.dtypes)
    assert many.columns[0] == parent
    if has_role:
        assert many["role"].tolist() == [r["role"] for i in wanted for r in truth[i]]
        assert set(many["role"].dropna()) <= {"lead_investor", "buyer"}
    else:
        assert "role" not in many.columns
    if len(many):
        capped = call(wanted, limit=1)
        assert capped.groupby(parent).size().max() == 1


def test_a_sub_collection_reads_every_page_and_its_limit_stays_within_the_documents_bound():
    """``limit`` caps the rows per entity within the document's 1..1000 (section 4.2, and
    issue 4's bad input: outside it, a typed error before any request); without it every row
    is read, page after page. At scale 1 the busiest investor has more than 1,000
    co-investors: two pages."""
    with (
        dealframe.sandbox.run(scale=1.0, seed=7) as sb,  # the start-up snapshot other files use
        Client.for_sandbox(sb, progress=False, cache_enabled=False) as c,
    ):
        raw = Raw(sb)
        deals = Counter(p["id"] for d in sb.state.dataset.deals for p in d["investors"])
        candidates = [i for i, _ in deals.most_common(3)]  # the most deals, the most partners
        totals = {
            i: raw.get(f"/investors/{i}/co_investors", limit=1)["meta"]["total"] for i in candidates
        }
        busiest, other = sorted(totals, key=totals.__getitem__, reverse=True)[:2]
        truth = ids(raw.sub("investors", busiest, "co_investors"))
        assert len(truth) == totals[busiest] > 1000, "needs more rows than a page"
        every = c.private.co_investors(busiest)
        assert every["id"].tolist() == truth
        assert every.attrs["rows_total"] == len(truth)
        for limit in (1, 999, 1000):
            frame = c.private.co_investors(busiest, limit=limit)
            assert frame["id"].tolist() == truth[:limit], limit
            assert frame.attrs["truncated"] is True
        both = c.private.co_investors([busiest, other], limit=1000)
        assert both.groupby("investor_id").size().to_dict() == {
            busiest: 1000,
            other: min(1000, totals[other]),
        }
        sent = c.stats.snapshot()["network"]
        for bad in (0, 1001, 10**6):
            with pytest.raises(ValidationError, match=r"invalid limit: expected an integer from 1"):
                c.private.co_investors(busiest, limit=bad)
        assert c.stats.snapshot()["network"] == sent, "refused before any request"


def test_buyside_has_both_roles(client, raw, world):
    company_ids = {r["id"] for r in world["live"]["companies"]}
    leads = {
        p["id"] for d in world["live"]["transactions"] for p in d["lead_investors"]
    } & company_ids
    buyers = {p["id"] for d in world["live"]["transactions"] for p in d["buyers"]} & company_ids
    both = sorted(leads & buyers)[:2] or sorted(leads)[:1] + sorted(buyers)[:1]
    frame = client.private.buyside(both)
    assert set(frame["role"]) == {"lead_investor", "buyer"}


def test_sub_collection_of_deleted_company_raises(client, world):
    with pytest.raises(NotFoundError) as info:
        client.private.fundings(world["deleted"]["companies"][0])
    assert info.value.deleted is True


def test_sub_collections_of_many_ids_report_deleted_ones_as_missing(client, world):
    """As profiles do: a deal list's target_id column holds some soft-deleted companies, and
    their 404s must not cost the user every other company's rows."""
    gone = world["deleted"]["companies"][0]
    live = [r["id"] for r in world["live"]["companies"][:3]]
    alone = client.private.fundings(live)
    with pytest.warns(
        MissingDataWarning, match="1 of 4 companies answered 404 .no such id, soft-deleted"
    ):
        frame = client.private.fundings([live[0], gone, *live[1:]])
    assert frame.attrs["missing_ids"] == [gone]
    assert frame.equals(alone) and alone.attrs["missing_ids"] == []
    with pytest.raises(IncompleteResultError) as info:
        client.private.fundings([gone, *live], strict=True)
    assert info.value.failed == [gone] and info.value.partial.equals(alone)


# ---------------------------------------------------------------------------- resolve


def test_resolve_three_match_types_in_input_order(client, raw, world):
    rows = world["live"]["companies"]
    exact = rows[0]["name"]
    fuzzy = rows[1]["name"].split()[0]
    names = ["Qxzqv Nothing Here", exact.upper() + " Inc", fuzzy, exact]
    truth = raw.post("/companies/resolve", {"names": names})["data"]
    matches, candidates = client.private.resolve_companies(names)
    assert matches["query"].tolist() == names
    assert [str(t) for t in matches["match_type"]] == [t["match_type"] for t in truth]
    assert {"exact", "ambiguous", "no_match"} <= set(matches["match_type"].astype(str))
    assert matches["id"].tolist()[1] == rows[0]["id"] == matches["id"].tolist()[3]
    assert pd.isna(matches["id"].iloc[0])
    assert list(candidates.columns)[:6] == ["query", "id", "name", "country", "score", "rank"] or {
        "query",
        "id",
        "name",
        "country",
        "score",
        "rank",
    } <= set(candidates.columns)
    want = [
        (t["query"], c["id"], c["score"], r)
        for t in truth
        for r, c in enumerate(t.get("candidates") or [], start=1)
    ]
    got = list(zip(candidates["query"], candidates["id"], candidates["score"], candidates["rank"]))
    assert got == want
    assert candidates["score"].dtype == np.float64


def _ambiguous_with_a_best(raw, world) -> tuple[str, dict]:
    """The first investor name word (a fuzzy query) whose resolve has several candidates and one
    best."""
    for word in dict.fromkeys(r["name"].split()[0] for r in world["live"]["investors"]):
        truth = raw.post("/investors/resolve", {"names": [word]})["data"][0]
        scores = [c["score"] for c in truth.get("candidates") or []]
        if len(scores) > 1 and scores[0] > scores[1]:
            return word, truth
    raise AssertionError("no investor name word with several candidates and one best")


def test_resolve_on_ambiguous(client, raw, world):
    fuzzy, truth = _ambiguous_with_a_best(raw, world)
    assert truth["match_type"] == "ambiguous"
    none, _ = client.private.resolve_investors([fuzzy], on_ambiguous="none")
    assert pd.isna(none.loc[0, "id"])
    best, _ = client.private.resolve_investors([fuzzy], on_ambiguous="best")
    assert truth["candidates"][0]["score"] > truth["candidates"][1]["score"]
    assert best.loc[0, "id"] == truth["candidates"][0]["id"]
    assert best.attrs["tied"] == []
    with pytest.raises(AmbiguousNameError) as info:
        client.private.resolve_investors(["Qxzqv", fuzzy], on_ambiguous="raise")
    assert info.value.names == [fuzzy]


def test_resolve_best_leaves_tied_candidates_unchosen(client, raw, world):
    """Two companies with one name tie at the top: "best" cannot choose, and says so."""
    names = pd.Series([r["name"] for r in world["live"]["companies"]])
    shared = names[names.duplicated()].iloc[0]
    truth = raw.post("/companies/resolve", {"names": [shared, "Qxzqv"]})["data"]
    scores = [c["score"] for c in truth[0]["candidates"]]
    assert truth[0]["match_type"] == "ambiguous" and scores[0] == scores[1]
    with pytest.warns(MissingDataWarning, match="same score") as seen:
        best, candidates = client.private.resolve_companies([shared, "Qxzqv"], on_ambiguous="best")
    assert best["id"].isna().all()
    assert best.attrs["tied"] == [shared]
    assert (candidates["query"] == shared).sum() == len(scores)
    # the count and its verb agree: "1 name (...) has", "2 names (...) have"
    said = [str(w.message) for w in seen if "same score" in str(w.message)]
    assert said[0].startswith(f"1 name ({shared!r}) has several best candidates"), said
    other = names[names.duplicated() & (names != shared)].iloc[0]
    with pytest.warns(MissingDataWarning, match="same score") as seen:
        client.private.resolve_companies([shared, other], on_ambiguous="best")
    said = [str(w.message) for w in seen if "same score" in str(w.message)]
    assert said[0].startswith(f"2 names ({shared!r}, {other!r}) have several best"), said


def test_resolve_more_than_1000_names_is_batched(client, world):
    names = [r["name"] for r in world["live"]["companies"][:1100]] + ["Qxzqv Nothing"] * 150
    names = names[::-1]
    matches, _ = client.private.resolve_companies(names)
    assert matches["query"].tolist() == names
    assert matches.attrs["requests"] == 2
    assert str(matches["match_type"].iloc[0]) == "no_match"


# ---------------------------------------------------------------------------- aggregate, lookup


@pytest.mark.parametrize(
    "metric,bucket,kwargs,wire",
    [
        ("ev_revenue", "year", {}, {}),
        (
            "valuation",
            "quarter",
            {"deal_type": ["Venture", "Growth"], "date_from": dt.date(2022, 1, 1)},
            {"deal_type": ["Venture", "Growth"], "date_from": "2022-01-01"},
        ),
        (
            "raised",
            "month",
            {"date_from": "2025-01-01", "date_to": pd.Timestamp("2025-12-31")},
            {"date_from": "2025-01-01", "date_to": "2025-12-31"},
        ),
        (
            "ev_ebitda",
            "none",
            {"target_region": ["Western Europe"]},
            {"target_region": ["Western Europe"]},
        ),
    ],
)
def test_aggregate_equals_the_raw_endpoint(client, raw, metric, bucket, kwargs, wire):
    payload = raw.post(
        "/transactions/aggregate", {"metric": metric, "time_bucket": bucket, "filters": wire}
    )
    frame = client.private.aggregate(metric, bucket, **kwargs)
    assert ["bucket", "period_start", "period_end", "n", "median", "q1", "q3", "warning"] == list(
        frame.columns
    )[:8]
    assert frame["bucket"].tolist() == [b["bucket"] for b in payload["data"]]
    assert frame["n"].tolist() == [b["n"] for b in payload["data"]]
    for col in ("median", "q1", "q3"):
        want = np.array(
            [np.nan if b[col] is None else b[col] for b in payload["data"]], dtype=float
        )
        np.testing.assert_array_equal(frame[col].to_numpy(dtype=float), want)
    assert [None if pd.isna(w) else w for w in frame["warning"]] == [
        b["warning"] for b in payload["data"]
    ]
    for key, value in payload["meta"].items():
        assert frame.attrs[key] == value, key
    assert frame["period_start"].dtype.kind == "M"


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_lookup_frames_equal_the_discovery_documents(client, raw, entity):
    doc = raw.get(f"/lookup/{entity}")["data"]
    frame = client.private.lookup(entity)
    assert list(frame.columns)[:5] == ["field", "type", "operators", "values", "description"]
    assert frame["field"].tolist() == [f["field"] for f in doc["filters"]]
    assert dealframe.to_lists(frame["operators"]).tolist() == [
        f["operators"] for f in doc["filters"]
    ]
    assert dealframe.to_lists(frame["values"]).tolist() == [f.get("values") for f in doc["filters"]]
    for key in doc:
        if key != "filters":
            assert frame.attrs[key] == doc[key]


# ---------------------------------------------------------------------------- bad input


def _bad_calls(world: dict[str, Any]) -> list[tuple[Any, str, tuple[str, ...]]]:
    cid = world["live"]["companies"][0]["id"]
    return [
        (
            lambda p: p.deals(filters={"deal_kind": ["M&A"]}),
            "deal_kind",
            ("deal_type", "date_from"),
        ),
        (lambda p: p.deals(filters={"valuation": 5}), "valuation", ("valuation_min",)),
        (lambda p: p.companies(name={"gte": "a"}), "name", ("ilike", "eq")),
        (lambda p: p.companies(name={"eq": "a", "ilike": "b"}), "name", ()),
        (lambda p: p.deals(date_from="2024-13-01"), "date_from", ("YYYY-MM-DD",)),
        (lambda p: p.deals(date_to="yesterday"), "date_to", ("YYYY-MM-DD",)),
        (lambda p: p.deals(date_from=20240101), "date_from", ("YYYY-MM-DD",)),
        (lambda p: p.companies(ipoed_from="01/02/2020"), "ipoed_from", ()),
        (lambda p: p.companies(updated_at="not a time"), "updated_at", ()),
        (lambda p: p.deals(valuation_min="big"), "valuation_min", ("number",)),
        (lambda p: p.companies(active="yes"), "active", ("True",)),
        (lambda p: p.companies(country=["gbr"]), "country[0]", ("ISO 3166", "'GBR'")),
        (lambda p: p.investors(country=["GB"]), "country[0]", ("alpha-3",)),
        (lambda p: p.deals(target_country=["GBR", "France"]), "target_country[1]", ("USA",)),
        (lambda p: p.companies(name=""), "name", ("non-blank",)),
        (lambda p: p.investors(name={"eq": "  "}), "name", ("non-blank",)),
        (lambda p: p.resolve_companies(["Acme", ""]), "names[1]", ("non-blank",)),
        (lambda p: p.deals(strict="false"), "strict", ("True or False",)),
        (lambda p: p.deals(id=["not-a-uuid"]), "id[0]", ("UUID",)),
        (lambda p: p.deals(target_id=[cid, "123"]), "target_id[1]", ("UUID",)),
        (lambda p: p.company("nope"), "ids", ("UUID",)),
        (lambda p: p.investor([cid, "nope"]), "ids[1]", ("UUID",)),
        (lambda p: p.fundings("12345"), "ids", ("UUID",)),
        (
            lambda p: p.deals(sort="size:desc"),
            "sort",
            ("deal_date", "deal_valuation", "updated_at"),
        ),
        (lambda p: p.companies(sort="name:up"), "sort", ("asc", "desc")),
        (lambda p: p.investors(sort="founded"), "sort", ("name", "updated_at")),
        (lambda p: p.deals(limit=0), "limit", ()),
        (lambda p: p.deals(limit=-3), "limit", ()),
        (lambda p: p.companies(limit=2.5), "limit", ()),
        (lambda p: p.investors(limit=True), "limit", ()),
        (lambda p: p.fundings(cid, limit=0), "limit", ()),
        (lambda p: p.co_investors(cid, limit="10"), "limit", ()),
        (lambda p: p.portfolio(cid, limit=-1), "limit", ("from 1 to 1,000",)),
        (lambda p: p.fundings(cid, limit=1001), "limit", ("from 1 to 1,000", "None for every row")),
        (lambda p: p.buyside(cid, limit=True), "limit", ()),
        (lambda p: p.investments(cid, limit=2.5), "limit", ()),
        (lambda p: p.aggregate("multiple"), "metric", ("ev_revenue", "ebitda")),
        (
            lambda p: p.aggregate("ev_revenue", "week"),
            "time_bucket",
            ("month", "quarter", "year", "none"),
        ),
        (
            lambda p: p.aggregate("ev_revenue", "year", filters={"deal_kind": ["x"]}),
            "deal_kind",
            ("deal_type",),
        ),
        (
            lambda p: p.aggregate(
                "ev_revenue", "year", date_from="2024-02-01", date_to=dt.date(2023, 1, 1)
            ),
            "date_from",
            ("2023-01-01",),
        ),
        (
            lambda p: p.deals(date_from="2024-01-01", date_to=dt.date(2023, 1, 1)),
            "date_from",
            ("date_to", "2023-01-01"),
        ),
        (lambda p: p.companies(founded_min=2020, founded_max=2000), "founded_min", ("2000",)),
        (
            lambda p: p.companies(ipoed_from="2024-01-01", ipoed_to="2020-01-01"),
            "ipoed_from",
            ("ipoed_to",),
        ),
        (lambda p: p.deals(valuation_min=100, valuation_max=10.5), "valuation_min", ("10.5",)),
        (
            lambda p: p.deals(filters={"ev_ebitda_min": 8, "ev_ebitda_max": 2}),
            "ev_ebitda_min",
            ("ev_ebitda_max",),
        ),
        (lambda p: p.resolve_companies("Acme"), "names", ()),
        (lambda p: p.resolve_investors(["a", 3]), "names[1]", ()),
        (
            lambda p: p.resolve_companies(["a"], on_ambiguous="first"),
            "on_ambiguous",
            ("none", "best", "raise"),
        ),
        (lambda p: p.lookup("people"), "entity", ("companies", "investors", "transactions")),
        (lambda p: p.investor_top(cid, "cities"), "what", ("countries", "verticals")),
        (lambda p: p.company(cid, fields=[]), "fields", ()),
    ]


def test_bad_input_is_refused_before_any_request(client, world):
    for call, argument, mentions in _bad_calls(world):
        before = requests_made(client)
        with pytest.raises(ValidationError) as info:
            call(client.private)
        assert requests_made(client) == before, (argument, "a request was sent")
        assert info.value.argument == argument, (argument, info.value.argument, str(info.value))
        for word in mentions:
            assert word in str(info.value), (argument, word, str(info.value))


def test_unknown_filter_suggests_the_close_match(client):
    with pytest.raises(ValidationError) as info:
        client.private.deals(filters={"deal_typ": ["M&A"]})
    assert "did you mean 'deal_type'" in str(info.value)


def test_a_range_with_equal_bounds_is_sent(client):
    frame = client.private.deals(date_from="2024-01-01", date_to="2024-01-01", limit=5)
    assert (frame["deal_date"] == pd.Timestamp("2024-01-01")).all()


def test_enum_value_with_another_case_suggests_the_listed_value(client):
    with pytest.raises(ValidationError) as info:
        client.private.deals(deal_type=["m&a"])
    assert info.value.argument == "deal_type" and "did you mean 'M&A'" in str(info.value)


def test_enum_value_outside_the_list_refreshes_discovery_once_then_fails(client):
    before = requests_made(client)
    with pytest.raises(ValidationError) as info:
        client.private.deals(deal_type=["Mega round"])
    assert requests_made(client) - before == 1  # one discovery refresh, no list request
    assert info.value.argument == "deal_type"
    assert "M&A" in str(info.value) and "Mega round" in str(info.value)
    before = requests_made(client)
    with pytest.raises(ValidationError):
        client.private.companies(region=["Atlantis"])
    assert requests_made(client) - before == 1


# ---------------------------------------------------------------------------- schemas, provenance


def _schema(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return [(str(c), str(t)) for c, t in frame.dtypes.items()]


@pytest.mark.parametrize("method", ["companies", "investors", "deals"])
def test_list_schema_is_the_same_for_0_1_and_n_rows(client, method):
    call = getattr(client.private, method)
    nothing = {"deals": {"valuation_min": 1e12}}.get(method, {"name": {"eq": "Qxzqv Nothing"}})
    frames = [call(**nothing), call(limit=1), call(limit=200)]
    assert [len(f) for f in frames] == [0, 1, 200]
    assert _schema(frames[0]) == _schema(frames[1]) == _schema(frames[2])


@pytest.mark.parametrize("method", list(SUBS))
def test_sub_collection_schema_for_0_and_n_rows(client, busy, world, method):
    entity, _, parent, _ = SUBS[method]
    lonely = world["live"][entity][-1]["id"]
    frames = [getattr(client.private, method)(i) for i in (lonely, busy[entity])]
    assert _schema(frames[0]) == _schema(frames[1])


def test_list_provenance(client):
    frame = client.private.deals(deal_type=["M&A"])
    for key in (
        "endpoint",
        "requests",
        "rows_expected",
        "rows_received",
        "from_cache",
        "fetched_at",
    ):
        assert key in frame.attrs
    assert frame.attrs["endpoint"] == f"POST {PREFIX}/transactions"
    assert frame.attrs["rows_expected"] == len(frame) and frame.attrs["from_cache"] is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a complete pull warns about nothing
        client.private.companies(limit=10)


def test_single_page_matches_the_raw_endpoint(client, sandbox):
    import requests as raw

    frame = client.private.page(
        "transactions", {"deal_type": ["Venture"]}, sort="deal_date:asc", page=3, limit=7
    )
    body = {"filters": {"deal_type": ["Venture"]}, "sort": "deal_date:asc", "page": 3, "limit": 7}
    doc = raw.post(
        f"{sandbox.url}/api/private/v1/transactions",
        json=body,
        timeout=30,
        headers={"Authorization": f"Bearer {sandbox.private_key}"},
    ).json()
    assert frame["id"].tolist() == [d["id"] for d in doc["data"]]
    assert {k: frame.attrs[k] for k in doc["meta"]} == doc["meta"]
    with pytest.raises(ValidationError) as err:
        client.private.page("companies", limit=1001)
    assert err.value.argument == "limit"


def test_a_misspelt_filter_keyword_fails_at_the_call(client):
    """Filters are explicit, typed parameters: a typo is a TypeError naming it, never ignored."""
    with pytest.raises(TypeError, match="deal_kind"):
        client.private.deals(deal_kind=["M&A"])
    with pytest.raises(TypeError, match="feilds"):
        client.private.investor_top("00000000-0000-0000-0000-000000000000", feilds=["x"])


def test_numpy_integers_are_integers_for_limit_and_the_client_settings(sandbox, client):
    """What ``len``, ``df.shape``, ``Series.max()`` or ``np.arange`` give is an integer too:
    list ``limit`` (deals, companies, investors) and the client's ``max_workers`` and
    ``retries`` took only Python ints (ValidationError, ConfigurationError). Booleans are
    still refused, numpy's too."""
    with Client.for_sandbox(
        sandbox, progress=False, max_workers=np.int64(3), retries=np.uint8(1)
    ) as c:
        settings = (c.settings.max_workers, c.settings.retries)
        assert settings == (3, 1) and {type(n) for n in settings} == {int}
        for method in ("deals", "companies", "investors"):
            got = getattr(c.private, method)(limit=np.int64(10))
            want = getattr(client.private, method)(limit=10)
            assert got["id"].tolist() == want["id"].tolist() and len(got) == 10, method
        deals = c.private.deals(limit=np.int32(1500))  # two pages, the second cut
        assert deals["id"].tolist() == client.private.deals(limit=1500)["id"].tolist()
    with pytest.raises(ValidationError, match="limit"):
        client.private.deals(limit=np.bool_(True))
    with pytest.raises(ValidationError, match="limit"):
        client.private.companies(limit=True)
    with pytest.raises(ConfigurationError, match="max_workers"):
        Client.for_sandbox(sandbox, max_workers=np.bool_(True))
