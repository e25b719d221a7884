"""A request the service refused as too large, and the size to ask for instead.

The interface document leaves open how much one request may carry (the ``limit`` of a list
page, the names of a resolve batch, the SKUs of a Family A request). A service may refuse a
request as too large (400, 413, or 422 as FastAPI says it) and state its bound in its words
(``limit: must be between 1 and 100, got 1000``, ``at most 50 SKUs per request, got 100``).
These helpers read that bound, one rule for every caller that shrinks or splits a request.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dealframe.errors import ApiError

__all__ = ["TOO_LARGE", "said", "smaller_size", "stated_bound"]

#: Statuses with which a service may refuse a request as too large (a batch of names, a
#: ``limit``, a chunk of SKUs): 400, 413, and 422 (FastAPI's validation status).
TOO_LARGE = (400, 413, 422)


def said(error: ApiError) -> str:
    """An error's message and listed errors, as one text.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> said(BadRequestError(400, "BAD_REQUEST", "Invalid", details={"errors": ["limit: 1..100"]}))
    'Invalid limit: 1..100'
    """
    return " ".join([error.message, *(str(e) for e in error.details.get("errors") or [])])


def _below(text: str, sent: int) -> list[int]:
    """The numbers written in ``text`` between 0 and ``sent`` (exclusive)."""
    return [int(n) for n in re.findall(r"\d+", text) if 0 < int(n) < sent]


def stated_bound(error: ApiError, sent: int) -> int | None:
    """The largest batch an error says the service takes (``at most 100 names``), if it says.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> stated_bound(BadRequestError(400, "BAD_REQUEST", "names: at most 100 names"), 1000)
    100
    """
    numbers = _below(said(error), sent)
    return min(numbers) if numbers else None


def smaller_size(error: ApiError, sent: int, about: Callable[[str], bool]) -> int | None:
    """The size to ask for after ``error`` refused a request of ``sent`` (rows, SKUs): the
    bound the error states, else half; None when the error is no such refusal (a status
    outside :data:`TOO_LARGE`, or words ``about`` does not accept) or ``sent`` is 1.

    Parameters
    ----------
    error : ApiError
        The refusal.
    sent : int
        The size of the refused request.
    about : callable
        Takes the error's words (:func:`said`), true when they are about that size.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> words = "limit: must be between 1 and 100, got 1000"
    >>> smaller_size(BadRequestError(400, "BAD_REQUEST", words), 1000, lambda s: "limit" in s)
    100
    >>> smaller_size(BadRequestError(400, "BAD_REQUEST", "too large"), 1000, lambda s: True)
    500
    """
    words = said(error)
    if error.status not in TOO_LARGE or sent < 2 or not about(words):
        return None
    # the largest number below what was sent: "between 1 and 100, got 1000" states 100
    numbers = _below(words, sent)
    return max(numbers) if numbers else sent // 2
