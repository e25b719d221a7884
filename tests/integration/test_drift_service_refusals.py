"""Refusals written as real services write them, over real HTTP through the drift proxy.

The interface document leaves rate limits, token lifetime and Family B's error body "not
shown". Services answer these in their own standard ways: RFC 7807 problem+json naming the
refused parameter in ``invalid-params``; RFC 6750's empty 401 whose ``WWW-Authenticate``
says why; a 429 whose wait is stated only as the moment its window resets
(``RateLimit-Reset``, ``X-RateLimit-Reset``); GitHub's 403 ``RATE_LIMITED``. The client reads
each: it adapts as it does to its own body shapes, waits as it waits for a ``Retry-After``
(on a test clock here: nothing is slept), and keeps the service's words in the error.
"""

from __future__ import annotations

import datetime as dt
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ManualClock
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    assert_same,
    direct,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    refuse,
)

import dealframe.errors
from dealframe import Client
from dealframe.errors import AuthenticationError, BadRequestError, RateLimitedError
from dealframe.transport import retry

#: The wall-clock time (Unix seconds) of this module's tests: a reset stated as a Unix time is
#: made from it, and the client reads it against it (:func:`wall_clock`), so the wait read is
#: the wait stated, however long the answer took to be read.
NOW = 1_800_000_000.0
P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
DEALS = f"^{P}/transactions$"
SEARCH = "^/api/v2/companies$"


def problem_json(action: Action) -> Action:
    """``action``'s refusal sent as ``application/problem+json``, as RFC 7807 has it."""

    def apply(ex: Exchange) -> None:
        assert action.on_request is not None
        action.on_request(ex)
        if not ex.forward:
            ex.headers["Content-Type"] = "application/problem+json"

    return Action(f"problem+json({action.name})", on_request=apply)


def answer(status: int, body: Any, headers: Callable[[], dict[str, str]]) -> Action:
    """``status`` with ``body`` (JSON; ``b""`` for none) and ``headers()``, not forwarded."""

    def apply(ex: Exchange) -> None:
        ex.forward, ex.status, ex._doc = False, status, None
        ex.content = body if isinstance(body, bytes) else orjson.dumps(body)
        ex.headers = {**({"Content-Type": "application/json"} if body else {}), **headers()}

    return Action(f"answer({status})", on_request=apply)


@pytest.fixture(autouse=True)
def wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client's wall clock (for Unix-time resets and HTTP dates) stands at :data:`NOW`."""
    monkeypatch.setattr(dealframe.errors, "time", types.SimpleNamespace(time=lambda: NOW))


@pytest.fixture(scope="module")
def deals_ref(direct: Any) -> Any:
    frame = direct.private.deals()
    assert len(frame) > 1000, "the tests need several pages"
    return frame


@pytest.fixture
def waiting(
    sandbox: Any, proxy: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Client, ManualClock]]:
    """A client that waits out a stated wait of up to 30 s and retries up to 3 times, on a
    clock that moves at once: the waits are asked and measured, not slept (a rate limit's at
    the client's gate, a 5xx's in the transport's stubbable sleep)."""
    settings = {**FAST, "retries": 3, "retry_after_max": 30.0}
    clock = ManualClock()
    monkeypatch.setattr(retry, "sleep", clock.sleep)
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **settings
    ) as client:
        client._transport.gate = clock.gate()
        yield client, clock


# ------------------------------------------------------------------ RFC 7807 problem+json


PROBLEMS: dict[str, Any] = {
    "invalid-params": {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "detail": "Request validation failed",
        "invalid-params": [{"name": "limit", "reason": "must be less than or equal to 100"}],
    },
    "invalid_params": {
        "type": "https://example.com/probs/validation",
        "title": "Your request parameters didn't validate.",
        "invalid_params": [{"name": "limit", "reason": "must be less than or equal to 100"}],
    },
    "rfc9457-errors": {
        "type": "https://example.com/probs/validation",
        "title": "Your request is not valid.",
        "status": 400,
        "errors": [{"detail": "must be less than or equal to 100", "pointer": "#/limit"}],
    },
}


@pytest.mark.parametrize("body", PROBLEMS.values(), ids=PROBLEMS.keys())
def test_a_limit_refused_in_problem_json_is_read_in_pages_of_100(body, fresh, direct, proxy):
    """The refused field and its reason are read from ``invalid-params`` (or RFC 9457's
    ``errors`` with a ``pointer``): page 1 is asked again at 100 and every row arrives. The
    body used to be read as its ``detail`` alone (``.errors == ['Request validation
    failed']``): no field named, so the refused ``limit`` was not adapted to and the walk
    raised ``BadRequestError``."""
    proxy.add(COMPANIES, problem_json(refuse(400, lambda sent: body, 100, "limit")))
    o = outcome(lambda: fresh.private.companies(limit=250, strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, direct.private.companies(limit=250), ignore_index=True)
    assert o.value.attrs["page_size"] == 100
    assert proxy.pages(COMPANIES)[:2] == [1, 1]  # the refused page 1, asked again at 100


def test_a_problem_json_refusal_names_each_parameter_and_reason(fresh, proxy):
    """A refusal that is no size bound: each ``invalid-params`` entry is in ``.errors`` and
    the message, ``"<name>: <reason>"``, after the ``detail``."""
    body = {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "detail": "Request validation failed",
        "invalid-params": [
            {"name": "sort", "reason": "unknown key 'foo'"},
            {"name": "filters.country", "reason": "must be ISO-3"},
        ],
    }
    proxy.add(COMPANIES, problem_json(refuse(400, lambda sent: body, 0, "limit")))
    with pytest.raises(BadRequestError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert error.message == "Request validation failed"
    assert error.errors[:2] == ["sort: unknown key 'foo'", "filters.country: must be ISO-3"]
    assert "sort: unknown key 'foo'; filters.country: must be ISO-3" in str(error)
    assert proxy.count(COMPANIES) == 1


# ---------------------------------------------------------- RFC 6750 WWW-Authenticate


EXPIRED = 'Bearer realm="api", error="invalid_token", error_description="The access token expired"'


@pytest.mark.parametrize(
    ("path", "call", "variable"),
    [
        (SEARCH, lambda c: c.public.search(), "DEALFRAME_PUBLIC_TOKEN"),
        (COMPANIES, lambda c: c.private.companies(limit=5), "DEALFRAME_PRIVATE_KEY"),
    ],
    ids=["family-a", "family-b"],
)
def test_an_empty_401_says_what_its_www_authenticate_says(path, call, variable, fresh, proxy):
    """RFC 6750's answer to an expired token: 401, no body, the reason in the challenge.
    The error keeps the service's words (its message, code and ``details``), and still says
    which token to check. It used to say ``401 UNAUTHORIZED: HTTP 401``: the only words the
    service sent were dropped."""
    proxy.add(path, answer(401, b"", lambda: {"WWW-Authenticate": EXPIRED}))
    with pytest.raises(AuthenticationError) as caught:
        call(fresh)
    error = caught.value
    assert (error.code, error.message, error.words) == (
        "invalid_token",
        "The access token expired",
        "The access token expired",
    )
    assert error.details["www_authenticate"] == {
        "error": "invalid_token",
        "error_description": "The access token expired",
    }
    assert str(error).startswith("401 invalid_token: The access token expired (")
    assert variable in str(error)
    assert proxy.count(path) == 1  # a refused token is not sent again


def test_a_challenge_echoing_the_token_never_shows_it(sandbox, fresh, proxy):
    """The challenge's words are the service's: a token it echoes is blanked in the
    message, the code and ``details`` alike."""
    key = sandbox.private_key
    challenge = f'Bearer error="{key}", error_description="token {key} expired"'
    proxy.add(COMPANIES, answer(401, b"", lambda: {"WWW-Authenticate": challenge}))
    with pytest.raises(AuthenticationError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert error.message == "token *** expired" and error.code == "***"
    seen = " ".join([str(error), repr(error), error.code, error.words, str(error.details)])
    assert key not in seen, seen


def test_a_body_that_says_why_is_still_the_message(fresh, proxy):
    """A body of its own words wins over the challenge; its code is the body's."""
    body = {"error": {"code": "TOKEN_EXPIRED", "message": "Token expired at 12:00"}}
    proxy.add(COMPANIES, answer(401, body, lambda: {"WWW-Authenticate": EXPIRED}))
    with pytest.raises(AuthenticationError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert (error.code, error.message) == ("TOKEN_EXPIRED", "Token expired at 12:00")
    assert error.details["www_authenticate"]["error_description"] == "The access token expired"


# ------------------------------------------- a wait stated only as the rate limit's reset

#: Headers stating a reset of the rate limit, no ``Retry-After``; and the wait each states.
RESETS: dict[str, tuple[Callable[[], dict[str, str]], float]] = {
    "ratelimit-reset": (
        lambda: {"RateLimit-Limit": "100", "RateLimit-Remaining": "0", "RateLimit-Reset": "20"},
        20.0,
    ),
    "ratelimit-field": (lambda: {"RateLimit": '"default";r=0;t=20'}, 20.0),
    # the policy with nothing left (r=0) is the one that refused: its 2 s, not the hour's
    "ratelimit-field-policies": (lambda: {"RateLimit": '"hour";r=50;t=3600, "burst";r=0;t=2'}, 2.0),
    "x-ratelimit-reset-seconds": (lambda: {"X-RateLimit-Reset": "12"}, 12.0),
    "x-ratelimit-reset-unix-time": (
        lambda: {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(NOW) + 15)},
        15.0,
    ),
}
LIMITED = {"error": {"code": "RATE_LIMITED", "message": "Rate limit exceeded"}}


def slept_for(clock: ManualClock, waits: int, each: float) -> None:
    """The clock was slept ``waits`` times ``each`` (a Unix time's wait counted from
    :data:`NOW`)."""
    assert clock.slept == pytest.approx(waits * each), clock.slept


@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("reset", RESETS.values(), ids=RESETS.keys())
def test_a_wait_stated_only_as_the_reset_is_waited_out(reset, status, waiting, proxy, deals_ref):
    """Page 2 of the walk refused twice, with no ``Retry-After``: the stated reset is waited
    before each retry, as a ``Retry-After`` is, and every row arrives. It used to be backed
    off (a few seconds at most with the defaults): a limit of 20 s outlasted the retries,
    and the walk raised, or not, as the jitter fell."""
    client, clock = waiting
    headers, each = reset
    proxy.add(DEALS, answer(status, LIMITED, headers), page=2, times=2)
    o = outcome(lambda: client.private.deals())
    assert o.error is None, repr(o.error)
    assert_same(o.value, deals_ref)
    slept_for(clock, 2, each)
    assert proxy.pages(DEALS).count(2) == 3


@pytest.mark.parametrize(
    ("headers", "said"),
    [
        ({"RateLimit-Reset": "3600"}, "RateLimit-Reset: 3600"),
        ({"X-RateLimit-Reset": "3600"}, "X-RateLimit-Reset: 3600"),
    ],
)
def test_a_reset_beyond_retry_after_max_fails_at_once_quoting_it(headers, said, fresh, proxy):
    """A reset longer than ``retry_after_max`` is treated as a ``Retry-After`` that long:
    not retried, and the error says the wait the service asked, and which header said it."""
    proxy.add(COMPANIES, answer(429, LIMITED, lambda: headers))
    with pytest.raises(RateLimitedError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert error.retry_after == 3600 and error.retry_after_from == said
    assert f"the service asked to wait 3600 s ({said}); not retried" in str(error)
    assert proxy.count(COMPANIES) == 1


#: Waits that are no readable wait: not RFC 9110's ``delay-seconds`` (digits), or a
#: ``RateLimit-Reset`` of 1e12 (a Unix time in milliseconds: 2001, past). Each is backed off
#: as a 429 without one; each raised a bare ``OverflowError`` out of the call.
NO_WAIT = {
    "retry-after-exponent": {"Retry-After": "1e12"},
    "retry-after-inf": {"Retry-After": "inf"},
    "ratelimit-reset-1e12": {"RateLimit-Reset": "1e12"},
}
#: Waits far past any hold: a day at most is held. The date raised ``OverflowError``; the
#: digits held the client back until the year 5195.
OVERLONG = {
    "retry-after-year-9999": {"Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"},
    "retry-after-digits": {"Retry-After": "99999999999"},
}


@pytest.mark.parametrize("headers", NO_WAIT.values(), ids=NO_WAIT.keys())
def test_a_wait_that_is_no_number_of_seconds_is_backed_off(headers, fresh, proxy):
    proxy.add(COMPANIES, answer(429, LIMITED, lambda: headers), times=1)
    assert len(fresh.private.companies(limit=5)) == 5
    assert proxy.count(COMPANIES) == 2


@pytest.mark.parametrize("headers", OVERLONG.values(), ids=OVERLONG.keys())
def test_a_wait_past_a_day_holds_the_family_back_a_day(headers, fresh, proxy):
    proxy.add(COMPANIES, answer(429, LIMITED, lambda: headers))
    with pytest.raises(RateLimitedError, match=r"held back a day at most") as caught:
        fresh.private.companies(limit=5)
    held = caught.value.held_until
    assert held is not None
    assert held <= dt.datetime.now(dt.UTC) + dt.timedelta(days=1, seconds=1)
    with pytest.raises(RateLimitedError, match="not sent") as again:
        fresh.private.companies(limit=5)
    assert again.value.retry_after is not None and again.value.retry_after <= 86_400
    assert proxy.count(COMPANIES) == 1


def test_a_ratelimit_reset_sent_as_a_unix_time_is_read_as_one(fresh, proxy):
    """``RateLimit-Reset`` of an hour from now (:data:`NOW`) as a Unix time: a wait of an
    hour, as ``X-RateLimit-Reset`` is read. It was read as 1.8e9 seconds (held until 2083)."""
    reset = {"RateLimit-Reset": str(int(NOW) + 3600)}
    proxy.add(COMPANIES, answer(429, LIMITED, lambda: reset))
    with pytest.raises(RateLimitedError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert error.retry_after == 3600
    assert error.held_until is not None
    assert error.held_until <= dt.datetime.now(dt.UTC) + dt.timedelta(seconds=3601)
    assert proxy.count(COMPANIES) == 1


# ------------------------------------------------------ a 403 that says it is a rate limit

#: 403 bodies (and headers) that say the service is limiting the rate, not refusing the key.
LIMITED_403: dict[str, tuple[Any, dict[str, str]]] = {
    "code-rate-limited": (
        {"error": {"code": "RATE_LIMITED", "message": "API rate limit exceeded"}},
        {"X-RateLimit-Remaining": "0"},
    ),
    "code-too-many-requests": (
        {"error": {"code": "TOO_MANY_REQUESTS", "message": "Slow down"}},
        {},
    ),
    "github-message": (
        {"message": "API rate limit exceeded for 203.0.113.7.", "documentation_url": "x"},
        {},
    ),
    "remaining-0-only": (b"", {"X-RateLimit-Remaining": "0"}),
}


@pytest.mark.parametrize(("body", "headers"), LIMITED_403.values(), ids=LIMITED_403.keys())
def test_a_403_saying_rate_limit_is_waited_out_like_a_429(body, headers, waiting, proxy, deals_ref):
    """GitHub's way: a 403 whose code or message says rate limit (or that says no request
    is left), with the reset as a Unix time. Page 2 is refused twice, the reset is waited
    at the client's gate before each retry, and every row arrives. It used to raise an
    ``AuthenticationError`` at once, saying to check DEALFRAME_PRIVATE_KEY."""
    client, clock = waiting

    def reset() -> dict[str, str]:  # 5 s from the answer, on the client's clock (wall_clock)
        return {**headers, "X-RateLimit-Reset": str(int(NOW) + 5)}

    proxy.add(DEALS, answer(403, body, reset), page=2, times=2)
    o = outcome(lambda: client.private.deals())
    assert o.error is None, repr(o.error)
    assert_same(o.value, deals_ref)
    slept_for(clock, 2, 5.0)
    assert client._transport.gate.closures == 2  # every worker waited, as after a 429


def test_a_403_rate_limit_that_outlasts_the_retries_is_a_rate_limited_error(fresh, proxy):
    """Still refused after every retry: a ``RateLimitedError`` quoting the service's code
    and message, saying why it is read as a rate limit, never to check the key."""
    body = {"error": {"code": "RATE_LIMITED", "message": "API rate limit exceeded"}}
    proxy.add(COMPANIES, answer(403, body, lambda: {}))
    with pytest.raises(RateLimitedError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert (error.status, error.code, error.message) == (
        403,
        "RATE_LIMITED",
        "API rate limit exceeded",
    )
    assert error.limited_by == "the code 'RATE_LIMITED'" and error.attempts == 2
    assert str(error).startswith(
        "403 RATE_LIMITED: API rate limit exceeded (a rate limit, as the code 'RATE_LIMITED'"
        " says; not a refused token)"
    )
    assert "DEALFRAME_PRIVATE_KEY" not in str(error) and "gave up after 2 attempts" in str(error)
    assert proxy.count(COMPANIES) == 2


def test_a_403_rate_limit_stating_a_long_reset_fails_at_once_naming_it(fresh, proxy):
    """A reset beyond ``retry_after_max`` is not waited: one request, the wait named."""
    body = {"error": {"code": "RATE_LIMITED", "message": "API rate limit exceeded"}}
    proxy.add(COMPANIES, answer(403, body, lambda: {"X-RateLimit-Reset": "3600"}))
    with pytest.raises(RateLimitedError) as caught:
        fresh.private.companies(limit=5)
    assert "wait 3600 s (X-RateLimit-Reset: 3600); not retried" in str(caught.value)
    assert proxy.count(COMPANIES) == 1


def test_a_403_that_says_nothing_of_a_rate_limit_is_still_a_refused_key(fresh, proxy):
    """A plain refusal keeps its meaning: an ``AuthenticationError`` at once, naming the
    key to check."""
    body = {"error": {"code": "FORBIDDEN", "message": "Key not allowed"}}
    proxy.add(COMPANIES, answer(403, body, lambda: {"X-RateLimit-Remaining": "57"}))
    with pytest.raises(AuthenticationError) as caught:
        fresh.private.companies(limit=5)
    assert "check DEALFRAME_PRIVATE_KEY" in str(caught.value)
    assert proxy.count(COMPANIES) == 1


# -------------------------------------- a refused token whose words mention quota or limits

#: 401/403 answers that refuse the token while their words speak of a quota or a rate limit
#: in another sense (a plan, a tier, a scope, why a token was revoked): the service does not
#: say it is limiting the rate. Body (``b""`` for none) and headers.
REFUSED_TOKEN: dict[str, tuple[int, Any, dict[str, str]]] = {
    "invalid-token-quota-plan": (
        401,
        {"error": {"code": "INVALID_TOKEN", "message": "Invalid API key for this quota plan"}},
        {},
    ),
    "forbidden-no-quota": (
        403,
        {"error": {"code": "FORBIDDEN", "message": "Your plan has no quota for the private API"}},
        {},
    ),
    "plan-limit-rate-limit-tier": (
        403,
        {
            "error": {
                "code": "PLAN_LIMIT",
                "message": "Endpoint not available on your plan (rate limit tier Basic)",
            }
        },
        {},
    ),
    "rfc6750-revoked-quota-abuse": (
        401,
        b"",
        {
            "WWW-Authenticate": 'Bearer realm="api", error="invalid_token", '
            'error_description="The access token was revoked: quota abuse"'
        },
    ),
    "rfc6750-insufficient-scope-quota": (
        403,
        b"",
        {
            "WWW-Authenticate": 'Bearer error="insufficient_scope", '
            'error_description="needs scope read:quota"'
        },
    ),
    "invalid-token-limit-exceeded-remaining-0": (
        403,
        {"error": {"code": "INVALID_TOKEN", "message": "Key limit exceeded: revoked"}},
        {"X-RateLimit-Remaining": "0"},
    ),
}


@pytest.mark.parametrize(
    ("status", "body", "headers"), REFUSED_TOKEN.values(), ids=REFUSED_TOKEN.keys()
)
def test_a_refused_token_speaking_of_quota_is_no_rate_limit(status, body, headers, fresh, proxy):
    """A 401/403 is a rate limit only when the service says it is one: a code naming the
    token (``INVALID_TOKEN``, ``invalid_token``, ``insufficient_scope``) never is, and neither
    is "quota" or "rate limit" in another sense. One request, an ``AuthenticationError``
    naming the key to check. These used to be read as rate limits (the words matched
    anywhere, whatever the code said): retried with backoff, then a ``RateLimitedError``
    saying "not a refused token"."""
    proxy.add(COMPANIES, answer(status, body, lambda: headers))
    with pytest.raises(AuthenticationError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert not isinstance(error, RateLimitedError)
    assert "check DEALFRAME_PRIVATE_KEY" in str(error) and "not a refused token" not in str(error)
    assert proxy.count(COMPANIES) == 1


CURRENT = "^/api/v2/companies/current$"


def test_a_quota_worded_401_on_a_chunked_call_stops_at_once(waiting, proxy):
    """``current()`` of 250 SKUs (several requests) refused with a quota-worded
    ``INVALID_TOKEN``: an ``AuthenticationError`` naming the public token, one request per
    chunk at most and nothing waited. It used to be retried as a rate limit on every chunk,
    every worker waiting at the shared gate, and end in an ``IncompleteResultError``
    ("received 0 of 250 SKUs")."""
    client, clock = waiting
    skus = [f"T{i}-USA" for i in range(250)]  # refused before any is looked up
    body = {"error": {"code": "INVALID_TOKEN", "message": "Invalid API key for this quota plan"}}
    proxy.add(CURRENT, answer(401, body, lambda: {}))
    o = outcome(lambda: client.public.current(skus))
    assert type(o.error) is AuthenticationError, repr(o.error)
    assert "check DEALFRAME_PUBLIC_TOKEN" in str(o.error)
    assert proxy.count(CURRENT) <= 3 and clock.slept == 0, (proxy.count(CURRENT), clock.slept)


#: 403s that do say they are a rate limit, in words a service writes with a status code.
SAID_LIMITED: dict[str, tuple[Any, dict[str, str]]] = {
    "forbidden-secondary-limit": (
        {"error": {"code": "FORBIDDEN", "message": "You have exceeded a secondary rate limit"}},
        {},
    ),
    "no-code-quota-exceeded": ({"message": "Quota exceeded for quota metric 'Queries'"}, {}),
    "code-quota-exceeded": ({"error": {"code": "quotaExceeded", "message": "Try later"}}, {}),
    "plan-code-remaining-0": (
        {"error": {"code": "PLAN_LIMIT", "message": "Slow down"}},
        {"X-RateLimit-Remaining": "0"},
    ),
    # a limit on the key is a rate limit, not a refused key
    "key-rate-limited": ({"error": {"code": "API_KEY_RATE_LIMITED", "message": "Wait"}}, {}),
    # a code the client does not know: the message decides
    "unknown-code-message": (
        {"error": {"code": "ACCESS_DENIED", "message": "API rate limit exceeded"}},
        {},
    ),
    "request-limit-exceeded": (
        {"error": {"code": "REQUEST_LIMIT_EXCEEDED", "message": "TotalRequests Limit"}},
        {},
    ),
    "over-query-limit": ({"error": {"code": "OVER_QUERY_LIMIT", "message": "Later"}}, {}),
    "no-code-limit-reached": ({"message": "Rate limit reached for requests"}, {}),
}


@pytest.mark.parametrize(("body", "headers"), SAID_LIMITED.values(), ids=SAID_LIMITED.keys())
def test_a_403_that_says_limit_exceeded_is_still_a_rate_limit(body, headers, fresh, proxy):
    """The narrower rule still reads what a rate-limited service writes: a message saying
    a limit or quota is exceeded (with no code but the status's), a code naming a quota
    exceeded, or ``X-RateLimit-Remaining: 0`` beside a code that names no token."""
    proxy.add(COMPANIES, answer(403, body, lambda: headers))
    with pytest.raises(RateLimitedError) as caught:
        fresh.private.companies(limit=5)
    assert "not a refused token" in str(caught.value)
    assert proxy.count(COMPANIES) == 2  # retried once (FAST: retries=1)


# ------------------------------------------------- a reset already past, an invalid Retry-After


def test_a_reset_already_past_states_no_wait_and_backs_off(fresh, proxy):
    """A reset a few seconds past (a client whose clock runs ahead of the service's sees
    GitHub's ``X-RateLimit-Reset`` so) states no wait: the retry backs off as without the
    header, and the error says no wait. It used to be a wait of 0 s: every retry sent in a
    burst of milliseconds, and the error saying ``the service asked to wait 0 s``."""
    past = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(NOW) - 5)}
    proxy.add(COMPANIES, answer(429, LIMITED, lambda: past))
    with pytest.raises(RateLimitedError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert error.retry_after is None and error.retry_after_from is None, str(error)
    assert "asked to wait" not in str(error)
    assert proxy.count(COMPANIES) == 2


def test_a_negative_retry_after_gives_way_to_the_stated_reset(waiting, proxy, deals_ref):
    """``Retry-After: -1`` is no delay (RFC 9110's is digits alone): the ``RateLimit-Reset``
    beside it is waited out, 9 s before each retry. It used to win as a wait of 0 s."""
    client, clock = waiting
    headers = {"Retry-After": "-1", "RateLimit-Reset": "9"}
    proxy.add(DEALS, answer(429, LIMITED, lambda: headers), page=2, times=2)
    o = outcome(lambda: client.private.deals())
    assert o.error is None, repr(o.error)
    assert_same(o.value, deals_ref)
    assert clock.slept == 18.0, clock.slept
