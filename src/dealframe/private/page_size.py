"""Whether a refusal of a Family B page is about its size (``limit``), and what an error says
when the client cannot adapt to it.

The interface document leaves the upper bound of ``limit`` in POST list bodies open (section
4.2: "not shown"); it bounds that of sub-collection GETs at 1 to 1,000 (sections 4.2 and 8).
A service may refuse a larger page with 400, 413 or 422 (:data:`TOO_LARGE`), in words that
name ``limit`` (``limit: must be between 1 and 100, got 1000``, FastAPI's ``body.limit: ensure
this value is less than or equal to 100``) or the page size by another name (``maximum page
size is 100``, ``per_page``); or a 413 whose words say nothing but its status (``Request
Entity Too Large``, ``{}``, a proxy's page signed ``nginx/1.18.0 (Ubuntu)``), which for a list
body of a few bytes (its filters and sort) or a GET can only be about the page asked. The
client then asks again with the bound stated, else half
(:func:`~dealframe.transport.refusals.smaller_size`). Words about anything else (``sort field
not supported``, ``too many values in filter (at most 500)``, a bound of requests per minute,
``the limit of 500 values``, ``size limit of 1000 bytes``) are no page-size bound, whatever
number they state: such a refusal is raised in the service's words, after its one request (its
second when it says ``limit`` and is refused again, in the same words, at the bound it stated:
see :meth:`dealframe.private.api.PrivateApi._walk`).
"""

from __future__ import annotations

import re

from ..errors import ApiError
from ..transport.refusals import PHRASES, SIGNATURE, TOO_LARGE, said, status_said

__all__ = ["SMALL_BODY", "about_page", "open_point", "vague"]

#: A request body (a list's filters and sort, without ``limit``) of at most this many bytes
#: is too small for a 413 to be about it: a 413 of such a request is about the page asked.
SMALL_BODY = 1024

#: Words naming the page size: ``limit`` (in any word: ``limit_value``, ``limits``; but for a
#: ``rate limit``, a ``size limit`` or ``body_limit`` of the request, and a limit of a number of
#: something else than rows: ``the limit of 500 values``, ``limit is 60 per minute``),
#: ``page size``, ``page_size``, ``pageSize``, ``per_page``, ``per page``.
_PAGE_WORDS = re.compile(
    r"(?<!rate[\s_-])(?<!rate)(?<!size[\s_-])(?<!body[\s_-])"
    r"limit(?!s?\s+(?:of|is)\s+\d+\s*(?!(?:rows?|items?|records?|results?|entries)\b)[A-Za-z])"
    r"|page[\s_-]?size|per[\s_-]?page",
    re.IGNORECASE,
)
#: Markup and what is no word (an HTML error page, JSON punctuation, numbers).
_NO_WORD = re.compile(r"<[^>]*>|[^A-Za-z]+")


def vague(error: ApiError) -> bool:
    """Whether the service's words (:func:`~dealframe.transport.refusals.said`) say nothing
    but the error's status: none at all (``{}``), or its status and reason phrase (``Bad
    request``, ``413 Request Entity Too Large``, an HTML page saying so), signed or not by the
    server that wrote it (:data:`~dealframe.transport.refusals.SIGNATURE`: nginx's stock page
    ends with ``nginx/1.18.0 (Ubuntu)``, Cloudflare's with ``cloudflare``).

    Examples
    --------
    >>> from dealframe.errors import BadRequestError, error_from_response
    >>> vague(error_from_response(413, b"{}", None)), vague(BadRequestError(400, "X", "Bad request"))
    (True, True)
    >>> nginx = b"<title>413 Request Entity Too Large</title><hr><center>nginx/1.18.0 (Ubuntu)"
    >>> vague(error_from_response(413, nginx, None, {"Content-Type": "text/html"}))
    True
    >>> vague(BadRequestError(400, "BAD_REQUEST", "sort field not supported"))
    False
    """
    words = status_said(error.status).sub(" ", said(error))
    words = SIGNATURE.sub(" ", re.sub(PHRASES, " ", words, flags=re.IGNORECASE))
    return not _NO_WORD.sub("", words)


def about_page(error: ApiError, sent: int, body: int = 0) -> bool:
    """Whether ``error``, refusing a page asked with ``limit=sent``, is about that size: the
    service's words (:func:`~dealframe.transport.refusals.said`) name ``limit`` or the page
    size (:data:`_PAGE_WORDS`), or it is a 413 saying nothing but its status (:func:`vague`)
    of a request whose ``body`` (bytes besides ``limit``; 0 for a GET) is at most
    :data:`SMALL_BODY`. A bound stated of anything else (``too many values in filter (at
    most 500)``, ``the maximum of 100 per minute``, ``the limit of 500 values``, ``size limit
    of 1000 bytes``), or of nothing named (``ensure this value
    is less than or equal to 100``), is not taken as the page's; a status outside
    :data:`TOO_LARGE` is about something else.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError, error_from_response
    >>> about_page(BadRequestError(400, "BAD_REQUEST", "maximum page size is 100"), 1000)
    True
    >>> fastapi = "body.limit: ensure this value is less than or equal to 100"
    >>> about_page(BadRequestError(422, "BAD_REQUEST", fastapi), 1000)
    True
    >>> large = error_from_response(413, b"{}", None)
    >>> about_page(large, 1000), about_page(large, 1000, body=40_000)
    (True, False)
    >>> about_page(BadRequestError(400, "BAD_REQUEST", "sort: unknown key"), 1000)
    False
    >>> about_page(BadRequestError(400, "BAD_REQUEST", "Bad request"), 1000)
    False
    >>> about_page(BadRequestError(422, "BAD_REQUEST", "too many values in filter (at most 500)"), 1000)
    False
    >>> about_page(BadRequestError(400, "BAD_REQUEST", "rate limit: at most 100 a minute"), 1000)
    False
    >>> about_page(BadRequestError(400, "X", "filter ids exceeds the limit of 500 values"), 1000)
    False
    >>> about_page(BadRequestError(413, "X", "request body exceeds size limit of 1000 bytes"), 1000)
    False
    >>> about_page(BadRequestError(400, "X", "limit of 100 rows exceeded"), 1000)
    True
    """
    if error.status not in TOO_LARGE:
        return False
    if _PAGE_WORDS.search(said(error)):
        return True
    return error.status == 413 and body <= SMALL_BODY and vague(error)


def open_point(sent: int, *, sub: bool = False, sure: bool = True) -> str:
    """What an error adds when a page asked with ``limit=sent`` was refused and the client
    cannot adapt: the open point of the interface document it is about (``sure``: the
    refusal was about the page size, and no smaller page was left), or may be about (its
    words say nothing but its status: :func:`vague`).

    Examples
    --------
    >>> open_point(1000)[:72]
    'limit 1000 refused: the upper bound of limit in POST list bodies is not '
    >>> open_point(1000, sure=False)[:57]
    'limit 1000 may be what was refused (the service says only'
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
    rule = (
        "the client asks a smaller page when a 400, 413 or 422 names limit or the page size, "
        "and on a 413 of a small request saying nothing else"
    )
    if sure:
        return f"limit {sent} refused: {bound}; {rule}, and no smaller page was left"
    return (
        f"limit {sent} may be what was refused (the service says only its status): {bound}; {rule}"
    )
