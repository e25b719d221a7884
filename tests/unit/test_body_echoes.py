"""The cache filter's look for the request's token (transport/body.py, ``echoes`` and
``storable``): one verdict per answer, one line per answer not stored, one parse."""

from __future__ import annotations

import logging

import pytest
import requests

from dealframe.transport import body
from dealframe.transport.body import echoes, storable

TOKEN = "tok-0123456789abcdef"


def _answer(content: bytes = b'{"data": []}', **headers: str) -> requests.Response:
    response = requests.Response()
    response.status_code = 200
    response.request = requests.Request(
        "GET", "http://h/api/x", headers={"Authorization": f"Bearer {TOKEN}"}
    ).prepare()
    response.headers.update(headers)
    response._content = content
    return response


def test_each_answer_not_stored_is_said_once_even_where_a_freed_one_was(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A new answer often takes the place (the ``id()``) of the one just freed: it is a new
    answer all the same, and said."""
    with caplog.at_level(logging.DEBUG, logger="dealframe.transport"):
        for _ in range(50):
            response = _answer(**{"X-Echo": TOKEN})
            assert storable(response) is False
            assert storable(response) is False  # requests-cache asks twice: said once
            del response
    said = [r for r in caplog.records if "not stored in the HTTP cache" in r.getMessage()]
    assert len(said) == 50


def test_the_filter_asked_twice_judges_once(monkeypatch: pytest.MonkeyPatch) -> None:
    looks: list[bytes] = []
    look = body.echoes
    monkeypatch.setattr(body, "echoes", lambda r, *a: looks.append(r.content) or look(r, *a))
    response = _answer(b'{"data": [{"id": "a"}]}')
    assert storable(response) is True
    assert storable(response) is True
    assert len(looks) == 1


@pytest.mark.parametrize(
    "content",
    [
        b'{"data": [], "meta": {"echo": "tok-0123456789abcdef"}}',
        b'{"data": [], "meta": {"echo": "tok\\u002d0123456789abcdef"}}',
        b'{"data": [], "meta": {"echo": "x \\"tok-0123456789abcdef\\" y"}}',
    ],
    ids=["plain", "unicode-escape", "inside-an-escaped-text"],
)
def test_a_long_token_counts_however_the_body_writes_it(content: bytes) -> None:
    assert echoes(_answer(content)) == "the body"


@pytest.mark.parametrize(
    "content,short,where",
    [
        (b'{"data": [], "meta": {"page": 1}}', "1", None),
        (b'{"data": [{"name": "Acme Inc"}]}', "Inc", None),
        (b'{"data": [{"Inc": 2}]}', "Inc", None),
        (b'{"data": [{"name": "Inc"}]}', "Inc", "the body"),
        (b'{"data": [{"name": "I\\u006ec"}]}', "Inc", "the body"),
        (b'{"data": [{"note": "say \\"Inc\\""}]}', "Inc", None),
    ],
)
def test_a_short_token_counts_as_a_whole_string_value_only(
    content: bytes, short: str, where: str | None
) -> None:
    assert echoes(_answer(content, **{"Content-Type": "application/json"}), (short,)) == where


def test_a_short_token_counts_as_a_whole_header_value_outside_the_fixed_headers() -> None:
    fixed = {"Content-Type": "json", "Date": "GMT", "Connection": "close", "Server": "x"}
    assert echoes(_answer(**fixed), ("json", "GMT", "close", "x")) is None
    assert echoes(_answer(**{"X-Note": "a json text"}), ("json",)) is None
    assert echoes(_answer(**{"X-Echo": " json "}), ("json",)) == "a header"
