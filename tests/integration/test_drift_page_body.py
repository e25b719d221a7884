"""The first page of a POST list walk is asked with the documented body, without ``page``.

The interface document shows the list body as ``{filters, sort, limit}`` and leaves the body
member ``page`` "not shown" (section 4.2). Any service answers a body without ``page`` with
its first page, however it counts pages; so the client asks for page 1 that way and sends
``page`` only from page 2 on. These tests play, over the drift proxy, a service that refuses
``page`` as an unknown body member (it used to refuse even ``companies(limit=5)``), and one
that counts ``page`` from 0 (a capped call used to get the second page's rows, silently),
with and without ``meta.page`` saying how it counts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    outcome,
    proxy,
)

from dealframe.errors import BadRequestError
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


def sent(proxy: Any, path: str = "/companies") -> list[int | None]:
    """The ``page`` of each POST to ``path`` as the client sent it (None: no ``page``)."""
    return [page for method, p, page in proxy.seen if method == "POST" and p.endswith(path)]


def refuse_page(body: dict[str, Any]) -> Action:
    """Answer 400 with ``body`` to any POST list body holding ``page`` (not forwarded)."""

    def apply(ex: Any) -> None:
        if isinstance(ex.body, dict) and "page" in ex.body:
            ex.forward, ex.status, ex._doc = False, 400, None
            ex.headers = {"Content-Type": "application/json"}
            ex.content = orjson.dumps(body)

    return Action("refuse_page", on_request=apply)


def zero_indexed(says: bool = True) -> Action:
    """A service counting ``page`` from 0: a body without ``page`` is its page 0 (the first),
    ``page: p`` the sandbox's page p+1; ``meta.page`` counts from 0 too, or with ``says``
    False is left out."""

    def ask(ex: Any) -> None:
        ex.set_param("page", (ex.page or 0) + 1)

    def answer(ex: Any) -> None:
        doc = ex.doc()
        meta = doc.get("meta") if isinstance(doc, dict) else None
        if isinstance(meta, dict):
            meta["page"] -= 1
            meta["has_more"] = (meta["page"] + 1) * meta["limit"] < meta["total"]
            if not says:
                del meta["page"]
            ex.set_doc(doc)

    return Action(f"zero_indexed({says})", on_request=ask, on_response=answer)


def no_meta_page() -> Action:
    def apply(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
            doc["meta"].pop("page", None)
        return doc

    return edit(apply, "no_meta_page")


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
    assert sent(proxy) == [None, 2]


# --------------------------------------------------------- a service that counts page from 0


def test_a_capped_call_on_a_service_counting_from_0_gets_the_first_rows(fresh, direct, proxy):
    """``deals(limit=50, sort=...)`` fits in one page: asked without ``page``, it gets the
    first 50 rows of the order (it got rows 51-100, the second page, with no warning)."""
    proxy.add(DEALS, zero_indexed(says=False), method="POST")
    o = outcome(lambda: fresh.private.deals(limit=50, sort="deal_date:desc"))
    assert o.error is None, repr(o.error)
    assert_same(o.value, direct.private.deals(limit=50, sort="deal_date:desc"))
    assert not o.warned(Warning)
    assert sent(proxy, "/transactions") == [None]


def test_a_walk_on_a_service_counting_from_0_without_meta_page_reads_the_skipped_page(
    fresh, proxy, companies_ref
):
    """Nothing says how the service counts: page 2 (``page: 2``) is its third page, so the
    walk ends exactly one page short; ``page: 1`` is read, its rows go second, attrs say so,
    and the client's later calls count from 0."""
    proxy.add(COMPANIES, zero_indexed(says=False), method="POST")
    o = outcome(lambda: fresh.private.companies(strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert not o.warned(Warning)
    assert "page=1 held the" in o.value.attrs["page_from_0"]
    assert "(the service counts page from 0)" in o.value.attrs["page_from_0"]
    pages = -(-len(companies_ref) // 1000)
    assert sent(proxy) == [None, *range(2, pages + 1), 1]
    proxy.seen.clear()
    again = fresh.private.companies()
    assert_same(again, companies_ref, ignore_index=True)
    assert "page_from_0" not in again.attrs
    assert sent(proxy) == [None, *range(1, pages)]


def test_a_service_counting_from_1_without_meta_page_one_page_short_keeps_its_warning(
    fresh, proxy, companies_ref
):
    """One page short on a service that counts from 1 and gives no ``meta.page``: ``page: 1``
    is read, holds the first page's rows again and is dropped; the warning stands."""

    def one_page_fewer(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
            doc["meta"]["total"] += 1000  # as if 1,000 rows had left the list meanwhile
        return doc

    proxy.add(COMPANIES, no_meta_page(), edit(one_page_fewer, "total+1000"), method="POST")
    o = outcome(lambda: fresh.private.companies())
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert "page_from_0" not in o.value.attrs
    assert o.value.attrs["duplicates_removed"] == 0
    assert any("exactly one page of 1000 rows short" in m for m in o.warned(ServiceContractWarning))
    assert sent(proxy)[-1] == 1  # asked, and not taken
