"""The first page of a POST list walk is asked with the documented body, without ``page``.

The interface document shows the list body as ``{filters, sort, limit}`` and leaves the body
member ``page`` "not shown" (section 4.2). Any service answers a body without ``page`` with
its first page, however it counts pages; so the client asks for page 1 that way and sends
``page`` only from page 2 on. These tests play, over the drift proxy, a service that refuses
``page`` as an unknown body member (it used to refuse even ``companies(limit=5)``), one
that counts ``page`` from 0 (a capped call used to get the second page's rows, silently),
with and without ``meta.page`` saying how it counts, and one that counts from 1 but echoes
``meta.page`` 0 for a body without ``page`` (a Go or Java ``int`` left unset): page 1's
``meta.page`` 0 is only a hint, which the walk's page 2, asked as ``page: 1``, settles.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_mirror import direct_mirror
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    meta_delete,
    outcome,
    proxy,
    zero_indexed,
)

from dealframe import doctor, mirror
from dealframe.errors import BadRequestError, IncompleteResultError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
DEALS = f"^{P}/transactions$"
LISTS = f"^{P}/(companies|investors|transactions)$"

#: Refusals of an unknown body member ``page``, as services word them.
REFUSALS = {
    "family-a": {
        "error": {
            "code": "BAD_REQUEST",
            "message": "Invalid request",
            "details": {"errors": ["page: unknown body member"]},
        }
    },
    "detail": {"detail": "Unknown field: page"},
}


@pytest.fixture(scope="module")
def companies_ref(direct: Any) -> Any:
    frame = direct.private.companies()
    assert 1000 < len(frame) < 3000, "the tests need two pages, and not many more"
    return frame


def in_order(sent: list[int | None], alone: list[int | None], then: Iterable[int]) -> bool:
    """Whether ``sent`` is the pages ``alone``, in this order (each asked before any later
    page), then the pages ``then`` in any order (they may run ahead together)."""
    rest = [p for p in sent[len(alone) :] if p is not None]
    return (
        sent[: len(alone)] == alone
        and len(rest) == len(sent) - len(alone)
        and sorted(rest) == list(then)
    )


def refuse_page(body: dict[str, Any]) -> Action:
    """Answer 400 with ``body`` to any POST list body holding ``page`` (not forwarded)."""

    def apply(ex: Any) -> None:
        if isinstance(ex.body, dict) and "page" in ex.body:
            ex.forward, ex.status, ex._doc = False, 400, None
            ex.headers = {"Content-Type": "application/json"}
            ex.content = orjson.dumps(body)

    return Action("refuse_page", on_request=apply)


def go_zero() -> Action:
    """A service counting ``page`` from 1 that answers a body without ``page`` (its first
    page) with ``meta.page`` 0: the unset ``page`` of a Go or Java ``int``, echoed."""

    def answer(ex: Any) -> None:
        doc = ex.doc()
        if ex.page is None and isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
            doc["meta"]["page"] = 0
            ex.set_doc(doc)

    return Action("go_zero", on_response=answer)


# -------------------------------------------------------------- a service that refuses page


CALLS: dict[str, Callable[[Any], Any]] = {
    "companies(limit=5)": lambda c: c.private.companies(limit=5),
    "deals(limit=50, sort)": lambda c: c.private.deals(limit=50, sort="deal_date:desc"),
    "investors(limit=1000)": lambda c: c.private.investors(limit=1000, sort="name:asc"),
}


@pytest.mark.parametrize("refusal", list(REFUSALS))
@pytest.mark.parametrize("call", list(CALLS))
def test_a_service_refusing_page_serves_a_call_within_one_page(call, refusal, fresh, direct, proxy):
    proxy.add(LISTS, refuse_page(REFUSALS[refusal]), method="POST")
    o = outcome(lambda: CALLS[call](fresh))
    assert o.error is None, repr(o.error)
    assert_same(o.value, CALLS[call](direct))
    assert not o.warned(Warning)
    assert all(page is None for method, _, page in proxy.seen if method == "POST")


@pytest.mark.parametrize("refusal", list(REFUSALS))
def test_a_service_refusing_page_stops_a_longer_walk_with_the_rows_read(
    refusal, fresh, proxy, companies_ref
):
    """Page 2 is refused for its ``page``: the service's 400, typed, carries page 1's rows
    (docs/reliability.md: a 400 on a later page)."""
    proxy.add(COMPANIES, refuse_page(REFUSALS[refusal]), method="POST")
    with pytest.raises(BadRequestError) as caught:
        fresh.private.companies()
    error = caught.value
    assert "page" in str(error) and "stopped part-way: received 1000 of" in str(error)
    assert error.partial is not None
    assert_same(error.partial, companies_ref.iloc[:1000])
    assert proxy.sent() == [None, 2]


# --------------------------------------------------------- a service that counts page from 0


def test_a_capped_call_on_a_service_counting_from_0_gets_the_first_rows(fresh, direct, proxy):
    """``deals(limit=50, sort=...)`` fits in one page: asked without ``page``, it gets the
    first 50 rows of the order (it got rows 51-100, the second page, with no warning)."""
    proxy.add(DEALS, zero_indexed(says=False), method="POST")
    o = outcome(lambda: fresh.private.deals(limit=50, sort="deal_date:desc"))
    assert o.error is None, repr(o.error)
    assert_same(o.value, direct.private.deals(limit=50, sort="deal_date:desc"))
    assert not o.warned(Warning)
    assert proxy.sent("/transactions") == [None]


#: Calls of several pages (the session sandbox holds 1,000 to 3,000 companies and more deals):
#: uncapped, and capped by ``limit`` within a sort.
WALKS: dict[str, Callable[[Any], Any]] = {
    "companies()": lambda c: c.private.companies(),
    "companies(limit=1500, sort)": lambda c: c.private.companies(limit=1500, sort="name:asc"),
    "deals(limit=2500, sort)": lambda c: c.private.deals(limit=2500, sort="deal_date:desc"),
}


@pytest.mark.parametrize("says", [True, False], ids=["meta.page 0", "no meta.page"])
@pytest.mark.parametrize("call", list(WALKS))
def test_a_walk_on_a_service_counting_from_0_gets_exactly_the_rows(
    call, says, fresh, direct, proxy
):
    """A service counting from 0, with or without a ``meta.page`` saying so: the walk's page 2
    is asked as ``page: 1``, alone, brings rows new to page 1 and settles it, and the later
    pages are asked from ``page: 2``: exactly the rows of the sandbox itself, each page asked
    once, attrs say so, no warning. (Without ``meta.page``, a walk capped by ``limit`` used to
    return rows 2,001-2,500 of the order for rows 1,001-2,000, silently.)"""
    proxy.add(LISTS, zero_indexed(says=says), method="POST")
    o = outcome(lambda: WALKS[call](fresh))
    assert o.error is None, repr(o.error)
    want = WALKS[call](direct)
    assert_same(o.value, want, ignore_index=True)
    assert not o.warned(Warning)
    told = "said meta.page 0" if says else "said no meta.page"
    assert told in o.value.attrs["page_from_0"]
    assert "the service counts page from 0" in o.value.attrs["page_from_0"]
    path = "/transactions" if call.startswith("deals") else "/companies"
    pages = -(-len(want) // 1000)
    assert proxy.sent(path) == [None, *range(1, pages)]


def fail_explicit_page_1() -> Action:
    """A 500 for a body asking ``page: 1`` explicitly (the walk's request that settles how the
    service counts); the first page, asked without ``page``, is served."""

    def apply(ex: Any) -> None:
        if isinstance(ex.body, dict) and ex.body.get("page") == 1:
            ex.forward, ex.status, ex._doc = False, 500, None
            ex.headers = {"Content-Type": "application/json"}
            ex.content = orjson.dumps({"error": {"code": "INTERNAL_ERROR", "message": "boom"}})

    return Action("fail(page: 1)", on_request=apply)


@pytest.mark.parametrize("says", [True, False], ids=["meta.page 0", "no meta.page"])
@pytest.mark.parametrize("call", ["companies()", "deals(limit=2500, sort)"])
def test_a_failed_page_1_settles_nothing_and_is_reported(call, says, fresh, proxy):
    """The request that settles how pages count fails for good: the walk does not guess
    (from 1 would read a service counting from 0 a page ahead, silently); the call raises
    the usual IncompleteResultError, its ``.partial`` the first page, and the next call tries
    to settle again."""
    proxy.add(LISTS, fail_explicit_page_1(), method="POST")  # sees the client's own body
    proxy.add(LISTS, zero_indexed(says=says), method="POST")
    o = outcome(lambda: WALKS[call](fresh))
    assert isinstance(o.error, IncompleteResultError), repr(o.error)
    assert len(o.error.partial) == 1000
    assert not fresh.private._first_page_known


def test_a_walk_on_a_service_counting_from_0_without_meta_page_is_remembered(
    fresh, proxy, companies_ref
):
    """Once a walk has settled that pages count from 0 and its rows added up, the client's
    later walks ask from ``page: 1`` at once (nothing left to settle, nothing said again)."""
    proxy.add(COMPANIES, zero_indexed(says=False), method="POST")
    first = fresh.private.companies(strict=True)
    assert "page_from_0" in first.attrs
    proxy.seen.clear()
    again = fresh.private.companies()
    assert_same(again, companies_ref, ignore_index=True)
    assert "page_from_0" not in again.attrs
    assert proxy.sent() == [None, *range(1, -(-len(companies_ref) // 1000))]


def test_a_service_counting_from_1_with_meta_page_is_asked_no_page_twice(
    fresh, direct, proxy, companies_ref
):
    """Page 1's ``meta.page`` 1 settles how pages count: no request more than the pages."""
    o = outcome(lambda: fresh.private.companies(strict=True))
    assert_same(o.value, companies_ref, ignore_index=True)
    pages = -(-len(companies_ref) // 1000)
    assert proxy.sent() == [None, *range(2, pages + 1)]
    assert o.value.attrs["requests"] == pages and "page_from_0" not in o.value.attrs
    deals = fresh.private.deals(limit=2500, sort="deal_date:desc")
    assert_same(deals, direct.private.deals(limit=2500, sort="deal_date:desc"))
    assert in_order(proxy.sent("/transactions"), [None], [2, 3])


def test_a_service_counting_from_1_without_meta_page_costs_one_request_once(
    fresh, proxy, companies_ref
):
    """Nothing says how the service counts: the walk's page 2 asked as ``page: 1`` repeats
    page 1, so it is dropped and ``page: 2`` asked (one request more), and the client
    remembers it: its later walks ask from ``page: 2`` at once."""
    proxy.add(LISTS, meta_delete("page"), method="POST")
    o = outcome(lambda: fresh.private.companies(strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert not o.warned(Warning) and "page_from_0" not in o.value.attrs
    pages = -(-len(companies_ref) // 1000)
    assert proxy.sent() == [None, 1, *range(2, pages + 1)]
    proxy.seen.clear()
    assert_same(fresh.private.companies(), companies_ref, ignore_index=True)
    assert proxy.sent() == [None, *range(2, pages + 1)]


def test_a_service_counting_from_1_without_meta_page_one_page_short_keeps_its_warning(
    fresh, proxy, companies_ref
):
    """One page short on a service that counts from 1 and gives no ``meta.page``: page 2 was
    settled as ``page: 2`` (``page: 1`` repeated page 1 and was dropped), nothing is read
    again and the warning stands."""

    def one_page_fewer(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
            doc["meta"]["total"] += 1000  # as if 1,000 rows had left the list meanwhile
        return doc

    proxy.add(COMPANIES, meta_delete("page"), edit(one_page_fewer, "total+1000"), method="POST")
    o = outcome(lambda: fresh.private.companies())
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert "page_from_0" not in o.value.attrs
    assert o.value.attrs["duplicates_removed"] == 0
    assert any("exactly one page of 1000 rows short" in m for m in o.warned(ServiceContractWarning))
    # page=1 asked once, not taken; then page 2, and page 3 only if it ran ahead (in flight
    # beside page 2, so the two may reach the service in either order)
    sent = proxy.sent()
    assert sent[:2] == [None, 1] and sorted(sent[2:]) in ([2], [2, 3]), sent


# ------------------------------- a service counting from 1 that says meta.page 0 on page 1


def test_a_service_echoing_meta_page_0_while_counting_from_1_loses_nothing(
    fresh, direct, proxy, companies_ref, tmp_path, sandbox
):
    """A Go or Java service: ``meta.page`` 0 for a body without ``page``, while it counts from
    1. A call within one page settles nothing (it used to make the client count from 0 for
    its life); a walk's ``page: 1`` repeats page 1 and is dropped, so ``companies()`` and
    ``deals()`` are whole (``companies()`` held 1,000 rows and said the service counted from
    0), and ``mirror.sync`` mirrors every row (it failed with a 400 for page 0)."""
    proxy.add(LISTS, go_zero(), method="POST")
    small = outcome(lambda: fresh.private.companies(limit=50))
    assert small.error is None and not small.warned(Warning)
    assert_same(small.value, companies_ref.iloc[:50], ignore_index=True)
    assert "page_from_0" not in small.value.attrs
    assert fresh.private._first_page == 1

    walk = outcome(lambda: fresh.private.companies(strict=True))
    assert walk.error is None, repr(walk.error)
    assert_same(walk.value, companies_ref, ignore_index=True)
    assert not walk.warned(Warning) and "page_from_0" not in walk.value.attrs
    pages = -(-len(companies_ref) // 1000)
    assert proxy.sent() == [None, None, 1, *range(2, pages + 1)]

    deals = outcome(lambda: fresh.private.deals(strict=True))
    assert deals.error is None, repr(deals.error)
    want = direct.private.deals()
    assert len(want) > 2000
    assert_same(deals.value, want, ignore_index=True)
    assert not deals.warned(Warning)
    assert in_order(proxy.sent("/transactions"), [None], range(2, -(-len(want) // 1000) + 1))

    report = mirror.sync(fresh, tmp_path / "via", ["companies", "deals"], progress=False)
    assert report["companies"].page_from_0 is None and report["deals"].page_from_0 is None
    synced = direct_mirror(sandbox)  # synced straight from the sandbox (shared, read only)
    for entity in ("companies", "deals"):
        got = mirror.load(tmp_path / "via", entity, include_deleted=True)
        want = mirror.load(synced, entity, include_deleted=True)
        assert len(got) > 1000
        assert_same(
            got.sort_values("id", ignore_index=True), want.sort_values("id", ignore_index=True)
        )


def test_a_service_echoing_meta_page_0_while_counting_from_1_fresh_walk(fresh, direct, proxy):
    """The same service met first by a walk of several pages capped by ``limit``: the rows of
    the sandbox itself, page 2 asked as ``page: 2`` after ``page: 1`` repeated page 1."""
    proxy.add(LISTS, go_zero(), method="POST")
    o = outcome(lambda: fresh.private.deals(limit=2500, sort="deal_date:desc", strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, direct.private.deals(limit=2500, sort="deal_date:desc"))
    assert not o.warned(Warning) and "page_from_0" not in o.value.attrs
    assert in_order(proxy.sent("/transactions"), [None, 1], [2, 3])


# ---------------------------------------------------------------------------------- the doctor


def _check(client: Any, name: str) -> Any:
    """The doctor's check ``name`` of ``client``'s service (its warnings kept quiet)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(client, family="B")
    return next(c for c in diagnosis.checks if c.name == name)


@pytest.mark.parametrize("refusal", list(REFUSALS))
def test_the_doctor_asks_limit_with_the_documented_body(refusal, fresh, proxy):
    """``B.paging.limit`` sends ``{filters, sort, limit}`` without ``page``, as a walk asks
    its first page: a service refusing ``page`` serves it (the check used to send ``page: 1``
    and report the refusal instead of the page size)."""
    proxy.add(COMPANIES, refuse_page(REFUSALS[refusal]), method="POST")
    check = _check(fresh, "B.paging.limit")
    assert check.verdict == "holds", check.observed
    assert check.observed.startswith("1000 rows per page"), check.observed
    assert proxy.sent()[0] is None


@pytest.mark.parametrize("says", [True, False], ids=["meta.page 0", "no meta.page"])
def test_the_doctor_says_what_the_walk_does_on_a_service_counting_from_0(says, fresh, proxy):
    """``B.paging.page`` on a service counting from 0 says what a walk does (it said a walk
    "reads page 0 too", which it never does); ``B.paging.limit`` reads the first page."""
    proxy.add(LISTS, zero_indexed(says=says), method="POST")
    page = _check(fresh, "B.paging.page")
    assert page.verdict == "adapted", page.observed
    assert "pages count from 0" in page.observed and "page 0 too" not in page.observed
    assert "then page=1" in page.observed
    limit = _check(fresh, "B.paging.limit")
    assert limit.observed.startswith("1000 rows per page"), limit.observed
