"""Conformance of the Family B list endpoints (POST /companies, /investors, /transactions).

Written from the interface document (sections 2.2, 4.2, 4.4) and docs/sandbox.md: envelopes,
item shapes, pagination arithmetic, every filter and operator, every sort key, soft deletes
and the change feed. Expected rows come from the sandbox's raw dataset, never from its stores.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import (
    DEAL_SUBTYPES,
    DEAL_TYPES,
    REGIONS,
    Truth,
    assert_bad_request,
    check_company_list_item,
    check_deal,
    check_investor_list_item,
    check_page_meta,
    sort_key,
)

CHECKERS = {
    "companies": check_company_list_item,
    "investors": check_investor_list_item,
    "transactions": check_deal,
}


def rows_of(truth: Truth, entity: str) -> list[dict]:
    if entity == "transactions":
        return truth.deals_in_list_form()
    return {"companies": truth.companies, "investors": truth.investors}[entity]


def default_order(entity: str, rows: list[dict]) -> list[dict]:
    if entity == "transactions":
        return sort_key(rows, lambda r: r["deal_date"], True)
    return sort_key(rows, lambda r: r["name"], False)


def ids(rows: list[dict]) -> list[str]:
    return [r["id"] for r in rows]


def ts(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


# ------------------------------------------------------------------ envelopes, shapes, content


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_full_pull_equals_dataset_in_default_order(api, truth, entity):
    got = api.pull(entity, {"include_deleted": True})
    for row in got:
        CHECKERS[entity](row)
    expected = default_order(entity, rows_of(truth, entity))
    assert ids(got) == ids(expected)
    assert got == expected  # every field, every value
    assert any(r["deleted"] for r in got)


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_soft_deleted_rows_hidden_by_default(api, truth, entity):
    got = api.pull(entity)
    expected = default_order(entity, Truth.live(rows_of(truth, entity)))
    assert ids(got) == ids(expected)
    assert not any(r["deleted"] for r in got)
    # the explicit operator form and false are the same as the default
    assert ids(api.pull(entity, {"include_deleted": {"eq": False}})) == ids(expected)
    with_deleted = api.pull(entity, {"include_deleted": {"eq": True}})
    assert {r["id"] for r in with_deleted if r["deleted"]} == {
        r["id"] for r in rows_of(truth, entity) if r["deleted"]
    }


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_default_body_envelope_and_meta(api, truth, entity):
    for body in (None, {}):
        out = api.ok_post(f"/{entity}", body)
        assert set(out) == {"data", "meta"}
        live = len(Truth.live(rows_of(truth, entity)))
        check_page_meta(out["meta"], page=1, limit=100, total=live)
        assert len(out["data"]) == min(100, live)


def test_deal_list_target_and_participant_roles(api, truth):
    for row in api.pull("transactions", {"include_deleted": True}):
        if row["deal_type"] == "M&A":
            assert row["lead_investors"] == []
        else:
            assert row["buyers"] == []
        assert "investors" not in row


def test_deal_target_is_its_company_and_country_and_region_cohorts_agree(api):
    companies = {c["id"]: c for c in api.pull("companies", {"include_deleted": True})}
    deals = api.pull("transactions", {"include_deleted": True})
    for row in deals:  # every target field, country included, is the served company's
        company = companies[row["target"]["id"]]
        assert row["target"] == {
            k: company[k] for k in ("id", "name", "short_name", "website", "country")
        }
    countries_of: dict[str, set[str]] = {}
    for c in companies.values():
        countries_of.setdefault(c["region"], set()).add(c["country"])
    for region in ("Africa", "Western Europe", "North America"):
        by_region = {d["id"] for d in api.pull("transactions", {"target_region": [region]})}
        by_country = {
            d["id"]
            for d in api.pull("transactions", {"target_country": sorted(countries_of[region])})
        }
        assert by_region and by_region == by_country, region


# ------------------------------------------------------------------ pagination


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_pages_concatenate_to_every_row_once(api, truth, entity):
    expected = ids(default_order(entity, Truth.live(rows_of(truth, entity))))
    got = ids(api.pull(entity, limit=337))
    assert got == expected
    assert len(set(got)) == len(got)


def test_limit_one_and_past_the_end(api, truth):
    live = default_order("investors", Truth.live(truth.investors))
    total = len(live)
    for page in (1, 2, total):
        out = api.ok_post("/investors", {"limit": 1, "page": page})
        check_page_meta(out["meta"], page=page, limit=1, total=total)
        assert ids(out["data"]) == [live[page - 1]["id"]]
    assert out["meta"]["has_more"] is False
    for page in (total + 1, total + 50):
        out = api.ok_post("/investors", {"limit": 1, "page": page})
        assert out["data"] == []
        check_page_meta(out["meta"], page=page, limit=1, total=total)
    out = api.ok_post("/investors", {"limit": 100, "page": total // 100 + 2})
    assert out["data"] == [] and out["meta"]["total"] == total and out["meta"]["returned"] == 0


def test_limit_1000(api, truth):
    live = default_order("transactions", Truth.live(rows_of(truth, "transactions")))
    out = api.ok_post("/transactions", {"limit": 1000, "page": 2})
    check_page_meta(out["meta"], page=2, limit=1000, total=len(live))
    assert ids(out["data"]) == ids(live[1000:2000])


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
@pytest.mark.parametrize(
    "body, field",
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": "x"}, "limit"),
        ({"limit": -5}, "limit"),
        ({"limit": 1.5}, "limit"),
        ({"limit": True}, "limit"),
        ({"limit": None}, "limit"),
        ({"page": 0}, "page"),
        ({"page": -1}, "page"),
        ({"page": "2"}, "page"),
        ({"page": 1.0}, "page"),
        ({"offset": 10}, "offset"),
        ({"filters": []}, "filters"),
        ({"filters": "name"}, "filters"),
        ({"sort": 5}, "sort"),
    ],
)
def test_bad_list_bodies(api, entity, body, field):
    assert_bad_request(api.post(f"/{entity}", body), field)


@pytest.mark.parametrize("raw", [b"{", b"[]", b'"x"', b"42", b"[{}]", b"{'limit': 1}"])
def test_malformed_or_non_object_bodies(api, raw):
    resp = api.post("/companies", data=raw, headers={"Content-Type": "application/json"})
    assert_bad_request(resp, "body")


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"[]", "got array"),
        (b'"x"', "got string"),
        (
            b'{"filters": {"investor_id": [null]}}',
            "filters.investor_id[0]: expected a string, got null",
        ),
        (b'{"filters": {"target_country": 5}}', "got number"),
        (b'{"filters": []}', "got array"),
    ],
)
def test_problems_name_json_types_not_python_ones(api, raw, said):
    resp = api.post("/transactions", data=raw, headers={"Content-Type": "application/json"})
    errors = resp.json()["error"]["details"]["errors"]
    assert resp.status_code == 400 and any(said in e for e in errors), errors
    assert not any(t in e for e in errors for t in ("NoneType", " list", " dict", " int"))


@pytest.mark.parametrize(
    ("entity", "filters", "said"),
    [
        (
            "transactions",
            {"date_from": "2021-01-01", "date_to": "2020-12-31"},
            "filters.date_from: 2021-01-01 is after filters.date_to 2020-12-31",
        ),
        (
            "transactions",
            {"ev_revenue_min": 2.5, "ev_revenue_max": {"lte": 1}},
            "filters.ev_revenue_min: 2.5 is above filters.ev_revenue_max 1",
        ),
        (
            "companies",
            {"founded_min": 2010, "founded_max": 2000},
            "filters.founded_min: 2010 is above filters.founded_max 2000",
        ),
        (
            "companies",
            {"ipoed_from": "2021-01-01", "ipoed_to": "2020-01-01"},
            "filters.ipoed_from: 2021-01-01 is after filters.ipoed_to 2020-01-01",
        ),
    ],
)
def test_a_reversed_range_is_refused_as_the_aggregate_refuses_it(api, entity, filters, said):
    errors = assert_bad_request(api.post(f"/{entity}", {"filters": filters}), "filters")
    assert said in errors, errors
    equal_ends = {k: v if not isinstance(v, dict) else 1 for k, v in filters.items()}
    low, high = list(filters)
    equal_ends[high] = equal_ends[low]
    assert api.post(f"/{entity}", {"filters": equal_ends}).status_code == 200


def test_a_null_body_is_an_omitted_body_where_the_body_is_optional(api):
    resp = api.post("/transactions", data=b"null", headers={"Content-Type": "application/json"})
    assert resp.status_code == 200 and resp.json()["meta"]["page"] == 1


def test_every_problem_is_reported_at_once(api):
    errors = assert_bad_request(
        api.post("/companies", {"limit": 0, "page": 0, "filters": {"nope": 1}}),
        "limit",
        "page",
        "nope",
    )
    assert len(errors) >= 3


# ------------------------------------------------------------------ company filters


def company_cases(truth: Truth) -> list[tuple[str, dict, object]]:
    """(label, filters, predicate) cases for every company filter and operator of section 4.4."""
    live = Truth.live(truth.companies)
    name = live[len(live) // 2]["name"]
    fragment = name[1:5]
    founded = statistics.median_low(sorted(r["founded"] for r in live))
    ipos = sorted(r["ipoed"] for r in live if r["ipoed"])
    ipo_lo, ipo_hi = ipos[len(ipos) // 4], ipos[3 * len(ipos) // 4]
    stamps = sorted(r["updated_at"] for r in truth.companies)
    stamp = stamps[len(stamps) * 2 // 3]
    sample = live[7]
    vert = sample["verticals"][0]
    theme = next(r["themes"][0] for r in live if r["themes"])
    focus = sample["client_focus"][0]
    model = sample["revenue_model"][0]
    ctype = sample["company_type"][0]
    owner = live[3]["ownership"]
    countries = sorted({live[1]["country"], live[2]["country"]})
    ten = [r["id"] for r in truth.companies[::200]]
    # the same instant as `stamp`, written with a +02:00 offset
    shifted = ts(stamp).astimezone(dt.timezone(dt.timedelta(hours=2))).isoformat()
    return [
        ("id in", {"id": ten}, lambda r: r["id"] in ten),
        ("id in op", {"id": {"in": ten[:3]}}, lambda r: r["id"] in ten[:3]),
        ("id upper case", {"id": [i.upper() for i in ten[:2]]}, lambda r: r["id"] in ten[:2]),
        (
            "name ilike plain",
            {"name": fragment.upper()},
            lambda r: fragment.lower() in r["name"].lower(),
        ),
        (
            "name ilike op",
            {"name": {"ilike": fragment.lower()}},
            lambda r: fragment.lower() in r["name"].lower(),
        ),
        ("name eq", {"name": {"eq": name}}, lambda r: r["name"] == name),
        (
            "name eq other case",
            {"name": {"eq": name.swapcase()}},
            lambda r: r["name"] == name.swapcase(),
        ),
        ("name ilike percent", {"name": "%"}, lambda r: "%" in r["name"]),
        ("name ilike underscore", {"name": {"ilike": "a_"}}, lambda r: "a_" in r["name"].lower()),
        (
            "name ilike percent inside",
            {"name": name[:2] + "%" + name[3:5]},
            lambda r: (name[:2] + "%" + name[3:5]).lower() in r["name"].lower(),
        ),
        ("country in", {"country": countries}, lambda r: r["country"] in countries),
        (
            "country in op",
            {"country": {"in": countries[:1]}},
            lambda r: r["country"] == countries[0],
        ),
        (
            "region in",
            {"region": ["Oceania", "Middle East"]},
            lambda r: r["region"] in ("Oceania", "Middle East"),
        ),
        ("verticals overlaps", {"verticals": [vert, "Nope"]}, lambda r: vert in r["verticals"]),
        ("themes overlaps op", {"themes": {"overlaps": [theme]}}, lambda r: theme in r["themes"]),
        ("client_focus overlaps", {"client_focus": [focus]}, lambda r: focus in r["client_focus"]),
        (
            "revenue_model overlaps",
            {"revenue_model": [model]},
            lambda r: model in r["revenue_model"],
        ),
        ("company_type overlaps", {"company_type": [ctype]}, lambda r: ctype in r["company_type"]),
        ("overlaps empty list", {"verticals": []}, lambda r: False),
        ("ownership eq", {"ownership": owner}, lambda r: r["ownership"] == owner),
        ("ownership eq op", {"ownership": {"eq": owner}}, lambda r: r["ownership"] == owner),
        ("active true", {"active": True}, lambda r: r["active"] is True),
        ("active false op", {"active": {"eq": False}}, lambda r: r["active"] is False),
        ("founded_min", {"founded_min": founded}, lambda r: r["founded"] >= founded),
        ("founded_max", {"founded_max": founded}, lambda r: r["founded"] <= founded),
        (
            "founded range op",
            {"founded_min": {"gte": founded - 2}, "founded_max": {"lte": founded}},
            lambda r: founded - 2 <= r["founded"] <= founded,
        ),
        ("founded float", {"founded_min": founded + 0.5}, lambda r: r["founded"] >= founded + 0.5),
        (
            "ipoed_from",
            {"ipoed_from": ipo_lo},
            lambda r: r["ipoed"] is not None and r["ipoed"] >= ipo_lo,
        ),
        (
            "ipoed_to",
            {"ipoed_to": ipo_hi},
            lambda r: r["ipoed"] is not None and r["ipoed"] <= ipo_hi,
        ),
        ("ipoed both", {"ipoed_from": ipo_lo, "ipoed_to": ipo_lo}, lambda r: r["ipoed"] == ipo_lo),
        ("updated_at", {"updated_at": stamp}, lambda r: ts(r["updated_at"]) >= ts(stamp)),
        (
            "updated_at other offset",
            {"updated_at": {"gte": shifted}},
            lambda r: ts(r["updated_at"]) >= ts(stamp),
        ),
        (
            "combined",
            {"region": [sample["region"]], "verticals": [vert], "active": True},
            lambda r: r["region"] == sample["region"] and vert in r["verticals"] and r["active"],
        ),
    ]


@pytest.fixture(scope="module")
def company_case_list(truth):
    return company_cases(truth)


def test_company_filters(api, truth, company_case_list):
    live = default_order("companies", Truth.live(truth.companies))
    nonempty = 0
    for label, filters, pred in company_case_list:
        expected = ids([r for r in live if pred(r)])
        got = ids(api.pull("companies", filters))
        assert got == expected, label
        nonempty += bool(expected)
    assert nonempty >= len(company_case_list) - 6  # cases really select something


def test_company_filters_with_deleted(api, truth):
    everything = default_order("companies", truth.companies)
    deleted = [r for r in everything if r["deleted"]]
    wanted = [deleted[0]["id"], deleted[1]["id"], everything[5]["id"]]
    assert ids(api.pull("companies", {"id": wanted})) == [
        i for i in ids(everything) if i in wanted[2:]
    ]
    got = api.pull("companies", {"id": wanted, "include_deleted": True})
    assert ids(got) == [i for i in ids(everything) if i in wanted]
    assert [r["deleted"] for r in got] == [r["deleted"] for r in everything if r["id"] in wanted]


def test_batch_by_id_duplicates_and_unknown_ids(api, truth):
    wanted = ids(Truth.live(truth.companies))[:4]
    unknown = "00000000-0000-4000-8000-000000000000"
    got = api.pull("companies", {"id": wanted + wanted[:2] + [unknown]})
    assert sorted(ids(got)) == sorted(wanted)


def test_investor_list_is_leads_and_buyers(api, truth):
    # section 4.3: investors are organisations that led funding rounds or acquired companies
    listed = set(ids(api.pull("investors", {"include_deleted": True})))
    acting = {p["id"] for d in truth.deals for p in d["lead_investors"] + d["buyers"]}
    assert acting <= listed
    assert listed <= acting, (
        f"{len(listed - acting)} investors never led a round nor bought a company"
    )


def test_batch_by_id_limits(api, truth):
    thousand = ids(truth.companies)[:1000]
    out = api.ok_post(
        "/companies", {"filters": {"id": thousand, "include_deleted": True}, "limit": 1000}
    )
    assert out["meta"]["total"] == 1000
    assert_bad_request(
        api.post("/companies", {"filters": {"id": ids(truth.companies)[:1001]}}), "id"
    )


# ------------------------------------------------------------------ investor filters


def test_investor_filters(api, truth):
    live = default_order("investors", Truth.live(truth.investors))
    name = live[len(live) // 3]["name"]
    fragment = name[2:6]
    countries = sorted({live[0]["country"], live[4]["country"]})
    stamp = sorted(r["updated_at"] for r in truth.investors)[len(truth.investors) // 2]
    some = ids(truth.investors)[::40]
    cases = [
        ({"id": some}, lambda r: r["id"] in some),
        ({"name": fragment.swapcase()}, lambda r: fragment.lower() in r["name"].lower()),
        ({"name": {"ilike": fragment}}, lambda r: fragment.lower() in r["name"].lower()),
        ({"name": {"eq": name}}, lambda r: r["name"] == name),
        ({"name": "%"}, lambda r: "%" in r["name"]),
        ({"name": "_"}, lambda r: "_" in r["name"]),
        ({"country": countries}, lambda r: r["country"] in countries),
        ({"country": {"in": countries}}, lambda r: r["country"] in countries),
        ({"updated_at": stamp}, lambda r: ts(r["updated_at"]) >= ts(stamp)),
        (
            {"updated_at": {"gte": stamp}, "country": countries},
            lambda r: ts(r["updated_at"]) >= ts(stamp) and r["country"] in countries,
        ),
    ]
    for filters, pred in cases:
        assert ids(api.pull("investors", filters)) == ids([r for r in live if pred(r)]), filters


# ------------------------------------------------------------------ transaction filters


def _metric(deal: dict, name: str):
    if name.startswith("ev_"):
        return deal["deal_multiples"][name]
    return deal[f"deal_{name}"]


def test_transaction_filters(api, truth):
    deals = truth.deals_in_list_form()
    live = default_order("transactions", Truth.live(deals))
    target = truth.target_of
    by_target: dict[str, int] = {}
    for d in live:
        by_target[d["target"]["id"]] = by_target.get(d["target"]["id"], 0) + 1
    busy_target = max(by_target, key=lambda k: (by_target[k], k))
    lead = next(d["lead_investors"][0]["id"] for d in live if d["lead_investors"])
    buyer = next(d["buyers"][0]["id"] for d in live if d["buyers"])
    non_lead = next(
        p["id"]
        for d in truth.deals
        for p in d["investors"]
        if p["id"] not in {q["id"] for q in d["lead_investors"]} and d["deal_type"] != "M&A"
    )
    dates = sorted(d["deal_date"] for d in live)
    d_lo, d_hi = dates[len(dates) // 3], dates[2 * len(dates) // 3]
    some = ids(live)[::97]
    stamp = sorted(d["updated_at"] for d in deals)[len(deals) // 2]
    sample_t = target(live[11])
    vert = sample_t["verticals"][0]
    cases: list[tuple[dict, object]] = [
        ({"id": some}, lambda d: d["id"] in some),
        ({"target_id": [busy_target]}, lambda d: d["target"]["id"] == busy_target),
        (
            {"target_id": {"in": [busy_target, live[0]["target"]["id"]]}},
            lambda d: d["target"]["id"] in (busy_target, live[0]["target"]["id"]),
        ),
        (
            {"investor_id": [lead]},
            lambda d: lead in {p["id"] for p in d["lead_investors"] + d["buyers"]},
        ),
        (
            {"investor_id": [buyer, lead]},
            lambda d: {buyer, lead} & {p["id"] for p in d["lead_investors"] + d["buyers"]},
        ),
        # a participant that is not a lead does not match investor_id through that deal
        (
            {"investor_id": [non_lead]},
            lambda d: non_lead in {p["id"] for p in d["lead_investors"] + d["buyers"]},
        ),
        ({"deal_type": ["M&A"]}, lambda d: d["deal_type"] == "M&A"),
        (
            {"deal_type": {"in": ["Early", "Growth"]}},
            lambda d: d["deal_type"] in ("Early", "Growth"),
        ),
        (
            {"deal_subtype": ["Seed", "Series B"]},
            lambda d: d["deal_subtype"] in ("Seed", "Series B"),
        ),
        ({"date_from": d_lo}, lambda d: d["deal_date"] >= d_lo),
        ({"date_to": d_hi}, lambda d: d["deal_date"] <= d_hi),
        ({"date_from": {"gte": d_lo}, "date_to": {"lte": d_lo}}, lambda d: d["deal_date"] == d_lo),
        (
            {"target_country": [sample_t["country"]]},
            lambda d: d["target"]["country"] == sample_t["country"],
        ),
        (
            {"target_region": ["Africa", "Oceania"]},
            lambda d: target(d)["region"] in ("Africa", "Oceania"),
        ),
        ({"target_verticals": [vert]}, lambda d: vert in target(d)["verticals"]),
        ({"updated_at": stamp}, lambda d: ts(d["updated_at"]) >= ts(stamp)),
        (
            {"deal_type": ["Venture"], "target_region": [sample_t["region"]], "date_from": d_lo},
            lambda d: (
                d["deal_type"] == "Venture"
                and target(d)["region"] == sample_t["region"]
                and d["deal_date"] >= d_lo
            ),
        ),
    ]
    for key in ("themes", "client_focus", "revenue_model", "company_type"):
        value = next(target(d)[key][0] for d in live if target(d)[key])
        cases.append(({f"target_{key}": [value]}, lambda d, k=key, v=value: v in target(d)[k]))
        cases.append(
            (
                {f"target_{key}": {"overlaps": [value, "zzz"]}},
                lambda d, k=key, v=value: v in target(d)[k],
            )
        )
    for name in ("valuation", "raised", "revenue", "ebitda", "ev_revenue", "ev_ebitda"):
        values = sorted(v for d in live if (v := _metric(d, name)) is not None)
        lo, hi = values[len(values) // 4], values[3 * len(values) // 4]
        cases.append(
            (
                {f"{name}_min": lo},
                lambda d, n=name, x=lo: _metric(d, n) is not None and _metric(d, n) >= x,
            )
        )
        cases.append(
            (
                {f"{name}_max": {"lte": hi}},
                lambda d, n=name, x=hi: _metric(d, n) is not None and _metric(d, n) <= x,
            )
        )
        cases.append(
            (
                {f"{name}_min": {"gte": lo}, f"{name}_max": lo},
                lambda d, n=name, x=lo: _metric(d, n) == x,
            )
        )
    for filters, pred in cases:
        expected = ids([d for d in live if pred(d)])
        assert expected, filters
        assert ids(api.pull("transactions", filters)) == expected, filters


def test_deleted_deal_by_id_only_with_include_deleted(api, truth):
    deleted = next(d for d in truth.deals if d["deleted"])
    out = api.pull("transactions", {"id": [deleted["id"]]})
    assert out == []
    out = api.pull("transactions", {"id": [deleted["id"]], "include_deleted": True})
    assert [r["id"] for r in out] == [deleted["id"]] and out[0]["deleted"] is True


# ------------------------------------------------------------------ filter errors


@pytest.mark.parametrize(
    "entity, filters, field",
    [
        ("companies", {"nope": 1}, "nope"),
        ("companies", {"deal_type": ["M&A"]}, "deal_type"),  # another entity's filter
        ("companies", {"name": {"like": "a"}}, "name"),  # unknown operator
        (
            "companies",
            {"name": {"between": ["a", "b"]}},
            "name",
        ),  # listed by the document, taken by no field
        ("companies", {"country": {"eq": "USA"}}, "country"),  # operator not allowed for the field
        ("companies", {"name": {"eq": "a", "ilike": "b"}}, "name"),  # two operators in one object
        ("companies", {"name": {}}, "name"),
        ("companies", {"name": 5}, "name"),
        ("companies", {"name": ["a"]}, "name"),
        ("companies", {"country": "USA"}, "country"),
        ("companies", {"country": [1, 2]}, "country"),
        ("companies", {"region": ["Atlantis"]}, "region"),
        ("companies", {"region": ["north america"]}, "region"),
        ("companies", {"verticals": "Fintech"}, "verticals"),
        ("companies", {"active": "yes"}, "active"),
        ("companies", {"active": 1}, "active"),
        ("companies", {"founded_min": "abc"}, "founded_min"),
        ("companies", {"founded_min": True}, "founded_min"),
        ("companies", {"founded_max": {"gte": 2000}}, "founded_max"),
        ("companies", {"ipoed_from": "2020-13-01"}, "ipoed_from"),
        ("companies", {"ipoed_from": "20200101"}, "ipoed_from"),
        ("companies", {"ipoed_to": 2020}, "ipoed_to"),
        ("companies", {"updated_at": "yesterday"}, "updated_at"),
        ("companies", {"updated_at": {"lte": "2020-01-01T00:00:00+00:00"}}, "updated_at"),
        ("companies", {"include_deleted": "true"}, "include_deleted"),
        ("companies", {"id": ["not-a-uuid"]}, "id"),
        ("companies", {"id": "c105457d-72f2-4a59-9432-96639a09a8f0"}, "id"),
        ("companies", {"id": [123]}, "id"),
        ("investors", {"region": ["Africa"]}, "region"),
        ("investors", {"active": True}, "active"),
        ("investors", {"id": ["zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"]}, "id"),
        ("investors", {"country": {"overlaps": ["USA"]}}, "country"),
        ("transactions", {"deal_type": ["Foo"]}, "deal_type"),
        ("transactions", {"deal_type": ["m&a"]}, "deal_type"),
        ("transactions", {"deal_subtype": ["Series Z"]}, "deal_subtype"),
        ("transactions", {"target_region": ["Mars"]}, "target_region"),
        ("transactions", {"target_id": ["123"]}, "target_id"),
        ("transactions", {"investor_id": ["c105457d-72f2-4a59-9432-96639a09a8f"]}, "investor_id"),
        ("transactions", {"date_from": "2020-02-30"}, "date_from"),
        ("transactions", {"date_to": "last year"}, "date_to"),
        ("transactions", {"valuation_min": "10"}, "valuation_min"),
        ("transactions", {"raised_max": [1]}, "raised_max"),
        ("transactions", {"ev_ebitda_min": {"lte": 3}}, "ev_ebitda_min"),
        ("transactions", {"name": "x"}, "name"),
        ("transactions", {"target_verticals": {"in": ["Fintech"]}}, "target_verticals"),
    ],
)
def test_bad_filters_name_the_field(api, entity, filters, field):
    assert_bad_request(api.post(f"/{entity}", {"filters": filters}), field)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_json_numbers_are_malformed_json(api, value):
    # NaN / Infinity are not JSON; a client that sends them gets a 400, never a 500
    raw = json.dumps({"filters": {"valuation_min": value}}).encode()
    resp = api.post("/transactions", data=raw, headers={"Content-Type": "application/json"})
    assert resp.status_code == 400


# ------------------------------------------------------------------ sorting

SORTS = {
    "companies": {
        "name": lambda r: r["name"],
        "founded": lambda r: r["founded"],
        "ipoed": lambda r: r["ipoed"],
        "updated_at": lambda r: ts(r["updated_at"]),
    },
    "investors": {"name": lambda r: r["name"], "updated_at": lambda r: ts(r["updated_at"])},
    "transactions": {
        "deal_date": lambda r: r["deal_date"],
        "deal_valuation": lambda r: r["deal_valuation"],
        "deal_raised": lambda r: r["deal_raised"],
        "updated_at": lambda r: ts(r["updated_at"]),
    },
}


@pytest.mark.parametrize("entity, key", [(e, k) for e, keys in SORTS.items() for k in keys])
def test_sort_keys(api, truth, entity, key):
    rows = Truth.live(rows_of(truth, entity))
    if entity == "transactions":  # keep the pull small: one deal type
        rows = [r for r in rows if r["deal_type"] in ("Venture", "M&A")]
        filters = {"deal_type": ["Venture", "M&A"]}
    else:
        filters = None
    fn = SORTS[entity][key]
    asc = ids(sort_key(rows, fn, False))
    desc = ids(sort_key(rows, fn, True))
    assert asc != desc
    assert ids(api.pull(entity, filters, sort=f"{key}:asc")) == asc
    assert ids(api.pull(entity, filters, sort=f"{key}:desc")) == desc
    assert ids(api.pull(entity, filters, sort=key)) == desc  # default direction
    # spaces around the key and the direction, and the direction's case, are ignored
    assert ids(api.pull(entity, filters, sort=f" {key} : ASC ")) == asc
    assert ids(api.pull(entity, filters, sort=f"{key} :")) == desc


@pytest.mark.parametrize(
    "entity, key",
    [("companies", "ipoed"), ("transactions", "deal_valuation"), ("transactions", "deal_raised")],
)
def test_nulls_sort_last_both_ways(api, entity, key):
    for direction in ("asc", "desc"):
        got = [r[key] for r in api.pull(entity, sort=f"{key}:{direction}")]
        first_null = got.index(None)
        assert first_null > 0
        assert all(v is None for v in got[first_null:])
        assert all(v is not None for v in got[:first_null])


def test_ties_broken_by_id_ascending(api):
    for direction in ("asc", "desc"):
        got = api.pull("companies", sort=f"founded:{direction}")
        for a, b in zip(got, got[1:]):
            if a["founded"] == b["founded"]:
                assert a["id"] < b["id"]


@pytest.mark.parametrize(
    "entity, sort",
    [
        ("companies", "deal_date"),
        ("companies", "name:up"),
        ("companies", "name:ASC:x"),
        ("companies", "country"),
        ("investors", "founded"),
        ("transactions", "name"),
        ("transactions", ""),
        ("transactions", ":desc"),
    ],
)
def test_bad_sort(api, entity, sort):
    assert_bad_request(api.post(f"/{entity}", {"sort": sort}), "sort")


# ------------------------------------------------------------------ change feed


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_change_feed(api, truth, entity):
    rows = rows_of(truth, entity)
    stamps = sorted(r["updated_at"] for r in rows)
    for stamp in (stamps[len(stamps) * 9 // 10], stamps[-1]):
        got = api.pull(
            entity, {"updated_at": stamp, "include_deleted": True}, sort="updated_at:asc"
        )
        expected = sort_key(
            [r for r in rows if ts(r["updated_at"]) >= ts(stamp)],
            lambda r: ts(r["updated_at"]),
            False,
        )
        assert ids(got) == ids(expected)
        assert [r["deleted"] for r in got] == [r["deleted"] for r in expected]
    changed_deleted = [r for r in rows if r["deleted"]]
    earliest = min(r["updated_at"] for r in changed_deleted)
    got = api.pull(entity, {"updated_at": earliest, "include_deleted": True})
    assert {r["id"] for r in changed_deleted} <= {r["id"] for r in got if r["deleted"]}


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
@pytest.mark.parametrize("fraction", [".5", ".000001", ".0000001", ",25", ".999999999"])
def test_change_feed_bound_with_a_fractional_second_is_exact(api, truth, entity, fraction):
    """``updated_at`` is gte: a row stamped at ``…:16`` is before ``…:16.5`` and must not come back."""
    rows = rows_of(truth, entity)
    stamp = sorted(r["updated_at"] for r in rows)[len(rows) * 9 // 10]
    assert stamp.endswith("+00:00") and "." not in stamp  # the sandbox stamps whole seconds
    bound = stamp[:19] + fraction + "+00:00"
    got = api.pull(entity, {"updated_at": bound, "include_deleted": True}, sort="updated_at:asc")
    expected = [r for r in rows if ts(r["updated_at"]) > ts(stamp)]  # strictly after the second
    assert {r["id"] for r in got} == {r["id"] for r in expected}
    assert all(r["updated_at"] != stamp for r in got)
    # the same instant with another offset, and the whole second itself, behave alike
    shifted = (
        (ts(stamp) + dt.timedelta(microseconds=1))
        .astimezone(dt.timezone(dt.timedelta(hours=-5)))
        .isoformat()
    )
    assert ids(
        api.pull(entity, {"updated_at": shifted, "include_deleted": True}, sort="updated_at:asc")
    ) == ids(got)
    whole = api.pull(entity, {"updated_at": stamp, "include_deleted": True})
    assert {r["id"] for r in whole} == {r["id"] for r in rows if ts(r["updated_at"]) >= ts(stamp)}
    assert len(whole) > len(got)


def test_vocabularies_in_data_are_documented(api):
    rows = api.pull("transactions", {"include_deleted": True})
    assert {r["deal_type"] for r in rows} <= set(DEAL_TYPES)
    assert {r["deal_subtype"] for r in rows} <= set(DEAL_SUBTYPES)
    companies = api.pull("companies", {"include_deleted": True})
    assert {r["region"] for r in companies} <= set(REGIONS)
