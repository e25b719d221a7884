"""Sandbox profiles, in-process (the ASGI app without a server): each serves exactly its
documented alternative, ``default`` is the documented sandbox byte for byte, and names are
checked before anything starts."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from typing import Any
from urllib.parse import urlencode

import orjson
import pytest

import dealframe
from dealframe.sandbox import PROFILES, UnknownProfileError
from dealframe.sandbox.app import build_app
from dealframe.sandbox.errors import bad_request, error_body, not_found
from dealframe.sandbox.models import SandboxConfig, SandboxState
from dealframe.sandbox.profiles import EXTRA_SERIES, select
from dealframe.sandbox.urls import table

B = "/api/private/v1"
A = "/api/v2"
TOKENS = {"public": "sandbox-public-token", "private": "sandbox-private-key"}


@pytest.fixture(scope="module")
def state() -> SandboxState:
    return SandboxState.build(SandboxConfig(scale=0.02, seed=3))


class Served:
    """One app per profile, called in-process."""

    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.apps: dict[str, Any] = {}

    def __call__(
        self,
        profile: str,
        method: str,
        path: str,
        body: Any = None,
        query: dict | None = None,
        token: str | None = "family",
    ) -> tuple[int, str, bytes]:
        if profile not in self.apps:
            self.apps[profile] = build_app(self.state, profile=profile)
        raw = b"" if body is None else orjson.dumps(body)
        if token == "family":
            token = TOKENS["private" if path.startswith(B) else "public"]
        headers = [(b"content-length", str(len(raw)).encode())]
        if token is not None:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        sent: list[dict] = []
        messages = [{"type": "http.request", "body": raw, "more_body": False}]

        async def receive() -> dict:
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "method": method,
            "path": path,
            "raw_path": path.encode(),
            "query_string": urlencode(query or {}).encode(),
            "headers": headers,
            "http_version": "1.1",
            "scheme": "http",
            "root_path": "",
            "server": ("127.0.0.1", 80),
            "client": ("127.0.0.1", 1),
        }
        asyncio.run(self.apps[profile](scope, receive, send))
        start = next(m for m in sent if m["type"] == "http.response.start")
        kind = dict(start["headers"]).get(b"content-type", b"").decode()
        return (
            start["status"],
            kind,
            b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"),
        )

    def json(self, profile: str, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        status, _, raw = self(profile, method, path, body, **kw)
        assert status == 200, raw
        return orjson.loads(raw)


@pytest.fixture(scope="module")
def served(state: SandboxState) -> Served:
    return Served(state)


@pytest.fixture(scope="module")
def ids(served: Served) -> dict[str, str]:
    deals = served.json(
        "default", "POST", f"{B}/transactions", {"filters": {"deal_type": ["M&A"]}, "limit": 1000}
    )["data"]
    sold = max(deals, key=lambda d: sum(x["target"]["id"] == d["target"]["id"] for x in deals))
    return {"sold": sold["target"]["id"]}


# ---------------------------------------------------------------------------- names


def test_names_are_checked_with_a_suggestion() -> None:
    with pytest.raises(UnknownProfileError, match="did you mean 'limit-100'"):
        select("limit-10")
    with pytest.raises(UnknownProfileError, match="profiles: default, group-field-major"):
        select("nothing-like-it")
    with pytest.raises(ValueError) as caught:  # catchable as before, and as dealframe's
        select("nothing-like-it")
    assert isinstance(caught.value, dealframe.ValidationError)
    assert (caught.value.argument, caught.value.got) == ("profile", "nothing-like-it")


def test_default_spellings_and_combinations() -> None:
    assert (
        select(None)
        is select("")
        is select("default")
        is select(["default"])
        is PROFILES["default"]
    )
    assert select(" limit-100 , default,limit-100").name == "limit-100"
    both = select(["limit-100", "quarter-words"])
    assert both.name == "limit-100,quarter-words" and both.touches == {
        "list-limit",
        "quarter-labels",
    }
    with pytest.raises(UnknownProfileError, match="both decide errors"):
        select("errors-detail,errors-list")
    with pytest.raises(UnknownProfileError, match="both decide"):
        select("broken,limit-100,quarter-compact")


def test_default_is_the_documented_table_and_error_body() -> None:
    default, base, admin = select("default"), table(), table(admin=True)
    assert default.table(base) is base and default.table(admin) is admin
    assert default.errors is None


def test_every_other_profile_changes_the_table_or_the_error_body() -> None:
    base = table()
    for name, profile in PROFILES.items():
        if name != "default":
            assert profile.table(base) != base or profile.errors is not None, name
            assert profile.point and profile.serves and profile.touches, name


def test_the_default_app_answers_as_before(served: Served) -> None:
    status, kind, raw = served("default", "POST", f"{B}/companies", {"limit": 0})
    assert (status, kind) == (400, "application/json")
    assert raw == error_body(bad_request("limit: must be an integer between 1 and 1000, got 0"))
    status, _, raw = served("default", "GET", f"{B}/lookup/transactions")
    assert b'"small_n_threshold":5' in raw and b"extra_field" not in raw


# ---------------------------------------------------------------------------- answers


def test_group_layouts(served: Served) -> None:
    body = {"regions": ["North America", "Western Europe", "East Asia"]}
    default = served.json("default", "POST", f"{A}/groups/current", body)["data"]
    major = served.json("group-field-major", "POST", f"{A}/groups/current", body)["data"]
    rows = served.json("group-list", "POST", f"{A}/groups/current", body)["data"]
    assert major["marketCap"] == {"sum": default["sum"]["marketCap"]}
    assert major["revenueLtm"] == {
        "sum": default["sum"]["revenueLtm"],
        "median": default["median"]["revenueLtm"],
    }
    assert {r["field"]: (r["sum"], r["median"]) for r in rows} == {
        f: (default["sum"].get(f), default["median"].get(f))
        for f in {*default["sum"], *default["median"]}
    }
    flat = served.json("group-flat", "POST", f"{A}/groups/current", body)["data"]
    assert flat["marketCapSum"] == default["sum"]["marketCap"] and "marketCapMedian" not in flat
    assert flat["revenueLtmMedian"] == default["median"]["revenueLtm"]
    assert len(flat) == len(default["sum"]) + len(default["median"])
    # v1's undocumented twin changes the same way
    assert isinstance(
        served.json("group-list", "POST", "/api/v1/groups/current", body)["data"], list
    )


@pytest.mark.parametrize(
    ("profile", "bucket", "label"),
    [
        ("quarter-compact", "quarter", r"\d{4}Q[1-4]"),
        ("quarter-words", "quarter", r"Q[1-4] \d{4}"),
        ("month-date", "month", r"\d{4}-\d{2}-01"),
    ],
)
def test_bucket_labels(served: Served, profile: str, bucket: str, label: str) -> None:
    body = {"metric": "valuation", "time_bucket": bucket}
    got = served.json(profile, "POST", f"{B}/transactions/aggregate", body)
    want = served.json("default", "POST", f"{B}/transactions/aggregate", body)
    assert all(re.fullmatch(label, item["bucket"]) for item in got["data"])
    strip = [{k: v for k, v in i.items() if k != "bucket"} for i in got["data"]]
    assert strip == [{k: v for k, v in i.items() if k != "bucket"} for i in want["data"]]
    other = {"metric": "valuation", "time_bucket": "year"}  # other buckets are untouched
    assert served.json(profile, "POST", f"{B}/transactions/aggregate", other) == served.json(
        "default", "POST", f"{B}/transactions/aggregate", other
    )


def test_threshold_3(served: Served) -> None:
    body = {"metric": "raised", "time_bucket": "month"}
    got = served.json("threshold-3", "POST", f"{B}/transactions/aggregate", body)
    want = served.json("default", "POST", f"{B}/transactions/aggregate", body)
    assert got["meta"]["methodology"]["small_n_threshold"] == 3
    moved = [(g, w) for g, w in zip(got["data"], want["data"]) if 3 <= w["n"] < 5]
    assert moved and all(
        g["warning"] is None and g["median"] is not None and w["warning"] == "small_n"
        for g, w in moved
    )
    assert all(g["warning"] == "small_n" for g in got["data"] if 0 < g["n"] < 3)
    doc = served.json("threshold-3", "GET", f"{B}/lookup/transactions")["data"]
    assert doc["aggregate"]["methodology"]["small_n_threshold"] == 3


@pytest.mark.parametrize("n", [100, 500])
def test_lists_clamp_limit_and_say_so(served: Served, n: int) -> None:
    profile = f"limit-{n}"
    page2 = served.json(profile, "POST", f"{B}/transactions", {"limit": 1000, "page": 2})
    rows = served.json("default", "POST", f"{B}/transactions", {"limit": 1000})["data"]
    assert page2["meta"]["limit"] == n and page2["meta"]["page"] == 2
    assert [r["id"] for r in page2["data"]] == [r["id"] for r in rows[n : 2 * n]]
    small = served.json(profile, "POST", f"{B}/companies", {"limit": 7})
    assert small["meta"]["limit"] == 7 and len(small["data"]) == 7
    assert served(profile, "POST", f"{B}/companies", {"limit": 1001})[0] == 400
    assert (
        served.json(
            profile,
            "GET",
            f"{B}/companies/{rows[0]['target']['id']}/fundings",
            query={"limit": 1000},
        )["meta"]["limit"]
        == 1000
    )  # GETs as documented


@pytest.mark.parametrize("status", [400, 413])
def test_resolve_takes_at_most_100_names(served: Served, status: int) -> None:
    profile = f"resolve-100-{status}"
    names = [f"name {i}" for i in range(101)]
    code, kind, raw = served(profile, "POST", f"{B}/investors/resolve", {"names": names})
    assert (code, kind) == (status, "application/json")
    assert orjson.loads(raw)["error"]["details"]["errors"] == [
        "names: at most 100 names per request, got 101"
    ]
    ok = served.json(profile, "POST", f"{B}/companies/resolve", {"names": names[:100]})
    assert len(ok["data"]) == 100


def _instants(raw: bytes) -> list[dt.datetime]:
    text = raw.decode()
    stamps = re.findall(r'"(\d{4}-\d\d-\d\dT[^"]+)"', text)
    return [dt.datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(dt.UTC) for s in stamps]


@pytest.mark.parametrize("profile", ["timestamps-z", "timestamps-offset"])
def test_timestamps_are_the_same_instants(served: Served, profile: str, ids: dict) -> None:
    for method, path, body in (
        ("POST", f"{B}/transactions", {"limit": 200}),
        ("GET", f"{B}/companies/{ids['sold']}", None),
        ("GET", f"{B}/companies/{ids['sold']}/sellside", None),
    ):
        _, _, got = served(profile, method, path, body)
        _, _, want = served("default", method, path, body)
        assert got != want and _instants(got) == _instants(want) and _instants(want)
        assert b"+00:00" not in got if profile == "timestamps-z" else b"-03:00" in got
    _, _, raw = served("timestamps-z", "POST", f"{B}/transactions", {"limit": 20})
    assert {m for m in re.findall(rb'\d\d:\d\d(\.\d+)?Z"', raw)} >= {b"", b".000", b".000000"}
    _, _, raw = served("timestamps-offset", "POST", f"{B}/transactions", {"limit": 20})
    assert {b"+05:30", b"-09:30", b"+12:45"} <= set(re.findall(rb'[+-]\d\d:\d\d(?=")', raw))


def test_extra_fields_time_series(served: Served, state: SandboxState) -> None:
    sku = served.json("default", "POST", f"{A}/companies", {})["data"][0]["sku"]
    base = {"skus": [sku], "dateFrom": "2024-01", "dateTo": "2024-06"}
    every = served.json("extra-fields", "POST", f"{A}/companies/time-series", base)["data"][0]
    assert set(every["data"]) == set(state.public.fields) | set(EXTRA_SERIES)
    assert every["extraField"]
    asked = served.json(
        "extra-fields",
        "POST",
        f"{A}/companies/time-series",
        {**base, "fields": ["ruleOf40", "evRevenueLtm"]},
    )["data"][0]["data"]
    assert list(asked) == ["ruleOf40", "evRevenueLtm"]
    parts = served.json(
        "default",
        "POST",
        f"{A}/companies/time-series",
        {**base, "fields": ["revenueGrowthNtmLtm", "marginEbitdaLtm"]},
    )
    g, m = parts["data"][0]["data"].values()
    assert asked["ruleOf40"] == {k: round(g[k] + m[k], 4) for k in g if k in m}
    assert (
        served("default", "POST", f"{A}/companies/time-series", {**base, "fields": ["ruleOf40"]})[0]
        == 400
    )
    assert (
        served("extra-fields", "POST", f"{A}/companies/time-series", {**base, "fields": ["nope"]})[
            0
        ]
        == 400
    )
    group = served.json(
        "extra-fields",
        "POST",
        "/api/v1/groups/time-series",
        {
            "regions": ["North America"],
            "fields": ["ebitdaLtm"],
            "dateFrom": "2024-01",
            "dateTo": "2024-03",
        },
    )
    assert group["data"] and all(list(i["median"]) == ["ebitdaLtm"] for i in group["data"])


def test_extra_fields_everywhere(served: Served, ids: dict) -> None:
    sku = served.json("default", "POST", f"{A}/companies", {})["data"][0]["sku"]
    current = served.json("extra-fields", "POST", f"{A}/companies/current", {"skus": [sku]})
    item = current["data"][0]
    assert item["netDebt"] == pytest.approx(item["enterpriseValue"] - item["marketCap"], abs=1e-3)
    group = served.json(
        "extra-fields", "POST", f"{A}/groups/current", {"regions": ["North America"]}
    )
    assert {"netDebt", "ruleOf40Ntm"} <= set(group["data"]["median"])
    assert "netDebt" not in group["data"]["sum"] and group["meta"]["extraField"]
    for method, path in (
        ("POST", f"{B}/transactions"),
        ("POST", f"{B}/investors"),
        ("GET", f"{B}/companies/{ids['sold']}/sellside"),
        ("GET", f"{B}/companies/{ids['sold']}/investors"),
    ):
        data = served.json("extra-fields", method, path, {} if method == "POST" else None)["data"]
        assert data and all("extra_field" in i for i in data), path
    assert (
        "extra_field" in served.json("extra-fields", "GET", f"{B}/companies/{ids['sold']}")["data"]
    )
    asked = served.json(
        "extra-fields", "GET", f"{B}/companies/{ids['sold']}", query={"fields": "name"}
    )["data"]
    assert set(asked) == {"id", "name"}  # an allowlist is honoured
    doc = served.json("extra-fields", "GET", f"{B}/lookup/investors")["data"]
    assert all("extra_field" in f for f in doc["filters"])


def test_legacy_subresources(served: Served, ids: dict) -> None:
    doc = served.json("legacy-subresources", "GET", f"{B}/lookup/companies")["data"]
    assert doc["sub_resources"] == [
        "/companies/{id}/fundings",
        "/companies/{id}/acquisitions",
        "/companies/{id}/investments",
        "/companies/{id}/investors",
    ]
    sold = ids["sold"]
    assert served("legacy-subresources", "GET", f"{B}/companies/{sold}/sellside")[0] == 404
    assert served("legacy-subresources", "GET", f"{B}/companies/{sold}/buyside")[0] == 404
    assert served.json(
        "legacy-subresources", "GET", f"{B}/companies/{sold}/acquisitions"
    ) == served.json("default", "GET", f"{B}/companies/{sold}/sellside")


# ---------------------------------------------------------------------------- errors


def test_family_b_error_bodies(served: Served) -> None:
    bad = ("POST", f"{B}/companies", {"limit": 0})
    assert orjson.loads(served("errors-detail", *bad)[2]) == {
        "detail": "limit: must be an integer between 1 and 1000, got 0"
    }
    assert orjson.loads(served("errors-list", *bad)[2]) == {
        "errors": [{"field": "limit", "message": "must be an integer between 1 and 1000, got 0"}]
    }
    missing = ("GET", f"{B}/companies/00000000-0000-4000-8000-000000000000")
    assert orjson.loads(served("errors-detail", *missing)[2]) == {"detail": "Company not found"}
    assert orjson.loads(served("errors-list", *missing)[2]) == {
        "errors": [{"field": None, "message": "Company not found"}]
    }
    status, kind, raw = served("broken", *bad)
    assert (status, kind.split(";")[0]) == (400, "text/plain") and raw.startswith(b"Error 400\n")


def test_error_bodies_change_for_family_b_only(served: Served) -> None:
    status, _, raw = served("errors-detail", "GET", f"{B}/lookup/companies", token=None)
    assert status == 401 and orjson.loads(raw) == {"detail": "Authorization header is required"}
    status, _, raw = served("errors-detail", "GET", f"{B}/no/such/route")
    assert status == 404 and "detail" in orjson.loads(raw)
    status, _, raw = served("errors-detail", "POST", f"{A}/companies/current", {"skus": []})
    assert status == 400 and orjson.loads(raw)["error"]["code"] == "BAD_REQUEST"
    deleted = not_found("Company", "x", deleted=True, hint="pass include_deleted=true to read it")
    body, _ = select("errors-detail").errors(deleted)
    assert orjson.loads(body) == {
        "detail": "Resource is deleted: pass include_deleted=true to read it"
    }


def test_broken(served: Served) -> None:
    first = served.json("broken", "POST", f"{B}/companies", {"limit": 5, "page": 1})
    third = served.json("broken", "POST", f"{B}/companies", {"limit": 5, "page": 3})
    assert first["data"] == third["data"] and third["meta"]["page"] == 1
    labels = served.json(
        "broken",
        "POST",
        f"{B}/transactions/aggregate",
        {"metric": "raised", "time_bucket": "quarter"},
    )["data"]
    assert [b["bucket"] for b in labels[:2]] == ["bucket 1", "bucket 2"]
    assert isinstance(first["data"][0]["updated_at"], int)
    group = served.json("broken", "POST", f"{A}/groups/current", {"regions": ["North America"]})
    assert all(isinstance(row, list) and len(row) == 3 for row in group["data"])
