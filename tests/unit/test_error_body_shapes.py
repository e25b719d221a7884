"""How error bodies of common web frameworks are read (over HTTP: tests/integration/
test_error_bodies.py): the service's words are the message, each problem ``"<field>: <text>"``
in ``.errors``, and a body of no known shape is summarised."""

from __future__ import annotations

import orjson
import pytest

from dealframe.errors import BadRequestError, RequestInfo, error_from_response

REQ = RequestInfo("POST", "/api/private/v1/companies", "private")


def _read(body: object, status: int = 400, **kw: object) -> BadRequestError:
    error = error_from_response(status, orjson.dumps(body), REQ, **kw)
    assert isinstance(error, BadRequestError)
    return error


@pytest.mark.parametrize(
    ("body", "message", "errors"),
    [
        (  # DRF's nested serializer, and its problems of no one field
            {"filters": {"date_from": ["Enter a valid date."]}, "non_field_errors": ["No."]},
            "filters.date_from: Enter a valid date.; No.",
            ["filters.date_from: Enter a valid date.", "No."],
        ),
        (  # DRF beside members that are no field: only the lists are problems
            {"status": 400, "path": "/x", "requestId": "r-1", "limit": ["Too big."]},
            "limit: Too big.",
            ["limit: Too big."],
        ),
        (  # a status phrase says less than the field's words
            {"error": "Bad Request", "limit": ["at most 100"]},
            "limit: at most 100",
            ["limit: at most 100"],
        ),
        (  # flask-smorest / webargs: errors by location, then by field
            {"code": 422, "status": "Unprocessable Entity", "errors": {"json": {"limit": ["x"]}}},
            "json.limit: x",
            ["json.limit: x"],
        ),
        (  # a message that is itself a field map
            {"message": {"limit": ["at most 100"]}},
            "limit: at most 100",
            ["limit: at most 100"],
        ),
        (  # JSON:API: the pointer, unescaped and dotted; a title when no detail
            {
                "errors": [
                    {"title": "Too big", "source": {"pointer": "/data/attributes/limit"}},
                    {"detail": "unknown", "source": {"pointer": "/sort~1by"}},
                    {"detail": "whole document", "source": {"pointer": ""}},
                ]
            },
            "data.attributes.limit: Too big; sort/by: unknown; whole document",
            ["data.attributes.limit: Too big", "sort/by: unknown", "whole document"],
        ),
        (  # the documented list first, another member's problems after it, each once
            {
                "error": {
                    "code": "BAD_REQUEST",
                    "message": "Invalid request",
                    "details": {"errors": ["limit: at most 100"]},
                    "errors": {"limit": "at most 100", "sort": "unknown"},
                }
            },
            "Invalid request",
            ["limit: at most 100", "sort: unknown"],
        ),
        (  # the documented details.errors holding objects: their text and field
            {"error": {"message": "Invalid", "details": {"errors": [{"field": "a", "msg": "b"}]}}},
            "Invalid",
            ["a: b"],
        ),
        ("limit too large", "limit too large", []),  # a JSON text
    ],
    ids=[
        "drf-nested",
        "drf-among-others",
        "phrase-and-fields",
        "by-location",
        "message-map",
        "jsonapi",
        "merged",
        "details-objects",
        "json-text",
    ],
)
def test_the_services_words_are_kept_with_their_field(body, message, errors):
    error = _read(body)
    assert (error.message, error.errors) == (message, errors)
    assert all(text in str(error) for text in [message, *errors])


@pytest.mark.parametrize(
    "body", [{}, {"requestId": "r-1", "ok": False}, [1, 2], 7, {"error": {"code": "X"}}]
)
def test_a_body_saying_nothing_known_is_summarised(body):
    error = _read(body, headers={"Content-Type": "application/json"})
    text = orjson.dumps(body).decode()
    assert error.message == (
        f"HTTP 400, an error body of no known shape ({len(text)} bytes of application/json, "
        f"first line {text!r})"
    )
    assert error.errors == []


def test_an_empty_body_is_the_status_alone():
    assert error_from_response(413, b"", REQ).message == "HTTP 413"


def test_a_key_cut_by_the_summary_is_redacted_before_the_cut():
    key = "sk_live_0123456789abcdef"
    body = {"pad": "x" * 100, "key": key}  # the first line is cut at 120 characters
    error = _read(body, secrets=[key])
    assert key[:6] not in str(error), str(error)


def test_a_code_echoing_the_key_is_redacted():
    key = "sk_live_0123456789abcdef"
    error = _read({"error": {"code": key, "message": f"bad {key}"}}, secrets=[key])
    assert key not in error.code and key not in str(error) and key not in repr(error)


@pytest.mark.parametrize("key", ["1", "true", "null"])
def test_a_short_key_equal_to_a_json_literal_leaves_the_body_readable(key):
    """A test key such as ``"1"`` is blanked out of what was read, not out of the raw body
    first: that made the body no JSON at all, and the service's words were lost."""
    body = {
        "error": {
            "code": "BAD_REQUEST",
            "message": "Invalid request",
            "details": {"errors": ["limit: at most 100"], "max": 1, "flag": True, "v": None},
        }
    }
    error = _read(body, secrets=[key])
    assert (error.code, error.message) == ("BAD_REQUEST", "Invalid request")
    assert error.errors == ["limit: at most 100"]
    assert "***" in error.details.values()  # the literal equal to the key, blanked out
    assert f": {key}" not in str(error.details) and f"'{key}'" not in str(error.details)
