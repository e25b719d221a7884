"""List walks against services that page differently from the sandbox, over the drift proxy.

The interface document leaves the upper bound of ``limit`` for POST lists, and how ``page``
counts, "not shown". Each test rewrites the sandbox's answers into one such service and
asserts that the client reads the same rows as one talking to the sandbox directly, or says
what it could not do, and how many requests it needed.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_mirror import direct_mirror as synced_directly
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    assert_same,
    clamp_limit,
    direct,
    edit,
    fresh,
    fresh_rules,
    html,
    ignore_page,
    meta_delete,
    meta_set,
    no_hang,
    outcome,
    proxy,
    refuse,
    trickle,
    via,
    zero_indexed,
)

from dealframe import doctor, mirror
from dealframe.errors import BadRequestError, IncompleteResultError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
DEALS = f"^{P}/transactions$"


def no_meta() -> Any:
    def apply(doc: Any) -> Any:
        if isinstance(doc, dict):
            doc.pop("meta", None)
        return doc

    return edit(apply, "no_meta")


@pytest.fixture(scope="module")
def companies_ref(direct: Any) -> Any:
    frame = direct.private.companies()
    assert len(frame) > 1000, "the tests need several pages"
    return frame


@pytest.mark.parametrize(
    "rewrite",
    [meta_delete("total", "has_more", "limit"), meta_delete("total", "has_more"), no_meta()],
    ids=["page-returned-only", "limit-only", "no-meta"],
)
def test_short_pages_without_total_or_has_more_are_not_taken_as_the_last(
    rewrite, via, proxy, companies_ref
):
    """A service serving 100 rows a page whose answers say nothing of what follows: page 1
    (100 of 1000 asked) is not the last; the walk goes on at 100 rows a page until a short
    page, and gets the whole list (it used to get 100 rows, silently). A ``meta`` without
    ``total`` and ``has_more`` is said once, as no ``meta`` is (``bad_meta``: under
    ``strict=True`` the call raises it)."""
    proxy.add(COMPANIES, clamp_limit(100), rewrite)
    o = outcome(lambda: via.private.companies())
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert o.value.attrs["page_size"] == 100
    # every page, one at a time (nothing says a page exists before the one ahead of it has
    # arrived): the last is the short one, or the empty one after rows that fill every page
    assert proxy.pages(COMPANIES) == list(range(1, len(companies_ref) // 100 + 2))
    no_meta_warned = [m for m in o.warned(ServiceContractWarning) if "no meta" in m]
    assert len(no_meta_warned) == (rewrite.name == "no_meta")  # said once, not per page
    no_end = [m for m in o.warned(ServiceContractWarning) if "neither total nor has_more" in m]
    assert len(no_end) == (rewrite.name != "no_meta")


def test_a_short_only_page_without_meta_costs_one_request_more(via, direct, proxy):
    """Page 1 really is the last: the empty page 2 (asked at page 1's size) ends the walk."""
    filters = {"deal_type": ["M&A"], "date_from": "2024-06-01", "date_to": "2024-06-30"}
    ref = direct.private.deals(**filters)
    assert 0 < len(ref) < 1000
    proxy.add(DEALS, meta_delete("total", "has_more", "limit"))
    o = outcome(lambda: via.private.deals(**filters))
    assert_same(o.value, ref, ignore_index=True)
    assert proxy.pages(DEALS) == [1, 2]
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["bad_meta"]  # no total to count


@pytest.fixture(scope="module")
def deals_ref(direct: Any) -> Any:
    frame = direct.private.deals()
    assert len(frame) > 2000, "the tests need several pages"
    return frame


def _slow_pages(proxy: Any, last: int | None = None) -> None:
    """Pages that take 0.2 s to arrive (longer than parsing them: the walk would run ahead on
    its workers), and page ``last`` 1 s (the pages after it arrive first)."""
    proxy.add(DEALS, trickle(0.2, 8), when=lambda ex: ex.page != last)
    proxy.add(DEALS, trickle(1.0, 8), when=lambda ex: ex.page == last)


@pytest.mark.parametrize(
    ("rewrite", "has_more"),
    [(meta_delete("total"), True), (meta_delete("total", "has_more"), False), (no_meta(), False)],
    ids=["has_more-only", "neither", "no-meta"],
)
def test_a_walk_without_total_asks_for_no_page_past_the_end(
    rewrite, has_more, via, proxy, deals_ref
):
    """Without ``meta.total`` nothing says page k exists before page k - 1 has arrived: the
    walk asks for one page at a time, exactly the pages up to the one whose ``has_more`` is
    false, or without ``has_more`` the empty or short page more (docs/real-service.md). It
    used to fill its window of workers past the end: 10 requests for 3 pages of deals."""
    _slow_pages(proxy)
    proxy.add(DEALS, rewrite)
    o = outcome(lambda: via.private.deals())
    assert o.error is None, repr(o.error)
    assert_same(o.value, deals_ref, ignore_index=True)
    full, part = divmod(len(deals_ref), 1000)
    pages = full + (1 if part or not has_more else 0)
    assert proxy.pages(DEALS) == list(range(1, pages + 1))


def test_an_inflated_total_asks_for_no_page_past_one_that_ended_the_walk(via, proxy, deals_ref):
    """``meta.total`` of 10**12 while the pages end: the pages in flight past the last one
    are at most the workers' count, even while that page is slow and the empty pages after
    it arrive first (each such page used to free a worker for yet another page, as long as
    the last page took). The warning says what was seen, no guess at why."""
    last = -(-len(deals_ref) // 1000)
    _slow_pages(proxy, last)
    proxy.add(DEALS, meta_set(total=10**12))
    o = outcome(lambda: via.private.deals())
    assert o.error is None, repr(o.error)
    assert_same(o.value, deals_ref, ignore_index=True)
    asked = proxy.pages(DEALS)
    assert sorted(asked)[:last] == list(range(1, last + 1))
    assert len(asked) == len(set(asked)) <= last + FAST["max_workers"]
    said = [m for m in o.warned(ServiceContractWarning) if "meta.total announced" in m]
    assert said == [
        f"POST {P}/transactions: meta.total announced 1000000000000 rows; "
        f"{len(deals_ref)} distinct rows arrived"
    ], said


def test_the_sandbox_gets_no_extra_request(via, direct, proxy):
    """With ``meta`` (the sandbox) a short page 1 is the last: one request."""
    filters = {"deal_type": ["M&A"], "date_from": "2024-06-01", "date_to": "2024-06-30"}
    got = via.private.deals(**filters)
    assert_same(got, direct.private.deals(**filters), ignore_index=True)
    assert proxy.pages(DEALS) == [1]


@pytest.fixture(scope="module")
def direct_mirror(sandbox: Any) -> Path:
    """A mirror of deals and companies synced straight from the sandbox, once for the test
    process: the reference the syncs through the proxy are compared with (read only)."""
    return synced_directly(sandbox)


def test_mirror_sync_reads_every_row_when_meta_says_nothing_of_what_follows(
    via, direct_mirror, proxy, tmp_path
):
    """``mirror.sync`` through a service serving 100 rows a page without total/has_more:
    the same table as a sync straight from the sandbox (it used to stop after 100 rows)."""
    proxy.add(f"^{P}/transactions$", clamp_limit(100), meta_delete("total", "has_more", "limit"))
    mirror.sync(via, tmp_path / "via", ["deals"], progress=False)
    got = mirror.load(tmp_path / "via", "deals", include_deleted=True)
    want = mirror.load(direct_mirror, "deals", include_deleted=True)
    assert len(got) > 1000
    assert_same(got.sort_values("id", ignore_index=True), want.sort_values("id", ignore_index=True))


def _paging_check(client: Any) -> Any:
    """The doctor's ``B.paging.limit`` check of ``client``'s service (its warnings kept quiet)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(client)
    return next(c for c in diagnosis.checks if c.name == "B.paging.limit")


def test_the_doctor_reports_the_rows_a_clamped_list_served(via, proxy):
    """A list clamped to 100 rows whose meta says neither total, has_more nor limit: the doctor
    says 100 of 1,000 arrived (it used to say 1000 rows per page) and what the walk does."""
    proxy.add(f"^{P}/companies$", clamp_limit(100), meta_delete("total", "has_more", "limit"))
    check = _paging_check(via)
    assert check.observed.startswith("100 rows of 1,000 asked"), check.observed
    assert "page 2 at 100 rows" in check.observed
    assert check.verdict == "adapted"


def _page_check(client: Any) -> Any:
    """The doctor's ``B.paging.page`` check of ``client``'s service."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(client)
    return next(c for c in diagnosis.checks if c.name == "B.paging.page"), diagnosis


@pytest.mark.parametrize("entity", ["investors", "transactions"])
def test_the_doctor_breaks_when_any_list_ignores_page(entity, fresh, proxy):
    """A service ignoring ``page`` on /investors or /transactions only: the doctor says the
    page check breaks there (it probed /companies only and said all held, while deals() stops
    at 1,000 rows with repeated_page), in two small pages per list, within its budget."""
    proxy.add(f"^{P}/{entity}$", ignore_page())
    check, diagnosis = _page_check(fresh)
    assert check.verdict == "breaks", check.observed
    assert f"page 2 repeats page 1 on /{entity}" in check.observed
    assert not diagnosis.ok and diagnosis.requests <= 60
    assert {1, 2} <= set(proxy.pages(f"^{P}/{entity}$"))


def test_the_doctor_says_page_holds_on_every_list(direct):
    check, _ = _page_check(direct)
    assert check.verdict == "holds", check.observed
    assert "/companies, /investors and /transactions" in check.observed


def _documented(sent: int) -> Any:
    said = f"limit: must be between 1 and 100, got {sent}"
    return {
        "error": {
            "code": "BAD_REQUEST",
            "message": "Invalid request",
            "details": {"errors": [said]},
        }
    }


#: How services word a refused ``limit``: the sandbox's body, Spring Boot's default, NestJS's
#: validation pipe, and ``error.details`` as a list of strings (the message alone says nothing).
REFUSALS: dict[str, Callable[[int], Any]] = {
    "documented": _documented,
    "spring": lambda sent: {
        "timestamp": "2026-01-01T00:00:00.000+00:00",
        "status": 400,
        "error": "Bad Request",
        "message": "limit must be less than or equal to 100",
        "path": "/api/private/v1/companies",
    },
    "nestjs": lambda sent: {
        "statusCode": 400,
        "message": ["limit must not be greater than 100", "limit must be a positive number"],
        "error": "Bad Request",
    },
    "details-list": lambda sent: {
        "error": {
            "code": "INVALID",
            "message": "Invalid request",
            "details": ["limit: must be <= 100"],
        }
    },
}


@pytest.mark.parametrize("body", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_list_refusing_limit_above_100_is_read_in_pages_of_100(body, fresh, proxy, companies_ref):
    """A 400 saying ``limit`` may be at most 100: page 1 is asked again with the stated
    bound, the client keeps it for its later calls, and says so once in attrs. Whichever
    body carries the words (a status phrase beside them is no message)."""
    proxy.add(COMPANIES, refuse(400, body, 100, "limit"), method="POST")
    o = outcome(lambda: fresh.private.companies(strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert o.value.attrs["page_size"] == 100
    assert "limit 1000 refused" in o.value.attrs["page_size_refused"]
    assert not o.warned(Warning)
    pages = -(-len(companies_ref) // 100)
    assert proxy.count(COMPANIES) == 1 + pages  # the refused page 1, then every page once
    proxy.reset()
    proxy.add(COMPANIES, refuse(400, body, 100, "limit"), method="POST")
    again = fresh.private.companies()
    assert_same(again, companies_ref, ignore_index=True)
    assert proxy.count(COMPANIES) == pages  # no request refused: the bound is remembered
    assert "page_size_refused" not in again.attrs


def test_mirror_sync_reads_in_pages_of_the_bound_a_refusal_states(
    fresh, direct_mirror, proxy, tmp_path
):
    """A service refusing ``limit`` above 100: ``mirror.sync`` with no ``page_size=`` asks
    again at 100, as the list calls do, mirrors every row, says so in its report, and the
    client keeps the size (the next entity is never refused). It used to fail with the 400."""
    said = {"detail": "limit: must be between 1 and 100, got 1000"}
    for path in (DEALS, COMPANIES):
        proxy.add(path, refuse(400, lambda sent: said, 100, "limit"), method="POST")
    report = mirror.sync(fresh, tmp_path / "via", ["deals", "companies"], progress=False)
    for entity in ("deals", "companies"):
        got = mirror.load(tmp_path / "via", entity, include_deleted=True)
        want = mirror.load(direct_mirror, entity, include_deleted=True)
        assert len(got) > 1000
        assert_same(
            got.sort_values("id", ignore_index=True), want.sort_values("id", ignore_index=True)
        )
    said_deals = report["deals"].page_size_refused
    assert said_deals is not None and "limit 1000 refused (400" in said_deals, said_deals
    assert said_deals.endswith("pages of 100")
    assert report["companies"].page_size_refused is None  # asked at 100 from the start
    assert fresh.private.companies().attrs["page_size"] == 100  # and so do the list calls


def test_a_limit_refused_without_a_bound_is_halved(fresh, proxy, companies_ref):
    """A 422 naming ``limit`` without a number: page 1 is asked at 500, then 250."""
    detail = {"detail": [{"loc": ["body", "limit"], "msg": "limit is too large"}]}
    proxy.add(COMPANIES, refuse(422, lambda sent: detail, 300, "limit"), method="POST")
    got = fresh.private.companies()
    assert_same(got, companies_ref, ignore_index=True)
    assert got.attrs["page_size"] == 250
    assert proxy.pages(COMPANIES)[:3] == [1, 1, 1]


def test_other_bad_requests_are_still_raised(fresh, proxy):
    proxy.add(COMPANIES, refuse(400, lambda sent: {"detail": "sort: unknown"}, 0, "limit"))
    with pytest.raises(BadRequestError, match="sort: unknown"):
        fresh.private.companies()
    assert proxy.count(COMPANIES) == 1


def test_resolve_splits_a_batch_refused_with_422(fresh, direct, proxy):
    """FastAPI's validation status (422) for too many names: split like a 400 or 413."""
    names = direct.private.companies(limit=300)["name"].tolist()
    ref = direct.private.resolve_companies(names).matches
    detail = {
        "detail": [{"loc": ["body", "names"], "msg": "ensure this value has at most 50 items"}]
    }
    proxy.add(f"^{P}/companies/resolve$", refuse(422, lambda sent: detail, 50, "names"))
    got = fresh.private.resolve_companies(names).matches
    assert_same(got, ref)
    assert proxy.count("/resolve") == 1 + 6  # the refused batch of 300, then six of 50


@pytest.mark.parametrize(
    "body",
    [lambda sent: {"detail": "limit: must be between 1 and 100, got 1000"}, REFUSALS["nestjs"]],
    ids=["detail", "nestjs"],
)
def test_the_doctor_says_a_refused_limit_is_adapted_to(body, fresh, proxy):
    """A list refusing ``limit`` above 100: the doctor asks again at 100, as the client does."""
    proxy.add(COMPANIES, refuse(400, body, 100, "limit"), method="POST")
    check = _paging_check(fresh)
    assert check.observed.startswith("limit 1000 refused (400: "), check.observed
    assert "greater than 100" in check.observed or "got 1000" in check.observed
    assert "100 rows per page" in check.observed
    assert check.verdict == "adapted"


def test_a_list_from_a_service_counting_from_0_reads_every_row_and_says_so(
    fresh, proxy, companies_ref
):
    """A service counting pages from 0: page 1, asked without ``page`` (the documented body),
    is its first page; its ``meta.page`` 0 is a hint, which the walk's page 2, asked as
    ``page=1`` and bringing rows new to page 1, settles: every row, no request more (a walk
    from ``page=1`` used to lose the first page, or read page 0 after the walk); attrs say
    what was seen, and the client's later list calls count from 0."""
    proxy.add(COMPANIES, zero_indexed(), method="POST")
    o = outcome(lambda: fresh.private.companies(strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert not o.warned(Warning)
    assert "said meta.page 0" in o.value.attrs["page_from_0"]
    pages = -(-len(companies_ref) // 1000)
    assert len(companies_ref) % 1000 and o.value.attrs["requests"] == pages
    assert proxy.sent() == [None, *range(1, pages)]
    proxy.reset()
    proxy.add(COMPANIES, zero_indexed(), method="POST")
    again = fresh.private.companies()
    assert_same(again, companies_ref, ignore_index=True)
    assert "page_from_0" not in again.attrs
    assert proxy.sent() == [None, *range(1, pages)]  # each page once
    capped = fresh.private.companies(limit=10)
    assert_same(capped, companies_ref.iloc[:10], ignore_index=True)


def test_a_service_counting_from_1_one_page_short_asks_no_page_again(fresh, proxy):
    """Exactly one page short on a service that counts from 1 (rows left while pages were
    read): page 1's ``meta.page`` said 1, so no page is read again, and the warning says what
    was seen."""

    def one_page_fewer(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
            doc["meta"]["total"] += 1000  # as if 1,000 rows had left the list meanwhile
        return doc

    proxy.add(COMPANIES, edit(one_page_fewer, "total+1000"), method="POST")
    o = outcome(lambda: fresh.private.companies())
    assert o.error is None, repr(o.error)
    assert "page_from_0" not in o.value.attrs
    assert any("exactly one page of 1000 rows short" in m for m in o.warned(ServiceContractWarning))
    sent = proxy.sent()
    assert sent[0] is None and 0 not in sent and 1 not in sent, sent


def test_an_outage_stop_keeps_the_pages_that_already_arrived(direct, via, proxy):
    """Pages of 500 rows that take 0.1 s each: after pages 2 and 3 the walk fetches ahead,
    pages 4-6 fail for good (the walk stops as for an outage), and page 7, fetched beside
    them in one attempt, has arrived: its rows are kept and it is not named as failed."""
    ref = direct.private.deals()
    assert len(ref) > 3500
    proxy.add(r"/transactions$", clamp_limit(500))
    proxy.add(r"/transactions$", trickle(0.1))
    proxy.add(r"/transactions$", html(503), when=lambda ex: ex.page in (4, 5, 6))
    # the failing pages answer slower than the others (0.5 s), so that page 7, sent beside
    # them, has arrived when they have failed for good, whatever the machine's load
    proxy.add(r"/transactions$", trickle(0.5), when=lambda ex: ex.page in (4, 5, 6))
    error = outcome(lambda: via.private.deals()).error
    assert isinstance(error, IncompleteResultError), error
    assert error.failed[:3] == [4, 5, 6] and 7 not in error.failed
    kept = set(error.partial["id"])
    assert set(ref["id"].iloc[:1500]) | set(ref["id"].iloc[3000:3500]) <= kept
    assert kept.isdisjoint(ref["id"].iloc[1500:3000])
