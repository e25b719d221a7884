"""The client's HTTP cache over real HTTP: hits, refresh, bypass, per-token isolation, secrecy.

Sandboxes here use their own distinctive tokens so that a leak is easy to spot in the cache
file's bytes, in reprs, attrs, log records and error messages.
"""

from __future__ import annotations

import logging
import secrets
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import AuthenticationError, DealframeError
from dealframe.notices import MissingDataWarning

PUBLIC = "pubtok-" + secrets.token_hex(12)
PRIVATE = "privkey-" + secrets.token_hex(12)


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.05, seed=7, public_token=PUBLIC, private_key=PRIVATE) as s:
        yield s


@pytest.fixture
def cache_file(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "http.sqlite"


@pytest.fixture
def client(sb: Any, cache_file: Path) -> Iterator[Client]:
    with Client.for_sandbox(sb, cache_enabled=True, cache_path=cache_file, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def skus(sb: Any) -> list[str]:
    with Client.for_sandbox(sb, progress=False) as c:
        return c.public.search().index.tolist()


def network(client: Client) -> int:
    return client.stats.snapshot()["network"]


# ---------------------------------------------------------------------------- hits and bypass


def test_the_same_current_pull_twice_comes_from_cache(client, skus):
    first = client.public.current(skus)
    sent = network(client)
    second = client.public.current(skus)
    assert first.attrs["from_cache"] is False
    assert second.attrs["from_cache"] is True
    assert network(client) == sent  # no new request reached the service
    assert client.stats.snapshot()["cache_hits"] == second.attrs["requests"]
    pd.testing.assert_frame_equal(first, second)


@pytest.mark.parametrize(
    "call",
    [
        lambda c, s: c.public.search(regions=["North America"]),
        lambda c, s: c.public_v1.search(),
        lambda c, s: c.public.time_series(s[:3], fields=["marketCap"]),
        lambda c, s: c.public.group_current(regions=["North America"]),
        lambda c, s: c.private.deals(deal_type=["M&A"]),
        lambda c, s: c.private.lookup("companies"),
        lambda c, s: c.private.aggregate("ev_revenue", "year"),
    ],
    ids=["search", "search_v1", "time_series", "group_current", "deals", "lookup", "aggregate"],
)
def test_every_kind_of_call_is_served_from_cache_the_second_time(client, skus, call):
    first = call(client, skus)
    sent = network(client)
    second = call(client, skus)
    assert (first.attrs["from_cache"], second.attrs["from_cache"]) == (False, True)
    assert network(client) == sent
    pd.testing.assert_frame_equal(first, second)


def test_refresh_refetches_and_overwrites(client, skus):
    client.public.current(skus[:10])
    sent = network(client)
    fresh = client.public.current(skus[:10], refresh=True)
    assert fresh.attrs["from_cache"] is False and network(client) == sent + 1
    again = client.public.current(skus[:10])
    assert again.attrs["from_cache"] is True and network(client) == sent + 1


def test_cache_false_bypasses_reading_and_writing(client, skus):
    a = client.public.current(skus[:5], cache=False)
    b = client.public.current(skus[:5], cache=False)
    assert a.attrs["from_cache"] is False and b.attrs["from_cache"] is False
    sent = network(client)
    c = client.public.current(skus[:5])
    assert c.attrs["from_cache"] is False and network(client) == sent + 1  # nothing was written
    client.public.current(skus[:5])
    assert network(client) == sent + 1


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.private.deals(cache=False),
        lambda c: c.private.page("companies", cache=False),
        lambda c: c.private.aggregate("ev_revenue", "year", cache=False),
    ],
    ids=["deals", "page", "aggregate"],
)
def test_cache_false_leaves_the_discovery_document_out_of_the_cache_too(client, call):
    assert client.cache.info()["entries"] == 0
    call(client)
    assert client.cache.info()["entries"] == 0  # neither the answer nor GET /lookup/...
    client.private.lookup("transactions")  # read (and now written) anew: nothing was stored
    assert client.cache.info()["entries"] == 1


def test_cache_false_covers_the_search_that_explains_an_empty_answer(client):
    """An empty search by an industry no company carries warns after one unfiltered search:
    with cache=False that search is not stored either."""
    assert client.cache.info()["entries"] == 0
    with pytest.warns(MissingDataWarning, match="no company carries"):
        found = client.public.search(industries=["No such industry"], cache=False)
    assert len(found) == 0
    assert client.cache.info()["entries"] == 0


def test_refresh_reads_the_discovery_document_again(client):
    client.private.deals(limit=5)
    sent = network(client)
    client.private.deals(limit=5, refresh=True)
    assert network(client) == sent + 2  # the discovery document and the page


def test_a_pull_partly_in_cache_says_so(client, skus):
    asked = (skus + [f"ZZ{i:03d}-ZZZ" for i in range(150)])[:150]  # two chunks: 100 + 50
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)
        client.public.current(asked[:100])  # the first chunk's exact body
        sent = network(client)
        mixed = client.public.current(asked)
    assert mixed.attrs["requests"] == 2
    assert mixed.attrs["from_cache"] == "partial"
    assert network(client) == sent + 1


def test_change_feed_pulls_are_never_cached(client):
    first = client.private.companies(updated_at="2025-01-01", include_deleted=True)
    sent = network(client)
    second = client.private.companies(updated_at="2025-01-01", include_deleted=True)
    assert (
        second.attrs["from_cache"] is False and network(client) == sent + second.attrs["requests"]
    )
    pd.testing.assert_frame_equal(first, second)


def test_info_and_clear(client, skus):
    client.public.current(skus[:3])
    info = client.cache.info()
    assert info["enabled"] is True and info["entries"] >= 1 and info["size_bytes"] > 0
    client.cache.clear()
    emptied = client.cache.info()
    assert emptied["entries"] == 0
    # the space is given back while the client is open (the vacuumed pages leave the WAL)
    assert emptied["size_bytes"] < info["size_bytes"], (emptied, info)
    assert client.public.current(skus[:3]).attrs["from_cache"] is False


def test_cache_file_is_private(client, skus, cache_file):
    client.public.current(skus[:3])
    assert stat.S_IMODE(cache_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache_file.parent.stat().st_mode) == 0o700


# ---------------------------------------------------------------------------- token isolation


def test_a_wrong_token_never_reads_the_right_tokens_entries(sb, client, skus, cache_file):
    good = client.public.current(skus[:10])
    assert client.public.current(skus[:10]).attrs["from_cache"] is True
    with Client(
        sb.url,
        "wrong-" + PUBLIC[::-1],
        "wrong-" + PRIVATE[::-1],
        cache_enabled=True,
        cache_path=cache_file,
        progress=False,
    ) as intruder:
        with pytest.raises(AuthenticationError) as info:
            intruder.public.current(skus[:10])
        with pytest.raises(AuthenticationError):
            intruder.private.lookup("companies")
        assert intruder.stats.snapshot()["cache_hits"] == 0
    assert info.value.status == 401
    assert client.public.current(skus[:10]).attrs["from_cache"] is True
    assert len(good) == 10


def test_two_valid_tokens_at_the_same_url_never_share_an_entry(tmp_path):
    path = tmp_path / "shared.sqlite"
    with dealframe.sandbox.run(scale=0.02, seed=7, public_token="tok-one-aaaaaaaa") as first:
        port = first.port
        with Client.for_sandbox(first, cache_enabled=True, cache_path=path, progress=False) as one:
            a = one.public.search()
            assert one.public.search().attrs["from_cache"] is True
    # Same URL, another token, other data: a shared entry would hand back the first frame.
    with dealframe.sandbox.run(
        scale=0.02, seed=8, port=port, public_token="tok-two-bbbbbbbb"
    ) as second:
        assert second.url.endswith(f":{port}")
        with Client.for_sandbox(second, cache_enabled=True, cache_path=path, progress=False) as two:
            b = two.public.search()
            assert b.attrs["from_cache"] is False
            assert two.stats.snapshot()["cache_hits"] == 0
            assert two.public.search().attrs["from_cache"] is True
    assert a.index.tolist() != b.index.tolist()


# ---------------------------------------------------------------------------- secrecy


def test_tokens_appear_nowhere(sb, client, skus, cache_file, caplog):
    caplog.set_level(logging.DEBUG)
    frames = [
        client.public.current(skus[:5]),
        client.public.current(skus[:5]),
        client.private.deals(limit=5),
        client.private.lookup("transactions"),
        client.private.deals(limit=5),
    ]
    errors: list[BaseException] = []
    for call in (
        lambda: client.private.company("00000000-0000-4000-8000-000000000000"),
        lambda: client.private.company(sb.state.dataset.deals[0]["id"], fields=["nope"]),
    ):
        with pytest.raises(DealframeError) as info:
            call()
        errors.append(info.value)
    with Client(sb.url, "x" + PUBLIC, "x" + PRIVATE, progress=False, cache_enabled=False) as bad:
        with pytest.raises(AuthenticationError) as info:
            bad.public.search()
        errors.append(info.value)
        texts = [repr(bad), repr(bad.settings), str(bad.settings)]
    blobs = b"".join(p.read_bytes() for p in cache_file.parent.iterdir() if p.is_file())
    assert len(blobs) > 0
    texts += [
        repr(client),
        repr(client.settings),
        str(client.settings),
        repr(client.public),
        repr(client.private),
        repr(client.cache),
        repr(client._transport),
        repr(client.stats),
        caplog.text,
    ]
    texts += [repr(f.attrs) for f in frames]
    for err in errors:
        texts += [str(err), repr(err), repr(vars(err)), repr(err.args)]
    for token in (PUBLIC, PRIVATE, "x" + PUBLIC, "x" + PRIVATE):
        assert token.encode() not in blobs
        for i, text in enumerate(texts):
            assert token not in text, (token[:6], i)
