"""Offset pagination for Family B, checked page by page (:mod:`dealframe.contract`).

:func:`pull_pages` works for list POSTs (page in the body, from page 2 on: page 1 is asked
with the documented body, without ``page``) and sub-collection GETs (page in the query): the
caller passes ``fetch(page, size)``; a list walk also passes its :class:`Numbering`, which
settles how the service counts ``page`` (from 1, or from 0) before any page runs ahead.
Page 1 says what to expect; when its ``meta.total`` says how many pages there are, later
pages are requested ahead on worker threads, a bounded window at a time (up to that many
pages), and parsed **on the caller's thread**, each as soon as its turn comes and its JSON
released. When the next page is late (a slow answer, a retry), later pages that have arrived
are checked and parsed meanwhile, and the workers go on fetching; every page still joins the
result in page order. Only the requests run on the workers: the transport leaves each body
unread there (:func:`~dealframe.transport.body.later`), and this thread reads and checks it
(:meth:`_Walk.reread`), as the transport would; a body that is not one the transport takes as
it is (``NaN`` tokens, cut short, not JSON) is handed back to the transport on this thread
(:func:`~dealframe.transport.session.resume`), which judges it as its own: read and warned of,
or sent again within what the worker's attempts left of the request's retries. Many requests run ahead only while a page is waited for longer than it
takes to parse (:class:`_Pace`); from a service that answers faster (one on this machine or
the same rack) one page is fetched on a worker while the one before it is parsed, which hides
the service's time and the transfer without the GIL being fought over. Pages that the HTTP
cache stores are read on the worker (the cache checks what it stores): from such a service
they are fetched one at a time on this thread instead, as threads reading bodies would compete
with parsing for the GIL and make the walk slower. Once a page has needed a retry, the walk
knows its pages' pace and says so to the transport
(:func:`dealframe.transport.stragglers.sooner`): each later page it fetches alone on this
thread waits at most :meth:`_Pace.first_limit` on its first attempt before it is sent again,
so a stalled answer costs a few pages' time, not the straggler limit or the read timeout.
(Pages run ahead keep the transport's own rule: answers in flight together are slower than the
pages the limit is measured on.)

The walk never trusts ``meta`` blindly:

- it asks for pages one window at a time, never building a list from ``meta.total``;
- it follows ``has_more`` and stops at the first empty or short page, whatever ``total``
  says; once a page that ends the walk has arrived ahead of its turn, no page past it is
  asked for, so an inflated ``total`` costs at most the pages already in flight (the
  workers' count);
- a missing ``total`` (and the pages past it, when it fell short) means one page at a time
  until the end: no page is asked for before the one ahead of it says more may follow, so
  a walk that follows ``has_more`` sends exactly the pages up to the one whose ``has_more``
  is false, and one without ``has_more`` only the empty or short page more;
- a short page 1 whose ``meta`` says neither ``total`` nor ``has_more`` (or no ``meta``
  at all) is not taken as the last: page 2 is asked for at page 1's size, and an
  empty page 2 ends the walk (one request more, only for such a service);
- a page whose identities repeat an earlier page's (a service that ignores ``page``) ends
  the walk with a ``repeated_page`` finding. Past the pages ``meta.total`` implies (or all
  along, without a ``total``), each page is checked against the identities of page 1 and of
  the pages checked before it: one that brings none new ends the walk, and so does one past ``meta.total`` more than half of
  whose identities came before (a service that ignores ``page`` and orders its rows
  differently on each request, whose ``has_more`` would never turn false). The rows that
  arrived are kept;
- a ``meta.limit`` smaller than asked (a service that clamps ``limit``) is adopted as the
  page size for the rest of the walk, and so is the size of a page 1 shorter than asked that
  says more follows (its ``has_more``, holding what its ``meta.returned`` says; or, without
  ``has_more``, a ``meta.total`` above its rows), whatever its ``meta.limit`` says;
- a page holding fewer rows than that page size while its ``has_more`` says more follow is a
  ``count_mismatch`` of the rows lost (:meth:`_Walk.short`): the next page starts past them,
  and a walk capped by ``limit`` would fill up with later rows in their place. It is none
  when the rows read reach ``meta.total`` (the last page of a service whose ``has_more``
  stays true), nor, without a ``total``, when the next page is empty (asked once even when
  ``limit`` ends the walk on the short page);
- a page short of the page size in force (the rows asked, or a ``meta.limit`` below them)
  whose ``has_more`` says more follow, the page after it empty, is a ``bad_meta``
  (:meth:`_Walk.empty_after`): that ``has_more`` was not true (a full page followed by an
  empty one is not: a service may say ``has_more`` whenever a page is full);
- a ``meta.page`` other than the page asked is a ``bad_meta``, once a walk
  (:meth:`_Walk.check_page`); a ``meta.limit`` below the rows of its page is one too, and not
  adopted (:func:`~dealframe.contract.read_page`);
- no walk goes past :data:`MAX_PAGES` pages.

Pages that fail after their retries are listed in :attr:`Pages.failed`; the caller raises
:class:`~dealframe.errors.IncompleteResultError` with the frame of what did arrive.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

import numpy as np
import pyarrow as pa

from .._wording import plural
from ..contract import (
    Findings,
    PageRead,
    identities,
    identity_column,
    keys_present,
    read_page,
    text_offsets,
)
from ..errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    DealframeError,
    incomplete,
)
from ..transport.body import LATER, Read, expecting, later
from ..transport.body import parse as parse_body
from ..transport.paging import (
    FATAL_ERRORS,
    ItemFailure,
    Outage,
    WorkerPool,
    _bar,
    closed,
    held_back,
    show_progress,
    submit,
)
from ..transport.session import resume
from ..transport.stragglers import sooner

if TYPE_CHECKING:
    from ..transport.session import Response

__all__ = [
    "MAX_PAGES",
    "PAGE_SIZE",
    "Numbering",
    "PageInfo",
    "Pages",
    "page_parts",
    "pull_pages",
    "read_body",
    "say_wrong_page",
    "stopped",
]

#: Rows per page requested (the upper bound of ``limit``).
PAGE_SIZE = 1000
#: A walk that has not ended after this many pages is stopped (and says so).
MAX_PAGES = 100_000
#: Once a page has needed a retry, a first attempt waits this many typical pages ...
LATE_FACTOR = 4.0
#: ... and at least this many seconds.
LATE_FLOOR = 0.05
#: A wait for a page in flight on a worker counts only above this share of the parse time ...
NOISE_SHARE = 0.5
#: ... and this many seconds (a worker finishing its read while parsing holds the GIL).
NOISE_FLOOR = 0.010

T = TypeVar("T")

#: Errors that end a walk part-way as themselves, carrying the pages that arrived (see
#: :func:`~dealframe.errors.incomplete`): an expired token, a refused parameter.
_STOPPING = (AuthenticationError, BadRequestError)


class PageInfo(NamedTuple):
    """What is kept of one page's response once it is parsed (for provenance), and the
    members its items held (for the documented-fields check of each page:
    :func:`~dealframe.contract.missing_fields`)."""

    page: int
    rows: int
    from_cache: bool
    attempts: int
    keys: frozenset[str] = frozenset()


@dataclass
class Pages(Generic[T]):
    """The parsed pages of one paginated pull and what it should add up to.

    Attributes
    ----------
    parts : list
        ``parse(items)`` of every page read, in page order.
    infos : list of PageInfo
        Page number, rows, cache flag and attempts of every page read (no bytes).
    total : int or None
        ``meta.total`` of page 1, when it was a sane count.
    expected : int or None
        Rows the pull should hold (``total`` capped by ``limit``, and by the pages read when
        the caller said it had ``enough``), None when unknown.
    size : int
        Rows per page the service served.
    keys : set of str
        Every field any item had (for the documented-fields check).
    failed : list of ItemFailure
        Pages that failed after their retries.
    enough : bool
        Whether the caller's ``enough`` (:func:`pull_pages`) ended the walk.
    held : bool
        Whether ``expected`` was held to the rows the pages read can hold (``enough`` ended
        the walk before the rows ``meta.total`` announced): those pages' rows, repeats
        included, are what they should add up to (the repeats are said as such elsewhere).
    moved : tuple of int, optional
        ``(first, other)``: a later page's sane ``meta.total`` differed from page 1's (the
        last such), the sign of data that changed while the pages were read.
    """

    parts: list[T]
    infos: list[PageInfo]
    total: int | None
    expected: int | None
    size: int
    keys: set[str] = field(default_factory=set)
    failed: list[ItemFailure] = field(default_factory=list)
    enough: bool = False
    held: bool = False
    moved: tuple[int, int] | None = None

    @property
    def rows(self) -> int:
        """Rows received over all pages."""
        return sum(info.rows for info in self.infos)

    def raise_for_failures(
        self,
        partial: Any,
        what: str = "rows",
        *,
        counts: tuple[int | None, int] | None = None,
        unread: tuple[Sequence[Any], Sequence[str], ApiError] | None = None,
        also: tuple[Sequence[Any], Sequence[str], Sequence[BaseException]] | None = None,
    ) -> None:
        """Raise :class:`IncompleteResultError` (with ``partial``) if any page failed, or
        the error that stopped the walk part-way (an expired token: an
        :class:`~dealframe.errors.AuthenticationError` carrying ``partial``).

        The error's ``expected`` and ``received`` are :attr:`expected` and :attr:`rows`: the
        rows the pages should hold and those that arrived. ``counts`` gives the result's own
        ``(expected, received)`` instead, when the pages do not add up to it (batches of a
        union whose rows may repeat from one batch to another, items that could not be read).
        ``unread`` is ``(failed, labels, error)`` of pages holding items that cannot be read
        (:meth:`~dealframe.private.list_pages.ListParse.unreadable`): failed too, and that
        error, naming the first, is raised carrying ``partial``. The failed pages are in page
        order (:func:`_page_order` of their labels), those that failed and those that cannot
        be read alike. ``also`` is ``(failed, labels, errors)`` of a later step that failed
        too (the single forms of ``with_investors=True``): named after the pages.

        Examples
        --------
        >>> from dealframe.errors import ServerError, ServiceContractError
        >>> pages = Pages([], [], None, None, 0, failed=[ItemFailure(2, 3, ServerError(500, "X", "down"))])
        >>> item = ServiceContractError(200, "page 1, item 2 of 9: bad", finding="wrong_shape")
        >>> try:
        ...     pages.raise_for_failures(None, unread=([1], ["page 1"], item), also=(["d1"], ["d1"], [item]))
        ... except ServiceContractError as exc:
        ...     exc.failed, exc.labels
        ([1, 3, 'd1'], ['page 1', 'page 3', 'd1'])
        """
        more, labels, stop = unread if unread is not None else ((), (), None)
        later, named, errors = also if also is not None else ((), (), ())
        if self.failed or more or later:
            expected, received = (self.expected, self.rows) if counts is None else counts
            cause = self.failed[0].error if self.failed else stop
            # (label, failed, error): the unreadable pages hold one error, the first one's
            each = [(_page_label(f.item), f.item, [f.error]) for f in self.failed]
            each += [
                (label, k, [stop] if n == 0 and stop else [])
                for n, (label, k) in enumerate(zip(labels, more, strict=True))
            ]
            each.sort(key=lambda one: _page_order(one[0]))
            raise incomplete(
                expected,
                received,
                [k for _, k, _ in each] + list(later),
                errors=[e for _, _, error in each for e in error] + list(errors),
                partial=partial,
                what=what,
                stop=stop or stopped(self.failed),
                labels=[label for label, _, _ in each] + list(named),
            ) from (None if cause is stop else cause)


def _page_order(label: str) -> list[Any]:
    """How a failed page's ``label`` sorts among the call's others: its numbers as numbers
    (``page 2`` before ``page 10``; a batch's pages after those of the batch before it).

    Examples
    --------
    >>> sorted(["ids 1001-1595 page 1", "page 10", "ids 1-1000 page 2", "page 2"], key=_page_order)
    ['ids 1-1000 page 2', 'ids 1001-1595 page 1', 'page 2', 'page 10']
    """
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", label)]


def page_parts(infos: Iterable[PageInfo], of: str = "") -> list[tuple[str, int, frozenset[str]]]:
    """Each page of ``infos`` as :func:`~dealframe.contract.missing_fields` takes its
    ``parts``: ``(label, rows, keys)``, the label ``page N`` after ``of`` (the id of a
    sub-collection's walk).

    Examples
    --------
    >>> page_parts([PageInfo(2, 3, False, 1, frozenset({"id"}))], of="c1 ")
    [('c1 page 2', 3, frozenset({'id'}))]
    """
    return [(f"{of}page {info.page}", info.rows, info.keys) for info in infos]


def _page_label(item: Any) -> str:
    """How an error names a failed page: ``page 5`` for the walk's page number (a bare ``5``
    read as a count of something), a batch's page as it is already named.

    Examples
    --------
    >>> _page_label(5), _page_label("investor_id ids 1-1000 page 2")
    ('page 5', 'investor_id ids 1-1000 page 2')
    """
    return f"page {item}" if isinstance(item, int) else str(item)


def stopped(failed: Sequence[ItemFailure]) -> ApiError | None:
    """The error that ended a walk part-way (see :data:`_STOPPING`), if one did: the walk
    records a 400 or 401/403 of a later page only when it stops there.

    Examples
    --------
    >>> stopped([ItemFailure(1, 3, BadRequestError(400, "BAD_REQUEST", "page too far"))]).status
    400
    """
    for failure in failed:
        if isinstance(failure.error, _STOPPING):
            return failure.error
    return None


@dataclass
class Numbering:
    """How a list walk numbers the service's pages: ``first`` is the service's number of its
    first page (1, or 0), and ``known`` says whether that is settled.

    Page 1 is asked without ``page`` (the documented ``{filters, sort, limit}``), which any
    service answers with its first page however it counts; the walk's page ``k`` is then the
    service's page ``k - 1 + first`` (:meth:`number`). Page 1's ``meta.page`` 1 settles that
    pages count from 1. A ``meta.page`` 0, or none, is only a hint: a service counting from 1
    may echo an unset ``page`` as 0 (a Go or Java ``int``). Until it is settled, the walk asks
    its page 2 as ``page: 1``, alone and before any page runs ahead, and compares its
    identities with page 1's (:meth:`settle`): mostly new ones say the service counts from 0
    (the page is the walk's page 2, and page 3 is asked as ``page: 2``); mostly page 1's say
    it counts from 1 (the answer is dropped, and page 2 is asked as ``page: 2``).

    Attributes
    ----------
    first : int
        The service's number of its first page: 1, or 0 (tentatively so until ``known``).
    known : bool
        Whether ``first`` is settled: told by the client (found by an earlier call), by page
        1's ``meta.page`` 1, or by the comparison.
    said : str or None
        How this walk found that the service counts from 0 (for ``attrs["page_from_0"]``).
    hint : str
        What page 1's ``meta.page`` said, in words, while the numbering is not settled.

    Examples
    --------
    >>> unsure = Numbering()
    >>> unsure.read_first(PageRead(1, [], page=0)); unsure.number(2)
    1
    >>> unsure.settle(new=0, of=1000), unsure.first, unsure.known, unsure.number(2)
    (False, 1, True, 2)
    >>> zero = Numbering()
    >>> zero.read_first(PageRead(1, [])); zero.settle(new=976, of=976), zero.number(3)
    (True, 2)
    >>> Numbering(1, known=True).read_first(PageRead(1, [], page=0))  # settled: a hint is moot
    """

    first: int = 1
    known: bool = False
    said: str | None = None
    hint: str = field(default="", repr=False)  # what page 1's meta.page said, in words

    def number(self, page: int) -> int | None:
        """The service's number of the walk's page ``page``; None for page 1 (no ``page``)."""
        return None if page == 1 else page - 1 + self.first

    def read_first(self, first: PageRead) -> None:
        """Take page 1's ``meta.page``: 1 settles the numbering; anything else leaves a
        numbering not yet settled to be tried from 0 (page 2 asked as ``page: 1``)."""
        if first.page == 1:
            self.first, self.known = 1, True
        elif not self.known:
            self.first = 0
            self.hint = "no meta.page" if first.page is None else f"meta.page {first.page}"

    def settle(self, *, new: int, of: int) -> bool:
        """Settle the numbering from the walk's page 2 asked as ``page: 1``: ``new`` of its
        ``of`` identities were not on page 1. True when the service counts from 0 (more than
        half are new: the page is kept as the walk's page 2); else it counts from 1 (the page
        is dropped), known so only when more than half repeat page 1 (with nothing to compare,
        from 1 is the document's default for this walk, and nothing is settled)."""
        if of and new * 2 > of:
            self.first, self.known = 0, True
            self.said = (
                f"page 1, asked without page, said {self.hint or 'no meta.page'}, and page=1 "
                f"brought {new} rows that were not on it: the service counts page from 0 (the "
                "later pages are asked from page=2)"
            )
            return True
        self.first, self.known = 1, (of - new) * 2 > of
        return False


class _Pace:
    """How long a page is waited for (typical of the last three) and takes to parse (mean).

    Measured on 50,000 deals from a server on loopback: 1.2 s with one request in flight,
    1.4 s with two, 1.9 s with eight, when workers read the bodies (they take the GIL from
    parsing); on 20,000 deals, with one page in flight whose body is read on this thread, 0.34
    and 0.43 s against 0.49 and 0.70 s one page at a time (a machine at load 4-5, where the
    server's time per page is longer). Against a remote service pages take longer to arrive
    than to parse, and running ahead hides the round trips. A page fetched on the caller's
    thread is measured by the request's ``elapsed`` (a worker's request also waits for the
    GIL while pages are parsed, which would make any service look slow) less the CPU time
    this thread spent in it (``busy``: reading and copying the body is work that
    a worker would do under the same GIL, not a wait that it could hide). Pages in flight on
    workers are measured by how long this thread waited for them: with one page in flight,
    a page it waited for longer than the noise (:data:`NOISE_SHARE` of the parse, at least
    :data:`NOISE_FLOOR`) arrived that much later than the page before took to parse, so a
    service that turns slow part-way gets more pages in flight; one waited for less counts
    as no wait (a fast service stays at one page in flight). With ``workers`` in flight,
    the mean wait of the last pages in flight is the measure; none waited for counts as no
    wait only if the page's own request (on its worker, whose time the GIL stretches) took
    less than the parse or half the typical wait that sent the walk to the workers, so a
    service that turns fast again comes back down, and one whose round trip the workers
    hide stays.
    """

    def __init__(self) -> None:
        self.waits: deque[float] = deque(maxlen=3)
        self.parse: float | None = None
        self.flaky = False  # a page needed a retry: first attempts get first_limit() from now
        # whether the pages fetched on workers came unread (True), or read there to be
        # stored in the HTTP cache (False); None before the first one
        self.unread: bool | None = None
        self.lately: deque[float] = deque(maxlen=16)  # this thread's waits for worker pages
        self.up: float | None = None  # the typical wait when it was last above the parse

    @property
    def arrive(self) -> float | None:
        """The typical wait: the median of the last three pages fetched on this thread (the
        shorter of two), so one slow page (page 1 of a query, a retry) does not decide."""
        if not self.waits:
            return None
        return sorted(self.waits)[1] if len(self.waits) == 3 else min(self.waits)

    def note(
        self,
        response: Any,
        parse_seconds: float,
        *,
        inline: bool = True,
        busy: float = 0.0,
        waited: float | None = None,
        flight: int = 2,
    ) -> None:
        """One page taken: its wait (fetched on this thread), or with ``waited``, the time
        this thread waited for a page fetched on a worker, ``flight`` pages in flight (see
        the class: counted only above the noise, as that wait and the last page's parse)."""
        elapsed = getattr(response, "elapsed", None)
        # a cache hit says nothing of how long the service takes to answer
        if getattr(response, "from_cache", False):
            pass
        elif inline and isinstance(elapsed, (int, float)):
            self.waits.append(max(0.0, elapsed - busy))
        elif waited is not None and self.parse is not None:
            self.waits.append(self._waited(waited, flight, parse_seconds, elapsed))
        if getattr(response, "attempts", 1) > 1:
            self.flaky = True
        self.parse = parse_seconds if self.parse is None else (self.parse + parse_seconds) / 2
        if self.arrive is not None and self.arrive > self.parse:
            self.up = self.arrive

    def _waited(self, waited: float, flight: int, parse_seconds: float, elapsed: Any) -> float:
        """The wait of a page fetched on a worker (:meth:`note`; ``self.parse`` is set)."""
        assert self.parse is not None
        self.lately.append(waited)
        last = list(self.lately)[-max(1, flight - 1) :]  # the pages in flight with it
        mean = sum(last) / len(last)
        if mean > max(NOISE_FLOOR, NOISE_SHARE * self.parse):
            return mean + min(self.parse, parse_seconds)
        if flight <= 2 or not isinstance(elapsed, (int, float)):
            return 0.0  # it arrived while the page before was parsed
        # none waited for with many in flight: fast only if its own request says so
        fast = elapsed < max(self.parse, (self.up or 0.0) / 2)
        return 0.0 if fast else float(elapsed)

    def ahead(self, workers: int) -> int:
        """Requests to keep in flight: ``workers`` once two of the last three pages measured
        (:meth:`note`) say arriving is the slower part; else 2: one page fetched on a worker, its body left
        unread there, while the last one is parsed here. Else 1 (each page fetched alone on
        this thread) once a page came read on its worker (to be stored in the HTTP cache:
        reading takes the GIL from parsing), or needed a retry (pages fetched alone get
        :meth:`first_limit`). (A retry does not send a fast service's pages to the workers:
        pages in flight at once compete for the GIL, and are slower for every page.)"""
        arrive = self.arrive
        if len(self.waits) >= 2 and self.parse is not None and arrive is not None:
            if arrive > self.parse:
                return max(1, workers)
            alone = self.flaky or self.unread is False  # (see first_limit, and above)
            return 1 if alone else min(2, max(1, workers))
        return 1 if self.waits else max(1, workers)

    def first_limit(self) -> float | None:
        """How long a page's first attempt waits before it is sent again, once a page has
        needed a retry: :data:`LATE_FACTOR` typical pages (wait and parse), at least
        :data:`LATE_FLOOR` seconds; None before (the transport's own rule applies)."""
        if not self.flaky:
            return None
        typical = (self.arrive or 0.0) + (self.parse or 0.0)
        return max(LATE_FLOOR, LATE_FACTOR * typical)


#: The hashes of identities that are none (null or empty).
_NO_ID = frozenset((hash(None), hash("")))


def _prints(ids: list[Any] | pa.Array) -> np.ndarray:
    """The hashes of ``ids``; of those that are text when some cannot be hashed."""
    if isinstance(ids, pa.Array):
        ids = ids.to_pylist()
    try:
        return np.fromiter(map(hash, ids), np.int64, len(ids))
    except TypeError:  # identities that are objects or lists: none of them is one
        kept = [i for i in ids if isinstance(i, str)]
        return np.fromiter(map(hash, kept), np.int64, len(kept))


def _parsed_ids(part: Any, identity: str, rows: int) -> pa.Array | None:
    """The identities of a page that ``parse`` has read into columns
    (:func:`dealframe.frames.private.list_page_columns`: ``(columns, extras)``), when they are
    Arrow text, one per item: the identity checks read them there instead of reading every
    item again. None for any other part (a list of items, identities that are not text)."""
    columns = part[0] if isinstance(part, tuple) and part and isinstance(part[0], dict) else {}
    column = columns.get(identity)
    if (
        isinstance(column, pa.Array)
        and (pa.types.is_large_string(column.type) or pa.types.is_string(column.type))
        and len(column) == rows
    ):
        return column
    return None


def _signature(ids: list[Any] | pa.Array) -> Hashable | None:
    """What a page's identities are known by among the pages of a walk: the hash of a list
    of them; for the parse's Arrow column, its length and first and last identity, which
    pages with other identities can share, so that the column is compared whole with the
    earlier pages known by the same (:meth:`_Walk.repeats`) instead of hashing every identity
    of every page. None when none is text, or every one is empty (no identity, as
    :func:`dealframe.contract.identities` says): such pages are never called repeats."""
    if isinstance(ids, pa.Array):
        offsets = text_offsets(ids)  # no bytes at all: every one null or empty
        return (len(ids), ids[0].as_py(), ids[-1].as_py()) if offsets[-1] > offsets[0] else None
    return hash(tuple(ids)) if any(isinstance(i, str) and i for i in ids) else None


class _Ready(NamedTuple):
    """A page checked and parsed ahead of its turn, waiting to be committed in page order."""

    page: PageRead
    signature: Hashable | None  # what the page's identities are known by (:func:`_signature`)
    ids: list[Any] | pa.Array  # the page's identities (as the parse holds them, or a list)
    keys: set[str]
    part: Any
    info: PageInfo
    found: Findings  # what the checks found, added to the walk's findings at its turn


class _Walk(Generic[T]):
    """The state of one walk: what was read, and whether to go on."""

    def __init__(
        self,
        found: Findings,
        parse: Callable[[list[Any]], T],
        identity: str,
        limit: int | None,
        size: int,
        enough: Callable[[list[Any] | pa.Array], bool] | None = None,
        reader: Callable[[bytes], Any] | None = None,
        numbering: Numbering | None = None,
    ) -> None:
        self.found, self.parse, self.identity, self.limit = found, parse, identity, limit
        self.size, self.enough = size, enough
        self.numbering = numbering  # a list walk's (page 1 asked without page), else None
        self.doubt: int | None = None  # a page short of its size whose has_more said more
        self.paged = False  # a meta.page other than the page asked was said (once a walk)
        self.pages: Pages[T] = Pages([], [], None, None, size)
        # each page's signature, with its identities when they are a column (compared whole)
        self.seen: dict[Hashable, list[pa.Array | None]] = {}
        self.planned: int | None = None  # pages meta.total implies (None: unknown)
        self.known: set[int] | None = None  # hashes of the identities of page 1 and of the
        # pages past the plan (of every page, without a plan)
        self.done = False
        self.end: int | None = None  # the first page known to end the walk, once one has
        # arrived ahead of its turn: no page past it is asked for
        self.pace = _Pace()
        self.reader = reader  # how a page a worker left unread is read here (None: as JSON)
        self.failing = Outage()  # the last pages' failure, in a row
        # a short page said to be followed by more, with no total to tell: (page, rows),
        # said once a later page brings rows (:meth:`short`)
        self.pending: tuple[int, int] | None = None

    def fail(self, number: int, error: DealframeError) -> bool:
        """Record a page that failed for good; True once ``OUTAGE_RUN`` pages in a row
        failed with the same server, rate limit or connection failure (the service is down,
        or keeps refusing this client: :class:`~dealframe.transport.paging.Outage`)."""
        self.pages.failed.append(ItemFailure(number - 2, number, error))
        return self.failing.failed(error)

    def reread(self, response: Response) -> Response | None:
        """``response`` of a page a worker fetched, its body read on this thread when the
        worker left it unread (:func:`~dealframe.transport.body.later`): by the walk's reader,
        or else as JSON, as the transport reads any body. None when that finds no body the
        transport takes as it is (cut short, not JSON, ``NaN`` tokens): in its turn the page
        is then handed to the transport on this thread (:func:`~dealframe.transport.session.resume`), which
        judges that body as it judges any: with ``NaN`` tokens, read as null and warned of;
        cut short or not JSON, sent again within what is left of the request's retries, or
        failed as the transport fails it."""
        if getattr(response, "read", None) is not LATER:
            self.pace.unread = self.pace.unread or False  # read on the worker (to be cached)
            return response
        self.pace.unread = True
        doc, problem = read_body(response.content, self.reader)
        if problem is not None:
            return None
        if isinstance(doc, Read):
            return replace(response, read=doc.doc)
        return replace(response, read=None, _parsed=doc)

    def prepare(self, number: int, response: Response) -> _Ready:
        """Check and parse one page, in any order (nothing of the walk changes)."""
        found = Findings(self.found.where)
        doc = getattr(response, "read", None)  # read by the walk's reader, or else as JSON
        page = read_page(  # the walk's page ``number`` follows number - 1 pages of its size
            response.json() if doc is None else doc,
            found,
            number=number,
            asked=self.size,
            index=number - 1,
        )
        where = f"{self.found.where} page {number}"
        part = self.parse(page.items)
        column = _parsed_ids(part, self.identity, len(page.items))
        ids = (
            identities(page.items, self.identity, found, where=where)
            if column is None
            else identity_column(column, self.identity, found, where=where)
        )
        keys = keys_present(page.items)
        info = PageInfo(
            number, len(page.items), bool(response.from_cache), response.attempts, frozenset(keys)
        )
        return _Ready(page, _signature(ids), ids, keys, part, info, found)

    def against_earlier(self, number: int, ids: list[Any] | pa.Array) -> tuple[int, int]:
        """(identities of page ``number``, how many of them came on page 1 or on the pages
        checked before it), checked past the pages ``meta.total`` implies, or all along without
        a ``total``; (0, 0) for page 1, whose identities are kept, and for the other planned
        pages, which are not looked at (hashing every identity of a walk cost more than the
        rest of its checks; a service that ignores ``page`` serves page 1's rows again, or
        draws its pages from rows that soon repeat among the pages past the plan)."""
        if number > 1 and self.planned is not None and number <= self.planned:
            return 0, 0
        mine = set(_prints(ids).tolist()) - _NO_ID
        if self.known is None:  # page 1
            self.known = mine
            return 0, 0
        before = len(mine & self.known)
        self.known |= mine
        return len(mine), before

    def repeats(self, ready: _Ready) -> bool:
        """Whether the page's identities are those of an earlier page, in the same order: the
        same signature, and for a column the same values too."""
        if ready.signature is None:
            return False
        earlier = self.seen.get(ready.signature, ())
        return any(ids is None or ids.equals(ready.ids) for ids in earlier)

    def take(self, number: int, response: Response) -> PageRead:
        """Check and parse one page in its turn; decide whether the walk ends here."""
        return self.commit(number, self.prepare(number, response))

    def commit(self, number: int, ready: _Ready) -> PageRead:
        """Add a prepared page in page order; decide whether the walk ends here."""
        page = ready.page
        self.found.absorb(ready.found.items)  # a service without meta: said once per walk
        where = f"{self.found.where} page {number}"
        repeated = self.repeats(ready)
        held, before = (0, 0) if repeated else self.against_earlier(number, ready.ids)
        if repeated or (held and before == held):
            self.found.add(
                "repeated_page",
                f"page {number} repeats rows of earlier pages ({ready.info.rows} rows, none "
                "new: is page= ignored?): paging stopped",
                where=where,
            )
            self.done = True
            return page
        self.failing.arrived()
        if ready.signature is not None:
            column = ready.ids if isinstance(ready.ids, pa.Array) else None
            self.seen.setdefault(ready.signature, []).append(column)
        total = self.pages.total
        if page.total is not None and total is not None and page.total != total:
            self.pages.moved = (total, page.total)
        self.pages.keys |= ready.keys
        self.pages.parts.append(ready.part)
        self.pages.infos.append(ready.info)
        self.check_page(number, page)
        if number > 1:  # page 1's is said once the page size is known (:func:`_plan`)
            self.empty_after(number, ready.info.rows)
            self.settle_short(ready.info.rows)  # the page before said more follow: did any?
            self.short(number, page, ready.info.rows)
        # page 1 against the rows asked (its size is not yet known): :func:`pull_pages`
        # settles it once :func:`_plan` has
        more = page.has_more is True and 0 < ready.info.rows < self.size
        self.doubt = number if more else None
        if self.enough is not None and self.enough(ready.ids):
            self.pages.enough = True  # the caller has the rows it wants: the walk ends here
        if self.planned is not None and before * 2 > held:
            self.found.add(  # past meta.total, and mostly rows read before: it would not end
                "repeated_page",
                f"past the {self.pages.total} rows meta.total announced, the page brought "
                f"{held - before} new rows and {before} that came on earlier pages (is page= "
                "ignored, with rows in another order on each request?): paging stopped, the "
                "rows that arrived are kept",
                where=where,
            )
            self.done = True
            return page
        # ended by limit on a short page said to be followed by more: the page after it
        # settles it (:func:`_settle_last`), as it does a walk without limit
        self.done = self.pages.enough or self.last(ready) or self.limited()
        return page

    def short(self, number: int, page: PageRead, rows: int) -> None:
        """Say page ``number`` (holding ``rows``) when it holds fewer rows than the walk's
        page size while its ``has_more`` says more follow, and rows were lost on the way (a
        page cut, its ``meta`` made to agree), or the service serves pages of another size
        than it said. The walk asks the next page past them (its offset counts full pages):
        such rows are never read, and a walk capped by ``limit`` would fill up with later
        rows in their place. An empty page ends the walk (:meth:`last`: the rows
        ``meta.total`` announced are then counted short); a page whose ``meta.returned``
        says more rows than it holds is said by :func:`~dealframe.contract.read_page`.

        A short page is the last one, whatever its ``has_more`` says, when the rows read (its
        own included) reach ``meta.total`` (page 1's: ``page.total`` on page 1 itself); with
        no ``total``, it is said only once a later page brings rows (:meth:`settle_short`:
        an empty next page says it was the last), the walk ending by ``limit`` on it or not
        (:func:`_settle_last` then asks the next page, once).

        Examples
        --------
        >>> walk = _Walk(Findings("GET /x"), list, "id", None, 5)
        >>> walk.pages.infos.append(PageInfo(1, 3, False, 1))
        >>> walk.short(1, PageRead(1, [], returned=3, has_more=True, total=3), 3); len(walk.found)
        0
        >>> walk.short(2, PageRead(2, [], returned=3, has_more=True), 3); len(walk.found)
        0
        >>> walk.settle_short(4); walk.found.items[0].message[:62]
        'page 2 holds 3 rows, while a page holds 5 and meta.has_more sa'
        >>> walk.found.items[0].shortfall
        2
        >>> walk.short(3, PageRead(3, [], has_more=False), 3); len(walk.found)
        1
        """
        self.pending = None
        if page.has_more is not True or not 0 < rows < self.size:
            return
        if page.returned not in (None, rows):
            return  # read_page said it (meta.returned counts rows the page does not hold)
        total = page.total if number == 1 else self.pages.total
        if total is not None and self.pages.rows >= total:
            return  # every row announced has arrived: the page was the last
        self.pending = (number, rows)
        if total is not None:
            self.settle_short(1)

    def check_page(self, number: int, page: PageRead) -> None:
        """Say, once a walk, a ``meta.page`` other than the page asked: the service's number
        of the walk's page ``number`` (:meth:`Numbering.number` for a list walk, whose page 1
        is asked without ``page``: there any 0 or 1 is taken, as the numbering reads it).

        Examples
        --------
        >>> walk = _Walk(Findings("GET /x"), list, "id", None, 5)
        >>> walk.check_page(1, PageRead(1, [], page=2)); walk.found.items[0].message[:44]
        'meta.page is not the page asked (page=1 aske'
        """
        said = page.page
        if said is None or self.paged:
            return
        numbering = self.numbering
        asked = number if numbering is None else numbering.number(number)
        if said == asked or (asked is None and said in (0, 1)):
            return
        self.paged = True
        where = f"{self.found.where} page {number}" if number > 1 else None
        say_wrong_page(self.found, asked, said, where)

    def empty_after(self, number: int, rows: int) -> None:
        """Say an empty page ``number`` after a page short of the page size in force (the
        rows asked, or the ``meta.limit`` of a service serving fewer) whose ``has_more`` said
        more follow (:attr:`doubt`): that ``has_more`` was not true, and
        cost a request (no rows lost: a page that brings rows is :meth:`settle_short`'s).
        Its words name no page, so a call of many walks says it once.

        Examples
        --------
        >>> walk = _Walk(Findings("GET /x"), list, "id", None, 5)
        >>> walk.doubt = 1; walk.empty_after(2, 0); walk.found.items[0].kind
        'bad_meta'
        """
        if self.doubt is None or self.doubt != number - 1 or rows:
            return
        self.found.add(
            "bad_meta",
            "meta.has_more said more rows follow on a page short of the page size, and the "
            "page after it was empty: has_more was not true (one request more, no rows lost)",
            where=f"{self.found.where} page {number - 1}" if number > 2 else None,
        )

    def settle_short(self, rows: int) -> None:
        """A short page said to be followed by more (:meth:`short`) is said lost rows once
        ``rows`` (of the next page, or any number above 0 for a known shortfall) arrive; an
        empty next page (``rows`` 0) says it was the last, and nothing is said."""
        pending, self.pending = self.pending, None
        if pending is None or not rows:
            return
        number, held = pending
        where = f"{self.found.where} page {number}" if number > 1 else None
        self.found.add(
            "count_mismatch",
            f"page {number} holds {held} {plural(held, 'row')}, while a page holds {self.size} "
            f"and meta.has_more says more follow: {self.size - held} "
            f"{plural(self.size - held, 'row')} lost on the way (or the service serves pages of "
            "another size than it says), which the next page, asked past them, does not hold",
            where=where,
            shortfall=self.size - held,
        )

    def limited(self) -> bool:
        """Whether the rows read reach ``limit``."""
        return self.limit is not None and self.pages.rows >= self.limit  # summed only then

    def last(self, ready: _Ready) -> bool:
        """Whether the page ends the walk whatever came before it: it is empty, its
        ``has_more`` is false, or it is short and ``has_more`` says nothing."""
        rows, more = ready.info.rows, ready.page.has_more
        return not rows or more is False or (more is None and rows < self.size)


def say_wrong_page(found: Findings, asked: int | None, said: Any, where: str | None) -> None:
    """Say a ``meta.page`` ``said`` other than the page ``asked`` (None: asked without
    ``page``, the first) as a ``bad_meta`` of ``found`` at ``where`` (None: its own).

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> say_wrong_page(found, 3, 1, None); found.items[0].message[:51]
    'meta.page is not the page asked (page=3 asked, meta'
    """
    sent = "no page (the first)" if asked is None else f"page={asked}"
    found.add(
        "bad_meta",
        f"meta.page is not the page asked ({sent} asked, meta.page {said}): ignored; the "
        "pages are read as asked, their identities checked for repeats",
        where=where,
    )


def _plan(
    first: PageRead, asked: int, limit: int | None, found: Findings
) -> tuple[int, int | None]:
    """(rows per page served, expected rows) from page 1."""
    served = asked
    if first.limit is not None and 0 < first.limit < asked:
        served = first.limit  # the service clamps limit: page k holds rows (k-1)*served ...
    elif 0 < len(first.items) < asked and (
        # more follows a short page 1: the service serves fewer rows than asked
        (first.limit is None and (first.has_more or (first.total or 0) > len(first.items)))
        # ... even when its meta.limit repeats what was asked, if has_more says so and the
        # page holds what its meta.returned says (a page cut on the way says more)
        or (first.has_more and first.returned in (None, len(first.items)))
        # nothing says whether more follows: a service that serves fewer rows than asked,
        # or the last page? Page 2 (asked at this size) tells: an empty one ends the walk
        or (first.has_more is None and first.total is None)
        # ... and without has_more, meta.total says more follow: a service that clamps
        # limit silently (its meta.limit repeating the ask), or rows cut on the way, which
        # the pages asked at this size read all the same (the rows are counted against it)
        or (first.has_more is None and (first.total or 0) > len(first.items))
    ):
        served = len(first.items)
    if first.total is None:
        return served, None
    return served, first.total if limit is None else min(limit, first.total)


def pull_pages(
    fetch: Callable[[int, int], Response],
    *,
    limit: int | None,
    workers: int,
    progress: bool | None,
    desc: str,
    found: Findings,
    page_size: int = PAGE_SIZE,
    parse: Callable[[list[Any]], T] = list,  # type: ignore[assignment]
    identity: str = "id",
    pool: WorkerPool | None = None,
    lookup: Callable[[int, int], Response | None] | None = None,
    reader: Callable[[bytes], Any] | None = None,
    numbering: Numbering | None = None,
    enough: Callable[[list[Any] | pa.Array], bool] | None = None,
) -> Pages[T]:
    """Fetch every page needed for ``limit`` rows (all rows when None), checking each.

    Parameters
    ----------
    fetch : callable
        ``fetch(page, size)`` sends one request and returns the response.
    limit : int, optional
        Cap on rows; the walk stops once it is reached.
    workers : int
        Requests in flight at once (1: one after another on this thread).
    progress : bool, optional
        Progress bar for pages 2..n.
    desc : str
        Progress bar label.
    found : Findings
        Where findings about the answers are recorded.
    page_size : int
        Rows per request asked for.
    parse : callable
        ``parse(items)`` turns one page's checked items into what is kept.
    identity : str
        The item field that identifies a row (for repeated-page detection).
    pool : WorkerPool, optional
        The client's long-lived pool (used when its size equals ``workers``).
    lookup : callable, optional
        ``lookup(page, size)``: the page from the HTTP cache or None, tried on this thread
        before a page is handed to a worker (a hit is CPU work that threads only slow down).
    reader : callable, optional
        ``reader(body)``: a page as ``{"data": rows, "meta": ...}`` straight from its bytes,
        or None for a page it does not take (read as JSON then); ``parse`` gets either kind
        of rows (:func:`dealframe.frames.deal_rows.read_deal_page`).
    numbering : Numbering, optional
        A list walk's numbering of the service's pages (``fetch`` asks for the pages it
        numbers): told page 1's ``meta.page``, and, while that leaves it unsettled, settled
        by the walk's page 2, fetched alone on this thread before any page runs ahead
        (:meth:`Numbering.settle`).
    enough : callable, optional
        ``enough(ids)``, told the identities of each page read in page order: True once the
        caller has the rows it wants (the distinct rows of batches that share rows), which
        ends the walk there as ``limit`` would (:attr:`Pages.enough`; ``expected`` is then
        capped by the pages read, :attr:`Pages.held`: ``meta.total`` counted rows not asked
        for).

    Returns
    -------
    Pages

    Examples
    --------
    >>> class R:  # a stand-in response: three rows served two at a time
    ...     from_cache, attempts = False, 1
    ...     def __init__(self, page): self.page = page
    ...     def json(self):
    ...         rows = [{"id": i} for i in range(3)][(self.page - 1) * 2:self.page * 2]
    ...         return {"data": rows, "meta": {"total": 3, "has_more": self.page < 2}}
    >>> pages = pull_pages(lambda p, s: R(p), limit=None, workers=1, progress=False, desc="x",
    ...                    found=Findings("POST /x"), page_size=2)
    >>> pages.parts, pages.total
    ([[{'id': 0}, {'id': 1}], [{'id': 2}]], 3)
    """
    unread = _reading(fetch, reader, now=False)  # on a worker: see _Walk.reread
    if reader is not None:
        fetch, lookup = _reading(fetch, reader), lookup and _reading(lookup, reader)
    asked = min(page_size, limit) if limit else page_size
    cpu = time.thread_time()
    first_response = fetch(1, asked)
    busy = time.thread_time() - cpu
    walk = _Walk(found, parse, identity, limit, asked, enough, reader, numbering)
    started = time.perf_counter()
    first = walk.take(1, first_response)
    walk.pace.note(first_response, time.perf_counter() - started, busy=busy)
    if numbering is not None:
        numbering.read_first(first)
    del first_response
    served, expected = _plan(first, asked, limit, found)
    walk.size = served
    # a page 1 full at the size its meta.limit states (a service serving pages of 100) is
    # no short page; one short of it, or of the rows asked, whose has_more says more
    # follow, is: the page after it empty says that has_more was not true
    stated = served if first.limit == served else asked
    more = first.has_more is True and 0 < len(first.items) < stated
    walk.doubt = 1 if more else None
    walk.short(1, first, len(first.items))
    walk.pages.total, walk.pages.expected, walk.pages.size = first.total, expected, served
    if served < asked and first.has_more is not False and first.items:
        walk.done = walk.pages.enough or walk.limited()
    has_more = first.has_more
    del first  # its items are parsed: holding them would only make every collection longer
    if walk.done:
        return _read(walk, fetch)
    planned = min(MAX_PAGES, math.ceil(expected / served)) if expected is not None else None
    walk.planned = planned
    # page 1 says more is coming while total says it was all: follow has_more
    beyond = planned is not None and planned < 2 and bool(has_more)
    start = 2
    if numbering is not None and not numbering.known and (planned is None or planned > 1 or beyond):
        second = _second_page(walk, fetch, served, numbering)
        if walk.done:  # page 2 was the last, or its request failed: nothing more to read
            return _read(walk, fetch)
        if second is not None:  # the service's second page: the walk goes on from page 3
            start = 3
            beyond = beyond or (planned is not None and planned <= 2 and bool(second.has_more))
    _walk_rest(
        walk, fetch, unread, served, planned, workers, progress, desc, pool, lookup, beyond, start
    )
    return _read(walk, fetch)


def _read(walk: _Walk[T], fetch: Callable[[int, int], Response]) -> Pages[T]:
    """The pages of a walk that has ended; once the caller said it had ``enough``, the rows
    they should hold are at most those of the pages read (:attr:`Pages.held`). A walk ended by
    ``limit`` (or ``enough``) on a short page said to be followed by more, with no
    ``meta.total`` to tell, first asks the page after it (:func:`_settle_last`)."""
    if walk.pending is not None and (walk.pages.enough or walk.limited()):
        _settle_last(walk, fetch)
    pages = walk.pages
    read = len(pages.infos) * pages.size
    if pages.enough and pages.expected is not None and read < pages.expected:
        pages.expected, pages.held = read, True
    return pages


def _settle_last(walk: _Walk[Any], fetch: Callable[[int, int], Response]) -> None:
    """Settle the short page a walk ended on by ``limit`` (:attr:`_Walk.pending`) as a walk
    without ``limit`` does: the page after it, asked once on this thread and not kept, says
    whether rows were lost (it brings rows) or the short page was the last (it is empty). A
    request that fails tells nothing: the rows are said lost, as they may be."""
    assert walk.pending is not None
    number = walk.pending[0] + 1
    try:
        rows = walk.prepare(number, fetch(number, walk.size)).info.rows
    except DealframeError as exc:
        if closed(exc) or (isinstance(exc, FATAL_ERRORS) and not isinstance(exc, _STOPPING)):
            raise
        rows = 1
    walk.empty_after(number, rows)
    walk.settle_short(rows)


def _second_page(
    walk: _Walk[T], fetch: Callable[[int, int], Response], size: int, numbering: Numbering
) -> PageRead | None:
    """Settle ``numbering`` (not yet settled: page 1 said no ``meta.page`` 1) by the walk's
    page 2, asked as ``page: 1`` on this thread: its identities, against page 1's, tell how
    the service counts (:meth:`Numbering.settle`). Returns the page once committed as the
    walk's page 2 (the service counts from 0); None when it was dropped (page 1 again: from 1)
    or failed. A failed request settles nothing: it is the walk's failed page 2, and the walk
    ends there (guessing from 1 would read the service's third page as the walk's second on a
    service counting from 0, silently), so the call reports it as any failed page."""
    cpu = time.thread_time()
    try:
        response = fetch(2, size)
    except DealframeError as exc:
        if closed(exc) or (isinstance(exc, FATAL_ERRORS) and not isinstance(exc, _STOPPING)):
            raise
        walk.fail(2, exc)
        walk.done = True
        return None
    busy = time.thread_time() - cpu
    started = time.perf_counter()
    ready = walk.prepare(2, response)
    walk.pace.note(response, time.perf_counter() - started, busy=busy)
    del response
    mine = set(_prints(ready.ids).tolist()) - _NO_ID
    new = len(mine - (walk.known or set()))
    if not numbering.settle(new=new, of=len(mine)):
        return None
    return walk.commit(2, ready)


def read_body(content: bytes, reader: Callable[[bytes], Any] | None) -> tuple[Any, str | None]:
    """A page's body as the transport reads it (:func:`~dealframe.transport.body.parse`):
    by ``reader`` when given and it takes the body (a :class:`~dealframe.transport.body.Read`
    of its document), else as JSON; ``(None, problem)`` for a body the transport would not
    take as it is (cut short, not JSON, ``NaN`` tokens).

    Examples
    --------
    >>> read_body(b'{"data": []}', None)
    ({'data': []}, None)
    """
    if reader is None:
        return parse_body(content)
    with expecting(reader):
        return parse_body(content)


def _reading(
    call: Callable[[int, int], Any], reader: Callable[[bytes], Any] | None, *, now: bool = True
) -> Any:
    """``call`` with the page's body given to ``reader`` first, on whichever thread it runs;
    with ``now`` false, the body is left unread (:func:`~dealframe.transport.body.later`)
    unless the HTTP cache reads it to store it (with ``reader``)."""

    def read(page: int, size: int) -> Any:
        with expecting(reader) if reader is not None else nullcontext():
            if now:
                return call(page, size)
            with later():
                return call(page, size)

    return read


def _stored(
    lookup: Callable[[int, int], Response | None] | None, page: int, size: int
) -> Future[Response] | None:
    """A finished future holding the cached page, or None when there is none."""
    found = lookup(page, size) if lookup is not None else None
    if found is None:
        return None
    done: Future[Response] = Future()
    done.set_result(found)
    return done


def _prepare_arrived(walk: _Walk[Any], window: deque[tuple[int, Any]]) -> bool:
    """Check and parse the first page after the window's head that has arrived (its items
    are released at once); False when none has."""
    for i in range(1, len(window)):
        number, future = window[i]
        if isinstance(future, Future) and future.done() and future.exception() is None:
            response = walk.reread(future.result())
            if response is None:  # fetched again on this thread in its turn
                continue
            started = time.perf_counter()
            ready = walk.prepare(number, response)
            walk.pace.note(response, time.perf_counter() - started, inline=False)
            if walk.last(ready) and (walk.end is None or number < walk.end):
                walk.end = number  # no page past it is asked for (an inflated meta.total)
            window[i] = (number, ready._replace(page=replace(ready.page, items=[])))
            return True
    return False


def _keep_arrived(walk: _Walk[Any], window: deque[tuple[int, Any]]) -> list[int]:
    """At an outage stop: commit the window's pages that arrived whole (in page order), and
    return the numbers of the others (still in flight, failed or never sent). Futures still
    running stay in ``window`` for the walk's end to settle."""
    untried: list[int] = []
    running: deque[tuple[int, Any]] = deque()
    for number, slot in window:
        if isinstance(slot, _Ready):
            walk.commit(number, slot)
            continue
        if isinstance(slot, Future) and slot.done() and not slot.cancelled():
            response = walk.reread(slot.result()) if slot.exception() is None else None
            if response is not None:
                walk.take(number, response)
                continue
        elif isinstance(slot, Future):
            running.append((number, slot))
        untried.append(number)
    window.clear()
    window.extend(running)
    return untried


def _stop(
    walk: _Walk[Any],
    window: deque[tuple[int, Any]],
    error: DealframeError,
    next_page: int,
    planned: int | None,
) -> None:
    """End a walk part-way: the pages already here are kept, the others (in flight, failed,
    never sent) are failures with ``error``, so the caller's error carries what arrived."""
    untried = _keep_arrived(walk, window)
    untried += range(next_page, planned + 1 if planned is not None else 0)
    walk.pages.failed += [ItemFailure(n - 2, n, error) for n in untried]


def _walk_rest(
    walk: _Walk[T],
    fetch: Callable[[int, int], Response],
    unread: Callable[[int, int], Response],
    served: int,
    planned: int | None,
    workers: int,
    progress: bool | None,
    desc: str,
    pool: WorkerPool | None,
    lookup: Callable[[int, int], Response | None] | None = None,
    extend: bool = False,
    start: int = 2,
) -> None:
    """Pages ``start``.. of a walk (2, or 3 once page 2 was read to settle its numbering):
    ``fetch`` on this thread, ``unread`` on a worker (the body is read here:
    :meth:`_Walk.reread`); ``extend``: follow ``has_more`` past ``planned`` from the start
    (page 1 said more is coming while ``total`` said it held every row)."""
    shared = pool.executor() if pool is not None and pool.size == workers and workers > 1 else None
    own = (
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dealframe-pages")
        if shared is None and workers > 1
        else None
    )
    executor = shared or own
    # pages read before the walk went on (page 2, read to settle the numbering) are the bar's
    # initial count: not an update the moment it is made, read as a rate of thousands a second
    shown = show_progress(progress, (planned or 0) - 1 or 2)
    bar = _bar(shown, ((planned or 1) - 1) or None, desc, initial=start - 2)
    # (page, how it comes): a future (on a worker), None (fetched on this thread when due),
    # or a page already prepared while an earlier one was late
    window: deque[tuple[int, Future[Response] | _Ready | None]] = deque()
    next_page = start
    late = 0.0  # how long this thread has waited for the window's first page (on a worker)

    def wanted(page: int) -> bool:
        return (
            page <= MAX_PAGES
            and (planned is None or page <= planned or extend)
            and (walk.end is None or page <= walk.end)
        )

    def paced(page: int, size: int) -> Response:
        """``fetch`` of a page fetched alone on this thread, whose first attempt waits at most
        the walk's limit once it has one."""
        limit = walk.pace.first_limit()
        if limit is None:
            return fetch(page, size)
        with sooner(limit):
            return fetch(page, size)

    try:
        while not walk.done:
            # without a meta.total (or past it) no page is known to exist before the one
            # ahead of it has arrived: one page at a time, none asked for past the end
            ahead = (
                walk.pace.ahead(workers) if executor and planned is not None and not extend else 1
            )
            early = sum(1 for _, f in window if isinstance(f, _Ready))
            while len(window) - early < ahead and wanted(next_page):
                coming = _stored(lookup, next_page, served) if ahead > 1 else None
                if coming is None and ahead > 1 and executor is not None:
                    # pages in flight together answer more slowly than pages fetched alone,
                    # on which the walk's limit is measured: the transport's rule applies
                    coming = submit(executor, unread, next_page, served)
                window.append((next_page, coming))
                next_page += 1
            if not window:
                break
            head = window[0][1]
            if isinstance(head, Future) and not head.done():
                # The next page is late: parse later pages that have arrived meanwhile
                # (each in a window slot of its own, so the workers go on fetching).
                if not _prepare_arrived(walk, window):
                    pending = [f for _, f in window if isinstance(f, Future) and not f.done()]
                    waiting = time.perf_counter()
                    wait(pending, return_when=FIRST_COMPLETED)
                    late += time.perf_counter() - waiting
                continue
            number, slot = window.popleft()
            # how long this thread waited for a page in flight on a worker: the pace's measure
            waited = late if isinstance(slot, Future) else None
            late = 0.0
            if isinstance(slot, _Ready):  # parsed while an earlier page was late
                if bar is not None:
                    bar.update(1)
                has_more = walk.commit(number, slot).has_more
            else:
                cpu = time.thread_time()
                try:
                    got = slot.result() if slot is not None else None
                    response = walk.reread(got) if got is not None else None
                    if response is None and got is not None:  # judged by the transport here
                        with resume(got):  # (see reread): sent again only if its retries allow
                            response = paced(number, served)
                    elif response is None:
                        response = paced(number, served)
                except _STOPPING as exc:  # a token expired part-way: every later page fails alike
                    walk.pages.failed.append(ItemFailure(number - 2, number, exc))
                    _stop(walk, window, exc, next_page, planned)
                    break
                except FATAL_ERRORS:
                    raise
                except DealframeError as exc:
                    if closed(exc):
                        raise  # closed from another thread: every later page would fail alike
                    # the service is down, or asked this client to wait longer than it waits
                    # (no request of it goes out before then): the rest is not tried
                    if walk.fail(number, exc) or held_back(exc):
                        _stop(walk, window, exc, next_page, planned)
                        break
                    continue
                finally:
                    if bar is not None:
                        bar.update(1)
                busy = time.thread_time() - cpu
                started = time.perf_counter()
                page = walk.take(number, response)
                walk.pace.note(
                    response,
                    time.perf_counter() - started,
                    inline=slot is None,
                    busy=busy,
                    waited=waited if getattr(got, "read", None) is LATER else None,
                    flight=ahead,
                )
                del response
                has_more = page.has_more
                del page  # parsed: the JSON objects go now, not when the next page is parsed
            if planned is not None and number >= planned and not walk.done and has_more:
                extend = True  # total was short of the truth: follow has_more
        if next_page > MAX_PAGES and not walk.done:
            walk.found.add("count_mismatch", f"paging did not end after {MAX_PAGES} pages: stopped")
    finally:
        for _, left in window:
            if isinstance(left, Future):
                left.cancel()
        for _, left in window:
            if isinstance(left, Future) and not left.cancelled():
                try:
                    left.result()
                except BaseException:
                    pass
        if own is not None:
            own.shutdown(wait=True)
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.returned()  # on this (the caller's) thread: see WorkerPool
