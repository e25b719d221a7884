"""A warm sub-collection call over many ids (``investments(ids)``, ``fundings(ids)`` ...)
reads its cached pages on the caller's thread, as profiles and list pages do: handing each
hit to the worker threads made the warm call about twice as slow."""

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
    with dealframe.sandbox.run(scale=0.05, seed=12) as s:
        yield s


def _client(sb: Any, path: Path) -> Client:
    return Client.for_sandbox(sb, cache_enabled=True, cache_path=path, progress=False)


def test_a_warm_sub_collection_call_is_read_on_the_callers_thread(sb, tmp_path):
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        ids = client.private.investors(limit=40)["id"].tolist()
        first = client.private.investments(ids)
    with _client(sb, path) as client:
        prefix = f"dealframe-pool-{id(client._transport.pool):x}"
        second = client.private.investments(ids)
        snap = client.stats.snapshot()
        assert snap["network"] == 0 and snap["cache_hits"] > len(ids)  # schema and pages
        assert second.attrs["from_cache"] is True
        assert not [t for t in threading.enumerate() if t.name.startswith(prefix)]
    pd.testing.assert_frame_equal(first, second)


def test_a_sub_collection_call_with_some_ids_cached_reads_the_rest(sb, tmp_path):
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        ids = client.private.companies(limit=30)["id"].tolist()
        client.private.fundings(ids[::2])  # every other id's pages in the cache
    with Client.for_sandbox(sb, cache_enabled=False, progress=False) as plain:
        expected = plain.private.fundings(ids)
    with _client(sb, path) as client:
        got = client.private.fundings(ids)
        assert client.stats.snapshot()["network"] == len(ids[1::2])  # one page each
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected.reset_index(drop=True))


def test_an_id_with_only_its_first_page_cached_is_pulled_by_a_worker(sb, tmp_path):
    """Page 1 cached, page 2 not: the id is a miss, handed to the workers (its page 2 was
    sent from the caller's thread, one id after another, while the workers waited)."""
    size = 5  # the page bound a service's refusal stated, as the client keeps it
    with Client.for_sandbox(sb, cache_enabled=False, progress=False) as plain:
        investors = plain.private.investors(limit=200)["id"].tolist()
        counts = plain.private.portfolio(investors).groupby("investor_id").size()
        ids = counts[counts > size].index.tolist()[:12]
        assert len(ids) >= 4
        plain.private._sub_page_size = size
        expected = plain.private.portfolio(ids)
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        client.private._sub_page_size = size
        client.private.portfolio(ids, limit=size)  # every id's page 1 in the cache
    with _client(sb, path) as client:
        client.private._sub_page_size = size
        prefix = f"dealframe-pool-{id(client._transport.pool):x}"
        got = client.private.portfolio(ids)
        assert [t for t in threading.enumerate() if t.name.startswith(prefix)]  # workers
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected.reset_index(drop=True))
