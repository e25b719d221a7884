"""Admin handlers (``/admin/v1``): the sandbox's clock and seeded changes, for mirror tests.

Served only when the sandbox was started with an ``admin_token``; every request needs
``Authorization: Bearer <admin_token>`` (checked by the app before these handlers).
Changes continue one random stream seeded with the sandbox's ``seed``
(``state.admin_rng``). See docs/sandbox.md, "Changes and the clock".
"""

from __future__ import annotations

from typing import Any

import orjson

from ..changes import ChangeInputError, Changes, entity_named
from ..errors import Problems, bad_request, json_value
from ..models import SandboxState
from ..models.data import iso_ts
from .request import ApiRequest, check_members

__all__ = ["PREFIX", "advance", "apply", "clock"]

PREFIX = "/admin/v1"
_OPERATIONS = ("update", "insert", "soft_delete", "undelete", "random_round")


def _now(models: SandboxState) -> str:
    return iso_ts(models.clock.now())


def clock(request: ApiRequest, models: SandboxState) -> bytes:
    """``GET /admin/v1/clock``: the sandbox clock."""
    return orjson.dumps({"data": {"now": _now(models)}})


def advance(request: ApiRequest, models: SandboxState) -> bytes:
    """``POST /admin/v1/advance``: move the clock forward by ``seconds``."""
    problems = Problems()
    check_members(request.body, ("seconds",), problems)
    problems.raise_if_any()
    try:
        seconds: Any = request.body.get("seconds")  # checked by Changes.advance
        Changes(models, models.admin_rng).advance(seconds)
    except ChangeInputError as exc:
        raise bad_request(str(exc)) from None
    return clock(request, models)


def apply(request: ApiRequest, models: SandboxState) -> bytes:
    """``POST /admin/v1/changes``: one seeded operation (or a random round); the ids changed."""
    body, problems = request.body, Problems()
    check_members(body, ("operation", "entity", "n", "advance_seconds"), problems)
    op: Any = body.get("operation")
    if op not in _OPERATIONS:
        problems.add(f"operation: {json_value(op)} is not one of {', '.join(_OPERATIONS)}")
    if op != "random_round":
        try:  # the words of Changes, did-you-mean included (docs/sandbox.md)
            entity_named(body.get("entity"))
        except ChangeInputError as exc:
            problems.add(str(exc))
    problems.raise_if_any()
    changes = Changes(models, models.admin_rng)
    try:
        if op == "random_round":
            n: Any = body.get("n")  # checked by the Changes methods
            ids = changes.random_round(n, advance_seconds=body.get("advance_seconds", 3600.0))
        else:
            ids = getattr(changes, op)(body["entity"], body.get("n"))
    except ChangeInputError as exc:
        raise bad_request(str(exc)) from None
    return orjson.dumps({"data": {"ids": ids, "now": _now(models)}})
