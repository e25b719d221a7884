"""The page walk runs requests ahead only while pages take longer to arrive than to parse; from a
fast service, one page at a time on a worker that leaves its body unread, parsed here."""

from __future__ import annotations

import json
import threading
import time

from dealframe.contract import Findings
from dealframe.private.paging import LATE_FACTOR, LATE_FLOOR, _Pace, pull_pages
from dealframe.transport.body import Read, parse
from dealframe.transport.session import _RESUMED, RequestInfo, Response


class _Page:
    """A stand-in response: ``elapsed`` says how long it took to arrive."""

    from_cache, attempts = False, 1

    def __init__(self, page: int, size: int, total: int, elapsed: float) -> None:
        self.page, self.size, self.total, self.elapsed = page, size, total, elapsed

    def json(self) -> dict:
        first = (self.page - 1) * self.size
        rows = [{"id": f"r{i}"} for i in range(first, min(first + self.size, self.total))]
        return {"data": rows, "meta": {"total": self.total, "has_more": first + 10 < self.total}}


def _pull(fetch, workers: int = 4, parse=list) -> list[list[dict]]:
    """95 rows in pages of 10 through ``pull_pages``: the parsed parts, in page order."""
    return pull_pages(
        fetch,
        limit=None,
        workers=workers,
        progress=False,
        desc="x",
        found=Findings("POST /x"),
        page_size=10,
        parse=parse,
    ).parts


def _walk(elapsed: float) -> tuple[list[list[dict]], set[str]]:
    threads: set[str] = set()

    def fetch(page: int, size: int) -> _Page:
        threads.add(threading.current_thread().name)
        return _Page(page, size, 95, elapsed)

    return _pull(fetch), threads


def test_pace_keeps_requests_in_flight_only_while_arriving_is_slower():
    pace = _Pace()
    assert pace.ahead(8) == 8  # nothing measured yet
    pace.note(_Page(1, 1, 1, 0.200), 0.010)
    assert pace.ahead(8) == 1  # one page does not decide: the next is fetched here too
    pace.note(_Page(1, 1, 1, 0.150), 0.010)
    assert pace.ahead(8) == 8
    pace = _Pace()
    pace.note(_Page(1, 1, 1, 0.002), 0.010)
    pace.note(_Page(1, 1, 1, 0.002), 0.010)
    assert pace.ahead(8) == 2  # one page fetched (its body left unread) while one is parsed
    assert pace.ahead(0) == 1
    pace.unread = False  # a page came read on its worker (to be cached): one at a time here
    assert pace.ahead(8) == 1


def test_one_slow_page_does_not_send_a_fast_service_s_pages_to_threads():
    # page 1 of a query is often slow (the service sorts and filters it); a retry is slow
    pace = _Pace()
    for n, wait in enumerate((0.300, 0.001, 0.001, 0.500, 0.001)):
        pace.note(_Page(1, 1, 1, wait), 0.010)
        assert pace.ahead(8) == (1 if n == 0 else 2)
    pace.note(_Page(1, 1, 1, 0.400), 0.010)
    pace.note(_Page(1, 1, 1, 0.400), 0.010)
    assert pace.ahead(8) == 8  # slow twice out of three: it is the service's pace


def test_after_a_retry_first_attempts_wait_four_typical_pages_and_pages_stay_one_at_a_time():
    pace = _Pace()
    for _ in range(2):
        pace.note(_Page(1, 1, 1, 0.001), 0.002)
    assert pace.ahead(8) == 2 and pace.first_limit() is None  # no retry yet: the transport's
    retried = _Page(1, 1, 1, 0.001)
    retried.attempts = 2
    pace.note(retried, 0.002, inline=False)
    assert pace.ahead(8) == 1  # fetched alone, with the walk's limit (never 8: see ahead)
    assert pace.first_limit() == LATE_FLOOR  # 4 x 3 ms is sooner than the floor
    for _ in range(3):
        pace.note(_Page(1, 1, 1, 0.100), 0.020)
    assert pace.arrive == 0.100 and 0.015 < pace.parse < 0.020  # parse: a running mean
    assert abs(pace.first_limit() - LATE_FACTOR * (0.100 + pace.parse)) < 1e-9


def test_time_spent_reading_a_body_is_not_a_wait_that_workers_could_hide():
    # 8 ms to arrive, 7 of them this thread's CPU (reading and copying the body): only 1 ms
    # was a wait, less than the 4 ms parse, so pages do not run ahead.
    pace = _Pace()
    for _ in range(2):
        pace.note(_Page(1, 1, 1, 0.008), 0.004, busy=0.007)
    assert pace.ahead(8) == 2
    # the same 8 ms with 1 ms of CPU: a 7 ms wait, worth hiding behind the parse
    pace = _Pace()
    for _ in range(2):
        pace.note(_Page(1, 1, 1, 0.008), 0.004, busy=0.001)
    assert pace.ahead(8) == 8
    # a page fetched by a worker says nothing about the wait
    pace.note(_Page(1, 1, 1, 0.000), 0.004, inline=False)
    assert pace.ahead(8) == 8


def test_slow_pages_are_fetched_by_workers_and_fast_ones_on_this_thread():
    # a stand-in's pages come read (as pages the HTTP cache stores do): from a fast service,
    # once one came so from a worker, the others are fetched here, one at a time
    me = threading.current_thread().name
    slow, slow_threads = _walk(elapsed=10.0)
    fast, fast_threads = _walk(elapsed=0.0)
    assert slow == fast and sum(map(len, fast)) == 95
    assert slow_threads - {me}, "slow pages should have gone to worker threads"
    assert len(fast_threads - {me}) <= 1


def _unread_walk(elapsed: float, cut: int | None = None, workers: int = 4):
    """95 rows in pages of 10 from transport-like answers (their body checked as the
    transport checks it, left unread on a worker); page ``cut`` comes cut short the first
    time. Returns the pages, each page's fetches as (on this thread, body unread), the
    threads that read bodies with the walk's reader, and the most requests in flight."""
    here = threading.current_thread()
    fetches: dict[int, list[tuple[bool, bool]]] = {}
    readers: list[bool] = []
    flight = [0, 0]  # now, most
    lock = threading.Lock()

    def reader(content: bytes) -> dict | None:  # None: not a page it takes (read as JSON)
        readers.append(threading.current_thread() is here)
        try:
            return json.loads(content)
        except ValueError:
            return None

    def fetch(page: int, size: int) -> Response:
        with lock:
            flight[0] += 1
            flight[1] = max(flight)
        first = (page - 1) * size
        rows = [{"id": f"r{i}"} for i in range(first, min(first + size, 95))]
        content = json.dumps({"data": rows, "meta": {"total": 95, "has_more": first + 10 < 95}})
        again = page in fetches
        body = content.encode()[: -5 if page == cut and not again else None]
        doc, problem = parse(body)
        fetches.setdefault(page, []).append((threading.current_thread() is here, not again))
        with lock:
            flight[0] -= 1
        if problem is not None:
            raise AssertionError(f"page {page} on this thread: the transport would retry")
        read = doc.doc if isinstance(doc, Read) else None
        fetches[page][-1] = (fetches[page][-1][0], read is not None and repr(read) == "LATER")
        info = RequestInfo("POST", "/x", "private")
        # as the transport: a request resumed from a worker's answer (resume) goes on from
        # that answer's attempts (the unread body failed its check here: this is a resend)
        resumed = _RESUMED.get()
        attempts = 1 if resumed is None else resumed.attempts + 1
        return Response(200, body, {}, False, elapsed, info, attempts, read=read)

    pages = pull_pages(
        fetch,
        limit=None,
        workers=workers,
        progress=False,
        desc="x",
        found=Findings("POST /x"),
        page_size=10,
        reader=reader,
    )
    return pages, fetches, readers, flight[1]


def test_a_fast_service_s_pages_run_one_ahead_unread_and_are_read_here():
    pages, fetches, readers, most = _unread_walk(elapsed=0.0)
    assert [p[0]["id"] for p in pages.parts] == [f"r{i}" for i in range(0, 95, 10)]
    assert fetches[1] == [(True, False)] and fetches[2] == [(True, False)]  # they set the pace
    assert all(fetches[p] == [(False, True)] for p in range(3, 11))  # on a worker, unread
    assert all(readers), "every body is read on the caller's thread"
    assert most <= 2
    alone, _, _, _ = _unread_walk(elapsed=0.0, workers=1)
    assert alone.parts == pages.parts and all(info.attempts == 1 for info in pages.infos)


def test_a_page_whose_unread_body_is_cut_short_is_fetched_again_here():
    # the transport would have sent it again; the caller finds it cut short and hands it to
    # the transport here (resume), whose checks and retries apply: the worker's request was
    # an attempt (the transport's side is tested over HTTP: test_paging_unread_bodies.py)
    pages, fetches, _, _ = _unread_walk(elapsed=0.0, cut=5)
    assert [p[0]["id"] for p in pages.parts] == [f"r{i}" for i in range(0, 95, 10)]
    assert fetches[5] == [(False, True), (True, False)]
    assert [info.attempts for info in pages.infos if info.page == 5] == [2]
    assert not pages.failed


def test_pages_that_arrive_while_an_earlier_one_is_late_are_parsed_meanwhile():
    # Pages 1 and 2 are fetched on this thread (they set the pace), the rest on workers.
    # Page 3 is held back until page 6 has been parsed: the walk parses 4, 5 and 6 while it
    # waits (the workers go on fetching), then joins every page in page order, as a walk
    # with no late page does.
    parsed: list[str] = []
    six_parsed = threading.Event()

    def parse(items: list[dict]) -> list[dict]:
        parsed.append(items[0]["id"])
        if items[0]["id"] == "r50":  # page 6
            six_parsed.set()
        return items

    def fetch(page: int, size: int) -> _Page:
        if page == 3:
            assert six_parsed.wait(10), "page 3 was held back and nothing else was parsed"
        return _Page(page, size, 95, 10.0)

    late = _pull(fetch, workers=3, parse=parse)
    assert parsed.index("r20") > parsed.index("r50")  # page 3 parsed after page 6
    in_order = _pull(lambda page, size: _Page(page, size, 95, 10.0), workers=3, parse=parse)
    assert late == in_order and [p[0]["id"] for p in late] == [f"r{i}" for i in range(0, 95, 10)]


def _limits_seen(elapsed: float) -> dict[int, tuple[bool, float | None]]:
    """The first-attempt limit the transport would use for each page of a walk whose page 1
    needed a retry (from inside ``fetch``, where the transport reads it)."""
    from dealframe.transport.stragglers import Latencies

    seen: dict[int, tuple[bool, float | None]] = {}  # page: (on this thread, limit)
    here = threading.current_thread()

    def fetch(page: int, size: int) -> _Page:
        limit = Latencies().first_timeout(("POST", "/x"), read_timeout=30.0)
        seen[page] = (threading.current_thread() is here, limit)
        answer = _Page(page, size, 95, elapsed)
        answer.attempts = 2 if page == 1 else 1
        return answer

    _pull(fetch)
    return seen


def test_after_a_retry_only_pages_fetched_alone_get_the_walk_s_limit():
    # a fast service: pages one at a time on this thread, each with the walk's limit
    fast = _limits_seen(elapsed=0.0)
    assert fast[1] == (True, None)  # page 1 came before anything was known
    assert all(alone and limit == LATE_FLOOR for p, (alone, limit) in fast.items() if p > 1)
    # a slow one (5 s a page): page 2 sets the pace on this thread, with the walk's limit
    # (4 typical pages); the rest run ahead on workers, where answers in flight together are
    # slower than the pages the limit was measured on: the transport's own rule applies
    slow = _limits_seen(elapsed=5.0)
    assert len(slow) == 10
    alone, limit = slow[2]
    assert alone and limit is not None and limit >= LATE_FACTOR * 5.0
    ahead = [limit for alone, limit in slow.values() if not alone]
    assert len(ahead) >= 5 and all(limit is None for limit in ahead)


def test_a_cache_hit_is_not_a_wait():
    pace = _Pace()
    hit = _Page(1, 1, 1, 0.0)
    hit.from_cache = True
    pace.note(hit, 0.002)
    assert pace.arrive is None and pace.ahead(8) == 8


def test_a_fast_service_that_turns_slow_gets_more_pages_in_flight():
    # pages 1 and 2 (fetched here) arrive at once: one page in flight on a worker. From page 6
    # each takes 40 ms on the worker, far longer than a page of 10 rows takes to parse: the
    # walk waits for them, and sends more at once (it stayed at one, none fetched here to be
    # measured again)
    here = threading.current_thread()
    flight = [0, 0]  # now, most
    lock = threading.Lock()

    def fetch(page: int, size: int) -> Response:
        first = (page - 1) * size
        rows = [{"id": f"r{i}"} for i in range(first, min(first + size, 400))]
        more = first + size < 400
        body = json.dumps({"data": rows, "meta": {"total": 400, "has_more": more}}).encode()
        if threading.current_thread() is not here and page >= 6:
            with lock:
                flight[0] += 1
                flight[1] = max(flight)
            time.sleep(0.04)
            with lock:
                flight[0] -= 1
        doc, _ = parse(body)
        read = doc.doc if isinstance(doc, Read) else None
        info = RequestInfo("POST", "/x", "private")
        return Response(200, body, {}, False, 0.0, info, 1, read=read)

    pages = pull_pages(
        fetch,
        limit=None,
        workers=4,
        progress=False,
        desc="x",
        found=Findings("POST /x"),
        page_size=10,
    )
    assert [p[0]["id"] for p in pages.parts] == [f"r{i}" for i in range(0, 400, 10)]
    assert flight[1] > 2, "slow pages should have been fetched several at once"


def _worker_pages(
    pace: _Pace, count: int, waited: float, parse_s: float, flight: int, elapsed: float = 0.0
) -> list[int]:
    """``count`` pages fetched on a worker (``flight`` in flight), each ``waited`` for: the
    ``ahead(4)`` after each."""
    trail = []
    for _ in range(count):
        page = _Page(1, 1, 1, elapsed)
        pace.note(page, parse_s, inline=False, waited=waited, flight=flight)
        trail.append(pace.ahead(4))
    return trail


def test_a_fast_service_waited_for_a_few_ms_stays_at_one_page_on_a_worker():
    # The page on the worker finishes its read a few ms late when parsing holds the GIL: a
    # wait, but noise. It sent a fast service to every worker for good.
    for parse_s, waited in ((0.010, 0.009), (0.040, 0.019)):  # the floor; a share of parse
        pace = _Pace()
        for _ in range(2):
            pace.note(_Page(1, 1, 1, 0.002), parse_s)
        assert pace.ahead(4) == 2
        assert _worker_pages(pace, 20, waited, parse_s, flight=2) == [2] * 20
    # a wait clearly above the noise is the service's pace: more in flight
    assert _worker_pages(pace, 2, 0.030, 0.040, flight=2)[-1] == 4


def test_a_service_that_turns_slow_then_fast_again_comes_back_to_one_page_on_a_worker():
    pace = _Pace()
    for _ in range(2):
        pace.note(_Page(1, 1, 1, 0.002), 0.010)
    assert _worker_pages(pace, 3, 0.150, 0.010, flight=2)[-1] == 4  # slow: all workers
    # with four in flight the walk still waits (bursts of pages, 150 ms apart): it stays
    for waited in [0.120, 0.0, 0.0, 0.0] * 3:
        assert _worker_pages(pace, 1, waited, 0.010, flight=4, elapsed=0.160) == [4]
    # fast again: nothing waited for, each request quick on its worker
    assert _worker_pages(pace, 6, 0.0, 0.010, flight=4, elapsed=0.006)[-1] == 2


def test_workers_that_hide_a_round_trip_stay():
    # 35 ms a page, 10 ms to parse: with four in flight nothing is waited for, but each
    # request takes longer than a page takes to parse; one page at a time would wait again
    pace = _Pace()
    for _ in range(2):
        pace.note(_Page(1, 1, 1, 0.035), 0.010)
    assert pace.ahead(4) == 4
    assert _worker_pages(pace, 10, 0.0, 0.010, flight=4, elapsed=0.045) == [4] * 10


def test_a_walk_that_turns_slow_then_fast_again_comes_back_down():
    # pages parse in 10 ms and arrive in 1 ms, pages 6-14 in 60 ms: the walk asks for pages
    # further ahead while they are slow, and one page ahead once they are fast again (it
    # stayed at four ahead to the end)
    here = threading.current_thread()
    parsed = [0]
    lead: dict[int, int] = {}  # page: how far ahead of the pages parsed it was asked for

    def fetch(page: int, size: int) -> Response:
        first = (page - 1) * size
        rows = [{"id": f"r{i}"} for i in range(first, min(first + size, 400))]
        more = first + size < 400
        body = json.dumps({"data": rows, "meta": {"total": 400, "has_more": more}}).encode()
        if threading.current_thread() is not here:
            lead[page] = page - parsed[0]
            time.sleep(0.06 if 6 <= page <= 14 else 0.001)
        doc, _ = parse(body)
        read = doc.doc if isinstance(doc, Read) else None
        info = RequestInfo("POST", "/x", "private")
        return Response(200, body, {}, False, 0.001, info, 1, read=read)

    def slow_parse(items: list) -> list:
        time.sleep(0.010)
        parsed[0] += 1
        return list(items)

    pages = pull_pages(
        fetch,
        limit=None,
        workers=4,
        progress=False,
        desc="x",
        found=Findings("POST /x"),
        page_size=10,
        parse=slow_parse,
    )
    assert [p[0]["id"] for p in pages.parts] == [f"r{i}" for i in range(0, 400, 10)]
    assert max(lead[p] for p in range(6, 19)) >= 4, lead
    assert max(lead[p] for p in range(28, 41)) <= 3, lead
