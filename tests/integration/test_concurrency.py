"""One Client shared by 16 threads doing mixed calls with the cache on.

Against the session sandbox: about thirty different calls of both families (search, current,
time series, groups; deals, companies, investors, profiles, the seven sub-collections, resolve,
aggregate) are first made one after another by a separate client (cache off): that is the
reference. Then one client with an on-disk cache runs every call twice, in random order, from 16
threads at once (each call itself fans out on the client's workers), and once more from 16
threads when everything is cached. Every result must equal its reference; nothing may log or
warn "database is locked" or urllib3's "Connection pool is full"; and after ``close()`` no
connection to the sandbox stays ESTABLISHED (counted from /proc/net/tcp).
"""

from __future__ import annotations

import logging
import random
import sys
import threading
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dealframe.client import Client

sys.path.insert(0, str(Path(__file__).parent))
from _asgi_server import established_to

THREADS = 16
BAD_WORDS = (
    "database is locked",
    "connection pool is full",
    "discarding connection",
    "operationalerror",
    "threadsafety",
)

Call = Callable[[Client], Any]


def _calls(sandbox: Any) -> dict[str, Call]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        company_ids = c.private.companies(limit=6)["id"].tolist()
        deals = c.private.deals(limit=40)
        investor_ids = c.private.investors(limit=4)["id"].tolist()
        investor_names = c.private.investors(limit=10)["name"].tolist()
        names = c.public.search()["name"].tolist()[:25] + ["Nope Nothing Ltd", "O'Brien & Sons %"]
    target_ids = list(dict.fromkeys(deals["target_id"]))[:4]
    deal_ids = deals["id"].tolist()[:6]

    def skus(client: Client, n: int) -> list[str]:
        return client.public.search().index[:n].tolist()

    return {
        "search": lambda c: c.public.search(),
        "search_region": lambda c: c.public.search(regions=["Western Europe", "North America"]),
        "search_v1": lambda c: c.public_v1.search(enterprise_value_above=500),
        "current": lambda c: c.public.current(skus(c, 150)),
        "current_v1": lambda c: c.public_v1.current(c.public_v1.search().index[:30].tolist()),
        "time_series": lambda c: c.public.time_series(
            skus(c, 12), fields=["evRevenueLtm"], date_from="2022-01"
        ),
        "time_series_long": lambda c: c.public.time_series(skus(c, 5), shape="long"),
        "group_current": lambda c: c.public.group_current(regions=["Western Europe"]),
        "group_time_series": lambda c: c.public.group_time_series(
            regions=["North America"], fields=["evRevenueNtm"], date_from="2024-01"
        ),
        "deals": lambda c: c.private.deals(deal_type=["Early"]),
        "deals_sorted": lambda c: c.private.deals(sort="deal_valuation:desc", limit=1500),
        "deals_window": lambda c: c.private.deals(date_from="2024-01-01", deal_type=["M&A"]),
        "companies": lambda c: c.private.companies(country=["GBR", "DEU"]),
        "companies_name": lambda c: c.private.companies(name="tech", sort="founded:desc"),
        "investors": lambda c: c.private.investors(limit=250),
        "company": lambda c: c.private.company(company_ids),
        "investor": lambda c: c.private.investor(investor_ids),
        "deal": lambda c: c.private.deal(deal_ids),
        "fundings": lambda c: c.private.fundings(target_ids),
        "sellside": lambda c: c.private.sellside(target_ids),
        "buyside": lambda c: c.private.buyside(target_ids),
        "company_investors": lambda c: c.private.company_investors(target_ids),
        "investments": lambda c: c.private.investments(investor_ids[0]),
        "co_investors": lambda c: c.private.co_investors(investor_ids),
        "portfolio": lambda c: c.private.portfolio(investor_ids),
        "resolve": lambda c: c.private.resolve_companies(names).matches,
        "resolve_candidates": lambda c: c.private.resolve_companies(names).candidates,
        "resolve_investors": lambda c: (
            c.private.resolve_investors(investor_names, on_ambiguous="best").matches
        ),
        "aggregate": lambda c: c.private.aggregate("ev_revenue", "year"),
        "aggregate_filtered": lambda c: c.private.aggregate(
            "valuation", "quarter", deal_type=["Venture", "Growth"]
        ),
        "lookup": lambda c: c.private.lookup("transactions"),
    }


def _equal(got: Any, want: Any, name: str) -> None:
    assert isinstance(got, pd.DataFrame), (name, type(got))
    pd.testing.assert_frame_equal(got, want, obj=name)


def _established(port: int, deadline_s: float = 3.0) -> int:
    limit = time.monotonic() + deadline_s
    while True:
        count = established_to(port)
        if count == 0 or time.monotonic() > limit:
            return count
        time.sleep(0.05)


@pytest.fixture(scope="module")
def serial(sandbox: Any) -> dict[str, Any]:
    """Every call made one after another by a client without cache: the reference."""
    calls = _calls(sandbox)
    with Client.for_sandbox(sandbox, progress=False, max_workers=1) as c:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {name: call(c) for name, call in calls.items()}


def test_16_threads_sharing_one_cached_client_equal_serial_calls(sandbox, serial, tmp_path, caplog):
    calls = _calls(sandbox)
    port = int(sandbox.url.rsplit(":", 1)[1])
    before = established_to(port)
    caplog.set_level(logging.DEBUG)
    tasks = [name for name in calls for _ in range(2)]
    random.Random(8).shuffle(tasks)
    cache = tmp_path / "cache" / "http.sqlite"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = Client.for_sandbox(
            sandbox, cache_enabled=True, cache_path=cache, progress=False, max_workers=4
        )
        try:
            with ThreadPoolExecutor(THREADS, thread_name_prefix="user") as pool:
                first = list(pool.map(lambda n: (n, calls[n](client)), tasks))
            network = client.stats.snapshot()["network"]
            with ThreadPoolExecutor(THREADS, thread_name_prefix="user") as pool:
                again = list(pool.map(lambda n: (n, calls[n](client)), list(calls)))
            stats = client.stats.snapshot()
            assert established_to(port) >= 1  # connections were pooled while in use
        finally:
            client.close()
    for name, frame in first + again:
        _equal(frame, serial[name], name)
    assert stats["network"] == network  # the third round came wholly from the cache
    assert stats["cache_hits"] >= len(calls)
    assert stats["failures"] == 0 and stats["retries"] == 0
    texts = [r.getMessage().lower() for r in caplog.records]
    texts += [str(w.message).lower() for w in caught]
    for word in BAD_WORDS:
        assert not [t for t in texts if word in t], word
    assert not [
        r
        for r in caplog.records
        if r.levelno >= logging.WARNING
        and r.name.startswith(("urllib3", "requests_cache", "dealframe"))
    ]
    assert _established(port) <= before  # nothing left open by this client


def test_threads_racing_on_one_cold_cache_entry_all_get_the_same_frame(
    sandbox, serial, tmp_path, caplog
):
    """16 threads ask for the same uncached pages at once: one SQLite file, no lock errors."""
    caplog.set_level(logging.WARNING)
    cache = tmp_path / "race.sqlite"
    port = int(sandbox.url.rsplit(":", 1)[1])
    before = established_to(port)
    with Client.for_sandbox(
        sandbox, cache_enabled=True, cache_path=cache, progress=False, max_workers=4
    ) as client:
        with ThreadPoolExecutor(THREADS) as pool:
            frames = list(
                pool.map(lambda _: client.private.deals(deal_type=["Early"]), range(THREADS))
            )
        entries = client.cache.info()["entries"]
    for frame in frames:
        _equal(frame, serial["deals"], "deals")
    pages = serial["deals"].attrs["requests"]
    assert pages <= entries <= pages + 2  # one entry per page (+ discovery), not per thread
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert _established(port) <= before


def test_a_cache_write_waits_while_another_thread_reads_on_the_shared_connection(tmp_path):
    """requests-cache shares one SQLite connection between threads and locked only its writes:
    a write starting beside a read on it could take the read's state for its own error
    ("another row available": a failed call, seen in CI). A write now waits for the read."""
    from dealframe.transport.cache import BoundedSQLiteCache

    cache = BoundedSQLiteCache(tmp_path / "shared.sqlite")
    table = cache.responses
    reading, release, written = threading.Event(), threading.Event(), threading.Event()

    def read() -> None:
        with table.connection():
            reading.set()
            release.wait(10)

    def write() -> None:
        table["key"] = b"stored"
        written.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert reading.wait(10)
    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert not written.wait(0.3)  # the write waits for the read's end, not beside it
    finally:
        release.set()
        reader.join(10)
        writer.join(10)
    assert written.is_set() and table["key"] == b"stored"  # and then is made
    cache.close()


@pytest.fixture(scope="module")
def slow_sandbox() -> Any:
    """A small sandbox whose every answer takes 0.2 s: a pull is still running when closed."""
    import dealframe.sandbox

    with dealframe.sandbox.run(scale=0.05, seed=11, latency=0.2) as served:
        yield served


@pytest.mark.parametrize(("workers", "call"), [(1, "deals"), (4, "deals"), (4, "current")])
def test_closing_the_client_while_another_thread_pulls_is_a_closed_transport_error(
    slow_sandbox, workers, call
):
    """close() from another thread once the first page has arrived: the pull stops with the
    error any call after close() gives, never a RuntimeError or CancelledError."""
    from dealframe.errors import TransportError

    with Client.for_sandbox(slow_sandbox, progress=False, max_workers=workers) as probe:
        listed = probe.public.search().index.tolist()
    # and SKUs the service does not know, for 10 chunks of 100: some still waiting at close()
    skus = listed + [
        "Q" + "".join(chr(65 + i // 26**k % 26) for k in range(3)) + "-USA"
        for i in range(1000 - len(listed))
    ]
    client = Client.for_sandbox(slow_sandbox, progress=False, max_workers=workers)
    arrived, finished = threading.Event(), threading.Event()

    def first_page(response: Any, *args: Any, **kwargs: Any) -> None:
        if "/lookup/" not in response.url:  # not the discovery document: a page or chunk
            arrived.set()

    client._transport._session.hooks["response"].append(first_page)
    out: dict[str, Any] = {}

    def pull() -> None:
        try:
            if call == "deals":
                out["value"] = client.private.deals()
            else:
                out["value"] = client.public.current(skus)
        except BaseException as exc:
            out["error"] = exc
        finally:
            finished.set()

    thread = threading.Thread(target=pull)
    thread.start()
    assert arrived.wait(30)
    client.close()
    assert finished.wait(30)
    thread.join()
    error = out.get("error")
    assert isinstance(error, TransportError), repr(error)
    assert error.kind == "closed"
    with pytest.raises(TransportError, match="closed"):
        client.private.deals()
