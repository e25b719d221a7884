"""Cache hits over real HTTP: answered without sending anything, with the expiry, refresh,
bypass and clear rules of the SQLite cache, in one client and across clients on one file."""

from __future__ import annotations

import logging
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from _clock import age_cache_entries
from requests_cache import SQLiteCache

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import ConfigurationError, ValidationError
from dealframe.notices import DealframeWarning
from dealframe.transport import cache, stragglers
from dealframe.transport.cache import cache_key, canonical_json, namespaced_key, token_namespace


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    """A sandbox of 300 SKUs (1,000 per unit of scale): the 250 the chunking tests need (a
    scale-1 sandbox took 3.7 s to start from its snapshot, 12.6 s to build one)."""
    with dealframe.sandbox.run(scale=0.3, seed=7) as s:
        yield s


@pytest.fixture(scope="module")
def skus(sb: Any) -> list[str]:
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as c:
        found = c.public.search().index.tolist()[:250]
    assert len(found) == 250  # three chunks: 100 + 100 + 50
    return found


def _client(sb: Any, path: Path, **settings: Any) -> Client:
    return Client.for_sandbox(sb, cache_enabled=True, cache_path=path, progress=False, **settings)


def _counts(client: Client) -> tuple[int, int]:
    snap = client.stats.snapshot()
    return snap["network"], snap["cache_hits"]


def test_a_cached_pull_sends_nothing_and_says_it_came_from_cache(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        first = client.public.current(skus)
        network, hits = _counts(client)
        assert first.attrs["from_cache"] is False and network == 3  # 250 SKUs: 100+100+50
        second = client.public.current(skus)
        assert _counts(client) == (network, hits + 3)
        assert second.attrs["from_cache"] is True and second.attrs["requests"] == 3
        pd.testing.assert_frame_equal(first, second)


def test_a_new_client_on_the_same_file_reads_it(sb, skus, tmp_path):
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as writer:
        expected = writer.public.current(skus)
    with _client(sb, path) as reader:
        got = reader.public.current(skus)
        assert _counts(reader) == (0, 3)
    pd.testing.assert_frame_equal(expected, got)


def test_refresh_refetches_and_replaces_the_entry(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        client.public.current(skus)
        refreshed = client.public.current(skus, refresh=True)
        assert refreshed.attrs["from_cache"] is False
        assert _counts(client) == (6, 0)
        assert client.public.current(skus).attrs["from_cache"] is True
        assert _counts(client) == (6, 3)


def test_cache_false_neither_reads_nor_writes(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        client.public.current(skus)
        bypass = client.public.current(skus, cache=False)
        assert bypass.attrs["from_cache"] is False and _counts(client) == (6, 0)
    with _client(sb, tmp_path / "other.sqlite") as client:
        client.public.current(skus, cache=False)
        assert client.cache.info()["entries"] == 0
        assert client.public.current(skus).attrs["from_cache"] is False


def test_clear_empties_the_cache(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        client.public.current(skus)
        assert client.cache.info()["entries"] == 3
        client.cache.clear()
        assert client.cache.info()["entries"] == 0
        assert client.public.current(skus).attrs["from_cache"] is False


def test_an_expired_entry_is_fetched_again(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite", cache_expiry={"current": 3600}) as client:
        client.public.current(skus[:10])
        assert client.public.current(skus[:10]).attrs["from_cache"] is True
        responses = client._transport._session.cache.responses
        (key,) = list(responses.keys())
        entry = responses[key]
        assert entry.expires is not None and not entry.is_expired
        entry.expires = datetime.now(UTC) - timedelta(seconds=1)  # the clock moved on
        responses[key] = entry
        assert client.public.current(skus[:10]).attrs["from_cache"] is False
        assert _counts(client) == (2, 1)


@pytest.mark.parametrize(("age", "hit"), [(120, False), (30, True)])
def test_the_readers_expiry_applies_to_entries_written_with_another(sb, skus, tmp_path, age, hit):
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as writer:  # the defaults: 900 s for current, 3600 s for lists
        writer.public.current(skus[:10])
        writer.private.companies(limit=5)
    age_cache_entries(path, age)
    with _client(sb, path, cache_expiry={"current": 60, "list": 60}) as reader:
        current = reader.public.current(skus[:10])  # looked up before any request
        companies = reader.private.companies(limit=5)  # through requests-cache itself
        assert (current.attrs["from_cache"], companies.attrs["from_cache"]) == (hit, hit)
        assert _counts(reader)[0] == (0 if hit else 2)
        again = reader.private.companies(limit=5), reader.public.current(skus[:10])
        assert all(frame.attrs["from_cache"] for frame in again)  # overwritten, now fresh
        assert _counts(reader)[0] == (0 if hit else 2)
    with _client(sb, path) as default:  # a refreshed entry serves the default reader too
        assert default.private.companies(limit=5).attrs["from_cache"] is True


def test_clear_expired_removes_only_the_expired_entries(sb, skus, tmp_path):
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        client.public.current(skus)  # 3 chunks, 900 s
        client.private.companies(limit=5)  # discovery (a day) and a page (an hour)
        assert client.cache.info()["entries"] == 5
        age_cache_entries(path, 1000)  # the current-data answers expired, the rest did not
        client.cache.clear(expired=True)
        assert client.cache.info()["entries"] == 2
        assert client.private.companies(limit=5).attrs["from_cache"] is True
        assert client.public.current(skus).attrs["from_cache"] is False
        with pytest.raises(ValidationError, match="expired"):
            client.cache.clear(expired="yes")


_OPEN_AND_COUNT = """
import sys
from dealframe.client import Client
from dealframe.errors import ValidationError
with Client("http://127.0.0.1:9", "t", "k", cache_path=sys.argv[1], progress=False) as client:
    print(client.cache.info()["entries"])
"""


def test_a_process_opening_the_file_removes_its_expired_entries(sb, skus, tmp_path):
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        client.public.current(skus)  # 3 entries, 900 s
        client.private.companies(limit=5)  # 2 entries, a day and an hour
    age_cache_entries(path, 5000)  # past the hour of lists, within the day of discovery
    assert len(SQLiteCache(str(path)).responses) == 5  # expired, still on disk
    opened = subprocess.run(
        [sys.executable, "-c", _OPEN_AND_COUNT, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert opened.stdout.split() == ["1"]  # only the discovery document is left


def test_changing_a_returned_frame_does_not_change_the_next_hit(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        first = client.public.current(skus[:20])
        pristine = client.public.current(skus[:20], cache=False)  # shares no objects with first
        first.iloc[0, first.columns.get_loc("marketCap")] = -1.0
        tags = first["tags"].iloc[0]
        if isinstance(tags, list):
            tags.append("mutated")
        again = client.public.current(skus[:20])
        assert again.attrs["from_cache"] is True
        pd.testing.assert_frame_equal(again, pristine)


def test_private_gets_with_params_in_any_order_share_one_entry(sb, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        company = client.private.companies(limit=1)["id"].iloc[0]
        t = client._transport
        path = f"/api/private/v1/companies/{company}/fundings"
        first = t.request("private", "GET", path, params={"page": 1, "limit": 5}, kind="list")
        second = t.request("private", "GET", path, params={"limit": 5, "page": 1}, kind="list")
        assert (first.from_cache, second.from_cache) == (False, True)
        assert first.content == second.content


def test_the_fast_key_is_the_key_requests_cache_stores_under(sb, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        client.public.search(countries=["GBR"])
        session = client._transport._session
        keys = list(session.cache.responses.keys())
        assert len(keys) == 1
        stored = session.cache.responses[keys[0]]
        # the stored request is redacted (and its body re-serialised): rebuild the key from
        # what the transport sent instead
        assert stored.request.headers.get("Authorization") == "REDACTED"
        body = canonical_json({"countries": ["GBR"]})
        expected = cache_key(
            token_namespace(f"Bearer {sb.public_token}"), "POST", f"{sb.url}/api/v2/companies", body
        )
        assert keys[0] == expected


def test_namespaced_key_differs_by_token_and_body():
    import requests

    def key(token: str, body: bytes) -> str:
        req = requests.Request(
            "POST",
            "http://127.0.0.1:1/api/v2/companies",
            data=body,
            headers={"Authorization": f"Bearer {token}"},
        ).prepare()
        return namespaced_key(req)

    assert key("a", b"{}") == key("a", b"{}")
    assert key("a", b"{}") != key("b", b"{}")
    assert key("a", b"{}") != key("a", b'{"countries":["GBR"]}')


def test_time_series_results_are_told_apart_by_their_arguments(sb, skus, tmp_path):
    with _client(sb, tmp_path / "c.sqlite") as client:
        wide = client.public.time_series(skus[:30], fields=["evRevenueLtm"])
        long = client.public.time_series(skus[:30], fields=["evRevenueLtm"], shape="long")
        assert list(long.columns) == ["sku", "field", "month", "value"]
        wide_again = client.public.time_series(skus[:30], fields=["evRevenueLtm"])
        assert wide_again.attrs["from_cache"] is True
        pd.testing.assert_frame_equal(wide, wide_again)
        assert wide_again.attrs["rows_received"] == wide.attrs["rows_received"] == 30
        other = client.public.time_series(skus[:30], fields=["evRevenueNtm"])
        assert list(other.columns.get_level_values(0).unique()) == ["evRevenueNtm"]


# ---------------------------------------------------------------------------- a locked file


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[tuple[Path, SQLiteCache]]:
    """A cache file (and a backend opened on it before) that another connection holds in
    ``BEGIN EXCLUSIVE``, as a ``sqlite3`` shell left in a transaction would; released at the
    end."""
    path = tmp_path / "c.sqlite"
    backend = SQLiteCache(str(path), wal=True)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    yield path, backend
    other.rollback()
    other.close()


def _within(seconds: float, call: Any) -> Any:
    """``call()``'s result or error, raising AssertionError if it has not returned in time
    (requests-cache would wait for the lock without end: the thread is left behind)."""
    done: dict[str, Any] = {}

    def run() -> None:
        try:
            done["value"] = call()
        except BaseException as exc:  # handed to the test
            done["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still waiting for the lock after {seconds} s"
    return done


def test_clear_waits_for_another_process_lock_at_most_lock_wait(sb, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "LOCK_WAIT", 0.3)
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        client.private.companies(limit=5)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            for expired in (True, False):
                done = _within(20, lambda e=expired: client.cache.clear(expired=e))
                error = done.get("error")
                assert isinstance(error, ConfigurationError), error
                assert str(path) in str(error) and "more than 0.3 s" in str(error)
                assert error.field == "cache_path"
        finally:
            other.rollback()
            other.close()
        assert client.cache.info()["entries"] == 2  # nothing was deleted
        client.cache.clear(expired=True)  # released: it works again
        assert client.cache.info()["entries"] == 2


@pytest.fixture
def held(sb: Any, tmp_path: Path, monkeypatch: Any) -> Iterator[tuple[Client, Path, Any]]:
    """A client whose cache file (entries in it) another connection then holds in
    ``BEGIN EXCLUSIVE``; ``release()`` (also called at the end) lets it go."""
    monkeypatch.setattr(cache, "LOCK_WAIT", 0.3)
    path = tmp_path / "c.sqlite"
    with _client(sb, path) as client:
        client.private.companies(limit=5)
        assert client.cache.info()["entries"] == 2  # the list, and the discovery it checks
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")

        def release() -> None:
            if other.in_transaction:
                other.rollback()

        try:
            yield client, path, release
        finally:
            release()
            other.close()


def test_answers_are_returned_uncached_while_another_process_holds_the_lock(held, skus):
    """Storing an answer waited without end for another process's write lock (requests-cache
    retries ``BEGIN IMMEDIATE`` in a loop, whatever timeout it is given). Now a store waits
    LOCK_WAIT at most: the answers come back uncached, one warning (not one per request)
    names the file and points at the caller's line, and once the lock is let go answers are
    stored again."""
    client, path, release = held
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        done = _within(20, lambda: (client.private.companies(limit=7), client.public.current(skus)))
    release()
    assert "error" not in done, done
    one, many = done["value"]
    assert len(one) == 7 and len(many) == len(skus) and many.attrs["from_cache"] is False
    ours = [w for w in seen if issubclass(w.category, DealframeWarning)]
    assert len(ours) == 1, [str(w.message) for w in ours]
    said = str(ours[0].message)
    assert str(path) in said and "more than 0.3 s" in said and "without being stored" in said
    assert Path(ours[0].filename).name == Path(__file__).name
    assert client.cache.info()["entries"] == 2  # nothing stored meanwhile
    again = client.public.current(skus)
    assert client.cache.info()["entries"] == 2 + 3  # free again: the three chunks stored
    pd.testing.assert_frame_equal(many, again, check_like=True)


def test_a_store_first_skipped_on_a_worker_thread_warns_at_the_callers_line(held, skus):
    """250 SKUs are three chunks sent on worker threads: the warning pointed at
    concurrent/futures/thread.py; it is given on the caller's thread once the call returns."""
    client, path, _ = held
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        done = _within(20, lambda: client.public.current(skus))
    assert "error" not in done, done
    assert len(done["value"]) == len(skus)
    ours = [w for w in seen if issubclass(w.category, DealframeWarning)]
    assert len(ours) == 1 and str(path) in str(ours[0].message), [str(w.message) for w in ours]
    assert Path(ours[0].filename).name == Path(__file__).name, ours[0].filename


def test_a_store_waiting_for_the_lock_keeps_to_the_call_budget_and_out_of_the_latencies(
    sb, tmp_path, monkeypatch
):
    """The store's wait for the lock ignored ``call_budget`` (LOCK_WAIT whatever the budget)
    and was counted as the endpoint's latency: the straggler cut-off jumped from 0.25 s to
    four times the wait. It stops when the call's budget does, and is not latency."""
    monkeypatch.setattr(cache, "LOCK_WAIT", 20.0)
    path = tmp_path / "c.sqlite"
    endpoint = ("POST", "/api/private/v1/companies")
    # What the client did, on its own clock: each lock check of a store (when it began, when
    # it ended, whether the file was free) and each latency it remembered for the endpoint.
    checks: list[tuple[float, float, bool]] = []
    free = cache.BoundedSQLiteCache._free

    def watched_free(self: Any) -> bool:
        began = time.monotonic()
        got = free(self)
        checks.append((began, time.monotonic(), got))
        return got

    monkeypatch.setattr(cache.BoundedSQLiteCache, "_free", watched_free)
    with _client(sb, path, call_budget=2.0) as client:
        for limit in range(5, 5 + stragglers.MIN_SAMPLES):  # enough answers for a cut-off
            client.private.companies(limit=limit)
        latencies = client._transport._latencies
        samples: list[float] = []
        remember = latencies.record

        def watched_record(where: Any, seconds: float) -> None:
            if where == endpoint:
                samples.append(seconds)
            remember(where, seconds)

        monkeypatch.setattr(latencies, "record", watched_record)
        checks.clear()
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                called = time.monotonic()
                done = _within(60, lambda: client.private.companies(limit=31))  # a hang guard
        finally:
            other.rollback()
            other.close()
    assert "error" not in done, done
    assert len(done["value"]) == 31
    said = [str(w.message) for w in seen if issubclass(w.category, DealframeWarning)]
    assert len(said) == 1 and "a quarter of the time the call had left" in said[0], said
    # the wait the store chose (its message says it): a quarter of the 2 s budget at most,
    # not the LOCK_WAIT of 20 s
    stated = re.findall(r"for more than ([0-9.e+-]+) s", said[0])
    assert len(stated) == 1 and float(stated[0]) <= 2.0 / 4, said
    # not latency: the one answer remembered ended before the store's wait began (the request
    # was sent after the call began), an order no load changes; counted with the wait, it
    # would end after it
    waited = [began for began, _, got in checks if not got]
    assert len(samples) == 1 and waited, (samples, checks)
    assert samples[0] <= waited[0] - called, (samples, waited[0] - called)


def test_a_check_that_fails_for_another_reason_than_a_lock_is_not_called_a_lock(sb, tmp_path):
    """Every SQLite error of the lock check was reported as another process's write lock: a
    cache folder removed under a running client (the open file is still written) warned of
    a lock and stored nothing. Only a busy or locked file is a lock; otherwise the write
    goes ahead, as requests-cache's own did before the check."""
    folder = tmp_path / "d"
    with _client(sb, folder / "c.sqlite") as client:
        shutil.rmtree(folder)  # a clean-up job: the check's own connection cannot open it
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            frame = client.private.companies(limit=5)
        assert len(frame) == 5
        assert [str(w.message) for w in seen if issubclass(w.category, DealframeWarning)] == []
        assert client.cache.info()["entries"] == 2  # stored in the file it holds open


def test_a_store_skipped_under_warnings_as_errors_still_returns_the_answer(held, caplog):
    """With ``-W error`` the warning would raise and lose the answer in hand: it is logged."""
    client, path, _ = held
    with (
        warnings.catch_warnings(),
        caplog.at_level(logging.WARNING, logger="dealframe.transport"),
    ):
        warnings.simplefilter("error")
        done = _within(20, lambda: client.private.companies(limit=7))
    assert "error" not in done, done
    assert len(done["value"]) == 7
    said = [r.getMessage() for r in caplog.records if r.name == "dealframe.transport"]
    assert any(str(path) in m and "without being stored" in m for m in said), said


_OPEN = """
import sys
import dealframe.transport.cache as cache
from dealframe.client import Client
from dealframe.errors import ConfigurationError
cache.LOCK_WAIT = 0.3
try:
    Client("http://127.0.0.1:9", "t", "k", cache_path=sys.argv[1], progress=False)
except ConfigurationError as exc:
    print(exc)
"""


def test_a_client_opening_a_locked_file_says_so_instead_of_waiting(locked):
    """A process opening the file (which also removes expired entries) while another holds
    its write lock: a ConfigurationError naming the file after LOCK_WAIT, not a hang."""
    opened = subprocess.run(
        [sys.executable, "-c", _OPEN, str(locked[0])],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    said = opened.stdout.strip()
    assert said.startswith(f"cannot open the HTTP cache at {locked[0]}: database is lo"), said
    assert "more than 0.3 s" in said and "cache_enabled=False" in said


def test_removing_expired_entries_at_opening_skips_a_locked_file_and_logs_it(
    locked, monkeypatch, caplog
):
    monkeypatch.setattr(cache, "_PRUNED", {})
    path, backend = locked
    with caplog.at_level(logging.INFO, logger="dealframe.transport"):
        done = _within(20, lambda: cache._prune_once(backend, path))
    assert "error" not in done, done
    assert cache._PRUNED == {}  # not counted as done: the next opening tries again
    said = [r.getMessage() for r in caplog.records if r.name == "dealframe.transport"]
    assert any("not removed" in m and "database is locked" in m for m in said), said


def test_a_cache_path_without_a_suffix_is_the_file_opened(sb, tmp_path, monkeypatch):
    """A name without a suffix is the file written, as given (requests-cache would add
    ``.sqlite``), and the lock checks, the file modes and ``info()`` use that file: they once
    used the path as given while requests-cache wrote another (a stray empty file, the real one
    left 0644, ``size_bytes`` 0, a store waiting on a lock nobody checked, without end)."""
    monkeypatch.setattr(cache, "LOCK_WAIT", 0.3)
    given = real = tmp_path / "http"
    with _client(sb, given) as client:
        client.private.companies(limit=5)
        info = client.cache.info()
        assert info["path"] == str(real) and info["entries"] == 2 and info["size_bytes"] > 0
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("http")) == [
            "http",
            "http-shm",
            "http-wal",
        ]
        assert all(p.stat().st_mode & 0o777 == 0o600 for p in tmp_path.iterdir())
        other = sqlite3.connect(real, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                done = _within(20, lambda: client.private.companies(limit=7))
        finally:
            other.rollback()
            other.close()
    assert "error" not in done, done
    assert len(done["value"]) == 7
    said = [str(w.message) for w in seen if issubclass(w.category, DealframeWarning)]
    assert len(said) == 1 and str(real) in said[0], said
