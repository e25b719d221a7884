"""What a walk of offset pages says when its rows do not add up to ``meta.total``.

One wording for every paged pull of Family B, the lists (``POST /companies`` ...) and the
sub-collections under an id (``GET /investors/{id}/investments`` ...): the distinct rows that
arrived, against what ``meta.total`` announced, and what the difference is a sign of
(:func:`why_short`): data that changed during the pull (a later page's ``meta.total`` moved:
:attr:`~dealframe.private.paging.Pages.moved`), rows that moved between pages (repeats over
several pages with the count off), a service counting ``page`` from 0 (exactly one page short).
"""

from __future__ import annotations

from ..contract import Findings

__all__ = ["AGAIN", "say_count", "why_short"]

#: What a user can do about a pull over data that moved under it.
AGAIN = "pull again, or keep a mirror (dealframe.mirror) for a consistent copy"


def why_short(
    shortfall: int, size: int, *, repeated: int = 0, moved: tuple[int, int] | None = None
) -> str:
    """What a walk that ended ``shortfall`` rows short of ``meta.total`` (more, when
    negative) adds to saying so.

    A ``meta.total`` that ``moved`` between pages says the data changed while they were
    read: rows added, removed or updated move the others between offset pages, so some come
    twice and others are never served. Rows that came more than once (``repeated`` extra
    copies) over several pages with the count off look the same, or are an order the
    service does not keep from one request to the next. Exactly one page short otherwise is
    what a service that counts ``page`` from 0 gives when nothing says so and its page
    ``page: 1`` cannot be read (``page: 2`` is its third page). Any other count says no more
    than what was seen.

    Examples
    --------
    >>> why_short(1000, 1000)
    ': exactly one page of 1000 rows short (does the service count page from 0?)'
    >>> why_short(10**12 - 2484, 1000)
    ''
    >>> why_short(1000, 1000, moved=(4953, 3953))
    ': meta.total went from 4953 to 3953 while the pages were read: the data changed ...'
    >>> why_short(57, 1000, repeated=57)
    ': rows came more than once (57 extra copies), as when rows move between pages ...'
    """
    if moved is not None:
        return (
            f": meta.total went from {moved[0]} to {moved[1]} while the pages were read: the "
            f"data changed during the pull, so rows may be missing or repeated: {AGAIN}"
        )
    if repeated:
        return (
            f": rows came more than once ({repeated} extra copies), as when rows move between "
            "pages (rows added, removed or updated during the pull, or an order the service "
            f"does not keep from one request to the next), so rows may be missing: {AGAIN}"
        )
    if shortfall == size:
        return f": exactly one page of {size} rows short (does the service count page from 0?)"
    return ""


def say_count(
    found: Findings,
    expected: int | None,
    distinct: int,
    size: int,
    *,
    moved: tuple[int, int] | None = None,
    repeated: int = 0,
    capped: str = "",
    where: str | None = None,
) -> None:
    """Add to ``found`` the ``count_mismatch`` of a walk whose pages all arrived: its
    ``distinct`` rows differ from the ``expected`` ones ``meta.total`` announced, or add up
    while a later page's ``meta.total`` ``moved`` (the rows asked came, over data that changed
    under the walk). Nothing when the rows add up over data that stood still.

    Parameters
    ----------
    found : Findings
        Where the finding goes.
    expected : int or None
        The rows ``meta.total`` announced (capped by ``limit``); None when unknown.
    distinct : int
        The rows that arrived, each counted once (a repeat is no row more).
    size : int
        Rows per page served (:attr:`~dealframe.private.paging.Pages.size`).
    moved : tuple of int, optional
        :attr:`~dealframe.private.paging.Pages.moved`.
    repeated : int
        Extra copies of rows that came over several pages (0 for a walk of one page, or
        repeats not of one walk's pages).
    capped : str
        What capped ``expected`` (`` (capped by limit)``), said after it.
    where : str, optional
        The finding's place, when not ``found``'s own.

    Examples
    --------
    >>> found = Findings("GET /x/1/y")
    >>> say_count(found, 702, 699, 10, repeated=3)
    >>> found.items[0].message[:60]
    'meta.total announced 702 rows; 699 distinct rows arrived: ro'
    >>> say_count(found, 702, 702, 10, moved=(702, 697))
    >>> found.items[1].message[:70]
    '702 distinct rows arrived: meta.total went from 702 to 697 while the p'
    >>> say_count(found, 702, 702, 10); len(found)
    2
    """
    if expected is not None and distinct != expected:
        why = why_short(expected - distinct, size, repeated=repeated, moved=moved)
        found.add(
            "count_mismatch",
            f"meta.total announced {expected} rows{capped}; {distinct} distinct rows arrived{why}",
            where=where,
            shortfall=expected - distinct,
        )
    elif moved is not None:
        found.add(
            "count_mismatch",
            f"{distinct} distinct rows arrived{why_short(0, size, moved=moved)}",
            where=where,
        )
