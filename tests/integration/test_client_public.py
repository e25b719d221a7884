"""Family A through the client, over real HTTP against the session sandbox.

Every expectation comes from the raw endpoint JSON fetched with plain ``requests`` (never from
the client's own shaping), or from the interface document and docs/sandbox.md: search filters,
current-data chunking (99/100/101/250 SKUs), order, unknown SKUs, every field kept, time series
wide/long, group endpoints, bad input refused before any request, one schema for 0/1/N rows and
provenance in ``attrs``.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pytest
import requests

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import BadRequestError, IncompleteResultError, ValidationError
from dealframe.notices import MissingDataWarning
from dealframe.sandbox.faults import FaultPlan
from dealframe.sandbox.vocab import TIME_SERIES_FIELDS

VERSIONS = ("v1", "v2")
PROVENANCE = ("endpoint", "requests", "rows_expected", "rows_received", "from_cache", "fetched_at")
TIMEOUT = 30


# ---------------------------------------------------------------------------- helpers


def raw(sb: Any, version: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The endpoint's JSON from a direct ``requests`` call (the oracle)."""
    resp = requests.post(
        f"{sb.url}/api/{version}{path}",
        json=body,
        timeout=TIMEOUT,
        headers={"Authorization": f"Bearer {sb.public_token}"},
    )
    assert resp.status_code == 200, (path, body, resp.status_code, resp.text[:300])
    return resp.json()


def api(client: Client, version: str) -> Any:
    return client.public_v1 if version == "v1" else client.public


def fake_skus(version: str, n: int) -> list[str]:
    """Well-formed SKUs that no company has (the sandbox omits them from ``data``)."""
    if version == "v1":
        return [f"NOWHERE_ZZ{i:04d}" for i in range(n)]
    return [f"ZZ{i:04d}-ZZZ" for i in range(n)]


def same_value(got: Any, want: Any) -> bool:
    if want is None:
        return got is None or (isinstance(got, float) and math.isnan(got)) or got is pd.NA
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        return float(got) == float(want)
    if isinstance(want, (list, dict)):  # nested values are JSON text (docs/frames.md)
        return isinstance(got, str) and orjson.loads(got) == want
    return got == want


def calls(client: Client) -> tuple[int, int]:
    snap = client.stats.snapshot()
    return snap["calls"], snap["attempts"]


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def universe(sandbox: Any) -> dict[str, list[dict[str, Any]]]:
    """Every company identifier per version, from the raw search endpoint."""
    return {v: raw(sandbox, v, "/companies", {})["data"] for v in VERSIONS}


# ---------------------------------------------------------------------------- search


@pytest.mark.parametrize("version", VERSIONS)
def test_search_without_filters_returns_every_company_indexed_by_sku(client, universe, version):
    frame = api(client, version).search()
    items = universe[version]
    assert frame.index.name == "sku"
    assert frame.index.tolist() == [it["sku"] for it in items]
    for col in ("verticals", "themes"):
        assert dealframe.to_lists(frame[col]).tolist() == [it[col] for it in items]
        assert pd.api.types.is_string_dtype(frame[col].dtype)
    assert frame["enterpriseValue"].dtype == np.float64
    for col in ("ticker", "exchange", "name", "shortName", "countryCodeIso3", "country"):
        assert pd.api.types.is_string_dtype(frame[col].dtype), col
        assert frame[col].tolist() == [it[col] for it in items]
    assert frame.attrs["rows_expected"] == len(items) == frame.attrs["rows_received"]


def _filter_cases(items: list[dict[str, Any]]) -> dict[str, tuple[Any, dict[str, Any]]]:
    first = next(it for it in items if it["verticals"] and it["themes"])
    evs = sorted(it["enterpriseValue"] for it in items if it["enterpriseValue"] is not None)
    threshold = evs[len(evs) // 2]
    return {
        "industries": ([first["verticals"][0]], {"industries": [first["verticals"][0]]}),
        "themes": ([first["themes"][0]], {"themes": [first["themes"][0]]}),
        "regions": ([first["region"]], {"regions": [first["region"]]}),
        "countries": ([first["countryCodeIso3"]], {"countries": [first["countryCodeIso3"]]}),
        "enterprise_value_above": (threshold, {"enterpriseValueAbove": threshold}),
    }


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "name", ["industries", "themes", "regions", "countries", "enterprise_value_above"]
)
def test_search_each_filter_matches_the_raw_endpoint(client, sandbox, universe, version, name):
    value, body = _filter_cases(universe[version])[name]
    frame = api(client, version).search(**{name: value})
    expected = [it["sku"] for it in raw(sandbox, version, "/companies", body)["data"]]
    assert 0 < len(expected) < len(universe[version])
    assert frame.index.tolist() == expected
    assert frame.attrs["filters"] == body


def test_search_filters_combine(client, sandbox, universe):
    cases = _filter_cases(universe["v2"])
    region, countries = cases["regions"][0], cases["countries"][0]
    frame = client.public.search(regions=region, countries=countries)
    body = {"regions": region, "countries": countries}
    assert frame.index.tolist() == [
        it["sku"] for it in raw(sandbox, "v2", "/companies", body)["data"]
    ]


@pytest.mark.parametrize("call", ["search", "group_current", "group_time_series"])
@pytest.mark.parametrize("empty", ["industries", "regions", "countries", "themes"])
def test_an_empty_filter_list_is_refused_before_any_request(client, call, empty):
    """The service reads ``[]`` as no constraint: a list computed empty upstream would
    silently widen the search to every company."""
    other = {"regions": ["North America"]} if empty == "countries" else {"countries": ["USA"]}
    before = client.stats.snapshot()["network"]
    with pytest.raises(ValidationError) as caught:
        getattr(client.public, call)(**{**other, empty: []})
    assert caught.value.argument == empty
    assert client.stats.snapshot()["network"] == before


def _not_carried(items: list[dict[str, Any]], field: str) -> tuple[str, str, str]:
    """A value companies carry in ``field``, that value in another case, and misspelt; no
    company carries either of the last two."""
    carried = {v for it in items for v in it[field]}
    value = next(v for v in sorted(carried) if len(v) > 3 and v.lower() != v)
    wrong_case, misspelt = value.lower(), value[:-1]
    assert not {wrong_case, misspelt} & carried
    return value, wrong_case, misspelt


def _hints(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, MissingDataWarning)]


@pytest.mark.parametrize("version", VERSIONS)
def test_an_industry_or_theme_no_company_carries_is_warned_with_the_close_value(
    client, universe, version
):
    """The service matches them exactly, case included, from an open vocabulary: an empty
    answer filtered by one no company carries warns, naming it and the value meant, after
    one unfiltered search."""
    public = api(client, version)
    vertical, wrong_case, _ = _not_carried(universe[version], "verticals")
    theme, _, misspelt = _not_carried(universe[version], "themes")
    # a search that matches nothing is an empty frame of companies, no missing data; an
    # empty group is (all-NaN rows, or all-NaN field columns), said before the hint
    calls_ = [
        ("industries[0]", wrong_case, vertical, 0, lambda: public.search(industries=[wrong_case])),
        ("themes[0]", misspelt, theme, 0, lambda: public.search(themes=[misspelt])),
        (
            "industries[0]",
            wrong_case,
            vertical,
            1,
            lambda: public.group_current(industries=wrong_case),
        ),
        (
            "themes[1]",
            misspelt,
            theme,
            1,
            lambda: public.group_time_series(themes=[theme, misspelt], countries=["ATA"]),
        ),
    ]
    for argument, given, meant, empty, call in calls_:
        before = calls(client)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            frame = call()
        assert len(frame) == 0 or frame.attrs["companies"] == 0
        assert calls(client)[0] == before[0] + 2  # the call and one unfiltered search
        said = _hints(record)
        hints = [h for h in said if "no company carries" in h]
        assert len(hints) == 1, said
        assert len(said) == 1 + empty, said
        assert all(h.startswith("no value") for h in said[:empty]), said
        assert hints[0].startswith(f"{argument}: no company carries {given!r}")
        assert f"did you mean {meant!r}" in hints[0]
        assert {w.filename for w in record} == {__file__}  # at the caller's line


@pytest.mark.parametrize("version", VERSIONS)
def test_a_known_industry_or_a_non_empty_answer_sends_no_diagnostic_or_warning(
    client, universe, version
):
    public = api(client, version)
    vertical, wrong_case, _ = _not_carried(universe[version], "verticals")
    before = calls(client)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        some = public.search(industries=[vertical, wrong_case])  # overlap: matches
        group = public.group_current(industries=[vertical])
    assert len(some) > 0 and group.attrs["companies"] > 0
    assert calls(client)[0] == before[0] + 2  # no diagnostic search
    with warnings.catch_warnings(record=True) as empty_record:
        warnings.simplefilter("always")
        none = public.search(industries=[vertical], countries=["ATA"])  # empty, but known
    assert len(none) == 0
    assert not _hints(record) and not _hints(empty_record)


# ---------------------------------------------------------------------------- current


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", [99, 100, 101, 250])
def test_current_chunks_by_100_and_keeps_order(client, universe, version, n):
    known = [it["sku"] for it in universe[version]][::-1]  # reversed: not the service's order
    skus = (known + fake_skus(version, n))[:n]
    before = client.stats.snapshot()["network"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = api(client, version).current(skus)
    sent = client.stats.snapshot()["network"] - before
    assert frame.attrs["requests"] == math.ceil(n / 100) == sent
    present = [s for s in skus if s in set(known)]
    assert frame.index.tolist() == present
    missing = [s for s in skus if s not in set(known)]
    assert frame.attrs["missing_skus"] == missing
    assert frame.attrs["rows_expected"] == n
    flagged = [w for w in caught if issubclass(w.category, MissingDataWarning)]
    assert bool(flagged) == bool(missing)
    if missing:
        assert str(len(missing)) in str(flagged[0].message)


@pytest.mark.parametrize("version", VERSIONS)
def test_current_unknown_sku_strict_raises_naming_it(client, universe, version):
    skus = [universe[version][0]["sku"], fake_skus(version, 1)[0]]
    with pytest.raises(IncompleteResultError) as info:
        api(client, version).current(skus, strict=True)
    assert info.value.failed == [skus[1]]
    assert skus[1] in str(info.value)
    assert info.value.partial is not None and info.value.partial.index.tolist() == [skus[0]]


@pytest.mark.parametrize("version", VERSIONS)
def test_current_keeps_every_field_with_its_raw_value(client, sandbox, universe, version):
    skus = [it["sku"] for it in universe[version][:30]]
    items = raw(sandbox, version, "/companies/current", {"skus": skus})["data"]
    frame = api(client, version).current(skus)
    keys = {k for it in items for k in it} - {"sku"}
    assert keys <= set(frame.columns)
    assert {
        "rateToUsd",
        "marketCapLcu",
        "enterpriseValueLcu",
        "revenueLtmLcu",
        "employeeCount",
        "evEbitdaNtm",
    } <= set(frame.columns)
    for it in items:
        row = frame.loc[it["sku"]]
        for key in keys:
            assert same_value(row[key], it.get(key)), (it["sku"], key, row[key], it.get(key))
    for key in keys:
        values = [it.get(key) for it in items if it.get(key) is not None]
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            assert frame[key].dtype == np.float64, key
        elif values and all(isinstance(v, str) for v in values) and key != "region":
            assert pd.api.types.is_string_dtype(frame[key].dtype), key


def test_current_duplicates_are_asked_once(client, universe):
    sku = universe["v2"][0]["sku"]
    frame = client.public.current([sku, sku, sku])
    assert frame.index.tolist() == [sku]


# ---------------------------------------------------------------------------- time series


def _raw_values(items: list[dict[str, Any]]) -> dict[tuple[str, str, str], float]:
    return {
        (it["sku"], f, m): v for it in items for f, s in it["data"].items() for m, v in s.items()
    }


@pytest.mark.parametrize("version", VERSIONS)
def test_time_series_wide_equals_the_raw_json(client, sandbox, universe, version):
    skus = [it["sku"] for it in universe[version][:25]][::-1]
    items = raw(sandbox, version, "/companies/time-series", {"skus": skus})["data"]
    want = _raw_values(items)
    frame = api(client, version).time_series(skus)
    assert isinstance(frame.index, pd.PeriodIndex) and frame.index.freqstr == "M"
    assert list(frame.columns.names) == ["field", "sku"]
    ords = frame.index.asi8
    assert (np.diff(ords) == 1).all()  # every month of the range: gaps are NaN rows, not dropped
    months = {m for (_, _, m) in want}
    assert str(frame.index[0]) == min(months) and str(frame.index[-1]) == max(months)
    assert frame.columns.get_level_values("sku").unique().tolist() == skus
    assert int(frame.notna().to_numpy().sum()) == len(want)
    row_of = {str(p): r for r, p in enumerate(frame.index)}
    column_of = {key: c for c, key in enumerate(frame.columns)}
    where = [(row_of[month], column_of[(field, sku)]) for (sku, field, month) in want]
    rows, columns = np.array(where, dtype=np.intp).reshape(-1, 2).T
    got = frame.to_numpy()[rows, columns]
    np.testing.assert_array_equal(got, np.array(list(want.values()), dtype=got.dtype))
    sub = frame["evRevenueLtm"]
    assert sub.shape == (len(frame), len(skus)) and list(sub.columns) == skus


def test_time_series_missing_months_are_nan(client, sandbox, universe):
    skus = [it["sku"] for it in universe["v2"]]
    items = raw(sandbox, "v2", "/companies/time-series", {"skus": skus, "fields": ["marketCap"]})[
        "data"
    ]
    span = {m for it in items for m in it["data"]["marketCap"]}
    gappy = [
        (it["sku"], sorted(span - set(it["data"]["marketCap"])))
        for it in items
        if span - set(it["data"]["marketCap"])
    ]
    assert gappy, "the sandbox promises late listings and gaps"
    frame = client.public.time_series([s for s, _ in gappy[:5]] + [skus[0]], fields=["marketCap"])
    for sku, months in gappy[:5]:
        for month in months:
            if pd.Period(month, "M") in frame.index:
                assert np.isnan(frame.loc[pd.Period(month, "M"), ("marketCap", sku)])


@pytest.mark.parametrize("version", VERSIONS)
def test_time_series_long_equals_the_raw_json(client, sandbox, universe, version):
    skus = [it["sku"] for it in universe[version][:10]]
    body = {
        "skus": skus,
        "fields": ["evRevenueNtm", "marginEbitdaLtm"],
        "dateFrom": "2020-01",
        "dateTo": "2022-06",
    }
    want = _raw_values(raw(sandbox, version, "/companies/time-series", body)["data"])
    frame = api(client, version).time_series(
        skus, fields=body["fields"], date_from="2020-01", date_to="2022-06", shape="long"
    )
    assert list(frame.columns) == ["sku", "field", "month", "value"]
    assert frame["value"].dtype == np.float64 and str(frame["month"].dtype) == "period[M]"
    got = {(s, f, str(m)): v for s, f, m, v in frame.itertuples(index=False)}
    assert got == want


@pytest.mark.parametrize(
    "date_from,date_to",
    [
        ("2021-03", "2021-08"),
        (pd.Period("2024-01", "M"), pd.Timestamp("2024-12-31")),
        (None, "2017-02"),
        ("2026-01", None),
        (pd.Period("2024Q1"), pd.Period("2024Q2")),  # quarters: from their first month to the last
        (pd.Period("2023", "Y"), pd.Period("2023", "Y")),
    ],
)
def test_time_series_fields_and_dates(client, sandbox, universe, date_from, date_to):
    skus = [it["sku"] for it in universe["v2"][:8]]
    fields = ["marketCap", "evEbitdaLtm"]

    def month(value: Any, how: str) -> str | None:
        if value is None:
            return None
        period = value if isinstance(value, pd.Period) else pd.Period(value, "M")
        return str(period.asfreq("M", how=how))

    start, end = month(date_from, "start"), month(date_to, "end")
    body: dict[str, Any] = {"skus": skus, "fields": fields}
    body.update({k: v for k, v in (("dateFrom", start), ("dateTo", end)) if v})
    want = _raw_values(raw(sandbox, "v2", "/companies/time-series", body)["data"])
    frame = client.public.time_series(skus, fields=fields, date_from=date_from, date_to=date_to)
    assert frame.columns.get_level_values("field").unique().tolist() == fields
    if start:
        assert str(frame.index[0]) == start
    if end:
        assert str(frame.index[-1]) == end
    assert int(frame.notna().to_numpy().sum()) == len(want)
    for (sku, field, month), value in want.items():
        assert frame.loc[pd.Period(month, "M"), (field, sku)] == value


def test_time_series_unknown_skus_reported(client, universe):
    sku = universe["v2"][0]["sku"]
    ghost = fake_skus("v2", 1)[0]
    with pytest.warns(MissingDataWarning):
        frame = client.public.time_series([ghost, sku], fields=["marketCap"])
    assert frame.attrs["missing_skus"] == [ghost]
    with pytest.raises(IncompleteResultError):
        client.public.time_series([ghost, sku], fields=["marketCap"], strict=True)


@pytest.mark.parametrize(
    "version, dotted",
    [("v2", ["BRK.B-USA", "BRK.B-USA.1", "BF-B-USA"]), ("v1", ["NYSE_BRK.B", "NYSE_BF-B"])],
)
@pytest.mark.parametrize("method", ["current", "time_series"])
def test_dotted_ticker_skus_the_sandbox_lacks_are_reported_missing(
    client, universe, version, dotted, method
):
    """Client and sandbox share one SKU pattern: a dotted ticker is sent, and its absence reported
    (a 400 would fail the whole chunk and lose the known SKUs with it)."""
    known = [it["sku"] for it in universe[version][:3]]
    asked = [known[0], *dotted, *known[1:]]
    call = getattr(api(client, version), method)
    with pytest.warns(MissingDataWarning, match=f"{len(dotted)} of {len(asked)} SKUs"):
        frame = call(asked)
    assert frame.attrs["missing_skus"] == dotted
    if method == "current":
        assert list(frame.index) == known
    else:  # a column for every SKU asked: those not returned all NaN
        assert list(frame.columns.get_level_values("sku").unique()) == asked
        assert frame.xs(dotted[0], axis=1, level="sku").isna().all().all()
    with pytest.raises(IncompleteResultError) as info:
        call(asked, strict=True)
    assert info.value.failed == dotted and not info.value.errors  # missing, not a failed request


# ---------------------------------------------------------------------------- groups


GROUPS = [
    {"regions": ["North America"]},
    {"countries": ["USA", "GBR"], "enterprise_value_above": 500},
]


def _group_body(group: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in group.items() if k != "enterprise_value_above"}
    if "enterprise_value_above" in group:
        body["enterpriseValueAbove"] = group["enterprise_value_above"]
    return body


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("group", GROUPS)
def test_group_current_equals_the_raw_endpoint(client, sandbox, version, group):
    payload = raw(sandbox, version, "/groups/current", _group_body(group))
    frame = api(client, version).group_current(**group)
    cells = {(f, stat): v for stat, inner in payload["data"].items() for f, v in inner.items()}
    assert set(frame.index) == {f for f, _ in cells}
    assert {"sum", "median"} <= set(frame.columns)
    for (field, stat), value in cells.items():
        assert same_value(frame.loc[field, stat], value), (field, stat)
    n_cells = int(frame[["sum", "median"]].notna().to_numpy().sum())
    assert n_cells == sum(v is not None for v in cells.values())
    # every numeric current-data field that is not sum-only has a median (section 2.1)
    for field in (
        "marketCapLcu",
        "enterpriseValueLcu",
        "revenueLtmLcu",
        "ebitdaNtmLcu",
        "rateToUsd",
        "employeeCount",
        "evRevenueLtm",
    ):
        assert np.isfinite(frame.loc[field, "median"]) and np.isnan(frame.loc[field, "sum"]), field
    for key, value in payload["meta"].items():
        assert frame.attrs[key] == value


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("group", GROUPS)
def test_group_time_series_equals_the_raw_endpoint(client, sandbox, version, group):
    body = {
        **_group_body(group),
        "fields": ["evRevenueLtm", "marketCap"],
        "dateFrom": "2023-01",
        "dateTo": "2024-06",
    }
    payload = raw(sandbox, version, "/groups/time-series", body)
    frame = api(client, version).group_time_series(
        fields=["evRevenueLtm", "marketCap"], date_from="2023-01", date_to="2024-06", **group
    )
    assert isinstance(frame.index, pd.PeriodIndex)
    window = [str(p) for p in pd.period_range("2023-01", "2024-06", freq="M")]
    assert [str(p) for p in frame.index] == window  # the requested window, every month
    assert {it["period"] for it in payload["data"]} <= set(window)
    assert list(frame.columns) == ["evRevenueLtm", "marketCap"]
    for it in payload["data"]:
        for field, value in it["median"].items():
            assert same_value(frame.loc[pd.Period(it["period"], "M"), field], value)
    for key, value in payload["meta"].items():
        assert frame.attrs[key] == value


def test_group_calls_use_the_documented_paths_whatever_the_version():
    """Section 4.1 promises only POST /api/v2/groups/current and POST /api/v1/groups/time-series.

    A zero-second ``slow`` fault on every group request records the path the sandbox received.
    """
    plan = FaultPlan(rate=1.0, kinds=("slow",), slow_seconds=0.0, paths=r"/groups/")
    with (
        dealframe.sandbox.run(scale=0.02, seed=3, faults=plan) as sb,
        Client.for_sandbox(sb, progress=False) as c,
    ):
        region = str(c.public.search().iloc[0]["region"])
        for version in VERSIONS:
            cur = api(c, version).group_current(regions=[region])
            ts = api(c, version).group_time_series(
                regions=[region], fields=["marketCap"], date_from="2025-01", date_to="2025-03"
            )
            assert cur.attrs["endpoint"] == "POST /api/v2/groups/current"
            assert ts.attrs["endpoint"] == "POST /api/v1/groups/time-series"
            assert cur.attrs["companies"] > 0 and len(ts) == 3
    assert [path for _, path in plan.events()] == [
        "/api/v2/groups/current",
        "/api/v1/groups/time-series",
    ] * 2


# ---------------------------------------------------------------------------- bad input


def _bad_calls(universe: dict[str, list[dict[str, Any]]]) -> list[tuple[str, Any, str]]:
    v2 = universe["v2"][0]["sku"]
    v1 = universe["v1"][0]["sku"]
    return [
        ("v1 SKU sent to v2", lambda c: c.public.current([v2, v1]), "skus[1]"),
        ("v2 SKU sent to v1", lambda c: c.public_v1.current([v2]), "skus[0]"),
        ("malformed SKU", lambda c: c.public.current(["acme usa"]), "skus[0]"),
        ("malformed SKU in series", lambda c: c.public.time_series(["ACME-US"]), "skus[0]"),
        ("skus None", lambda c: c.public.current(None), "skus"),
        ("skus None in series", lambda c: c.public.time_series(None), "skus"),
        ("skus not a list", lambda c: c.public.current(42), "skus"),
        ("bad month", lambda c: c.public.time_series([v2], date_from="2024-13"), "date_from"),
        ("bad month format", lambda c: c.public.time_series([v2], date_to="2024/01"), "date_to"),
        (
            "from after to",
            lambda c: c.public.time_series([v2], date_from="2024-05", date_to="2024-01"),
            "date_from",
        ),
        ("bad shape", lambda c: c.public.time_series([v2], shape="tall"), "shape"),
        ("unknown region", lambda c: c.public.search(regions=["Europe"]), "regions[0]"),
        ("lower-case country", lambda c: c.public.search(countries=["usa"]), "countries[0]"),
        (
            "EV not a number",
            lambda c: c.public.search(enterprise_value_above="big"),
            "enterprise_value_above",
        ),
        (
            "group without group filter",
            lambda c: c.public.group_current(enterprise_value_above=1),
            "filters",
        ),
        (
            "group series bad field",
            lambda c: c.public_v1.group_time_series(regions=["Oceania"], fields=[" evRevenueLtm"]),
            "fields[0]",
        ),
        (
            "group series window",
            lambda c: c.public.group_time_series(
                regions=["Oceania"], date_from="2025-02", date_to="2025-01"
            ),
            "date_from",
        ),
    ]


def test_bad_input_is_refused_before_any_request(client, universe):
    for label, call, argument in _bad_calls(universe):
        before = calls(client)
        with pytest.raises(ValidationError) as info:
            call(client)
        assert calls(client) == before, f"{label}: a request was sent"
        assert info.value.argument == argument, (label, info.value.argument)
        assert argument.split("[")[0] in str(info.value), label


def test_search_members_are_explicit_parameters(client):
    """A misspelt search member fails at the call, never ignored (issue 13)."""
    for method in (
        client.public.search,
        client.public.group_current,
        client.public.group_time_series,
    ):
        with pytest.raises(TypeError, match="industry_list"):
            method(industry_list=["AI"])
        names = set(inspect.signature(method).parameters)
        assert {"industries", "themes", "regions", "countries", "enterprise_value_above"} <= names


# ---------------------------------------------------------------------------- schemas and provenance


def _schema(frame: pd.DataFrame) -> list[tuple[Any, str]]:
    return [(c, str(t)) for c, t in frame.dtypes.items()]


@pytest.mark.parametrize("version", VERSIONS)
def test_search_schema_is_the_same_for_0_1_and_n_rows(client, universe, version):
    items = universe[version]
    one_country = next(
        c
        for c in {it["countryCodeIso3"] for it in items}
        if sum(it["countryCodeIso3"] == c for it in items) == 1
    )
    frames = [
        api(client, version).search(countries=["ATA"]),
        api(client, version).search(countries=[one_country]),
        api(client, version).search(),
    ]
    assert [len(f) for f in frames] == [0, 1, len(items)]
    assert _schema(frames[0]) == _schema(frames[1]) == _schema(frames[2])
    assert frames[0].index.name == frames[2].index.name == "sku"


@pytest.mark.parametrize("version", VERSIONS)
def test_current_schema_is_the_same_for_1_and_n_rows_and_documented_for_0(
    client, universe, version
):
    skus = [it["sku"] for it in universe[version]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)
        empty = api(client, version).current(fake_skus(version, 2))
    one = api(client, version).current(skus[:1])
    many = api(client, version).current(skus)
    assert (len(empty), len(one), len(many)) == (0, 1, len(skus))
    assert _schema(one) == _schema(many)
    # Undocumented extras cannot be known without data; every documented column is always there,
    # with the same dtype, in the same order.
    shared = dict(_schema(many))
    assert [c for c in many.columns if c in set(empty.columns)] == list(empty.columns)
    assert all(shared[c] == t for c, t in _schema(empty))
    assert {"marketCap", "rateToUsd", "marketCapLcu", "currency", "tags"} <= set(empty.columns)


@pytest.mark.parametrize("version", VERSIONS)
def test_an_empty_list_of_skus_is_refused_naming_skus_before_any_request(client, version):
    """Issue 3: an empty ``skus`` is a typed error naming the argument, before any request
    (the service refuses it too: "skus must not be empty"), as the index of a search that
    matched nothing is: there is no company to ask for."""
    public = api(client, version)
    none = public.search(countries=["ATA"]).index
    assert len(none) == 0
    before = calls(client)
    refused = {
        "current": lambda: public.current(none),
        "current []": lambda: public.current([]),
        "wide": lambda: public.time_series(none, fields=["marketCap"], date_from="2025-01"),
        "wide, no dates": lambda: public.time_series([]),
        "long": lambda: public.time_series(none, shape="long"),
    }
    for label, call in refused.items():
        with pytest.raises(ValidationError) as error:
            call()
        assert error.value.argument == "skus", label
        assert "at least one SKU" in str(error.value), label
    assert calls(client) == before


@pytest.mark.parametrize(
    "window, months",
    [
        ({"date_from": "2025-01", "date_to": "2025-06"}, [f"2025-{m:02d}" for m in range(1, 7)]),
        # one date given, no month returned: the other is the data's own, so no range
        # (docs/frames.md), date_from alone and date_to alone alike
        ({"date_from": "2030-01"}, []),
        ({"date_to": "1990-01"}, []),
    ],
)
def test_time_series_schema_for_0_1_and_n(client, universe, window, months):
    skus = [it["sku"] for it in universe["v2"][:5]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)
        frames = [
            client.public.time_series(s, fields=["marketCap"], **window)
            for s in (fake_skus("v2", 1), skus[:1], skus)
        ]
    group = client.public.group_time_series(regions=["Oceania"], fields=["marketCap"], **window)
    for frame in frames:
        assert [str(p) for p in frame.index] == months
        assert isinstance(frame.index, pd.PeriodIndex) and frame.index.name == "month"
        assert list(frame.columns.names) == ["field", "sku"]
        assert all(str(t) == "float64" for t in frame.dtypes)
    assert [frame.shape[1] for frame in frames] == [1, 1, 5]  # a SKU not returned: NaN
    assert group.index.equals(frames[0].index) and list(group.columns) == ["marketCap"]
    assert group["marketCap"].dtype == "float64"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("fields", [["evRevenueLtm"], ["marketCap", "evRevenueNtm"], None])
def test_group_time_series_schema_for_0_1_and_n_months(client, version, fields):
    """Columns come from the request, not the data; without ``fields`` they are the fields the
    service sent (the document lists no fixed set), so an empty group has those served before,
    else the document's."""
    group_api = api(client, version)
    frames = [
        group_api.group_time_series(countries=["ATA"], fields=fields),  # no member
        group_api.group_time_series(
            regions=["North America"], fields=fields, date_from="2025-01", date_to="2025-01"
        ),
        group_api.group_time_series(regions=["North America"], fields=fields),
    ]
    assert len(frames[0]) == 0 and len(frames[1]) == 1 and len(frames[2]) > 12
    assert frames[0].attrs["count"] == 0 and frames[0].attrs["companies"] == 0
    assert frames[2].attrs["companies"] > 0
    if fields is None:  # served before (an earlier test), or the document's three
        assert list(frames[0].columns) in (
            list(TIME_SERIES_FIELDS),
            ["evRevenueLtm", "evRevenueNtm", "marginEbitdaLtm"],
        )
        assert frames[0].isna().all(axis=None)
        again = group_api.group_time_series(countries=["ATA"])  # served since: those fields
        assert list(again.columns) == list(TIME_SERIES_FIELDS)
        assert list(frames[1].columns) == list(frames[2].columns) == list(TIME_SERIES_FIELDS)
        frames = frames[1:]
    assert all(_schema(f) == _schema(frames[0]) for f in frames)
    expected = fields or list(TIME_SERIES_FIELDS)
    for frame in frames:
        assert list(frame.columns) == expected
        assert all(str(t) == "float64" for t in frame.dtypes)
        assert isinstance(frame.index, pd.PeriodIndex) and frame.index.name == "month"


def test_group_time_series_window_without_data_is_nan_rows_like_time_series(client, universe):
    members = client.public.search(regions=["Oceania"]).index[:3]
    kwargs = {"fields": ["marketCap"], "date_from": "2030-01", "date_to": "2030-03"}
    group = client.public.group_time_series(regions=["Oceania"], **kwargs)
    with pytest.warns(MissingDataWarning, match="no value for marketCap"):  # all null: said
        series = client.public.time_series(list(members), **kwargs)
    assert series.shape[0] == 3 and group.shape == (3, 1)
    assert group.index.equals(series.index)
    assert group["marketCap"].isna().all()
    assert group.attrs["count"] == 0 and group.attrs["companies"] > 0
    # a window partly covered by data: every month of it, NaN where the service sent none
    edge = client.public_v1.group_time_series(
        regions=["Oceania"], fields=["marketCap"], date_from="2026-05", date_to="2026-08"
    )
    assert [str(p) for p in edge.index] == ["2026-05", "2026-06", "2026-07", "2026-08"]
    assert edge["marketCap"].iloc[:2].notna().all() and edge["marketCap"].iloc[2:].isna().all()


def test_every_frame_carries_provenance(client, universe):
    sku = universe["v2"][0]["sku"]
    frames = {
        "POST /api/v2/companies": client.public.search(),
        "POST /api/v2/companies/current": client.public.current([sku]),
        "POST /api/v2/companies/time-series": client.public.time_series([sku]),
        "POST /api/v2/groups/current": client.public_v1.group_current(regions=["Oceania"]),
        "POST /api/v1/groups/time-series": client.public.group_time_series(regions=["Oceania"]),
    }
    for endpoint, frame in frames.items():
        for key in PROVENANCE:
            assert key in frame.attrs, (endpoint, key)
        assert frame.attrs["endpoint"] == endpoint
        assert frame.attrs["requests"] == 1
        assert frame.attrs["from_cache"] is False
        stamp = pd.Timestamp(frame.attrs["fetched_at"])
        assert stamp.tzinfo is not None and stamp.utcoffset() == pd.Timedelta(0)
        assert abs(pd.Timestamp.now(tz="UTC") - stamp) < pd.Timedelta(minutes=5)


def test_time_series_field_names_are_the_services_to_judge(client):
    """The document gives only examples of time-series fields: the client sends any name and
    the service's answer decides (issue 14)."""
    v2 = client.public.search().index[0]
    with pytest.raises(BadRequestError) as info:
        client.public.time_series([v2], fields=["ruleOf40"])
    assert "ruleOf40" in str(info.value) and info.value.status == 400


def test_a_sku_refused_in_a_later_chunk_is_placed_in_the_callers_list(client):
    """The service names a refused SKU by its position in the request it got; with 100 SKUs
    a request, the error says where that request's SKUs sit in the caller's list."""
    skus = [f"ZZ{i}-USA" for i in range(210)] + [
        "A_B-USA"
    ]  # passed by the client, refused by the sandbox
    with pytest.raises(BadRequestError) as info:
        client.public.current(skus)
    note = " ".join(getattr(info.value, "__notes__", []))
    assert "position 200 + i of yours" in note and "SKUs 200..210 of 211" in note
