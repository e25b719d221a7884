"""The first check of every success body: a JSON object with a ``data`` member.

Both interface families answer success with ``{data, meta}`` or ``{data}`` (sections 2.1 and
2.2 of the interface document). A 200 whose body is empty, not JSON (a proxy's HTML page),
not an object or without ``data`` breaks that contract: it is never stored in the HTTP
cache, never answered from it, and the transport asks again before giving up with
:class:`~dealframe.errors.ServiceContractError`.

A body that is complete JSON but for the ``NaN``, ``Infinity`` and ``-Infinity`` tokens that
Python's :func:`json.dumps` writes (JSON has no such numbers) is not cut short: it is read
with these tokens as null, and :func:`parse` gives the document with a problem that names
them (:func:`non_finite`), for the transport to warn of; such a body is not cached.

A well-formed body can still be plainly wrong: ``data`` null (or another scalar), a ``data``
list with items that are not objects, or a ``meta.returned`` / ``meta.count`` that differs
from the items in ``data`` (:func:`unsound`). Such a body is returned to its call, whose
checks say what is wrong (:mod:`dealframe.contract`), but it is never stored in the HTTP cache
nor answered from it: the next call asks the service again.

An answer that holds the token of the request it answers (a service that echoes it in a
header, its reason phrase or its body) is never stored in the HTTP cache: requests-cache
would write it to the file as it came (:func:`echoes`). The call still gets the answer,
with the token blanked wherever its words reach a message; a line on the
``dealframe.transport`` logger (DEBUG) says it was not stored.

The cache's filter (:func:`storable`) and the transport both need the parsed body; a body is
parsed once, by whichever asks first in the thread, and the other takes the result
(:func:`parse`), so checking costs no second parse.

A caller that knows the shape of the answers it asks for may give a schema'd reader
(:func:`expecting`): a body that reader takes is returned as :class:`Read` (no JSON objects
are built); any other body is checked as above.

Examples
--------
>>> parse(b'{"data": [], "meta": {"count": 0}}')
({'data': [], 'meta': {'count': 0}}, None)
>>> parse(b"<html>502 Bad Gateway</html>")[1]
'not JSON'
>>> parse(b'{"items": []}')[1]
"a JSON object without 'data'"
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import orjson

from dealframe.arguments import call_secrets
from dealframe.errors import _ANYWHERE, _scrub

__all__ = [
    "NON_FINITE",
    "TRUNCATED",
    "Read",
    "echoes",
    "expecting",
    "non_finite",
    "parse",
    "storable",
    "unsound",
]

#: The problem of a body that starts as JSON and does not parse: most likely cut short.
TRUNCATED = "JSON cut short or malformed"
#: The start of the problem of a body read with ``NaN``/``Infinity`` tokens as null (the
#: same for every page of a walk: one warning, as Python shows a warning once per line).
NON_FINITE = "number tokens that JSON does not have"

logger = logging.getLogger("dealframe.transport")
_last = threading.local()
_READER: ContextVar[Callable[[bytes], Any] | None] = ContextVar("dealframe_reader", default=None)


class Read(NamedTuple):
    """A body taken by the reader given to :func:`expecting`, as that reader returned it."""

    doc: Any


@contextmanager
def expecting(reader: Callable[[bytes], Any]) -> Iterator[None]:
    """Within this block (this thread or task only), a success body is first given to
    ``reader``; what it returns (not None) is the body, as :class:`Read`.

    Examples
    --------
    >>> with expecting(lambda content: len(content) if content.startswith(b"{") else None):
    ...     parse(b'{"data": []}')
    (Read(doc=12), None)
    """
    token = _READER.set(reader)
    try:
        yield
    finally:
        _READER.reset(token)


def _check(content: bytes) -> tuple[Any, str | None]:
    reader = _READER.get()
    doc = reader(content) if reader is not None and content else None
    if doc is not None:
        return Read(doc), None
    if not content or not content.strip():
        return None, "an empty body"
    try:
        doc = orjson.loads(content)
    except orjson.JSONDecodeError:
        cut = content.lstrip()[:1] in (b"{", b"[")
        lenient = non_finite(content) if cut else None
        if lenient is None:
            return None, TRUNCATED if cut else "not JSON"
        doc, tokens = lenient
        if isinstance(doc, dict) and "data" in doc:
            return doc, f"{NON_FINITE} ({', '.join(sorted(tokens))}): read as null"
    if not isinstance(doc, dict):
        return None, f"JSON {type(doc).__name__}, not an object"
    if "data" not in doc:
        return None, "a JSON object without 'data'"
    return doc, None


def non_finite(content: bytes) -> tuple[Any, Counter[str]] | None:
    """A body read by the standard library's JSON reader with its ``NaN``, ``Infinity`` and
    ``-Infinity`` tokens, and numbers too large for a float (``1e999``), as null, and how many
    of each it held; None when it holds none, or does not parse even so (cut short).

    Examples
    --------
    >>> non_finite(b'{"data": [{"x": NaN}, {"x": -Infinity}]}')
    ({'data': [{'x': None}, {'x': None}]}, Counter({'NaN': 1, '-Infinity': 1}))
    >>> non_finite(b'{"data": [1.5, 1e999]}')
    ({'data': [1.5, None]}, Counter({'1e999': 1}))
    >>> non_finite(b'{"data": [') is None
    True
    """
    tokens: Counter[str] = Counter()

    def null(token: str) -> None:
        tokens[token] += 1

    def number(text: str) -> float | None:
        value = float(text)
        if math.isinf(value):
            tokens[text] += 1
            return None
        return value

    try:
        doc = json.loads(content, parse_constant=null, parse_float=number)
    except (ValueError, RecursionError):  # JSONDecodeError, text that is not UTF-8
        return None
    return (doc, tokens) if tokens else None


def parse(content: bytes) -> tuple[Any, str | None]:
    """``(document, None)`` for a well-formed success body, else ``(None, problem)``; a body
    read with ``NaN``/``Infinity`` tokens as null gives ``(document, problem)``, the problem
    starting with :data:`NON_FINITE`.

    Reuses the result of the last check of the very same bytes object in this thread
    (the cache filter's), then forgets it.
    """
    held = getattr(_last, "held", None)
    if held is not None and held[0] is content:
        _last.held = None
        return held[1], held[2]
    return _check(content)


def unsound(doc: Any) -> str | None:
    """What makes a well-formed document (:func:`parse`) unfit to keep in the cache, or None:
    ``data`` that is neither a list nor an object, a ``data`` list holding items that are not
    objects, a ``meta.returned`` or ``meta.count`` (an integer) other than the items in it.

    Examples
    --------
    >>> unsound({"data": None})
    'data is NoneType, not a list or an object'
    >>> unsound({"data": [{"id": "a"}, 3]})
    'an item of data is not an object'
    >>> unsound({"data": [{"id": "a"}], "meta": {"returned": 3}})
    'meta.returned is 3, data holds 1'
    >>> unsound({"data": [{"id": "a"}], "meta": {"count": 1}}) is None
    True
    """
    typed = isinstance(doc, Read)  # the schema'd reader took it: its items are its rows
    doc = doc.doc if typed else doc
    data = doc.get("data") if isinstance(doc, dict) else None
    if isinstance(data, dict) or (typed and not isinstance(data, list)):
        return None  # an object, or a reader's own shape (its caller checks it)
    if not isinstance(data, list):
        return f"data is {type(data).__name__}, not a list or an object"
    if not typed and not set(map(type, data)) <= {dict}:
        return "an item of data is not an object"
    meta = doc.get("meta")
    for name in ("returned", "count"):
        said = meta.get(name) if isinstance(meta, dict) else None
        if type(said) is int and said != len(data):
            return f"meta.{name} is {said}, data holds {len(data)}"
    return None


def _bearer(request: Any) -> str | None:
    """The token of a request's ``Authorization: Bearer <token>`` header, else None (a stored
    request's header is requests-cache's ``REDACTED``)."""
    headers = getattr(request, "headers", None)
    auth = headers.get("Authorization") if headers is not None else None
    if isinstance(auth, str) and auth.startswith("Bearer "):
        return auth[len("Bearer ") :] or None
    return None


def echoes(response: Any, secrets: tuple[str, ...] = ()) -> str | None:
    """Where ``response`` holds a token: the one its request carried, or one of ``secrets``
    (the running call's, :func:`~dealframe.arguments.call_secrets`); None when it holds none.

    A token of 12 characters or more counts anywhere; a shorter one only as a whole word, as
    :func:`~dealframe.errors._scrub` blanks it (a token ``"2"`` is not in ``"count": 12``).

    Examples
    --------
    >>> import requests
    >>> r = requests.Response()
    >>> r.request = requests.Request("GET", "http://h/", headers={"Authorization": "Bearer "
    ...     "tok-0123456789ab"}).prepare()
    >>> r.headers["X-Echo"], r._content = "tok-0123456789ab", b'{"data": []}'
    >>> echoes(r)
    'a header'
    >>> r.headers.clear()
    >>> r._content = b'{"data": [], "meta": {"count": 12}}'
    >>> echoes(r), echoes(r, ("2",)), echoes(r, ("12",))
    (None, None, 'the body')
    >>> r._content = b'{"data": [], "meta": {"echo": "tok-0123456789ab"}}'
    >>> echoes(r)
    'the body'
    """
    token = _bearer(getattr(response, "request", None))
    found = {s for s in (token, *secrets) if s}
    if not found:
        return None
    headers = getattr(response, "headers", None) or {}
    parts = {
        "a header": "\n".join(f"{k}: {v}" for k, v in headers.items()).encode("utf-8", "replace"),
        "the reason phrase": str(getattr(response, "reason", None) or "").encode(
            "utf-8", "replace"
        ),
        "the body": getattr(response, "content", None) or b"",
    }
    for where, blob in parts.items():
        held = [s for s in found if s.encode("utf-8", "surrogatepass") in blob]
        if any(len(s) >= _ANYWHERE for s in held):
            return where
        if held:  # a short token counts as a whole word only
            text = blob.decode("utf-8", "replace")
            if _scrub(text, held) != text:
                return where
    return None


def storable(response: Any) -> bool:
    """requests-cache ``filter_fn``: store (and answer from the store) only well-formed bodies
    that are not plainly wrong (:func:`unsound`), and that hold no token (:func:`echoes`).

    Called by requests-cache before it writes a new response and after it reads a stored
    one; a stored body that fails is deleted there and then.
    """
    if getattr(response, "status_code", None) != 200:
        return False
    where = echoes(response, call_secrets())
    if where is not None:
        if getattr(_last, "echoed", None) != id(response):  # requests-cache asks twice
            _last.echoed = id(response)  # the answer itself is not kept
            request = getattr(response, "request", None)
            path = urlsplit(getattr(request, "url", None) or "").path
            logger.debug(
                "%s %s: not stored in the HTTP cache, the answer holds the token in %s",
                getattr(request, "method", None),
                path,
                where,
            )
        return False
    content = response.content or b""
    held = getattr(_last, "held", None)
    if held is None or held[0] is not content:
        doc, problem = _check(content)
        _last.held = held = (content, doc, problem)
    return held[2] is None and unsound(held[1]) is None
