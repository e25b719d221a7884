"""List walks against services that page differently from the sandbox, over the drift proxy.

The interface document leaves the upper bound of ``limit`` for POST lists, and how ``page``
counts, "not shown". Each test rewrites the sandbox's answers into one such service and
asserts that the client reads the same rows as one talking to the sandbox directly, or says
what it could not do, and how many requests it needed.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    assert_same,
    clamp_limit,
    direct,
    edit,
    fresh_rules,
    meta_delete,
    no_hang,
    outcome,
    proxy,
    via,
)

from dealframe import doctor, mirror
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
    page, and strict=True gets the whole list (it used to get 100 rows, silently)."""
    proxy.add(COMPANIES, clamp_limit(100), rewrite)
    o = outcome(lambda: via.private.companies(strict=rewrite.name != "no_meta"))
    assert o.error is None, repr(o.error)
    assert_same(o.value, companies_ref, ignore_index=True)
    assert o.value.attrs["page_size"] == 100
    pages = -(-len(companies_ref) // 100)
    asked = proxy.pages(COMPANIES)
    # every page once; with no total the walk may have asked up to a window ahead
    assert sorted(asked)[:pages] == list(range(1, pages + 1))
    assert len(set(asked)) == len(asked) <= pages + FAST["max_workers"]
    no_meta_warned = [m for m in o.warned(ServiceContractWarning) if "no meta" in m]
    assert len(no_meta_warned) == (rewrite.name == "no_meta")  # said once, not per page


def test_a_short_only_page_without_meta_costs_one_request_more(via, direct, proxy):
    """Page 1 really is the last: the empty page 2 (asked at page 1's size) ends the walk."""
    filters = {"deal_type": ["M&A"], "date_from": "2024-06-01", "date_to": "2024-06-30"}
    ref = direct.private.deals(**filters)
    assert 0 < len(ref) < 1000
    proxy.add(DEALS, meta_delete("total", "has_more", "limit"))
    got = via.private.deals(**filters, strict=True)
    assert_same(got, ref, ignore_index=True)
    assert proxy.pages(DEALS) == [1, 2]


def test_the_sandbox_gets_no_extra_request(via, direct, proxy):
    """With ``meta`` (the sandbox) a short page 1 is the last: one request."""
    filters = {"deal_type": ["M&A"], "date_from": "2024-06-01", "date_to": "2024-06-30"}
    got = via.private.deals(**filters)
    assert_same(got, direct.private.deals(**filters), ignore_index=True)
    assert proxy.pages(DEALS) == [1]


def test_mirror_sync_reads_every_row_when_meta_says_nothing_of_what_follows(
    via, direct, proxy, tmp_path
):
    """``mirror.sync`` through a service serving 100 rows a page without total/has_more:
    the same table as a sync straight from the sandbox (it used to stop after 100 rows)."""
    proxy.add(f"^{P}/transactions$", clamp_limit(100), meta_delete("total", "has_more", "limit"))
    mirror.sync(via, tmp_path / "via", ["deals"], progress=False)
    mirror.sync(direct, tmp_path / "direct", ["deals"], progress=False)
    got = mirror.load(tmp_path / "via", "deals", include_deleted=True)
    want = mirror.load(tmp_path / "direct", "deals", include_deleted=True)
    assert len(got) > 1000
    assert_same(got.sort_values("id", ignore_index=True), want.sort_values("id", ignore_index=True))


def test_the_doctor_reports_the_rows_a_clamped_list_served(via, proxy):
    """A list clamped to 100 rows whose meta says neither total, has_more nor limit: the doctor
    says 100 of 1,000 arrived (it used to say 1000 rows per page) and what the walk does."""
    proxy.add(f"^{P}/companies$", clamp_limit(100), meta_delete("total", "has_more", "limit"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(via)
    check = next(c for c in diagnosis.checks if c.name == "B.paging.limit")
    assert check.observed.startswith("100 rows of 1,000 asked"), check.observed
    assert "page 2 at 100 rows" in check.observed
    assert check.verdict == "adapted"
