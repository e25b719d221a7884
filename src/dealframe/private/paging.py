"""Offset pagination for Family B: the first page tells the total, the rest come concurrently.

:func:`pull_pages` works for both list POSTs (page in the body) and
sub-collection GETs (page in the query): the caller passes ``fetch(page,
size)``. Failed pages raise :class:`~dealframe.errors.IncompleteResultError`
naming them; pages always come back in order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..transport.paging import map_concurrent

if TYPE_CHECKING:
    from ..transport.session import Response

__all__ = ["PAGE_SIZE", "Pages", "pull_pages"]

#: Rows per page requested (the upper bound of ``limit``).
PAGE_SIZE = 1000


@dataclass
class Pages:
    """The responses of one paginated pull and what it should add up to."""

    responses: list["Response"]
    total: int
    expected: int
    size: int


def pull_pages(fetch: Callable[[int, int], "Response"], *, limit: int | None, workers: int,
               progress: bool | None, desc: str, page_size: int = PAGE_SIZE) -> Pages:
    """Fetch every page needed for ``limit`` rows (all rows when None).

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

    Returns
    -------
    Pages

    Raises
    ------
    IncompleteResultError
        Some pages failed after their retries; ``.failed`` lists the page numbers.
    """
    size = min(page_size, limit) if limit else page_size
    first = fetch(1, size)
    meta = first.json().get("meta") or {}
    total = int(meta.get("total", 0))
    expected = total if limit is None else min(limit, total)
    n_pages = max(1, math.ceil(expected / size)) if expected else 1
    rest = list(range(2, n_pages + 1))
    if not rest:
        return Pages([first], total, expected, size)
    result = map_concurrent(lambda page: fetch(page, size), rest, workers, progress=progress, desc=desc)
    if not result.ok:
        received = sum(len(r.json().get("data") or []) for r in [first, *result.values])
        result.raise_for_failures(expected=expected, received=received, what="rows")
    return Pages([first, *result.values], total, expected, size)
