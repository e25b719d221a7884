"""Offset pagination for Family B: the first page tells the total, the rest come concurrently.

:func:`pull_pages` works for both list POSTs (page in the body) and
sub-collection GETs (page in the query): the caller passes ``fetch(page,
size)``. Each page is handed to ``parse`` as soon as it arrives (on the worker
that fetched it) and only the parsed part is kept: the response bytes and the
parsed JSON of a page are released before the pull ends, so a big pull never
holds all of its JSON at once. Failed pages raise
:class:`~dealframe.errors.IncompleteResultError` naming them; parts always come
back in page order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from ..transport.paging import WorkerPool, map_concurrent

if TYPE_CHECKING:
    from ..transport.session import Response

__all__ = ["PAGE_SIZE", "PageInfo", "Pages", "pull_pages"]

#: Rows per page requested (the upper bound of ``limit``).
PAGE_SIZE = 1000

T = TypeVar("T")


class PageInfo(NamedTuple):
    """What is kept of one page's response once it is parsed (for provenance)."""

    page: int
    rows: int
    from_cache: bool
    attempts: int


@dataclass
class Pages(Generic[T]):
    """The parsed pages of one paginated pull and what it should add up to.

    Attributes
    ----------
    parts : list
        ``parse(items)`` of every page, in page order.
    infos : list of PageInfo
        Page number, rows, cache flag and attempts of every page (no bytes).
    total, expected, size : int
        The service's total, the rows this pull should return, rows per page.
    """

    parts: list[T]
    infos: list[PageInfo]
    total: int
    expected: int
    size: int

    @property
    def rows(self) -> int:
        """Rows received over all pages."""
        return sum(info.rows for info in self.infos)


def _items(response: "Response") -> tuple[list[Any], dict[str, Any]]:
    doc = response.json()
    if not isinstance(doc, dict):
        return [], {}
    data, meta = doc.get("data"), doc.get("meta")
    return (data if isinstance(data, list) else []), (meta if isinstance(meta, dict) else {})


def _read(response: "Response", page: int, parse: Callable[[list[Any]], T]
          ) -> tuple[T, PageInfo, dict[str, Any]]:
    items, meta = _items(response)
    info = PageInfo(page, len(items), bool(response.from_cache), response.attempts)
    return parse(items), info, meta


def pull_pages(fetch: Callable[[int, int], "Response"], *, limit: int | None, workers: int,
               progress: bool | None, desc: str, page_size: int = PAGE_SIZE,
               parse: Callable[[list[Any]], T] = list,  # type: ignore[assignment]
               pool: WorkerPool | None = None) -> Pages[T]:
    """Fetch every page needed for ``limit`` rows (all rows when None), parsing as they come.

    Parameters
    ----------
    fetch : callable
        ``fetch(page, size)`` sends one request and returns the response.
    limit : int, optional
        Cap on rows; pages stop once it is reached.
    workers : int
        Concurrent requests for pages 2..n.
    progress : bool, optional
        Progress bar for pages 2..n.
    desc : str
        Progress bar label.
    page_size : int
        Rows per request.
    parse : callable
        ``parse(items)`` turns one page's ``data`` list into what is kept (by
        default the list itself); runs on the worker, right after the page arrives.

    Returns
    -------
    Pages

    Raises
    ------
    IncompleteResultError
        Some pages failed after their retries; ``.failed`` lists the page numbers.
    """
    size = min(page_size, limit) if limit else page_size
    first, first_info, meta = _read(fetch(1, size), 1, parse)
    total = int(meta.get("total", 0) or 0)
    expected = total if limit is None else min(limit, total)
    n_pages = max(1, math.ceil(expected / size)) if expected else 1
    rest = list(range(2, n_pages + 1))
    if not rest:
        return Pages([first], [first_info], total, expected, size)

    def one(page: int) -> tuple[T, PageInfo]:
        part, info, _ = _read(fetch(page, size), page, parse)
        return part, info

    result = map_concurrent(one, rest, workers, progress=progress, desc=desc, pool=pool)
    if not result.ok:
        received = first_info.rows + sum(info.rows for _, info in result.values)
        result.raise_for_failures(expected=expected, received=received, what="rows")
    parts = [first, *(part for part, _ in result.values)]
    infos = [first_info, *(info for _, info in result.values)]
    return Pages(parts, infos, total, expected, size)
