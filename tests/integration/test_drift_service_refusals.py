"""Refusals written as real services write them, over real HTTP through the drift proxy.

The interface document leaves token lifetime and Family B's error body "not shown". Services
answer these in their own standard ways: RFC 7807 problem+json naming the refused parameter in
``invalid-params``; RFC 6750's empty 401 whose ``WWW-Authenticate`` says why. The client reads
each: it adapts as it does to its own body shapes, and keeps the service's words in the error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
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

from dealframe.errors import AuthenticationError, BadRequestError

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"
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
