"""The parsed request every handler receives, and the parsing helpers handlers share.

The app (:mod:`dealframe.sandbox.app`) reads the body within the size bound, parses it
with :func:`parse_body` as its URL entry says, and hands a :class:`ApiRequest` to the
handler. Everything here is pure: handlers can be called without a server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import ApiProblem, Problems, bad_request, json_type

__all__ = [
    "ApiRequest",
    "bool_param",
    "check_members",
    "int_param",
    "parse_body",
    "path_id",
    "query_param",
]

_ASCII_INT = re.compile(r"-?[0-9]+")
_MAX_DIGITS = 30
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


@dataclass(frozen=True)
class ApiRequest:
    """A request as handlers see it.

    Attributes
    ----------
    path : str
        The URL path.
    path_params : mapping
        Parameters of the URL pattern (``{"id": ...}``).
    query : mapping
        Query parameters. The server's is a multi-dict (Starlette's ``QueryParams``), whose
        ``get`` is the last value of a repeated parameter: read them with
        :func:`query_param`, which refuses a repeated one.
    body : dict
        The JSON object of the body; ``{}`` when the endpoint takes none or it was empty.
    """

    path: str = "/"
    path_params: Mapping[str, str] = field(default_factory=dict)
    query: Mapping[str, str] = field(default_factory=dict)
    body: dict[str, Any] = field(default_factory=dict)


def parse_body(raw: bytes, *, required: bool) -> dict[str, Any]:
    """The body as a JSON object; an empty body (or ``null``) is ``{}`` unless ``required``.

    Malformed JSON, a body that is not an object, and a member given more than once in one
    object (:func:`_refuse_repeated_members`) are 400s.

    Examples
    --------
    >>> parse_body(b"", required=False), parse_body(b'{"limit": 5}', required=True)
    ({}, {'limit': 5})
    >>> parse_body(b"[1]", required=False)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.errors.ApiProblem: 400 BAD_REQUEST: Invalid request
    """
    if not raw.strip():
        if required:
            raise bad_request("body: a JSON object is required")
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise bad_request(f"body: malformed JSON ({exc.msg} at position {exc.pos})") from None
    if body is None and not required:
        return {}
    if not isinstance(body, dict):
        raise bad_request(f"body: expected a JSON object, got {json_type(body)}")
    _refuse_repeated_members(raw, body)
    return body


_CONTAINERS = (dict, list)
#: A JSON string of a text orjson accepted (so well formed): its quotes and what they hold.
_STRING = re.compile(rb'"(?>[^"\\]*)(?>\\.[^"\\]*)*"', re.DOTALL)


def _members(body: dict[str, Any]) -> int:
    """How many object members ``body`` holds, at every depth (a loop: no depth limit).

    A list whose items hold no object or list (ids, names) is passed over at C speed.

    Examples
    --------
    >>> _members({"a": {"b": [1, {"c": 2, "d": [[]]}]}, "e": ["x", "y"]})
    5
    """
    count = 0
    stack: list[Any] = [body]
    while stack:
        value = stack.pop()
        items: Iterable[Any] = value.values() if isinstance(value, dict) else value
        count += len(value) if isinstance(value, dict) else 0
        kinds = set(map(type, items))
        if dict in kinds or list in kinds:
            stack.extend(v for v in items if isinstance(v, _CONTAINERS))
    return count


def _as_many_members(raw: bytes, body: dict[str, Any]) -> bool:
    r"""Whether the text ``raw`` holds no more object members than the parsed ``body``: no
    member was given twice in one object (exactly).

    Outside its strings, a JSON text has one ``:`` per member, and a repeated member is one
    member fewer in the parsed objects. Inside strings, a colon is written ``:`` (the same
    count in the text and in ``orjson.dumps(body)``, which writes each string's colons as
    colons) unless escaped (``\u003a``): so when no ``\u003`` is in the text, the colons
    of the text and of the body written again are as many exactly when no member was repeated
    (two counts in C; the common case). Otherwise (an escape, or a body nested deeper than
    orjson writes, about 250 levels), the colons outside the text's strings are counted
    against the members of ``body`` (a regular expression and a loop, linear in the text).

    Examples
    --------
    >>> _as_many_members(b'{"t": "12:00", "u": "\\u003a"}', {"t": "12:00", "u": ":"})
    True
    >>> _as_many_members(b'{"a": 1, "\\u0061": 2}', {"a": 2})
    False
    """
    if b"\\" not in raw or b"\\u003" not in raw:  # (a byte found faster than five)
        try:
            return raw.count(b":") == orjson.dumps(body).count(b":")
        except orjson.JSONEncodeError:  # deeper than orjson writes: counted below
            pass
    return _STRING.sub(b"", raw).count(b":") == _members(body)


def _check_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object, or a 400 naming a member given more than once
    (one pass: linear in the members, however many)."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                break
            seen.add(key)
        times = sum(name == key for name, _ in pairs)
        raise bad_request(f"{key}: given more than once ({times} times) in the body; give it once")
    return out


def _refuse_repeated_members(raw: bytes, body: dict[str, Any]) -> None:
    """A 400 naming a member given twice in one object of ``raw`` (``{"limit": 1, "limit": 3}``).

    orjson, like every JSON parser, keeps the last of repeated members: a silent choice of one
    value, which the sandbox refuses as it refuses a repeated query parameter. orjson has no
    option to refuse them, so :func:`_as_many_members` tells exactly whether there is one
    (cheaply); only then is the text read again with the standard library's parser, which
    lists each object's members, to name it. A text nested deeper than that parser reads
    (about 1,000 levels) is refused without the name.

    Examples
    --------
    >>> _refuse_repeated_members(b'{"a": {"t": "12:00"}}', {"a": {"t": "12:00"}})
    >>> _refuse_repeated_members(b'{"limit": 1, "limit": 3}', {"limit": 3})
    Traceback (most recent call last):
    ...
    dealframe.sandbox.errors.ApiProblem: 400 BAD_REQUEST: Invalid request
    """
    if _as_many_members(raw, body):
        return
    try:
        json.loads(raw, object_pairs_hook=_check_pairs)
    except (RecursionError, ValueError):  # nested past its depth, or read otherwise
        pass
    raise bad_request("body: a member is given more than once in one object; give it once")


def check_members(
    body: Mapping[str, Any], allowed: tuple[str, ...], problems: Problems, where: str = "body"
) -> None:
    """Report members of ``body`` that are not in ``allowed``."""
    for key in body:
        if key not in allowed:
            problems.add(f"{where}.{key}: unknown member; allowed: {', '.join(allowed)}")


def query_param(query: Mapping[str, str], name: str, problems: Problems) -> str | None:
    """The value of query parameter ``name`` (None when absent); given more than once, a
    problem naming it (and None).

    A repeated parameter (``?fields=name&fields=country``) has no meaning the interface
    document gives: taking the last (or the first) would answer a question not asked. A
    plain mapping (a handler called without a server) holds one value per name.

    Examples
    --------
    >>> from starlette.datastructures import QueryParams
    >>> p = Problems()
    >>> query_param(QueryParams("fields=name"), "fields", p), p.errors
    ('name', [])
    >>> query_param(QueryParams("fields=name&fields=country"), "fields", p), p.errors
    (None, ['fields: given more than once (2 times); give it once'])
    """
    getlist = getattr(query, "getlist", None)
    values = list(getlist(name)) if callable(getlist) else []
    if len(values) > 1:
        problems.add(f"{name}: given more than once ({len(values)} times); give it once")
        return None
    return query.get(name)


def int_param(
    query: Mapping[str, str], name: str, default: int, lo: int, hi: int, problems: Problems
) -> int:
    """An integer query parameter within ``lo..hi``, written in ASCII digits.

    Only an optional minus sign and the digits 0-9 are accepted (surrounding spaces
    ignored): Python's ``int`` would also take other scripts' digits (``"٣"``) and
    underscores (``"1_0"``), which no client means. Out of range (or unreadable) is
    a problem naming the parameter and the range; the default is returned then.

    Examples
    --------
    >>> p = Problems()
    >>> int_param({"page": " 3 "}, "page", 1, 1, 10**9, p), p.errors
    (3, [])
    >>> int_param({"limit": "٣"}, "limit", 100, 1, 1000, p), p.errors
    (100, ["limit: must be an integer between 1 and 1000, got '٣'"])
    """
    raw = query_param(query, name, problems)
    if raw is None:
        return default
    rule = f"an integer between {lo} and {hi}"
    text = raw.strip()
    if not _ASCII_INT.fullmatch(text):
        problems.add(f"{name}: must be {rule}, got {raw!r}")
        return default
    if len(text.lstrip("-")) > _MAX_DIGITS:  # far out of range: no int() of a huge string
        problems.add(f"{name}: must be {rule}, got {text[:24]}... ({len(text)} characters)")
        return default
    value = int(text)
    if not lo <= value <= hi:
        problems.add(f"{name}: must be {rule}, got {value}")
        return default
    return value


def bool_param(query: Mapping[str, str], name: str, problems: Problems) -> bool:
    """A ``true``/``false`` (or ``1``/``0``) query parameter; absent is false.

    Case and surrounding spaces are ignored: ``True`` is how Python's ``requests`` writes
    ``params={"include_deleted": True}``. Anything else, or the parameter given more than
    once, is a problem naming it (docs/sandbox.md, "include_deleted").

    Examples
    --------
    >>> p = Problems()
    >>> bool_param({"include_deleted": "TRUE"}, "include_deleted", p), bool_param({}, "x", p)
    (True, False)
    """
    raw = query_param(query, name, problems)
    if raw is None:
        return False
    value = raw.strip().lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    problems.add(f"{name}: must be true or false, got {raw!r}")
    return False


def path_id(request: ApiRequest, post_only: frozenset[str] = frozenset()) -> str:
    """The ``{id}`` of the path, lower-cased; a 400 when it is not a UUID.

    A GET on a known POST-only path that the ``{id}`` pattern also matches
    (``GET /companies/resolve``) is a 405 instead (docs/sandbox.md).

    Examples
    --------
    >>> path_id(ApiRequest(path_params={"id": "0D0E0F00-0000-4000-8000-000000000000"}))
    '0d0e0f00-0000-4000-8000-000000000000'
    """
    ident = request.path_params["id"]
    if request.path.rstrip("/") in post_only:
        raise ApiProblem(405, "METHOD_NOT_ALLOWED", f"GET is not allowed on {request.path}")
    if not _UUID.fullmatch(ident):  # (match() lets a final newline through)
        raise bad_request(f"id: {ident!r} is not a UUID")
    return ident.lower()
