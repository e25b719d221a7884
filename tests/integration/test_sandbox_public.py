"""Family A conformance of the sandbox over real HTTP.

Checks the ``/api/v1`` and ``/api/v2`` endpoints against the interface document
(sections 2.1, 4.1, 7, 8, 9) and the decisions of docs/sandbox.md ("Family A",
"Errors", "Authentication"): envelopes, every documented field and its type, SKU
formats per version, search filters, current and time-series selection rules,
group aggregates recomputed here with plain pandas from the endpoints' own data,
auth and bad-input errors, and byte-for-byte determinism.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

import orjson
import pandas as pd
import pytest
import requests

import dealframe.sandbox

VERSIONS = ("v1", "v2")
PATHS = (
    "companies",
    "companies/current",
    "companies/time-series",
    "groups/current",
    "groups/time-series",
)
SKU_RE = {
    "v1": re.compile(r"[A-Z0-9]+(?:-[A-Z0-9]+)*_[A-Z0-9]+"),
    "v2": re.compile(r"([A-Z0-9]+)-([A-Z]{3})(?:\.([1-9][0-9]*))?"),
}
MONTH_RE = re.compile(r"[0-9]{4}-(?:0[1-9]|1[0-2])")

# Interface section 2.1 and docs/sandbox.md, written out here as the expectation.
IDENTIFIER_FIELDS = {
    "sku": str,
    "ticker": str,
    "exchange": str,
    "name": str,
    "shortName": str,
    "enterpriseValue": "number",
    "countryCodeIso3": str,
    "country": str,
    "region": str,
    "verticals": list,
    "themes": list,
}
CURRENT_STRINGS = (
    "sku",
    "ticker",
    "exchange",
    "name",
    "shortName",
    "countryCodeIso3",
    "country",
    "currency",
    "region",
)
CURRENT_ARRAYS = ("tags", "themes", "verticals")
MONETARY = ("marketCap", "enterpriseValue", "revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm")
CURRENT_NUMBERS = (
    *MONETARY,
    "evRevenueLtm",
    "evRevenueNtm",
    "evEbitdaLtm",
    "marginGrossLtm",
    "marginEbitdaLtm",
    "revenueGrowthNtmLtm",
    "ruleOf40Ltm",
    "ruleOf40",
    "evEbitdaNtm",
    "marginEbitdaNtm",
    "revenueGrowthLtm",
    "employeeCount",
)
CURRENT_FIELDS = {
    *CURRENT_STRINGS,
    *CURRENT_ARRAYS,
    *CURRENT_NUMBERS,
    *(f + "Lcu" for f in MONETARY),
    "rateToUsd",
}
TIME_SERIES_FIELDS = (
    "marketCap",
    "enterpriseValue",
    "revenueLtm",
    "evRevenueLtm",
    "evRevenueNtm",
    "evEbitdaLtm",
    "evEbitdaNtm",
    "marginGrossLtm",
    "marginEbitdaLtm",
    "revenueGrowthNtmLtm",
)
SUM_FIELDS = ("marketCap", "enterpriseValue", "revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm")
REGIONS = (
    "Africa",
    "Central Asia",
    "East Asia",
    "Eastern Europe",
    "Latin America",
    "Middle East",
    "North America",
    "Northern Europe",
    "Oceania",
    "South Asia",
    "South-East Asia",
    "Southern Europe",
    "Western Europe",
)
NO_BODY = object()


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class Api:
    """Posts to one sandbox with the Family A token."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.token = token
        self.session = requests.Session()

    def post(
        self,
        version: str,
        path: str,
        body: Any = NO_BODY,
        *,
        data: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> requests.Response:
        hdrs = {"Authorization": f"Bearer {self.token}"} if headers is None else headers
        kwargs: dict[str, Any] = {"headers": hdrs, "timeout": 30}
        if data is not None:
            kwargs["data"] = data
            hdrs.setdefault("Content-Type", "application/json")
        elif body is not NO_BODY:
            kwargs["json"] = body
        return self.session.post(f"{self.url}/api/{version}/{path}", **kwargs)

    def ok(self, version: str, path: str, body: Any = NO_BODY) -> dict:
        response = self.post(version, path, body)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/json")
        payload = response.json()
        assert set(payload) == {"data", "meta"}
        assert type(payload["meta"]["count"]) is int
        return payload

    def current(self, version: str, skus: list[str]) -> list[dict]:
        out: list[dict] = []
        for i in range(0, len(skus), 100):
            out += self.ok(version, "companies/current", {"skus": skus[i : i + 100]})["data"]
        return out


@pytest.fixture(scope="module")
def api(sandbox) -> Api:
    return Api(sandbox.url, sandbox.public_token)


@pytest.fixture(scope="module")
def everyone(api) -> dict[str, list[dict]]:
    """Every company identifier, per version, from an empty search."""
    return {v: api.ok(v, "companies")["data"] for v in VERSIONS}


@pytest.fixture(scope="module")
def current_all(api, everyone) -> dict[str, list[dict]]:
    return {v: api.current(v, [c["sku"] for c in everyone[v]]) for v in VERSIONS}


@pytest.fixture(scope="module")
def picks(everyone) -> dict[str, Any]:
    """Filter values that select a real, proper subset of the companies."""
    companies = everyone["v2"]
    verticals = Counter(x for c in companies for x in c["verticals"]).most_common()
    themes = Counter(x for c in companies for x in c["themes"]).most_common()
    regions = Counter(c["region"] for c in companies).most_common()
    countries = Counter(c["countryCodeIso3"] for c in companies).most_common()
    evs = sorted(c["enterpriseValue"] for c in companies if c["enterpriseValue"] is not None)
    return {
        "industries": [verticals[0][0], verticals[5][0]],
        "themes": [themes[1][0]],
        "regions": [regions[0][0], regions[2][0]],
        "countries": [countries[1][0], countries[3][0]],
        "ev": evs[len(evs) // 2],
    }


def matches(company: dict, body: dict) -> bool:
    """The search rule of docs/sandbox.md, written independently of the sandbox."""
    if body.get("industries") and not set(company["verticals"]) & set(body["industries"]):
        return False
    if body.get("themes") and not set(company["themes"]) & set(body["themes"]):
        return False
    if body.get("regions") and company["region"] not in body["regions"]:
        return False
    if body.get("countries") and company["countryCodeIso3"] not in body["countries"]:
        return False
    if "enterpriseValueAbove" in body:
        ev = company["enterpriseValue"]
        if ev is None or not ev > body["enterpriseValueAbove"]:
            return False
    return True


# ---------------------------------------------------------------------------- search


@pytest.mark.parametrize("version", VERSIONS)
def test_search_returns_every_company_with_documented_identifier_fields(
    api, sandbox, everyone, version
):
    payload = api.ok(version, "companies", {})
    data = payload["data"]
    assert payload["meta"] == {"count": len(data)}
    assert len(data) == len(sandbox.state.dataset.listed)
    assert data == everyone[version]
    for item in data:
        assert list(item)[0] == "sku"
        assert set(item) == set(IDENTIFIER_FIELDS)
        for name, kind in IDENTIFIER_FIELDS.items():
            if kind == "number":
                assert item[name] is None or is_number(item[name]), (name, item[name])
            else:
                assert isinstance(item[name], kind), (name, item[name])
        assert all(isinstance(x, str) for x in item["verticals"] + item["themes"])
        assert SKU_RE[version].fullmatch(item["sku"])
        assert re.fullmatch(r"[A-Z]{3}", item["countryCodeIso3"])
        assert item["region"] in REGIONS
    skus = [item["sku"] for item in data]
    assert skus == sorted(skus), "results are ordered by SKU"


@pytest.mark.parametrize("version", VERSIONS)
def test_omitted_body_and_empty_arrays_mean_no_constraint(api, everyone, version):
    assert api.ok(version, "companies")["data"] == everyone[version]
    empty = {"industries": [], "themes": [], "regions": [], "countries": []}
    assert api.ok(version, "companies", empty)["data"] == everyone[version]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "member", ["industries", "themes", "regions", "countries", "enterpriseValueAbove", "combined"]
)
def test_each_search_filter_selects_what_the_rule_says(api, everyone, picks, version, member):
    if member == "combined":
        body = {
            "regions": picks["regions"],
            "industries": picks["industries"],
            "enterpriseValueAbove": picks["ev"] / 4,
        }
    elif member == "enterpriseValueAbove":
        body = {member: picks["ev"]}
    else:
        body = {member: picks[member]}
    expected = [c for c in everyone[version] if matches(c, body)]
    assert 0 < len(expected) < len(everyone[version]), "the pick must select a proper subset"
    payload = api.ok(version, "companies", body)
    assert payload["data"] == expected
    assert payload["meta"]["count"] == len(expected)


def test_enterprise_value_above_is_strict(api, everyone, picks):
    result = api.ok("v2", "companies", {"enterpriseValueAbove": picks["ev"]})["data"]
    assert all(c["enterpriseValue"] > picks["ev"] for c in result)
    at_threshold = [c["sku"] for c in everyone["v2"] if c["enterpriseValue"] == picks["ev"]]
    assert at_threshold and not set(at_threshold) & {c["sku"] for c in result}
    as_int = api.ok("v2", "companies", {"enterpriseValueAbove": int(picks["ev"])})["data"]
    assert {c["sku"] for c in as_int} >= {c["sku"] for c in result}


# ---------------------------------------------------------------------------- SKUs and versions


def test_v1_skus_are_unique_and_exchange_underscore_ticker(everyone):
    v1 = everyone["v1"]
    assert len({c["sku"] for c in v1}) == len(v1)
    for c in v1:
        assert c["sku"] == f"{c['exchange']}_{c['ticker']}"


def test_v2_skus_are_ticker_iso3_with_dot_n_on_collisions(everyone):
    v2 = everyone["v2"]
    skus = {c["sku"] for c in v2}
    assert len(skus) == len(v2)
    suffixed = [c for c in v2 if "." in c["sku"]]
    assert suffixed, "the sandbox must exercise .N collision suffixes"
    for c in v2:
        ticker, iso3, n = SKU_RE["v2"].fullmatch(c["sku"]).groups()
        assert (ticker, iso3) == (c["ticker"], c["countryCodeIso3"])
        if n is not None:  # the first holder has no suffix, then .1, .2, ...
            base = f"{ticker}-{iso3}"
            assert base in skus and all(f"{base}.{k}" in skus for k in range(1, int(n)))


def test_v1_and_v2_serve_the_same_companies(everyone, current_all):
    def by_listing(items: list[dict]) -> dict:
        return {
            (c["exchange"], c["ticker"]): {k: v for k, v in c.items() if k != "sku"} for c in items
        }

    assert by_listing(everyone["v1"]) == by_listing(everyone["v2"])
    assert by_listing(current_all["v1"]) == by_listing(current_all["v2"])
    v1_of = {(c["exchange"], c["ticker"]): c["sku"] for c in everyone["v1"]}
    for c in everyone["v2"]:
        assert SKU_RE["v1"].fullmatch(v1_of[(c["exchange"], c["ticker"])])


# ---------------------------------------------------------------------------- current data


@pytest.mark.parametrize("version", VERSIONS)
def test_current_items_have_every_documented_field_and_type(current_all, everyone, version):
    items = current_all[version]
    assert [c["sku"] for c in items] == [c["sku"] for c in everyone[version]]
    ident = {c["sku"]: c for c in everyone[version]}
    nulls = Counter()
    for item in items:
        assert list(item)[0] == "sku"
        assert set(item) == CURRENT_FIELDS
        for name in CURRENT_STRINGS:
            assert isinstance(item[name], str), name
        for name in CURRENT_ARRAYS:
            assert isinstance(item[name], list) and all(isinstance(x, str) for x in item[name])
        for name in (*CURRENT_NUMBERS, *(f + "Lcu" for f in MONETARY)):
            assert item[name] is None or is_number(item[name]), (name, item[name])
            nulls[name] += item[name] is None
        assert is_number(item["rateToUsd"]) and item["rateToUsd"] > 0
        assert item["employeeCount"] is None or type(item["employeeCount"]) is int
        same = ident[item["sku"]]
        for name in (
            "ticker",
            "exchange",
            "name",
            "shortName",
            "countryCodeIso3",
            "country",
            "region",
            "themes",
            "enterpriseValue",
            "verticals",
        ):
            assert item[name] == same[name], name
        assert item["tags"] == same["verticals"]
    assert sum(nulls.values()) > 0, "nullable numeric fields should sometimes be null"


@pytest.mark.parametrize("version", VERSIONS)
def test_lcu_variants_agree_with_rate_to_usd(current_all, version):
    checked = 0
    for item in current_all[version]:
        rate = item["rateToUsd"]
        for name in MONETARY:
            usd, lcu = item[name], item[name + "Lcu"]
            assert (usd is None) == (lcu is None), name
            if usd is not None:
                assert usd == pytest.approx(lcu * rate, rel=1e-6, abs=2e-3), (item["sku"], name)
                checked += 1
    assert checked > 0
    assert any(item["rateToUsd"] != 1 for item in current_all[version])


@pytest.mark.parametrize("version", VERSIONS)
def test_current_omits_unknown_skus_keeps_order_and_drops_duplicates(api, everyone, version):
    skus = [c["sku"] for c in everyone[version]]
    unknown = "ZZ_QQQQ" if version == "v1" else "QQQQ-ZZZ.9"
    assert unknown not in skus
    asked = [skus[7], unknown, skus[2], skus[7], skus[40]]
    payload = api.ok(version, "companies/current", {"skus": asked})
    assert [c["sku"] for c in payload["data"]] == [skus[7], skus[2], skus[40]]
    assert payload["meta"]["count"] == 3
    nothing = api.ok(version, "companies/current", {"skus": [unknown]})
    assert nothing == {"data": [], "meta": {"count": 0}}


DOTTED = {
    "v1": ["NYSE_BRK.B", "LSE_BT.A", "NYSE_BF-B"],
    "v2": ["BRK.B-USA", "BRK.B-USA.1", "BT.A-GBR", "BF-B-USA"],
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", ["companies/current", "companies/time-series"])
def test_dotted_tickers_are_well_formed_and_unknown_ones_omitted(api, everyone, version, path):
    """Tickers with a dot (BRK.B) are real: the shared SKU pattern accepts them; unheld ones are omitted."""
    skus = [c["sku"] for c in everyone[version]]
    assert not set(DOTTED[version]) & set(skus)
    asked = [skus[0], *DOTTED[version], skus[1]]
    response = api.post(version, path, {"skus": asked})
    assert response.status_code == 200, response.text[:300]
    assert [c["sku"] for c in response.json()["data"]] == [skus[0], skus[1]]
    other = "v1" if version == "v2" else "v2"  # still the path version's format only
    bad = api.post(version, path, {"skus": [skus[0], DOTTED[other][0]]})
    assert bad.status_code == 400
    assert bad.json()["error"]["details"]["errors"] == [
        f"skus[1]: {DOTTED[other][0]!r} is not a {version} SKU"
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_current_accepts_exactly_one_hundred_skus(api, everyone, version):
    skus = [c["sku"] for c in everyone[version]][:100]
    assert len(skus) == 100
    assert api.ok(version, "companies/current", {"skus": skus})["meta"]["count"] == 100


# ---------------------------------------------------------------------------- time series


@pytest.fixture(scope="module")
def series_all(api, everyone) -> dict[str, list[dict]]:
    return {
        v: api.ok(v, "companies/time-series", {"skus": [c["sku"] for c in everyone[v]]})["data"]
        for v in VERSIONS
    }


@pytest.mark.parametrize("version", VERSIONS)
def test_time_series_items_have_documented_shape(series_all, everyone, sandbox, version):
    items = series_all[version]
    ident = {c["sku"]: c for c in everyone[version]}
    assert [i["sku"] for i in items] == [c["sku"] for c in everyone[version]]
    months_seen: set[str] = set()
    for item in items:
        assert set(item) == {"sku", "ticker", "exchange", "data"}
        assert (item["ticker"], item["exchange"]) == (
            ident[item["sku"]]["ticker"],
            ident[item["sku"]]["exchange"],
        )
        assert list(item["data"]) == list(TIME_SERIES_FIELDS)
        for series in item["data"].values():
            assert all(MONTH_RE.fullmatch(m) for m in series)
            assert list(series) == sorted(series)
            assert all(is_number(v) for v in series.values()), "missing months are absent, not null"
            months_seen |= set(series)
    assert max(months_seen) == sandbox.state.config.as_of.strftime("%Y-%m")


def test_time_series_has_missing_months_absent(series_all):
    lengths = [len(s) for item in series_all["v2"] for s in item["data"].values()]
    assert max(lengths) == 120 and min(lengths) < 120
    gaps = 0
    for item in series_all["v2"]:
        for series in item["data"].values():
            months = pd.PeriodIndex(list(series), freq="M")
            if len(months) > 1:
                gaps += int((months[-1] - months[0]).n + 1 - len(months))
    assert gaps > 0, "some series have holes between their first and last month"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("date_from", "date_to"),
    [
        ("2020-01", "2021-06"),
        ("2026-06", None),
        (None, "2016-09"),
        ("2019-04", "2019-04"),
        ("2001-01", "2031-12"),
        ("2030-01", None),
    ],
)
def test_time_series_date_range_is_inclusive(
    api, everyone, series_all, version, date_from, date_to
):
    skus = [c["sku"] for c in everyone[version]][::3]
    body: dict[str, Any] = {"skus": skus, "fields": ["evRevenueLtm", "marketCap"]}
    if date_from:
        body["dateFrom"] = date_from
    if date_to:
        body["dateTo"] = date_to
    payload = api.ok(version, "companies/time-series", body)
    full = {i["sku"]: i for i in series_all[version]}
    assert [i["sku"] for i in payload["data"]] == skus
    for item in payload["data"]:
        assert list(item["data"]) == ["evRevenueLtm", "marketCap"]
        for field, series in item["data"].items():
            expected = {
                m: v
                for m, v in full[item["sku"]]["data"][field].items()
                if (date_from is None or m >= date_from) and (date_to is None or m <= date_to)
            }
            assert series == expected


def test_time_series_bounds_are_kept_when_present(api, series_all):
    item = next(i for i in series_all["v2"] if len(i["data"]["marketCap"]) == 120)
    months = list(item["data"]["marketCap"])
    lo, hi = months[10], months[20]
    got = api.ok(
        "v2",
        "companies/time-series",
        {"skus": [item["sku"]], "fields": ["marketCap"], "dateFrom": lo, "dateTo": hi},
    )
    assert list(got["data"][0]["data"]["marketCap"]) == months[10:21]


def test_time_series_unknown_skus_omitted_and_repeats_identical(api, everyone):
    skus = [c["sku"] for c in everyone["v1"]]
    body = {"skus": [skus[3], "ZZ_QQQQ", skus[1], skus[3]]}
    first = api.post("v1", "companies/time-series", body)
    second = api.post("v1", "companies/time-series", body)
    assert first.status_code == 200 and first.content == second.content
    assert [i["sku"] for i in first.json()["data"]] == [skus[3], skus[1]]


# ---------------------------------------------------------------------------- groups


def close(actual: Any, expected: float) -> bool:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return actual is None
    return actual is not None and actual == pytest.approx(float(expected), rel=1e-9, abs=1e-9)


@pytest.fixture(scope="module")
def group_bodies(picks) -> list[dict]:
    return [
        {"regions": picks["regions"][:1]},
        {"industries": picks["industries"], "themes": picks["themes"]},
        {"countries": picks["countries"], "enterpriseValueAbove": picks["ev"] / 10},
    ]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("which", [0, 1, 2])
def test_group_current_equals_pandas_over_the_members(
    api, current_all, group_bodies, version, which
):
    body = group_bodies[which]
    members = api.ok(version, "companies", body)["data"]
    assert members
    records = api.current(version, [c["sku"] for c in members])
    frame = pd.DataFrame(records)
    # Section 2.1: "Median only: all other numeric fields" -- *Lcu, rateToUsd and extras too.
    numeric = [
        k for k in current_all[version][0] if any(is_number(c.get(k)) for c in current_all[version])
    ]
    assert {f + "Lcu" for f in MONETARY} | {"rateToUsd", "employeeCount"} <= set(numeric)
    payload = api.ok(version, "groups/current", body)
    assert payload["meta"] == {"count": len(members), "companies": len(members)}
    data = payload["data"]
    assert set(data) == {"sum", "median"}
    assert set(data["sum"]) == set(SUM_FIELDS)
    assert set(data["median"]) == set(numeric) - {"marketCap", "enterpriseValue"}
    for name in SUM_FIELDS:
        expected = pd.to_numeric(frame[name]).astype("float64").sum(min_count=1)
        assert close(data["sum"][name], expected), name
    for name in data["median"]:
        expected = pd.to_numeric(frame[name]).astype("float64").median()
        assert close(data["median"][name], expected), name


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("which", "extra"),
    [
        (0, {}),
        (
            1,
            {
                "fields": ["evRevenueLtm", "marginEbitdaLtm"],
                "dateFrom": "2021-01",
                "dateTo": "2023-12",
            },
        ),
        (2, {"fields": ["revenueGrowthNtmLtm"], "dateFrom": "2016-07"}),
    ],
)
def test_group_time_series_equals_pandas_monthly_median(api, group_bodies, version, which, extra):
    body = {**group_bodies[which], **extra}
    members = api.ok(version, "companies", group_bodies[which])["data"]
    ts_body = {
        "skus": [c["sku"] for c in members],
        **{k: v for k, v in extra.items() if k in ("fields", "dateFrom", "dateTo")},
    }
    series = api.ok(version, "companies/time-series", ts_body)["data"]
    fields = extra.get("fields", list(TIME_SERIES_FIELDS))
    long = pd.DataFrame(
        [(i["sku"], f, m, v) for i in series for f, s in i["data"].items() for m, v in s.items()],
        columns=["sku", "field", "month", "value"],
    )
    medians = (
        long.groupby(["month", "field"])["value"]
        .median()
        .unstack("field")
        .reindex(columns=fields)
        .sort_index()
    )
    payload = api.ok(version, "groups/time-series", body)
    assert payload["meta"] == {"count": len(medians), "companies": len(members)}
    assert [d["period"] for d in payload["data"]] == list(medians.index)
    for item in payload["data"]:
        assert set(item) == {"period", "median"}
        assert list(item["median"]) == fields
        for name in fields:
            assert close(item["median"][name], medians.loc[item["period"], name]), (item, name)


@pytest.mark.parametrize("path", ["groups/current", "groups/time-series"])
def test_both_versions_serve_both_group_endpoints_alike(api, group_bodies, path):
    answers = [api.post(v, path, group_bodies[1]) for v in VERSIONS]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].content == answers[1].content


def test_group_with_no_members_is_empty_not_an_error(api):
    body = {"regions": ["Oceania"], "enterpriseValueAbove": 1e15}
    current = api.ok("v2", "groups/current", body)
    assert current["meta"] == {"count": 0, "companies": 0}
    assert all(v is None for part in current["data"].values() for v in part.values())
    assert api.ok("v2", "groups/time-series", body) == {
        "data": [],
        "meta": {"count": 0, "companies": 0},
    }


# ---------------------------------------------------------------------------- auth


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", PATHS)
def test_missing_token_is_401_missing_token(api, version, path):
    response = api.post(version, path, {}, headers={})
    assert response.status_code == 401
    assert response.json() == {
        "error": {"code": "MISSING_TOKEN", "message": "Authorization header is required"}
    }


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("which", ["wrong", "family-b-key", "not-bearer"])
def test_wrong_token_is_401_invalid_token(api, sandbox, version, path, which):
    header = {
        "wrong": "Bearer not-the-token",
        "family-b-key": f"Bearer {sandbox.private_key}",
        "not-bearer": f"Token {sandbox.public_token}",
    }[which]
    response = api.post(version, path, {}, headers={"Authorization": header})
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "INVALID_TOKEN" and error["message"] == "Invalid or expired token"


# ---------------------------------------------------------------------------- bad input


def _other_sku(version: str) -> str:
    return "ACME-USA" if version == "v1" else "NASDAQ_ACME"


def _good_sku(version: str) -> str:
    return "NASDAQ_ACME" if version == "v1" else "ACME-USA"


BAD_INPUTS: list[tuple[str, str, Any, tuple[str, ...]]] = [
    # (id, path, body: dict, bytes or a callable of the version, fragments of one error)
    ("malformed-json", "companies", b'{"regions": [', ("body", "malformed JSON")),
    ("body-array", "companies", b"[1, 2]", ("body", "object")),
    ("body-string", "companies/current", b'"skus"', ("body", "object")),
    ("unknown-member", "companies", {"sector": ["Fintech"]}, ("sector", "unknown member")),
    (
        "industries-string",
        "companies",
        {"industries": "Fintech"},
        ("industries", "array of strings"),
    ),
    ("themes-numbers", "companies", {"themes": ["AI", 3]}, ("themes[1]", "string")),
    ("regions-null", "companies", {"regions": None}, ("regions", "array of strings")),
    ("region-unknown", "companies", {"regions": ["Mars"]}, ("regions[0]", "Mars", "not one of")),
    ("countries-number", "companies", {"countries": [840]}, ("countries[0]", "string")),
    ("country-not-iso3", "companies", {"countries": ["us"]}, ("countries[0]", "alpha-3")),
    ("ev-string", "companies", {"enterpriseValueAbove": "100"}, ("enterpriseValueAbove", "number")),
    ("ev-boolean", "companies", {"enterpriseValueAbove": True}, ("enterpriseValueAbove", "number")),
    ("skus-empty", "companies/current", {"skus": []}, ("skus must not be empty",)),
    ("skus-missing", "companies/current", {}, ("skus", "required")),
    ("skus-string", "companies/current", lambda v: {"skus": _good_sku(v)}, ("skus", "array")),
    ("skus-numbers", "companies/current", {"skus": [1]}, ("skus[0]", "string")),
    (
        "skus-over-100",
        "companies/current",
        lambda v: {"skus": [_good_sku(v)] * 101},
        ("skus", "at most 100"),
    ),
    (
        "skus-other-version",
        "companies/current",
        lambda v: {"skus": [_good_sku(v), _other_sku(v)]},
        ("skus[1]", "is not a"),
    ),
    (
        "current-unknown-member",
        "companies/current",
        lambda v: {"skus": [_good_sku(v)], "fields": []},
        ("fields", "unknown member"),
    ),
    ("ts-skus-empty", "companies/time-series", {"skus": []}, ("skus must not be empty",)),
    (
        "ts-skus-other-version",
        "companies/time-series",
        lambda v: {"skus": [_other_sku(v)]},
        ("skus[0]", "is not a"),
    ),
    (
        "ts-unknown-field",
        "companies/time-series",
        lambda v: {"skus": [_good_sku(v)], "fields": ["evRevenueLtm", "peLtm"]},
        ("fields[1]", "peLtm"),
    ),
    (
        "ts-fields-string",
        "companies/time-series",
        lambda v: {"skus": [_good_sku(v)], "fields": "marketCap"},
        ("fields", "array of strings"),
    ),
    (
        "ts-date-day",
        "companies/time-series",
        lambda v: {"skus": [_good_sku(v)], "dateFrom": "2024-01-01"},
        ("dateFrom", "YYYY-MM"),
    ),
    (
        "ts-date-month-13",
        "companies/time-series",
        lambda v: {"skus": [_good_sku(v)], "dateTo": "2024-13"},
        ("dateTo", "YYYY-MM"),
    ),
    (
        "ts-date-number",
        "companies/time-series",
        lambda v: {"skus": [_good_sku(v)], "dateTo": 202401},
        ("dateTo", "YYYY-MM"),
    ),
    (
        "ts-from-after-to",
        "companies/time-series",
        lambda v: {"skus": [_good_sku(v)], "dateFrom": "2024-05", "dateTo": "2024-01"},
        ("dateFrom", "after", "dateTo"),
    ),
    (
        "ts-unknown-member",
        "companies/time-series",
        lambda v: {"skus": [_good_sku(v)], "from": "2020-01"},
        ("from", "unknown member"),
    ),
    (
        "group-empty",
        "groups/current",
        {},
        ("at least one of industries, themes, regions, countries",),
    ),
    ("group-empty-arrays", "groups/current", {"regions": [], "themes": []}, ("at least one of",)),
    ("group-ev-only", "groups/current", {"enterpriseValueAbove": 5}, ("at least one of",)),
    (
        "group-current-fields",
        "groups/current",
        {"regions": ["Oceania"], "fields": ["marketCap"]},
        ("fields", "unknown member"),
    ),
    ("group-ts-empty", "groups/time-series", {"fields": ["marketCap"]}, ("at least one of",)),
    (
        "group-ts-unknown-field",
        "groups/time-series",
        {"regions": ["Oceania"], "fields": ["x"]},
        ("fields[0]", "not one of"),
    ),
    (
        "group-ts-bad-date",
        "groups/time-series",
        {"regions": ["Oceania"], "dateFrom": "24-01"},
        ("dateFrom", "YYYY-MM"),
    ),
    (
        "group-ts-from-after-to",
        "groups/time-series",
        {"regions": ["Oceania"], "dateFrom": "2025-01", "dateTo": "2024-12"},
        ("dateFrom", "after"),
    ),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("path", "body", "fragments"),
    [case[1:] for case in BAD_INPUTS],
    ids=[case[0] for case in BAD_INPUTS],
)
def test_bad_input_is_400_with_the_documented_body(api, version, path, body, fragments):
    if callable(body):
        body = body(version)
    if isinstance(body, bytes):
        response = api.post(version, path, data=body)
    else:
        response = api.post(version, path, body)
    assert response.status_code == 400, response.text
    payload = response.json()
    assert set(payload) == {"error"}
    error = payload["error"]
    assert (error["code"], error["message"]) == ("BAD_REQUEST", "Invalid request")
    errors = error["details"]["errors"]
    assert isinstance(errors, list) and errors and all(isinstance(e, str) for e in errors)
    assert any(all(f in e for f in fragments) for e in errors), errors


def test_other_version_sku_error_names_the_version(api):
    response = api.post("v2", "companies/current", {"skus": ["NASDAQ_ACME"]})
    assert response.json()["error"]["details"]["errors"] == [
        "skus[0]: 'NASDAQ_ACME' is not a v2 SKU"
    ]
    response = api.post("v1", "companies/current", {"skus": ["ACME-USA.1"]})
    assert response.json()["error"]["details"]["errors"] == [
        "skus[0]: 'ACME-USA.1' is not a v1 SKU"
    ]


def test_every_problem_is_reported_at_once(api):
    response = api.post(
        "v2", "companies/time-series", {"skus": [], "fields": ["nope"], "dateFrom": "x", "extra": 1}
    )
    errors = response.json()["error"]["details"]["errors"]
    assert len(errors) == 4
    for fragment in ("skus must not be empty", "fields[0]", "dateFrom", "extra"):
        assert any(fragment in e for e in errors), (fragment, errors)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", PATHS)
def test_wrong_method_is_405(api, version, path):
    response = api.session.get(
        f"{api.url}/api/{version}/{path}",
        headers={"Authorization": f"Bearer {api.token}"},
        timeout=30,
    )
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


# ---------------------------------------------------------------------------- determinism


def _answers(sb: dealframe.sandbox.Sandbox) -> list[bytes]:
    """Raw bytes of a fixed series of requests, SKUs taken from the sandbox's own search."""
    api = Api(sb.url, sb.public_token)
    out = []
    for version in VERSIONS:
        search = api.post(version, "companies", {})
        out.append(search.content)
        skus = [c["sku"] for c in orjson.loads(search.content)["data"]]
        region = orjson.loads(search.content)["data"][0]["region"]
        for path, body in [
            ("companies/current", {"skus": skus[:100]}),
            ("companies/time-series", {"skus": skus}),
            (
                "companies/time-series",
                {"skus": skus[::2], "dateFrom": "2020-03", "dateTo": "2024-10"},
            ),
            ("groups/current", {"regions": [region]}),
            ("groups/time-series", {"regions": [region], "dateFrom": "2025-01"}),
        ]:
            response = api.post(version, path, body)
            assert response.status_code == 200
            out.append(response.content)
    return out


def test_same_seed_and_scale_give_identical_bytes():
    with (
        dealframe.sandbox.run(scale=0.02, seed=3) as a,
        dealframe.sandbox.run(scale=0.02, seed=3) as b,
    ):
        first, second = _answers(a), _answers(b)
        again = _answers(a)  # warm caches give the same bytes as cold ones
    assert first == second == again
    with dealframe.sandbox.run(scale=0.02, seed=4) as c:
        other = _answers(c)
    assert other[0] != first[0], "a different seed gives different companies"
