"""Request parsing shared by the sandbox routes."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request

from ..problems import ApiProblem, Problems, bad_request

__all__ = ["read_json_object", "check_members", "int_param"]


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


def int_param(request: Request, name: str, default: int, lo: int, hi: int | None,
              problems: Problems) -> int:
    """An integer query parameter within ``lo..hi`` (``hi`` None: no upper bound)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        problems.add(f"{name}: must be an integer, got {raw!r}")
        return default
    if value < lo or (hi is not None and value > hi):
        rule = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        problems.add(f"{name}: must be {rule}, got {value}")
    return value
