"""A bound on a request's size is read from what the service wrote, never from dealframe's
own summary of its answer (``15 bytes of text/plain``), the status it repeats, or a number
inside a word."""

from __future__ import annotations

import pickle

import pytest

from dealframe.errors import RequestInfo, error_from_response
from dealframe.transport.refusals import said, smaller_size, stated_bound

REQ = RequestInfo("POST", "/api/private/v1/companies/resolve", "private")
TEXT = {"Content-Type": "text/plain"}
NGINX = (
    b"<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
    b"<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n"
    b'<div style="width: 600px"></div></body>\r\n</html>\r\n'
)


@pytest.mark.parametrize(
    ("status", "body", "headers"),
    [
        (400, b"limit too large", TEXT),  # 15 bytes: the summary's count was read as 15
        (413, b"Error: too many items in request", TEXT),  # 32 bytes
        (413, NGINX, {"Content-Type": "text/html"}),  # the status and a style's 600px
        (413, b"", {}),  # "HTTP 413": the client's words, not the service's
        (400, b'{"requestId": "r-1", "error": "too large"}', {"Content-Type": "application/json"}),
        (413, b"HTTP 413: payload too large", TEXT),
        (
            400,
            b'{"status": 400, "reason": "limit too large"}',
            {"Content-Type": "application/json"},
        ),
        (413, b'{"code": "413", "reason": "too many names"}', {"Content-Type": "application/json"}),
        (413, b'{"message": "413: too many names"}', {"Content-Type": "application/json"}),
    ],
    ids=[
        "text-15",
        "text-32",
        "nginx",
        "empty",
        "unknown-json",
        "status-in-text",
        "status-member",
        "code-member",
        "status-first",
    ],
)
def test_no_bound_is_read_where_the_service_stated_none(status, body, headers):
    error = error_from_response(status, body, REQ, headers)
    assert stated_bound(error, 1000) is None, (said(error), error.message)
    assert smaller_size(error, 1000, lambda words: True) == 500


@pytest.mark.parametrize(
    ("body", "headers", "bound"),
    [
        (b"limit: must be at most 100", TEXT, 100),
        (b"413 Payload Too Large: at most 50 names per request", TEXT, 50),
        (b'{"error": {"code": "X", "message": "names: at most 100 names, got 1000"}}', {}, 100),
        (b'{"detail": "limit: must be in 1-250"}', {}, 250),
        (b'{"status": 413, "reason": "limit too large", "max": 100}', {}, 100),
        (b'{"message": "413: limit must be at most 100"}', {}, 100),
        (b'{"error": {"code": "X", "message": "413 names at most per request"}}', {}, 413),
    ],
    ids=[
        "text",
        "text-after-status",
        "documented-json",
        "range",
        "status-member",
        "status-first",
        "bound-equal-to-status",
    ],
)
def test_a_bound_the_service_wrote_is_read(body, headers, bound):
    error = error_from_response(413, body, REQ, headers)
    assert smaller_size(error, 1000, lambda words: True) == bound


def test_the_words_are_kept_apart_from_the_summary_and_survive_pickling():
    error = error_from_response(400, b"limit too large\nsee docs", REQ, TEXT)
    assert error.message.startswith("not a JSON error body (24 bytes of text/plain")
    assert error.words == "limit too large see docs"
    again = pickle.loads(pickle.dumps(error))
    assert again.words == error.words and said(again) == "limit too large see docs"


def test_a_token_echoed_in_a_text_body_is_blanked_in_the_words():
    error = error_from_response(
        400,
        b"limit too large for key sk_live_0123456789",
        REQ,
        TEXT,
        secrets=["sk_live_0123456789"],
    )
    assert "sk_live_0123456789" not in error.words and "***" in error.words
