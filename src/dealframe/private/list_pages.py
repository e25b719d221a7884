"""How a list call (``companies()``, ``investors()``, ``deals()``) reads and builds its pages:
one path, which the client runs on every page and the parse benchmarks time.

A page's body is read as the transport reads it for the list (:attr:`ListParse.reader`:
typed rows for a page of deals, :func:`~dealframe.frames.deal_rows.read_deal_page`, else
JSON; :meth:`ListParse.read`, as :func:`~dealframe.private.paging.read_body` reads a page a
worker left unread); the walk checks its ``meta`` and identities
(:func:`~dealframe.private.paging.pull_pages`), then its items become columns at once
(:meth:`ListParse.page`), and the pages are joined into one typed frame
(:meth:`ListParse.frame`), what the readers find said into the call's findings.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..contract import Findings, blanked, shaping
from ..errors import ServiceContractError, ValidationError
from ..frames.private import LIST_READERS, list_frame, list_page_columns
from ..frames.said import rows_said_later
from ..transport.body import Read
from .paging import read_body

if TYPE_CHECKING:
    import pandas as pd

    from ..errors import RequestInfo

__all__ = ["ListParse", "Unread", "first_unreadable", "item_named", "reads_alone"]


@dataclass(frozen=True)
class Unread:
    """What of a list call's pages can be read when items of them cannot
    (:meth:`ListParse.unreadable`).

    Attributes
    ----------
    parts : list of list
        Each page's pieces, in its place: the page itself; for a page that cannot be read
        alone, its rows that can (before and after its item; none when they do not read
        without it).
    named : ServiceContractError
        The error naming the first such page and, in it, the first item that cannot be read.
    failed : list
        Those pages (as the call's ``.failed`` holds them: page numbers, or a batch's ids).
    labels : list of str
        How the error names each of ``failed``.
    removed : list of int
        The place of each row dropped among the rows that arrived (in the pages' order).
    ids : list
        The ``id`` of each row dropped.
    """

    parts: list[list[Any]]
    named: ServiceContractError
    failed: list[Any]
    labels: list[str]
    removed: list[int]
    ids: list[Any]

    @property
    def said(self) -> tuple[list[Any], list[str], ServiceContractError]:
        """``(failed, labels, named)``, as
        :meth:`~dealframe.private.paging.Pages.raise_for_failures` takes them."""
        return self.failed, self.labels, self.named

    def before(self, place: int) -> int:
        """The rows dropped among the first ``place`` rows that arrived."""
        return sum(1 for at in self.removed if at < place)

    def less(self, counts: list[int]) -> list[int]:
        """``counts``, the rows of consecutive runs of the rows that arrived (a batch of ids
        each), less the rows dropped from each.

        Examples
        --------
        >>> cut = Unread([], ServiceContractError(200, "x", finding="wrong_shape"), [], [], [1, 5, 6], [])
        >>> cut.less([3, 0, 4])
        [2, 0, 2]
        """
        out, start = [], 0
        for count in counts:
            out.append(count - sum(1 for at in self.removed if start <= at < start + count))
            start += count
        return out


@dataclass(frozen=True)
class ListParse:
    """The reading and building of the pages of one list call of ``entity``.

    Parameters
    ----------
    entity : str
        ``companies``, ``investors`` or ``transactions``.
    found : Findings or None
        The call's findings (named by its endpoint), told what the readers find; None
        outside any call (the readers raise and warn as of a user's own items, as the
        tests of the frames read them).
    info : RequestInfo, optional
        The request, for what a reader's error says of it.

    Examples
    --------
    >>> parse = ListParse("companies", Findings("POST /api/private/v1/companies"))
    >>> doc, problem = parse.read(b'{"data": [{"id": "c1", "name": "Acme"}], "meta": {}}')
    >>> frame, _ = parse.frame([parse.page(doc["data"])])
    >>> frame["name"].tolist(), problem
    (['Acme'], None)
    """

    entity: str
    found: Findings | None
    info: RequestInfo | None = None

    @property
    def reader(self) -> Callable[[bytes], Any] | None:
        """How the transport reads a page's body for this list (None: as JSON)."""
        return LIST_READERS.get(self.entity)

    def read(self, body: bytes) -> tuple[Any, str | None]:
        """``(document, problem)``: the page's ``body`` as the transport reads it for this
        list (:func:`~dealframe.private.paging.read_body`); the document None with the
        problem when the transport would not take it as it is (sent again, or failed)."""
        doc, problem = read_body(body, self.reader)
        return (doc.doc if isinstance(doc, Read) else doc), problem

    def page(self, items: Any) -> Any:
        """One page's ``items`` (checked by the walk) as columns: its JSON can go at once."""
        with self._shaping():
            return list_page_columns(self.entity, items)

    def frame(self, parts: Iterable[Any]) -> tuple[pd.DataFrame, dict[Any, Any]]:
        """The :meth:`page` of every page joined into one typed frame, and what the readers
        keep back to say of the rows the call returns
        (:func:`~dealframe.frames.said.rows_said_later`, for
        :func:`~dealframe.frames.said.say_kept`).

        An item that cannot be read (a value of the wrong type) raises the reader's
        :class:`~dealframe.errors.ServiceContractError` (finding ``wrong_shape``):
        :meth:`unreadable` then tells the pages that cannot be read alone, and the rows of
        them that can, for the call to build its frame of what reads.
        """
        parts = parts if isinstance(parts, list) else list(parts)
        with self._shaping(), rows_said_later() as later:
            return list_frame(self.entity, parts), later

    def unreadable(
        self,
        error: ServiceContractError,
        parts: list[Any],
        names: Sequence[tuple[str, Any]] | None = None,
    ) -> Unread | None:
        """What of ``parts`` (the pages :meth:`frame` could not join: ``error``) can be read:
        each page that cannot be read alone is halved for its first item that cannot
        (a few joins, once the call has failed), and keeps its other rows when they read
        without it (else it is dropped whole). Every page had arrived (the pages are joined
        once the walk has ended). ``names`` is each part's ``(label, failed)``: how the error
        names it and what ``.failed`` holds for it (by default ``page N`` and the page
        number N; a batch of ids: its label and ids). None when no page fails alone (values
        of one member typed differently from page to page).

        Examples
        --------
        >>> parse = ListParse("companies", Findings("POST /api/private/v1/companies"))
        >>> good = parse.page([{"id": "c1"}, {"id": "c2"}])
        >>> bad = parse.page([{"id": "c3"}, {"id": "c4", "deleted": "x"}])
        >>> try:
        ...     parse.frame([good, bad, bad])
        ... except ServiceContractError as exc:
        ...     cut = parse.unreadable(exc, [good, bad, bad])
        >>> [[_rows(p) for p in pieces] for pieces in cut.parts], cut.failed, cut.removed, cut.ids
        ([[2], [1], [1]], [2, 3], [3, 5], ['c4', 'c4'])
        >>> str(cut.named).split(": ")[1]
        'page 2, item 2 of 2 (id c4)'
        """
        names = names or [(f"page {k + 1}", k + 1) for k in range(len(parts))]
        bad = [k for k, part in enumerate(parts) if not self._reads(part)]
        if not bad:
            return None
        kept = [[part] for part in parts]
        named: ServiceContractError | None = None
        removed: list[int] = []  # each row dropped, by its place among the rows that arrived
        ids: list[Any] = []
        starts = [0]
        for part in parts:
            starts.append(starts[-1] + _rows(part))
        for at in bad:
            part = parts[at]
            rows = _rows(part)
            row = first_unreadable(rows, functools.partial(self._fails, part))
            rest = None if row is None else [_slice(part, 0, row), _slice(part, row + 1, rows)]
            if rest is not None and all(each is not None and self._reads(each) for each in rest):
                kept[at] = [each for each in rest if _rows(each)]  # the page less its item
                removed.append(starts[at] + row)  # type: ignore[operator]
                ids.append(_ident(part, row))  # type: ignore[arg-type]
            else:
                kept[at] = []  # dropped whole
                removed.extend(range(starts[at], starts[at] + rows))
                ids.extend(_ident(part, k) for k in range(rows))
            if named is None:
                item = "" if row is None else f", item {row + 1} of {rows} (id {_ident(part, row)})"
                named = item_named(error, f"{names[at][0]}{item}")
        assert named is not None
        failed: dict[Any, str] = {}  # each failed unit once (pages of one batch of ids)
        for k in bad:
            handle = names[k][1]
            key = tuple(handle) if isinstance(handle, list) else handle
            failed.setdefault(key, names[k][0])
        return Unread(
            kept,
            named,
            [list(key) if isinstance(key, tuple) else key for key in failed],
            list(failed.values()),
            removed,
            ids,
        )

    def _fails(self, part: Any, start: int, stop: int) -> bool | None:
        """Whether rows ``start``..``stop`` of ``part`` fail alone (None: it cannot be cut)."""
        sliced = _slice(part, start, stop)
        return None if sliced is None else not self._reads(sliced)

    def _reads(self, part: Any) -> bool:
        """Whether ``part`` (of :meth:`page`, or a slice of one) becomes a frame alone."""
        return reads_alone(lambda value: list_frame(self.entity, [value]), part)

    def _shaping(self) -> AbstractContextManager[Any]:
        """The call's answers being shaped (:func:`~dealframe.contract.shaping`), if any."""
        if self.found is None:
            return nullcontext()
        return shaping(self.info, self.found.where, self.found)


def reads_alone(build: Callable[[Any], Any], value: Any) -> bool:
    """Whether ``build(value)`` (rows of a page, or a slice of them) becomes a frame; nothing
    it reads is said (a probe for the item an error names, run once the call has failed:
    outside the call's shaping, a reader raises :class:`~dealframe.errors.ValidationError`).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            build(value)
        except ValidationError:
            return False
    return True


def first_unreadable(rows: int, fails: Callable[[int, int], bool | None]) -> int | None:
    """The first of ``rows`` rows that cannot be read alone, found by halving (a few probes):
    ``fails(start, stop)`` tells whether rows ``start``..``stop`` fail (None: they cannot be
    cut). None when no single row fails alone (values typed differently from row to row).

    Examples
    --------
    >>> first_unreadable(10, lambda start, stop: start <= 6 < stop)
    6
    >>> first_unreadable(10, lambda start, stop: stop - start > 1) is None
    True
    """
    low, high = 0, rows
    while high - low > 1:
        mid = (low + high) // 2
        verdict = fails(low, mid)
        if verdict is None:
            return None
        low, high = (low, mid) if verdict else (mid, high)
    return low if high - low == 1 and fails(low, low + 1) else None


def item_named(
    error: ServiceContractError, where: str, request: RequestInfo | None = None
) -> ServiceContractError:
    """``error`` (an unreadable item) with ``where`` it was (``page 3, item 1 of 473 (id
    ...)``) before its message, and the ``request`` that brought it when given (a
    sub-collection's path with its parent's id, not its ``{id}``); ``where`` empty: the
    message as it is."""
    return ServiceContractError(
        error.status,
        f"{blanked(where)}: {error.message}" if where else error.message,
        finding=error.finding,
        request=error.request if request is None else request,
        attempts=error.attempts,
    )


def _rows(part: Any) -> int:
    """The rows of a page's columns (``(columns, extras)``), 0 when none tells."""
    columns = part[0] if isinstance(part, tuple) and part and isinstance(part[0], dict) else {}
    return next((len(column) for column in columns.values()), 0)


def _slice(part: Any, start: int, stop: int) -> Any:
    """Rows ``start``..``stop`` of a page's columns (``(columns, extras)``, each a sequence of
    the page's rows), or None when they are not of that shape."""
    if not isinstance(part, tuple) or not all(isinstance(each, dict) for each in part):
        return None
    try:
        return tuple({name: column[start:stop] for name, column in each.items()} for each in part)
    except (TypeError, IndexError, KeyError):
        return None


def _ident(part: Any, row: int) -> Any:
    """The ``id`` of row ``row`` of a page's columns, as text (None when it has none)."""
    value = part[0].get("id", [None] * (row + 1))[row]
    return value.as_py() if hasattr(value, "as_py") else value
