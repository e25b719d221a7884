"""Refusals written as real services write them, over real HTTP through the drift proxy.

The interface document leaves Family B's error body "not shown". Services answer in their own
standard ways: RFC 7807 problem+json names the refused parameter in ``invalid-params``. The
client reads it as it reads its own body shapes, and adapts to it alike.
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
    assert_same,
    direct,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    refuse,
)

from dealframe.errors import BadRequestError

P = "/api/private/v1"
COMPANIES = f"^{P}/companies$"


def problem_json(action: Action) -> Action:
    """``action``'s refusal sent as ``application/problem+json``, as RFC 7807 has it."""

    def apply(ex: Exchange) -> None:
        assert action.on_request is not None
        action.on_request(ex)
        if not ex.forward:
            ex.headers["Content-Type"] = "application/problem+json"

    return Action(f"problem+json({action.name})", on_request=apply)


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
