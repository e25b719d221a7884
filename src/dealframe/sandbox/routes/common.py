"""Request parsing shared by the sandbox routes."""

from __future__ import annotations

import re
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request

from ..problems import ApiProblem, Problems, bad_request

__all__ = ["read_json_object", "check_members", "int_param"]

_ASCII_INT = re.compile(r"-?[0-9]+")
_MAX_DIGITS = 30


async def read_json_object(request: Request, *, required: bool = False) -> dict[str, Any]:
    """Parse the body as a JSON object; an empty body is ``{}`` unless ``required``."""
    try:
        raw = await request.body()
    except ClientDisconnect:
        # The client went away mid-body (a timeout on its side): nobody will read an answer,
        # and it is not a server failure to log as one.
        raise ApiProblem(499, "CLIENT_CLOSED_REQUEST", "The client closed the connection") from None
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
        raise bad_request(f"body: expected a JSON object, got {type(body).__name__}")
    return body


def check_members(body: dict[str, Any], allowed: tuple[str, ...], problems: Problems,
                  where: str = "body") -> None:
    """Report members of ``body`` that are not in ``allowed``."""
    for key in body:
        if key not in allowed:
            problems.add(f"{where}.{key}: unknown member; allowed: {', '.join(allowed)}")


def int_param(request: Request, name: str, default: int, lo: int, hi: int,
              problems: Problems) -> int:
    """An integer query parameter within ``lo..hi``, written in ASCII digits.

    Only an optional minus sign and the digits 0-9 are accepted (surrounding spaces
    ignored): Python's ``int`` would also take other scripts' digits (``"٣"``) and
    underscores (``"1_0"``), which no client means. Out of range (or unreadable) is
    a problem naming the parameter and the range; the default is returned then.

    Examples
    --------
    >>> from starlette.requests import Request
    >>> def query(text: bytes) -> Request:
    ...     return Request({"type": "http", "query_string": text, "headers": []})
    >>> p = Problems()
    >>> int_param(query(b"page=%203%20"), "page", 1, 1, 10**9, p), p.errors
    (3, [])
    >>> int_param(query(b"limit=%D9%A3"), "limit", 100, 1, 1000, p), p.errors
    (100, ["limit: must be an integer between 1 and 1000, got '٣'"])
    """
    raw = request.query_params.get(name)
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
