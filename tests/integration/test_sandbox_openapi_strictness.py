"""The served OpenAPI document is exactly as strict as the handlers, over HTTP.

For each value rule a handler enforces (regions, ISO-3 countries, SKU formats, ``YYYY-MM``
months, the profile ``fields`` names, a JSON ``null`` body), a value the document allows is
answered 200 and a value it refuses is a 400. An audit found 15 requests valid per the document
yet refused, and 3 ``null`` bodies accepted although the document said ``type: object``.

Also: a 405 carries ``Allow`` (RFC 9110, section 15.5.6), from the URL table, and a JSON member
given twice in one object is a 400 naming it, not a silent choice of the last value.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests

from dealframe.sandbox.urls import openapi_document

PRIVATE = "/api/private/v1"


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    return openapi_document()["components"]["schemas"]


def _allows(schema: dict[str, Any], value: str) -> bool:
    """Whether a string schema allows ``value``: its enum, and its pattern as JSON Schema reads
    it (ECMA 262: a search, where ``$`` is the end of the text, Python's ``\\Z``)."""
    if "enum" in schema and value not in schema["enum"]:
        return False
    pattern = schema.get("pattern")
    return pattern is None or re.search(pattern.replace("$", r"\Z"), value) is not None


def _post(sandbox, path: str, body: Any, *, public: bool = True) -> requests.Response:
    token = sandbox.public_token if public else sandbox.private_key
    return requests.post(
        sandbox.url + path, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def _agree(resp: requests.Response, allowed: bool, what: str) -> None:
    assert resp.status_code in (200, 400), (what, resp.status_code, resp.text[:200])
    assert (resp.status_code == 200) == allowed, (what, allowed, resp.text[:300])


COUNTRIES = ["USA", "FRA", "usa", "US", "USAA", "US1", "USA\n", " USA", "ÉTA"]


def test_search_regions_and_countries(sandbox, schemas):
    props = schemas["SearchBody"]["properties"]
    for region in ["Oceania", "Western Europe", "Mars", "oceania", "Oceania "]:
        resp = _post(sandbox, "/api/v1/companies", {"regions": [region]})
        _agree(resp, _allows(props["regions"]["items"], region), region)
    for country in COUNTRIES:
        resp = _post(sandbox, "/api/v2/companies", {"countries": [country]})
        _agree(resp, _allows(props["countries"]["items"], country), country)


@pytest.mark.parametrize(
    "entity, label, field",
    [
        ("companies", "Company", "country"),
        ("investors", "Investor", "country"),
        ("transactions", "Transaction", "target_country"),
    ],
)
def test_family_b_country_filters(sandbox, schemas, entity, label, field):
    plain = schemas[f"{label}Filters"]["properties"][field]["anyOf"][0]
    for country in COUNTRIES:
        resp = _post(
            sandbox,
            f"{PRIVATE}/{entity}",
            {"filters": {field: [country]}, "limit": 1},
            public=False,
        )
        _agree(resp, _allows(plain["items"], country), country)


SKUS = [
    "NASDAQ_ACME",
    "NYSE_BRK.B",
    "NSE-KE_ABC",
    "ACME-USA",
    "ACME-USA.1",
    "BRK.B-USA.12",
    "ACME-USA.01",
    "ACME-USA.0",
    "acme-usa",
    "NASDAQ_",
    "_ACME",
    "ACME-US",
    "ACME-USA\n",
    "NASDAQ_ACME\n",
    "ACME",
]


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_sku_formats(sandbox, schemas, version):
    for stem, path, extra in (
        ("Current", "companies/current", {}),
        ("TimeSeries", "companies/time-series", {"dateFrom": "2025-01"}),
    ):
        items = schemas[f"{version.upper()}{stem}Body"]["properties"]["skus"]["items"]
        for sku in SKUS:
            resp = _post(sandbox, f"/api/{version}/{path}", {"skus": [sku], **extra})
            _agree(resp, _allows(items, sku), (path, sku))


def test_months(sandbox, schemas):
    sku = _post(sandbox, "/api/v2/companies", {}).json()["data"][0]["sku"]
    series = schemas["V2TimeSeriesBody"]["properties"]
    group = schemas["GroupTimeSeriesBody"]["properties"]
    for month in ["2024-01", "2024-12", "0000-01", "0000-00", "2024-13", "2024-1", "2024-01\n"]:
        for name in ("dateFrom", "dateTo"):
            resp = _post(sandbox, "/api/v2/companies/time-series", {"skus": [sku], name: month})
            _agree(resp, _allows(series[name], month), (name, month))
            resp = _post(
                sandbox, "/api/v2/groups/time-series", {"regions": ["Oceania"], name: month}
            )
            _agree(resp, _allows(group[name], month), (name, month))


@pytest.mark.parametrize("entity", ["companies", "investors", "transactions"])
def test_profile_fields_names(sandbox, entity):
    listed = _post(sandbox, f"{PRIVATE}/{entity}", {"limit": 1}, public=False).json()["data"][0]
    operation = openapi_document()["paths"][f"{PRIVATE}/{entity}/{{id}}"]["get"]
    fields = next(p for p in operation["parameters"] if p["name"] == "fields")
    assert (fields["style"], fields["explode"], fields["schema"]["type"]) == (
        "form",
        False,
        "array",
    )
    names = fields["schema"]["items"]
    for value in ["name", "id,updated_at", "deleted", "bogus", "name,bogus", "Name"]:
        allowed = all(_allows(names, n) for n in value.split(","))
        resp = requests.get(
            f"{sandbox.url}{PRIVATE}/{entity}/{listed['id']}",
            params={"fields": value},
            headers={"Authorization": f"Bearer {sandbox.private_key}"},
            timeout=30,
        )
        _agree(resp, allowed, value)


@pytest.mark.parametrize(
    "path, component, public",
    [
        ("/api/v1/companies", "SearchBody", True),
        (f"{PRIVATE}/companies", "CompanyListBody", False),
        (f"{PRIVATE}/transactions", "TransactionListBody", False),
        ("/api/v1/companies/current", "V1CurrentBody", True),
        ("/api/v2/groups/current", "GroupCurrentBody", True),
    ],
)
def test_null_body(sandbox, schemas, path, component, public):
    token = sandbox.public_token if public else sandbox.private_key
    resp = requests.post(
        sandbox.url + path,
        data=b"null",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        timeout=30,
    )
    _agree(resp, schemas[component].get("nullable", False), path)


@pytest.mark.parametrize(
    "method, path, allow",
    [
        ("GET", "/api/v1/companies", "POST"),
        ("PUT", "/api/v2/groups/time-series", "POST"),
        ("GET", f"{PRIVATE}/companies", "POST"),
        ("POST", f"{PRIVATE}/companies/0d0e0f00-0000-4000-8000-000000000000", "GET, HEAD"),
        (
            "DELETE",
            f"{PRIVATE}/investors/0d0e0f00-0000-4000-8000-000000000000/portfolio",
            "GET, HEAD",
        ),
        ("GET", f"{PRIVATE}/companies/resolve", "POST"),
        ("GET", f"{PRIVATE}/transactions/aggregate", "POST"),
        ("POST", "/health", "GET, HEAD"),
    ],
)
def test_405_names_the_allowed_methods(sandbox, method, path, allow):
    token = sandbox.private_key if path.startswith(PRIVATE) else sandbox.public_token
    headers = {"Authorization": f"Bearer {token}"}
    resp = requests.request(method, sandbox.url + path, headers=headers, timeout=30)
    assert resp.status_code == 405 and resp.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert resp.headers.get("Allow") == allow
    for other in allow.split(", "):  # each method it names is served there (not a 405)
        assert (
            requests.request(other, sandbox.url + path, headers=headers, timeout=30).status_code
            != 405
        )


def _raw(sandbox, path: str, text: str, *, public: bool = False) -> requests.Response:
    token = sandbox.public_token if public else sandbox.private_key
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    return requests.post(sandbox.url + path, data=text.encode(), headers=headers, timeout=30)


@pytest.mark.parametrize(
    "path, text, member, public",
    [
        (f"{PRIVATE}/companies", '{"limit": 1, "limit": 3}', "limit", False),
        (
            f"{PRIVATE}/companies",
            '{"filters": {"country": ["USA"], "country": ["FRA"]}}',
            "country",
            False,
        ),
        (
            f"{PRIVATE}/companies",
            '{"filters": {"updated_at": {"gte": "2020-01-01T00:00:00Z"}}, "page": 1, "page": 2}',
            "page",
            False,
        ),
        ("/api/v1/companies", '{"regions": ["Oceania"], "regions": ["Africa"]}', "regions", True),
        (f"{PRIVATE}/companies/resolve", '{"names": ["a:b"], "names": ["c"]}', "names", False),
    ],
)
def test_repeated_json_member_is_refused(sandbox, path, text, member, public):
    resp = _raw(sandbox, path, text, public=public)
    assert resp.status_code == 400, resp.text[:300]
    assert resp.json()["error"]["details"]["errors"] == [
        f"{member}: given more than once (2 times) in the body; give it once"
    ]


def test_members_once_are_read_as_given(sandbox):
    """Colons inside strings (timestamps, names) are no repeated member."""
    text = '{"filters": {"updated_at": {"gte": "2020-01-01T00:00:00Z"}, "name": "a:b"}, "limit": 2}'
    resp = _raw(sandbox, f"{PRIVATE}/companies", text)
    assert resp.status_code == 200 and resp.json()["meta"]["limit"] == 2
    resp = _raw(sandbox, f"{PRIVATE}/companies", '{"limit": 2, "page": 1}')
    assert resp.status_code == 200 and resp.json()["meta"]["limit"] == 2


@pytest.mark.parametrize(
    "path, member, schema_of",
    [
        (f"{PRIVATE}/companies", "filters", lambda s: s["CompanyFilters"]),
        (
            f"{PRIVATE}/transactions",
            "sort",
            lambda s: s["TransactionListBody"]["properties"]["sort"],
        ),
        (f"{PRIVATE}/investors", "limit", lambda s: s["InvestorListBody"]["properties"]["limit"]),
        (f"{PRIVATE}/investors", "page", lambda s: s["InvestorListBody"]["properties"]["page"]),
    ],
)
def test_null_members_of_the_list_body(sandbox, schemas, path, member, schema_of):
    """``filters`` and ``sort`` of null are read as absent; ``limit`` and ``page`` are not."""
    resp = _post(sandbox, path, {member: None}, public=False)
    _agree(resp, schema_of(schemas).get("nullable", False), member)
