"""The review of short pages and page-size refusals, over HTTP through the drift proxy.

- A service whose last, short page still says ``has_more: true`` (its ``meta.total``,
  ``returned`` and rows right) was said to have lost rows on that page (``count_mismatch``;
  under ``strict``, "received 4952 of 4952 rows"): the rows read reaching ``meta.total``, or
  an empty next page without one, say the short page was the last.
- Refusals about something else than the page size ("sort field not supported", "too many
  values in filter (at most 500)", a rate bound) were read as page-size bounds (a request
  more, then "limit 500 refused") or given the open point of the page size: they are now
  raised in the service's words, after one request.
- A service that clamps ``limit`` silently (``meta.limit`` repeats the ask) and says
  ``total`` but no ``has_more`` stopped after its first page.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Proxy,
    api_error,
    assert_same,
    direct,
    fresh,
    fresh_rules,
    meta_delete,
    meta_set,
    no_hang,
    outcome,
    proxy,
    refuse,
)
from test_short_pages_and_page_bounds import silent_clamp

from dealframe.errors import ApiError, BadRequestError, ServiceContractError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
DEALS = f"^{P}/transactions$"


def last_page(direct: Any) -> int:
    """The page number of the last page of every deal, in pages of 1,000."""
    return -(-len(direct.private.deals()) // 1000)


# ------------------------------------------------------------------ a last page saying has_more


@pytest.mark.parametrize("total", [True, False])
def test_a_last_short_page_saying_has_more_is_no_loss(
    fresh: Any, direct: Any, proxy: Proxy, total: bool
):
    """The last page (952 rows of 4,952) says ``has_more: true``; with its ``meta.total``
    right, or with no ``total`` at all (the next page, empty, ends the walk). No rows are said
    lost; the ``has_more`` that was not true is a ``bad_meta`` (said once; under ``strict``, a
    ``ServiceContractError``, not an ``IncompleteResultError``)."""
    want = direct.private.deals()
    last = last_page(direct)
    assert len(want) % 1000, "the sandbox's deals fill their last page"
    proxy.add(DEALS, meta_set(has_more=True), page=last, method="POST")
    if not total:
        proxy.add(DEALS, meta_delete("total"), method="POST")
    got = outcome(lambda: fresh.private.deals())
    assert got.error is None, repr(got.error)
    assert_same(got.value, want, ignore_index=True)
    assert [f["kind"] for f in got.value.attrs["findings"]] == ["bad_meta"]
    assert "has_more was not true" in got.value.attrs["findings"][0]["message"]
    strict = outcome(lambda: fresh.private.deals(strict=True))
    assert type(strict.error) is ServiceContractError, repr(strict.error)
    assert strict.error.finding == "bad_meta"


def test_a_short_page_saying_has_more_before_rows_is_still_said(
    fresh: Any, direct: Any, proxy: Proxy
):
    """Without ``total``, a short page whose next page holds rows lost rows: said."""
    proxy.add(DEALS, meta_delete("total"), method="POST")
    proxy.add(DEALS, meta_set(has_more=True), method="POST")  # every page, the last included
    from _drift_proxy import drop_rows, recount

    proxy.add(DEALS, drop_rows(2), recount(), page=2, method="POST")
    got = outcome(lambda: fresh.private.deals(limit=3000))
    assert got.error is None, repr(got.error)
    said = got.warned(ServiceContractWarning)
    assert any("page 2 holds 998 rows" in m and "2 rows lost" in m for m in said), said


# ------------------------------------------------------------------ a silent clamp, no has_more


@pytest.mark.parametrize("limit", [None, 1000])
def test_a_silent_clamp_with_total_and_no_has_more_reads_whole(
    fresh: Any, direct: Any, proxy: Proxy, limit: int | None
):
    """Pages of 300 for 1,000 asked, ``meta.limit`` 1000, ``total`` and no ``has_more``:
    every row is read (it stopped at 300 rows with a count_mismatch)."""
    proxy.add(DEALS, silent_clamp(300), meta_delete("has_more"), method="POST")
    got = outcome(lambda: fresh.private.deals(limit=limit, strict=True))
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.private.deals(limit=limit), ignore_index=True)
    assert got.value.attrs["page_size"] == 300
    assert not got.warned(ServiceContractWarning)


# ------------------------------------------------------------------ refusals of other things

OTHER_REFUSALS = {
    "sort": (400, "sort field not supported"),
    "filter value": (400, "Invalid filter value"),
    "filter count": (422, "too many values in filter (at most 500)"),
    "rate": (400, "request rate exceeds the maximum of 100 per minute"),
}


@pytest.mark.parametrize("name", list(OTHER_REFUSALS))
def test_a_refusal_of_something_else_is_raised_in_its_own_words(
    fresh: Any, proxy: Proxy, name: str
):
    """One request, the service's words, no word of the page size."""
    status, words = OTHER_REFUSALS[name]
    proxy.add(COMPANIES, api_error(status, "BAD_REQUEST", words), method="POST")
    got = outcome(lambda: fresh.private.companies())
    assert isinstance(got.error, ApiError) and got.error.status == status, repr(got.error)
    assert words in str(got.error)
    assert "limit" not in str(got.error), str(got.error)
    assert "section 4.2" not in str(got.error)
    assert proxy.count(COMPANIES, method="POST") == 1


def test_a_refusal_of_no_words_names_the_open_point_as_a_may_be(fresh: Any, proxy: Proxy):
    """A 400 saying only its status phrase may be about the page: the open point is named,
    conditionally."""
    proxy.add(COMPANIES, refuse(400, lambda n: {"detail": "Bad request"}, 100, "limit"))
    got = outcome(lambda: fresh.private.companies())
    assert isinstance(got.error, BadRequestError), repr(got.error)
    assert "section 4.2" in str(got.error)
    assert "may be" in str(got.error)
