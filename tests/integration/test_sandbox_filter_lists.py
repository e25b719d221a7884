"""Array filters, query parameters and the words of 400s, over HTTP (docs/sandbox.md:
"Array filters", "include_deleted", "Sub-collection query", "400 BAD_REQUEST").

- A long list filter answers the rows of its distinct values (repeated values count once;
  every three-letter code is valid input), in both families, and one long request never
  holds the server: handlers run in worker threads.
- An empty array in a Family B filter matches nothing.
- A query parameter given more than once is a 400 naming it, not a silent choice of one.
- Messages quote values in JSON's words (``null``, ``true``), never Python's.
"""

from __future__ import annotations

import itertools
import string
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import PREFIX, Api, Truth, assert_bad_request

#: Every three-letter code: valid input to a country filter (about 70 KB of JSON).
ALL_CODES = ["".join(c) for c in itertools.product(string.ascii_uppercase, repeat=3)]


def ids(api: Api, entity: str, filters: dict, limit: int = 1000) -> tuple[int, list[str]]:
    doc = api.ok_post(f"/{entity}", {"filters": filters, "limit": limit})
    return doc["meta"]["total"], [row["id"] for row in doc["data"]]


def search(sandbox, body: dict) -> list[str]:
    resp = requests.post(
        f"{sandbox.url}/api/v2/companies",
        json=body,
        headers={"Authorization": f"Bearer {sandbox.public_token}"},
        timeout=30,
    )
    assert resp.status_code == 200, resp.text[:300]
    return [item["sku"] for item in resp.json()["data"]]


# ---------------------------------------------------------------------------- long lists


def test_repeated_enum_values_answer_the_rows_of_the_distinct_ones(api: Api) -> None:
    short = ids(api, "transactions", {"deal_subtype": ["Seed", "Angel"]})
    assert short[0] > 0
    assert ids(api, "transactions", {"deal_subtype": ["Seed", "Angel"] * 10_000}) == short
    assert ids(api, "transactions", {"deal_type": ["Early", "Growth"] * 10_000}) == ids(
        api, "transactions", {"deal_type": ["Growth", "Early"]}
    )


def test_every_three_letter_code_is_a_country_filter_of_every_row(api: Api, truth: Truth) -> None:
    deals = truth.deals_in_list_form()
    expected = sum(1 for d in deals if d["target"]["country"] is not None and not d["deleted"])
    total, _ = ids(api, "transactions", {"target_country": ALL_CODES}, limit=1)
    assert total == expected > 0
    companies = sum(1 for c in truth.companies if c["country"] is not None and not c["deleted"])
    assert ids(api, "companies", {"country": ALL_CODES}, limit=1)[0] == companies


def test_repeated_values_of_an_overlaps_filter_count_once(api: Api, truth: Truth) -> None:
    verticals = sorted({v for c in truth.companies for v in c["verticals"] or ()})[:2]
    assert verticals
    short = ids(api, "companies", {"verticals": verticals})
    assert short[0] > 0
    assert ids(api, "companies", {"verticals": verticals * 20_000}) == short


def test_a_long_region_list_in_the_aggregate_is_its_distinct_values(api: Api) -> None:
    def aggregate(regions: list[str]) -> dict:
        return api.ok_post(
            "/transactions/aggregate",
            {"metric": "valuation", "time_bucket": "year", "filters": {"target_region": regions}},
        )

    short = aggregate(["Western Europe", "North America"])
    assert short["meta"]["total_deals"] > 0
    assert aggregate(["Western Europe", "North America"] * 5_000) == short


def test_family_a_long_country_and_region_lists(sandbox) -> None:
    everyone = search(sandbox, {})
    assert search(sandbox, {"countries": ALL_CODES}) == everyone
    one = search(sandbox, {"regions": ["Western Europe"]})
    assert 0 < len(one) < len(everyone)
    assert search(sandbox, {"regions": ["Western Europe"] * 20_000}) == one


def test_a_long_request_does_not_hold_the_server(
    api: Api, sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list request whose work cannot end until another request has been answered: with
    handlers on the event loop the other request waits behind it (and the list gives up
    waiting); in a worker thread both are answered."""
    store = sandbox.state.private
    select = store.select
    released = threading.Event()
    entered = threading.Event()
    seen: list[bool] = []

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        seen.append(released.wait(timeout=15))
        return select(*args, **kwargs)

    monkeypatch.setattr(store, "select", held)
    answers: list[requests.Response] = []
    slow = threading.Thread(
        target=lambda: answers.append(api.post("/transactions", {"limit": 1})), daemon=True
    )
    slow.start()
    assert entered.wait(timeout=15), "the list request never reached its handler"
    health = requests.get(f"{sandbox.url}/health", timeout=30)
    released.set()
    slow.join(timeout=30)
    assert health.status_code == 200
    assert seen == [True], "the health check was answered only after the list request ended"
    assert [a.status_code for a in answers] == [200]


# ---------------------------------------------------------------------------- empty arrays


@pytest.mark.parametrize(
    ("entity", "filters"),
    [
        ("companies", {"country": []}),
        ("companies", {"verticals": []}),
        ("investors", {"country": []}),
        ("transactions", {"deal_type": []}),
        ("transactions", {"target_themes": []}),
    ],
)
def test_an_empty_array_matches_nothing(api: Api, entity: str, filters: dict) -> None:
    assert ids(api, entity, {})[0] > 0
    assert ids(api, entity, filters) == (0, [])


# ---------------------------------------------------------------------------- query parameters


@pytest.fixture(scope="module")
def company_id(api: Api) -> str:
    return api.ok_post("/companies", {"limit": 1})["data"][0]["id"]


def get(api: Api, path: str, query: str) -> requests.Response:
    return api.session.get(f"{api.url}{PREFIX}{path}?{query}", timeout=30)


@pytest.mark.parametrize(
    ("where", "query", "name"),
    [
        ("profile", "fields=name&fields=country", "fields"),
        ("profile", "include_deleted=true&include_deleted=false", "include_deleted"),
        ("profile", "include_deleted=true&include_deleted=true", "include_deleted"),
        ("fundings", "page=1&page=2", "page"),
        ("fundings", "limit=5&limit=10", "limit"),
    ],
)
def test_a_query_parameter_given_twice_is_refused(
    api: Api, company_id: str, where: str, query: str, name: str
) -> None:
    path = f"/companies/{company_id}" + ("/fundings" if where == "fundings" else "")
    errors = assert_bad_request(get(api, path, query), name)
    assert errors == [f"{name}: given more than once (2 times); give it once"]


@pytest.mark.parametrize("spelling", ["true", "True", "TRUE", "1", " true "])
def test_include_deleted_spellings_of_true(api: Api, truth: Truth, spelling: str) -> None:
    deleted = next(c["id"] for c in truth.companies if c["deleted"])
    resp = get(api, f"/companies/{deleted}", f"include_deleted={spelling}")
    assert resp.status_code == 200 and resp.json()["data"]["deleted"] is True


@pytest.mark.parametrize("spelling", ["false", "False", "0"])
def test_include_deleted_spellings_of_false(api: Api, truth: Truth, spelling: str) -> None:
    deleted = next(c["id"] for c in truth.companies if c["deleted"])
    assert get(api, f"/companies/{deleted}", f"include_deleted={spelling}").status_code == 404


def test_include_deleted_refuses_other_words(api: Api, company_id: str) -> None:
    errors = assert_bad_request(get(api, f"/companies/{company_id}", "include_deleted=yes"))
    assert errors == ["include_deleted: must be true or false, got 'yes'"]


# ---------------------------------------------------------------------------- JSON words


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        (
            "/transactions/aggregate",
            {"metric": "valuation", "time_bucket": None},
            "time_bucket: null is not one of month, quarter, year, none",
        ),
        (
            "/transactions/aggregate",
            {"metric": True},
            "metric: true is not one of ev_revenue, ev_ebitda, valuation, raised, revenue, ebitda",
        ),
        ("/companies", {"limit": True}, "limit: must be an integer between 1 and 1000, got true"),
        (
            "/companies",
            {"page": None},
            "page: must be an integer between 1 and 1000000000, got null",
        ),
        ("/companies", {"limit": 5000}, "limit: must be an integer between 1 and 1000, got 5000"),
        (
            "/companies",
            {"filters": {"founded_min": None}},
            "filters.founded_min: expected a finite number, got null",
        ),
        (
            "/companies",
            {"filters": {"founded_min": False}},
            "filters.founded_min: expected a finite number, got false",
        ),
        ("/companies", {"filters": {"active": 1}}, "filters.active: expected true or false, got 1"),
        (
            "/companies",
            {"filters": {"ipoed_from": None}},
            "filters.ipoed_from: expected a date YYYY-MM-DD, got null",
        ),
        (
            "/companies",
            {"filters": {"updated_at": True}},
            "filters.updated_at: expected an ISO 8601 timestamp, got true",
        ),
        (
            "/companies",
            {"filters": {"updated_at": ["2026-01-01"]}},
            "filters.updated_at: expected an ISO 8601 timestamp, got array",
        ),
    ],
)
def test_messages_quote_values_in_json_words(api: Api, path: str, body: dict, message: str) -> None:
    assert assert_bad_request(api.post(path, body)) == [message]
