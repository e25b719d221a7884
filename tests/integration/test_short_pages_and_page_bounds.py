"""Pages short of rows under ``limit``, page-size refusals in other words, and how a bad id is
named, over HTTP through the drift proxy.

- A page cut on the way with its ``meta`` made to agree (``returned`` the rows held,
  ``has_more`` true, the true ``total``, ``limit`` as asked) lost rows without a word once a
  ``limit`` was given: the walk filled up to ``limit`` with later rows, and the distinct rows
  against ``meta.total`` are only counted without one. A page other than the last that holds
  fewer rows than the page size is now a ``count_mismatch`` naming it (under ``strict``, an
  ``IncompleteResultError`` carrying the rows). A service serving fewer rows than asked while
  its ``meta.limit`` repeats the ask still reads whole, without a word.
- A page refused with a 413 that does not say ``limit`` (``Request Entity Too Large``, ``{}``),
  a 400 "maximum page size is 100", or FastAPI's 422 "body.limit: ensure this value is less
  than or equal to 100" was raised: the page size is now lowered for them. A refusal saying
  only its status names the open point of the interface document, as a may-be, and leaves the
  page size as it was.
- One bad id was named ``id``, the methods' argument being ``ids``.
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
    Exchange,
    Proxy,
    assert_same,
    direct,
    drop_rows,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    recount,
    refuse,
)

from dealframe.errors import ApiError, BadRequestError, IncompleteResultError, ValidationError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
DEALS = f"^{P}/transactions$"


def cut_pages() -> tuple[Action, Action]:
    """Every page loses its last 2 rows, its ``meta.returned`` made to agree (``has_more``,
    ``total`` and ``limit`` as the sandbox wrote them)."""
    return drop_rows(2), recount()


@pytest.fixture(scope="module")
def busy(direct: Any) -> tuple[str, Any]:
    """A company with at least 9 investors, and its investors as the sandbox serves them."""
    deals = direct.private.deals()
    for company in deals["target_id"].value_counts().index[:40]:
        rows = direct.private.company_investors(company)
        if len(rows) >= 9:
            return company, rows
    pytest.skip("no company with 9 investors in this sandbox")


# ------------------------------------------------------------------ pages short under limit


def test_a_list_page_short_of_rows_under_limit_is_said(fresh: Any, direct: Any, proxy: Proxy):
    """``deals(limit=2400)`` over pages cut by 2 rows: page 1's 998 rows are the page size
    (its ``meta.limit`` repeats the ask), page 2 holds 996 while ``has_more`` is true. It
    used to return 2,400 rows, 2 of them standing in for 2 lost, with no warning."""
    want = direct.private.deals(limit=2400)
    proxy.add(DEALS, *cut_pages(), method="POST")
    got = outcome(lambda: fresh.private.deals(limit=2400))
    assert got.error is None, repr(got.error)
    assert len(got.value) == 2400
    lost = set(want["id"]) - set(got.value["id"])
    assert lost, "the proxy's cut lost no row the limit asked for"
    said = got.warned(ServiceContractWarning)
    assert any("page 2 holds 996 rows" in m and "2 rows lost" in m for m in said), said
    kinds = {f["kind"] for f in got.value.attrs["findings"]}
    assert "count_mismatch" in kinds


def test_a_list_page_short_of_rows_under_limit_raises_under_strict(fresh: Any, proxy: Proxy):
    proxy.add(DEALS, *cut_pages(), method="POST")
    got = outcome(lambda: fresh.private.deals(limit=2400, strict=True))
    assert isinstance(got.error, IncompleteResultError), repr(got.error)
    assert "page 2" in str(got.error)
    assert got.error.partial is not None and len(got.error.partial) == 2400


def test_a_sub_collection_page_short_under_limit_is_said(
    fresh: Any, proxy: Proxy, busy: tuple[str, Any]
):
    """``company_investors(id, limit=5)``: 3 rows of page 1 (5 asked), then pages of 3 of
    which 2 are cut each time: said of pages 2 and 3 (strict: raised)."""
    company, _ = busy
    proxy.add(rf"^{P}/companies/{company}/investors$", *cut_pages(), method="GET")
    got = outcome(lambda: fresh.private.company_investors(company, limit=5))
    assert got.error is None, repr(got.error)
    said = got.warned(ServiceContractWarning)
    assert any("page 2 holds 1 row," in m and "2 rows lost" in m for m in said), said
    strict = outcome(lambda: fresh.private.company_investors(company, limit=5, strict=True))
    assert isinstance(strict.error, IncompleteResultError), repr(strict.error)
    assert strict.error.partial is not None and len(strict.error.partial) == 5


def silent_clamp(size: int) -> Action:
    """A service that serves at most ``size`` rows a page while its ``meta.limit`` repeats
    the ``limit`` asked (its ``returned`` counts the rows held)."""

    def ask(ex: Exchange) -> None:
        asked = ex.body.get("limit") if isinstance(ex.body, dict) else None
        ex.asked = asked  # type: ignore[attr-defined]
        if isinstance(asked, int) and asked > size:
            ex.set_param("limit", size)

    def answer(ex: Exchange) -> None:
        doc = ex.doc()
        asked = getattr(ex, "asked", None)
        if isinstance(doc, dict) and isinstance(doc.get("meta"), dict) and asked is not None:
            doc["meta"]["limit"] = asked
            ex.set_doc(doc)

    return Action(f"silent_clamp({size})", on_request=ask, on_response=answer)


@pytest.mark.parametrize("limit", [None, 1000])
def test_a_service_serving_fewer_rows_than_its_meta_limit_says_still_reads_whole(
    fresh: Any, direct: Any, proxy: Proxy, limit: int | None
):
    """Pages of 300 for 1,000 asked, ``meta.limit`` 1000: page 1's size is the page size,
    every later page is full, nothing is said (strict: no error)."""
    proxy.add(DEALS, silent_clamp(300), method="POST")
    got = outcome(lambda: fresh.private.deals(limit=limit, strict=True))
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.private.deals(limit=limit), ignore_index=True)
    assert got.value.attrs["page_size"] == 300
    assert not got.warned(ServiceContractWarning)


# ------------------------------------------------------------------ page-size refusals


def refuse_get(status: int, body: Any, over: int) -> Action:
    """Refuse, with ``status`` and ``body``, a GET whose query ``limit`` is above ``over``."""

    def apply(ex: Exchange) -> None:
        sent = ex.query.get("limit")
        if sent is not None and int(sent) > over:
            ex.forward, ex.status, ex._doc = False, status, None
            ex.headers = {"Content-Type": "application/json"}
            ex.content = orjson.dumps(body)

    return Action(f"refuse_get(limit > {over})", on_request=apply)


REFUSALS: dict[str, tuple[int, Callable[[int], Any]]] = {
    "413 Request Entity Too Large": (413, lambda n: {"detail": "Request Entity Too Large"}),
    "413 {}": (413, lambda n: {}),
    "400 maximum page size": (400, lambda n: {"errors": ["maximum page size is 100"]}),
    "422 FastAPI": (
        422,
        lambda n: {
            "detail": [
                {
                    "loc": ["body", "limit"],
                    "msg": "ensure this value is less than or equal to 100",
                    "type": "value_error.number.not_le",
                }
            ]
        },
    ),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_a_list_page_refused_in_other_words_is_asked_smaller(
    fresh: Any, direct: Any, proxy: Proxy, name: str
):
    status, body = REFUSALS[name]
    proxy.add(COMPANIES, refuse(status, body, 100, "limit"), method="POST")
    got = outcome(lambda: fresh.private.companies())
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.private.companies(), ignore_index=True)
    assert got.value.attrs["page_size"] <= 100
    assert got.value.attrs["page_size_refused"].startswith("limit 1000 refused")


def test_a_sub_collection_page_refused_with_a_bare_413_is_asked_smaller(
    fresh: Any, direct: Any, proxy: Proxy, busy: tuple[str, Any]
):
    company, want = busy
    proxy.add(rf"^{P}/companies/{company}/investors$", refuse_get(413, {}, 5), method="GET")
    got = outcome(lambda: fresh.private.company_investors(company))
    assert got.error is None, repr(got.error)
    assert_same(got.value, want, ignore_index=True)
    assert "pages of 3" in got.value.attrs["page_size_refused"]


def test_a_refusal_not_read_as_one_names_the_open_point(fresh: Any, proxy: Proxy):
    """A 400 that names no field and states no bound is raised, naming section 4.2."""
    proxy.add(COMPANIES, refuse(400, lambda n: {"detail": "Bad request"}, 100, "limit"))
    got = outcome(lambda: fresh.private.companies())
    assert isinstance(got.error, BadRequestError), repr(got.error)
    assert "upper bound of limit in POST list bodies" in str(got.error)
    assert "section 4.2" in str(got.error)


def test_a_page_refused_at_every_size_leaves_the_page_size_as_it_was(fresh: Any, proxy: Proxy):
    """A 413 at every size: halved down to one row, then raised naming the open point; the
    next call asks pages of 1,000 again."""
    rule = proxy.add(COMPANIES, refuse(413, lambda n: {}, 0, "limit"), method="POST")
    got = outcome(lambda: fresh.private.companies())
    assert isinstance(got.error, ApiError) and got.error.status == 413, repr(got.error)
    assert "limit 1 refused" in str(got.error), str(got.error)
    assert rule.used >= 10
    proxy.reset()
    again = outcome(lambda: fresh.private.companies(limit=5))
    assert again.error is None, repr(again.error)
    assert again.value.attrs["page_size"] == 5
    assert "page_size_refused" not in again.value.attrs


def test_a_413_of_a_large_list_body_is_not_read_as_about_the_page(
    fresh: Any, direct: Any, proxy: Proxy
):
    """A 413 of a list whose filter of 200 ids makes the body kilobytes long may be about the
    body: raised, not halved."""
    ids = direct.private.companies(limit=200)["id"].tolist()
    proxy.add(COMPANIES, refuse(413, lambda n: {}, 0, "limit"), method="POST")
    got = outcome(lambda: fresh.private.companies(id=ids))
    assert isinstance(got.error, ApiError) and got.error.status == 413, repr(got.error)
    assert proxy.count(COMPANIES, method="POST") == 1


# ------------------------------------------------------------------ a bad id is named ids


@pytest.mark.parametrize(
    "call",
    [
        "company",
        "investor",
        "deal",
        "investor_top",
        "fundings",
        "sellside",
        "buyside",
        "company_investors",
        "investments",
        "co_investors",
        "portfolio",
    ],
)
def test_one_bad_id_is_named_ids(fresh: Any, proxy: Proxy, call: str):
    method = getattr(fresh.private, call)
    for bad in ("nope", "../../admin"):
        got = outcome(lambda bad=bad: method(bad))
        assert isinstance(got.error, ValidationError), repr(got.error)
        assert got.error.argument == "ids", got.error.argument
    listed = outcome(lambda: method(["5f38873f-6e1c-4d6f-ad87-e6977cda30ba", "nope"]))
    assert isinstance(listed.error, ValidationError) and listed.error.argument == "ids[1]"
    assert proxy.count(f"^{P}/(companies|investors|transactions)/") == 0
