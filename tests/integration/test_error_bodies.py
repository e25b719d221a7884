"""Error bodies of common web frameworks, over real HTTP through the drift proxy.

Family B's error body is "not shown" by the interface document. A service built on Rails,
Laravel, Django REST framework or a JSON:API library writes its refusals its own way; the
client keeps the service's words (the message, and each problem as ``"<field>: <text>"`` in
``.errors``), so a refused ``limit`` is read and adapted to whichever of them says so, and a
body of no known shape is summarised, never replaced by ``HTTP 400``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    assert_same,
    direct,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    refuse,
)

from dealframe import Client, doctor
from dealframe.errors import BadRequestError

COMPANIES = "^/api/private/v1/companies$"

#: A service refusing ``limit`` above 100, in the words of each framework.
REFUSALS: dict[str, Any] = {
    "rails-errors-object": {"errors": {"limit": ["must be less than or equal to 100"]}},
    "errors-object-text": {"errors": {"limit": "must be less than or equal to 100"}},
    "laravel": {
        "message": "The given data was invalid.",
        "errors": {"limit": ["The limit may not be greater than 100."]},
    },
    "drf": {"limit": ["Ensure this value is less than or equal to 100."]},
    "top-level-texts": ["limit: must be less than or equal to 100"],
    "top-level-objects": [{"field": "limit", "message": "must be less than or equal to 100"}],
    "details-errors-text": {
        "error": {
            "code": "BAD_REQUEST",
            "message": "Invalid request",
            "details": {"errors": "limit: must be <= 100"},
        }
    },
    "jsonapi-pointer": {
        "errors": [
            {
                "status": "400",
                "title": "Invalid Attribute",
                "detail": "must be less than or equal to 100",
                "source": {"pointer": "/limit"},
            }
        ]
    },
}


@pytest.fixture(scope="module")
def companies_ref(direct: Any) -> Any:
    frame = direct.private.companies()
    assert len(frame) > 1000, "the tests need several pages"
    return frame


@pytest.mark.parametrize("body", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_limit_refused_in_any_frameworks_words_is_read_in_pages_of_100(
    body, fresh, direct, proxy, companies_ref
):
    """Each body says ``limit`` may be at most 100: page 1 is asked again at 100 and every row
    arrives, as from the sandbox itself (each used to raise ``400 BAD_REQUEST: HTTP 400`` or
    a message without the field, ``.errors == []``)."""
    proxy.add(COMPANIES, refuse(400, lambda sent: body, 100, "limit"), method="POST")
    o = outcome(lambda: fresh.private.companies(limit=250, strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, direct.private.companies(limit=250), ignore_index=True)
    assert o.value.attrs["page_size"] == 100
    refused = o.value.attrs["page_size_refused"]
    assert "limit 250 refused" in refused and "100" in refused, refused
    assert proxy.pages(COMPANIES)[:2] == [1, 1]  # the refused page 1, asked again at 100
    everything = fresh.private.companies()  # the bound is kept for the whole walk
    assert_same(everything, companies_ref, ignore_index=True)


@pytest.mark.parametrize(
    ("body", "message", "errors"),
    [
        (
            {"errors": {"sort": ["unknown key 'foo'"], "filters": "must be an object"}},
            "sort: unknown key 'foo'; filters: must be an object",
            ["sort: unknown key 'foo'", "filters: must be an object"],
        ),
        (
            {"message": "The given data was invalid.", "errors": {"sort": ["unknown key"]}},
            "The given data was invalid.",
            ["sort: unknown key"],
        ),
        ({"sort": ["Unknown key."]}, "sort: Unknown key.", ["sort: Unknown key."]),
        (
            ["sort: unknown key", "filters.foo: unknown member"],
            "sort: unknown key; filters.foo: unknown member",
            None,
        ),
        (
            {"errors": [{"detail": "unknown key", "source": {"parameter": "sort"}}]},
            "sort: unknown key",
            ["sort: unknown key"],
        ),
    ],
    ids=["errors-object", "laravel", "drf", "top-level-texts", "jsonapi-parameter"],
)
def test_other_refusals_keep_each_problem_with_its_field(body, message, errors, fresh, proxy):
    """A refusal that is no size bound is raised, with the service's words in the message
    and each problem, field first, in ``.errors``."""
    errors = body if errors is None else errors
    proxy.add(COMPANIES, refuse(400, lambda sent: body, 0, "limit"), method="POST")
    with pytest.raises(BadRequestError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    assert (error.message, error.errors) == (message, errors)
    assert all(text in str(error) for text in [message, *errors])
    assert proxy.count(COMPANIES) == 1


def test_a_body_of_no_known_shape_is_summarised_not_dropped(fresh, proxy):
    """A JSON body the reader knows no member of: the message says the status and what the
    body holds (size, content type, first line), as a non-JSON body's does; it used to be
    ``HTTP 400`` alone."""
    body = {"requestId": "r-7f3a", "accepted": False}
    proxy.add(COMPANIES, refuse(400, lambda sent: body, 0, "limit"), method="POST")
    with pytest.raises(BadRequestError) as caught:
        fresh.private.companies(limit=5)
    message = caught.value.message
    assert message.startswith("HTTP 400, an error body of no known shape ("), message
    assert "application/json" in message and "r-7f3a" in message
    assert caught.value.errors == []


@pytest.mark.parametrize(
    "shape",
    [
        lambda key: {"errors": {"limit": [f"token {key} may read at most 100"]}},
        lambda key: {f"{key}": [f"{key} is not allowed"]},
        lambda key: [f"limit: {key}"],
        lambda key: {"error": {"code": key, "details": {"errors": f"limit {key}"}}},
        # no member known, and the key cut by the summary's first line (120 characters)
        lambda key: {"pad": "x" * (120 - 19 - len(key) // 2), "k": key},
    ],
    ids=["errors-object", "drf", "top-level", "code-and-details-text", "summary-cut"],
)
def test_a_body_echoing_the_key_never_shows_it(shape, sandbox, fresh, proxy):
    """Every new reading keeps the redaction: neither the key nor a part of it cut by the
    one-line summary appears in the message, ``.errors``, ``.details``, ``.code`` or repr."""
    key = sandbox.private_key
    proxy.add(COMPANIES, refuse(400, lambda sent: shape(key), 0, "limit"), method="POST")
    with pytest.raises(BadRequestError) as caught:
        fresh.private.companies(limit=5)
    error = caught.value
    seen = " ".join(
        [str(error), repr(error), error.code, error.message, *error.errors, str(error.details)]
    )
    assert key[:8] not in seen, seen


def test_a_key_equal_to_a_json_literal_leaves_the_services_words_readable(sandbox, proxy):
    """A client whose key is ``"1"`` (test keys are that short) reads a refusal holding the
    number 1 as the service wrote it: the key is blanked out of what was read, not out of
    the raw body first (that made it no JSON, and the message became a summary of it)."""
    body = {
        "error": {
            "code": "BAD_REQUEST",
            "message": "Invalid request",
            "details": {"errors": ["sort: unknown key"], "max": 1},
        }
    }
    proxy.add(COMPANIES, refuse(400, lambda sent: body, 0, "limit"), method="POST")
    proxy.auth_map["1"] = sandbox.private_key  # the proxy swaps it for the sandbox's key
    try:
        with (
            Client(proxy.url, sandbox.public_token, "1", cache_enabled=False, **FAST) as client,
            pytest.raises(BadRequestError) as caught,
        ):
            client.private.companies(limit=5)
    finally:
        del proxy.auth_map["1"]
    error = caught.value
    assert (error.code, error.message) == ("BAD_REQUEST", "Invalid request"), error.message
    assert error.errors == ["sort: unknown key"]
    assert error.details["max"] == "***"  # the literal equal to the key, blanked out


def test_the_doctor_says_a_limit_refused_in_drfs_words_is_adapted_to(fresh, proxy):
    """The doctor asks again at 100, as the client does (it said ``HTTP 400 ... breaks``)."""
    body = REFUSALS["drf"]
    proxy.add(COMPANIES, refuse(400, lambda sent: body, 100, "limit"), method="POST")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(fresh)
    check = next(c for c in diagnosis.checks if c.name == "B.paging.limit")
    assert "limit: Ensure this value" in check.observed, check.observed
    assert check.verdict == "adapted"
