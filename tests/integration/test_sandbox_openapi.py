"""The sandbox's OpenAPI document: valid, served, complete, and true to real responses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import requests
import schemathesis
from starlette.applications import Starlette
from starlette.routing import Route

from dealframe.sandbox.urls import openapi_document

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api, Truth

PRIVATE = "/api/private/v1"


@pytest.fixture(scope="module")
def doc() -> dict:
    return openapi_document()


@pytest.fixture(scope="module")
def schema(doc):
    return schemathesis.openapi.from_dict(doc)


def test_document_is_valid_openapi(schema, doc):
    schema.validate()  # raises on any violation of the OpenAPI 3.0 meta-schema
    assert doc["openapi"].startswith("3.0")
    operations = [r.ok() for r in schema.get_all_operations()]
    assert len(operations) == sum(len(v) for v in doc["paths"].values())


def test_document_is_cached_and_served(sandbox, doc):
    assert openapi_document() is doc
    resp = requests.get(sandbox.url + "/openapi.json", timeout=10)  # no token needed
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("application/json")
    assert resp.json() == doc


def _app_routes(sandbox) -> set[tuple[str, str]]:
    app = sandbox._server.config.app  # the served ASGI app, under its middleware layers
    while not isinstance(app, Starlette):
        app = app.app
    out = set()
    for route in app.routes:
        assert isinstance(route, Route)
        for method in route.methods - {"HEAD"}:
            out.add((route.path, method.lower()))
    return out


def test_every_app_route_is_documented_and_nothing_else(sandbox, doc):
    documented = {(path, method) for path, item in doc["paths"].items() for method in item}
    served = _app_routes(sandbox)
    assert served - documented == set()
    assert documented - served == set()
    families = {p.split("/")[2] for p, _ in served if p.startswith("/api/")}
    assert families == {"v1", "v2", "private"}


def test_operations_have_bodies_errors_and_security(doc):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            ok = op["responses"]["200"]["content"]["application/json"]["schema"]
            assert ok
            if not path.startswith("/api/"):
                assert op["security"] == []
                continue
            assert op["security"] == (
                [{"privateKey": []}] if path.startswith(PRIVATE) else [{"publicToken": []}]
            )
            for status in ("401", "default"):
                assert op["responses"][status]["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/Error"
                }
            if method == "post":
                assert "requestBody" in op and "400" in op["responses"]
            if "{id}" in path:
                assert "404" in op["responses"]
                assert any(p["name"] == "id" and p["in"] == "path" for p in op["parameters"])
    schemes = doc["components"]["securitySchemes"]
    assert schemes["privateKey"] == {**schemes["privateKey"], "type": "http", "scheme": "bearer"}
    assert schemes["publicToken"] == {**schemes["publicToken"], "type": "http", "scheme": "bearer"}


@pytest.mark.parametrize(
    "entity, name",
    [("companies", "Company"), ("investors", "Investor"), ("transactions", "Transaction")],
)
def test_filter_schemas_match_discovery(sandbox, doc, entity, name):
    api = Api(sandbox.url, sandbox.private_key)
    listed = api.ok_get(f"/lookup/{entity}")["data"]
    props = doc["components"]["schemas"][f"{name}Filters"]["properties"]
    assert set(props) == {f["field"] for f in listed["filters"]}
    pattern = doc["components"]["schemas"][f"{name}ListBody"]["properties"]["sort"]["pattern"]
    for key in listed["sort_fields"]:
        assert key in pattern


def _ok(resp: requests.Response) -> requests.Response:
    assert resp.status_code == 200, resp.text[:300]
    return resp


def test_real_responses_conform_to_the_document(sandbox, schema):
    """One real request per operation (plus error bodies), validated against the document."""
    truth = Truth(sandbox.state.dataset)
    api = Api(sandbox.url, sandbox.private_key)
    pub = requests.Session()
    pub.headers["Authorization"] = f"Bearer {sandbox.public_token}"
    company = next(
        o for o in truth.dataset.orgs if o["_company"] and o["_investor"] and not o["deleted"]
    )
    listed = next(
        o for o in truth.dataset.orgs if o["_company"] and o["stock_listing"] and not o["deleted"]
    )
    deal = Truth.live(truth.deals)[0]
    deleted = next(o for o in truth.dataset.orgs if o["_company"] and o["deleted"])
    cid, did = company["id"], deal["id"]
    calls: list[tuple[str, str, requests.Response]] = []

    def private(method: str, path: str, template: str, body=None, **params):
        resp = api.get(path, **params) if method == "get" else api.post(path, body)
        calls.append((PRIVATE + template, method, resp))

    for entity in ("companies", "investors", "transactions"):
        private("get", f"/lookup/{entity}", f"/lookup/{entity}")
        private(
            "post", f"/{entity}", f"/{entity}", {"limit": 50, "filters": {"include_deleted": True}}
        )
        private("post", f"/{entity}", f"/{entity}", {"limit": 0})
    private("get", f"/companies/{cid}", "/companies/{id}")
    private("get", f"/companies/{listed['id']}", "/companies/{id}", fields="name,stock_listing")
    private("get", f"/companies/{deleted['id']}", "/companies/{id}")
    private("get", f"/companies/{deleted['id']}", "/companies/{id}", include_deleted="true")
    private("get", f"/investors/{cid}", "/investors/{id}")
    private("get", f"/transactions/{did}", "/transactions/{id}")
    private("get", "/transactions/not-a-uuid", "/transactions/{id}")
    for name in ("fundings", "sellside", "buyside", "investors", "acquisitions", "investments"):
        private("get", f"/companies/{cid}/{name}", f"/companies/{{id}}/{name}")
    for name in ("investments", "co_investors", "portfolio"):
        private("get", f"/investors/{cid}/{name}", f"/investors/{{id}}/{name}")
    private("get", f"/investors/{cid}/portfolio", "/investors/{id}/portfolio", limit=0)
    for entity in ("companies", "investors"):
        private(
            "post",
            f"/{entity}/resolve",
            f"/{entity}/resolve",
            {"names": [company["name"], company["name"].split()[0], "zzqx nothing"]},
        )
    private("post", "/transactions/aggregate", "/transactions/aggregate", {"metric": "valuation"})
    private("post", "/transactions/aggregate", "/transactions/aggregate", {"metric": "nope"})

    skus = {}
    for version in ("v1", "v2"):
        resp = _ok(pub.post(f"{sandbox.url}/api/{version}/companies", json={}, timeout=30))
        calls.append((f"/api/{version}/companies", "post", resp))
        skus[version] = [row["sku"] for row in resp.json()["data"][:3]]
        for path, body in (
            ("companies/current", {"skus": skus[version]}),
            ("companies/time-series", {"skus": skus[version][:1], "dateFrom": "2025-01"}),
            ("groups/current", {"regions": ["North America", "Western Europe"]}),
            ("groups/time-series", {"regions": ["North America"], "dateFrom": "2025-06"}),
            ("companies/current", {"skus": []}),
        ):
            calls.append(
                (
                    f"/api/{version}/{path}",
                    "post",
                    pub.post(f"{sandbox.url}/api/{version}/{path}", json=body, timeout=30),
                )
            )
    calls.append(("/health", "get", requests.get(sandbox.url + "/health", timeout=10)))

    seen = set()
    for template, method, resp in calls:
        operation = schema[template][method.upper()]
        assert resp.status_code < 500, (template, resp.text[:300])
        operation.validate_response(resp)
        seen.add((template, method))
    documented = {(p, m) for p, item in schema.raw_schema["paths"].items() for m in item}
    assert documented - seen == {("/openapi.json", "get")}
