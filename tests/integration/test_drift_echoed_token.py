"""A service that echoes the caller's token back, where no finding quotes it, over HTTP.

The findings and the error bodies blanked a token the service echoed back, but an error raised
outside a finding did not: a ``ServiceContractError`` quoting the discovery document's sort keys
(the mirror's change feed) or an aggregate's ``meta.methodology`` (``reconcile``) carried the
token in its message, its repr, its ``args`` and its attributes, and the aggregate frame kept it
in ``attrs["methodology"]``. A token echoed as the member name of a list item became a column
of the frame. Each test puts the drift proxy between a client holding a secret of its own
(mapped to the sandbox's key by the proxy) and the sandbox, makes the service echo that secret,
and looks for it in everything the call leaves: the error and its cause chain, the warnings,
every log record at DEBUG, the frame's columns and ``attrs``.
"""

from __future__ import annotations

import logging
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dealframe import mirror
from dealframe.analytics import reconcile
from dealframe.client import Client
from dealframe.errors import DealframeError, ServiceContractError

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    Outcome,
    edit,
    fresh_rules,
    items_edit,
    meta_set,
    no_hang,
    outcome,
    proxy,
)

HANG_LIMIT = 60
AGGREGATE = r"/transactions/aggregate$"
#: The client's own private key: the proxy forwards the sandbox's in its place.
SECRET = "sk_echo_" + secrets.token_hex(16)


@pytest.fixture()
def client(sandbox: Any, proxy: Any) -> Iterator[Client]:
    proxy.auth_map[SECRET] = sandbox.private_key
    with Client(proxy.url, sandbox.public_token, SECRET, cache_enabled=False, **FAST) as c:
        yield c


def _chain(exc: BaseException | None) -> list[BaseException]:
    out: list[BaseException] = []
    todo = [exc] if exc is not None else []
    while todo:
        e = todo.pop()
        if any(e is seen for seen in out):
            continue
        out.append(e)
        todo += [x for x in (e.__cause__, e.__context__) if x is not None]
        todo += [x for x in (getattr(e, "errors", None) or []) if isinstance(x, BaseException)]
    return out


def _texts(got: Outcome, caplog: pytest.LogCaptureFixture) -> list[str]:
    """Everything the call left that a user or a log could show."""
    texts = [str(w.message) for w in got.caught]
    for e in _chain(got.error):
        texts += [str(e), repr(e), repr(e.args), repr(getattr(e, "__dict__", {}))]
    for record in caplog.records:
        texts += [record.getMessage(), repr(record.args), repr(record.__dict__)]
    texts.append(caplog.text)
    if isinstance(got.value, pd.DataFrame):
        texts += [repr(list(got.value.columns)), repr(got.value.attrs)]
    return texts


def _assert_nowhere(got: Outcome, caplog: pytest.LogCaptureFixture) -> None:
    leaks = [t[:300] for t in _texts(got, caplog) if SECRET in t]
    assert not leaks, leaks


def _echo_methodology(ex: Exchange) -> None:
    doc = ex.doc()
    doc["meta"]["methodology"]["date_range"]["from"] = SECRET
    ex.set_doc(doc)


def test_a_token_echoed_into_the_aggregate_methodology_is_blanked(client, proxy, caplog):
    """``reconcile`` raises a ``ServiceContractError`` quoting ``meta.methodology`` (not a
    finding): it said the token; the aggregate frame kept it in ``attrs``."""
    proxy.add(AGGREGATE, Action("echo", on_response=_echo_methodology))
    with caplog.at_level(logging.DEBUG):
        got = outcome(lambda: reconcile(client, "ev_revenue", "year"))
    assert isinstance(got.error, ServiceContractError), got.error
    assert "meta.methodology.date_range.from is '***'" in str(got.error)
    _assert_nowhere(got, caplog)

    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        frame = outcome(lambda: client.private.aggregate("ev_revenue", "year"))
    assert frame.error is None, frame.error
    assert frame.value.attrs["methodology"]["date_range"]["from"] == "***"
    _assert_nowhere(frame, caplog)


def _echo_sort_key(ex: Exchange) -> None:
    doc = ex.doc()
    keys = [k for k in doc["data"]["sort_fields"] if k != "updated_at"]
    doc["data"]["sort_fields"] = [SECRET, *keys]
    ex.set_doc(doc)


def test_a_token_echoed_into_the_discovery_sort_keys_is_blanked(client, proxy, tmp_path, caplog):
    """The mirror's ``sort_unlisted`` error quotes the discovery document's sort keys: a key
    holding the token was in its message, repr and ``args``."""
    proxy.add(r"/lookup/transactions$", Action("echo", on_response=_echo_sort_key))
    with caplog.at_level(logging.DEBUG):
        got = outcome(lambda: mirror.sync(client, tmp_path / "m", ["transactions"]))
    assert isinstance(got.error, ServiceContractError), got.error
    assert got.error.finding == "sort_unlisted"
    assert "a sort key among ***, deal_date" in str(got.error)
    _assert_nowhere(got, caplog)


def test_another_clients_short_token_leaves_the_error_alone(sandbox, client, proxy, tmp_path):
    """Only the tokens of the client whose call raised are blanked: another client open
    meanwhile, whose token is a word of the message, leaves it whole."""
    proxy.add(r"/lookup/transactions$", Action("echo", on_response=_echo_sort_key))
    proxy.auth_map["deal_date"] = sandbox.private_key
    with Client(proxy.url, sandbox.public_token, "deal_date", cache_enabled=False, **FAST):
        got = outcome(lambda: mirror.sync(client, tmp_path / "m", ["transactions"]))
    assert isinstance(got.error, ServiceContractError), got.error
    assert "a sort key among ***, deal_date, " in str(got.error)


def _token_member(doc: Any) -> Any:
    for item in doc.get("data") or []:
        if isinstance(item, dict):
            item[SECRET] = "echoed"
    return doc


@pytest.mark.parametrize(
    ("path", "call"),
    [
        (r"/transactions$", lambda c: c.private.deals(limit=5)),
        (r"/companies$", lambda c: c.private.companies(limit=5)),
        (AGGREGATE, lambda c: c.private.aggregate("ev_revenue", "year")),
    ],
    ids=["deals", "companies", "aggregate"],
)
def test_a_token_echoed_as_a_member_name_names_no_column(client, proxy, caplog, path, call):
    """A member named by the token was kept as a column of that name; it is now left out,
    and a finding (``echoed_token``) says so with the name blanked."""
    proxy.add(path, edit(_token_member))
    with caplog.at_level(logging.DEBUG):
        got = outcome(lambda: call(client))
    assert got.error is None, got.error
    assert "echoed" not in got.value.astype(str).to_numpy().ravel().tolist()
    kinds = [f["kind"] for f in got.value.attrs["findings"]]
    assert "echoed_token" in kinds
    assert any("hold the client's token (***)" in m for m in got.warned(Warning))
    _assert_nowhere(got, caplog)


@pytest.mark.parametrize("key", ["name", "id", "country"])
def test_a_token_spelt_like_a_documented_member_keeps_that_column_quietly(sandbox, proxy, key):
    """A key that happens to be the name of a documented member (a test key, a short one):
    that member is the service's own, its column is kept and nothing is said. The check
    looked at every member, so every list call warned of an ``echoed_token`` it had not
    left out, and a ``strict=True`` call failed."""
    proxy.auth_map[key] = sandbox.private_key
    with Client(proxy.url, sandbox.public_token, key, cache_enabled=False, **FAST) as c:
        got = outcome(lambda: c.private.companies(limit=5, strict=True))
    assert got.error is None, got.error
    assert key in got.value.columns and got.value[key].notna().any()
    assert "echoed_token" not in [f["kind"] for f in got.value.attrs["findings"]]
    assert not got.warned(Warning)


#: The client's own public token, mapped by the proxy to the sandbox's (Family A).
PUBLIC_SECRET = "pk_echo_" + secrets.token_hex(16)


def _series_value(item: dict[str, Any]) -> None:
    for series in item["data"].values():
        series["2023-01"] = "x" + PUBLIC_SECRET


def _group_median(doc: Any) -> Any:
    for period in doc["data"]:
        period["median"] = {name: "x" + PUBLIC_SECRET for name in period["median"]}
    return doc


def _group_sum(doc: Any) -> Any:
    doc["data"]["sum"] = {name: "x" + PUBLIC_SECRET for name in doc["data"]["sum"]}
    return doc


@pytest.mark.parametrize(
    ("path", "action", "call"),
    [
        (
            r"/api/private/v1/companies$",
            items_edit(lambda it: it.update(founded="x" + SECRET)),
            lambda c, skus: c.private.companies(limit=5),
        ),
        (
            r"/api/private/v1/transactions$",
            items_edit(lambda it: it.update(deal_date="x" + SECRET)),
            lambda c, skus: c.private.deals(limit=5),
        ),
        (
            r"/api/v2/companies/current$",
            items_edit(lambda it: it.update(marketCap="x" + PUBLIC_SECRET)),
            lambda c, skus: c.public.current(skus),
        ),
        (
            r"/api/v2/companies/time-series$",
            items_edit(_series_value),
            lambda c, skus: c.public.time_series(skus, fields=["evRevenueLtm"]),
        ),
        (
            r"/api/v1/groups/time-series$",
            edit(_group_median),
            lambda c, skus: c.public.group_time_series(countries=["GBR"], fields=["evRevenueLtm"]),
        ),
        (
            r"/api/v2/groups/current$",
            edit(_group_sum),
            lambda c, skus: c.public.group_current(countries=["GBR"]),
        ),
    ],
    ids=["companies", "deals", "current", "time_series", "group_time_series", "group_current"],
)
def test_no_token_on_the_chain_of_a_value_that_cannot_be_read(
    sandbox, proxy, caplog, path, action, call
):
    """A value the readers cannot read, holding the token the service echoed: the message
    blanked it, but the reader's ``ValidationError`` (raised ``from None``, which only hides
    the context) kept numpy's or pandas' own error in ``__context__``, quoting the value
    whole: ``exc.__context__.__context__`` was ``ValueError("could not convert string to
    float: 'x<token>'")``. The whole chain is walked, attributes included."""
    proxy.auth_map.update({SECRET: sandbox.private_key, PUBLIC_SECRET: sandbox.public_token})
    with Client(proxy.url, PUBLIC_SECRET, SECRET, cache_enabled=False, **FAST) as c:
        skus = list(c.public.search(countries=["GBR"]).index[:2])
        proxy.add(path, action)
        with caplog.at_level(logging.DEBUG):
            got = outcome(lambda: call(c, skus))
    assert isinstance(got.error, ServiceContractError), got.error
    assert "***" in str(got.error)
    chain = _chain(got.error)
    assert not [e for e in chain if not isinstance(e, DealframeError)], chain
    texts = [t for e in chain for t in (str(e), repr(e), repr(e.args), repr(vars(e)))]
    leaks = [t[:300] for t in texts if SECRET in t or PUBLIC_SECRET in t]
    assert not leaks, leaks
    _assert_nowhere(got, caplog)
    assert PUBLIC_SECRET not in "".join(_texts(got, caplog))
