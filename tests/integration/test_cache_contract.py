"""The HTTP cache and the contract checks (issue 12: the cache "never stores a body that does
not validate, and never answers with one"), over real HTTP through the drift proxy.

The proxy spoils one answer; the service is healthy afterwards. The call that met the bad
answer warns (or raises); the next call asks the service again and gets the good answer, which
is then cached. Before, a ``{data, meta}`` document that the checks found wrong (``data``
null, items that are not objects, rows missing against ``meta``, rows without their id) was
stored and answered from the cache, with the same warning, until it expired.
"""

from __future__ import annotations

import re
import sqlite3
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    assert_same,
    data_null,
    direct,
    drop_field,
    drop_rows,
    edit,
    fresh_rules,
    html,
    no_hang,
    non_objects,
    outcome,
    proxy,
    set_field,
)

from dealframe import Client
from dealframe.errors import IncompleteResultError, ServiceContractError, ValidationError
from dealframe.notices import DealframeWarning, ServiceContractWarning
from dealframe.transport import cache

HANG_LIMIT = 60
P = "/api/private/v1"
DEALS = f"^{P}/transactions$"
LOOKUP = f"^{P}/lookup/transactions$"
PROFILE = f"^{P}/transactions/[0-9a-f-]+$"
FUNDINGS = f"^{P}/companies/[0-9a-f-]+/fundings$"
SMALL = {"deal_type": ["Secondary"]}  # one page


@pytest.fixture
def cache_file(tmp_path: Path) -> Path:
    return tmp_path / "http-cache.sqlite"


def cached_client(sandbox: Any, proxy: Any, path: Path, **settings: Any) -> Client:
    return Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=True,
        cache_path=path,
        **{**FAST, **settings},
    )


@pytest.fixture(scope="module")
def ids(direct: Any) -> dict[str, Any]:
    """A few deal ids, a company with fundings and two SKUs, read from the sandbox itself."""
    deals = direct.private.deals()
    targets = deals["target_id"].value_counts()
    skus = direct.public.search().index.tolist()[:2]
    return {"deals": list(deals["id"][:3]), "company": targets.index[0], "skus": skus}


# what the proxy spoils once, and the call that meets it
CASES: dict[str, tuple[str, Action, dict[str, Any], Callable[[Client, dict[str, Any]], Any]]] = {
    "deals page with data null": (
        DEALS,
        data_null(),
        {"page": 1},
        lambda c, _: c.private.deals(**SMALL),
    ),
    "deals page with items that are not objects": (
        DEALS,
        non_objects(("x",) * 3),
        {"page": 1},
        lambda c, _: c.private.deals(**SMALL),
    ),
    "deals page with rows without their id": (  # only the call's checks can tell
        DEALS,
        drop_field("id", first=2),
        {"page": 1},
        lambda c, _: c.private.deals(**SMALL),
    ),
    "later page of a walk on worker threads, rows without their id": (
        DEALS,
        drop_field("id", first=2),
        {"page": 2},
        lambda c, _: c.private.deals(),
    ),
    "search with data null": (
        "^/api/v2/companies$",
        data_null(),
        {},
        lambda c, _: c.public.search(regions=["Western Europe"]),
    ),
    "current with data null": (
        "^/api/v2/companies/current$",
        data_null(),
        {},
        lambda c, x: c.public.current(x["skus"]),
    ),
    "fundings with data null": (
        FUNDINGS,
        data_null(),
        {},
        lambda c, x: c.private.fundings(x["company"]),
    ),
    "fundings cut by two rows": (
        FUNDINGS,
        drop_rows(2),
        {},
        lambda c, x: c.private.fundings(x["company"]),
    ),
    "a deal profile with data null": (
        PROFILE,
        edit(lambda doc: {"data": None}, "profile_null"),
        {},
        lambda c, x: c.private.deal(x["deals"]),
    ),
    "groups/current of a group of companies with no field": (
        "^/api/v2/groups/current$",
        edit(lambda doc: {**doc, "data": {}}, "no_fields"),
        {},
        lambda c, _: c.public.group_current(regions=["North America"]),
    ),
    "aggregate with data null": (
        f"^{P}/transactions/aggregate$",
        data_null(),
        {},
        lambda c, _: c.private.aggregate("ev_revenue", "year"),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_an_answer_the_checks_found_wrong_is_not_answered_from_the_cache(
    case, sandbox, proxy, direct, ids, cache_file
):
    path, action, where, call = CASES[case]
    ref = call(direct, ids)
    proxy.add(path, action, times=1, **where)
    with cached_client(sandbox, proxy, cache_file) as client:
        first = outcome(lambda: call(client, ids))
        assert first.error is None, repr(first.error)
        assert first.warned(ServiceContractWarning), case  # the call said what was wrong
        asked = proxy.count(path)
        second = outcome(lambda: call(client, ids))
        assert second.error is None and not second.warned(ServiceContractWarning), (
            second.error,
            second.warned(ServiceContractWarning),
        )
        assert_same(second.value, ref)
        assert proxy.count(path) > asked  # asked again, not answered from the cache
        assert second.value.attrs["from_cache"] is not True
    asked = proxy.count(path)
    with cached_client(sandbox, proxy, cache_file) as fresh:  # the good answer was stored
        third = outcome(lambda: call(fresh, ids))
    assert third.error is None and not third.warned(ServiceContractWarning)
    assert_same(third.value, ref)
    assert third.value.attrs["from_cache"] is True and proxy.count(path) == asked


def test_strict_findings_drop_the_entries_too(sandbox, proxy, direct, cache_file):
    """Raised under ``strict=True`` instead of warned of: the same, the next call asks again."""
    ref = direct.private.deals(**SMALL)
    proxy.add(DEALS, drop_field("id", first=2), times=1)
    with cached_client(sandbox, proxy, cache_file) as client:
        first = outcome(lambda: client.private.deals(**SMALL, strict=True))
        assert isinstance(first.error, ServiceContractError), repr(first.error)
        second = outcome(lambda: client.private.deals(**SMALL, strict=True))
    assert second.error is None, repr(second.error)
    assert_same(second.value, ref)
    assert second.value.attrs["from_cache"] is not True and proxy.count(DEALS) == 2


def test_a_clean_call_after_a_wrong_one_keeps_its_own_entries(sandbox, proxy, direct, cache_file):
    """Only the entries of the call whose checks failed go: a clean call made after it is
    answered from the cache the next time."""
    proxy.add("^/api/v2/companies$", data_null(), times=1)
    with cached_client(sandbox, proxy, cache_file) as client:
        assert outcome(lambda: client.public.search()).warned(ServiceContractWarning)
        clean = outcome(lambda: client.private.deals(**SMALL))
        assert clean.error is None and not clean.warned(ServiceContractWarning)
        assert outcome(lambda: client.public.search()).value.attrs["from_cache"] is False
        again = outcome(lambda: client.private.deals(**SMALL))
    assert again.value.attrs["from_cache"] is True and proxy.count(DEALS) == 1


def test_a_finding_of_how_the_service_always_answers_keeps_the_entries(sandbox, proxy, cache_file):
    """A null ``deal_date`` (``null_field``) is how such a service answers every time, not an
    answer gone wrong: asking again would get the same, so the call stays cached (dropping
    it would leave such a service's calls never cached)."""
    proxy.add(DEALS, set_field("deal_date", None, first=2))
    with cached_client(sandbox, proxy, cache_file) as client:
        first = outcome(lambda: client.private.deals(**SMALL))
        assert first.error is None and first.warned(ServiceContractWarning)
        assert {f["kind"] for f in first.value.attrs["findings"]} == {"null_field"}
        again = outcome(lambda: client.private.deals(**SMALL))
    assert again.value.attrs["from_cache"] is True and proxy.count(DEALS) == 1


def test_a_threads_first_call_made_all_on_the_workers_drops_its_wrong_entries(
    sandbox, proxy, direct, ids, cache_file
):
    """The call's requests all ran on the worker threads (profiles of three ids) and it was
    the first call of its thread: where its entries began was not known, so a profile of
    another deal (``wrong_entity``) stayed cached and was answered again."""
    mine = ids["deals"]
    profile = f"^{P}/transactions/{mine[1]}$"
    proxy.add(
        profile, edit(lambda d: {**d, "data": {**d["data"], "id": mine[0]}}, "other"), times=1
    )
    box: dict[str, Any] = {}
    with cached_client(sandbox, proxy, cache_file) as client:

        def first_call() -> None:  # on a thread that has made no call before
            box["first"] = outcome(lambda: client.private.deal(mine))

        thread = threading.Thread(target=first_call)
        thread.start()
        thread.join(HANG_LIMIT)
        assert box["first"].warned(ServiceContractWarning)
        asked = proxy.count(profile)
        second = outcome(lambda: client.private.deal(mine))
    assert second.error is None and not second.warned(ServiceContractWarning)
    assert proxy.count(profile) > asked  # asked again, not answered from the cache


def test_a_call_raising_before_its_checks_report_drops_its_wrong_entries(
    sandbox, proxy, direct, cache_file
):
    """Page 2 lacked ids (a finding) and page 3 failed, so the call raised before its checks
    reported: page 2 stayed cached and the next call read its rows without ids again."""
    proxy.add(DEALS, drop_field("id", first=5), page=2, times=1)
    proxy.add(DEALS, html(502), page=3, times=2)
    with cached_client(sandbox, proxy, cache_file, max_workers=1, retries=1) as client:
        first = outcome(lambda: client.private.deals())
        assert isinstance(first.error, IncompleteResultError), repr(first.error)
        before = len(proxy.pages(DEALS))
        second = outcome(lambda: client.private.deals())
    assert second.error is None and not second.warned(ServiceContractWarning)
    assert 2 in proxy.pages(DEALS)[before:]  # the spoiled page was asked for again
    assert_same(second.value, direct.private.deals())


def test_an_answer_of_the_wrong_shape_is_not_answered_from_the_cache(
    sandbox, proxy, direct, cache_file
):
    """A timestamp written as a number: the call raises ServiceContractError (``shaping``);
    the next call asked nothing and raised the same from the cache."""
    proxy.add(DEALS, set_field("created_at", 1642190107, first=1), times=1)
    with cached_client(sandbox, proxy, cache_file) as client:
        first = outcome(lambda: client.private.deals(**SMALL))
        assert isinstance(first.error, ServiceContractError), repr(first.error)
        asked = proxy.count(DEALS)
        second = outcome(lambda: client.private.deals(**SMALL))
    assert second.error is None, repr(second.error)
    assert proxy.count(DEALS) > asked
    assert_same(second.value, direct.private.deals(**SMALL))


# --------------------------------------------------------------- a discovery document that is not one

BAD_LOOKUP = {
    "data null": (data_null(), "data is NoneType"),
    "data without filters": (edit(lambda doc: {**doc, "data": {}}, "no_filters"), "missing"),
    "filters null": (
        edit(lambda doc: {**doc, "data": {**doc["data"], "filters": None}}, "filters_null"),
        "data.filters is NoneType",
    ),
}


@pytest.mark.parametrize("bad", BAD_LOOKUP)
def test_a_discovery_document_without_filters_is_the_services_fault_and_not_kept(
    bad, sandbox, proxy, direct, cache_file
):
    """It was read as "no filters", so ``deal_type=`` was refused as the caller's mistake
    (``ValidationError``, "valid: " empty); the client kept the document, and the HTTP cache
    for a day."""
    action, said = BAD_LOOKUP[bad]
    ref = direct.private.deals(**SMALL)
    proxy.add(LOOKUP, action, times=1)
    with cached_client(sandbox, proxy, cache_file) as client:
        first = outcome(lambda: client.private.deals(**SMALL))
        assert isinstance(first.error, ServiceContractError), repr(first.error)
        assert not isinstance(first.error, ValidationError)
        assert "lookup/transactions" in str(first.error) and said in str(first.error)
        assert proxy.count(DEALS) == 0  # nothing else was sent
        second = outcome(lambda: client.private.deals(**SMALL))  # not kept by the client
        assert second.error is None, repr(second.error)
        assert_same(second.value, ref)
        assert proxy.count(LOOKUP) == 2
    with cached_client(sandbox, proxy, cache_file) as fresh:  # the good one is cached
        assert_same(fresh.private.deals(**SMALL), ref)
    assert proxy.count(LOOKUP) == 2


# ------------------------------------------------------------------ a locked file and call_budget


@pytest.fixture
def locked_later(cache_file: Path) -> Iterator[Callable[[], None]]:
    """``lock()`` makes another connection hold the cache file in ``BEGIN EXCLUSIVE`` (as a
    ``sqlite3`` shell left in a transaction would) until the test ends."""
    held: list[sqlite3.Connection] = []

    def lock() -> None:
        other = sqlite3.connect(cache_file, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        held.append(other)

    yield lock
    for other in held:
        other.rollback()
        other.close()


def test_a_store_waiting_for_the_lock_leaves_the_call_its_budget(
    sandbox, proxy, direct, cache_file, locked_later, monkeypatch
):
    """The discovery document's store waited for the lock all the time the call had left
    (``call_budget=2``), so the list request after it failed with "call budget exhausted".
    It waits a quarter of the time left at most: the answer comes back, uncached."""
    monkeypatch.setattr(cache, "LOCK_WAIT", 20.0)
    ref = direct.private.deals(**SMALL)
    with cached_client(sandbox, proxy, cache_file, call_budget=2.0) as client:
        locked_later()  # after opening: the discovery document and the list are misses
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = outcome(lambda: client.private.deals(**SMALL))
    assert got.error is None, repr(got.error)  # not "call budget exhausted"
    assert_same(got.value, ref)
    assert got.value.attrs["from_cache"] is False
    said = [str(w.message) for w in seen if issubclass(w.category, DealframeWarning)]
    said += got.warned(DealframeWarning)
    assert said and all("a quarter of the time the call had left" in s for s in said), said
    # the wait each store chose (its message says it): a quarter of the 2 s at most, not the
    # LOCK_WAIT of 20 s
    waits = [float(w) for s in said for w in re.findall(r"for more than ([0-9.e+-]+) s", s)]
    assert len(waits) == len(said) and all(w <= 2.0 / 4 for w in waits), said
