"""Pages fetched on a worker with their body left unread, over HTTP through the drift proxy.

From a fast service the page walk keeps one page in flight on a worker that leaves its body
unread, for the caller's thread to read. A body that failed there (``NaN`` tokens, not JSON,
cut short) was fetched again on the caller's thread with the whole retry budget: with
``retries=0`` the page was asked twice, a whole body with ``NaN`` tokens was asked twice
(the transport reads it as null and warns, no second request). Each test pulls the same deals
with one worker (every page fetched and judged by the transport on the caller's thread) and
with four, and asserts the same requests, warnings, errors and statistics.
A straggler's resend (which uses no retry) whose body failed on the caller's thread was
counted as a used retry there: the page was asked once fewer than with one worker, and failed.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dealframe import Client
from dealframe.errors import IncompleteResultError, ServiceContractError, TransportError
from dealframe.notices import ServiceContractWarning

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Outcome,
    assert_same,
    fresh_rules,
    html,
    outcome,
    proxy,
)

P = "/api/private/v1"
DEALS = f"^{P}/transactions$"
ROWS = 6000  # six pages of 1,000: pages 3.. go to a worker once pages 1 and 2 set the pace
PAGE = 5


def nan_for_null(field: str) -> Action:
    """``"field": NaN`` where the sandbox writes null (a whole body the transport reads)."""

    def apply(ex: Any) -> None:
        ex.content = re.sub(rb'("%s"):\s*null' % field.encode(), rb"\1:NaN", ex.content)
        ex._doc = None

    return Action("NaN for null", on_response=apply)


def json_cut_short() -> Action:
    """The body cut in half, its ``Content-Length`` the half's: JSON that does not end."""

    def apply(ex: Any) -> None:
        ex.content = ex.content[: len(ex.content) // 2]
        ex._doc = None

    return Action("JSON cut short", on_response=apply)


def pull(sandbox: Any, proxy: Any, workers: int, retries: int) -> tuple[Outcome, dict, int]:
    """The deals through the proxy: the outcome, the client's statistics and the requests
    for page ``PAGE``; no thread of the walk is left running."""
    before = proxy.pages(DEALS).count(PAGE)
    settings = dict(FAST, retries=retries, max_workers=workers)
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **settings
    ) as c:
        o = outcome(lambda: c.private.deals(limit=ROWS))
        stats = c.stats.snapshot()
    assert not [t.name for t in threading.enumerate() if t.name.startswith("dealframe-pages")]
    return o, stats, proxy.pages(DEALS).count(PAGE) - before


def _said(o: Outcome) -> list[str]:
    return [str(w) for w in o.warned(ServiceContractWarning)]


def _counts(stats: dict) -> tuple[Any, ...]:
    return tuple(stats.get(k) for k in ("calls", "attempts", "retries", "failures", "network"))


@pytest.mark.parametrize("retries", [0, 1])
def test_a_whole_body_with_nan_tokens_is_read_as_null_once_not_asked_again(sandbox, proxy, retries):
    proxy.add(DEALS, nan_for_null("deal_valuation"), page=PAGE)
    alone, alone_stats, alone_asked = pull(sandbox, proxy, 1, retries)
    ahead, ahead_stats, ahead_asked = pull(sandbox, proxy, 4, retries)
    assert alone.error is None and ahead.error is None, (alone.error, ahead.error)
    assert alone_asked == ahead_asked == 1
    assert_same(ahead.value, alone.value)
    said = _said(ahead)
    assert said == _said(alone) and len(said) == 1, said
    assert "(NaN): read as null" in said[0]
    assert ahead.value.attrs["requests"] == alone.value.attrs["requests"]
    assert _counts(ahead_stats) == _counts(alone_stats)


@pytest.mark.parametrize(
    ("fault", "kind"),
    [(html(200), ServiceContractError), (json_cut_short(), TransportError)],
    ids=["not JSON", "JSON cut short"],
)
@pytest.mark.parametrize("retries", [0, 1])
def test_a_bad_body_read_here_honours_what_is_left_of_the_retries(
    sandbox, proxy, fault, kind, retries
):
    proxy.add(DEALS, fault, page=PAGE)
    alone, alone_stats, alone_asked = pull(sandbox, proxy, 1, retries)
    ahead, ahead_stats, ahead_asked = pull(sandbox, proxy, 4, retries)
    assert alone_asked == ahead_asked == retries + 1
    for o in (alone, ahead):
        assert isinstance(o.error, IncompleteResultError), repr(o.error)
    [failed] = ahead.error.errors
    [failed_alone] = alone.error.errors
    assert type(failed) is type(failed_alone) is kind
    assert str(failed) == str(failed_alone)
    assert failed.attempts == failed_alone.attempts == retries + 1
    assert _counts(ahead_stats) == _counts(alone_stats)


def test_a_bad_body_read_here_is_asked_again_when_retries_are_left(sandbox, proxy):
    proxy.add(DEALS, html(200), page=PAGE, times=1)
    alone, _, alone_asked = pull(sandbox, proxy, 1, 1)
    proxy.add(DEALS, html(200), page=PAGE, times=1)
    ahead, _, ahead_asked = pull(sandbox, proxy, 4, 1)
    assert alone.error is None and ahead.error is None, (alone.error, ahead.error)
    assert alone_asked == ahead_asked == 2
    assert_same(ahead.value, alone.value)


def first_stalls(seconds: float) -> Action:
    """The first request the rule matches stalls ``seconds`` before it is forwarded (a
    straggler the transport cuts and sends again); the second gets a gateway's HTML 200."""
    seen = [0]
    lock = threading.Lock()
    gateway = html(200).on_response
    assert gateway is not None

    def ask(ex: Any) -> None:
        with lock:
            seen[0] += 1
            ex.nth = seen[0]
        if ex.nth == 1:
            time.sleep(seconds)

    def answer(ex: Any) -> None:
        if ex.nth == 2:
            gateway(ex)

    return Action("stall, then HTML", on_request=ask, on_response=answer)


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_a_straggler_s_free_resend_is_still_free_when_its_body_is_read_here(
    sandbox, proxy, workers
):
    # A straggler is sent again without using a retry. On a worker that leaves the body
    # unread, the resend's HTML body was judged on this thread as if that resend had used the
    # request's only retry: with two or four workers the page was asked twice and failed.
    settings = dict(FAST, cut_stragglers=True, retries=1, max_workers=workers)
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **settings
    ) as c:
        want = c.private.deals(limit=ROWS)  # twice: 8 answers of the endpoint set its cut-off
        c.private.deals(limit=ROWS)
        proxy.add(DEALS, first_stalls(3.0), page=PAGE)
        before = proxy.pages(DEALS).count(PAGE)
        o = outcome(lambda: c.private.deals(limit=ROWS))
        stats = c.stats.snapshot()
    assert stats["faults"]["straggler"] == 1, stats  # (else the machine was too slow to cut)
    assert o.error is None, repr(o.error)
    assert proxy.pages(DEALS).count(PAGE) - before == 3  # stalled, HTML, whole
    assert_same(o.value, want)
