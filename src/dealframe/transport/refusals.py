"""A request the service refused as too large, and the size to ask for instead.

The interface document leaves open how much one request may carry (the ``limit`` of a list
page, the names of a resolve batch, the SKUs of a Family A request). A service may refuse a
request as too large (400, 413, or 422 as FastAPI says it) and state its bound in its words
(``limit: must be between 1 and 100, got 1000``, ``at most 50 SKUs per request, got 100``).
These helpers read that bound, one rule for every caller that shrinks or splits a request.

A bound is read from the service's words alone (:attr:`~dealframe.errors.ApiError.words`
and ``details.errors``), never from what dealframe wrote of the answer: the summary of a
body that is not JSON (``15 bytes of text/plain``) states no bound, nor does the status the
body repeats (``413 Request Entity Too Large``), nor a number inside a word (``r-1``,
``v2``), nor the version of the server that wrote an error page (``nginx/1.18.0``). A refusal stating none is halved, and halved again until a size is taken.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dealframe.errors import ApiError

__all__ = [
    "PHRASES",
    "SIGNATURE",
    "TOO_LARGE",
    "said",
    "smaller_size",
    "stated_bound",
    "status_said",
]

#: Statuses with which a service may refuse a request as too large (a batch of names, a
#: ``limit``, a chunk of SKUs): 400, 413, and 422 (FastAPI's validation status).
TOO_LARGE = (400, 413, 422)


def said(error: ApiError) -> str:
    """What the service said of an error: its words (:attr:`~dealframe.errors.ApiError.words`,
    never dealframe's summary of a body it could not read) and listed errors, as one text.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError, error_from_response
    >>> said(BadRequestError(400, "BAD_REQUEST", "Invalid", details={"errors": ["limit: 1..100"]}))
    'Invalid limit: 1..100'
    >>> said(error_from_response(400, b"limit too large", None, {"Content-Type": "text/plain"}))
    'limit too large'
    """
    words = getattr(error, "words", error.message)  # an error pickled before words existed
    return " ".join([words, *(str(e) for e in error.details.get("errors") or [])])


#: A number standing alone, not part of a word or an id (``v2``, ``ISO-3``, ``r-1``, ``4xx``);
#: a range's (``1-100``) is.
_NUMBER = re.compile(r"(?<!\w)(?<![A-Za-z_]-)\d+(?![A-Za-z_])")
#: Reason phrases a body may repeat after its status (``413 Request Entity Too Large``).
PHRASES = (
    r"bad\s+request|(?:request\s+entity|payload|content)\s+too\s+large"
    r"|unprocessable\s+(?:entity|content)"
)


#: The signature of the server that wrote an error page (nginx's and Cloudflare's stock pages
#: end with one): a product and its version (``nginx/1.18.0 (Ubuntu)``, ``Apache/2.4.41``), or
#: the bare name of a proxy or CDN (``cloudflare``, ``openresty``). Its numbers state no bound,
#: and its words say nothing of the request.
SIGNATURE = re.compile(
    r"\b[A-Za-z][\w.-]*/v?\d+\.\d[\w.-]*(?:\s*\([^()]*\))?"
    r"|\b(?:cloudflare|cloudfront|nginx|openresty|apache|envoy|caddy|awselb|haproxy|varnish"
    r"|akamai(?:ghost)?|microsoft-iis)\b",
    re.IGNORECASE,
)


def status_said(status: int) -> re.Pattern[str]:
    """The status as a body writes it: ``HTTP 413``, ``status: 413``, ``"status": 400`` (JSON
    of no known shape), ``Error 400``, ``413 Payload Too Large``, a text that opens with it
    and a colon or a dash (``413: too many names``; ``400 names at most`` states a bound)...
    (a status, never a bound)."""
    return re.compile(
        rf"(?:\b(?:https?(?:/[\d.]+)?|status(?:\s*code)?|error|code)[\"']?\s*[:=#]?\s*[\"']?"
        rf"{status}\b)"
        rf"|(?:\b{status}\s*[:-]?\s*(?:{PHRASES}))"
        rf"|(?:^\W*{status}\s*[:-])",
        re.IGNORECASE,
    )


def _below(text: str, sent: int, status: int = 0) -> list[int]:
    """The numbers written in ``text`` between 0 and ``sent`` (exclusive): numbers standing
    alone, the refusal's ``status`` written as one and a server's signature
    (:data:`SIGNATURE`) left out.

    Examples
    --------
    >>> _below("413 Request Entity Too Large: at most 100 names", 1000, 413)
    [100]
    >>> _below("sku v2 ISO-3 request r-7 too large", 1000, 400)
    []
    >>> _below("limit: must be in 1-100 (HTTP 400)", 1000, 400)
    [1, 100]
    >>> _below('{"status": 400, "text": "limit over 250"}', 1000, 400)
    [250]
    >>> _below("413: too many names, at most 100", 1000, 413)
    [100]
    >>> _below("400 names at most per request", 1000, 400)
    [400]
    >>> _below("413 Request Entity Too Large nginx/1.18.0 (Ubuntu)", 1000, 413)
    []
    >>> _below("HTTP/1.1 400 Bad Request: limit over 250", 1000, 400)
    [250]
    """
    if status:
        text = status_said(status).sub(" ", text)
    text = SIGNATURE.sub(" ", text)
    return [int(n) for n in _NUMBER.findall(text) if 0 < int(n) < sent]


def stated_bound(error: ApiError, sent: int) -> int | None:
    """The largest batch an error says the service takes (``at most 100 names``), if it says.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> stated_bound(BadRequestError(400, "BAD_REQUEST", "names: at most 100 names"), 1000)
    100
    >>> from dealframe.errors import error_from_response
    >>> stated_bound(error_from_response(413, b"Error: too many items", None), 1000) is None
    True
    """
    numbers = _below(said(error), sent, error.status)
    return min(numbers) if numbers else None


def smaller_size(error: ApiError, sent: int, about: Callable[[str], bool]) -> int | None:
    """The size to ask for after ``error`` refused a request of ``sent`` (rows, SKUs): the
    bound the service's words state (:func:`said`), else half; None when the error is no
    such refusal (a status outside :data:`TOO_LARGE`, or words ``about`` does not accept) or
    ``sent`` is 1.

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
    >>> from dealframe.errors import error_from_response
    >>> refused = error_from_response(400, b"limit too large", None, {"Content-Type": "text/plain"})
    >>> refused.message
    "not a JSON error body (15 bytes of text/plain, first line 'limit too large')"
    >>> smaller_size(refused, 1000, lambda s: "limit" in s)
    500
    """
    words = said(error)
    if error.status not in TOO_LARGE or sent < 2 or not about(words):
        return None
    # the largest number below what was sent: "between 1 and 100, got 1000" states 100
    numbers = _below(words, sent, error.status)
    return max(numbers) if numbers else sent // 2
