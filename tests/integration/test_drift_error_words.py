"""An error body's words reach the message whatever the status, over real HTTP through the
drift proxy.

A service may list several problems in an error body of any status (``{"errors": [...]}``
on a 404, a 409, a 403, a 500) or say one problem as an object (FastAPI's ``{"detail":
{"msg", "code"}}``). The message used to be the client's own ``Invalid request`` for any
body listing two or more problems, and only a 400 added the problems after it: a 404 read
``404 NOT_FOUND: Invalid request``. Every status now says the service's words, several
problems joined with ``"; "``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
)

from dealframe.errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    ServerError,
)

P = "/api/private/v1"
PROFILE = f"^{P}/companies/[^/]+$"
#: Two problems of no field, as a service may list them on any status.
TWO = {
    "errors": [
        {"field": None, "message": "Company not found"},
        {"field": None, "message": "id was merged into 123"},
    ]
}
SAID = "Company not found; id was merged into 123"


def answer(status: int, body: Any) -> Action:
    """``status`` with the JSON ``body``, not forwarded."""

    def apply(ex: Exchange) -> None:
        ex.forward, ex.status, ex._doc = False, status, None
        ex.content = orjson.dumps(body)
        ex.headers = {"Content-Type": "application/json"}

    return Action(f"answer({status})", on_request=apply)


@pytest.fixture(scope="module")
def company() -> str:
    """A company id (the proxy answers in the sandbox's place, whatever the id)."""
    return "00000000-0000-4000-8000-000000000001"


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (404, NotFoundError),
        (409, ApiError),
        (403, AuthenticationError),
        (500, ServerError),
        (400, BadRequestError),
    ],
)
def test_several_problems_are_said_on_every_status(status, cls, company, fresh, proxy):
    """The two problems, joined with ``"; "``, are the message and what the error says; no
    ``Invalid request`` the service never wrote (a 404 used to read ``404 NOT_FOUND: Invalid
    request``, a 409 ``409 HTTP_409: Invalid request``)."""
    proxy.add(PROFILE, answer(status, TWO), method="GET")
    o = outcome(lambda: fresh.private.company(company))
    assert type(o.error) is cls, repr(o.error)
    text = str(o.error)
    assert o.error.message == SAID, text
    assert SAID in text and text.count("Company not found") == 1, text
    assert "Invalid request" not in text, text
    assert o.error.details["errors"] == ["Company not found", "id was merged into 123"]


def test_a_problem_object_in_detail_is_said_with_its_code(company, fresh, proxy):
    """FastAPI's ``{"detail": {"msg", "code"}}`` on a 404: its words and its code (the
    object used to be read as a map of fields, ``msg: ...`` and ``code: ...``, and the
    message was ``Invalid request``)."""
    body = {"detail": {"msg": "Company not found", "code": "NOT_FOUND"}}
    proxy.add(PROFILE, answer(404, body), method="GET")
    o = outcome(lambda: fresh.private.company(company))
    assert isinstance(o.error, NotFoundError), repr(o.error)
    assert (o.error.code, o.error.message) == ("NOT_FOUND", "Company not found")
    assert str(o.error).startswith("404 NOT_FOUND: Company not found ("), str(o.error)


def test_a_message_and_its_problems_are_said_on_a_404(company, fresh, proxy):
    """The documented body on a 404, its ``details.errors`` beside its message: both are
    said (only a 400 used to add the problems)."""
    body = {
        "error": {
            "code": "NOT_FOUND",
            "message": "Company not found",
            "details": {"errors": ["id was merged into 123"]},
        }
    }
    proxy.add(PROFILE, answer(404, body), method="GET")
    o = outcome(lambda: fresh.private.company(company))
    assert isinstance(o.error, NotFoundError), repr(o.error)
    assert o.error.message == "Company not found"
    assert str(o.error).startswith("404 NOT_FOUND: " + SAID.replace(";", ":")), str(o.error)
