"""Cache hits answered on the caller's thread: ``Transport.cached`` looks up without sending,
and multi-request calls (SKU chunks, list pages) hand only the misses to worker threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe.sandbox
from dealframe.client import Client


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.3, seed=12) as s:
        yield s


@pytest.fixture(scope="module")
def skus(sb: Any) -> list[str]:
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as c:
        return c.public.search().index.tolist()[:250]


def _client(sb: Any, path: Path, **settings: Any) -> Client:
    return Client.for_sandbox(
        sb, cache_enabled=True, cache_path=path, progress=False, max_workers=4, **settings
    )


def _counts(client: Client) -> tuple[int, int]:
    snap = client.stats.snapshot()
    return snap["network"], snap["cache_hits"]


def test_cached_finds_only_what_was_stored_and_sends_nothing(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        t = client.public._t
        path = f"{client.public._prefix}/companies/current"
        assert t.cached("public", "POST", path, json={"skus": skus[:100]}, kind="current") is None
        assert _counts(client) == (0, 0)
        client.public.current(skus[:100])
        hit = t.cached("public", "POST", path, json={"skus": skus[:100]}, kind="current")
        assert hit is not None and hit.from_cache is True
        assert [row["sku"] for row in hit.json()["data"]] == skus[:100]
        assert _counts(client) == (1, 1)
        other = t.cached("public", "POST", path, json={"skus": skus[:99]}, kind="current")
        assert other is None and _counts(client) == (1, 1)


def test_cached_is_none_when_the_cache_is_off(sb, skus, tmp_path):
    with Client.for_sandbox(sb, cache_enabled=False, progress=False) as client:
        client.public.current(skus[:100])
        path = f"{client.public._prefix}/companies/current"
        got = client.public._t.cached("public", "POST", path, json={"skus": skus[:100]})
        assert got is None


def test_a_partly_cached_pull_fetches_only_the_missing_chunks(sb, skus, tmp_path):
    with Client.for_sandbox(sb, cache_enabled=False, progress=False) as plain:
        expected = plain.public.current(skus)
    with _client(sb, tmp_path / "c.sqlite") as client:
        client.public.current(skus[100:200])  # the second chunk of the pull below
        assert _counts(client) == (1, 0)
        got = client.public.current(skus)
        assert _counts(client) == (3, 1)
        assert got.attrs["from_cache"] == "partial"  # one of three answers came from the cache
    pd.testing.assert_frame_equal(got, expected)


def test_a_cached_deals_pull_reads_every_page_from_the_cache(sb, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        first = client.private.deals()
        network, hits = _counts(client)
        pages = first.attrs["requests"]
        assert pages > 1 and network >= pages and hits == 0
        second = client.private.deals()
        assert _counts(client) == (network, pages)
        assert second.attrs["from_cache"] is True
    pd.testing.assert_frame_equal(first, second)


def test_cached_profiles_are_read_on_the_callers_thread(sb, tmp_path):
    """A warm ``deals(..., with_investors=True)`` reads its profiles from the cache on the
    caller's thread: a fresh client over the warm file starts no worker thread (handing each
    hit to the workers, which queue on the cache's one connection, made the warm pull slower
    than a cold one)."""
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        ids = client.private.deals(limit=30)["id"].tolist()
        first = client.private.deal(ids)
    with _client(sb, path) as client:
        prefix = f"dealframe-pool-{id(client._transport.pool):x}"
        network = _counts(client)[0]
        second = client.private.deal(ids)
        assert _counts(client)[0] == network and second.attrs["from_cache"] is True
        assert not [t for t in threading.enumerate() if t.name.startswith(prefix)]
    pd.testing.assert_frame_equal(first, second, check_like=False)
