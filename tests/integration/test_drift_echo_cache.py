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
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dealframe.client import Client

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
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
    proxy.auth_map[SECRET] = sandbox.private_key
    with Client(
        proxy.url,
        sandbox.public_token,
        SECRET,
        cache_enabled=True,
        cache_path=tmp_path / "http.sqlite",
        **FAST,
    ) as c:
        yield c


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
    with caplog.at_level(logging.DEBUG, logger="dealframe"):
        first = client.private.companies(limit=20)
        second = client.private.companies(limit=20)
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
