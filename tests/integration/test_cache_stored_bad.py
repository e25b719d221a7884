"""A stored answer that fails its checks, over real HTTP with a real cache file (issue 12: "a
stored bad entry is deleted and fetched again").

A client fills the cache through the drift proxy; the test then spoils the stored bodies in
the SQLite file itself (a gateway's page, ``data: null``, JSON cut short: what a damaged,
edited or foreign file can hold) and a new client on that file makes the same call with
``retries=0``. The service is healthy, so each spoiled entry is asked of it once and the call
returns the undisturbed frame, with a ``DealframeWarning`` that a stored answer was discarded.

Before, re-fetching cost one of the call's retries: with ``retries=0`` the call raised
``ServiceContractError`` ("success answer is not a {data, meta} document") without a request,
blaming the service for a body that came from the cache; a stored ``data: null`` was answered
from the cache as no rows.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from requests_cache import SQLiteCache

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    assert_same,
    direct,
    fresh_rules,
    html,
    no_hang,
    outcome,
    proxy,
)

from dealframe import Client
from dealframe.errors import ServiceContractError
from dealframe.notices import DealframeWarning, ServiceContractWarning

HANG_LIMIT = 60
P = "/api/private/v1"

SPOILED = {
    "a gateway's page": b"<html><body>502 Bad Gateway</body></html>",
    "data null": b'{"data": null, "meta": {"count": 0}}',
    "JSON cut short": b'{"data": [{"sku": "A',
}

# the call, and the path whose stored answers are spoiled (discovery documents are left alone)
CALLS: dict[str, tuple[str, Callable[[Client], Any]]] = {
    "group current (one request)": (
        "/api/v2/groups/current",
        lambda c: c.public.group_current(regions=["Oceania"]),
    ),
    "search (one request)": ("/api/v2/companies", lambda c: c.public.search(regions=["Oceania"])),
    "deals (pages looked up on the caller's thread, then on the workers)": (
        f"{P}/transactions",
        lambda c: c.private.deals(),
    ),
}


def _client(sandbox: Any, url: str, path: Path) -> Client:
    settings = {**FAST, "retries": 0}
    return Client(url, sandbox.public_token, sandbox.private_key, cache_path=path, **settings)


def _spoil(path: Path, endpoint: str, body: bytes) -> int:
    """Replace the body of every stored answer to ``endpoint``; how many there were."""
    stored = SQLiteCache(path)
    spoiled = 0
    for key in list(stored.responses.keys()):
        response = stored.responses[key]
        if response.url.split("?")[0].endswith(endpoint):
            response._content = body
            stored.responses[key] = response
            spoiled += 1
    stored.close()
    return spoiled


@pytest.mark.parametrize("body", SPOILED)
@pytest.mark.parametrize("case", CALLS)
def test_a_spoiled_stored_answer_is_asked_of_the_service_outside_the_retries(
    case, body, sandbox, proxy, direct, tmp_path
):
    endpoint, call = CALLS[case]
    path = tmp_path / "http-cache.sqlite"
    ref = call(direct)
    with _client(sandbox, proxy.url, path) as writer:
        assert_same(call(writer), ref)
    spoiled = _spoil(path, endpoint, SPOILED[body])
    assert spoiled >= 1
    asked = proxy.count(f"^{endpoint}$")
    with _client(sandbox, proxy.url, path) as reader:
        got = outcome(lambda: call(reader))
        stats = reader.stats.snapshot()
    assert got.error is None, repr(got.error)  # retries=0 and yet the answer
    assert_same(got.value, ref)
    assert got.value.attrs["from_cache"] is False
    assert proxy.count(f"^{endpoint}$") - asked == spoiled  # each asked once, no more
    assert stats["retries"] == 0 and stats["network"] == spoiled
    said = got.warned(DealframeWarning)
    assert said and all(
        endpoint in s and "a stored answer in the HTTP cache" in s and "discarded" in s
        for s in said
    ), said
    assert not got.warned(ServiceContractWarning)  # nothing blamed on the service
    asked = proxy.count(f"^{endpoint}$")
    with _client(sandbox, proxy.url, path) as later:  # the good answers were stored
        again = outcome(lambda: call(later))
    assert again.error is None and not again.warned(DealframeWarning)
    assert_same(again.value, ref)
    assert again.value.attrs["from_cache"] is True and proxy.count(f"^{endpoint}$") == asked


def test_a_body_the_service_sends_wrong_is_still_its_fault(sandbox, proxy, tmp_path):
    """The service's own bad answer is not taken for a stored one: with ``retries=0`` it is
    a ``ServiceContractError`` that says the service sent it."""
    proxy.add("^/api/v2/companies$", html(200, size=200), times=1)
    with _client(sandbox, proxy.url, tmp_path / "http-cache.sqlite") as client:
        got = outcome(lambda: client.public.search(regions=["Oceania"]))
    assert isinstance(got.error, ServiceContractError), repr(got.error)
    assert "the service's success answer" in str(got.error)
    assert not [s for s in got.warned(DealframeWarning) if "stored answer" in s]
