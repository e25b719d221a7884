"""``dealframe doctor`` reads what its probes get as the client reads it, through the drift
proxy: items of any list the client's reader refuses break (the client raises on them); the
other values the client warns of on every call (empty strings or text that is no finite number
where a number is documented, timestamps without an offset, counts of a sub-collection's or a
group time-series' ``meta`` written as text) make the check ``adapted`` in the client's words,
and the doctor's run warns of none of it itself; what the client cannot read is said as the
error the client raises."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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
from dealframe.doctor import ADAPTED, BREAKS, diagnose
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


def _sku(c: Client) -> str:
    found = c.public.search()
    return str(found["sku"].iloc[0] if "sku" in found.columns else found.index[0])


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
