"""Conformance of Family B profiles and sub-collections (interface document 2.2, 4.2, 4.3).

Profiles of companies, investors and deals, soft deletes and the ``fields`` allowlist; every
sub-collection recomputed from the raw deals of the sandbox's dataset; aliases; 404s.
"""

from __future__ import annotations

import datetime as dt
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import (
    COMPANY_LIST_FIELDS,
    Truth,
    assert_bad_request,
    assert_error,
    check_company_profile,
    check_deal,
    check_deal_profile,
    check_investor_profile,
    check_page_meta,
    is_date,
    is_uuid,
)


@pytest.fixture(scope="module")
def live_deals(truth) -> list[dict]:
    return Truth.live(truth.deals)


def ids(rows):
    return [r["id"] for r in rows]


def by_date_desc(deals: list[dict]) -> list[dict]:
    out = sorted(deals, key=lambda d: d["id"])
    return sorted(out, key=lambda d: d["deal_date"], reverse=True)


def busiest(truth: Truth, live_deals: list[dict], count, pool) -> dict:
    """The live org of ``pool`` with the highest ``count(org_id)`` (ties: smallest id)."""
    best = max(
        (o for o in pool if not o["deleted"]),
        key=lambda o: (count(o["id"]), [-ord(c) for c in o["id"]]),
    )
    assert count(best["id"]) > 1
    return best


NULLABLE_IN_PROFILE = ("verticals", "themes", "revenue_model", "client_focus")


def same_profile_value(key: str, got, listed) -> bool:
    """Section 2.2: a profile may show null where the list item has an empty array."""
    if key in NULLABLE_IN_PROFILE and got is None:
        return listed == []
    return got == listed


def roles(deal: dict, org_id: str) -> set[str]:
    out = set()
    if org_id in {p["id"] for p in deal["lead_investors"]}:
        out.add("lead_investor")
    if org_id in {p["id"] for p in deal["buyers"]}:
        out.add("buyer")
    return out


def companies_pool(truth):
    return [o for o in truth.dataset.orgs if o["_company"]]


def investors_pool(truth):
    return [o for o in truth.dataset.orgs if o["_investor"]]


@pytest.fixture(scope="module")
def picks(truth, live_deals):
    """Entities chosen from the data for their sub-collections."""
    fund = {}
    sell = {}
    role_n = {}
    for d in live_deals:
        tid = d["target"]["id"]
        (sell if d["deal_type"] == "M&A" else fund)[tid] = (
            sell if d["deal_type"] == "M&A" else fund
        ).get(tid, 0) + 1
        for p in d["lead_investors"] + d["buyers"]:
            role_n[p["id"]] = role_n.get(p["id"], 0) + 1
    both = [o for o in truth.dataset.orgs if o["_company"] and o["_investor"]]
    firms = [o for o in truth.dataset.orgs if o["_investor"] and not o["_company"]]
    return {
        "funded": busiest(truth, live_deals, lambda i: fund.get(i, 0), companies_pool(truth)),
        "acquired": busiest(truth, live_deals, lambda i: sell.get(i, 0), companies_pool(truth)),
        "corporate": busiest(truth, live_deals, lambda i: role_n.get(i, 0), both),
        "firm": busiest(truth, live_deals, lambda i: role_n.get(i, 0), firms),
        "listed": next(
            o
            for o in truth.dataset.orgs
            if o["_company"] and o["stock_listing"] and not o["deleted"]
        ),
        "unlisted": next(
            o
            for o in truth.dataset.orgs
            if o["_company"] and not o["stock_listing"] and not o["deleted"]
        ),
        "deleted_company": next(o for o in truth.dataset.orgs if o["_company"] and o["deleted"]),
        "deleted_investor": next(o for o in truth.dataset.orgs if o["_investor"] and o["deleted"]),
    }


# ------------------------------------------------------------------ company profile


def test_company_profiles_shape_and_values(api, truth, picks, live_deals):
    chosen = [picks[k] for k in ("funded", "acquired", "corporate", "listed", "unlisted")]
    chosen += [o for o in companies_pool(truth) if not o["deleted"]][::97]
    for org in chosen:
        out = api.ok_get(f"/companies/{org['id']}")
        assert set(out) == {"data"}
        row = out["data"]
        check_company_profile(row)
        for key in (
            *COMPANY_LIST_FIELDS,
            "employee_count",
            "stock_listing",
            "valuation",
            "fundamentals",
        ):
            assert same_profile_value(key, row[key], org[key]), key
    assert api.ok_get(f"/companies/{picks['listed']['id']}")["data"]["stock_listing"] is not None
    assert api.ok_get(f"/companies/{picks['unlisted']['id']}")["data"]["stock_listing"] is None


def test_company_deal_activity_agrees_with_deals(api, truth, picks, live_deals):
    for key in ("funded", "acquired", "corporate", "listed"):
        org = picks[key]
        act = api.ok_get(f"/companies/{org['id']}")["data"]["deal_activity"]
        fundings = [
            d for d in live_deals if d["target"]["id"] == org["id"] and d["deal_type"] != "M&A"
        ]
        sells = [
            d for d in live_deals if d["target"]["id"] == org["id"] and d["deal_type"] == "M&A"
        ]
        made = [d for d in live_deals if roles(d, org["id"])]
        involved = [
            d
            for d in live_deals
            if d["target"]["id"] == org["id"]
            or org["id"] in {p["id"] for p in d["investors"] + d["buyers"]}
        ]
        assert act["total_fundings_as_target"] == len(fundings)
        assert act["total_acquisitions_as_target"] == len(sells)
        assert act["total_investments_made"] >= len(made)
        assert act["last_funding_date"] == max((d["deal_date"] for d in fundings), default=None)
        as_target = [d["deal_date"] for d in fundings + sells]
        if as_target:
            assert act["last_deal_date"] is not None and act["last_deal_date"] >= max(as_target)
        assert act["last_deal_date"] in {d["deal_date"] for d in involved} | {None}
        # and the sub-collections say the same
        assert api.ok_get(f"/companies/{org['id']}/fundings")["meta"]["total"] == len(fundings)
        assert api.ok_get(f"/companies/{org['id']}/sellside")["meta"]["total"] == len(sells)


# ------------------------------------------------------------------ investor profile


def test_investor_profiles(api, truth, picks, live_deals):
    chosen = [picks["corporate"], picks["firm"]] + [
        o for o in investors_pool(truth) if not o["deleted"]
    ][::37]
    for org in chosen:
        out = api.ok_get(f"/investors/{org['id']}")
        assert set(out) == {"data"}
        row = out["data"]
        check_investor_profile(row)
        for key in row:
            if key != "stats":
                assert same_profile_value(key, row[key], org[key]), key
        stats = row["stats"]
        made = [d for d in live_deals if roles(d, org["id"])]
        assert stats["total_deals"] >= len(made)
        assert stats["deals_last_12m"] <= stats["total_deals"]
        for key in ("top_countries", "top_verticals"):
            counts = [item["count"] for item in stats[key]]
            assert counts == sorted(counts, reverse=True), key
            assert all(c <= stats["total_deals"] for c in counts)
        assert sum(item["count"] for item in stats["top_countries"]) <= stats["total_deals"]
        if stats["total_deals"]:
            assert stats["most_common_deal_type"] is not None
        if stats["avg_round_size"] is not None:
            assert stats["avg_round_size"] > 0


# ------------------------------------------------------------------ deal profile


def test_deal_profiles(api, truth):
    chosen = Truth.live(truth.deals)[::250]
    chosen += [
        next(d for d in truth.deals if d["deal_type"] == "M&A" and d["buyers"] and not d["deleted"])
    ]
    for deal in chosen:
        out = api.ok_get(f"/transactions/{deal['id']}")
        assert set(out) == {"data"}
        row = out["data"]
        check_deal_profile(row)
        org = truth.target_of(deal)
        expected_target = dict(deal["target"])
        for key in (
            "region",
            "city",
            "founded",
            "verticals",
            "themes",
            "client_focus",
            "revenue_model",
            "company_type",
        ):
            expected_target[key] = org[key]
        assert row["target"] == expected_target
        assert {k: v for k, v in row.items() if k != "target"} == {
            k: v for k, v in deal.items() if k != "target"
        }
        if row["deal_type"] == "M&A":
            assert row["investors"] == row["buyers"] and row["lead_investors"] == []
        else:
            assert row["buyers"] == []
            assert {p["id"] for p in row["lead_investors"]} <= {p["id"] for p in row["investors"]}


# ------------------------------------------------------------------ soft deletes, 404, fields


@pytest.mark.parametrize(
    "entity, key",
    [("companies", "deleted_company"), ("investors", "deleted_investor"), ("transactions", None)],
)
def test_soft_deleted_profiles(api, truth, picks, entity, key):
    ident = picks[key]["id"] if key else next(d["id"] for d in truth.deals if d["deleted"])
    err = assert_error(api.get(f"/{entity}/{ident}"), 404, "NOT_FOUND", "Resource is deleted")
    assert err["details"]["deleted"] is True and err["details"]["id"] == ident
    err = assert_error(api.get(f"/{entity}/{ident}", include_deleted="false"), 404, "NOT_FOUND")
    assert err["details"]["deleted"] is True
    row = api.ok_get(f"/{entity}/{ident}", include_deleted="true")["data"]
    assert row["id"] == ident and row["deleted"] is True
    {
        "companies": check_company_profile,
        "investors": check_investor_profile,
        "transactions": check_deal_profile,
    }[entity](row)
    assert_bad_request(api.get(f"/{entity}/{ident}", include_deleted="maybe"), "include_deleted")


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_unknown_and_malformed_ids(api, entity):
    ident = str(uuid.UUID(int=12345))
    err = assert_error(api.get(f"/{entity}/{ident}"), 404, "NOT_FOUND")
    assert err.get("details", {}).get("deleted") is not True
    assert_error(api.get(f"/{entity}/{ident}", include_deleted="true"), 404, "NOT_FOUND")
    assert_bad_request(api.get(f"/{entity}/not-a-uuid"), "id")
    assert_bad_request(api.get(f"/{entity}/{ident}x"), "id")


def test_profile_uuid_case_insensitive(api, picks):
    ident = picks["listed"]["id"]
    assert api.ok_get(f"/companies/{ident.upper()}")["data"]["id"] == ident


@pytest.mark.parametrize(
    "entity, key, fields, expected",
    [
        ("companies", "listed", "name,country", {"id", "name", "country"}),
        ("companies", "listed", "id", {"id"}),
        (
            "companies",
            "listed",
            "deal_activity, stock_listing",
            {"id", "deal_activity", "stock_listing"},
        ),
        ("investors", "firm", "stats,name", {"id", "stats", "name"}),
        (
            "transactions",
            None,
            "investors,target,deal_date",
            {"id", "investors", "target", "deal_date"},
        ),
    ],
)
def test_fields_allowlist(api, truth, picks, entity, key, fields, expected):
    ident = picks[key]["id"] if key else Truth.live(truth.deals)[3]["id"]
    full = api.ok_get(f"/{entity}/{ident}")["data"]
    row = api.ok_get(f"/{entity}/{ident}", fields=fields)["data"]
    assert set(row) == expected
    assert row == {k: full[k] for k in expected}


@pytest.mark.parametrize(
    "entity, fields",
    [
        ("companies", "name,nope"),
        ("investors", "deal_activity"),
        ("transactions", "stats"),
        ("companies", "Name"),
    ],
)
def test_fields_unknown_is_400(api, truth, picks, entity, fields):
    ident = {
        "companies": picks["listed"]["id"],
        "investors": picks["firm"]["id"],
        "transactions": Truth.live(truth.deals)[0]["id"],
    }[entity]
    assert_bad_request(api.get(f"/{entity}/{ident}", fields=fields), "fields")


# ------------------------------------------------------------------ sub-collections: deals


def test_fundings_and_sellside(api, truth, picks, live_deals):
    for key in ("funded", "acquired", "corporate"):
        org = picks[key]
        fundings = by_date_desc(
            [d for d in live_deals if d["target"]["id"] == org["id"] and d["deal_type"] != "M&A"]
        )
        sells = by_date_desc(
            [d for d in live_deals if d["target"]["id"] == org["id"] and d["deal_type"] == "M&A"]
        )
        for path, expected in (
            ("fundings", fundings),
            ("sellside", sells),
            ("acquisitions", sells),
        ):
            got = api.pull_sub(f"/companies/{org['id']}/{path}")
            for row in got:
                check_deal(row)
            assert got == [Truth.list_form(d) for d in expected], path


def test_buyside_and_investments_with_role(api, truth, picks, live_deals):
    for key in ("corporate", "firm", "funded"):
        org = picks[key]
        expected = by_date_desc([d for d in live_deals if roles(d, org["id"])])
        for base in (["/investors"] if org["_investor"] else []) + (
            ["/companies"] if org["_company"] else []
        ):
            for name in ("investments", "buyside"):
                if base == "/investors" and name == "buyside":
                    continue
                got = api.pull_sub(f"{base}/{org['id']}/{name}")
                assert ids(got) == ids(expected), (base, name)
                for row, deal in zip(got, expected):
                    check_deal(row, extra=("role",))
                    assert row["role"] in ("lead_investor", "buyer")
                    assert row["role"] in roles(deal, org["id"])
                    assert {k: v for k, v in row.items() if k != "role"} == Truth.list_form(deal)
                    assert (row["role"] == "buyer") == (row["deal_type"] == "M&A")


def test_aliases_answer_like_current_names(api, picks):
    org = picks["corporate"]
    for alias, name in (("acquisitions", "sellside"), ("investments", "buyside")):
        for params in ({}, {"page": 2, "limit": 3}):
            a = api.get(f"/companies/{org['id']}/{alias}", **params)
            b = api.get(f"/companies/{org['id']}/{name}", **params)
            assert a.status_code == b.status_code == 200
            assert a.content == b.content


# ------------------------------------------------------------------ sub-collections: aggregates of deals


def test_company_investors(api, truth, picks, live_deals):
    for key in ("funded", "corporate"):
        org = picks[key]
        rounds = [
            d for d in live_deals if d["target"]["id"] == org["id"] and d["deal_type"] != "M&A"
        ]
        expected: dict[str, dict] = {}
        for d in rounds:
            leads = {p["id"] for p in d["lead_investors"]}
            for p in d["investors"]:
                a = expected.setdefault(
                    p["id"], {"n": 0, "lead": False, "dates": [], "org": truth.org_by_id[p["id"]]}
                )
                a["n"] += 1
                a["lead"] = a["lead"] or p["id"] in leads
                a["dates"].append(d["deal_date"])
        got = api.pull_sub(f"/companies/{org['id']}/investors")
        assert sorted(ids(got)) == sorted(expected)
        for row in got:
            assert set(row) == {
                "id",
                "name",
                "short_name",
                "country",
                "website",
                "rounds_participated",
                "is_lead_any_round",
                "first_round_date",
                "last_round_date",
            }
            e = expected[row["id"]]
            assert row["rounds_participated"] == e["n"]
            assert row["is_lead_any_round"] is e["lead"]
            assert row["first_round_date"] == min(e["dates"]) and row["last_round_date"] == max(
                e["dates"]
            )
            assert is_date(row["first_round_date"]) and is_uuid(row["id"])
            for k in ("name", "short_name", "website"):
                assert row[k] == e["org"][k]
            assert row["country"] in (e["org"]["country"], None)
        order = [(-r["rounds_participated"], r["name"]) for r in got]
        assert order == sorted(order)


def test_investor_portfolio(api, truth, picks, live_deals):
    for key in ("corporate", "firm"):
        org = picks[key]
        expected: dict[str, dict] = {}
        for d in live_deals:
            if org["id"] not in {p["id"] for p in d["investors"] + d["buyers"]}:
                continue
            a = expected.setdefault(
                d["target"]["id"], {"n": 0, "lead": False, "lead_or_buy": False, "dates": []}
            )
            a["n"] += 1
            a["lead"] = a["lead"] or org["id"] in {p["id"] for p in d["lead_investors"]}
            a["lead_or_buy"] = a["lead_or_buy"] or bool(roles(d, org["id"]))
            a["dates"].append(d["deal_date"])
        got = api.pull_sub(f"/investors/{org['id']}/portfolio")
        assert sorted(ids(got)) == sorted(expected)
        for row in got:
            assert set(row) == {
                "id",
                "name",
                "short_name",
                "website",
                "country",
                "first_invested",
                "last_invested",
                "rounds_count",
                "led_any_round",
            }
            e = expected[row["id"]]
            target = truth.org_by_id[row["id"]]
            assert row["rounds_count"] == e["n"]
            assert row["first_invested"] == min(e["dates"]) and row["last_invested"] == max(
                e["dates"]
            )
            assert e["lead"] <= row["led_any_round"] <= e["lead_or_buy"]
            assert (row["name"], row["short_name"], row["website"]) == (
                target["name"],
                target["short_name"],
                target["website"],
            )
            assert row["country"] in (target["country"], None)
        # docs/sandbox.md: last_invested desc, then id
        order = [(dt.date.fromisoformat(r["last_invested"]).toordinal() * -1, r["id"]) for r in got]
        assert order == sorted(order)


def test_investor_co_investors(api, truth, picks, live_deals):
    for key in ("corporate", "firm"):
        org = picks[key]
        expected: dict[str, dict] = {}
        for d in live_deals:
            people = {p["id"] for p in d["investors"] + d["buyers"]}
            if org["id"] not in people:
                continue
            for other in people - {org["id"]}:
                a = expected.setdefault(other, {"n": 0, "dates": []})
                a["n"] += 1
                a["dates"].append(d["deal_date"])
        got = api.pull_sub(f"/investors/{org['id']}/co_investors")
        assert sorted(ids(got)) == sorted(expected)
        for row in got:
            assert set(row) == {
                "id",
                "name",
                "short_name",
                "website",
                "country",
                "shared_deals",
                "first_shared_date",
                "last_shared_date",
            }
            e = expected[row["id"]]
            other = truth.org_by_id[row["id"]]
            assert row["shared_deals"] == e["n"]
            assert row["first_shared_date"] == min(e["dates"]) and row["last_shared_date"] == max(
                e["dates"]
            )
            assert (row["name"], row["short_name"], row["website"]) == (
                other["name"],
                other["short_name"],
                other["website"],
            )
            assert row["country"] in (other["country"], None)
        order = [(-r["shared_deals"], r["id"]) for r in got]
        assert order == sorted(order)


# ------------------------------------------------------------------ sub-collection pagination and errors

SUBS = [
    ("companies", "funded", "fundings"),
    ("companies", "acquired", "sellside"),
    ("companies", "corporate", "buyside"),
    ("companies", "funded", "investors"),
    ("companies", "acquired", "acquisitions"),
    ("companies", "corporate", "investments"),
    ("investors", "firm", "investments"),
    ("investors", "firm", "co_investors"),
    ("investors", "firm", "portfolio"),
]


@pytest.mark.parametrize("entity, key, name", SUBS)
def test_sub_collection_pagination(api, picks, entity, key, name):
    path = f"/{entity}/{picks[key]['id']}/{name}"
    default = api.ok_get(path)
    assert set(default) == {"data", "meta"}
    total = default["meta"]["total"]
    assert total >= 2
    check_page_meta(default["meta"], page=1, limit=100, total=total)
    everything = api.pull_sub(path, limit=1000)
    assert len(everything) == total
    assert default["data"] == everything[:100]
    for page in (1, 2, total):
        out = api.ok_get(path, page=page, limit=1)
        check_page_meta(out["meta"], page=page, limit=1, total=total)
        assert out["data"] == [everything[page - 1]]
    out = api.ok_get(path, page=total + 1, limit=1)
    assert out["data"] == [] and out["meta"]["total"] == total and out["meta"]["has_more"] is False
    assert api.pull_sub(path, limit=max(3, total // 6 + 1)) == everything
    # unknown query parameters are ignored
    assert api.ok_get(path, foo="bar", page=1, limit=100) == default


@pytest.mark.parametrize(
    "params, field",
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": "x"}, "limit"),
        ({"limit": -1}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"page": 0}, "page"),
        ({"page": -3}, "page"),
        ({"page": "one"}, "page"),
        # ASCII digits only: int() would read other scripts' digits and underscores
        ({"limit": "\u0663"}, "limit"),
        ({"page": "\u0661"}, "page"),
        ({"limit": "1_0"}, "limit"),
        ({"page": "+2"}, "page"),
        ({"limit": "\uff15"}, "limit"),
        # page is bounded (docs/sandbox.md): a 400, never a 500 from serialising meta.page
        ({"page": 10**9 + 1}, "page"),
        ({"page": 10**29}, "page"),
        ({"page": "9" * 5000}, "page"),
    ],
)
@pytest.mark.parametrize("name", ["fundings", "investors", "buyside"])
def test_sub_collection_bad_query(api, picks, params, field, name):
    errors = assert_bad_request(
        api.get(f"/companies/{picks['funded']['id']}/{name}", **params), field
    )
    assert any("between 1 and" in e for e in errors), errors  # the message states the range


@pytest.mark.parametrize(
    "entity, key, name", [("investors", "firm", "investments"), ("companies", "funded", "fundings")]
)
def test_sub_collection_page_bound(api, picks, entity, key, name):
    path = f"/{entity}/{picks[key]['id']}/{name}"
    last = api.ok_get(path, page=10**9, limit=1000)
    assert (
        last["data"] == [] and last["meta"]["page"] == 10**9 and last["meta"]["has_more"] is False
    )
    errors = assert_bad_request(api.get(path, page=10**29), "page")
    assert any(str(10**9) in e for e in errors), errors
    assert api.ok_get(path, page=" 1 ", limit="0002")["meta"]["limit"] == 2  # ASCII digits, padded


@pytest.mark.parametrize(
    "entity, name",
    [
        ("companies", n)
        for n in ("fundings", "sellside", "buyside", "investors", "acquisitions", "investments")
    ]
    + [("investors", n) for n in ("investments", "co_investors", "portfolio")],
)
def test_sub_collections_of_unknown_deleted_and_malformed(api, picks, entity, name):
    unknown = str(uuid.UUID(int=987654321))
    err = assert_error(api.get(f"/{entity}/{unknown}/{name}"), 404, "NOT_FOUND")
    assert err.get("details", {}).get("deleted") is not True
    deleted = picks["deleted_company" if entity == "companies" else "deleted_investor"]["id"]
    err = assert_error(api.get(f"/{entity}/{deleted}/{name}"), 404, "NOT_FOUND")
    assert err["details"]["deleted"] is True
    # a sub-collection takes no include_deleted: its hint must not tell the caller to pass one
    hint = err["details"]["hint"]
    assert not hint.startswith("pass include_deleted") and "not served" in hint, hint
    assert hint.endswith(f"GET /api/private/v1/{entity}/{{id}}?include_deleted=true"), hint
    assert api.get(f"/{entity}/{deleted}/{name}", include_deleted="true").status_code == 404
    profile = assert_error(api.get(f"/{entity}/{deleted}"), 404, "NOT_FOUND")
    assert profile["details"]["hint"].startswith("pass include_deleted=true")
    assert_bad_request(api.get(f"/{entity}/nope/{name}"), "id")


def test_investor_only_firm_is_not_a_company(api, picks):
    firm = picks["firm"]["id"]
    assert_error(api.get(f"/companies/{firm}"), 404, "NOT_FOUND")
    assert_error(api.get(f"/companies/{firm}/buyside"), 404, "NOT_FOUND")


def test_unknown_paths_and_methods(api, picks):
    assert_error(api.get("/nothing-here"), 404, "NOT_FOUND")
    assert_error(api.get(f"/companies/{picks['funded']['id']}/nothing"), 404, "NOT_FOUND")
    assert_error(api.get("/companies"), 405, "METHOD_NOT_ALLOWED")
    assert_error(api.post(f"/companies/{picks['funded']['id']}", {}), 405, "METHOD_NOT_ALLOWED")
    assert_error(api.get("/transactions/aggregate"), 405, "METHOD_NOT_ALLOWED")
    assert_error(api.post("/lookup/companies", {}), 405, "METHOD_NOT_ALLOWED")
