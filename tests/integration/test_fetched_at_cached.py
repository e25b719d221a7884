"""``attrs["fetched_at"]`` is when the data was fetched from the service, cache hit or not.

Before, a frame answered from the HTTP cache said the time of the cache read: time series stay
cached 12 hours, so a frame of 12-hour-old data claimed fresh data, and nothing else in
``attrs`` gave its age. Now ``fetched_at`` is the call's time when nothing came from the
cache, else when the oldest cached answer among the call's was stored. Over HTTP against the
session sandbox, with a cache file of the test's own; the entries are aged through
requests-cache's public API (no sleep).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _clock import age_cache_entries

from dealframe.client import Client

AGE = 3 * 3600  # within the 12 hours time series stay cached


@pytest.fixture
def client(sandbox: Any, tmp_path: Path) -> Iterator[Client]:
    with Client.for_sandbox(
        sandbox, progress=False, cache_enabled=True, cache_path=tmp_path / "c.sqlite"
    ) as c:
        yield c


def _at(frame: Any) -> dt.datetime:
    return dt.datetime.fromisoformat(frame.attrs["fetched_at"])


def test_a_cache_hit_says_when_its_data_was_fetched(client, tmp_path):
    skus = client.public.search().index[:3].tolist()
    first = client.public.time_series(skus, fields=["evRevenueLtm"])
    between = dt.datetime.now(dt.UTC)
    hit = client.public.time_series(skus, fields=["evRevenueLtm"])
    assert (first.attrs["from_cache"], hit.attrs["from_cache"]) == (False, True)
    assert _at(hit) <= _at(first) <= between  # not the time of the read
    age_cache_entries(tmp_path / "c.sqlite", AGE)
    aged = client.public.time_series(skus, fields=["evRevenueLtm"])
    assert aged.attrs["from_cache"] is True
    assert _at(aged) <= between - dt.timedelta(seconds=AGE)  # was the time of the read
    assert _at(aged) > between - dt.timedelta(seconds=AGE + 600)


@pytest.mark.filterwarnings("ignore:.*not returned")
def test_a_partly_cached_call_says_its_oldest_answer(client, tmp_path):
    known = client.public.search().index[:100].tolist()
    skus = known + [f"ZQ{i:03d}-USA" for i in range(150 - len(known))]  # some not returned
    client.public.time_series(skus[:100], fields=["evRevenueLtm"])  # the first chunk cached
    age_cache_entries(tmp_path / "c.sqlite", AGE)
    between = dt.datetime.now(dt.UTC)
    frame = client.public.time_series(skus, fields=["evRevenueLtm"])  # 100 cached + 50 sent
    assert frame.attrs["requests"] == 2 and frame.attrs["from_cache"] == "partial"
    assert _at(frame) <= between - dt.timedelta(seconds=AGE)
    fresh = client.public.time_series(skus, fields=["evRevenueLtm"], refresh=True)
    assert fresh.attrs["from_cache"] is False
    assert _at(fresh) >= between.replace(microsecond=0)  # sent now: the call's time
