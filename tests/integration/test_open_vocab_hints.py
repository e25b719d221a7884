"""Family B's open vocabularies (verticals, themes, ...) are matched exactly by the service:
a value spelt otherwise matches nothing, and the empty answer says which value and the close
spelling the companies carry (as Family A's search does), never silently.

The page of companies the hint reads is read once per client (a loop over 50 verticals
pays one page, not 50), and its request never waits out a ``Retry-After`` for a mere hint.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ListedClock, clock  # noqa: F401 - fixture
from _drift_proxy import (  # noqa: F401 - fixtures
    Action,
    Exchange,
    Proxy,
    fresh_rules,
    meta_delete,
    no_hang,
    proxy,
)

import dealframe
import dealframe.sandbox
from dealframe.notices import MissingDataWarning

COMPANIES = "^/api/private/v1/companies$"


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, cache_enabled=False, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def carried(client):
    """A vertical and a theme the companies carry."""
    rows = client.private.companies(limit=200)
    vertical = next(v for cell in dealframe.to_lists(rows["verticals"]).dropna() for v in cell)
    theme = next(v for cell in dealframe.to_lists(rows["themes"]).dropna() for v in cell)
    return vertical, theme


def calls(client):
    return client.stats.snapshot()["calls"]


def test_a_value_in_another_case_is_named_with_the_carried_spelling(client, carried):
    vertical, theme = carried
    with pytest.warns(MissingDataWarning) as seen:
        frame = client.private.companies(verticals=[vertical.lower()])
    assert len(frame) == 0
    (message,) = [str(w.message) for w in seen if "filters.verticals[0]" in str(w.message)]
    assert repr(vertical.lower()) in message and f"did you mean {vertical!r}" in message
    with pytest.warns(MissingDataWarning, match=rf"filters\.themes\[1\].*{theme!r}"):
        frame = client.private.companies(themes=["Qqqqzzzz", theme.swapcase()])
    assert len(frame) == 0


def test_deals_filtered_on_a_misspelt_target_vertical_say_so(client, carried):
    vertical, _ = carried
    before = calls(client)
    with pytest.warns(MissingDataWarning, match=rf"filters\.target_verticals\[0\].*{vertical!r}"):
        deals = client.private.deals(target_verticals=[vertical.swapcase()])
    assert len(deals) == 0 and calls(client) > before


def test_an_ownership_label_in_another_case_is_named_with_the_carried_spelling(client):
    """``ownership`` is an exact label (interface document 4.4, ``eq``): a wrong case matches
    nothing, and the empty answer names the label the companies carry, as for the open
    vocabularies (it said nothing)."""
    rows = client.private.companies(limit=200)
    label = next(v for v in rows["ownership"].dropna() if v != v.lower())
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingDataWarning)
        assert len(client.private.companies(ownership=label)) > 0
    with pytest.warns(MissingDataWarning) as seen:
        frame = client.private.companies(ownership=label.lower())
    assert len(frame) == 0
    (message,) = [str(w.message) for w in seen if "filters.ownership:" in str(w.message)]
    assert repr(label.lower()) in message and f"did you mean {label!r}" in message


def test_one_page_of_a_misspelt_query_names_the_carried_spelling(client, carried):
    """``page()`` (one page, for callers that page themselves) reads its filters as the list
    calls do, and an empty query says so the same way (it said nothing); a page past the end
    of a query that matched rows is no empty query, and says nothing."""
    vertical, _ = carried
    with pytest.warns(MissingDataWarning) as seen:
        frame = client.private.page("companies", {"verticals": [vertical.swapcase()]})
    assert len(frame) == 0 and frame.attrs["total"] == 0
    (message,) = [str(w.message) for w in seen if "filters.verticals[0]" in str(w.message)]
    assert f"did you mean {vertical!r}" in message
    first = client.private.page("companies", {"verticals": [vertical]}, limit=1000)
    assert first.attrs["total"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingDataWarning)
        past = client.private.page("companies", {"verticals": [vertical]}, page=9999, limit=1000)
    assert len(past) == 0


def test_without_total_page_1_is_the_first_unless_pages_count_from_0(carried):
    """Without ``meta.total`` a page is taken for an empty query only when it is the service's
    first: page 0, or page 1 unless the client found the service counting pages from 0 (then
    an empty page 1 is past the end, and a hint there read a page of 1,000 companies for
    nothing); a client that pages alone, on a service counting from 1, still gets the hint."""
    vertical, _ = carried
    for profile in ("default", "page-from-0"):
        with (
            dealframe.sandbox.run(scale=0.05, profile=profile) as sb,
            Proxy(sb.url) as px,
            dealframe.Client(px.url, sb.public_token, sb.private_key, cache_enabled=False) as c,
        ):
            px.add(COMPANIES, meta_delete("total"))
            if profile == "default":  # a fresh client paging alone
                with pytest.warns(MissingDataWarning, match="did you mean"):
                    c.private.page("companies", {"verticals": [vertical.swapcase()]})
                continue
            assert len(c.private.deals()) > 1000  # a walk of two pages or more
            assert c.private._first_page == 0  # the walk found pages counted from 0
            before = px.count(COMPANIES)
            with warnings.catch_warnings():
                warnings.simplefilter("error", MissingDataWarning)
                past = c.private.page("companies", {"verticals": [vertical]}, page=1, limit=1000)
            assert len(past) == 0 and px.count(COMPANIES) - before == 1  # no hint page read
            with pytest.warns(MissingDataWarning, match="did you mean"):
                c.private.page("companies", {"verticals": [vertical.swapcase()]}, page=0)


@pytest.fixture
def own(sandbox):
    """A client of its own: it has read no page for a hint yet."""
    with dealframe.Client.for_sandbox(sandbox, cache_enabled=False, progress=False) as c:
        for entity in ("companies", "transactions"):
            c.private.schema(entity)  # the discovery documents are read before counting
        yield c


def test_nothing_is_said_or_asked_when_rows_arrive_or_nothing_is_close(own, carried):
    vertical, _ = carried
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingDataWarning)
        before = calls(own)
        assert len(own.private.companies(verticals=[vertical], limit=5)) == 5
        after_rows = calls(own)
        assert len(own.private.companies(verticals=["Qqqqzzzz Wwww"])) == 0
    assert after_rows - before == 1  # one page of 5 rows: no hint read
    assert calls(own) - after_rows == 2  # the empty list, then one page read for the hint


def test_two_empty_answers_read_one_page_for_their_hints(own, carried):
    """The carried values are kept once read: the second empty answer is one request (it
    used to read 1,000 companies again after every empty answer, never cached)."""
    vertical, theme = carried
    before = calls(own)
    with pytest.warns(MissingDataWarning, match=rf"filters\.verticals\[0\].*{vertical!r}"):
        assert len(own.private.companies(verticals=[vertical.swapcase()])) == 0
    assert calls(own) - before == 2  # the empty list, then the page read for the hint
    with pytest.warns(MissingDataWarning, match=rf"filters\.target_themes\[0\].*{theme!r}"):
        assert len(own.private.deals(target_themes=[theme.swapcase()])) == 0
    assert calls(own) - before == 3  # the second empty list only


def _too_many_requests(ex: Exchange) -> None:
    ex.forward, ex.status, ex._doc = False, 429, None
    ex.headers = {"Content-Type": "application/json", "Retry-After": "30"}
    ex.content = orjson.dumps({"error": {"code": "RATE_LIMITED", "message": "slow down"}})


def test_a_hint_refused_with_retry_after_is_left_not_waited_for(
    sandbox, proxy, carried, clock: ListedClock
):
    """A 429 asking to wait 30 s on the hint's page: the empty answer is returned at once,
    without the hint (it used to wait the 30 s and ask again, for a mere warning); the page
    is asked for again at the next empty answer, and then read.

    The client's gate runs on a manual clock (``clock``): the next call waits out the 30 s
    the service asked of every private request, as it should, in no time, and the waits
    made are listed (none before that call)."""
    vertical, _ = carried
    hint = proxy.add(
        COMPANIES,
        Action("too_many_requests", on_request=_too_many_requests),
        method="POST",
        when=lambda ex: isinstance(ex.body, dict) and "filters" not in ex.body,
    )
    with dealframe.Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=False,
        progress=False,
        retries=1,
        cut_stragglers=False,
    ) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("error", MissingDataWarning)
            assert len(client.private.companies(verticals=[vertical.swapcase()])) == 0
        assert hint.used == 1  # asked once, not again after 30 s
        assert client.stats.snapshot()["retries"] == 0
        assert clock.made == []  # the empty answer waited for nothing
        proxy.clear_rules()
        with pytest.warns(MissingDataWarning, match=rf"filters\.verticals\[0\].*{vertical!r}"):
            assert len(client.private.companies(verticals=[vertical.swapcase()])) == 0
    assert clock.made == [30.0]  # the next call waited out the 30 s asked, then read the page
