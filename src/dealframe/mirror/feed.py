"""Reading the change feed without losing a row: a keyset walk over ``updated_at``.

Offset pages of ``sort=updated_at:asc`` are unsafe while data changes: a record
updated between two page reads moves to the end and every later row shifts one
place left, so the row on the page boundary is never returned. This walk does
not page by offset. Each request asks for the **first** page of
``updated_at >= cursor`` and the next cursor is the last timestamp received:

* every request is one consistent snapshot of the rows it returns, so all rows
  whose timestamp is below the next cursor are in it (at their version at that
  moment);
* a record changed after a request gets a timestamp at or above the clock at that
  moment, hence at or above the next cursor, so a later request (or the next
  sync, which starts at the checkpoint) returns it;
* rows sharing the cursor's timestamp are asked for again (``>=``) and the later
  read wins, so nothing on a timestamp boundary is lost or doubled.

Only when a whole page shares one timestamp (a "tie" larger than a page) does
the walk fall back to offset pages of that timestamp, read one at a time; a row
leaving the tie while it is read (seen again later with a newer timestamp), or
the total of the tie's query changing, marks the walk unstable from that
timestamp, and the caller reads again from there.

The walk is pure logic over a ``fetch(since, page)`` function; :func:`client_fetch`
is the only I/O. The page size is the service's to bound (the interface document does not
say): a ``limit`` refused as too large (400, 413 or 422 naming ``limit``) is asked again at
the bound the refusal states, as the client's list calls do
(:meth:`~dealframe.private.api.PrivateApi.deals`), and said in the sync's report. A page
holding fewer rows than it says (:func:`rows_lost`) is asked once more: whole then, it is said
once per entity as no rows missing (:attr:`ClientFetch.whole_again`); short again, the walk
stops with a :class:`~dealframe.errors.ServiceContractError`, nothing committed.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import (
    ApiError,
    BadRequestError,
    RequestInfo,
    ServiceContractError,
    ValidationError,
)
from ..notices import ServiceContractWarning, findings_held, holding, user_stacklevel
from ..transport.refusals import TOO_LARGE
from .ids import KeyIndex, id_keys
from .schema import ABSENT, absent_columns, api_entity

__all__ = [
    "ClientFetch",
    "Fetch",
    "FeedWalk",
    "client_fetch",
    "rows_lost",
    "said_values",
    "values_noted",
    "warn_held",
    "PAGE_SIZE",
]

#: How the client's page says fields absent from every item end (a frame's columns null), and
#: how the mirror says it: a row marked deleted keeps the values last read (:mod:`.absent`).
_NULL_COLUMNS = "(their columns are null)"
_MIRROR_COLUMNS = (
    "(in the mirror's table: kept as last read in rows marked deleted, tombstones; null in others)"
)

#: The ``unknown_value`` findings of the change feed's pages, noted (:func:`values_noted`).
_VALUES_NOTED: ContextVar[list[str] | None] = ContextVar(
    "dealframe_feed_values_noted", default=None
)
#: How :func:`~dealframe.contract.outside_vocabulary` says a field's values, and each value.
_OUTSIDE = re.compile(
    r"(?P<head>.+?) in (?P<odd>[\d,]+) of (?P<rows>[\d,]+) rows: (?P<shown>.*?)"
    r"(?P<more> and [\d,]+ more)? (?P<tail>\(rows kept, [^()]*\))"
)
_SHOWN = re.compile(r"(?P<value>.+?) \((?P<n>[\d,]+)(?P<rest>(?:; [^()]*)?)\)(?:, |$)")
#: A finding's ``where`` naming its page (``POST /x page 3``): the page is left out of a
#: ``bad_meta`` said once per sync.
_PAGE_NAMED = re.compile(r" page \d+$")
#: How a ``meta.page`` other than the page asked names the page
#: (:func:`~dealframe.private.paging.say_wrong_page`): left out when a sync's pages are
#: compared, so that its first page's words say it once, whatever page each asked.
_PAGE_ASKED = re.compile(r"\((?:page=\d+|no page \(the first\)) asked, meta\.page [^)]*\)")

#: Rows per request: the service's upper bound of ``limit``.
PAGE_SIZE = 1000
#: The findings of a feed query the discovery document refuses (its ``updated_at`` sort key,
#: ``updated_at >=`` filter or ``include_deleted`` filter not listed): raised before the feed
#: request, carrying the document's request.
QUERY_REFUSED = frozenset({"sort_unlisted", "filter_unlisted"})
#: The attrs of a page that :class:`FeedWalk` reads (:meth:`FeedWalk._last`).
_WALK_ATTRS = ("total", "limit", "has_more")
#: How far before the cursor a walk asks on a service that reads ``updated_at`` as ``gt``.
_MICROSECOND = pd.Timedelta(microseconds=1)

#: ``fetch(since, page) -> (frame, total)``: one page of ``updated_at >= since`` (all rows when
#: None), include_deleted, sorted ``updated_at:asc``; ``total`` is the query's row count (None
#: when the answer does not say).
Fetch = Callable[[pd.Timestamp | None, int], tuple[pd.DataFrame, int | None]]


@dataclass
class ClientFetch:
    """A :data:`Fetch` sending change-feed requests with ``client`` (never cached).

    It asks for ``size`` rows a page: ``page_size``, or less when the client has already met
    a service that refuses it; and page numbers as the service counts them (from 0 once the
    client has seen it do so). A page refused with an error about ``limit`` is asked again
    smaller (the client's own rule: the bound the error states, else half), and the client
    keeps that size for its later calls; :attr:`refused` says what happened. A page whose
    findings say rows of it are missing (:func:`rows_lost`) is asked once more, and a page
    short again is a :class:`~dealframe.errors.ServiceContractError`: the walk stops before
    anything of the entity is committed.

    Attributes
    ----------
    size : int
        Rows asked for per page now.
    refused : list of str
        Each refusal of a page size, and the size then used.
    from_0 : str or None
        Set when a query's page 1 came back empty while its total said rows exist and page 0
        held them (a service counting ``page`` from 0: every page 1 read so far was its
        second page). The client then counts from 0, and the caller reads the walk again.
    again : int
        Pages asked once more because the first answer was short of rows.
    whole_again : list of str
        What each page asked once more and whole the second time held the first time (the
        first answer's own warnings are not said: nothing of it was kept).
    origin : int
        The service's number of a query's first page, as this fetch counts: taken from the
        client when the fetch is made and changed only by this fetch's own finding, so a list
        call on another thread that learns it meanwhile cannot renumber a walk half read.
    """

    client: Any
    entity: str
    size: int = PAGE_SIZE
    refused: list[str] = field(default_factory=list)
    from_0: str | None = None
    again: int = 0
    whole_again: list[str] = field(default_factory=list)
    origin: int = field(init=False)

    def __post_init__(self) -> None:
        self.name = api_entity(self.entity)
        self.origin = self.client.private._first_page  # 0 once the service is seen doing so
        known = getattr(self.client.private, "_list_page_size", self.size)
        self.size = min(self.size, known)  # what this client has learnt of the service

    def __call__(self, since: pd.Timestamp | None, page: int) -> tuple[pd.DataFrame, int | None]:
        filters: dict[str, Any] = {"include_deleted": True}
        if since is not None:
            filters["updated_at"] = {"gte": since.isoformat()}
        frame = self._page(filters, page - 1 + self.origin)
        total = frame.attrs.get("total")
        if page == 1 and self.origin == 1 and not len(frame) and total:
            # page 1 of a query empty while its total says rows exist: does the service count
            # from 0 (its page 1 is the second page)? Then page 0 holds the rows.
            try:
                first = self._page(filters, 0)
            except BadRequestError:  # it counts from 1 (the walk ends as before)
                first = frame
            if len(first):
                self.origin = self.client.private._first_page = 0  # later pages and calls too
                self.from_0 = (
                    f"page 1 of a query of {total} rows was empty and page 0 held "
                    f"{len(first)}: the service counts page from 0; the walk was read again"
                )
                frame, total = first, first.attrs.get("total")
        self._check_ids(frame, page - 1 + self.origin)
        self._check_deleted(frame, page - 1 + self.origin)
        self._mark_absent(frame)
        # what the walk reads of the page's attrs: pandas copies them deeply into every column
        # and slice taken of it (a page's findings and absent ids among them), all said by now
        frame.attrs = {k: frame.attrs[k] for k in _WALK_ATTRS if k in frame.attrs}
        return frame, None if total is None else int(total)

    def _mark_absent(self, frame: pd.DataFrame) -> None:
        """Name, in the :data:`~dealframe.mirror.schema.ABSENT` column, the table columns each
        row's item lacked (absent, not null: the page's ``attrs["absent"]``), so that the
        merge keeps the values last read there in a row marked deleted (:mod:`.absent`); rows
        that lacked none hold an empty tuple. No column when every item held every documented
        field."""
        absent = frame.attrs.get("absent")
        if not absent or not len(frame):
            return
        lacked: dict[str, list[str]] = {}
        for name, ids in absent.items():
            for ident in ids:
                lacked.setdefault(ident, []).append(name)
        marks = np.empty(len(frame), dtype=object)  # tuples, one per row (not a 2-D array)
        for row, ident in enumerate(frame["id"].tolist()):
            marks[row] = absent_columns(self.entity, lacked[ident]) if ident in lacked else ()
        frame[ABSENT] = marks

    def _check_ids(self, frame: pd.DataFrame, page: int) -> None:
        """Refuse a page holding items without an ``id`` (absent, null or empty): the table
        merges rows by id, so such a row can be neither upserted nor told from another; the
        walk stops before anything is committed."""
        if not len(frame):
            return
        ids = frame["id"] if "id" in frame.columns else pd.Series([None] * len(frame))
        missing = ids.isna().to_numpy()
        empty = (isinstance(v, str) and not v for v in ids.tolist())  # no object copy of ids
        missing = missing | np.fromiter(empty, dtype=bool, count=len(ids))
        if not missing.any():
            return
        first = int(missing.argmax()) + 1
        raise ServiceContractError(
            200,
            f"the change feed of {self.entity} (POST /api/private/v1/{self.name}, page {page}): "
            f"{int(missing.sum())} of {len(frame)} items have no id (the first is item "
            f"{first}); a row without an id cannot be merged into the mirror's table",
            finding="missing_identity",
        )

    def _check_deleted(self, frame: pd.DataFrame, page: int) -> None:
        """Refuse a page holding items whose ``deleted`` is absent or null: the mirror keeps
        soft-deleted rows flagged, and a row whose deletion state is unknown can be stored
        neither as live nor as deleted (:func:`~dealframe.mirror.load` and
        :func:`~dealframe.mirror.status` would disagree on it); the walk stops before
        anything is committed."""
        if not len(frame):
            return
        flags = frame["deleted"] if "deleted" in frame.columns else pd.Series([None] * len(frame))
        missing = flags.isna().to_numpy()
        if not missing.any():
            return
        ids = frame["id"][missing].head(3).tolist() if "id" in frame.columns else []
        raise ServiceContractError(
            200,
            f"the change feed of {self.entity} (POST /api/private/v1/{self.name}, page {page}): "
            f"{int(missing.sum())} of {len(frame)} items have no deleted flag (absent or null; "
            f"the first ids: {', '.join(map(str, ids))}); a row whose deletion state is unknown "
            "cannot be merged into the mirror's table",
            finding="missing_field",
        )

    def _page(self, filters: dict[str, Any], page: int) -> pd.DataFrame:
        """One page (as the service numbers it), whole: a page whose findings say rows of it
        are missing (:func:`rows_lost`) is asked once more; still short, the walk stops
        before anything is committed (the rows lost cannot be named, and a checkpoint moved
        past them would never read them again)."""
        with findings_held() as first_said:  # this thread's only: held until the page is
            frame = self._ask(filters, page)  # known whole (kept) or not (dropped)
        lost = rows_lost(frame)
        if not lost:
            warn_held(first_said, frame)
            return frame
        self.again += 1
        since = filters.get("updated_at", {}).get("gte")
        query = "every record" if since is None else f"updated_at >= {since}"
        with findings_held() as again_said:  # said once the page asked again is kept
            again = self._ask(filters, page)
        still = rows_lost(again)
        if not still:
            warn_held(again_said, again)
            self.whole_again.append(
                f"page {page} of {query}: {'; '.join(f['message'] for f in lost)}; asked once "
                f"more, it held all {len(again)} rows"
            )
            return again
        raise ServiceContractError(
            200,
            f"the change feed of {self.entity} (POST /api/private/v1/{self.name}, page {page} "
            f"of {query}) is missing rows: {'; '.join(f['message'] for f in lost)}; asked once "
            f"more: {'; '.join(f['message'] for f in still)}. Which records are missing cannot "
            "be told, and a checkpoint moved past them would never read them again",
            finding=str(still[0]["kind"]),
            details={"findings": still},
        )

    def _ask(self, filters: dict[str, Any], page: int) -> pd.DataFrame:
        """One page (as the service numbers it); a page size refused is asked again smaller."""
        while True:
            try:
                return self.client.private.page(
                    self.name,
                    filters,
                    sort="updated_at:asc",
                    page=page,
                    limit=self.size,
                    cache=False,
                )
            except ValidationError as exc:  # checked against the discovery document
                said = self._unlisted(exc, filters)
                if said is None:
                    raise
                raise ServiceContractError(
                    200,
                    f"the service's discovery document {said}",
                    finding="sort_unlisted" if exc.argument == "sort" else "filter_unlisted",
                    request=RequestInfo("GET", f"/api/private/v1/lookup/{self.name}", "private"),
                ) from None
            except ApiError as exc:  # is it the page size? (the list calls' own rule)
                if exc.status not in TOO_LARGE:
                    raise
                said = self.client.private._page_refused(exc, self.size)
                if said is None and "sort" in str(exc).lower():
                    raise ServiceContractError(
                        exc.status,
                        f"the service refused sort=updated_at:asc ({exc}): the change feed "
                        "cannot be read in updated_at order, which the walk needs",
                        finding="sort_refused",
                    ) from None
                if said is None:
                    raise
                self.refused.append(said)
                self.size = min(self.size, self.client.private._list_page_size)

    @staticmethod
    def _unlisted(error: ValidationError, filters: dict[str, Any]) -> str | None:
        """What the discovery document lacks that the walk's query needs, when ``error`` (the
        client's check of that query against the document) is of a part the walk builds
        itself, the ``updated_at:asc`` sort, the ``updated_at >=`` filter (sent past the walk's
        first page, and from its first request on an incremental sync) or
        ``include_deleted``: the service's document, not any argument of the user's; None for
        another argument.

        Examples
        --------
        >>> since = {"updated_at": {"gte": "2026-06-30T00:00:00+00:00"}}
        >>> print(ClientFetch._unlisted(ValidationError("sort", "a sort key among name"), {}))
        lists no updated_at among the sort keys (a sort key among name): the change feed cannot be read in updated_at order, which the walk needs
        >>> print(ClientFetch._unlisted(ValidationError("sort", "a sort key among "), {}))
        lists no updated_at among the sort keys (none listed): the change feed cannot be read in updated_at order, which the walk needs
        >>> print(ClientFetch._unlisted(
        ...     ValidationError("updated_at", "a filter; valid: id, name", got="updated_at"), since))
        lists no updated_at filter (its filters: id, name): the change feed cannot be read from a cursor (updated_at >= 2026-06-30T00:00:00+00:00), which the walk needs past its first page, and an incremental sync from its first request
        >>> print(ClientFetch._unlisted(
        ...     ValidationError("updated_at", "one of the operators ", got="gte"), since))
        lists no gte operator for its updated_at filter (none listed): the change feed cannot be read from a cursor (updated_at >= 2026-06-30T00:00:00+00:00), which the walk needs past its first page, and an incremental sync from its first request
        >>> print(ClientFetch._unlisted(ValidationError(
        ...     "include_deleted", "a filter; valid: id", got="include_deleted"), {"include_deleted": True}))
        lists no include_deleted filter (its filters: id): the change feed cannot be read with the records deleted on the service, which the walk needs to flag them in the mirror
        """
        if error.argument == "sort":
            keys = error.expected.removeprefix("a sort key among ").strip()
            listed = error.expected if keys else "none listed"
            return (
                f"lists no updated_at among the sort keys ({listed}): the change feed cannot be "
                "read in updated_at order, which the walk needs"
            )
        name = error.argument
        if name not in ("updated_at", "include_deleted") or name not in filters:
            return None
        got = getattr(error, "got", None)
        prefix = "one of the operators "
        if name == "updated_at" and got == "gte" and error.expected.startswith(prefix):
            listed = error.expected[len(prefix) :].strip() or "none listed"
            lacks = f"no gte operator for its updated_at filter ({listed})"
        elif got == name:
            listed = error.expected.partition("valid: ")[2].strip()
            lacks = f"no {name} filter (its filters: {listed or 'none listed'})"
        else:  # the filter listed, but typed so that the walk's value is refused
            taken = "a timestamp" if name == "updated_at" else "true"
            lacks = f"an {name} filter that does not take {taken} ({error})"
        if name == "include_deleted":
            return (
                f"lists {lacks}: the change feed cannot be read with the records deleted on the "
                "service, which the walk needs to flag them in the mirror"
            )
        since = filters["updated_at"].get("gte")
        return (
            f"lists {lacks}: the change feed cannot be read from a cursor (updated_at >= "
            f"{since}), which the walk needs past its first page, and an incremental sync from "
            "its first request"
        )


def values_noted() -> AbstractContextManager[list[str]]:
    """Within it, the values outside a vocabulary that the change feed's pages hold
    (``unknown_value`` findings, :func:`warn_held`) are not warned page by page: each
    finding's message is noted in the list yielded, for the caller to say once per field
    (:func:`said_values`); so is a ``meta`` the pages contradict (``bad_meta``), once, of
    the endpoint. It holds for the current thread or task only."""
    return holding(_VALUES_NOTED, [])


def said_values(noted: list[str]) -> list[str]:
    """The ``unknown_value`` messages ``noted`` of many pages (:func:`values_noted`), one per
    field and vocabulary, their rows and each value's rows summed over the pages; a message
    not read so is kept as it is (once).

    Examples
    --------
    >>> tail = "(rows kept, the values as they came: they match none of the vocabulary's)"
    >>> said_values([
    ...     f"deal_type outside the document's list in 2 of 3 rows: 'VENTURE' (2) {tail}",
    ...     f"deal_type outside the document's list in 5 of 5 rows: 'X' (1), 'VENTURE' (4) {tail}",
    ... ])  # doctest: +NORMALIZE_WHITESPACE
    ["deal_type outside the document's list in 7 of 8 rows (2 pages): 'VENTURE' (6), 'X' (1)
      (rows kept, the values as they came: they match none of the vocabulary's)"]
    """
    fields: dict[str, tuple[list[int], Counter[str], dict[str, str], str, bool]] = {}
    kept: list[str] = []
    for message in noted:
        read = _OUTSIDE.fullmatch(message)
        values = list(_SHOWN.finditer(read["shown"])) if read else []
        if read is None or "".join(v[0] for v in values) != read["shown"]:
            if message not in kept:
                kept.append(message)
            continue
        counts, odd, rests, tail, more = fields.setdefault(
            read["head"], ([0, 0, 0], Counter(), {}, read["tail"], False)
        )
        counts[0] += int(read["odd"].replace(",", ""))
        counts[1] += int(read["rows"].replace(",", ""))
        counts[2] += 1
        for value in values:
            odd[value["value"]] += int(value["n"].replace(",", ""))
            rests.setdefault(value["value"], value["rest"])
        if read["more"]:
            fields[read["head"]] = (counts, odd, rests, tail, True)
    said = []
    for head, ((n, rows, pages), odd, rests, tail, more) in fields.items():
        top = odd.most_common(5)
        shown = ", ".join(f"{value} ({count:,}{rests[value]})" for value, count in top)
        if more or len(odd) > 5:
            shown += " and more"
        in_pages = f" ({pages:,} pages)" if pages > 1 else ""
        said.append(f"{head} in {n:,} of {rows:,} rows{in_pages}: {shown} {tail}")
    return said + kept


def warn_held(said: list[str], frame: pd.DataFrame, *, absent: bool = True) -> None:
    """Warn the findings held (:func:`~dealframe.notices.findings_held`) of the page ``frame``
    of the change feed, at the user's line: those of fields absent from every item (the
    page's ``missing_field`` findings, ``attrs["findings"]``) say what the mirror's table
    holds there rather than the client's frame (``absent``), or are dropped (``absent`` False:
    a count request, whose one item is no row of the table). Those of rows outside the
    filters (``unrequested``) are dropped: a feed page's row below its cursor stops the walk
    with its own error (``filter_ignored``), and a count request is the sync's, not the
    user's (the counts compared say what differs).

    Examples
    --------
    >>> frame = pd.DataFrame({"id": ["a"]})
    >>> frame.attrs["findings"] = [{"kind": "missing_field", "where": "POST /x",
    ...                             "message": "absent from all 1 items: website"}]
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_held(["POST /x: absent from all 1 items: website"], frame, absent=False)
    >>> seen
    []
    """
    records = [r for r in frame.attrs.get("findings") or () if isinstance(r, dict)]
    lacking = {
        f"{r.get('where')}: {r.get('message')}" for r in records if r.get("kind") == "missing_field"
    }
    outside = {
        f"{r.get('where')}: {r.get('message')}" for r in records if r.get("kind") == "unrequested"
    }
    valued = {
        f"{r.get('where')}: {r.get('message')}": str(r.get("message"))
        for r in records
        if r.get("kind") == "unknown_value"
    }
    # a meta every page says alike (no total nor has_more ...): once per sync, of the
    # endpoint, not of each page (its words are the same on every page of every query)
    meta = {
        f"{r.get('where')}: {r.get('message')}": f"{_PAGE_NAMED.sub('', str(r.get('where')))}: "
        f"{r.get('message')}"
        for r in records
        if r.get("kind") == "bad_meta"
    }
    noted = _VALUES_NOTED.get()
    for message in said:
        if message in outside:
            continue
        if message in meta and noted is not None:
            # said_values keeps it once, as it is (a wrong meta.page: as its first page says)
            said_once = _PAGE_ASKED.sub("", meta[message])
            if all(_PAGE_ASKED.sub("", each) != said_once for each in noted):
                noted.append(meta[message])
            continue
        if message in valued and not absent:  # a count request's one row: the pages say it
            continue
        if message in valued and noted is not None:  # said once per field (said_values)
            noted.append(valued[message])
            continue
        if message in lacking:
            if not absent:
                continue
            message = (
                message.replace(_NULL_COLUMNS, _MIRROR_COLUMNS)
                if _NULL_COLUMNS in message
                else f"{message} {_MIRROR_COLUMNS}"
            )
        warnings.warn(message, ServiceContractWarning, stacklevel=user_stacklevel())


def rows_lost(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The findings of a page (``attrs["findings"]``, :mod:`dealframe.contract`) that say rows
    of it may be missing: any that counts rows lost (``count_mismatch``: fewer items than
    ``meta.returned``; ``wrong_shape``: items that are not objects, dropped), and
    ``wrong_shape`` of a ``data`` that is not a list (read as no rows).

    Examples
    --------
    >>> page = pd.DataFrame({"id": ["a"]})
    >>> page.attrs["findings"] = [
    ...     {"kind": "numbers_as_text", "message": "...", "shortfall": 0},
    ...     {"kind": "count_mismatch", "message": "meta.returned says 3 rows, the page holds 1",
    ...      "shortfall": 2},
    ... ]
    >>> [f["kind"] for f in rows_lost(page)]
    ['count_mismatch']
    """
    return [
        f
        for f in frame.attrs.get("findings") or ()
        if isinstance(f, dict) and (f.get("shortfall") or f.get("kind") == "wrong_shape")
    ]


def client_fetch(client: Any, entity: str, page_size: int = PAGE_SIZE) -> ClientFetch:
    """A :data:`Fetch` sending change-feed requests with ``client`` (:class:`ClientFetch`).

    Examples
    --------
    >>> fetch = client_fetch(client, "deals")  # doctest: +SKIP
    >>> frame, total = fetch(None, 1)  # doctest: +SKIP
    """
    return ClientFetch(client, entity, page_size)


@dataclass
class FeedWalk:
    """Iterate over the frames of one walk from ``since``; then read the outcome.

    Parameters
    ----------
    fetch : Fetch
        One page of the feed.
    since : Timestamp, optional
        Lower bound (inclusive); None reads everything.
    page_size : int
        Rows the fetch asks for (a page shorter than what the service served, with the
        query's total reached, ends the walk).
    until : Timestamp, optional
        No checkpoint past this time (the sync's start by this machine's clock, plus the
        overlap): a row stamped after it (a clock ahead of the others) does not move the
        checkpoint, and is read again by the next walk.

    Attributes
    ----------
    checkpoint : Timestamp or None
        Where the next walk may start: the newest timestamp of the last snapshot read (not
        past ``until``).
    ahead : int
        Rows stamped after ``until``; ``newest`` is the newest of those stamps.
    unstable_from : Timestamp or None
        Set when a tie was read while it changed: read again from here.
    strict : str or None
        Set (to what was seen) when the service reads ``updated_at`` as strictly after
        the timestamp sent: the walk then sends 1 µs before each cursor. Given, it is kept.
    requests, rows, total : int
        Requests sent, rows yielded, and the first response's total (for progress).
    at_cursor, at_page : Timestamp or None, int
        The request made last (or being made): page ``at_page`` of ``updated_at >=
        at_cursor`` (every record when None), for an error to say where the walk stopped.

    Examples
    --------
    >>> walk = FeedWalk(fetch, since=None)  # doctest: +SKIP
    >>> for frame in walk: ...  # doctest: +SKIP
    >>> walk.checkpoint  # doctest: +SKIP
    """

    fetch: Fetch
    since: pd.Timestamp | None = None
    page_size: int = PAGE_SIZE
    until: pd.Timestamp | None = None
    checkpoint: pd.Timestamp | None = None
    ahead: int = 0
    newest: pd.Timestamp | None = None
    _kept: pd.Timestamp | None = None  # the newest stamp not after `until`
    unstable_from: pd.Timestamp | None = None
    requests: int = 0
    rows: int = 0
    total: int | None = None
    strict: str | None = None
    at_cursor: pd.Timestamp | None = None
    at_page: int = 0
    #: the ids read in ties (:mod:`.ids`: 64 bits of each, 16 bytes with their tie's stamp, in
    #: ns): a row leaving a tie while it is read is seen again at its new stamp, often at the
    #: walk's end, so they are kept for the whole walk (an id taken for another costs a pass)
    _tie_ids: KeyIndex = field(default_factory=lambda: KeyIndex(exact=False))
    _tie_stamps: dict[int, pd.Timestamp] = field(default_factory=dict)

    def __iter__(self) -> Iterator[pd.DataFrame]:
        cursor, page = self.since, 1
        held: pd.DataFrame | None = None  # rows on the last timestamp, not yet yielded
        tie_total: int | None = None
        probed = False  # a tie's page 1 was asked again to tell `>` from `>=` (once a walk)
        while True:
            frame, total = self._fetch(self._bound(cursor), page)
            self.requests += 1
            # a fetch that was refused its page size asks for fewer rows now (ClientFetch)
            self.page_size = min(self.page_size, getattr(self.fetch, "size", self.page_size))
            if self.total is None:
                self.total = total
            if self.strict is None and cursor is not None and held is not None and len(held):
                # rows stamped at the cursor were just served: `>=` serves them again
                again = frame if page == 1 else None
                if again is None and total != tie_total and not probed:
                    probed = True  # a tie's query changed, or `>` left the tie out: ask page 1
                    again = self._fetch(cursor, 1)[0]
                    self.requests += 1
                if again is not None and self._strictly_after(again, cursor, held):
                    page, tie_total = 1, None  # again, from 1 µs before the cursor
                    continue
            stamps = frame["updated_at"]
            self._check_order(stamps, self._bound(cursor), page)
            self._check_moves(frame)
            if page > 1 and held is not None and len(frame) and _among(frame, held).all():
                raise ServiceContractError(  # it ignores `page`: an offset walk would not end
                    200,
                    f"page {page} of the rows changed at {cursor} repeats an earlier page (the "
                    "service ignores page): more rows share that timestamp than a page holds, "
                    "and they cannot be read",
                    finding="repeated_page",
                )
            if held is not None and len(held):
                held = _without(held, _among(held, frame))  # the later read wins
            if page > 1 and total != tie_total:
                self._unstable(cursor)  # rows entered the tie's query while it was read
            if self._last(frame, page, total):  # everything from the cursor is seen
                yield from self._emit(held, frame)
                self.checkpoint = stamps.max() if len(frame) else cursor
                if self.ahead:  # not past `until`: those rows are read again next time
                    self.checkpoint = self._kept if self._kept is not None else self.since
                return
            last = stamps.iloc[-1]
            if stamps.iloc[0] == last:  # a whole page on one timestamp: offset pages of it
                self._tied(frame["id"].tolist(), last)
                if cursor != last:  # a new tie: the rows held on the previous timestamp are done
                    yield from self._emit(held, None)
                    held = frame
                    if page > 1:  # read the new tie from its own first page: one snapshot
                        cursor, page, tie_total = last, 1, None
                        continue
                    cursor, tie_total = last, total
                else:
                    if page == 1:
                        tie_total = total
                    held = frame if held is None else pd.concat([held, frame], ignore_index=True)
                page += 1
                continue
            # the rows on the last timestamp: the page's tail (its stamps ascend, checked)
            cut = int((stamps == last).to_numpy().argmax())
            yield from self._emit(held, frame.iloc[:cut])
            held = frame.iloc[cut:]
            cursor, page, tie_total = last, 1, None

    def _fetch(self, cursor: pd.Timestamp | None, page: int) -> tuple[pd.DataFrame, int | None]:
        """:attr:`fetch`, the request noted first (:attr:`at_cursor`, :attr:`at_page`)."""
        self.at_cursor, self.at_page = cursor, page
        return self.fetch(cursor, page)

    def where(self) -> str:
        """The request made last, in words (``page 1 of updated_at >= 2026-06-30T...``).

        Examples
        --------
        >>> FeedWalk(lambda since, page: (None, None)).where()
        'no page asked yet'
        """
        if not self.at_page:
            return "no page asked yet"
        of = (
            "every record"
            if self.at_cursor is None
            else f"updated_at >= {self.at_cursor.isoformat()}"
        )
        return f"page {self.at_page} of {of}"

    def _bound(self, cursor: pd.Timestamp | None) -> pd.Timestamp | None:
        """The ``updated_at`` sent for ``cursor``: 1 µs before it on a service seen reading the
        filter as strictly after (``gt``), so that the rows at the cursor come back."""
        if cursor is None or self.strict is None:
            return cursor
        return cursor - _MICROSECOND

    def _strictly_after(
        self, frame: pd.DataFrame, cursor: pd.Timestamp, held: pd.DataFrame
    ) -> bool:
        """Whether page 1 of ``updated_at >= cursor`` left out every row stamped ``cursor``
        the walk has just received (``held``): the service reads the filter as ``gt``, and
        the rows at the cursor past the page's end would never be read. Sets :attr:`strict`."""
        if _among(frame, held).any() or (len(frame) and frame["updated_at"].iloc[0] <= cursor):
            return False
        self.strict = (
            f"page 1 of updated_at >= {cursor.isoformat()} left out the {len(held)} row(s) "
            "stamped at that time it had just served: the service reads the filter as "
            "strictly after, or those rows changed again meanwhile (a newer stamp); the walk "
            "asked from 1 microsecond before each cursor (nothing lost either way)"
        )
        return True

    def _last(self, frame: pd.DataFrame, page: int, total: int | None) -> bool:
        """Whether this page ends the query. A service may serve fewer rows per page than
        asked (the document gives no upper bound of ``limit``): a short page is the last
        only when it is shorter than the page size it served (``meta.limit``), ``has_more``
        does not say otherwise and the query's ``total`` is reached. Without ``total`` and
        ``has_more`` nothing says a short page is the last: the walk goes on (from the last
        timestamp) until a page is empty. An empty page is always the last (no walk can go
        on forever on a service that miscounts)."""
        if not len(frame):
            return True
        if total is None:
            return frame.attrs.get("has_more") is False
        served = frame.attrs.get("limit")
        if not isinstance(served, int) or isinstance(served, bool) or served < 1:
            served = self.page_size
        served = min(served, self.page_size)
        if frame.attrs.get("has_more") is True:
            return False
        return len(frame) < served and (page - 1) * served + len(frame) >= total

    def _emit(self, held: pd.DataFrame | None, frame: pd.DataFrame) -> Iterator[pd.DataFrame]:
        for part in (held, frame):
            if part is not None and len(part):
                self.rows += len(part)
                self._note(part["updated_at"])
                rows = part.reset_index(drop=True)
                rows.attrs = {}  # the page's, read by now: pandas copies them into each column
                yield rows

    def _note(self, stamps: pd.Series) -> None:
        """Count the rows stamped after ``until``; keep the newest stamp not after it."""
        if self.until is None:
            return
        late = (stamps > self.until).to_numpy()
        if late.any():
            self.ahead += int(late.sum())
            top = stamps[late].max()
            self.newest = top if self.newest is None else max(self.newest, top)
        if not late.all():
            top = stamps[~late].max()
            self._kept = top if self._kept is None else max(self._kept, top)

    def _check_order(self, stamps: pd.Series, cursor: pd.Timestamp | None, page: int) -> None:
        """Every page must hold rows of ``updated_at >= cursor`` in ascending order: the next
        cursor is the page's last stamp, so a page in another order (the sort ignored, or
        descending) would skip rows for good, and rows below the cursor (the filter ignored)
        would make the walk ask for the same rows again forever. With both checked, each
        request moves the cursor forward, or the page number within one timestamp."""
        if not len(stamps) or (
            stamps.is_monotonic_increasing and (cursor is None or stamps.iloc[0] >= cursor)
        ):
            return
        query = "the change feed's page" if cursor is None else f"updated_at >= {cursor}: page"
        finding, at = "unsorted_feed", int(stamps.isna().to_numpy().argmax())
        if stamps.isna().any():
            finding, said = "missing_field", "has no updated_at, and the walk cannot place it"
        elif not stamps.is_monotonic_increasing:
            at = int((stamps.diff() < pd.Timedelta(0)).to_numpy().argmax())
            said = (
                f"is stamped {stamps.iloc[at]} after a row stamped {stamps.iloc[at - 1]}: the "
                "page is not in the updated_at:asc order asked for (the service ignores or "
                "reverses the sort), and the walk would skip rows"
            )
        else:
            finding = "filter_ignored"
            said = (
                f"is stamped {stamps.iloc[0]}, below the cursor: the service ignores the "
                "updated_at filter, and the walk would ask for the same rows forever"
            )
        raise ServiceContractError(
            200,
            f"{query} {page}, row {at + 1} {said}",
            finding=finding,
        )

    def _tied(self, ids: list[str], stamp: pd.Timestamp) -> None:
        """Note ``ids`` as read in the tie at ``stamp``."""
        ns = int(stamp.value)
        self._tie_stamps[ns] = stamp
        self._tie_ids.add(id_keys(ids), np.full(len(ids), ns, dtype=np.int64))

    def _check_moves(self, frame: pd.DataFrame) -> None:
        """A row read in a tie and now read at a newer stamp left the tie: the walk is unstable
        from the tie's stamp (rows of the tie may have shifted past a page boundary)."""
        if not len(self._tie_ids) or not len(frame):
            return
        tied = self._tie_ids.last(id_keys(frame["id"].tolist()))
        stamps = pd.DatetimeIndex(frame["updated_at"]).as_unit("ns").asi8
        moved = (tied >= 0) & (stamps > tied)
        if moved.any():
            self._unstable(self._tie_stamps[int(tied[moved].min())])

    def _unstable(self, stamp: pd.Timestamp | None) -> None:
        if stamp is None:
            return
        if self.unstable_from is None or stamp < self.unstable_from:
            self.unstable_from = stamp


def _among(frame: pd.DataFrame, other: pd.DataFrame) -> np.ndarray:
    """Which rows of ``frame`` have an ``id`` among ``other``'s (``Series.isin`` by a set of
    Python strings: pandas' ``isin`` of Arrow strings costs about a millisecond a page).

    Examples
    --------
    >>> _among(pd.DataFrame({"id": ["a", "b", "c"]}), pd.DataFrame({"id": ["c", "a"]})).tolist()
    [True, False, True]
    """
    ids = frame["id"].tolist()
    wanted = set(other["id"].tolist())
    return np.fromiter((i in wanted for i in ids), dtype=bool, count=len(ids))


def _without(frame: pd.DataFrame, dropped: np.ndarray) -> pd.DataFrame:
    """``frame`` less the rows ``dropped`` marks (taken only when some stay and some go: a
    boolean take copies every column).

    Examples
    --------
    >>> len(_without(pd.DataFrame({"id": ["a", "b"]}), np.array([True, True])))
    0
    """
    if not dropped.any():
        return frame
    if dropped.all():
        return frame.iloc[:0]
    return frame[~dropped]
