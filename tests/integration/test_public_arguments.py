"""Family A bad input refused before the request it would spoil (issue 3), without refusing
what the service serves (issue 14).

- ``skus`` that is not a list (a bare string, a mapping, a number, None, a frame) is a
  ``ValidationError`` naming ``skus``, before any request, in both versions.
- A time-series field name is sent as given, with no request before it, whatever companies
  the call names (issue 14: a service may leave out a field a company has no value for, so no
  request over some SKUs tells what it serves for the others): the service's 400 naming it is
  the error; a name no item holds is a ``missing_field`` warning with the closest name known.
  Only another spelling of a documented field (``evrevenueltm``) is a ``ValidationError``
  naming ``fields[i]``, before any request.
- ``group_time_series`` and ``analytics.reconcile_groups`` take their ``fields`` the same way.
- A month in digits other than ASCII's, and a SKU with a character that is clearly a typo (a
  full-width form, another script's digit), are refused before any request, naming the
  argument (``skus[i]`` and the character for a SKU). A SKU with a visible letter beyond ASCII
  (``CAFÉ-FRA``), which a service may list in its own search, is sent: the service decides.

Requests are counted at the drift proxy, which records every time-series body it forwards.
The default sandbox answers 400 to a name it does not serve; a service that ignores such a
name, or serves one the sandbox does not, is the proxy's (:func:`serving`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    Proxy,
    direct,
    edit,
    fresh,
    fresh_rules,
    html,
    proxy,
    via,
)

import dealframe
from dealframe.errors import BadRequestError, ValidationError
from dealframe.notices import MissingDataWarning, ServiceContractWarning
from dealframe.sandbox import run

SERIES = r"/companies/time-series$"
WINDOW = {"date_from": "2024-01", "date_to": "2024-06"}


@pytest.fixture(scope="module")
def skus(direct: Any) -> dict[str, list[str]]:
    """Three SKUs of each version the sandbox serves."""
    return {
        "v2": direct.public.search().index[:3].tolist(),
        "v1": direct.public_v1.search().index[:3].tolist(),
    }


@pytest.fixture
def bodies(proxy: Proxy) -> list[Any]:
    """The body of every time-series request the proxy receives, in arrival order."""
    seen: list[Any] = []
    proxy.add(SERIES, when=lambda ex: seen.append(ex.body) or False)
    return seen


def learning(bodies: list[Any]) -> list[Any]:
    """Requests without ``fields`` (the client once sent one to learn the served names)."""
    return [b for b in bodies if "fields" not in b]


def data(bodies: list[Any]) -> list[Any]:
    """The data requests: with ``fields``."""
    return [b for b in bodies if "fields" in b]


def serving(name: str, skus: set[str] | None = None) -> Action:
    """A service that serves the time-series field ``name`` the sandbox does not: forwarded
    without it (the sandbox would refuse it), and each answer's item of a SKU of ``skus``
    (every item when None) given a value for it; for other SKUs the service leaves it out,
    as one does for a company without a value."""

    def request(ex: Exchange) -> None:
        fields = ex.body.get("fields") if isinstance(ex.body, dict) else None
        if isinstance(fields, list) and name in fields:
            # a new body: the one recorded (``bodies``) stays the client's
            ex.body = {**ex.body, "fields": [f for f in fields if f != name] or ["marketCap"]}
            ex.raw_body = orjson.dumps(ex.body)

    def response(ex: Exchange) -> None:
        doc = ex.doc()
        for item in (doc or {}).get("data") or []:
            if isinstance(item.get("data"), dict) and (skus is None or item.get("sku") in skus):
                item["data"][name] = {"2024-01": 1.5, "2024-02": 2.5}
        ex.set_doc(doc)

    return Action(f"serving({name!r})", on_request=request, on_response=response)


def ignoring(name: str) -> Action:
    """A service that ignores the field ``name`` it does not serve (answers without it)."""

    def request(ex: Exchange) -> None:
        fields = ex.body.get("fields") if isinstance(ex.body, dict) else None
        if isinstance(fields, list) and name in fields:
            # a new body: the one recorded (``bodies``) stays the client's
            ex.body = {**ex.body, "fields": [f for f in fields if f != name] or ["marketCap"]}
            ex.raw_body = orjson.dumps(ex.body)

    return Action(f"ignoring({name!r})", on_request=request)


def api(client: Any, version: str) -> Any:
    return client.public if version == "v2" else client.public_v1


# ------------------------------------------------------------------------------------ skus


@pytest.mark.parametrize("version", ["v2", "v1"])
@pytest.mark.parametrize("method", ["current", "time_series"])
@pytest.mark.parametrize("given", ["one SKU", "mapping", "number", "None", "bytes", "frame"])
def test_skus_that_are_not_a_list_are_refused_naming_skus_before_any_request(
    via: Any, proxy: Proxy, skus: dict[str, list[str]], version: str, method: str, given: str
) -> None:
    sku = skus[version][0]
    value = {
        "one SKU": sku,
        "mapping": {sku: 1.0},
        "number": 7,
        "None": None,
        "bytes": sku.encode(),
        "frame": pd.DataFrame({"weight": [1.0]}, index=[sku]),
    }[given]
    with pytest.raises(ValidationError) as info:
        getattr(api(via, version), method)(value)
    assert info.value.argument == "skus"
    if given == "one SKU":  # says how: the SKU in a list
        assert f"pass a list: [{sku!r}]" in str(info.value)
    if given == "frame":
        assert "pass its .index" in str(info.value)
    assert proxy.count() == 0, proxy.seen


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_sequences_of_skus_that_are_not_lists_are_still_taken(
    via: Any, skus: dict[str, list[str]], version: str
) -> None:
    """A tuple and ``search(...).index`` are lists of SKUs here: only non-lists are refused."""
    mine = skus[version]
    current = api(via, version).current(tuple(mine))
    series = api(via, version).time_series(pd.Index(mine), fields=["evRevenueLtm"], **WINDOW)
    assert current.index.tolist() == mine
    assert series["evRevenueLtm"].columns.tolist() == mine


# ---------------------------------------------------------------------------------- fields


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_field_served_only_beyond_the_first_skus_is_sent_and_read(
    fresh: Any, proxy: Proxy, bodies: list[Any], version: str
) -> None:
    """The audit's case (issue 14): a service serves ``custom`` for every company but the
    call's first ten. The client sent nothing, refusing the name on a request over those ten;
    it is sent, once, and read for the others."""
    mine = api(fresh, version).search().index[:30].tolist()
    proxy.add(SERIES, serving("custom", set(mine[10:])))
    got = api(fresh, version).time_series(mine, fields=["custom"], **WINDOW)
    assert learning(bodies) == []  # no request before the data request
    assert [b["skus"] for b in data(bodies)] == [mine]
    assert got["custom"].notna().any().tolist() == [False] * 10 + [True] * 20
    assert got.loc["2024-02", ("custom", mine[10])] == 2.5


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_field_the_service_does_not_serve_is_sent_and_its_400_is_the_error(
    fresh: Any, bodies: list[Any], skus: dict[str, list[str]], version: str
) -> None:
    """The default sandbox answers 400 to a name it does not serve: the client sends the name
    as given (no request before it) and raises the service's words."""
    series = api(fresh, version).time_series
    with pytest.raises(BadRequestError, match="notAField"):
        series(skus[version], fields=["notAField"], **WINDOW)
    with pytest.raises(BadRequestError, match="evRevenueNtn"):
        series(skus[version], fields=["marketCap", "evRevenueNtn"], **WINDOW)
    assert learning(bodies) == []
    assert [b["fields"] for b in data(bodies)] == [["notAField"], ["marketCap", "evRevenueNtn"]]


def test_a_field_no_item_holds_is_warned_with_the_closest_name(
    fresh: Any, proxy: Proxy, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """A service that ignores a name it does not serve: the name, sent, is in no item, and the
    ``missing_field`` warning names it with the closest name known (the document's, and
    those seen in this client's answers: ``seenField`` served by an earlier call)."""
    mine = skus["v2"]
    proxy.add(SERIES, ignoring("evRevenueNtn"), ignoring("seenFeild"))
    proxy.add(SERIES, serving("seenField"), when=lambda ex: "fields" not in ex.body)
    fresh.public.time_series(mine, **WINDOW)  # all fields: seenField among them
    with pytest.warns(ServiceContractWarning) as seen:
        got = fresh.public.time_series(
            mine, fields=["marketCap", "evRevenueNtn", "seenFeild"], **WINDOW
        )
    said = [str(w.message) for w in seen if "requested field(s)" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in seen]
    assert "evRevenueNtn (did you mean 'evRevenueNtm'?)" in said[0]
    assert "seenFeild (did you mean 'seenField'?)" in said[0]
    assert "marketCap" not in said[0]
    assert got["evRevenueNtn"].isna().all().all() and got["marketCap"].notna().any().all()
    assert any(f["kind"] == "missing_field" for f in got.attrs["findings"])
    assert len(data(bodies)) == 1


def test_a_field_one_company_lacks_is_not_refused_for_the_others(
    fresh: Any, proxy: Any, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """A service may leave out a field a company has no value for: the SKU left with no field
    is said, the others read; a later call for that SKU alone is sent, and its answer with no
    data at all is missing data (no service fault)."""
    mine = skus["v2"]
    without = mine[0]

    def leave_out(doc: Any) -> Any:
        for item in doc.get("data") or []:
            if item.get("sku") == without:
                item["data"].pop("evEbitdaNtm", None)
        return doc

    proxy.add("^/api/v2/companies/time-series$", edit(leave_out, "leave_out"))
    with pytest.warns(ServiceContractWarning) as seen:  # the SKU left with no field: said
        got = fresh.public.time_series(mine, fields=["evEbitdaNtm"], **WINDOW)
    assert any(without in str(w.message) and "empty" in str(w.message) for w in seen)
    assert set(got["evEbitdaNtm"].columns) >= set(mine[1:])
    with pytest.warns(MissingDataWarning) as seen:  # sent, none there
        later = fresh.public.time_series(mine[:1], fields=["evEbitdaNtm"], **WINDOW)
    assert [str(w.message) for w in seen if "evEbitdaNtm" in str(w.message)] == [
        "no value for evEbitdaNtm in data of any of the 1 items in this window: their columns "
        "are all null"
    ]
    assert not [w for w in seen if issubclass(w.category, ServiceContractWarning)]
    assert later.attrs["requests"] == 1 and learning(bodies) == []


def test_a_served_field_beyond_the_documented_is_sent(
    fresh: Any, direct: Any, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """``evEbitdaNtm`` is not among the document's names but the sandbox serves it: sent, by
    six calls on four threads at once, with no other request."""
    mine = skus["v2"]

    def call(_: int) -> pd.DataFrame:
        return fresh.public.time_series(mine, fields=["evEbitdaNtm"], **WINDOW)

    with ThreadPoolExecutor(4) as pool:
        frames = list(pool.map(call, range(6)))
    want = direct.public.time_series(mine, fields=["evEbitdaNtm"], **WINDOW)
    for frame in frames:
        pd.testing.assert_frame_equal(frame, want)
    assert learning(bodies) == []
    assert [b["fields"] for b in data(bodies)] == [["evEbitdaNtm"]] * 6


def test_a_documented_name_is_sent_as_given(
    fresh: Any, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """``ruleOf40`` is a field the document gives: sent, and the default sandbox's 400 decides
    (issue 14: the client does not refuse what a service may serve)."""
    with pytest.raises(BadRequestError, match="ruleOf40"):
        fresh.public.time_series(skus["v2"], fields=["ruleOf40"], **WINDOW)
    assert learning(bodies) == []
    assert [b["fields"] for b in data(bodies)] == [["ruleOf40"]]


@pytest.mark.parametrize("version", ["v2", "v1"])
@pytest.mark.parametrize(
    "given, field", [("evrevenueltm", "evRevenueLtm"), ("ev_revenue_ntm", "evRevenueNtm")]
)
def test_another_spelling_of_a_documented_field_is_refused_before_any_request(
    fresh: Any, proxy: Proxy, skus: dict[str, list[str]], version: str, given: str, field: str
) -> None:
    with pytest.raises(ValidationError) as typo:
        api(fresh, version).time_series(skus[version], fields=["marketCap", given], **WINDOW)
    assert typo.value.argument == "fields[1]" and f"did you mean {field!r}?" in str(typo.value)
    assert proxy.count() == 0, proxy.seen


def test_another_spelling_the_service_serves_as_written_is_sent(
    fresh: Any, proxy: Proxy, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """Once an answer held ``ev_revenue_ltm`` as written, the service serves it: sent."""
    mine = skus["v2"]
    proxy.add(SERIES, serving("ev_revenue_ltm"))
    fresh.public.time_series(mine, **WINDOW)  # all fields: the answer holds it
    got = fresh.public.time_series(mine, fields=["ev_revenue_ltm"], **WINDOW)
    assert got["ev_revenue_ltm"].notna().any().all()
    assert [b.get("fields") for b in bodies] == [None, ["ev_revenue_ltm"]]


@pytest.fixture(scope="module")
def extra() -> Iterator[tuple[Any, Proxy]]:
    """A client through a proxy of its own to a sandbox under the ``extra-fields`` profile,
    which serves time series the default does not (``ruleOf40``, ``ebitdaLtm``)."""
    with (
        run(scale=0.05, seed=7, profile="extra-fields") as sb,
        Proxy(sb.url) as served,
        dealframe.Client(
            served.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        yield client, served


def test_extra_fields_profile_serves_its_fields_and_refuses_a_typo_itself(
    extra: tuple[Any, Proxy],
) -> None:
    client, served = extra
    seen: list[Any] = []
    served.add(SERIES, when=lambda ex: seen.append(ex.body) or False)
    mine = client.public.search().index[:3].tolist()
    got = client.public.time_series(mine, fields=["ruleOf40"], **WINDOW)
    with pytest.raises(BadRequestError, match="ruleOf4O"):  # the service's words
        client.public.time_series(mine, fields=["ruleOf4O"], **WINDOW)
    assert got.columns.get_level_values(0).unique().tolist() == ["ruleOf40"]
    assert got["ruleOf40"].notna().any().all()
    assert learning(seen) == [] and [b["fields"] for b in data(seen)] == [
        ["ruleOf40"],
        ["ruleOf4O"],
    ]


# ---------------------------------------------------------------------------- group fields

GROUP_SERIES = r"/groups/time-series$"
GROUP = {"regions": ["Western Europe"]}


@pytest.fixture
def group_bodies(proxy: Proxy) -> list[Any]:
    """The body of every group time-series request the proxy receives, in arrival order."""
    seen: list[Any] = []
    proxy.add(GROUP_SERIES, when=lambda ex: seen.append(ex.body) or False)
    return seen


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_group_field_in_another_spelling_is_refused_before_any_request(
    fresh: Any, proxy: Proxy, version: str
) -> None:
    with pytest.raises(ValidationError) as typo:
        api(fresh, version).group_time_series(fields=["evrevenueltm"], **GROUP, **WINDOW)
    assert typo.value.argument == "fields[0]"
    assert "did you mean 'evRevenueLtm'?" in str(typo.value)
    assert proxy.count() == 0, proxy.seen


def test_a_group_field_the_service_serves_is_sent_and_one_it_lacks_is_warned(
    fresh: Any, proxy: Proxy, direct: Any, group_bodies: list[Any]
) -> None:
    """``evEbitdaNtm`` (served, not among the document's names) is sent as given; a name the
    service ignores is sent too, and warned with the closest name."""
    got = fresh.public.group_time_series(fields=["evEbitdaNtm"], **GROUP, **WINDOW)
    want = direct.public.group_time_series(fields=["evEbitdaNtm"], **GROUP, **WINDOW)
    pd.testing.assert_frame_equal(got, want)
    proxy.add(GROUP_SERIES, ignoring("evEbitdaNtn"))
    with pytest.warns(ServiceContractWarning, match=r"evEbitdaNtn \(did you mean 'evEbitdaNtm'"):
        fresh.public.group_time_series(fields=["evEbitdaNtm", "evEbitdaNtn"], **GROUP, **WINDOW)
    assert [b.get("fields") for b in group_bodies] == [
        ["evEbitdaNtm"],
        ["evEbitdaNtm", "evEbitdaNtn"],
    ]


def test_reconcile_groups_checks_fields_before_its_first_data_request(
    fresh: Any, proxy: Proxy
) -> None:
    from dealframe.analytics import reconcile_groups

    with pytest.raises(ValidationError) as info:
        reconcile_groups(fresh, fields=["ev_revenue_ltm"], **GROUP)
    assert info.value.argument == "fields[0]" and "'ev_revenue_ltm'" in str(info.value)
    assert proxy.count() == 0, proxy.seen  # no search, no current data, no series


# ----------------------------------------------------------------------- beyond ASCII

#: Months in digits other than ASCII's: full-width, Arabic-Indic, mixed.
OTHER_DIGITS = ["２０２４-01", "٢٠٢٤-٠١", "2024-٠١"]


@pytest.mark.parametrize("month", OTHER_DIGITS)
@pytest.mark.parametrize("argument", ["date_from", "date_to"])
def test_a_month_in_other_digits_is_refused_naming_the_argument_before_any_request(
    via: Any, proxy: Proxy, skus: dict[str, list[str]], month: str, argument: str
) -> None:
    calls = [
        lambda: via.public.time_series(skus["v2"], **{argument: month}),
        lambda: via.public_v1.time_series(skus["v1"], **{argument: month}),
        lambda: via.public.group_time_series(**GROUP, **{argument: month}),
    ]
    for call in calls:
        with pytest.raises(ValidationError) as info:
            call()
        assert info.value.argument == argument
        assert "'YYYY-MM' in ASCII digits" in str(info.value)
    assert proxy.count() == 0, proxy.seen


@pytest.mark.parametrize(
    "version, bad, where",
    [
        ("v2", "ＡＣＭＥ-USA", "'Ａ' at position 0 is a full-width or compatibility form of 'A'"),
        ("v2", "A١-USA", "'١' at position 1 is a digit of another script"),
        ("v1", "ＮＹＳＥ_ACME", "'Ｎ' at position 0 is a full-width or compatibility form of 'N'"),
        ("v1", "NYSE_A١", "'١' at position 6 is a digit of another script"),
    ],
)
@pytest.mark.parametrize("method", ["current", "time_series"])
def test_a_sku_with_a_typo_is_refused_naming_its_position_before_any_request(
    via: Any,
    proxy: Proxy,
    skus: dict[str, list[str]],
    version: str,
    bad: str,
    where: str,
    method: str,
) -> None:
    with pytest.raises(ValidationError) as info:
        getattr(api(via, version), method)([skus[version][0], bad])
    assert info.value.argument == "skus[1]"
    assert f"({where}" in str(info.value), str(info.value)
    assert proxy.count() == 0, proxy.seen


def _respelled(real: str, shown: str, asked: list[Any]) -> Action:
    """A service that lists the company ``real`` as ``shown``: every answer's ``real`` reads
    ``shown``, and a request's ``shown`` is forwarded as ``real`` (its body kept in ``asked``
    as the client sent it)."""

    def rename(value: Any, old: str, new: str) -> Any:
        if isinstance(value, dict):
            return {k: rename(v, old, new) for k, v in value.items()}
        if isinstance(value, list):
            return [rename(v, old, new) for v in value]
        return new if value == old else value

    def request(ex: Exchange) -> None:
        if isinstance(ex.body, dict):
            asked.append(ex.body)
            ex.body = rename(ex.body, shown, real)
            ex.raw_body = orjson.dumps(ex.body)

    def response(ex: Exchange) -> None:
        doc = ex.doc()
        if doc is not None:
            ex.set_doc(rename(doc, real, shown))

    return Action(f"respelled({real!r} as {shown!r})", on_request=request, on_response=response)


@pytest.mark.parametrize("method", ["current", "time_series"])
def test_a_sku_with_a_letter_beyond_ascii_that_search_lists_is_sent(
    fresh: Any, proxy: Proxy, skus: dict[str, list[str]], method: str
) -> None:
    """``CAFÉ-FRA`` in the service's own search can be asked for: the service decides."""
    asked: list[Any] = []
    real, shown = skus["v2"][0], "CAFÉ-FRA"
    proxy.add(r"^/api/v2/", _respelled(real, shown, asked))
    listed = fresh.public.search().index[:3].tolist()
    assert shown in listed
    frame = getattr(fresh.public, method)(listed, **({} if method == "current" else WINDOW))
    sent = [b for b in asked if "skus" in b]
    assert len(sent) == 1 and shown in sent[0]["skus"], sent
    served = frame.index if method == "current" else frame.columns.get_level_values("sku")
    assert shown in set(served) and real not in set(served)
