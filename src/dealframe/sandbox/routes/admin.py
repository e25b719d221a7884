"""Admin routes (``/admin/v1``): the sandbox's clock and seeded changes, for mirror tests.

Off unless the sandbox was started with an ``admin_token``; every request needs
``Authorization: Bearer <admin_token>`` (the Family A and B tokens are refused).
See docs/sandbox.md, "Changes and the clock".
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from ..auth import check_authorization
from ..changes import ENTITIES, ChangeInputError, Changes
from ..data import iso_ts
from ..problems import Problems, bad_request, json_response
from ..state import SandboxState
from .common import check_members, read_json_object

__all__ = ["PREFIX", "routes"]

PREFIX = "/admin/v1"
_OPERATIONS = ("update", "insert", "soft_delete", "undelete", "random_round")


def routes(state: SandboxState) -> list[BaseRoute]:
    """The admin routes bound to ``state`` (empty when no admin token is configured)."""
    token = state.config.admin_token
    if not token:
        return []
    changes = Changes(state, seed=state.config.seed)

    def authorise(request: Request) -> None:
        check_authorization(request.headers.get("authorization"), token)

    def clock_body() -> dict[str, Any]:
        return {"data": {"now": iso_ts(changes.now())}}

    async def clock(request: Request) -> Any:
        authorise(request)
        return json_response(clock_body())

    async def advance(request: Request) -> Any:
        authorise(request)
        body = await read_json_object(request, required=True)
        problems = Problems()
        check_members(body, ("seconds",), problems)
        problems.raise_if_any()
        try:
            changes.advance(body.get("seconds"))
        except ChangeInputError as exc:
            raise bad_request(str(exc)) from None
        return json_response(clock_body())

    async def apply(request: Request) -> Any:
        authorise(request)
        body = await read_json_object(request, required=True)
        problems = Problems()
        check_members(body, ("operation", "entity", "n", "advance_seconds"), problems)
        op = body.get("operation")
        if op not in _OPERATIONS:
            problems.add(f"operation: {op!r} is not one of {', '.join(_OPERATIONS)}")
        if op != "random_round" and body.get("entity") not in (*ENTITIES, "transactions"):
            problems.add(f"entity: {body.get('entity')!r} is not one of {', '.join(ENTITIES)}")
        problems.raise_if_any()
        try:
            if op == "random_round":
                ids = changes.random_round(body.get("n"),
                                           advance_seconds=body.get("advance_seconds", 3600.0))
            else:
                ids = getattr(changes, op)(body["entity"], body.get("n"))
        except ChangeInputError as exc:
            raise bad_request(str(exc)) from None
        return json_response({"data": {"ids": ids, **clock_body()["data"]}})

    return [Route(f"{PREFIX}/clock", clock, methods=["GET"]),
            Route(f"{PREFIX}/advance", advance, methods=["POST"]),
            Route(f"{PREFIX}/changes", apply, methods=["POST"])]
