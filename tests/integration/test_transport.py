"""The transport against a real HTTP server (uvicorn on loopback) with injected faults.

Nothing here is mocked: a tiny echo app (tests/integration/_asgi_server.py) wrapped in the
sandbox's FaultInjector serves each request, and the transport talks to it over TCP.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import stat
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest

from dealframe.config import Settings
from dealframe.errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    IncompleteResultError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    TransportError,
    ValidationError,
)
from dealframe.sandbox.faults import FaultPlan
from dealframe.transport.paging import map_concurrent
from dealframe.transport.session import Transport

sys.path.insert(0, str(Path(__file__).parent))
from _asgi_server import established_to, serve
from _clock import ManualClock

PUBLIC = "pub-" + secrets.token_hex(16)
PRIVATE = "priv-" + secrets.token_hex(16)


def _auth_fp(token: str) -> str:
    return hashlib.sha256(f"Bearer {token}".encode()).hexdigest()[:8]


@pytest.fixture(scope="module")
def server():
    with serve(PUBLIC, PRIVATE, FaultPlan()) as served:
        yield served


@pytest.fixture(autouse=True)
def _fresh(server):
    server.plan.reset()
    server.plan.retry_after = 1.0
    server.plan.slow_seconds = 2.0
    with server.state.lock:
        server.state.hits.clear()
        server.state.auth_seen.clear()
        server.state.responses.clear()
        server.state.extra_public_tokens.clear()
    yield


@pytest.fixture
def make(server, tmp_path):
    made: list[Transport] = []

    def factory(**overrides) -> Transport:
        values = dict(
            base_url=server.url,
            public_token=PUBLIC,
            private_key=PRIVATE,
            cache_path=tmp_path / "cache" / "http_cache.sqlite",
            backoff_base=0.01,
            backoff_cap=0.05,
            retry_after_max=5.0,
            connect_timeout=2.0,
            read_timeout=5.0,
        )
        values.update(overrides)
        transport = Transport(Settings(**values))
        made.append(transport)
        return transport

    yield factory
    for transport in made:
        transport.close()


# -- authentication and families -------------------------------------------------------------


def test_each_token_goes_only_to_its_own_family(server, make):
    t = make()
    pub = t.request("public", "POST", "/api/v2/companies", json={}).json()["data"]
    priv = t.request("private", "GET", "/api/private/v1/lookup/companies", kind="discovery")
    assert pub["auth"] == _auth_fp(PUBLIC)
    assert priv.json()["data"]["auth"] == _auth_fp(PRIVATE)
    before = server.state.total()
    with pytest.raises(ConfigurationError, match="only sent to /api/private/v1"):
        t.request("private", "POST", "/api/v2/companies", json={})
    with pytest.raises(ConfigurationError, match="public token"):
        t.request("public", "GET", "/api/private/v1/lookup/companies")
    with pytest.raises(ValidationError):
        t.request("public", "GET", "/api/v2/../private/v1/lookup/companies")
    assert server.state.total() == before  # refused before anything was sent


def test_missing_token_names_the_environment_variable(server, make):
    t = make(private_key=None)
    with pytest.raises(ConfigurationError, match="DEALFRAME_PRIVATE_KEY"):
        t.request("private", "GET", "/api/private/v1/lookup/companies")
    assert server.state.total() == 0


def test_wrong_token_is_an_authentication_error_and_not_retried(server, make):
    t = make(public_token="wrong-" + secrets.token_hex(8))
    with pytest.raises(AuthenticationError) as info:
        t.request("public", "POST", "/api/v2/companies", json={})
    assert info.value.status == 401 and info.value.code == "INVALID_TOKEN"
    assert server.state.total() == 1


def test_http_to_a_remote_host_is_refused():
    with pytest.raises(ConfigurationError) as info:
        Settings(base_url="http://data.example.com", public_token=PUBLIC)
    assert info.value.field == "base_url"
    assert Settings(base_url="http://data.example.com", allow_insecure_http=True).base_url


def test_redirects_are_not_followed(server, make):
    server.state.responses["/api/v2/moved"] = (
        302,
        b"",
        {"Location": "http://other.example/api/v2/moved?token=x"},
    )
    with pytest.raises(ApiError) as info:
        make().request("public", "POST", "/api/v2/moved", json={})
    assert info.value.status == 302 and "other.example" in str(info.value)
    assert "token=x" not in str(info.value)


# -- retries ---------------------------------------------------------------------------------


def test_429_retry_after_is_honoured_and_slows_every_worker(server, make):
    t = make(max_workers=4)
    clock = ManualClock(hold=True)  # the window ends when this test moves the clock
    t.gate = clock.gate()
    server.plan.retry_after = 1
    server.plan.script("^/api/v2/storm$", ["429"])
    results: dict[str, float] = {}

    def call(name: str, path: str) -> None:
        response = t.request("public", "POST", path, json={"who": name}, cache=False)
        results[name] = clock.now()
        results[name + ".attempts"] = response.attempts

    first = threading.Thread(target=call, args=("storm", "/api/v2/storm"))
    first.start()
    clock.wait_for_sleepers(1)  # the storm worker got its 429 and waits at the gate
    gated_at = clock.now()
    opens_at = t.gate.open_at
    assert opens_at - gated_at >= 0.8  # closed for the Retry-After the service sent (1 s)
    others = [threading.Thread(target=call, args=(f"w{i}", "/api/v2/calm")) for i in range(3)]
    for thread in others:
        thread.start()
    clock.wait_for_sleepers(4)  # every other worker waits at the gate too, none was sent
    assert not [k for k in results if k.startswith("w")]
    clock.advance(opens_at - gated_at)
    for thread in [first, *others]:
        thread.join(10)
    assert results["storm.attempts"] == 2
    for i in range(3):
        early = opens_at - results[f"w{i}"]
        assert early <= 0, f"worker {i} finished {early:.2f}s before the shared gate opened"
        assert results[f"w{i}.attempts"] == 1  # it waited instead of being refused
    assert t.stats.snapshot()["faults"] == {"429": 1}


def test_429_storm_recovers(server, make):
    server.plan.retry_after = 0.2
    server.plan.script("storm", ["429", "429", "429"])
    t = make()
    clock = ManualClock()
    t.gate = clock.gate()  # the Retry-After windows pass on this clock, not in real time
    response = t.request("public", "POST", "/api/v2/storm", json={"a": 1})
    assert response.status == 200 and response.attempts == 4
    assert clock.slept >= 0.55  # three windows of 0.2 s were waited
    assert t.stats.snapshot()["retries"] == 3


def test_503_burst_is_recovered(server, make):
    server.plan.script("burst", ["503", "502", "500", "504", "503"])
    t = make(retries=5)
    response = t.request("private", "GET", "/api/private/v1/companies/burst", kind="profile")
    assert response.attempts == 6
    assert server.state.hits["/api/private/v1/companies/burst"] == 1  # faults never reach app
    faults = t.stats.snapshot()["faults"]
    assert faults == {"503": 2, "502": 1, "500": 1, "504": 1}


def test_post_is_retried_with_the_same_body(server, make):
    server.plan.script("^/api/v2/companies/current$", ["503", "500"])
    body = {"skus": ["ACME-USA", "BETA-GBR"], "nested": {"b": 1, "a": 2}}
    response = make().request(
        "public", "POST", "/api/v2/companies/current", json=body, kind="current"
    )
    assert response.attempts == 3
    assert response.json()["data"]["body"] == body


def test_truncated_cut_and_dropped_responses_are_retried(server, make):
    server.plan.script("fragile", ["truncate", "cut", "drop"])
    t = make()
    response = t.request("public", "GET", "/api/v2/fragile", params={"pad": 5000})
    assert response.attempts == 4
    assert len(response.json()["data"]["pad"]) == 5000
    assert t.stats.snapshot()["faults"] == {"truncated": 2, "connection": 1}
    # the cut body (a clean 200) must not have poisoned the cache
    again = t.request("public", "GET", "/api/v2/fragile", params={"pad": 5000})
    assert again.from_cache and again.json()["data"]["hit"] == response.json()["data"]["hit"]


def test_read_timeout_is_retried(server, make):
    server.plan.slow_seconds = 1.0
    server.plan.script("sleepy", ["slow"])
    t = make(read_timeout=0.3)
    response = t.request("public", "GET", "/api/v2/sleepy")
    assert response.attempts == 2
    assert t.stats.snapshot()["faults"] == {"timeout": 1}


@pytest.mark.parametrize("cut", [True, False])
def test_a_straggler_is_sent_again_once_its_endpoint_is_known(server, make, cut):
    server.plan.slow_seconds = 1.0
    t = make(read_timeout=5.0, cut_stragglers=cut, cache_enabled=False)
    for _ in range(8):  # the endpoint answers quickly a few times ...
        t.request("public", "GET", "/api/v2/lagging")
    assert t.stats.snapshot()["faults"] == {}
    server.plan.script("lagging", ["slow"])  # ... then once takes 1 s to start answering
    response = t.request("public", "GET", "/api/v2/lagging")
    assert response.json()["data"]["path"] == "/api/v2/lagging"
    if cut:  # cut at 4 times the slowest answer seen (at least 0.25 s) and sent again at once
        assert response.attempts == 2
        assert t.stats.snapshot()["faults"] == {"straggler": 1}
        assert t.stats.snapshot()["retries"] == 1
    else:  # waited for, within the 5 s read timeout
        assert response.attempts == 1 and t.stats.snapshot()["faults"] == {}
    assert server.plan.counts() == {"slow": 1}


def test_an_endpoint_whose_bodies_arrive_slowly_is_given_their_time(server, make):
    # Headers come at once, then the body pauses for 0.3 s: longer than the 0.25 s floor of a
    # first attempt's shorter timeout, which bounds the body's reads too. What is remembered
    # is the whole answer's time, so no attempt is cut.
    t = make(read_timeout=5.0, cache_enabled=False)
    for _ in range(9):
        response = t.request("public", "GET", "/api/v2/trickling", params={"trickle": 0.3})
        assert response.json()["data"]["path"] == "/api/v2/trickling"
    assert t.stats.snapshot()["faults"] == {} and t.stats.snapshot()["retries"] == 0


def test_a_timeout_the_call_budget_set_is_not_a_straggler(server, make):
    server.plan.slow_seconds = 1.0
    t = make(read_timeout=5.0, cache_enabled=False)
    for _ in range(8):
        t.request("public", "GET", "/api/v2/lagging")
    server.plan.script("lagging", ["slow"])
    with pytest.raises(TransportError) as caught:  # 0.15 s left: less than the 0.25 s floor
        t.request("public", "GET", "/api/v2/lagging", deadline=time.monotonic() + 0.15)
    # the budget, not read_timeout, ended the wait: a budget failure (docs/errors.md)
    assert caught.value.kind == "budget" and "straggler" not in str(caught.value)
    assert t.stats.snapshot()["faults"] == {"budget": 1}


def test_bodies_abandoned_by_the_call_budget_give_their_connections_back(server, make):
    # Each body arrives in 20 pieces 0.1 s apart; each call's budget ends 0.25 s in, between
    # two pieces. Six abandoned bodies are more than the pool's four connections: a leaked
    # connection would leave later calls waiting for a free one.
    t = make(max_workers=1, read_timeout=5.0, cache_enabled=False)
    for _ in range(6):
        with pytest.raises(TransportError) as caught:
            t.request(
                "public",
                "GET",
                "/api/v2/slow-body",
                params={"trickle": 0.1, "pieces": 20},
                deadline=time.monotonic() + 0.25,
            )
        assert caught.value.kind == "budget"
    response = t.request("public", "GET", "/api/v2/after", deadline=time.monotonic() + 5.0)
    assert response.json()["data"]["path"] == "/api/v2/after"
    pool = t._session.get_adapter(server.url).poolmanager.connection_from_url(server.url)
    assert pool.pool.qsize() == pool.pool.maxsize  # every connection is back in the pool


def test_a_straggler_does_not_use_up_the_retries(server, make):
    server.plan.slow_seconds = 1.0
    t = make(read_timeout=5.0, retries=1, cache_enabled=False)
    for _ in range(8):
        t.request("public", "GET", "/api/v2/lagging")
    server.plan.script("lagging", ["slow", "503"])  # cut, sent again: a 503, then retried
    response = t.request("public", "GET", "/api/v2/lagging")
    assert response.attempts == 3
    assert t.stats.snapshot()["faults"] == {"straggler": 1, "503": 1}


def test_retries_exhausted_raise_typed_error_with_retry_after(server, make):
    server.plan.retry_after = 1
    server.plan.script("busy", ["429", "429"])
    t = make(retries=1)
    clock = ManualClock()
    t.gate = clock.gate()
    with pytest.raises(RateLimitedError) as info:
        t.request("public", "POST", "/api/v2/busy", json={})
    assert clock.slept == pytest.approx(1.0)  # the window before the one retry, not after it
    error = info.value
    assert error.retry_after == 1.0 and error.attempts == 2
    assert "2 attempts" in str(error) and "wait 1 s" in str(error)
    assert error.request.path == "/api/v2/busy"


@pytest.mark.parametrize("status", ["429", "503"])
def test_a_retry_after_over_the_setting_fails_at_once_naming_the_wait(
    server, make, status, monkeypatch
):
    """Retry-After: 3600 against retry_after_max=5: one request, no wait, and the error
    names the wait asked. It used to sleep retry_after_max before each retry, silently
    (5 x 60 s with the defaults: a notebook that looked hung), then raise all the same."""
    server.plan.retry_after = 3600
    monkeypatch.setattr(server.plan, "retry_after_503", 3600)
    server.plan.script("asked", [status] * 3)
    t = make(retries=2)
    clock = ManualClock()
    t.gate = clock.gate()
    with pytest.raises((RateLimitedError, ServerError)) as info:
        t.request("public", "POST", "/api/v2/asked", json={})
    error = info.value
    assert error.status == int(status) and error.retry_after == 3600 and error.attempts == 1
    assert clock.slept == 0 and server.plan.counts() == {status: 1}
    assert "wait 3600 s" in str(error) and "more than retry_after_max (5 s)" in str(error)


def test_a_retry_after_within_the_setting_is_still_waited_for(server, make):
    server.plan.retry_after = 5
    server.plan.script("within", ["429"])
    t = make(retries=1)
    clock = ManualClock()
    t.gate = clock.gate()
    response = t.request("public", "POST", "/api/v2/within", json={})
    assert response.status == 200 and response.attempts == 2
    assert clock.slept == pytest.approx(5.0)


def test_server_errors_exhausted(server, make):
    server.plan.script("down", ["503"] * 3)
    with pytest.raises(ServerError) as info:
        make(retries=2).request("public", "POST", "/api/v2/down", json={})
    assert info.value.status == 503 and info.value.attempts == 3


def test_dropped_connections_exhausted_raise_transport_error(server, make):
    server.plan.script("gone", ["drop"] * 2)
    with pytest.raises(TransportError) as info:
        make(retries=1).request("public", "POST", "/api/v2/gone", json={})
    assert info.value.attempts == 2 and info.value.kind == "connection"
    # the requests exception (which holds the request and its headers) is not chained
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert "closed the connection without answering" in str(info.value)


def test_call_budget_stops_retrying(server, make, monkeypatch):
    from dealframe.transport import retry

    server.plan.retry_after = 3
    server.plan.script("budget", ["429"])
    t = make(call_budget=0.5)
    clock = ManualClock(start=time.monotonic())  # the deadline's clock: a wait would show
    t.gate = clock.gate()
    slept: list[float] = []
    monkeypatch.setattr(retry, "sleep", slept.append)
    with pytest.raises(RateLimitedError, match="budget") as caught:
        t.request("public", "POST", "/api/v2/budget", json={})
    # not the 3 s Retry-After: given up at once, with nothing waited and no second request
    assert "call budget exhausted (next retry was due in 3.0 s)" in str(caught.value)
    assert caught.value.attempts == 1 and server.plan.counts() == {"429": 1}
    assert clock.slept == 0 and slept == []
    # yet the wait stands: the family's gate is closed for it (the next request waits)
    assert t.gate.closures == 1 and t.gate.remaining("public") == pytest.approx(3.0)


def test_client_errors_are_typed_and_not_retried(server, make):
    server.state.responses["/api/private/v1/companies/gone"] = (
        404,
        orjson.dumps(
            {
                "error": {
                    "code": "NOT_FOUND",
                    "message": "Resource is deleted",
                    "details": {"deleted": True, "id": "abc"},
                }
            }
        ),
        {},
    )
    server.state.responses["/api/private/v1/companies"] = (
        400,
        orjson.dumps(
            {
                "error": {
                    "code": "BAD_REQUEST",
                    "message": "Invalid request",
                    "details": {"errors": ["limit must be an integer between 1 and 1000"]},
                }
            }
        ),
        {},
    )
    t = make()
    with pytest.raises(NotFoundError) as nf:
        t.request("private", "GET", "/api/private/v1/companies/gone", kind="profile")
    assert nf.value.deleted and "include_deleted=True" in str(nf.value)
    with pytest.raises(BadRequestError, match="limit must be an integer"):
        t.request("private", "POST", "/api/private/v1/companies", json={"limit": 0})
    assert server.state.hits["/api/private/v1/companies"] == 1


# -- cache -----------------------------------------------------------------------------------


def test_same_canonical_body_is_a_cache_hit(server, make):
    t = make()
    first = t.request(
        "public",
        "POST",
        "/api/v2/companies",
        json={"regions": ["Oceania"], "f": {"a": 1, "b": {"y": 2, "x": 3}}},
    )
    second = t.request(
        "public",
        "POST",
        "/api/v2/companies",
        json={"f": {"b": {"x": 3, "y": 2}, "a": 1}, "regions": ["Oceania"]},
    )
    assert not first.from_cache and second.from_cache
    assert second.content == first.content
    other = t.request(
        "public",
        "POST",
        "/api/v2/companies",
        json={"f": {"b": {"x": 3, "y": 2}, "a": 1}, "regions": ["Africa"]},
    )
    assert not other.from_cache
    assert server.state.hits["/api/v2/companies"] == 2
    assert t.stats.snapshot()["cache_hits"] == 1


def test_refresh_and_cache_false(server, make):
    t = make()
    path = "/api/private/v1/lookup/investors"
    first = t.request("private", "GET", path, kind="discovery")
    refreshed = t.request("private", "GET", path, kind="discovery", refresh=True)
    assert not refreshed.from_cache and refreshed.json()["data"]["hit"] == 2
    cached = t.request("private", "GET", path, kind="discovery")
    assert cached.from_cache and cached.json()["data"]["hit"] == 2  # refresh overwrote it
    bypass = t.request("private", "GET", path, kind="discovery", cache=False)
    assert not bypass.from_cache and bypass.json()["data"]["hit"] == 3
    after = t.request("private", "GET", path, kind="discovery")
    assert after.from_cache and after.json()["data"]["hit"] == 2  # bypass wrote nothing
    assert first.json()["data"]["hit"] == 1


def test_changefeed_is_never_cached(server, make):
    t = make()
    body = {"filters": {"updated_at": "2026-01-01T00:00:00+00:00", "include_deleted": True}}
    for _ in range(2):
        response = t.request(
            "private", "POST", "/api/private/v1/transactions", json=body, kind="changefeed"
        )
        assert not response.from_cache
    assert server.state.hits["/api/private/v1/transactions"] == 2
    assert t.cache.info()["entries"] == 0


def test_two_tokens_never_share_a_cache_entry(server, make, tmp_path):
    other = "pub2-" + secrets.token_hex(16)
    server.state.extra_public_tokens.add(other)
    shared = tmp_path / "shared" / "http_cache.sqlite"
    a = make(cache_path=shared)
    b = make(cache_path=shared, public_token=other)
    first = a.request("public", "POST", "/api/v2/companies", json={"themes": ["AI"]})
    second = b.request("public", "POST", "/api/v2/companies", json={"themes": ["AI"]})
    assert not second.from_cache, "a response cached for one token was served to another"
    assert second.json()["data"]["auth"] == _auth_fp(other)
    assert first.json()["data"]["auth"] == _auth_fp(PUBLIC)
    assert a.request("public", "POST", "/api/v2/companies", json={"themes": ["AI"]}).from_cache
    assert a.cache.info()["entries"] == 2
    wrong = make(cache_path=shared, public_token="bad-" + secrets.token_hex(8))
    with pytest.raises(AuthenticationError):
        wrong.request("public", "POST", "/api/v2/companies", json={"themes": ["AI"]})


def test_cache_files_are_private_and_info_clear(server, make, tmp_path):
    t = make()
    t.request("public", "POST", "/api/v2/companies", json={})
    path = tmp_path / "cache" / "http_cache.sqlite"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    for side in ("-wal", "-shm"):
        side_path = Path(f"{path}{side}")
        if side_path.exists():
            assert stat.S_IMODE(os.stat(side_path).st_mode) == 0o600
    info = t.cache.info()
    assert info["path"] == str(path) and info["entries"] == 1 and info["enabled"]
    assert info["size_bytes"] > 0
    t.cache.clear()
    assert t.cache.info()["entries"] == 0
    assert not t.request("public", "POST", "/api/v2/companies", json={}).from_cache


def test_cache_disabled(server, make):
    t = make(cache_enabled=False)
    for _ in range(2):
        assert not t.request("public", "POST", "/api/v2/companies", json={}).from_cache
    assert t.cache.info()["enabled"] is False
    assert server.state.hits["/api/v2/companies"] == 2


# -- secrets ---------------------------------------------------------------------------------


def test_tokens_never_leak(server, make, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    server.state.responses["/api/private/v1/companies/missing"] = (404, b"not here", {})
    t = make(retries=1)
    errors: list[BaseException] = []
    t.request("public", "POST", "/api/v2/companies", json={"regions": ["Oceania"]})
    t.request("public", "POST", "/api/v2/companies", json={"regions": ["Oceania"]})
    t.request("private", "GET", "/api/private/v1/lookup/companies", kind="discovery")
    server.plan.script("fails", ["429", "429", "drop", "drop", "503", "503"])
    for path in ["/api/v2/fails"] * 3:
        with pytest.raises((RateLimitedError, TransportError, ServerError)) as info:
            t.request("public", "POST", path, json={})
        errors.append(info.value)
    for call in (
        lambda: t.request("private", "GET", "/api/private/v1/companies/missing"),
        lambda: t.request("private", "GET", "/api/v2/companies"),
        lambda: make(public_token="x-" + secrets.token_hex(4)).request(
            "public", "POST", "/api/v2/companies", json={}
        ),
    ):
        with pytest.raises(Exception) as info:
            call()
        errors.append(info.value)
    t.close()
    blobs = b"".join(p.read_bytes() for p in (tmp_path / "cache").iterdir())
    texts = [repr(t), repr(t.settings), str(t.settings), repr(t.stats), repr(t.cache)]
    texts += [str(e) for e in errors] + [repr(e) for e in errors]
    texts += [str(e.__cause__) for e in errors if e.__cause__ is not None]
    texts += [r.getMessage() for r in caplog.records]
    assert any("status=200" in r.getMessage() for r in caplog.records)  # DEBUG was on
    for token in (PUBLIC, PRIVATE):
        assert token.encode() not in blobs
        assert token.encode("utf-16-le") not in blobs
        for text in texts:
            assert token not in text


# -- concurrency and sockets -----------------------------------------------------------------


def test_map_concurrent_keeps_order_and_names_failed_items(server, make):
    server.state.responses["/api/v2/items/3"] = (404, b'{"error": {"code": "NOT_FOUND"}}', {})
    server.state.responses["/api/v2/items/7"] = (404, b'{"error": {"code": "NOT_FOUND"}}', {})
    t = make(max_workers=4)

    def fetch(i: int) -> str:
        return t.request("public", "GET", f"/api/v2/items/{i}").json()["data"]["path"]

    result = map_concurrent(fetch, range(10), workers=4, progress=False)
    assert result.failed_items == [3, 7]
    assert result.results[0] == "/api/v2/items/0" and result.results[9] == "/api/v2/items/9"
    assert result.results[3] is None
    with pytest.raises(IncompleteResultError) as info:
        result.raise_for_failures(expected=10, partial=result.values, what="items")
    assert info.value.failed == [3, 7] and len(info.value.partial) == 8
    assert "8 of 10 items" in str(info.value)


def test_map_concurrent_stops_on_authentication_error(server, make):
    t = make(public_token="bad-" + secrets.token_hex(8), max_workers=2)
    with pytest.raises(AuthenticationError):
        map_concurrent(
            lambda i: t.request("public", "GET", f"/api/v2/items/{i}"),
            range(20),
            workers=2,
            progress=False,
        )
    assert server.state.total() < 20


def test_no_sockets_left_open_after_close(server, make):
    t = make(max_workers=8, cache_enabled=False)
    result = map_concurrent(
        lambda i: t.request("public", "GET", f"/api/v2/items/{i}").status,
        range(16),
        workers=8,
        progress=False,
    )
    assert result.ok
    assert established_to(server.port) >= 1  # keep-alive connections are pooled
    t.close()
    limit = time.monotonic() + 30  # a guard: the loop ends as soon as every socket closed
    while (established_to(server.port) or server.open_connections()) and time.monotonic() < limit:
        time.sleep(0.05)
    assert established_to(server.port) == 0
    assert server.open_connections() == 0


def test_concurrent_requests_share_one_cached_session(server, make):
    t = make(max_workers=8)

    def fetch(i: int) -> bool:
        return t.request(
            "public",
            "POST",
            "/api/v2/companies/current",
            json={"skus": [f"S{i}-USA"]},
            kind="current",
        ).from_cache

    first = map_concurrent(fetch, range(24), workers=8, progress=False)
    second = map_concurrent(fetch, range(24), workers=8, progress=False)
    assert first.ok and second.ok
    assert not any(first.results) and all(second.results)
    assert server.state.hits["/api/v2/companies/current"] == 24
    assert t.cache.info()["entries"] == 24


def test_progress_bar_only_for_several_items(capsys):
    map_concurrent(lambda x: x, [1], workers=2, progress=True, desc="one")
    assert "one" not in capsys.readouterr().err
    map_concurrent(lambda x: x, [1, 2, 3], workers=2, progress=True, desc="pages")
    assert "pages" in capsys.readouterr().err
    map_concurrent(lambda x: x, [1, 2, 3], workers=2, progress=False, desc="quiet")
    assert "quiet" not in capsys.readouterr().err


def test_map_concurrent_propagates_programming_errors():
    def boom(i: int) -> int:
        if i == 2:
            raise KeyError("bug")
        return i

    with pytest.raises(KeyError):
        map_concurrent(boom, range(6), workers=3, progress=False)
    with pytest.raises(ValidationError):
        map_concurrent(boom, range(6), workers=0)


# -- pure helpers: backoff, gate, fault plan -------------------------------------------------


def test_backoff_is_full_jitter_and_capped():
    from dealframe.transport.retry import backoff_delay, retry_delay

    ceilings = [backoff_delay(n, 0.5, 4.0, uniform=lambda lo, hi: hi) for n in range(1, 7)]
    assert ceilings == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert backoff_delay(3, 0.5, 4.0, uniform=lambda lo, hi: lo) == 0.0
    draws = [backoff_delay(4, 0.5, 30.0) for _ in range(200)]
    assert all(0.0 <= d <= 4.0 for d in draws) and len(set(draws)) > 100
    assert retry_delay(1, 500.0, base=0.5, cap=30, retry_after_max=60) == 60.0
    assert retry_delay(1, 2.0, base=0.5, cap=30, retry_after_max=60) == 2.0


def test_sleep_between_retries_is_stubbable(server, make, monkeypatch):
    from dealframe.transport import retry

    slept: list[float] = []
    monkeypatch.setattr(retry, "sleep", slept.append)
    server.plan.script("stub", ["503", "502"])
    response = make(backoff_base=100.0, backoff_cap=100.0).request(
        "public", "POST", "/api/v2/stub", json={}
    )
    assert response.attempts == 3 and len(slept) == 2
    assert all(0 <= s <= 200 for s in slept)


def test_gate_blocks_every_waiter_until_it_opens():
    from dealframe.transport.ratelimit import RateGate

    # On a clock that moves only when this test says: blocked means "not returned before the
    # clock reached the opening", whatever the machine's load.
    clock = ManualClock(hold=True)
    gate = clock.gate()
    gate.block_for(0.3)
    gate.block_for(0.1)  # never shortens
    assert gate.remaining() == pytest.approx(0.3)
    waited: list[float] = []
    threads = [threading.Thread(target=lambda: waited.append(gate.wait())) for _ in range(4)]
    for thread in threads:
        thread.start()
    clock.wait_for_sleepers(4)  # all four wait at the gate
    assert waited == []
    clock.advance(0.3)
    for thread in threads:
        thread.join(10)  # a guard: they return as soon as the clock moved
    assert waited == [pytest.approx(0.3)] * 4
    assert gate.remaining() == 0
    quick = ManualClock()  # its sleeps move it at once
    gate = quick.gate()
    gate.block_for(10)
    # a closure that opens past the deadline is not waited in part: the wait could not end
    # in time (closed so between the caller's check of its budget and this look, the wait
    # slept to the deadline, then failed)
    assert gate.wait(deadline=quick.now() + 0.05) == 0
    assert quick.slept == 0 and gate.remaining() == pytest.approx(10)
    gate = quick.gate()
    gate.block_for(0.05)
    assert gate.wait(deadline=quick.now() + 1) == pytest.approx(0.05)  # in time: waited out

    # The transport's own gate (no sleep given) waits on its condition: still until its clock
    # says it is open, and no sooner.
    plain = ManualClock()
    gate = RateGate(clock=plain.now)
    gate.block_for(0.3)
    waiter = threading.Thread(target=lambda: waited.append(gate.wait()))
    waited.clear()
    waiter.start()
    assert waiter.is_alive() and waited == []  # the clock has not moved: it cannot return
    plain.advance(0.3)
    waiter.join(10)  # a guard: it looks at the clock again within the 0.3 s it waits
    assert waited == [pytest.approx(0.3)] and gate.remaining() == 0


def test_fault_plan_is_seeded_scripted_and_resettable():
    plan = FaultPlan(rate=0.5, seed=11, kinds=("500", "503"))
    first = [plan.draw("/api/v2/x") for _ in range(40)]
    plan.reset()
    assert [plan.draw("/api/v2/x") for _ in range(40)] == first
    assert 5 < sum(k is not None for k in first) < 35
    assert set(first) <= {None, "500", "503"}
    plan.reset()
    assert plan.total == 0 and plan.counts() == {}
    plan.script(r"^/api/private/", ["429", "drop"])
    plan.rate = 0.0
    assert plan.draw("/api/v2/x") is None
    assert [plan.draw("/api/private/v1/companies") for _ in range(3)] == ["429", "drop", None]
    assert plan.events() == [
        ("429", "/api/private/v1/companies"),
        ("drop", "/api/private/v1/companies"),
    ]
    limited = FaultPlan(rate=1.0, paths=r"/transactions$", kinds=("502",))
    assert limited.draw("/api/private/v1/companies") is None
    assert limited.draw("/api/private/v1/transactions") == "502"
    with pytest.raises(ValueError):
        FaultPlan(kinds=("418",))
    with pytest.raises(ValueError):
        FaultPlan(rate=2)


def test_fault_plan_counts_are_thread_safe():
    plan = FaultPlan(rate=1.0, kinds=("500",))
    threads = [
        threading.Thread(target=lambda: [plan.draw("/p") for _ in range(500)]) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert plan.counts() == {"500": 2000} and len(plan.events()) == 2000


def test_injected_error_bodies_have_the_documented_shape(server):
    import requests

    server.plan.retry_after = 2
    server.plan.script("shape", ["429", "503"])
    for status in (429, 503):
        raw = requests.post(
            f"{server.url}/api/v2/shape",
            json={},
            timeout=5,
            headers={"Authorization": f"Bearer {PUBLIC}"},
        )
        assert raw.status_code == status
        body = raw.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        if status == 429:
            assert body["error"]["code"] == "RATE_LIMITED" and raw.headers["Retry-After"] == "2"
        else:
            assert body["error"]["code"] == "SERVICE_UNAVAILABLE"


def test_worker_pool_is_reused_and_nested_maps_do_not_deadlock():
    from dealframe.transport.paging import WorkerPool, map_concurrent

    pool = WorkerPool(2)
    seen: set[str] = set()

    def inner(x):
        seen.add(threading.current_thread().name)
        return x * 10

    def outer(x):
        # A map inside a worker of the same pool must not wait on that pool.
        return sum(map_concurrent(inner, [x, x + 1], 2, pool=pool).values)

    try:
        first = map_concurrent(outer, [1, 2, 3, 4], 2, pool=pool)
        second = map_concurrent(inner, [5, 6, 7], 2, pool=pool)
    finally:
        pool.shutdown()
    assert first.values == [30, 50, 70, 90]
    assert second.values == [50, 60, 70]
    shared = {n for n in seen if n.startswith(pool._prefix)}
    assert shared, "the second map should have run on the shared pool's threads"
