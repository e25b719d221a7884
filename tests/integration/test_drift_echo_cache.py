"""A service that echoes the caller's token: the answer is used, never written to the cache.

requests-cache redacts the request's ``Authorization`` from what it stores, but it wrote the
response as it came: a token the service echoed in a response header (``X-Echo-Token``) or in
the body (``meta.echo``) landed in the SQLite file verbatim, although the docs say tokens never
appear in the cache file. The drift proxy stands between a client holding a secret of its own
(mapped to the sandbox's key) and the sandbox and echoes that secret; the test reads the
cache file and its write-ahead log as bytes.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
import sys
import warnings
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dealframe.client import Client
from dealframe.notices import DealframeWarning
from dealframe.transport import body

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    clamp_limit,
    fresh_rules,
    meta_set,
    no_hang,
    proxy,
)

HANG_LIMIT = 60
COMPANIES = r"/api/private/v1/companies$"
#: The client's own private key: the proxy forwards the sandbox's in its place.
SECRET = "sk_echo_cache_" + secrets.token_hex(16)


def _echo_header(ex: Exchange) -> None:
    ex.headers["X-Echo-Token"] = SECRET


ECHO_HEADER = Action("echo-header", on_response=_echo_header)


@pytest.fixture()
def client(sandbox: Any, proxy: Any, tmp_path: Path) -> Iterator[Client]:
    with _client(sandbox, proxy, tmp_path) as c:
        yield c


@contextmanager
def _echoed_warnings() -> Iterator[list[str]]:
    """The ``echoed_token`` warnings given within the block (kept out of pytest's summary)."""
    said: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield said
    said += [str(w.message) for w in caught if "hold the client's token (***)" in str(w.message)]


def _file_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file())


@pytest.mark.parametrize(
    "actions",
    [(ECHO_HEADER,), (meta_set(echo=SECRET),), (ECHO_HEADER, meta_set(echo=SECRET))],
    ids=["header", "meta", "both"],
)
def test_an_answer_echoing_the_token_is_used_and_never_cached(
    client: Client,
    proxy: Any,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    actions: tuple[Action, ...],
) -> None:
    proxy.add(COMPANIES, *actions)
    with caplog.at_level(logging.DEBUG, logger="dealframe"), _echoed_warnings() as echoed:
        first = client.private.companies(limit=20)
        second = client.private.companies(limit=20)
    # a token echoed as a meta value is blanked and said, one echoed in a header is not data
    assert len(echoed) == (0 if actions == (ECHO_HEADER,) else 2), echoed
    assert isinstance(first, pd.DataFrame) and len(first) == 20
    pd.testing.assert_frame_equal(first, second)
    stored = _file_bytes(tmp_path)
    assert stored, "the cache file exists"
    assert SECRET.encode() not in stored
    # asked of the service both times: the first answer was not stored
    assert proxy.count(COMPANIES) == 2
    assert not second.attrs.get("from_cache")
    said = [
        r.getMessage() for r in caplog.records if "not stored in the HTTP cache" in r.getMessage()
    ]
    assert said and all(SECRET not in text for text in said)
    assert SECRET not in caplog.text


def test_an_answer_without_an_echo_is_still_cached(
    client: Client, proxy: Any, tmp_path: Path
) -> None:
    first = client.private.companies(limit=20)
    second = client.private.companies(limit=20)
    pd.testing.assert_frame_equal(first, second)
    assert proxy.count(COMPANIES) == 1
    assert second.attrs.get("from_cache")
    assert SECRET.encode() not in _file_bytes(tmp_path)


COMPANY = r"/api/private/v1/companies/[^/]+$"
#: Whether this SQLite build overwrites what it deletes (Debian's and Ubuntu's do).
with closing(sqlite3.connect(":memory:")) as _con:
    _SECURE_DELETE = bool(_con.execute("PRAGMA secure_delete").fetchone()[0])


def _client(sandbox: Any, proxy: Any, tmp_path: Path, token: str = SECRET) -> Client:
    """A cached client through the proxy whose private key is ``token`` (the proxy sends the
    sandbox's own key on)."""
    proxy.auth_map[token] = sandbox.private_key
    return Client(
        proxy.url,
        sandbox.public_token,
        token,
        cache_enabled=True,
        cache_path=tmp_path / "http.sqlite",
        **FAST,
    )


def test_an_old_entry_holding_the_token_is_deleted_and_asked_again(
    sandbox: Any, proxy: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries an earlier release wrote (it did not look for the token) are read through the
    transport's own lookup, which requests-cache's filter never sees: each is deleted and
    asked of the service again, never answered from the file."""
    with _client(sandbox, proxy, tmp_path) as c:
        ids = list(c.private.companies(limit=3)["id"])
    proxy.add(COMPANY, ECHO_HEADER)
    with monkeypatch.context() as m:
        m.setattr(body, "echoes", lambda *args, **kwargs: None)  # what an earlier release did
        with _client(sandbox, proxy, tmp_path) as c:
            c.private.company(ids)
    assert SECRET.encode() in _file_bytes(tmp_path), "the old entries hold the token"
    proxy.clear_rules()
    asked = proxy.count(COMPANY)
    with _client(sandbox, proxy, tmp_path) as c, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        again = c.private.company(ids)
        assert proxy.count(COMPANY) == asked + 3, "each old entry was asked again"
        assert not again.attrs.get("from_cache")
        third = c.private.company(ids)  # the clean answers were stored
        assert proxy.count(COMPANY) == asked + 3
    pd.testing.assert_frame_equal(again, third)
    assert sorted(again["id"]) == sorted(ids)
    if _SECURE_DELETE:  # else SQLite leaves a deleted row's bytes in the file's free pages
        assert SECRET.encode() not in _file_bytes(tmp_path)
    texts = [str(w.message) for w in said if issubclass(w.category, DealframeWarning)]
    assert len(texts) == 3 and all("holds the client's token in a header" in text for text in texts)
    assert all(SECRET not in text for text in texts)


#: A token with the characters JSON writers like to escape (PHP's ``json_encode`` writes
#: ``/`` as ``\/``).
SLASHED = "sk/live+AbCdEf0123456789=="


def _echo_escaped(escaped: bytes) -> Action:
    """Echo :data:`SLASHED` in ``meta.echo`` with the escapes ``escaped`` (a JSON string's
    inside, as a writer that escapes more than JSON must writes it)."""

    def apply(ex: Exchange) -> None:
        doc = ex.doc()
        doc.setdefault("meta", {})["echo"] = "ECHO-HERE"
        ex.set_doc(doc)
        ex.content = ex.content.replace(b"ECHO-HERE", escaped)

    return Action("echo-escaped", on_response=apply)


@pytest.mark.parametrize(
    "escaped",
    [rb"sk\/live+AbCdEf0123456789==", rb"\u0073k\/live\u002bAbCdEf0123456789\u003d="],
    ids=["slash", "unicode"],
)
def test_a_token_echoed_with_json_escapes_is_not_cached(
    sandbox: Any, proxy: Any, tmp_path: Path, escaped: bytes
) -> None:
    proxy.add(COMPANIES, _echo_escaped(escaped))
    with _client(sandbox, proxy, tmp_path, SLASHED) as c, _echoed_warnings() as echoed:
        first = c.private.companies(limit=20)
        second = c.private.companies(limit=20)
    assert len(echoed) == 2, "the escaped token was found, blanked and said in each answer"
    assert len(first) == 20
    pd.testing.assert_frame_equal(first, second)
    assert proxy.count(COMPANIES) == 2, "the echoing answer was not stored"
    assert escaped not in _file_bytes(tmp_path)


@pytest.mark.parametrize("token", ["json", "GMT", "1", "a", "close"])
def test_a_short_token_found_by_chance_leaves_the_cache_on(
    sandbox: Any, proxy: Any, tmp_path: Path, token: str
) -> None:
    """``json`` is in Content-Type, ``GMT`` in Date, ``close`` in Connection, ``1`` a page
    number, ``a`` a word of the sandbox's texts: none is the service echoing the token."""
    proxy.add(COMPANIES, meta_set(note=f"a {token} in a text", page=1))
    with _client(sandbox, proxy, tmp_path, token) as c:
        first = c.private.companies(limit=20)
        second = c.private.companies(limit=20)
    pd.testing.assert_frame_equal(first, second)
    assert proxy.count(COMPANIES) == 1
    assert second.attrs.get("from_cache")


def _echo_short_header(ex: Exchange) -> None:
    ex.headers["X-Echo-Token"] = "json"


@pytest.mark.parametrize(
    "action",
    [Action("echo-header", on_response=_echo_short_header), meta_set(echo="json")],
    ids=["header", "meta"],
)
def test_a_short_token_echoed_whole_is_not_cached(
    sandbox: Any, proxy: Any, tmp_path: Path, action: Action
) -> None:
    proxy.add(COMPANIES, action)
    with _client(sandbox, proxy, tmp_path, "json") as c:
        c.private.companies(limit=20)
        second = c.private.companies(limit=20)
    assert proxy.count(COMPANIES) == 2
    assert not second.attrs.get("from_cache")


def test_each_echoing_answer_is_said_once(
    client: Client, proxy: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """One DEBUG line per answer not stored: an answer whose object takes the place (and the
    ``id()``) of a freed one is still said."""
    proxy.add(COMPANIES, ECHO_HEADER)
    calls = 50
    with caplog.at_level(logging.DEBUG, logger="dealframe.transport"):
        for _ in range(calls):
            client.private.companies(limit=2)
    said = [r for r in caplog.records if "not stored in the HTTP cache" in r.getMessage()]
    assert proxy.count(COMPANIES) == calls
    assert len(said) == calls


def test_each_echoing_page_is_said_once(
    client: Client, proxy: Any, caplog: pytest.LogCaptureFixture
) -> None:
    proxy.add(COMPANIES, clamp_limit(2), ECHO_HEADER)
    with caplog.at_level(logging.DEBUG, logger="dealframe.transport"):
        frame = client.private.companies(limit=100)
    said = [r for r in caplog.records if "not stored in the HTTP cache" in r.getMessage()]
    assert len(frame) == 100
    assert len(said) == proxy.count(COMPANIES) >= 50
