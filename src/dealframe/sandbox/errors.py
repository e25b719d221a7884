"""Errors of the sandbox, in the documented body shape.

Every error the sandbox returns is ``{"error": {"code", "message", "details"?}}``
(docs/sandbox.md, "Errors"). Handlers raise :class:`ApiProblem`; the app turns it
into a response with :func:`error_body`. Input checks collect every problem with
:class:`Problems` so one 400 lists them all. Nothing here knows about HTTP servers.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = [
    "ApiProblem",
    "Problems",
    "bad_request",
    "error_body",
    "json_type",
    "json_value",
    "not_found",
    "payload_too_large",
]

_JSON_TYPES = ((bool, "boolean"), (int, "number"), (float, "number"), (str, "string"))


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages (``null``, ``array`` ...).

    Examples
    --------
    >>> json_type(None), json_type([1]), json_type(True), json_type(2.5)
    ('null', 'array', 'boolean', 'number')
    """
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "value")


def json_value(value: Any) -> str:
    """A parsed value as an error message shows it, in JSON's words, not Python's.

    ``null``, ``true`` and ``false`` for JSON's literals, strings quoted; numbers as JSON
    writes the value read (``5000``, ``2.5``, ``1e+20``: the text of the body is not kept, so
    ``1e15`` read as a float is ``1000000000000000.0``); an array or an object by its type (its
    content can be long). A value no JSON body holds (given in-process: a numpy number, a
    ``Decimal``) is shown with ``repr``.

    Examples
    --------
    >>> json_value(None), json_value(True), json_value(5000), json_value(2.5)
    ('null', 'true', '5000', '2.5')
    >>> json_value("week"), json_value([1, 2]), json_value({})
    ("'week'", 'array', 'object')
    >>> from decimal import Decimal
    >>> json_value(Decimal("2"))
    "Decimal('2')"
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json_type(value)
    return repr(value)


class ApiProblem(Exception):
    """An error answer: status, code, message and optional details."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers or {}


def bad_request(*errors: str) -> ApiProblem:
    """A 400 ``BAD_REQUEST`` whose ``details.errors`` lists each problem."""
    return ApiProblem(400, "BAD_REQUEST", "Invalid request", {"errors": list(errors)})


def not_found(
    what: str, ident: str | None = None, *, deleted: bool = False, hint: str | None = None
) -> ApiProblem:
    """A 404 ``NOT_FOUND``; soft-deleted entities say so in ``details``.

    ``hint`` (soft-deleted only) is the route's own advice: a profile route can
    read the entity with ``include_deleted=true``, a sub-collection route cannot,
    so each route words it (docs/sandbox.md, "Errors").

    Examples
    --------
    >>> not_found("Company", "c0ffee", deleted=True, hint="pass include_deleted=true").details
    {'deleted': True, 'id': 'c0ffee', 'hint': 'pass include_deleted=true'}
    >>> not_found("Company", "c0ffee").message
    'Company not found'
    """
    if deleted:
        details: dict[str, Any] = {"deleted": True, "id": ident}
        if hint:
            details["hint"] = hint
        return ApiProblem(404, "NOT_FOUND", "Resource is deleted", details)
    return ApiProblem(
        404, "NOT_FOUND", f"{what} not found", {"id": ident} if ident is not None else None
    )


class Problems:
    """Collects input problems; :meth:`raise_if_any` raises one 400 with all of them."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def add(self, message: str) -> None:
        self.errors.append(message)

    def raise_if_any(self) -> None:
        if self.errors:
            raise bad_request(*self.errors)


def payload_too_large(limit: int) -> ApiProblem:
    """A 413 ``PAYLOAD_TOO_LARGE`` for a body over ``limit`` bytes (answered unread).

    Examples
    --------
    >>> payload_too_large(1024).details
    {'errors': ['body: at most 1024 bytes'], 'limit_bytes': 1024}
    """
    return ApiProblem(
        413,
        "PAYLOAD_TOO_LARGE",
        "Request body too large",
        {"errors": [f"body: at most {limit} bytes"], "limit_bytes": limit},
    )


def error_body(problem: ApiProblem) -> bytes:
    """The serialised error body of ``problem``.

    Examples
    --------
    >>> error_body(bad_request("limit: too big"))
    b'{"error":{"code":"BAD_REQUEST","message":"Invalid request","details":{"errors":["limit: too big"]}}}'
    """
    error: dict[str, Any] = {"code": problem.code, "message": problem.message}
    if problem.details is not None:
        error["details"] = problem.details
    return orjson.dumps({"error": error})
