"""The review of fix-d2's page-size refusals and short last pages, over HTTP through the drift
proxy.

- A 413 page of a proxy in front of the service (nginx's stock page, Cloudflare's) names the
  server that wrote it (``nginx/1.18.0 (Ubuntu)``, ``cloudflare``): those words said more than
  the status, so the page was no longer adapted to (raised after one request), and the numbers
  of the version were read as a bound (pages of 18). A server's signature is no word of the
  refusal.
- A refusal about something else that says ``limit`` ("the limit is 500", "limit of 500
  values", "size limit of 1000 bytes") was read as a page-size bound and halved down to one
  row (10 requests, "limit 1 refused"): a bound of values or bytes is not the page's, and a
  refusal stating a bound refused again at that bound in the same words is not about the page.
- A walk whose ``limit`` lands inside a short last page saying ``has_more: true`` (no
  ``meta.total``) said rows were lost: the next page (one request) now settles it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
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

from dealframe.errors import ApiError, ServiceContractError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
DEALS = f"^{P}/transactions$"

#: Stock 413 pages of proxies in front of a service (their markup as they send it).
PAGES = {
    "nginx": (
        "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
        "<center><h1>413 Request Entity Too Large</h1></center>\r\n"
        "<hr><center>nginx/1.18.0 (Ubuntu)</center>\r\n</body>\r\n</html>\r\n"
    ),
    "cloudflare": (
        "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
        "<center><h1>413 Request Entity Too Large</h1></center>\r\n"
        "<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"
    ),
}


def refuse_html(page: str, over: int) -> Action:
    """A 413 HTML ``page`` (text/html) of a POST whose ``limit`` is above ``over``."""

    def apply(ex: Exchange) -> None:
        sent = ex.body.get("limit") if isinstance(ex.body, dict) else None
        if isinstance(sent, int) and sent > over:
            ex.forward, ex.status, ex._doc = False, 413, None
            ex.headers = {"Content-Type": "text/html"}
            ex.content = page.encode()

    return Action(f"refuse_html(limit > {over})", on_request=apply)


@pytest.mark.parametrize("server", list(PAGES))
def test_a_proxys_413_page_is_adapted_to(fresh: Any, direct: Any, proxy: Proxy, server: str):
    """The stock page says nothing but its status and its server: the page size is halved
    (no bound read from the version's numbers) until one is taken, and every row is read."""
    proxy.add(COMPANIES, refuse_html(PAGES[server], 100), method="POST")
    got = outcome(lambda: fresh.private.companies())
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.private.companies(), ignore_index=True)
    assert got.value.attrs["page_size"] == 62, got.value.attrs["page_size"]  # 1000 halved 4 times
    assert got.value.attrs.get("page_size_refused"), got.value.attrs


#: Refusals of something else that say "limit", and the requests they take (one: their words
#: are a bound of values or bytes; two: a bound stated, refused again there in the same words).
LIMIT_WORDS = {
    "the limit is": (422, "too many values in filter: the limit is 500", 2),
    "limit of values": (400, "filter investor_ids exceeds the limit of 500 values", 1),
    "size limit of bytes": (413, "request body exceeds size limit of 1000 bytes", 1),
}


@pytest.mark.parametrize("name", list(LIMIT_WORDS))
def test_a_refusal_of_something_else_saying_limit_is_raised_in_its_words(
    fresh: Any, proxy: Proxy, name: str
):
    """Raised in the service's words, with no word of the page size, after one or two
    requests (it took 10, halving down to one row, then "limit 1 refused")."""
    status, words, requests = LIMIT_WORDS[name]
    proxy.add(COMPANIES, api_error(status, "BAD_REQUEST", words), method="POST")
    got = outcome(lambda: fresh.private.companies())
    assert isinstance(got.error, ApiError) and got.error.status == status, repr(got.error)
    assert words in str(got.error)
    assert "refused" not in str(got.error) and "section 4.2" not in str(got.error)
    assert proxy.count(COMPANIES, method="POST") == requests
    proxy.clear_rules()  # the page size it lowered on the way was put back
    assert fresh.private.companies().attrs["page_size"] == 1000


def test_a_page_size_bound_refused_again_in_other_words_is_still_followed(
    fresh: Any, direct: Any, proxy: Proxy
):
    """A bound of the page stated and taken is no refusal again: pages of 100, all rows."""
    words = "limit must be at most 100"  # the same words at every size, 100 taken
    proxy.add(COMPANIES, refuse(400, lambda n: {"detail": words}, 100, "limit"), method="POST")
    got = outcome(lambda: fresh.private.companies())
    assert got.error is None, repr(got.error)
    assert got.value.attrs["page_size"] == 100
    assert_same(got.value, direct.private.companies(), ignore_index=True)


def test_limit_inside_a_short_last_page_saying_has_more_is_no_loss(
    fresh: Any, direct: Any, proxy: Proxy
):
    """``limit=4100`` of 4,952 deals: page 5 holds 952 rows and says ``has_more: true``, no
    ``meta.total``; page 6, asked once, is empty: nothing lost; the ``has_more`` that was not
    true is a ``bad_meta`` (said once; under ``strict`` a ``ServiceContractError``, not an
    ``IncompleteResultError``)."""
    every = direct.private.deals()
    assert 4100 < len(every) < 5000, len(every)
    proxy.add(DEALS, meta_delete("total"), method="POST")
    proxy.add(DEALS, meta_set(has_more=True), page=5, method="POST")
    got = outcome(lambda: fresh.private.deals(limit=4100))
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.private.deals(limit=4100), ignore_index=True)
    assert [f["kind"] for f in got.value.attrs["findings"]] == ["bad_meta"]
    assert "has_more was not true" in got.value.attrs["findings"][0]["message"]
    assert proxy.count(DEALS, method="POST") == 6  # pages 1-5, and page 6 to settle page 5
    strict = outcome(lambda: fresh.private.deals(limit=4100, strict=True))
    assert type(strict.error) is ServiceContractError, repr(strict.error)
    assert strict.error.finding == "bad_meta"


def test_limit_inside_a_short_page_before_more_rows_is_still_said(fresh: Any, proxy: Proxy):
    """Page 3 short of 2 rows, ``has_more: true``, no ``total``, ``limit`` inside it: page 4
    brings rows, so the rows lost are said."""
    from _drift_proxy import drop_rows, recount

    proxy.add(DEALS, meta_delete("total"), method="POST")
    proxy.add(DEALS, drop_rows(2), recount(), meta_set(has_more=True), page=3, method="POST")
    got = outcome(lambda: fresh.private.deals(limit=2500))
    assert got.error is None, repr(got.error)
    said = got.warned(ServiceContractWarning)
    assert any("page 3 holds 998 rows" in m and "2 rows lost" in m for m in said), said
