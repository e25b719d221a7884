"""Pagination ``meta`` that contradicts the pages, said once per call, over the drift proxy.

Each of these used to pass without a word (the rows came whole, the walk quietly spent a
request or believed a wrong value):

- ``has_more`` true on a page short of the page size, the page after it empty: the walk asks
  that empty page (``has_more`` could be true), and now says ``has_more`` was not true;
- ``meta`` without ``total`` and ``has_more`` (``page``, ``limit``, ``returned`` present): the
  walk pages until a short page, with nothing to count the rows against;
- a ``meta.page`` other than the page asked;
- a ``meta.limit`` below the rows a page holds: it was adopted as the page size (the walk
  then asked pages of 10 rows, read 990 of them again and said only that rows repeated); it is
  now ignored, and said.

Each is a ``bad_meta`` finding (a ``meta`` value not to be believed; no rows are lost), said
once per call however many pages or ids show it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Proxy,
    assert_same,
    clamp_limit,
    direct,
    edit,
    fresh,
    fresh_rules,
    meta_delete,
    meta_set,
    no_hang,
    outcome,
    proxy,
)

from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
DEALS = f"^{P}/transactions$"
FUNDINGS = f"^{P}/companies/[^/]+/fundings$"
LIED = "has_more was not true"
NO_END = "meta says neither total nor has_more"
PAGE = "meta.page is not the page asked"
LIMIT = "meta.limit 10 is below the rows a page holds"


@pytest.fixture(scope="module")
def reference(direct: Any) -> dict[str, Any]:
    """The deals, and the fundings of the five companies with the most deals, as served."""
    deals = direct.private.deals()
    ids = [str(i) for i in deals["target_id"].value_counts().index[:5]]
    return {"deals": deals, "ids": ids, "fundings": direct.private.fundings(ids)}


def said(got: Any, words: str) -> list[str]:
    """The call's ``ServiceContractWarning`` messages holding ``words``."""
    return [m for m in got.warned(ServiceContractWarning) if words in m]


def test_has_more_true_on_the_short_last_page_of_a_list_is_said(fresh, proxy: Proxy, reference):
    """Every page says ``has_more`` true: the walk asks the empty page past the last, and
    says so once, of the short page; the rows are those served."""
    proxy.add(DEALS, meta_set(has_more=True), method="POST")
    got = outcome(lambda: fresh.private.deals())
    assert got.error is None
    assert_same(got.value, reference["deals"])
    lied = said(got, LIED)
    assert len(lied) == 1, got.warned(ServiceContractWarning)
    last = max(proxy.pages(DEALS)) - 1
    assert f"page {last}:" in lied[0]
    assert [f["kind"] for f in got.value.attrs["findings"] if LIED in f["message"]] == ["bad_meta"]


def test_has_more_true_on_sub_collections_is_said_once_per_call(fresh, proxy: Proxy, reference):
    """Fundings of five ids, each one page whose ``has_more`` is true: one warning."""
    proxy.add(FUNDINGS, meta_set(has_more=True))
    got = outcome(lambda: fresh.private.fundings(reference["ids"]))
    assert got.error is None
    assert_same(got.value, reference["fundings"])
    assert len(said(got, LIED)) == 1, got.warned(ServiceContractWarning)


def test_meta_without_total_and_has_more_is_said_once(fresh, proxy: Proxy, reference):
    proxy.add(DEALS, meta_delete("total", "has_more"), method="POST")
    got = outcome(lambda: fresh.private.deals())
    assert got.error is None
    assert_same(got.value, reference["deals"])
    assert len(said(got, NO_END)) == 1, got.warned(ServiceContractWarning)


def test_meta_page_other_than_the_page_asked_is_said_once(fresh, proxy: Proxy, reference):
    """``meta.page`` 1 on every page of a list; 2 on a sub-collection's page 1."""
    proxy.add(DEALS, meta_set(page=1), method="POST")
    got = outcome(lambda: fresh.private.deals())
    assert got.error is None
    assert_same(got.value, reference["deals"])
    pages = said(got, PAGE)
    assert len(pages) == 1 and "page=2 asked, meta.page 1" in pages[0], pages
    proxy.reset()
    proxy.add(FUNDINGS, meta_set(page=2))
    got = outcome(lambda: fresh.private.fundings(reference["ids"]))
    assert_same(got.value, reference["fundings"])
    pages = said(got, PAGE)
    assert len(pages) == 1 and "page=1 asked, meta.page 2" in pages[0], pages


def test_meta_page_of_one_page_read_is_one_finding(fresh, proxy: Proxy):
    """``private.page`` said a wrong ``meta.page`` twice (a ``bad_meta`` and a ``wrong_page``
    of its own words): one finding, one warning."""
    proxy.add(f"^{P}/companies$", meta_set(page=7), method="POST")
    got = outcome(lambda: fresh.private.page("companies", page=2))
    assert got.error is None
    warned = got.warned(ServiceContractWarning)
    assert len(warned) == 1 and "page=2 asked, meta.page 7" in warned[0], warned
    kinds = [f["kind"] for f in got.value.attrs["findings"] if "meta.page" in f["message"]]
    assert kinds == ["bad_meta"], got.value.attrs["findings"]
    assert len(got.value.attrs["findings"]) == 1, got.value.attrs["findings"]


def test_meta_limit_below_the_rows_of_a_page_is_ignored_and_said(fresh, proxy: Proxy, reference):
    """``meta.limit`` 10 on pages of 1000 rows: not taken as the page size (the walk asks the
    pages it would have asked), said once."""
    proxy.add(DEALS, meta_set(limit=10), method="POST")
    got = outcome(lambda: fresh.private.deals())
    assert got.error is None
    assert_same(got.value, reference["deals"])
    assert len(said(got, LIMIT)) == 1, got.warned(ServiceContractWarning)
    assert not said(got, "came more than once")
    assert len(proxy.pages(DEALS)) == -(-len(reference["deals"]) // 1000)


def test_sound_meta_says_nothing(fresh, proxy: Proxy, reference):
    """The sandbox's own pages: none of these words."""
    got = outcome(lambda: fresh.private.deals())
    assert got.error is None
    for words in (LIED, NO_END, PAGE, "meta.limit"):
        assert not said(got, words)


def test_full_pages_of_a_smaller_size_followed_by_an_empty_one_say_nothing(
    fresh, proxy: Proxy, reference
):
    """The service serves pages of 100 (its ``meta.limit`` 100) to a request for 1000, with no
    ``total`` and ``has_more`` true on every full page: its last full page is followed by an
    empty one, which is no ``has_more`` to doubt (the page was full at the size in force)."""

    deals = reference["deals"]
    # the last page full: the rows cut to a whole number of pages of 100
    keep = set(deals["id"].iloc[: len(deals) // 100 * 100])

    def full_says_more(doc: Any) -> Any:
        doc["data"] = [row for row in doc["data"] if row["id"] in keep]
        meta = doc["meta"]
        meta.pop("total", None)
        meta["returned"] = len(doc["data"])
        meta["has_more"] = len(doc["data"]) == meta["limit"]
        return doc

    proxy.add(DEALS, clamp_limit(100), edit(full_says_more), method="POST")
    got = outcome(lambda: fresh.private.deals())
    assert got.error is None
    assert len(got.value) == len(keep) and got.value.attrs["page_size"] == 100
    assert not said(got, LIED), got.warned(ServiceContractWarning)
    # the empty page past the last full one was asked (has_more said more follow)
    assert max(proxy.pages(DEALS)) == len(keep) // 100 + 1
