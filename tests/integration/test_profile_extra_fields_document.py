"""Under ``extra-fields`` the served document lists the names the profile's handlers take.

A review found that a profile read answered ``?fields=name,extra_field`` (the profile serves
that member when asked) while the served ``/openapi.json`` listed only the default names in
the ``fields`` enum, so a client checking its request against the document refused what the
sandbox takes; likewise the extra series (``ruleOf40``) in the time-series bodies. Each value
here is answered 200 exactly when the served document allows it. Empty items of ``fields``
(``name,``) are taken, as docs/sandbox.md says, under every profile.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from dealframe.sandbox import run

PRIVATE = "/api/private/v1"


@pytest.fixture(scope="module", params=["default", "extra-fields"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Any, dict[str, Any]]]:
    with run(scale=0.02, seed=7, profile=request.param) as sb:
        yield sb, requests.get(f"{sb.url}/openapi.json", timeout=30).json()


def _allows(schema: dict[str, Any], value: str) -> bool:
    pattern = schema.get("pattern")
    return value in schema.get("enum", [value]) and (
        pattern is None or re.search(pattern.replace("$", r"\Z"), value) is not None
    )


@pytest.mark.parametrize("entity", ["companies", "transactions"])
def test_profile_fields_agree_with_the_served_document(served, entity):
    sb, document = served
    auth = {"Authorization": f"Bearer {sb.private_key}"}
    ident = requests.post(
        f"{sb.url}{PRIVATE}/{entity}", json={"limit": 1}, headers=auth, timeout=30
    ).json()["data"][0]["id"]
    operation = document["paths"][f"{PRIVATE}/{entity}/{{id}}"]["get"]
    names = next(p for p in operation["parameters"] if p["name"] == "fields")["schema"]["items"]
    for value in ["id", "id,extra_field", "extra_field", "extra_fieldx", "bogus"]:
        resp = requests.get(
            f"{sb.url}{PRIVATE}/{entity}/{ident}",
            params={"fields": value},
            headers=auth,
            timeout=30,
        )
        allowed = all(_allows(names, n) for n in value.split(","))
        assert resp.status_code == (200 if allowed else 400), (value, resp.text[:200])
    for value in ["id,", ",id", "id,,id"]:  # empty items are passed over (docs/sandbox.md)
        resp = requests.get(
            f"{sb.url}{PRIVATE}/{entity}/{ident}",
            params={"fields": value},
            headers=auth,
            timeout=30,
        )
        assert resp.status_code == 200 and list(resp.json()["data"]) == ["id"], value


def test_series_fields_agree_with_the_served_document(served):
    sb, document = served
    auth = {"Authorization": f"Bearer {sb.public_token}"}
    sku = requests.post(f"{sb.url}/api/v2/companies", json={}, headers=auth, timeout=30).json()[
        "data"
    ][0]["sku"]
    schemas = document["components"]["schemas"]
    for path, component, body in [
        ("/api/v2/companies/time-series", "V2TimeSeriesBody", {"skus": [sku]}),
        ("/api/v2/groups/time-series", "GroupTimeSeriesBody", {"regions": ["Oceania"]}),
    ]:
        items = schemas[component]["properties"]["fields"]["items"]
        for name in ["marketCap", "ruleOf40", "ebitdaLtm", "bogus"]:
            resp = requests.post(
                sb.url + path, json={**body, "fields": [name]}, headers=auth, timeout=30
            )
            allowed = _allows(items, name)
            assert resp.status_code == (200 if allowed else 400), (path, name, resp.text[:200])
