"""A token the service echoes back percent-encoded (in a URL) is blanked as the token itself.

A key with ``+ / =`` in it (base64, as many services issue) is written ``%2B %2F %3D`` in a
URL: in a ``Location``, a ``Link``, a next-page URL, a website value. The token was searched
as it is and as JSON writes it only, so that form reached the HTTP cache file (a 200 with a
``Link`` holding it was stored), the messages of errors (the path of a redirect's
``Location``, a 401's body, a ``WWW-Authenticate`` ``error_description``, a 500's HTML) and
the frames (a website value). The forms ``quote(token, safe="")``, ``quote(token)`` and
``quote_plus(token)`` are now searched and blanked wherever the token is.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    fresh_rules,
    items_edit,
    outcome,
    proxy,
)

from dealframe.client import Client
from dealframe.errors import ApiError

#: A base64-style key, as many services issue: ``+ / =`` in it (and a fresh part, so that
#: no other test's file can hold it).
KEY = f"Kx7{secrets.token_hex(6)}+SEC/RET42=="
#: Its forms in a URL.
FORMS = {
    "quote_safe_none": quote(KEY, safe=""),
    "quote": quote(KEY),
    "quote_plus": quote_plus(KEY),
}
PRIVATE = r"^/api/private/v1/"


def _everywhere(text: str) -> list[str]:
    """The forms of ``KEY`` (itself included) found in ``text``."""
    return [form for form in (KEY, *FORMS.values()) if form in text]


@pytest.fixture
def cached(sandbox: Any, proxy: Any, tmp_path: Path) -> Iterator[Client]:
    proxy.auth_map[KEY] = sandbox.private_key
    settings = {**FAST, "retries": 0}
    with Client(
        proxy.url,
        sandbox.public_token,
        KEY,
        cache_enabled=True,
        cache_path=tmp_path / "http.sqlite",
        **settings,
    ) as c:
        yield c


def _answer(status: int, content: bytes, **headers: str) -> Action:
    def apply(ex: Exchange) -> None:
        ex.forward, ex.status, ex.headers, ex.content = False, status, headers, content

    return Action(f"answer {status}", on_request=apply)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_link_header_holding_the_encoded_key_is_not_stored(cached, proxy, tmp_path, form):
    def link(ex: Exchange) -> None:
        ex.headers["Link"] = f"<http://127.0.0.1/next?api_key={FORMS[form]}>; rel=next"

    proxy.add(PRIVATE, Action("link", on_response=link))
    first = cached.private.deals(limit=20)
    second = cached.private.deals(limit=20)
    assert len(first) == len(second) == 20
    assert proxy.count(r"/transactions$", "POST") == 2  # the first answer was not stored
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert stored, "the cache file exists"
    assert FORMS[form].encode() not in stored


@pytest.mark.parametrize(
    "name, answer",
    [
        (
            "redirect",
            lambda enc: _answer(302, b"", Location=f"https://login.example.com/{enc}/start"),
        ),
        (
            "401 json",
            lambda enc: _answer(
                401,
                b'{"error": {"code": "UNAUTHORIZED", "message": "bad key ' + enc.encode() + b'"}}',
                **{"Content-Type": "application/json"},
            ),
        ),
        (
            "403 json",
            lambda enc: _answer(
                403,
                b'{"error": {"code": "FORBIDDEN", "message": "see /keys?k=' + enc.encode() + b'"}}',
                **{"Content-Type": "application/json"},
            ),
        ),
        (
            "400 json",
            lambda enc: _answer(
                400,
                b'{"error": {"code": "BAD_REQUEST", "message": "x", "details": {"url": "'
                + enc.encode()
                + b'"}}}',
                **{"Content-Type": "application/json"},
            ),
        ),
        (
            "500 html",
            lambda enc: _answer(
                500,
                b"<html><body>error at /x?key=" + enc.encode() + b"</body></html>",
                **{"Content-Type": "text/html"},
            ),
        ),
        (
            "401 challenge",
            lambda enc: _answer(
                401,
                b"",
                **{
                    "WWW-Authenticate": f'Bearer error="invalid_token", '
                    f'error_description="key {enc} expired"'
                },
            ),
        ),
    ],
)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_error_quoting_the_encoded_key_blanks_it(
    sandbox, proxy, name: str, answer: Callable[[str], Action], form: str
):
    proxy.auth_map[KEY] = sandbox.private_key
    proxy.add(PRIVATE, answer(FORMS[form]))
    settings = {**FAST, "retries": 0}
    with Client(proxy.url, sandbox.public_token, KEY, cache_enabled=False, **settings) as c:
        got = outcome(lambda: c.private.company("0ad3b0d5-22aa-4b3b-9cab-5410633fa9bc"))
    assert isinstance(got.error, ApiError), got.error
    error = got.error
    texts = [str(error), repr(error), repr(error.args), repr(error.__dict__)]
    texts += [str(w.message) for w in got.caught]
    assert not _everywhere("\n".join(texts)), texts
    assert "***" in "\n".join(texts) or name == "500 html", texts  # blanked, not dropped


def test_a_website_holding_the_encoded_key_is_blanked_in_the_frame(sandbox, proxy):
    enc = FORMS["quote_safe_none"]
    proxy.auth_map[KEY] = sandbox.private_key
    proxy.add(
        r"/companies$",
        items_edit(lambda item: item.__setitem__("website", f"https://x.io/?k={enc}")),
    )
    with Client(proxy.url, sandbox.public_token, KEY, cache_enabled=False, **FAST) as c:
        got = outcome(lambda: c.private.companies(limit=20))
    frame = got.value
    assert frame is not None, got.error
    websites = frame["website"].tolist()
    assert websites and all(site == "https://x.io/?k=***" for site in websites), websites[:3]
