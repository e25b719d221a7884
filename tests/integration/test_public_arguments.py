"""Family A bad input refused before the request it would spoil (issue 3), without refusing
what the service serves (issue 14).

- ``skus`` that is not a list (a bare string, a mapping, a number, None, a frame) is a
  ``ValidationError`` naming ``skus``, before any request, in both versions.
- A time-series field name the document does not give is checked against the names the
  service serves, learned once per client and version from one request without ``fields``:
  one it does not serve is a ``ValidationError`` naming ``fields[i]`` and the closest served
  name, and no data request is sent; one it serves is sent. Under the ``extra-fields``
  profile the names it adds are served.

- ``group_time_series`` checks its ``fields`` the same way, the names looked for with the
  group's own request without ``fields``; ``analytics.reconcile_groups`` checks them before
  its first data request.
- A month in digits other than ASCII's, and a SKU with a character that is clearly a typo (a
  full-width form, another script's digit), are refused before any request, naming the
  argument (``skus[i]`` and the character for a SKU). A SKU with a visible letter beyond ASCII
  (``CAFÉ-FRA``), which a service may list in its own search, is sent: the service decides.

Requests are counted at the drift proxy, which records every time-series body it forwards.
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
from dealframe.notices import ServiceContractWarning
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
    """The requests that learn the served names: no ``fields``."""
    return [b for b in bodies if "fields" not in b]


def data(bodies: list[Any]) -> list[Any]:
    """The data requests: with ``fields``."""
    return [b for b in bodies if "fields" in b]


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
def test_a_field_the_service_does_not_serve_is_refused_before_the_data_request(
    fresh: Any, bodies: list[Any], skus: dict[str, list[str]], version: str
) -> None:
    series = api(fresh, version).time_series
    with pytest.raises(ValidationError) as unknown:
        series(skus[version], fields=["notAField"], **WINDOW)
    with pytest.raises(ValidationError) as typo:
        series(skus[version], fields=["marketCap", "evRevenueNtn"], **WINDOW)
    assert unknown.value.argument == "fields[0]" and "'notAField'" in str(unknown.value)
    assert "it serves 10: " in str(unknown.value)  # no close name: the names it serves
    assert typo.value.argument == "fields[1]"
    assert "did you mean 'evRevenueNtm'?" in str(typo.value)
    assert data(bodies) == []  # neither data request was sent
    # each refused name was looked for over the call's SKUs (its first 10) and window, once
    # per call: a name not seen served is not refused on what other companies were served
    once = {"skus": skus[version][:10], "dateFrom": "2024-01", "dateTo": "2024-06"}
    assert learning(bodies) == [once, once]


def test_a_field_one_company_lacks_is_not_refused_for_the_others(
    fresh: Any, proxy: Any, direct: Any, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """A service may leave out a field a company has no value for: the names are looked for
    over the call's SKUs, not one company's, and a name seen served is not refused later."""
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
    with pytest.warns(ServiceContractWarning) as seen:  # seen: sent, none there
        later = fresh.public.time_series(mine[:1], fields=["evEbitdaNtm"], **WINDOW)
    assert any("evEbitdaNtm" in str(w.message) for w in seen)
    assert later.attrs["requests"] == 1 and len(learning(bodies)) == 1


def test_a_served_field_beyond_the_documented_is_sent_and_the_names_are_learned_once(
    fresh: Any, direct: Any, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """``evEbitdaNtm`` is not among the document's names but the sandbox serves it: sent. Six
    calls on four threads at once learn the names with one request between them."""
    mine = skus["v2"]

    def call(_: int) -> pd.DataFrame:
        return fresh.public.time_series(mine, fields=["evEbitdaNtm"], **WINDOW)

    with ThreadPoolExecutor(4) as pool:
        frames = list(pool.map(call, range(6)))
    want = direct.public.time_series(mine, fields=["evEbitdaNtm"], **WINDOW)
    for frame in frames:
        pd.testing.assert_frame_equal(frame, want)
    assert len(learning(bodies)) == 1
    assert [b["fields"] for b in data(bodies)] == [["evEbitdaNtm"]] * 6


def test_a_documented_name_is_sent_as_given_without_learning(
    fresh: Any, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """``ruleOf40`` is a field the document gives: sent, and the default sandbox's 400 decides
    (issue 14: the client does not refuse what a service may serve)."""
    with pytest.raises(BadRequestError, match="ruleOf40"):
        fresh.public.time_series(skus["v2"], fields=["ruleOf40"], **WINDOW)
    assert learning(bodies) == []
    assert [b["fields"] for b in data(bodies)] == [["ruleOf40"]]


def test_when_the_names_cannot_be_learned_every_name_is_sent_as_given(
    fresh: Any, proxy: Proxy, bodies: list[Any], skus: dict[str, list[str]]
) -> None:
    """The learning request fails (a gateway's 404 page): the name goes to the service, whose
    400 names it; a failed learning is not kept, so the next call asks again."""
    proxy.add(SERIES, html(404), when=lambda ex: "fields" not in (ex.body or {}))
    for _ in range(2):
        with pytest.raises(BadRequestError, match="notAField"):
            fresh.public.time_series(skus["v2"], fields=["notAField"], **WINDOW)
    assert len(learning(bodies)) == 2
    assert [b["fields"] for b in data(bodies)] == [["notAField"]] * 2


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


def test_extra_fields_profile_serves_its_fields_and_suggests_them(
    extra: tuple[Any, Proxy],
) -> None:
    client, served = extra
    seen: list[Any] = []
    served.add(SERIES, when=lambda ex: seen.append(ex.body) or False)
    mine = client.public.search().index[:3].tolist()
    got = client.public.time_series(mine, fields=["ruleOf40"], **WINDOW)
    with pytest.raises(ValidationError) as typo:
        client.public.time_series(mine, fields=["ruleOf4O"], **WINDOW)
    assert got.columns.get_level_values(0).unique().tolist() == ["ruleOf40"]
    assert got["ruleOf40"].notna().any().all()
    # the name the client suggests is one it learned from this service, not one it knows
    assert typo.value.argument == "fields[0]" and "did you mean 'ruleOf40'?" in str(typo.value)
    assert len(learning(seen)) == 1 and [b["fields"] for b in data(seen)] == [["ruleOf40"]]


def test_the_names_request_is_never_cached_nor_answers_a_call(
    sandbox: Any, proxy: Any, tmp_path: Path, skus: dict[str, list[str]]
) -> None:
    """The request that looks for the served names is a time series of the call's SKUs without
    ``fields``, the same request as a user's ``time_series(skus)``: cached, its answer (never
    checked as a call's are) answered that call from the cache."""
    mine = skus["v2"]
    with dealframe.Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=True,
        cache_path=tmp_path / "cache.sqlite",
        **FAST,
    ) as client:
        client.public.time_series(mine, fields=["evEbitdaNtm"], **WINDOW)  # names looked for
        plain = client.public.time_series(mine, **WINDOW)
        again = client.public.time_series(mine, **WINDOW)
    assert plain.attrs["from_cache"] is False  # asked the service, not the names' answer
    assert again.attrs["from_cache"] is True  # its own answer was cached


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
def test_a_group_field_the_service_does_not_serve_is_refused_before_the_data_request(
    fresh: Any, proxy: Proxy, group_bodies: list[Any], version: str
) -> None:
    """As in ``time_series``: the served names are looked for with the group's own request
    over its window without ``fields``, and a name it lacks is refused with the close one."""
    with pytest.raises(ValidationError) as typo:
        api(fresh, version).group_time_series(fields=["evrevenueltm"], **GROUP, **WINDOW)
    assert typo.value.argument == "fields[0]"
    assert "did you mean 'evRevenueLtm'?" in str(typo.value)
    assert group_bodies == [{**GROUP, "dateFrom": "2024-01", "dateTo": "2024-06"}]
    assert proxy.count() == 1  # the names' request only: no data request


def test_a_served_group_field_is_sent_and_its_names_are_kept_with_the_series_ones(
    fresh: Any,
    direct: Any,
    group_bodies: list[Any],
    bodies: list[Any],
    skus: dict[str, list[str]],
) -> None:
    """``evEbitdaNtm`` (served, not among the document's names) is looked for once, then
    sent; the names learned serve the same client's ``time_series`` too (one set per client
    and version)."""
    got = fresh.public.group_time_series(fields=["evEbitdaNtm"], **GROUP, **WINDOW)
    again = fresh.public.group_time_series(fields=["evEbitdaNtm"], **GROUP, **WINDOW)
    want = direct.public.group_time_series(fields=["evEbitdaNtm"], **GROUP, **WINDOW)
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(again, want)
    assert [b.get("fields") for b in group_bodies] == [None, ["evEbitdaNtm"], ["evEbitdaNtm"]]
    fresh.public.time_series(skus["v2"], fields=["evEbitdaNtm"], **WINDOW)
    assert learning(bodies) == []  # known from the group's answer


def test_reconcile_groups_checks_fields_before_its_first_data_request(
    fresh: Any, proxy: Proxy, group_bodies: list[Any]
) -> None:
    from dealframe.analytics import reconcile_groups

    with pytest.raises(ValidationError) as info:
        reconcile_groups(fresh, fields=["nope"], **GROUP)
    assert info.value.argument == "fields[0]" and "'nope'" in str(info.value)
    assert group_bodies == [GROUP]  # the names' request, without fields
    assert proxy.count() == 1  # no search, no current data, no series


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
