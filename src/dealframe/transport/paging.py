"""Bounded concurrency for multi-page and multi-chunk calls.

:func:`map_concurrent` runs one function over many items (pages, SKU chunks, ids) on a small
thread pool, keeps the input order, shows a progress bar when it helps, and collects the items
that failed after their retries so the caller can raise
:class:`~dealframe.errors.IncompleteResultError` naming them. Errors that would fail every item
alike (bad token, bad request, programming errors) stop the whole map at once instead. A token
that expired part-way (401/403 once some items had arrived) keeps what arrived: the items left
are failures with that error, which :func:`~dealframe.errors.incomplete` raises as itself,
carrying what arrived. So are the items left once the service is down (:class:`Outage`, the
rule a list's walk keeps too: :data:`OUTAGE_RUN` items in a row failing alike), with the last
one's error, and once the call's deadline has passed, with one error saying so: neither is
sent.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import itertools
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from dealframe.arguments import carried, integer_in
from dealframe.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    DealframeError,
    RateLimitedError,
    ServerError,
    TransportError,
    ValidationError,
    incomplete,
)

__all__ = [
    "FATAL_ERRORS",
    "OUTAGE_RUN",
    "ItemFailure",
    "MapResult",
    "Outage",
    "WorkerPool",
    "closed",
    "closed_error",
    "held_back",
    "in_kernel",
    "interactive",
    "map_concurrent",
    "on_worker",
    "outage",
    "progress_bar",
    "show_progress",
    "submit",
    "unsent",
]

T = TypeVar("T")
R = TypeVar("R")

#: Errors that stop a map at once: every other item would fail the same way.
FATAL_ERRORS: tuple[type[BaseException], ...] = (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ValidationError,
)


#: Requests (pages of a walk, items of a map) failing in a row, after their retries, with the
#: same 5xx status, rate limit or connection failure: the service is down (or keeps refusing
#: this client), and the requests left are not sent (:class:`Outage`).
OUTAGE_RUN = 3
#: Transport failures that count towards an outage.
_OUTAGE_KINDS = ("connection", "connect_timeout", "timeout")


def outage(error: BaseException) -> str | None:
    """The service-side failure ``error`` stands for (status or kind), None for others: a
    5xx, a 429 still refused after its retries, a connection that failed or timed out. A
    request the client held back, never sent (:func:`unsent`), is none: it costs nothing,
    and says how long to wait.

    Examples
    --------
    >>> outage(ServerError(503, "SERVICE_UNAVAILABLE", "down"))
    'HTTP 503'
    >>> outage(RateLimitedError(429, "RATE_LIMITED", "Slow down"))
    'HTTP 429'
    >>> outage(TransportError("refused", kind="connection")), outage(KeyError("x"))
    ('connection', None)
    >>> outage(RateLimitedError(429, "RATE_LIMITED", "not sent", attempts=0))
    """
    if unsent(error):
        return None
    if isinstance(error, ServerError | RateLimitedError):
        return f"HTTP {error.status}"
    if isinstance(error, TransportError) and error.kind in _OUTAGE_KINDS:
        return error.kind
    return None


class Outage:
    """The rule that stops a multi-request call at an outage, kept once for the walk of a
    list's pages and for :func:`map_concurrent`: :data:`OUTAGE_RUN` requests in a row that
    failed for good with the same :func:`outage` (``HTTP 503``, ``connection`` ...).

    Examples
    --------
    >>> down = Outage()
    >>> [down.failed(ServerError(503, "SERVICE_UNAVAILABLE", "down")) for _ in range(3)]
    [False, False, True]
    >>> down.arrived(); down.failed(ServerError(503, "SERVICE_UNAVAILABLE", "down"))
    False
    """

    def __init__(self) -> None:
        self.kind: str | None = None  # the last failure's outage, None once one arrived
        self.run = 0  # failures in a row of that outage

    def failed(self, error: BaseException) -> bool:
        """Count a request that failed for good; True once :data:`OUTAGE_RUN` in a row failed
        with the same :func:`outage`: the requests left are not to be sent."""
        now = outage(error)
        self.run = self.run + 1 if now is not None and now == self.kind else 1
        self.kind = now
        return now is not None and self.run >= OUTAGE_RUN

    def arrived(self) -> None:
        """A request answered: the run of failures is broken."""
        self.kind, self.run = None, 0


def closed(error: BaseException) -> bool:
    """Whether ``error`` says the client was closed (which stops a whole multi-request call).

    Examples
    --------
    >>> closed(closed_error())
    True
    """
    return isinstance(error, TransportError) and error.kind == "closed"


def held_back(error: BaseException) -> bool:
    """Whether ``error`` is a rate limit whose wait the client does not make (longer than
    ``retry_after_max``): until it has passed, every request of its family fails at once
    without being sent (``.held_until``), so a multi-request call sends nothing more.

    Examples
    --------
    >>> held_back(RateLimitedError(429, "RATE_LIMITED", "Slow down", retry_after=1))
    False
    """
    return isinstance(error, RateLimitedError) and error.held_until is not None


def _nothing() -> None:
    return None


def on_worker() -> bool:
    """Whether this thread is one of dealframe's worker threads (their names start with
    ``dealframe``): a warning given there cannot point at the caller's line.

    Examples
    --------
    >>> on_worker()
    False
    """
    return threading.current_thread().name.startswith("dealframe")


#: What a call on a closed client says, and what to do.
CLOSED = (
    "this Client is closed (its with block ended, or close() was called): "
    "create a new dealframe.Client"
)


def closed_error() -> TransportError:
    """The error of a call on a closed client (``.kind == "closed"``): a notebook cell run
    again after the cell whose ``with`` block made the client.

    Examples
    --------
    >>> str(closed_error())
    'this Client is closed (its with block ended, or close() was called): create a new dealframe.Client'
    """
    return TransportError(CLOSED, kind="closed")


def submit(executor: ThreadPoolExecutor, fn: Callable[..., R], *args: Any) -> Future[R]:
    """``executor.submit(fn, *args)``; an executor shut down meanwhile (the client was closed
    from another thread) is ``TransportError(kind="closed")``, as any call after ``close()``.

    ``fn`` runs in the submitting client call (:func:`~dealframe.arguments.carried`): the
    findings it makes blank that client's tokens, and the worker keeps none afterwards.

    Examples
    --------
    >>> pool = ThreadPoolExecutor(1)
    >>> pool.shutdown()
    >>> submit(pool, print)
    Traceback (most recent call last):
    ...
    dealframe.errors.TransportError: this Client is closed (its with block ended, or close() was called): create a new dealframe.Client
    """
    try:
        return executor.submit(carried(fn), *args)
    except RuntimeError:  # "cannot schedule new futures after shutdown"
        pass
    raise closed_error()


@dataclass(frozen=True)
class ItemFailure:
    """One item that failed: its position, the item itself and the error."""

    index: int
    item: Any
    error: BaseException


@dataclass
class MapResult(Generic[R]):
    """Results of :func:`map_concurrent` in input order (None where the item failed).

    Examples
    --------
    >>> r = MapResult(results=[1, None], failures=[ItemFailure(1, "page 2", KeyError("x"))])
    >>> r.ok, r.values, r.failed_items
    (False, [1], ['page 2'])
    """

    results: list[R | None]
    failures: list[ItemFailure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every item succeeded."""
        return not self.failures

    @property
    def values(self) -> list[R]:
        """Results of the items that succeeded, in input order."""
        failed = {f.index for f in self.failures}
        return [r for i, r in enumerate(self.results) if i not in failed]  # type: ignore[misc]

    @property
    def failed_items(self) -> list[Any]:
        """The items that failed, in input order."""
        return [f.item for f in self.failures]

    def raise_for_failures(
        self,
        *,
        expected: int | None = None,
        received: int | None = None,
        partial: Any = None,
        what: str = "rows",
    ) -> None:
        """Raise :class:`IncompleteResultError` when any item failed (or the error that
        stopped the map part-way, carrying what arrived: see :func:`~dealframe.errors.incomplete`).

        Parameters
        ----------
        expected, received : int, optional
            Units the whole result should have and did get (``received`` defaults to the
            number of successful items).
        partial : object, optional
            What arrived, attached to the error as ``.partial``.
        what : str
            Name of the units, for the message.
        """
        if self.ok:
            return
        raise incomplete(
            expected,
            len(self.values) if received is None else received,
            self.failed_items,
            errors=[f.error for f in self.failures],
            partial=partial,
            what=what,
        ) from self.failures[0].error


def in_kernel() -> bool:
    """Whether this code runs in a Jupyter kernel: an IPython shell that has a kernel, not a
    process that merely imported ``ipykernel`` (a test run, a tool), nor IPython in a terminal.

    Examples
    --------
    >>> in_kernel()
    False
    """
    get = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get() if callable(get) else None
    return getattr(shell, "kernel", None) is not None


def interactive() -> bool:
    """Whether someone watches: standard error is a terminal, or this is a Jupyter kernel."""
    return bool(getattr(sys.stderr, "isatty", lambda: False)()) or in_kernel()


def show_progress(progress: bool | None, n_items: int) -> bool:
    """Whether to draw a bar: never for one item; ``None`` means "if stderr is a terminal".

    Examples
    --------
    >>> show_progress(True, 1), show_progress(False, 10), show_progress(True, 10)
    (False, False, True)
    """
    if n_items <= 1 or progress is False:
        return False
    return progress is True or interactive()


@functools.cache
def _bar_class(notebook: bool) -> Any:
    """tqdm's bar (its notebook widget in Jupyter) without its monitor thread: tqdm starts
    that thread once per process and never stops it, and a library leaves no thread behind
    (our bars are updated by their own calls, so nothing needs watching)."""
    if notebook:
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    return type("DealframeBar", (tqdm,), {"monitor_interval": 0})


def progress_bar(total: int | None, desc: str | None, unit: str = "req", initial: int = 0) -> Any:
    """A progress bar to standard error (a widget in Jupyter) that starts no thread.

    Move it with ``bar.update(k)`` (never by setting ``bar.n``: tqdm measures its rate from
    the updates). Work already done when the bar is made is its ``initial`` count (tqdm's
    option), shown but left out of the rate: as a first update, rows that arrived with the bar
    were read as done in the microseconds since it was made (a first figure of millions of
    rows a second).

    Parameters
    ----------
    total : int, optional
        The count when done (None: unknown).
    desc : str, optional
        Label.
    unit : str
        What is counted.
    initial : int
        Done before the bar was made.

    Examples
    --------
    >>> import threading
    >>> before = set(threading.enumerate())
    >>> bar = progress_bar(3, "pages", unit="page"); bar.update(3); bar.close()
    >>> set(threading.enumerate()) <= before
    True
    >>> bar = progress_bar(10, "pages", unit="page", initial=4)
    >>> bar.n, bar.format_dict["rate"]  # no rate measured from the 4 pages already read
    (4, None)
    >>> bar.close()
    """
    return _bar_class(_widgets())(total=total, desc=desc, unit=unit, leave=False, initial=initial)


def _widgets() -> bool:
    """Whether to draw tqdm's notebook widget: in Jupyter with ipywidgets installed (without
    it, tqdm's widget bar warns "IProgress not found" and prints text: the text bar does)."""
    return in_kernel() and _has_ipywidgets()


@functools.cache
def _has_ipywidgets() -> bool:
    return importlib.util.find_spec("ipywidgets") is not None


def _bar(enabled: bool, total: int | None, desc: str | None, initial: int = 0) -> Any:
    return progress_bar(total, desc, initial=initial) if enabled else None


class WorkerPool:
    """A thread pool kept for the life of a client, so calls do not pay for starting threads.

    Starting threads costs milliseconds each on a busy machine, which dominated small
    concurrent calls (a cache hit of 10 chunks spent most of its time there). A map
    running *inside* one of this pool's workers never reuses the pool (it would wait on
    itself): it gets a private pool instead.

    Parameters
    ----------
    size : int
        Threads.
    returned : callable, optional
        Called on the caller's thread when a map given this pool returns (or raises): the
        transport warns there of what its requests met on the workers (a skipped cache
        store), so the warning points at the user's line.
    starting : callable, optional
        Called on the caller's thread when a map given this pool begins: the transport
        marks there where the call's cache entries begin (the call's checks drop them when
        they find its answers wrong), for a call whose every request runs on the workers.

    Examples
    --------
    >>> pool = WorkerPool(2)
    >>> map_concurrent(lambda x: -x, [1, 2, 3], 2, pool=pool).results
    [-1, -2, -3]
    >>> pool.shutdown()
    """

    def __init__(
        self,
        size: int,
        returned: Callable[[], None] | None = None,
        starting: Callable[[], None] | None = None,
    ) -> None:
        self.size = size
        self.returned = returned or _nothing
        self.starting = starting or _nothing
        self._prefix = f"dealframe-pool-{id(self):x}"
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def executor(self) -> ThreadPoolExecutor | None:
        """The shared executor, or None when called from one of its own workers or after shutdown."""
        if threading.current_thread().name.startswith(self._prefix):
            return None
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=self.size, thread_name_prefix=self._prefix
                )
            return self._executor

    def shutdown(self) -> None:
        """Stop the threads once the work already queued has run; a later map starts a new
        executor.

        Queued work is run, not cancelled: ``concurrent.futures.wait`` never wakes for a
        future that ``shutdown(cancel_futures=True)`` cancels, so a call of another thread
        waiting on one would hang. The client closes its transport first, so each queued
        request fails at once with ``TransportError(kind="closed")``.
        """
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


def map_concurrent(
    fn: Callable[[T], R],
    items: Iterable[T],
    workers: int,
    *,
    progress: bool | None = None,
    desc: str | None = None,
    collect: tuple[type[BaseException], ...] = (DealframeError,),
    fatal: tuple[type[BaseException], ...] = FATAL_ERRORS,
    pool: WorkerPool | None = None,
    inline: Callable[[T], R | None] | None = None,
    deadline: float | None = None,
) -> MapResult[R]:
    """Apply ``fn`` to every item on at most ``workers`` threads, keeping input order.

    Parameters
    ----------
    fn : callable
        Called once per item; usually sends one request (with its own retries).
    items : iterable
        Pages, chunks or ids.
    workers : int
        Pool size (at least 1); one item runs inline without a pool.
    progress : bool, optional
        Show a tqdm bar: True, False, or None for "when interactive". Never for one item.
    desc : str, optional
        Bar label.
    collect : tuple of exception types
        Errors recorded per item (the map goes on).
    fatal : tuple of exception types
        Errors that cancel the remaining items and propagate (checked before ``collect``),
        except an :class:`~dealframe.errors.AuthenticationError` once some item had arrived
        (a token that expired part-way): the items that arrived are kept and every item left
        is a failure with that error. Any exception outside ``collect`` propagates too.
    pool : WorkerPool, optional
        A long-lived pool to run on when its size equals ``workers`` (the client's own);
        otherwise a pool is made for this call.
    inline : callable, optional
        Tried first for each item, on this thread: an item it answers (not None) is done
        without ``fn`` (an HTTP cache hit: CPU work that threads would only slow down); an
        error it raises is kept or raised as the same error of ``fn`` would be. Each item
        it does not answer goes to the workers at once; after :data:`COLD_RUN` of them in a
        row (a cold cache) it is asked for one item in :data:`COLD_RUN` only, until it
        answers one (the cached part of a partly cached call).
    deadline : float, optional
        The call's deadline (``time.monotonic()`` seconds: its ``call_budget``), checked
        before each item is run: once it has passed, nothing more is sent and every item
        not read is a failure with one shared ``TransportError(kind="budget")`` that says
        so, at once (not each item's own request failing in turn).

    Every item not read is a failure too, with the error of the last, once
    :data:`OUTAGE_RUN` items in a row failed for good with the same 5xx status, rate limit
    or connection failure (:class:`Outage`, as a list's walk stops): the service is down,
    and the items left are not sent.

    Returns
    -------
    MapResult
        ``results`` in input order (None for failed items) and ``failures``.

    Raises
    ------
    RateLimitedError
        Every item failed without being sent, the client held back by a rate limit longer
        than its ``retry_after_max`` (:func:`held_back`), or its gate closed for longer
        than the call's budget could wait: that error, as a call of one request raises it.
        Items not sent after others arrived are failures as any.

    Examples
    --------
    >>> map_concurrent(lambda x: x * x, [3, 1, 2], workers=2).results
    [9, 1, 4]
    """
    todo: Sequence[T] = list(items)
    workers = integer_in(workers, "workers", 1, None)  # numpy's integers too
    results: list[R | None] = [None] * len(todo)
    failures: list[ItemFailure] = []
    arrived: set[int] = set()
    bar = _bar(show_progress(progress, len(todo)), len(todo), desc)
    down = Outage()
    if pool is not None:
        pool.starting()

    def due() -> None:
        """Raise :class:`_Stopped` once the call's deadline has passed."""
        if deadline is not None and time.monotonic() >= deadline:
            raise _Stopped(None)

    def run(item: T) -> R:
        due()  # an item queued on the pool when the budget ran out is not sent
        return fn(item)

    def look(item: T) -> R | None:  # a cache lookup sends nothing: no deadline to keep
        return inline(item) if inline is not None else None

    def served(unread: list[int]) -> list[int]:
        """Of the items ``unread`` when the map stopped, those ``inline`` answers (the HTTP
        cache: they need no request, outage or not, budget or not) are kept; the others are
        returned. Every one is looked up, whatever its place: nothing else waits now, and a
        lookup of a cold cache costs about 0.1 ms."""
        if inline is None:
            return unread

        def hit(index: int) -> bool:
            try:
                result = inline(todo[index])
            except collect:  # a lookup that fails: the item stays failed, with the stop's error
                return False
            if result is None:
                return False
            results[index] = result
            arrived.add(index)
            if bar is not None:
                bar.update(1)
            return True

        return [index for index in unread if not hit(index)]

    def timely(indices: Iterable[int]) -> Iterator[int]:
        for index in indices:
            due()  # nothing more is submitted once the budget ran out
            yield index

    def record(index: int, outcome: Callable[[], R | None], *, looked_up: bool = False) -> bool:
        """Keep item ``index``'s outcome: its result, or its error as ``fn``'s would be kept
        (collected, or raised: fatal, outside ``collect``, the client closed); False only
        when ``looked_up`` (``outcome`` is ``inline``) found no answer: the item is still to do."""
        done = True
        try:
            result = outcome()
            if looked_up and result is None:
                done = False
                return False
            results[index] = result
            arrived.add(index)
            down.arrived()
        except _Stopped:
            raise
        except fatal:
            raise
        except collect as exc:
            if closed(exc):
                raise
            failures.append(ItemFailure(index, todo[index], exc))
            if down.failed(exc):  # the service is down: the items left are not sent
                raise _Stopped(exc) from None
        finally:
            if bar is not None and done:
                bar.update(1)
        return True

    try:
        if inline is not None and len(todo) > 1 and workers > 1:
            left: Iterator[int] = timely(_unanswered(look, todo, record))
        else:
            left = timely(range(len(todo)))
        first = list(itertools.islice(left, 2))  # one item left: no pool
        if len(first) <= 1 or workers == 1:
            for index in itertools.chain(first, left):
                record(index, functools.partial(run, todo[index]))
        else:
            shared = pool.executor() if pool is not None and pool.size == workers else None
            indices = itertools.chain(first, left)
            _run_pool(run, todo, indices, min(workers, len(todo)), record, shared)
    except _Stopped as stop:
        # an outage, or the budget spent: what arrived is kept, every item left failed alike
        failed = {f.index for f in failures}
        unread = served([i for i in range(len(todo)) if i not in arrived and i not in failed])
        error = stop.error or _out_of_time(len(unread), len(todo), what=desc)
        failures += [ItemFailure(i, todo[i], error) for i in unread]
    except fatal as exc:
        if not arrived or not isinstance(exc, AuthenticationError):
            raise  # nothing arrived, or a 400 that may be this item's own: as itself
        # stopped part-way: what arrived is kept, every item left failed with this error
        failed = {f.index for f in failures}
        failures += [
            ItemFailure(i, todo[i], exc)
            for i in range(len(todo))
            if i not in arrived and i not in failed
        ]
    finally:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.returned()
    failures.sort(key=lambda f: f.index)
    if failures and not arrived and all(unsent(f.error) for f in failures):
        # no request of this call went out (an earlier call's rate limit held the family
        # back, or closed its gate past the budget): that error, as one request's raises it
        raise failures[0].error
    return MapResult(results, failures)


class _Stopped(Exception):
    """What stops a map part-way, the items left failed with ``error``: the last of an
    outage's run (:class:`Outage`); None when the call's deadline passed."""

    def __init__(self, error: BaseException | None) -> None:
        super().__init__(error)
        self.error = error


def _out_of_time(left: int, total: int, what: str | None = None) -> TransportError:
    """The one error of the items a map did not send once the call's budget ran out.

    Examples
    --------
    >>> str(_out_of_time(7, 10, "companies profiles"))
    'call_budget ran out: 7 of the 10 requests (companies profiles) were not sent; raise call_budget or narrow the call'
    """
    named = f" ({what})" if what else ""
    return TransportError(
        f"call_budget ran out: {left:,} of the {total:,} requests{named} were not sent",
        kind="budget",
        note="raise call_budget or narrow the call",
    )


def unsent(error: BaseException) -> bool:
    """Whether ``error`` is of a request the client never sent: a rate limit's error with no
    attempt (a request sent has one at least), whether its family was held back
    (:func:`held_back`) or its gate closed for longer than the call's budget could wait.

    Examples
    --------
    >>> unsent(RateLimitedError(429, "RATE_LIMITED", "not sent", attempts=0))
    True
    >>> unsent(RateLimitedError(429, "RATE_LIMITED", "Slow down"))  # a 429 answered
    False
    """
    return isinstance(error, RateLimitedError) and error.attempts == 0


#: Items in a row that ``inline`` does not answer after which a map asks it for one item in
#: this many only (a cold cache: every lookup would only hold the requests back; the items
#: not asked go to the workers, whose requests still read the cache), until it answers one.
COLD_RUN = 16


def _unanswered(
    inline: Callable[[T], R | None],
    todo: Sequence[T],
    record: Callable[..., bool],
) -> Iterator[int]:
    """The positions of the items ``inline`` does not answer, each as soon as it is known
    (the workers start on it while the next items are looked up); after :data:`COLD_RUN`
    of them in a row, one item in :data:`COLD_RUN` is asked and the others are not, until
    one is answered. ``inline``'s answers and errors are kept by ``record``, as ``fn``'s
    would be."""
    run = 0  # items in a row not answered (asked or not)
    for index, item in enumerate(todo):
        ask = run < COLD_RUN or run % COLD_RUN == 0
        if ask and record(index, functools.partial(inline, item), looked_up=True):
            run = 0
            continue
        run += 1
        yield index


#: Items a map keeps submitted to its pool per worker: enough that no worker waits for the
#: next, few enough that a map stopped part-way (an outage, its budget spent) has few to
#: cancel, and that a map of 10,000 ids does not queue 10,000 futures at once.
AHEAD_PER_WORKER = 2


def _run_pool(
    fn: Callable[[T], R],
    todo: Sequence[T],
    indices: Iterable[int],
    workers: int,
    record: Callable[[int, Callable[[], R]], Any],
    shared: ThreadPoolExecutor | None = None,
) -> None:
    """``fn`` of ``todo[i]`` for each of ``indices`` on the pool, at most
    :data:`AHEAD_PER_WORKER` per worker submitted at a time, the next taken from ``indices``
    as each arrives; ``record(i, outcome)`` keeps each as it arrives (in order of position
    among those that arrive together). An error of ``record`` or of ``indices`` stops the
    map: nothing more is submitted."""
    pool = shared or ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dealframe")
    futures: dict[Future[R], int] = {}  # each future submitted and not yet recorded
    left = iter(indices)
    more = True
    try:
        while True:
            while more and len(futures) < AHEAD_PER_WORKER * workers:
                i = next(left, None)
                if i is None:
                    more = False
                    break
                futures[submit(pool, fn, todo[i])] = i
            if not futures:
                break
            # each answer as it arrives (the bar moves with them); the futures waited on are
            # never more than the window, so a wait per answer stays cheap
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=futures.__getitem__):
                record(futures.pop(future), future.result)
    except BaseException:
        for future in futures:
            future.cancel()
        if shared is None:
            pool.shutdown(wait=True, cancel_futures=True)
        else:
            wait(list(futures))  # this call's running items finish before the error leaves
        for future, at in futures.items():  # items that arrived meanwhile are kept
            if future.done() and not future.cancelled():
                with contextlib.suppress(Exception):  # a second stopping error: the first tells
                    record(at, future.result)
        raise
    if shared is None:
        pool.shutdown(wait=True)
