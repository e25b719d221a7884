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
``dealframe.transport`` logger (DEBUG) says it was not stored, once per answer. An entry an
earlier release stored with a token in it is discarded by the transport as it reads it.

The cache's filter (:func:`storable`) and the transport both need the parsed body; a body is
parsed once, by whichever asks first in the thread, and the other takes the result
(:func:`parse`), so checking costs no second parse.

A caller that knows the shape of the answers it asks for may give a schema'd reader
(:func:`expecting`): a body that reader takes is returned as :class:`Read` (no JSON objects
are built); any other body is checked as above. A caller that reads the body on another
thread (a page walk, whose worker threads only fetch) may have the check left to it
(:func:`later`): a body the HTTP cache has not checked (to store it) is then returned as
``Read(LATER)``, unread, for the caller to check with :func:`parse` on its own thread.

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
import re
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import orjson

from dealframe.arguments import call_secrets
from dealframe.errors import _ANYWHERE, _forms
from dealframe.notices import setting

__all__ = [
    "LATER",
    "NON_FINITE",
    "TRUNCATED",
    "Read",
    "echoes",
    "document",
    "expecting",
    "holds",
    "later",
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
_LATER: ContextVar[bool] = ContextVar("dealframe_later", default=False)


class _Later:
    """The stand-in for a body left unread (:func:`later`)."""

    def __repr__(self) -> str:
        return "LATER"


#: What :func:`parse` returns, as ``Read(LATER)``, for a body it leaves unread (:func:`later`).
LATER: Any = _Later()


class Read(NamedTuple):
    """A body taken by the reader given to :func:`expecting`, as that reader returned it."""

    doc: Any


def expecting(reader: Callable[[bytes], Any]) -> AbstractContextManager[None]:
    """Within this block (this thread or task only), a success body is first given to
    ``reader``; what it returns (not None) is the body, as :class:`Read`.

    Examples
    --------
    >>> with expecting(lambda content: len(content) if content.startswith(b"{") else None):
    ...     parse(b'{"data": []}')
    (Read(doc=12), None)
    """
    return setting(_READER, reader)


def later() -> AbstractContextManager[None]:
    """Within this block (this thread or task only), :func:`parse` leaves a body that nothing
    has checked yet unread: it returns ``(Read(LATER), None)``, and the caller checks the body
    (:attr:`Response.content <dealframe.transport.session.Response>`) with :func:`parse` on
    its own thread, where a worker would have held the GIL for the whole read. A body the HTTP
    cache checked to store it (:func:`storable`) is returned as read.

    Examples
    --------
    >>> with later():
    ...     parse(b'{"data": []}')
    (Read(doc=LATER), None)
    """
    return setting(_LATER, True)


def _check(content: bytes) -> tuple[Any, str | None]:
    reader = _READER.get()
    doc = reader(content) if reader is not None and content else None
    if doc is not None:
        return Read(doc), None
    return document(content)


def document(content: bytes) -> tuple[Any, str | None]:
    """The check of :func:`parse` without a schema'd reader (:func:`expecting`) nor
    :func:`later`: ``(document, None)``, ``(document, problem)`` for a body read with
    ``NaN``/``Infinity`` tokens as null, else ``(None, problem)``.

    Examples
    --------
    >>> document(b'{"data": [NaN]}')
    ({'data': [None]}, 'number tokens that JSON does not have (NaN): read as null')
    """
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
    (the cache filter's), then forgets it; within :func:`later`, a body not checked yet is
    ``(Read(LATER), None)``.
    """
    held = getattr(_last, "held", None)
    if held is not None and held[0] is content:
        _last.held = None
        return held[1], held[2]
    if _LATER.get():
        return Read(LATER), None
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


#: Headers that HTTP servers and the stack between set themselves: never where a service
#: echoes a token, and where a short one is found by chance (``json``, ``GMT``, ``1``).
_FIXED_HEADERS = frozenset(
    {
        "age",
        "cache-control",
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "date",
        "etag",
        "expires",
        "keep-alive",
        "last-modified",
        "server",
        "transfer-encoding",
        "vary",
        "via",
    }
)
#: An escape JSON allows but need not use for a character a token may hold (tokens are
#: printable ASCII: ``Settings`` refuses any other): ``\\/`` and ``\\u0020`` to ``\\u007f``;
#: an escaped backslash (``\\\\``) is read as one escape, so that none is taken from it.
#: Other escapes (``\\u00fc`` as Python's ``json`` writes a non-ASCII letter) hide none.
_ESCAPE = re.compile(rb"\\(?:(/)|u00([2-7][0-9A-Fa-f])|\\)")
#: A ``\\u0020`` to ``\\u007f`` escape: the one :data:`_ESCAPE` reads that a replace cannot.
_PRINTABLE_ESCAPE = re.compile(rb"\\u00([2-7][0-9A-Fa-f])")


def _json_text(text: str) -> bytes:
    """``text`` as a JSON string writes it (without its quotes), as bytes: the form a token
    takes in a body that escapes only what JSON must (quote, backslash, control characters)."""
    return json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass")


def _plain(match: re.Match[bytes]) -> bytes:
    """One escape of :data:`_ESCAPE` as :func:`_json_text` writes its character."""
    if match[1]:
        return b"/"
    if match[2]:
        return _json_text(chr(int(match[2], 16)))
    return match[0]


def _unescaped(content: bytes, slash: bool) -> bytes:
    """``content`` with the escapes JSON allows but need not use (``\\/``, ``\\u006b``)
    written as :func:`_json_text` writes their character, so that a search for a token's
    form finds it; ``content`` itself when none is there. ``slash``: whether a token holds a
    ``/`` (else a ``\\/`` hides none and is left).

    A body that writes every ``/`` as ``\\/`` (PHP's JSON) costs one ``bytes.replace``, and
    a few ``\\u0041`` one pass of a pattern; only one with an escaped backslash too is read
    escape by escape (a ``\\\\/`` is a backslash and a slash, not a ``\\/``).

    Examples
    --------
    >>> _unescaped(rb'{"u": "http:\\/\\/x", "t": "sk\\u005fa\\u0022"}', True)
    b'{"u": "http://x", "t": "sk_a\\\\""}'
    >>> _unescaped(rb'"a\\\\/b\\/c"', True)  # an escaped backslash, then a slash
    b'"a\\\\\\\\/b/c"'
    """
    if b"\\" not in content:
        return content
    if b"\\\\" in content:
        return _ESCAPE.sub(_plain, content)
    plain = content.replace(b"\\/", b"/") if slash else content
    if _PRINTABLE_ESCAPE.search(plain) is not None:
        plain = _PRINTABLE_ESCAPE.sub(lambda m: _json_text(chr(int(m[1], 16))), plain)
    return plain


def _in_body(content: bytes, long: list[bytes], short: list[bytes]) -> bool:
    """Whether ``content`` holds one of the ``long`` forms anywhere, or one of the ``short``
    forms as a whole string value: quoted, the quote not escaped, no colon after it (not a
    member name). A plain search first: the pattern only runs where a quoted form is."""
    if any(form in content for form in long):
        return True
    quoted = [b'"' + form + b'"' for form in short]
    if not any(form in content for form in quoted):
        return False
    either = b"|".join(re.escape(form) for form in quoted)
    return re.search(rb"(?<!\\)(?:" + either + rb")(?!\s*:)", content) is not None


def holds(content: bytes, tokens: Iterable[str]) -> bool:
    """Whether a JSON body holds one of ``tokens``: one of 12 characters or more anywhere, a
    shorter one only as a whole string value (not a member name, not a word in a text).

    A token is looked for in each form a service may echo it in (as it is, percent-encoded
    in a URL: :func:`~dealframe.errors._forms`), as JSON writes it (a ``"`` or ``\\`` in it
    escaped), and in a body
    that uses escapes JSON allows but need not (``"sk\\/live"``, ``"\\u0073k"``) as that
    body written without them (:func:`_unescaped`): a search of bytes, no parse.

    Examples
    --------
    >>> holds(rb'{"data": [{"name": "sk\\/live-0123456789"}]}', ["sk/live-0123456789"])
    True
    >>> holds(rb'{"data": [{"name": "a\\"b-0123456789"}]}', ['a"b-0123456789'])
    True
    >>> holds(b'{"data": [], "meta": {"page": 2, "note": "2 of 3"}}', ["2"])
    False
    """
    found = [token for token in tokens if token]
    long = [_json_text(f) for s in found if len(s) >= _ANYWHERE for f in _forms(s)]
    short = [_json_text(f) for s in found if len(s) < _ANYWHERE for f in _forms(s)]
    if not long and not short:
        return False
    if _in_body(content, long, short):
        return True
    plain = _unescaped(content, any(b"/" in form for form in (*long, *short)))
    return plain is not content and _in_body(plain, long, short)


def echoes(response: Any, secrets: Iterable[str] = ()) -> str | None:
    """Where ``response`` holds a token: the one its request carried, or one of ``secrets``
    (the running call's, :func:`~dealframe.arguments.call_secrets`); None when it holds none.

    A token (in each of its forms: :func:`~dealframe.errors._forms`) of 12 characters or more
    counts anywhere but in the headers every server sets
    itself (``Date``, ``Content-Type``, ``Server`` ...: :data:`_FIXED_HEADERS`). A shorter
    one counts only as a whole header value, a whole reason phrase or a whole JSON string
    value (not a member name, not a number, not a word in a text): a token ``"json"`` is not
    in ``Content-Type: application/json``, nor ``"1"`` in ``"page": 1``.

    The body is searched by :func:`holds` (a token written with escapes JSON allows but need
    not use, ``"sk\\/live"`` or ``"\\u0073k"``, is found too), without parsing it.

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
    >>> r.headers["Content-Type"] = "application/json"
    >>> r._content = b'{"data": [], "meta": {"count": 12, "note": "a 2 json"}}'
    >>> echoes(r), echoes(r, ("2", "json", "12")), echoes(r, ("a 2 json",))
    (None, None, 'the body')
    >>> r._content = b'{"data": [], "meta": {"echo": "tok-0123456789ab"}}'
    >>> echoes(r)
    'the body'
    >>> r._content = b'{"data": [], "meta": {"echo": "tok-\\\\u0030123456789ab"}}'
    >>> echoes(r)
    'the body'
    """
    token = _bearer(getattr(response, "request", None))
    found = {s for s in (token, *secrets) if s}
    if not found:
        return None
    short = [f for s in found if len(s) < _ANYWHERE for f in _forms(s)]
    long = [f for s in found if len(s) >= _ANYWHERE for f in _forms(s)]
    headers = getattr(response, "headers", None) or {}
    for name, value in headers.items():
        if str(name).lower() in _FIXED_HEADERS:
            continue
        text = f"{name}: {value}"
        if any(s in text for s in long) or str(value).strip() in short:
            return "a header"
    reason = str(getattr(response, "reason", None) or "")
    if any(s in reason for s in long) or reason.strip() in short:
        return "the reason phrase"
    if holds(getattr(response, "content", None) or b"", found):
        return "the body"
    return None


def storable(response: Any) -> bool:
    """requests-cache ``filter_fn``: store (and answer from the store) only well-formed bodies
    that are not plainly wrong (:func:`unsound`), and that hold no token (:func:`echoes`).

    Called by requests-cache before it writes a new response and after it reads a stored
    one (and again as it returns it: the verdict on the same response object is kept, one
    per thread); a stored body that fails is deleted there and then.
    """
    judged = getattr(_last, "judged", None)
    if judged is not None and judged[0]() is response:  # requests-cache asks twice
        return bool(judged[1])
    verdict = _storable(response)
    try:
        _last.judged = (weakref.ref(response), verdict)  # the answer itself is not kept
    except TypeError:  # an object without weak references: judged again next time
        _last.judged = None
    return verdict


def _storable(response: Any) -> bool:
    if getattr(response, "status_code", None) != 200:
        return False
    content = response.content or b""
    held = getattr(_last, "held", None)
    if held is None or held[0] is not content:
        doc, problem = _check(content)
        _last.held = held = (content, doc, problem)
    if held[2] is not None or unsound(held[1]) is not None:
        return False
    where = echoes(response, call_secrets())
    if where is not None:
        request = getattr(response, "request", None)
        path = urlsplit(getattr(request, "url", None) or "").path
        logger.debug(
            "%s %s: not stored in the HTTP cache, the answer holds the token in %s",
            getattr(request, "method", None),
            path,
            where,
        )
        return False
    return True
