"""``dealframe doctor`` reads what its probes get as the client reads it, through the drift
proxy: items of any list the client's reader refuses break (the client raises on them); the
values the client warns of on every call (numbers or booleans written as text, empty strings
or text that is no finite number where a number is documented, timestamps without an offset,
``meta`` counts written as text or that are no count) make the check ``adapted`` in the
client's words, and the doctor's run warns of none of it itself; what the client cannot read
(time series and group medians included) is said as the error the client raises; a search's
``meta.count`` is judged as the client reads it. The client reads a group time series'
medians as its other Family A readers read numbers."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    edit,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
)

from dealframe import Client
from dealframe.doctor import ADAPTED, BREAKS, HOLDS, diagnose
from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"


@pytest.fixture
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    """A client through the proxy, of its own (nothing learned is shared between tests)."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def _rows(doc: Any) -> list[Any]:
    data = doc.get("data") if isinstance(doc, dict) else None
    return data if isinstance(data, list) else [data]


def _set(field: str, value: Any, first: int | None = None) -> Callable[[Any], Any]:
    """Every row's ``field`` (the ``first`` rows' only, when given) set to ``value``."""

    def change(doc: Any) -> Any:
        for i, row in enumerate(_rows(doc)):
            if isinstance(row, dict) and field in row and (first is None or i < first):
                row[field] = value
        return doc

    return change


def _meta_as_text(doc: Any) -> Any:
    """Every count of ``meta`` written as text (``"5"``)."""
    meta = doc.get("meta") if isinstance(doc, dict) else None
    for key, value in (meta or {}).items():
        if type(value) is int:
            meta[key] = str(value)
    return doc


def _series_meta_as_text(doc: Any) -> Any:
    """A group time-series' ``meta`` counts written as text, and ``has_more: "false"``."""
    doc = _meta_as_text(doc)
    if isinstance(doc.get("meta"), dict):
        doc["meta"]["has_more"] = "false"
    return doc


def _median_empty(doc: Any) -> Any:
    """The first aggregate bucket's ``median`` written ``""``."""
    data = doc.get("data") if isinstance(doc, dict) else None
    buckets = data.get("buckets") if isinstance(data, dict) else data
    first = next((b for b in buckets or [] if isinstance(b, dict) and "median" in b), None)
    if first is not None:
        first["median"] = ""
    return doc


def _numbers_as_text(doc: Any) -> Any:
    """Every ``marketCap`` written as text: ``"1.5"``."""
    for row in _rows(doc):
        if isinstance(row, dict) and isinstance(row.get("marketCap"), (int, float)):
            row["marketCap"] = str(row["marketCap"])
    return doc


def _booleans_as_text(doc: Any) -> Any:
    """Every boolean of the rows written as text: ``"true"``, ``"false"``."""
    for row in _rows(doc):
        if isinstance(row, dict):
            for key, value in row.items():
                if isinstance(value, bool):
                    row[key] = "true" if value else "false"
    return doc


def _series_values(value: Any) -> Callable[[Any], Any]:
    """The first two months of every time-series field written ``value``."""

    def change(doc: Any) -> Any:
        for row in _rows(doc):
            for months in (row.get("data") or {}).values() if isinstance(row, dict) else ():
                for month in list(months)[:2] if isinstance(months, dict) else ():
                    months[month] = value
        return doc

    return change


def _medians(value: Any) -> Callable[[Any], Any]:
    """Every period's ``marketCap`` median (the field the sandbox's group medians hold)
    written ``value``."""

    def change(doc: Any) -> Any:
        for row in _rows(doc):
            median = row.get("median") if isinstance(row, dict) else None
            if isinstance(median, dict) and "marketCap" in median:
                median["marketCap"] = value
        return doc

    return change


def _group_meta(value: Any) -> Callable[[Any], Any]:
    """groups/current's ``meta.companies`` written ``value``."""

    def change(doc: Any) -> Any:
        doc.setdefault("meta", {})["companies"] = value
        return doc

    return change


def _sku(c: Client) -> str:
    found = c.public.search()
    return str(found["sku"].iloc[0] if "sku" in found.columns else found.index[0])


def _series(c: Client) -> Any:
    return c.public.time_series([_sku(c)])


def _group_series(c: Client) -> Any:
    return c.public.group_time_series(countries=["USA"], date_from="2024-01", date_to="2024-03")


def _target(c: Client) -> str:
    """A company with a sellside row: the target of an M&A deal."""
    deals = c.private.deals(deal_type=["M&A"], limit=5)
    return str(deals["target_id"].dropna().iloc[0])


def _company(c: Client) -> str:
    return str(c.private.companies(limit=5)["id"].iloc[0])


# -- a list's items the client cannot read break -----------------------------------------------


@pytest.mark.parametrize(
    ("entity", "call"),
    [
        ("transactions", lambda c: c.private.deals(limit=5)),
        ("investors", lambda c: c.private.investors(limit=5)),
    ],
    ids=["transactions", "investors"],
)
def test_list_items_the_client_refuses_break_the_paging_check(
    client: Client, proxy: Proxy, entity: str, call: Callable[[Client], Any]
) -> None:
    proxy.add(rf"^{P}/{entity}$", edit(_set("updated_at", 1706592778)))  # Unix seconds
    with pytest.raises(ServiceContractError) as raised:
        call(client)
    said = str(raised.value).split("documented shape: ")[1].split(" (")[0]
    found = diagnose(client, family="B")
    page = {c.name: c for c in found.checks}["B.paging.page"]
    assert page.verdict == BREAKS, page
    assert page.observed.startswith(f"/{entity} page 1: the client cannot read it: ")
    assert said in page.observed  # the client's own words: updated_at, expected ISO 8601 ...
    assert not found.ok
    assert "works with this service as it is" not in found.verdict()


# -- what the client warns of on every call is adapted, and the run warns of none of it --------


@pytest.mark.parametrize(
    ("path", "change", "check", "family", "call", "said"),
    [
        (
            "^/api/v2/companies/current$",
            _numbers_as_text,
            "A.current",
            "A",
            lambda c: c.public.current([_sku(c)]),
            "marketCap: numbers written as text in ",
        ),
        (
            f"^{P}/companies$",
            _booleans_as_text,
            "B.list_items",
            "B",
            lambda c: c.private.companies(limit=5),
            "deleted: booleans written as text or as 0/1 in ",
        ),
        (
            f"^{P}/transactions$",
            _booleans_as_text,
            "B.paging.page",
            "B",
            lambda c: c.private.deals(limit=5),
            "deleted: booleans written as text or as 0/1 in ",
        ),
        (
            f"^{P}/companies/[0-9a-f-]{{36}}$",
            _booleans_as_text,
            "B.profile",
            "B",
            lambda c: c.private.company(_company(c)),
            "deleted: booleans written as text or as 0/1 in ",
        ),
        (
            f"^{P}/companies/[0-9a-f-]{{36}}/sellside$",
            _booleans_as_text,
            "B.sub_collection",
            "B",
            lambda c: c.private.sellside(_target(c)),
            "deleted: booleans written as text or as 0/1 in ",
        ),
        (
            "^/api/v2/companies/time-series$",
            _series_values("12.5"),
            "A.time_series",
            "A",
            _series,
            "numbers written as text in ",
        ),
        (
            "^/api/v1/groups/time-series$",
            _medians("12.5"),
            "A.groups.time_series",
            "A",
            _group_series,
            "median.marketCap: numbers written as text in ",
        ),
        (
            "^/api/v1/groups/time-series$",
            _medians(""),
            "A.groups.time_series",
            "A",
            _group_series,
            'median.marketCap: empty strings "" where a number or null is documented',
        ),
        (
            "^/api/v2/groups/current$",
            _group_meta("many"),
            "A.groups.current",
            "A",
            lambda c: c.public.group_current(countries=["USA"]),
            "meta.companies is 'many', not a count: ignored",
        ),
        (
            "^/api/v2/groups/current$",
            _group_meta(-1),
            "A.groups.current",
            "A",
            lambda c: c.public.group_current(countries=["USA"]),
            "meta.companies is -1, not a count: ignored",
        ),
        (
            "^/api/v2/companies/current$",
            _set("marketCap", "", 2),
            "A.current",
            "A",
            lambda c: c.public.current([_sku(c)]),
            'marketCap: empty strings "" where a number or null is documented',
        ),
        (
            "^/api/v2/companies/current$",
            _set("marketCap", "NaN", 2),
            "A.current",
            "A",
            lambda c: c.public.current([_sku(c)]),
            "marketCap: text that is not a finite number ('NaN')",
        ),
        (
            f"^{P}/companies$",
            _set("founded", "", 2),
            "B.list_items",
            "B",
            lambda c: c.private.companies(limit=5),
            'founded: empty strings "" where a number or null is documented',
        ),
        (
            f"^{P}/companies/[0-9a-f-]{{36}}$",
            _set("updated_at", "2024-01-30T05:32:58"),
            "B.profile",
            "B",
            lambda c: c.private.company(_company(c)),
            "updated_at: no offset in a timestamp (such as '2024-01-30T05:32:58')",
        ),
        (
            f"^{P}/companies/[0-9a-f-]{{36}}/sellside$",
            _meta_as_text,
            "B.sub_collection",
            "B",
            lambda c: c.private.sellside(_target(c)),
            "written as text (or a float), not as a JSON integer or boolean: read as the value",
        ),
        (
            "^/api/v1/groups/time-series$",
            _series_meta_as_text,
            "A.groups.time_series",
            "A",
            lambda c: c.public.group_time_series(
                countries=["USA"], date_from="2024-01", date_to="2024-03"
            ),
            "meta.count, meta.companies, meta.has_more written as text (or a float)",
        ),
        (
            f"^{P}/transactions/aggregate$",
            _median_empty,
            "B.aggregate.labels.quarter",
            "B",
            lambda c: c.private.aggregate("ev_revenue", "quarter"),
            'median: empty strings "" where a number or null is documented',
        ),
    ],
    ids=[
        "current-numbers",
        "list-booleans",
        "deal-list-booleans",
        "profile-booleans",
        "sub-collection-booleans",
        "series-numbers",
        "group-series-numbers",
        "group-series-empty",
        "group-meta-many",
        "group-meta-negative",
        "current-empty",
        "current-nan",
        "list-empty",
        "profile-offset",
        "sub-meta",
        "series-meta",
        "aggregate-empty",
    ],
)
def test_values_the_client_warns_of_are_adapted_and_the_run_warns_of_none(
    client: Client,
    proxy: Proxy,
    path: str,
    change: Callable[[Any], Any],
    check: str,
    family: str,
    call: Callable[[Client], Any],
    said: str,
) -> None:
    proxy.add(path, edit(change))
    got = outcome(lambda: call(client))
    assert got.error is None, got.error
    warned = [w for w in got.warned(ServiceContractWarning) if said in w]
    assert warned, got.caught  # the client warns of it on every call
    ran = outcome(lambda: diagnose(client, family=family))
    assert ran.error is None, ran.error
    seen = {c.name: c for c in ran.value.checks}[check]
    assert seen.verdict == ADAPTED, seen
    assert "the client warns: " in seen.observed and said in seen.observed, seen
    # noted from the readers, not warned: the doctor's run itself warns of nothing
    assert ran.warned(ServiceContractWarning) == []


def test_the_command_prints_no_warning_beside_its_rows(
    sandbox: Any, proxy: Proxy, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dealframe.cli import main

    for key, value in (
        ("DEALFRAME_BASE_URL", proxy.url),
        ("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token),
    ):
        monkeypatch.setenv(key, value)
    proxy.add("^/api/v2/companies/current$", edit(_set("marketCap", "", 2)))
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err, err
    current = next(line for line in out.splitlines() if line.startswith("A.current"))
    assert current.rstrip().endswith("adapted")


# -- what the client cannot read is said as the error it raises --------------------------------


def test_current_data_the_client_cannot_read_is_said_as_the_error_it_raises(
    client: Client, proxy: Proxy
) -> None:
    proxy.add("^/api/v2/companies/current$", edit(_set("marketCap", "abc", 1)))
    with pytest.raises(ServiceContractError):
        client.public.current([_sku(client)])
    current = {c.name: c for c in diagnose(client, family="A").checks}["A.current"]
    assert current.verdict == BREAKS
    assert current.observed.startswith("ServiceContractError: "), current.observed
    assert "marketCap" in current.observed


@pytest.mark.parametrize(
    ("path", "change", "check", "call"),
    [
        ("^/api/v2/companies/time-series$", _series_values("abc"), "A.time_series", _series),
        ("^/api/v1/groups/time-series$", _medians("abc"), "A.groups.time_series", _group_series),
    ],
    ids=["series", "group-series"],
)
def test_series_values_the_client_cannot_read_break_as_the_error_it_raises(
    client: Client,
    proxy: Proxy,
    path: str,
    change: Callable[[Any], Any],
    check: str,
    call: Callable[[Client], Any],
) -> None:
    proxy.add(path, edit(change))
    with pytest.raises(ServiceContractError) as raised:
        call(client)
    ran = outcome(lambda: diagnose(client, family="A"))
    seen = {c.name: c for c in ran.value.checks}[check]
    assert seen.verdict == BREAKS, seen
    assert seen.observed == f"ServiceContractError: {raised.value}"  # the client's own words
    assert not ran.value.ok
    assert ran.warned(ServiceContractWarning) == []


def _months_as(spell: Callable[[str], str]) -> Callable[[Any], Any]:
    """Every time-series month key written ``spell(month)``."""

    def change(doc: Any) -> Any:
        for row in _rows(doc):
            data = row.get("data") if isinstance(row, dict) else None
            for field, months in (data or {}).items() if isinstance(data, dict) else ():
                if isinstance(months, dict):
                    data[field] = {spell(m): v for m, v in months.items()}
        return doc

    return change


def test_series_months_spelt_as_days_are_judged_as_the_client_reads_them(
    client: Client, proxy: Proxy
) -> None:
    """Months keyed ``2022-01-01``: the client reads them as their months, with no warning
    (wide, long, windowed alike): the check adapts, saying so, and never breaks (it broke,
    "months not YYYY-MM", before); an unreadable month still breaks as the client's error."""
    proxy.add("^/api/v2/companies/time-series$", edit(_months_as(lambda m: f"{m}-01")))
    sku = _sku(client)
    got = outcome(lambda: client.public.time_series([sku]))
    assert got.error is None and got.warned(ServiceContractWarning) == []
    assert len(got.value) and str(got.value.index.dtype) == "period[M]"
    ran = outcome(lambda: diagnose(client, family="A"))
    check = {c.name: c for c in ran.value.checks}["A.time_series"]
    assert check.verdict == ADAPTED, check
    assert "monthly values keyed like '" in check.observed and "-01': read as months" in (
        check.observed
    ), check.observed
    assert ran.value.ok and ran.warned(ServiceContractWarning) == []
    proxy.reset()
    proxy.add("^/api/v2/companies/time-series$", edit(_months_as(lambda m: f"{m}x")))
    with pytest.raises(ServiceContractError) as raised:
        client.public.time_series([sku])
    check = {c.name: c for c in diagnose(client, family="A").checks}["A.time_series"]
    assert check.verdict == BREAKS, check
    assert check.observed == f"ServiceContractError: {raised.value}"


# -- the client reads a group time series' medians as its other Family A readers ---------------


def test_group_medians_written_as_text_or_empty_are_read_and_said(
    client: Client, proxy: Proxy
) -> None:
    def change(doc: Any) -> Any:
        first, second = doc["data"][:2]
        first["median"]["marketCap"] = "12.5"
        second["median"]["marketCap"] = ""
        return doc

    proxy.add("^/api/v1/groups/time-series$", edit(change))
    for _ in range(2):  # said on every call
        got = outcome(lambda: _group_series(client))
        assert got.error is None, got.error
        frame = got.value
        assert frame["marketCap"].iloc[0] == 12.5
        assert pd.isna(frame["marketCap"].iloc[1])
        said = got.warned(ServiceContractWarning)
        assert [
            w
            for w in said
            if w.startswith(  # a finding of the call, naming its endpoint
                "POST /api/v1/groups/time-series: median.marketCap: numbers written as text in 1 "
            )
        ]
        assert "such as '12.5'; period 2024-01" in " ".join(said)
        assert (
            'POST /api/v1/groups/time-series: median.marketCap: empty strings "" where a number '
            "or null is documented: read as null"
        ) in said


def test_a_boolean_median_is_refused_as_the_other_readers_refuse_it(
    client: Client, proxy: Proxy
) -> None:
    proxy.add("^/api/v1/groups/time-series$", edit(_medians(True)))
    with pytest.raises(ServiceContractError, match=r"median\.marketCap: expected numbers"):
        _group_series(client)


# -- a search's meta.count is judged as the client reads it ------------------------------------


def _count(value: Any) -> Callable[[Any], Any]:
    """The search's ``meta.count`` written ``value`` (None: left out); ``"more"``: one above
    the rows."""

    def change(doc: Any) -> Any:
        if not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
            return doc  # an error answer (the doctor's auth probes)
        meta = doc.setdefault("meta", {})
        if value is None:
            meta.pop("count", None)
        elif value == "more":
            meta["count"] = len(doc["data"]) + 1
        elif value == "fewer":
            meta["count"] = len(doc["data"]) - 1
        else:
            meta["count"] = value
        return doc

    return change


@pytest.mark.parametrize(
    ("value", "verdict", "said"),
    [
        ("many", ADAPTED, "the client warns: meta.count is 'many', not a count: ignored"),
        (None, HOLDS, "no meta.count read"),
        ("fewer", ADAPTED, "the client warns: meta.count says "),
        ("more", BREAKS, ": the client returns the "),
    ],
    ids=["not-a-count", "missing", "below-the-rows", "above-the-rows"],
)
def test_a_search_meta_count_is_judged_as_the_client_reads_it(
    client: Client, proxy: Proxy, value: Any, verdict: str, said: str
) -> None:
    proxy.add("^/api/v2/companies$", edit(_count(value)))
    got = outcome(lambda: client.public.search())
    assert got.error is None, got.error
    rows = len(got.value)
    ran = outcome(lambda: diagnose(client, family="A"))
    search = {c.name: c for c in ran.value.checks}["A.search"]
    assert search.verdict == verdict, search
    assert said in search.observed, search
    if verdict == BREAKS:
        assert search.observed.startswith(
            f"meta.count says {rows + 1} companies, data holds {rows}"
        )
    warned = got.warned(ServiceContractWarning)  # the client: silent only without meta.count
    assert bool(warned) == (value is not None), got.caught
    assert ran.warned(ServiceContractWarning) == []


def _more(doc: Any) -> Any:
    """The search's ``meta.count`` one above the rows, written as text (``"61"``)."""
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        doc.setdefault("meta", {})["count"] = str(len(doc["data"]) + 1)
    return doc


def _has_more(doc: Any) -> Any:
    """The search's ``meta``: ``has_more: true``, its count the rows held."""
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        doc.setdefault("meta", {}).update(count=len(doc["data"]), has_more=True)
    return doc


@pytest.mark.parametrize("change", [_more, _has_more], ids=["count-as-text-above", "has-more"])
def test_a_search_short_of_its_meta_breaks_quoting_every_warning_of_it(
    client: Client, proxy: Proxy, change: Callable[[Any], Any]
) -> None:
    """Rows lost (a count above the rows written as text, ``has_more: true`` with the count
    of the rows held) break, quoting every warning the client gives of that ``meta``: the
    text count too, not only the rows lost."""
    proxy.add("^/api/v2/companies$", edit(change))
    got = outcome(lambda: client.public.search())
    assert got.error is None, got.error
    warned = [w.removeprefix("POST /api/v2/companies: ") for w in got.warned(Warning)]
    assert warned
    ran = outcome(lambda: diagnose(client, family="A"))
    search = {c.name: c for c in ran.value.checks}["A.search"]
    assert search.verdict == BREAKS, search
    for words in warned:
        assert words in search.observed, (words, search.observed)


# -- the group medians are read by the client's own steps, in the window asked ------------------


def _extra_period(period: str, value: Any) -> Callable[[Any], Any]:
    """Every median 1.0, and one more period ``period`` whose ``marketCap`` is ``value``."""

    def change(doc: Any) -> Any:
        rows = _rows(doc)
        for row in rows:
            if isinstance(row, dict) and isinstance(row.get("median"), dict):
                row["median"]["marketCap"] = 1.0
        rows.append({"period": period, "median": {"marketCap": value}})
        return doc

    return change


@pytest.mark.parametrize(
    ("period", "value"),
    [("2023-12", "abc"), ("2023-12", "12.5"), ("2024-01-01", "abc")],
    ids=["unreadable-outside-the-window", "text-outside-the-window", "repeated-day-spelt"],
)
def test_group_medians_are_judged_on_what_the_client_reads(
    client: Client, proxy: Proxy, period: str, value: Any
) -> None:
    """A period outside the window asked (its values never read by the client), or a
    period repeated (the client keeps the first): the doctor reads them as the client does,
    quoting exactly its warnings, never breaking on, or quoting, a value it drops."""
    proxy.add("^/api/v1/groups/time-series$", edit(_extra_period(period, value)))
    got = outcome(lambda: _group_series(client))
    assert got.error is None, got.error
    assert got.value["marketCap"].tolist() == [1.0, 1.0, 1.0]
    prefix = "POST /api/v1/groups/time-series: "
    warned = [w.removeprefix(prefix) for w in got.warned(ServiceContractWarning)]
    assert warned
    ran = outcome(lambda: diagnose(client, family="A"))
    check = {c.name: c for c in ran.value.checks}["A.groups.time_series"]
    assert check.verdict == ADAPTED, check
    assert check.observed.split("; the client warns: ", 1)[1] == "; ".join(warned), check
    assert value not in check.observed
    assert ran.warned(ServiceContractWarning) == []


# -- a company answer's items are taken as the client takes them ------------------------------


def _one_more(value: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[Any], Any]:
    """One more item after the answer's items: ``value`` of its first (an error answer, or
    one with no item, left as it is)."""

    def change(doc: Any) -> Any:
        data = doc.get("data") if isinstance(doc, dict) else None
        if isinstance(data, list) and data and isinstance(data[0], dict):
            data.append(value(dict(data[0])))
        return doc

    return change


@pytest.mark.parametrize(
    ("path", "item", "check", "call", "said"),
    [
        (
            "^/api/v2/companies/current$",
            lambda first: {**first, "marketCap": "abc"},
            "A.current",
            lambda c: c.public.current([_sku(c)]),
            "came more than once with different content: kept the first",
        ),
        (
            "^/api/v2/companies/current$",
            lambda first: {**first, "sku": "ZZZQ-USA", "marketCap": "abc"},
            "A.current",
            lambda c: c.public.current([_sku(c)]),
            "items for SKUs not asked for: dropped ('ZZZQ-USA')",
        ),
        (
            "^/api/v2/companies/time-series$",
            lambda first: {**first, "data": {"marketCap": {"2024-01": "abc"}}},
            "A.time_series",
            _series,
            "came more than once with different content: kept the first",
        ),
        (
            "^/api/v2/companies/time-series$",
            lambda first: {**first, "sku": "ZZZQ-USA", "data": {"marketCap": {"2024-01": "abc"}}},
            "A.time_series",
            _series,
            "items for SKUs not asked for: dropped ('ZZZQ-USA')",
        ),
    ],
    ids=["current-repeated", "current-not-asked", "series-repeated", "series-not-asked"],
)
def test_company_items_are_taken_as_the_client_takes_them(
    client: Client,
    proxy: Proxy,
    path: str,
    item: Callable[[dict[str, Any]], dict[str, Any]],
    check: str,
    call: Callable[[Client], Any],
    said: str,
) -> None:
    """A SKU repeated (the client keeps the first) or an item of a SKU not asked (dropped),
    its values unreadable: the client returns its rows and warns; the doctor takes the items
    as the client does (its own function), adapted, quoting the warning, never breaking on a
    value the client drops."""
    proxy.add(path, edit(_one_more(item)))
    got = outcome(lambda: call(client))
    assert got.error is None, got.error
    assert [w for w in got.warned(ServiceContractWarning) if said in w], got.caught
    ran = outcome(lambda: diagnose(client, family="A"))
    seen = {c.name: c for c in ran.value.checks}[check]
    assert seen.verdict == ADAPTED, seen
    assert said in seen.observed, seen
    assert "abc" not in seen.observed
    assert ran.warned(ServiceContractWarning) == []


# -- the readers the doctor shares with the client refuse what they cannot read -----------------


def test_the_shared_readers_refuse_wrong_arguments_naming_them() -> None:
    """``answer_count``, ``series_meta``, ``read_group_series``, ``check_group_classes``,
    ``fewer_skus`` and
    ``smaller_page`` (public: the doctor judges with them) say what is wrong with their
    arguments as dealframe errors, never a bare AttributeError or a silent None."""
    from dealframe.contract import Findings
    from dealframe.errors import BadRequestError, RequestInfo, UnknownArgumentError, ValidationError
    from dealframe.private.api import smaller_page
    from dealframe.public.api import (
        answer_count,
        check_group_classes,
        fewer_skus,
        read_group_series,
        series_meta,
    )

    doc = {"data": [{}], "meta": {"count": 2}}
    found = Findings("POST /api/v2/companies")
    assert answer_count(doc, [{}], found, "companies") == 2  # a shortfall, added to found
    assert [f.kind for f in found] == ["count_mismatch"]
    refused = BadRequestError(400, "BAD_REQUEST", "limit: at most 100")
    for call, named in (
        (lambda: answer_count(doc, [{}], None, "companies"), "found"),
        (lambda: answer_count([], [{}], found, "companies"), "doc"),
        (lambda: answer_count(doc, "abc", found, "companies"), "items"),
        (lambda: answer_count(doc, [{}], found, 3), "what"),
        (lambda: series_meta(doc, [{}], {}), "found"),
        (lambda: read_group_series(doc, None, RequestInfo("POST", "/x", "public")), "found"),
        (lambda: check_group_classes({"sum": {}}, found), "frame"),
        (lambda: check_group_classes(pd.DataFrame(), None), "found"),
        (lambda: fewer_skus("too many", 100), "error"),
        (lambda: fewer_skus(refused, "100"), "sent"),
        (lambda: smaller_page(refused, 0), "sent"),
        (lambda: smaller_page(None, 100), "error"),
    ):
        with pytest.raises(ValidationError, match=f"invalid {named}: "):
            call()
    with pytest.raises(UnknownArgumentError):
        answer_count(doc, [{}], found, "companies", whol=True)  # type: ignore[call-arg]
    assert smaller_page(refused, 1000) == 100


def _clashing_extras(doc: Any) -> Any:
    """Every row given ``target_7`` and ``target: {"7": ...}``: two extra fields the client
    names as one column, so it gives them free names (``target_7_2`` ...)."""
    for row in _rows(doc):
        if isinstance(row, dict):
            row["target_7"], row["target"] = 1, {"7": 2}
    return doc


def test_extra_fields_given_free_names_are_adapted_and_the_run_warns_of_none(
    client: Client, proxy: Proxy
) -> None:
    """Family B list items carrying ``target_7`` and ``target: {"7": ...}``: the client warns
    (a ServiceContractWarning) that it gave the deals' free names; the doctor reads the pages
    in its place, quotes that warning (B.paging.page adapted) and warns of nothing itself (the old code let two
    DealframeWarnings escape its run: it built those frames outside the reading of answers)."""
    proxy.add(rf"^{P}/(companies|investors|transactions)$", edit(_clashing_extras))
    ran = outcome(lambda: diagnose(client, family="B"))
    assert ran.error is None, ran.error
    assert ran.warned(Warning) == [], ran.caught
    seen = {c.name: c for c in ran.value.checks}["B.paging.page"]
    assert seen.verdict == ADAPTED, seen
    said = "/transactions: extra fields named as other columns were given free names: target_7_2"
    assert f"the client warns: {said}" in seen.observed, seen
