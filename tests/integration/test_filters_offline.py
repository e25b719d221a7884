"""Family B filter values: what the interface document fixes is refused before any request;
the service's discovery document decides what only it knows.

The document (section 4.4) fixes each filter's type: dates ``YYYY-MM-DD``, numbers, UUIDs,
ISO 8601 timestamps, booleans, lists of strings, ISO-3 country codes. A malformed value of
such a filter was refused only after the discovery GET (``/lookup/<entity>``): a fresh client
sent a request before naming the argument (README: "before any request"). It is now refused
before that read, the same way on every call, whether the client holds the service's
document or not, and whether the service is reachable or not; a service whose document types
a documented filter otherwise (``founded_min`` a date) is warned of, and the interface
document's type is kept, in ``dealframe pull`` too.

What only the service knows is read from its discovery document, as before: filter names
beyond the document's, operators, enum values outside the document's lists (they grow).
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _cli import pull
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    data_null,
    edit,
    fresh,
    fresh_rules,
    html,
    no_hang,
    outcome,
    proxy,
)

import dealframe
from dealframe.errors import ValidationError
from dealframe.private.filters import EnumValueError

P = "/api/private/v1"
LOOKUP = f"^{P}/lookup/"
DEALS = f"^{P}/transactions$"
COMPANIES = f"^{P}/companies$"

#: (call on ``client.private``, the argument the error names). Every value is malformed for
#: the type the interface document gives the filter.
BAD: list[tuple[Callable[[Any], Any], str]] = [
    (lambda p: p.deals(date_from="2024-13-01"), "date_from"),
    (lambda p: p.deals(date_to="yesterday"), "date_to"),
    (lambda p: p.deals(date_from="2024-02-01", date_to=dt.date(2023, 1, 1)), "date_from"),
    (lambda p: p.deals(valuation_min="abc"), "valuation_min"),
    (lambda p: p.deals(ev_revenue_max=True), "ev_revenue_max"),
    (lambda p: p.deals(raised_min=float("nan")), "raised_min"),
    (lambda p: p.deals(target_id=["not-a-uuid"]), "target_id[0]"),
    (lambda p: p.deals(investor_id="1234"), "investor_id[0]"),
    (lambda p: p.deals(target_country=["usa"]), "target_country[0]"),
    (lambda p: p.deals(deal_type=[3]), "deal_type[0]"),
    (lambda p: p.deals(target_region=[]), "target_region"),
    (lambda p: p.deals(updated_at="last tuesday"), "updated_at"),
    (lambda p: p.deals(filters={"include_deleted": "yes"}), "include_deleted"),
    (lambda p: p.deals(filters={"date_from": {"gte": "2024-1-1"}}), "date_from"),
    (lambda p: p.companies(country=["us"]), "country[0]"),
    (lambda p: p.companies(founded_min="1999"), "founded_min"),
    (lambda p: p.companies(founded_min=2020, founded_max=np.int64(2000)), "founded_min"),
    (lambda p: p.companies(ipoed_from="2024-02-30"), "ipoed_from"),
    (lambda p: p.companies(filters={"active": "true"}), "active"),
    (lambda p: p.companies(id=["x"]), "id[0]"),
    (lambda p: p.companies(name="  "), "name"),
    (lambda p: p.companies(verticals=[""]), "verticals[0]"),
    (lambda p: p.investors(country=["gbr"]), "country[0]"),
    (lambda p: p.investors(updated_at=5), "updated_at"),
    (lambda p: p.aggregate("ev_revenue", "year", date_from="x"), "date_from"),
    (lambda p: p.aggregate("ev_revenue", "year", target_country=["fr"]), "target_country[0]"),
    (lambda p: p.aggregate("ev_ebitda", filters={"ev_ebitda_min": "8"}), "ev_ebitda_min"),
    (lambda p: p.page("transactions", {"updated_at": "garbage"}), "updated_at"),
    (lambda p: p.page("companies", {"founded_max": "abc"}), "founded_max"),
    (lambda p: p.page("investors", {"country": ["xx"]}), "country[0]"),
    # the audit's fresh-client cases (each sent the discovery GET first)
    (lambda p: p.deals(date_from="2023-02-30"), "date_from"),
    (lambda p: p.deals(deal_type=[1]), "deal_type[0]"),
    (lambda p: p.deals(valuation_min=float("nan")), "valuation_min"),
    (lambda p: p.deals(id=["x"]), "id[0]"),
    (lambda p: p.companies(name=""), "name"),
    (lambda p: p.aggregate("ev_revenue", date_from="x"), "date_from"),
    # 10000-01-01T23:58:59+00:00 in UTC, as it would be sent: refused, not sent
    (lambda p: p.deals(updated_at="9999-12-31T23:59:59-23:59"), "updated_at"),
    (lambda p: p.investors(updated_at="0001-01-01T00:00:00+23:59"), "updated_at"),
]
IDS = [f"{i}-{argument}" for i, (_, argument) in enumerate(BAD)]


@pytest.fixture(scope="module")
def unreachable() -> Iterator[dealframe.Client]:
    """A client of a closed port: any request it sent would be a TransportError."""
    with dealframe.Client(
        "http://127.0.0.1:9", "p", "k", retries=0, cache_enabled=False, progress=False
    ) as client:
        yield client


@pytest.mark.parametrize(("call", "argument"), BAD, ids=IDS)
def test_a_malformed_documented_filter_is_refused_without_the_service(unreachable, call, argument):
    """Refused naming the filter, not a TransportError for the discovery GET it sent first."""
    with pytest.raises(ValidationError) as caught:
        call(unreachable.private)
    assert caught.value.argument == argument, str(caught.value)


@pytest.mark.parametrize(("call", "argument"), BAD, ids=IDS)
def test_a_malformed_documented_filter_sends_nothing(fresh, proxy, call, argument):
    """A client that has read no discovery document yet is refused naming the filter before
    it reads one: it used to send the discovery GET first."""
    with pytest.raises(ValidationError) as caught:
        call(fresh.private)
    assert caught.value.argument == argument, str(caught.value)
    assert proxy.count() == 0, proxy.seen


@pytest.mark.parametrize(
    ("key", "action", "error"),
    [
        ("wrong-key", None, "AuthenticationError"),
        (None, html(503), "ServerError"),
        (None, data_null(), "ServiceContractError"),
    ],
    ids=["wrong-key", "gateway-503", "no-document"],
)
def test_a_malformed_documented_filter_is_named_when_the_discovery_read_fails(
    sandbox, proxy, key, action, error
):
    """The discovery read would fail (a wrong key, a failing gateway, an answer that is no
    discovery document): the typo is named as the interface document types it, with nothing
    chained and nothing sent; a well-formed value gets the read's own error."""
    if action is not None:
        proxy.add(LOOKUP, action)
    with dealframe.Client(
        proxy.url, sandbox.public_token, key or sandbox.private_key, cache_enabled=False, **FAST
    ) as client:
        bad = outcome(lambda: client.private.companies(founded_min="1999"))
        assert proxy.count() == 0, proxy.seen
        good = outcome(lambda: client.private.companies(founded_min=1999))
    assert type(bad.error) is ValidationError, repr(bad.error)
    assert bad.error.argument == "founded_min" and "a finite number" in str(bad.error)
    assert bad.error.__cause__ is None and bad.error.__context__ is None
    assert type(good.error).__name__ == error, repr(good.error)
    assert proxy.count(LOOKUP) >= 1 and proxy.count(COMPANIES) == 0


@pytest.mark.parametrize("deadline", ["x", float("nan"), float("inf"), True, [1.0]])
def test_schema_refuses_a_deadline_that_is_not_seconds(fresh, proxy, deadline):
    """``schema(entity, deadline="x")`` raised a bare TypeError from the transport's clock."""
    with pytest.raises(ValidationError) as caught:
        fresh.private.schema("companies", deadline=deadline)
    assert caught.value.argument == "deadline" and "finite number of seconds" in str(caught.value)
    assert proxy.count() == 0


# ---------------------------------------------------------- what the service's document decides


def discovery(change: Callable[[list[dict[str, Any]]], None]) -> Action:
    """The discovery document's ``filters`` rewritten by ``change`` (in place)."""

    def apply(doc: Any) -> Any:
        change(doc["data"]["filters"])
        return doc

    return edit(apply, "discovery filters")


def entry(filters: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(f for f in filters if f["field"] == name)


def rewrite_filters(change: Callable[[dict[str, Any]], None]) -> Action:
    """The list body's ``filters`` rewritten before the sandbox reads it (a service that
    takes what the sandbox does not: the test is about what the client sends)."""

    def apply(ex: Exchange) -> None:
        if isinstance(ex.body, dict) and isinstance(ex.body.get("filters"), dict):
            change(ex.body["filters"])
            ex.set_param("filters", ex.body["filters"])

    return Action("rewrite filters", on_request=apply)


def test_an_enum_value_the_service_added_is_sent(fresh, proxy):
    """A deal type outside the document's list is not refused offline: the service's list
    has it (lists grow), so the deals are asked for."""
    proxy.add(
        f"{LOOKUP}transactions$",
        discovery(lambda fs: entry(fs, "deal_type")["values"].append("Mega round")),
    )
    sent: list[Any] = []
    proxy.add(DEALS, rewrite_filters(lambda f: sent.append(f.pop("deal_type"))))
    o = outcome(lambda: fresh.private.deals(deal_type=["Mega round"], limit=5))
    assert o.error is None, repr(o.error)
    assert sent == [["Mega round"]]
    assert proxy.count(LOOKUP) == 1


def test_an_enum_value_no_list_has_is_refused_after_reading_the_list_again(fresh, proxy):
    """Outside the document's and the service's lists: refused naming the filter after the
    discovery document (and its one re-read), with no list request, as before."""
    o = outcome(lambda: fresh.private.deals(deal_type=["Mega round"]))
    assert isinstance(o.error, EnumValueError) and o.error.argument == "deal_type"
    assert proxy.count(LOOKUP) == 2 and proxy.count(DEALS) == 0


def test_a_filter_the_service_adds_is_checked_by_its_document(fresh, proxy):
    """A filter beyond the document's is not refused offline; the service's document types
    it, and a malformed documented filter beside it is refused before any request, the
    discovery read included."""
    proxy.add(
        f"{LOOKUP}companies$",
        discovery(
            lambda fs: fs.append({"field": "employees_min", "type": "number", "operators": ["gte"]})
        ),
    )
    sent: list[Any] = []
    proxy.add(COMPANIES, rewrite_filters(lambda f: sent.append(f.pop("employees_min"))))
    bad = outcome(lambda: fresh.private.companies(filters={"employees_min": 50, "country": "gb"}))
    assert isinstance(bad.error, ValidationError) and bad.error.argument == "country[0]"
    assert proxy.count() == 0, proxy.seen
    wrong = outcome(lambda: fresh.private.companies(filters={"employees_min": "many"}))
    assert isinstance(wrong.error, ValidationError) and wrong.error.argument == "employees_min"
    assert proxy.count(LOOKUP) == 1 and proxy.count(COMPANIES) == 0
    o = outcome(lambda: fresh.private.companies(filters={"employees_min": 50}, limit=5))
    assert o.error is None, repr(o.error)
    assert sent == [50]


def test_a_documented_filter_the_service_lacks_is_refused_by_its_document(fresh, proxy):
    proxy.add(
        f"{LOOKUP}transactions$",
        discovery(lambda fs: fs.remove(entry(fs, "ev_ebitda_min"))),
    )
    o = outcome(lambda: fresh.private.deals(ev_ebitda_min=3))
    assert isinstance(o.error, ValidationError) and o.error.argument == "ev_ebitda_min"
    assert "a transactions filter" in str(o.error)
    assert proxy.count(LOOKUP) == 1 and proxy.count(DEALS) == 0


def as_date(filters: list[dict[str, Any]]) -> None:
    """A service typing ``founded_min`` as a date (the interface document: a number)."""
    entry(filters, "founded_min")["type"] = "date"


def test_the_interface_documents_type_rules_on_every_call(fresh, proxy):
    """A service typing ``founded_min`` as a date (the interface document: a number): the
    value is checked, and sent, as the interface document types it, on a fresh client's first
    call and on later ones alike; the service's other type is warned of once it is read."""
    proxy.add(f"{LOOKUP}companies$", discovery(as_date))
    sent: list[Any] = []
    proxy.add(COMPANIES, rewrite_filters(lambda f: sent.append(f.pop("founded_min"))))
    early = outcome(lambda: fresh.private.companies(founded_min="2000-01-01", limit=5))
    assert isinstance(early.error, ValidationError) and early.error.argument == "founded_min"
    assert "a finite number" in str(early.error)
    assert proxy.count() == 0, proxy.seen
    number = outcome(lambda: fresh.private.companies(founded_min=2000, limit=5))
    assert number.error is None, repr(number.error)
    assert any("types founded_min as 'date'" in m for m in number.warned(Warning)), number.caught
    later = outcome(lambda: fresh.private.companies(founded_min=dt.date(2000, 1, 1), limit=5))
    assert isinstance(later.error, ValidationError) and later.error.argument == "founded_min"
    assert sent == [2000]
    assert proxy.count(LOOKUP) == 1 and proxy.count(COMPANIES) == 1


def test_refresh_refuses_a_malformed_value_before_reading_again(fresh, proxy):
    """``refresh=True`` reads the document again, but only for a value the interface
    document's types take: a malformed one is refused first, with nothing sent."""
    fresh.private.schema("companies")
    proxy.reset()
    o = outcome(lambda: fresh.private.companies(founded_min="2000-01-01", refresh=True))
    assert isinstance(o.error, ValidationError) and o.error.argument == "founded_min"
    assert proxy.count() == 0, proxy.seen
    ok = outcome(lambda: fresh.private.companies(founded_min=2000, limit=5, refresh=True))
    assert ok.error is None, repr(ok.error)
    assert proxy.count(LOOKUP) == 1


# ------------------------------------------------------------------------------ dealframe pull


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["deals", "--date-from", "2024-13-01"], "--date-from"),
        (["deals", "--valuation-min", "lots"], "--valuation-min"),
        (["companies", "--country", "gb"], "--country"),
        (["investors", "--updated-at", "soon"], "--updated-at"),
    ],
)
def test_pull_refuses_a_malformed_documented_filter_before_connecting(
    args, flag, tmp_path, capsys, monkeypatch
):
    """Against a service (no ``--sandbox``), the value was checked only after the discovery
    GET: an unreachable service made the typo a connection error, exit status 1."""
    from dealframe.cli import main

    monkeypatch.setenv("DEALFRAME_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", "p")
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", "k")
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    try:
        code = main(["pull", *args, "-o", str(tmp_path / "out.csv")])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"invalid {flag}: " in err and "connection" not in err, err
    assert not list(tmp_path.iterdir())


def test_pull_keeps_the_interface_documents_type(sandbox, proxy, tmp_path, capsys, monkeypatch):
    """``--founded-min 2000-01-01`` against a service typing ``founded_min`` as a date is
    refused before any request (exit 2, the flag named), as in the Python API; a number is
    sent as one."""
    proxy.add(f"{LOOKUP}companies$", discovery(as_date))
    sent: list[Any] = []
    proxy.add(COMPANIES, rewrite_filters(lambda f: sent.append(f.pop("founded_min"))))
    wrong = ["companies", "--founded-min", "2000-01-01", "-o", str(tmp_path / "d.csv")]
    code, err = pull(wrong, proxy.url, sandbox.private_key, capsys, monkeypatch)
    assert code == 2 and "invalid --founded-min: expected a number" in err, err
    assert proxy.count() == 0, proxy.seen
    out = tmp_path / "c.csv"
    argv = ["companies", "--founded-min", "2000", "--limit", "3", "-o", str(out)]
    code, err = pull(argv, proxy.url, sandbox.private_key, capsys, monkeypatch)
    assert code == 0, err
    assert sent == [2000] and out.exists()


def test_pull_names_a_malformed_flag_when_the_key_is_wrong(
    sandbox, proxy, tmp_path, capsys, monkeypatch
):
    """With a wrong key the discovery read would be refused (401): the flag is named (exit
    2), not the key, and nothing is sent."""
    argv = ["deals", "--date-from", "2024-13-01", "-o", str(tmp_path / "d.csv")]
    code, err = pull(argv, proxy.url, "wrong-key", capsys, monkeypatch)
    assert code == 2 and "invalid --date-from: " in err and "401" not in err, err
    assert proxy.count() == 0, proxy.seen
    assert not list(tmp_path.iterdir())
