"""Whether a refusal of a Family B page is about its size (``limit``), and what an error says
when the client cannot adapt to it.

The interface document leaves the upper bound of ``limit`` in POST list bodies open (section
4.2: "not shown"); it bounds that of sub-collection GETs at 1 to 1,000 (sections 4.2 and 8).
A service may refuse a larger page with 400, 413 or 422 (:data:`TOO_LARGE`), in words that
name ``limit`` (``limit: must be between 1 and 100, got 1000``), the page size by another name
(``maximum page size is 100``, ``per_page``), or no field at all while stating a bound
(FastAPI's ``ensure this value is less than or equal to 100``); or a 413 whose words say
nothing (``Request Entity Too Large``, ``{}``), which for a list body of a few bytes (its
filters and sort) or a GET can only be about the page asked. The client then asks again with
the bound stated, else half (:func:`~dealframe.transport.refusals.smaller_size`).
"""

from __future__ import annotations

import re

from ..errors import ApiError
from ..transport.refusals import TOO_LARGE, said, stated_bound
from .resolve import _FIELD_NAMED

__all__ = ["SMALL_BODY", "about_page", "open_point"]

#: A request body (a list's filters and sort, without ``limit``) of at most this many bytes
#: is too small for a 413 to be about it: a 413 of such a request is about the page asked.
SMALL_BODY = 1024

#: Words naming the page size: ``page size``, ``page_size``, ``pageSize``, ``per_page``, ``per
#: page`` (``limit``, in any word, is read as before: ``limit_value``, ``limits``).
_PAGE_WORDS = re.compile(r"page[\s_-]?size|per[\s_-]?page", re.IGNORECASE)
#: Words stating an upper bound (of no field named, the only one of a list request above it
#: is ``limit``): ``less than or equal to 100``, ``at most``, ``<= 100``, ``maximum``.
_BOUND_WORDS = re.compile(
    r"less\s+than\s+or\s+equal|\bat\s+most\b|<=|≤|\bmax(?:imum)?\b|\bno\s+more\s+than\b"
    r"|\bexceed|\bup\s+to\b",
    re.IGNORECASE,
)


def about_page(error: ApiError, sent: int, body: int = 0) -> bool:
    """Whether ``error``, refusing a page asked with ``limit=sent``, is about that size: the
    service's words (:func:`~dealframe.transport.refusals.said`) name ``limit`` or the page
    size; or they state a bound below ``sent`` (:func:`~dealframe.transport.refusals.stated_bound`)
    and name no field (``ensure this value is less than or equal to 100``: asked again at
    100, the same words state no bound below it, and are not about the page); or it is a 413
    of a request whose ``body`` (bytes besides ``limit``; 0 for a GET) is at most
    :data:`SMALL_BODY`. A status outside :data:`TOO_LARGE` is about something else.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError, error_from_response
    >>> about_page(BadRequestError(400, "BAD_REQUEST", "maximum page size is 100"), 1000)
    True
    >>> bound = BadRequestError(422, "BAD_REQUEST", "ensure this value is less than or equal to 100")
    >>> about_page(bound, 1000), about_page(bound, 100)
    (True, False)
    >>> large = error_from_response(413, b"{}", None)
    >>> about_page(large, 1000), about_page(large, 1000, body=40_000)
    (True, False)
    >>> about_page(BadRequestError(400, "BAD_REQUEST", "sort: unknown key"), 1000)
    False
    >>> about_page(BadRequestError(400, "BAD_REQUEST", "Bad request"), 1000)
    False
    >>> about_page(BadRequestError(422, "BAD_REQUEST", "deal_valuation: at most 100"), 1000)
    False
    """
    if error.status not in TOO_LARGE:
        return False
    words = said(error)
    if "limit" in words.lower() or _PAGE_WORDS.search(words):
        return True
    if error.status == 413 and body <= SMALL_BODY:
        return True
    return (
        stated_bound(error, sent) is not None
        and _BOUND_WORDS.search(words) is not None
        and _FIELD_NAMED.search(words) is None
    )


def open_point(sent: int, *, sub: bool = False) -> str:
    """What an error adds when a page asked with ``limit=sent`` was refused and the client
    cannot adapt (the refusal names no field and states no bound, or no smaller size is
    left): the open point of the interface document it may be about.

    Examples
    --------
    >>> open_point(1000)[:72]
    'limit 1000 refused: the upper bound of limit in POST list bodies is not '
    """
    if sub:
        bound = (
            "the interface document bounds limit of sub-collection GETs at 1 to 1,000 "
            "(sections 4.2 and 8)"
        )
    else:
        bound = (
            "the upper bound of limit in POST list bodies is not shown by the interface "
            "document (section 4.2)"
        )
    return (
        f"limit {sent} refused: {bound}; the client asks a smaller page when a 400 or 422 "
        "names limit or the page size, or states a bound of no other field, and on a 413 of "
        "a small request, and this one was none of these or no smaller page was left"
    )
