"""Family B conformance: discovery documents, resolve, authentication and determinism.

Expectations are the interface document's tables (sections 4.4, 5, 7, 8) and docs/sandbox.md;
names for resolve are derived from the sandbox's raw dataset.
"""

from __future__ import annotations

import re
import sys
import uuid
from pathlib import Path

import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import (
    DEAL_SUBTYPES,
    DEAL_TYPES,
    PREFIX,
    REGIONS,
    Api,
    Truth,
    assert_bad_request,
    assert_error,
    check_page_meta,
    is_uuid,
)

import dealframe.sandbox

# ------------------------------------------------------------------ discovery (section 4.4)

_ARR = ("verticals", "themes", "client_focus", "revenue_model", "company_type")
DOC_FILTERS = {
    "companies": [
        ("id", "array_uuid", ["in"]),
        ("name", "string", ["ilike", "eq"]),
        ("country", "array_string", ["in"]),
        ("region", "array_string", ["in"]),
        *[(f, "array_string", ["overlaps"]) for f in _ARR],
        ("ownership", "string", ["eq"]),
        ("active", "boolean", ["eq"]),
        ("founded_min", "number", ["gte"]),
        ("founded_max", "number", ["lte"]),
        ("ipoed_from", "date", ["gte"]),
        ("ipoed_to", "date", ["lte"]),
        ("updated_at", "datetime", ["gte"]),
        ("include_deleted", "boolean", ["eq"]),
    ],
    "investors": [
        ("id", "array_uuid", ["in"]),
        ("name", "string", ["ilike", "eq"]),
        ("country", "array_string", ["in"]),
        ("updated_at", "datetime", ["gte"]),
        ("include_deleted", "boolean", ["eq"]),
    ],
    "transactions": [
        ("id", "array_uuid", ["in"]),
        ("target_id", "array_uuid", ["in"]),
        ("investor_id", "array_uuid", ["in"]),
        ("deal_type", "array_string", ["in"]),
        ("deal_subtype", "array_string", ["in"]),
        ("date_from", "date", ["gte"]),
        ("date_to", "date", ["lte"]),
        *[
            (f"{m}_{end}", "number", [op])
            for m in ("valuation", "raised", "revenue", "ebitda", "ev_revenue", "ev_ebitda")
            for end, op in (("min", "gte"), ("max", "lte"))
        ],
        ("target_country", "array_string", ["in"]),
        ("target_region", "array_string", ["in"]),
        *[(f"target_{f}", "array_string", ["overlaps"]) for f in _ARR],
        ("updated_at", "datetime", ["gte"]),
        ("include_deleted", "boolean", ["eq"]),
    ],
}
DOC_VALUES = {
    "companies": {"region": REGIONS},
    "investors": {},
    "transactions": {
        "deal_type": DEAL_TYPES,
        "deal_subtype": DEAL_SUBTYPES,
        "target_region": REGIONS,
    },
}
DOC_SORTS = {
    "companies": ["name", "founded", "ipoed", "updated_at"],
    "investors": ["name", "updated_at"],
    "transactions": ["deal_date", "deal_valuation", "deal_raised", "updated_at"],
}
DOC_SUBS = {
    "companies": [
        "/companies/{id}/fundings",
        "/companies/{id}/sellside",
        "/companies/{id}/buyside",
        "/companies/{id}/investors",
    ],
    "investors": [
        "/investors/{id}/investments",
        "/investors/{id}/co_investors",
        "/investors/{id}/portfolio",
    ],
    "transactions": [],
}
TYPES = {"string", "number", "boolean", "date", "datetime", "uuid", "array_string", "array_uuid"}
OPERATORS = {"eq", "in", "ilike", "gte", "lte", "overlaps", "between"}


@pytest.fixture(scope="module")
def discovery(api) -> dict[str, dict]:
    out = {}
    for entity in ("companies", "investors", "transactions"):
        resp = api.get(f"/lookup/{entity}")
        assert resp.status_code == 200
        body = resp.json()
        assert set(body) == {"data"}  # discovery: no meta
        out[entity] = body["data"]
    return out


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_discovery_matches_the_document(discovery, entity):
    doc = discovery[entity]
    expected_keys = {"filters", "sort_fields", "sub_resources"} | (
        {"aggregate"} if entity == "transactions" else set()
    )
    assert set(doc) == expected_keys
    got = []
    for entry in doc["filters"]:
        assert (
            {"field", "type", "operators"}
            <= set(entry)
            <= {"field", "type", "operators", "values", "description"}
        )
        assert entry["type"] in TYPES and set(entry["operators"]) <= OPERATORS
        if "description" in entry:
            assert isinstance(entry["description"], str)
        got.append((entry["field"], entry["type"], entry["operators"]))
        if entry["field"] in DOC_VALUES[entity]:
            assert entry["values"] == list(DOC_VALUES[entity][entry["field"]])
        else:
            assert "values" not in entry, entry
    assert sorted(got) == sorted(DOC_FILTERS[entity])
    assert doc["sort_fields"] == DOC_SORTS[entity]
    assert doc["sub_resources"] == DOC_SUBS[entity]


def test_transactions_discovery_aggregate_section(api, discovery):
    agg = discovery["transactions"]["aggregate"]
    assert set(agg) == {"metrics", "time_buckets", "methodology"}
    assert agg["metrics"] == ["ev_revenue", "ev_ebitda", "valuation", "raised", "revenue", "ebitda"]
    assert agg["time_buckets"] == ["month", "quarter", "year", "none"]
    m = agg["methodology"]
    assert m["outlier_rule"] == "iqr_1.5" and m["default_date_range_years"] == 5
    assert m["empty_buckets_returned"] is True
    # rule 9: the value the aggregate reports at run time is authoritative; the listing agrees with it
    runtime = api.ok_post("/transactions/aggregate", {"metric": "valuation", "time_bucket": "none"})
    assert m["small_n_threshold"] == runtime["meta"]["methodology"]["small_n_threshold"]


def _sample(entry: dict, op: str, truth: Truth):
    t = entry["type"]
    some_id = truth.companies[0]["id"]
    if op in ("in", "overlaps"):
        if t == "array_uuid":
            return [some_id]
        return [entry["values"][0]] if "values" in entry else ["USA"]
    if op == "eq":
        return True if t == "boolean" else "Acme"
    if op == "ilike":
        return "ac"
    return {"number": 10, "date": "2021-01-01", "datetime": "2021-01-01T00:00:00+00:00"}[t]


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_every_listed_filter_and_operator_is_accepted(api, truth, discovery, entity):
    for entry in discovery[entity]["filters"]:
        for i, op in enumerate(entry["operators"]):
            value = _sample(entry, op, truth)
            out = api.ok_post(f"/{entity}", {"filters": {entry["field"]: {op: value}}, "limit": 1})
            check_page_meta(out["meta"], page=1, limit=1)
            if i == 0:  # a plain value uses the first operator
                plain = api.ok_post(f"/{entity}", {"filters": {entry["field"]: value}, "limit": 1})
                assert plain["meta"]["total"] == out["meta"]["total"], entry
        for op in OPERATORS - set(entry["operators"]):
            resp = api.post(
                f"/{entity}",
                {"filters": {entry["field"]: {op: _sample(entry, entry["operators"][0], truth)}}},
            )
            assert_bad_request(resp, entry["field"])


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_enum_values_are_exactly_the_accepted_values(api, discovery, entity):
    for entry in discovery[entity]["filters"]:
        if "values" not in entry:
            continue
        for value in entry["values"]:
            api.ok_post(f"/{entity}", {"filters": {entry["field"]: [value]}, "limit": 1})
        for outsider in (
            "Atlantis",
            entry["values"][0].upper() + "x",
            entry["values"][0].lower(),
            "",
        ):
            assert_bad_request(
                api.post(f"/{entity}", {"filters": {entry["field"]: [outsider]}}), entry["field"]
            )


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_listed_sorts_work_and_unlisted_filters_fail(api, discovery, entity):
    for key in discovery[entity]["sort_fields"]:
        for sort in (key, f"{key}:asc", f"{key}:desc"):
            api.ok_post(f"/{entity}", {"sort": sort, "limit": 2})
    listed = {e["field"] for e in discovery[entity]["filters"]}
    others = {e["field"] for other in discovery.values() for e in other["filters"]} - listed
    for field in sorted(others) + ["deleted", "foo", "between"]:
        assert_bad_request(api.post(f"/{entity}", {"filters": {field: ["x"]}}), field)
    for key in sorted(
        {k for other in discovery.values() for k in other["sort_fields"]}
        - set(discovery[entity]["sort_fields"])
    ):
        assert_bad_request(api.post(f"/{entity}", {"sort": key}), "sort")


@pytest.mark.parametrize("entity", ["companies", "investors"])
def test_listed_sub_resources_answer(api, truth, discovery, entity):
    pool = truth.companies if entity == "companies" else truth.investors
    ident = next(r["id"] for r in pool if not r["deleted"])
    for path in discovery[entity]["sub_resources"]:
        out = api.ok_get(path.replace("{id}", ident))
        assert set(out) == {"data", "meta"}


# ------------------------------------------------------------------ resolve

_SUFFIXES = {
    "inc",
    "incorporated",
    "ltd",
    "limited",
    "llc",
    "gmbh",
    "sa",
    "plc",
    "ag",
    "corp",
    "corporation",
    "co",
    "bv",
    "nv",
    "srl",
    "spa",
    "oy",
    "ab",
    "as",
    "kk",
    "pty",
    "pte",
    "sas",
    "sarl",
    "lp",
    "llp",
}


def loose_norm(name: str) -> str:
    """A normalisation at least as loose as docs/sandbox.md's (case fold, punctuation, suffix)."""
    words = re.sub(r"[^\w\s]", " ", name.casefold()).split()
    if len(words) > 1 and words[-1] in _SUFFIXES:
        words = words[:-1]
    return " ".join(words)


def _names(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(loose_norm(r["name"]), []).append(r)
    return out


def check_resolve_item(item: dict, query: str) -> None:
    assert item["query"] == query
    assert item["match_type"] in ("exact", "ambiguous", "no_match")
    if item["match_type"] == "exact":
        assert set(item) == {"query", "id", "match_type"} and is_uuid(item["id"])
    elif item["match_type"] == "no_match":
        assert set(item) == {"query", "id", "match_type"} and item["id"] is None
    else:
        assert set(item) == {"query", "id", "match_type", "candidates"} and item["id"] is None
        assert item["candidates"]
        for c in item["candidates"]:
            assert set(c) == {"id", "name", "country", "score"}
            assert is_uuid(c["id"]) and isinstance(c["name"], str)
            assert c["country"] is None or isinstance(c["country"], str)
            assert isinstance(c["score"], (int, float)) and 0 <= c["score"] <= 1
        order = [(-c["score"], c["name"]) for c in item["candidates"]]
        assert order == sorted(order)  # descending score, then name (docs/sandbox.md)


def resolve(api: Api, entity: str, names: list[str]) -> list[dict]:
    out = api.ok_post(f"/{entity}/resolve", {"names": names})
    assert set(out) <= {"data", "meta"} and isinstance(out["data"], list)
    assert len(out["data"]) == len(names)
    for item, name in zip(out["data"], names):
        check_resolve_item(item, name)
    return out["data"]


@pytest.mark.parametrize("entity", ["companies", "investors"])
def test_resolve_match_types(api, truth, entity):
    pool = truth.companies if entity == "companies" else truth.investors
    live = Truth.live(pool)
    groups = _names(live)
    # names of deleted rows may collide with live ones; uniqueness is judged among live rows only
    unique = next(
        r
        for r in live[len(live) // 2 :]
        if len(groups[loose_norm(r["name"])]) == 1
        and r["name"].split()[-1].casefold() not in _SUFFIXES
        and " " in r["name"]
    )
    word = unique["name"].split()[0]
    partial_hits = [r for r in live if word.casefold() in loose_norm(r["name"])]
    gibberish = "Qzxqv Wplmn 9931"
    names = [
        unique["name"],
        unique["name"].upper(),
        "  " + unique["name"].replace(" ", "   ") + "  ",
        unique["name"] + " Inc.",
        unique["name"].replace(" ", ", ") + "!",
        gibberish,
        word,
    ]
    dups = [rows for rows in groups.values() if len(rows) > 1]
    if dups:
        names.append(dups[0][0]["name"])
    items = resolve(api, entity, names)
    for item in items[:5]:
        assert item["match_type"] == "exact" and item["id"] == unique["id"], item
    assert items[5]["match_type"] == "no_match"
    if groups.get(loose_norm(word)) is None:
        assert items[6]["match_type"] == "ambiguous"
        cands = items[6]["candidates"]
        assert 1 <= len(cands) <= 5
        assert {c["id"] for c in cands} <= {r["id"] for r in live}
        assert len(cands) == min(5, len(partial_hits))
        by_id = {r["id"]: r for r in live}
        for c in cands:
            assert c["name"] == by_id[c["id"]]["name"]
    if dups:
        item = items[-1]
        assert item["match_type"] == "ambiguous"
        assert {r["id"] for r in dups[0]} <= {c["id"] for c in item["candidates"]}
        assert all(
            c["score"] == 1.0 for c in item["candidates"] if c["id"] in {r["id"] for r in dups[0]}
        )


def test_resolve_companies_has_duplicated_names(truth):
    # the data must exercise the ambiguous-exact path
    assert any(len(rows) > 1 for rows in _names(Truth.live(truth.companies)).values())


def test_resolve_keeps_order_and_never_matches_deleted(api, truth):
    live = Truth.live(truth.companies)
    live_names = {loose_norm(r["name"]) for r in live}
    deleted = next(
        r for r in truth.companies if r["deleted"] and loose_norm(r["name"]) not in live_names
    )
    names = [r["name"] for r in live[:40:3]][::-1] + [deleted["name"]]
    items = resolve(api, "companies", names)
    assert [i["query"] for i in items] == names
    last = items[-1]
    assert last["match_type"] != "exact"
    assert deleted["id"] not in {c["id"] for c in last.get("candidates", [])}


NASTY = [
    "O'Brien & Sons",
    'The "Quoted" Co',
    "100% Pure",
    "a_b%c",
    "50%",
    "%",
    "_",
    "''",
    "'; DROP TABLE companies; --",
    '" OR 1=1 --',
    "Zürich Versicherung",
    "東京テック",
    "Ærø 🚀 Labs",
    "\u0000nul",
    "line\nbreak",
    "   ",
    "",
    "x" * 5000,
    "\\",
    "Robert'); DELETE FROM deals;--",
    "ＡＢＣ",
    "İstanbul",
    "ß",
]


@pytest.mark.parametrize("entity", ["companies", "investors"])
def test_resolve_nasty_names(api, entity):
    items = resolve(api, entity, NASTY)
    assert [i["query"] for i in items] == NASTY
    # percent and underscore are not wildcards: they never make an exact match
    for item in items:
        if item["query"] in ("%", "_", "50%", "a_b%c"):
            assert item["match_type"] != "exact"


@pytest.mark.parametrize("entity", ["companies", "investors"])
def test_resolve_limits_and_bad_bodies(api, truth, entity):
    names = [r["name"] for r in truth.companies][:1000]
    names += [f"filler {i}" for i in range(1000 - len(names))]
    assert len(resolve(api, entity, names)) == 1000
    assert_bad_request(api.post(f"/{entity}/resolve", {"names": []}), "names")
    assert_bad_request(api.post(f"/{entity}/resolve", {"names": names + ["one more"]}), "names")
    for body in (
        {},
        {"names": "Acme"},
        {"names": [1, 2]},
        {"names": ["a", None]},
        {"names": None},
        {"names": ["a"], "limit": 3},
    ):
        resp = api.post(f"/{entity}/resolve", body)
        assert_bad_request(resp, "names" if "limit" not in body else "limit")
    for raw in (b"", b"[]", b"null", b"{bad", b'"names"'):
        resp = api.post(
            f"/{entity}/resolve", data=raw, headers={"Content-Type": "application/json"}
        )
        assert_bad_request(resp)


# ------------------------------------------------------------------ authentication (section 5)


def _routes(ident: str) -> list[tuple[str, str]]:
    gets = [
        "/lookup/companies",
        "/lookup/investors",
        "/lookup/transactions",
        f"/companies/{ident}",
        f"/investors/{ident}",
        f"/transactions/{ident}",
    ]
    gets += [
        f"/companies/{ident}/{n}"
        for n in ("fundings", "sellside", "buyside", "investors", "acquisitions", "investments")
    ]
    gets += [f"/investors/{ident}/{n}" for n in ("investments", "co_investors", "portfolio")]
    posts = [
        "/companies",
        "/investors",
        "/transactions",
        "/companies/resolve",
        "/investors/resolve",
        "/transactions/aggregate",
    ]
    return [("GET", p) for p in gets] + [("POST", p) for p in posts]


def test_auth_on_every_private_route(sandbox, truth):
    ident = truth.companies[0]["id"]
    s = requests.Session()
    for method, path in _routes(ident):
        url = sandbox.url + PREFIX + path
        cases = [
            ({}, "MISSING_TOKEN", "Authorization header is required"),
            ({"Authorization": ""}, "MISSING_TOKEN", "Authorization header is required"),
            (
                {"Authorization": f"Bearer {sandbox.public_token}"},
                "INVALID_TOKEN",
                "Invalid or expired token",
            ),
            ({"Authorization": "Bearer wrong"}, "INVALID_TOKEN", "Invalid or expired token"),
            (
                {"Authorization": f"Basic {sandbox.private_key}"},
                "INVALID_TOKEN",
                "Invalid or expired token",
            ),
            ({"Authorization": sandbox.private_key}, "INVALID_TOKEN", "Invalid or expired token"),
            ({"Authorization": "Bearer "}, "INVALID_TOKEN", "Invalid or expired token"),
        ]
        for headers, code, message in cases:
            resp = s.request(method, url, headers=headers, data=b"{not json", timeout=10)
            assert_error(resp, 401, code, message)
        ok = s.request(
            method, url, headers={"Authorization": f"Bearer {sandbox.private_key}"}, timeout=10
        )
        assert ok.status_code != 401


def test_private_key_is_refused_by_family_a(sandbox):
    for path in ("/api/v1/companies", "/api/v2/companies"):
        resp = requests.post(
            sandbox.url + path,
            json={},
            timeout=10,
            headers={"Authorization": f"Bearer {sandbox.private_key}"},
        )
        assert_error(resp, 401, "INVALID_TOKEN", "Invalid or expired token")
        resp = requests.post(sandbox.url + path, json={}, timeout=10)
        assert_error(resp, 401, "MISSING_TOKEN", "Authorization header is required")


def test_bearer_scheme_is_case_insensitive(sandbox):
    resp = requests.get(
        sandbox.url + PREFIX + "/lookup/companies",
        timeout=10,
        headers={"Authorization": f"bearer {sandbox.private_key}"},
    )
    assert resp.status_code == 200


# ------------------------------------------------------------------ determinism


def _snapshot(sb) -> list[bytes]:
    api = Api(sb.url, sb.private_key)
    first = api.ok_post("/transactions", {"limit": 3})["data"][0]
    company = api.ok_post("/companies", {"limit": 1, "sort": "updated_at"})["data"][0]
    calls = [
        api.post("/companies", {"limit": 200, "filters": {"include_deleted": True}}),
        api.post("/investors", {"limit": 50, "sort": "updated_at:desc"}),
        api.post(
            "/transactions", {"limit": 100, "page": 2, "filters": {"deal_type": ["M&A", "Venture"]}}
        ),
        api.get(f"/transactions/{first['id']}"),
        api.get(f"/companies/{company['id']}"),
        api.get(f"/companies/{company['id']}/investors"),
        api.post("/transactions/aggregate", {"metric": "valuation", "time_bucket": "year"}),
        api.post(
            "/companies/resolve", {"names": [company["name"], company["name"][:4], "nothing here"]}
        ),
        api.get("/lookup/transactions"),
    ]
    for resp in calls:
        assert resp.status_code == 200, resp.text[:300]
    return [resp.content for resp in calls]


def test_same_seed_same_bytes():
    with dealframe.sandbox.run(scale=0.02, seed=11) as a:
        first = _snapshot(a)
    with dealframe.sandbox.run(scale=0.02, seed=11) as b:
        second = _snapshot(b)
    assert first == second
    with dealframe.sandbox.run(scale=0.02, seed=12) as c:
        other = _snapshot(c)
    assert other[0] != first[0]


def test_random_uuid_is_404_not_400(api):
    assert_error(api.get(f"/transactions/{uuid.uuid4()}"), 404, "NOT_FOUND")


def test_a_uuid_with_anything_after_it_is_a_400_naming_it(api, truth):
    """The id pattern holds the whole value: a final newline is not a UUID (a 404, or an
    empty answer for a filter, would say the id was read and matched nothing)."""
    known = truth.companies[0]["id"]
    for path in (f"/companies/{known}%0A", f"/companies/{known}%20"):
        assert_error(api.get(path), 400, "BAD_REQUEST")
    for entity, member in (("companies", "id"), ("transactions", "target_id")):
        resp = api.post(f"/{entity}", {"filters": {member: [known + "\n"]}})
        body = assert_error(resp, 400, "BAD_REQUEST")
        assert any(f"filters.{member}" in e for e in body["details"]["errors"]), body


@pytest.mark.parametrize(
    ("entity", "member"),
    [("companies", "country"), ("investors", "country"), ("transactions", "target_country")],
)
@pytest.mark.parametrize("value", ["usa", "United States", "", "USA\n", "US"])
def test_country_filters_take_iso3_codes_only(api, entity, member, value):
    """ISO-3 codes (section 4.4), as Family A's ``countries``: a malformed one is a 400
    naming the member, never an empty answer."""
    body = assert_error(
        api.post(f"/{entity}", {"filters": {member: ["DEU", value]}}), 400, "BAD_REQUEST"
    )
    assert any(f"filters.{member}" in e and "ISO 3166" in e for e in body["details"]["errors"])
    assert (
        api.ok_post(f"/{entity}", {"filters": {member: ["DEU", "ZZZ"]}, "limit": 1})["meta"][
            "total"
        ]
        > 0
    )


def test_a_trailing_slash_is_an_unknown_path_not_a_redirect(api, truth):
    """The document lists no path ending in a slash: the documented 404 body, not Starlette's
    307 to the path without it (which a client follows, re-sending a POST's body)."""
    known = truth.companies[0]["id"]
    for resp in (
        api.get(f"/companies/{known}/"),
        api.post("/transactions/", {"limit": 1}),
        api.get("/lookup/companies/"),
    ):
        assert not resp.history, [r.status_code for r in resp.history]  # not redirected
        assert_error(resp, 404, "NOT_FOUND")
