"""The sandbox's ASGI application (Starlette).

Layers, outermost first: optional fault injection (:mod:`.faults`), auth per
family and optional rate limit (:class:`GateMiddleware`), then the routes of
:mod:`.routes`. Every error leaves as the documented JSON body; a bug becomes a
500 ``INTERNAL_ERROR`` rather than a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from .auth import check_authorization, family_of
from .problems import ApiProblem, error_response
from .state import SandboxState

__all__ = ["GateMiddleware", "build_app"]

log = logging.getLogger("dealframe.sandbox")


class _TokenBucket:
    """A per-key token bucket; ``take`` returns 0 or the seconds to wait."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(rate, 1.0)
        self._state: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        now = time.monotonic()
        with self._lock:
            tokens, last = self._state.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1:
                self._state[key] = (tokens - 1, now)
                return 0.0
            self._state[key] = (tokens, now)
            return (1 - tokens) / self.rate


class GateMiddleware:
    """Checks the bearer token of the path's family, the optional rate limit, then waits the
    optional simulated latency (asynchronously, so concurrent requests overlap)."""

    def __init__(self, app: ASGIApp, state: SandboxState) -> None:
        self.app = app
        self.state = state
        rate = state.config.rate_limit
        self.bucket = _TokenBucket(rate) if rate else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        family = family_of(scope["path"])
        if family is not None:
            header = None
            for name, value in scope["headers"]:
                if name == b"authorization":
                    header = value.decode("latin-1")
                    break
            cfg = self.state.config
            expected = cfg.public_token if family == "public" else cfg.private_key
            try:
                check_authorization(header, expected)
                if self.bucket is not None:
                    wait = self.bucket.take(expected)
                    if wait > 0:
                        raise ApiProblem(429, "RATE_LIMITED", "Too many requests",
                                         headers={"Retry-After": str(max(1, round(wait + 0.5)))})
            except ApiProblem as problem:
                await error_response(problem)(scope, receive, send)
                return
            if self.state.config.latency > 0:
                await asyncio.sleep(self.state.config.latency)
        await self.app(scope, receive, send)


async def _problem_handler(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, ApiProblem)
    return error_response(exc)


async def _http_handler(request: Request, exc: Exception) -> Any:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        return error_response(ApiProblem(405, "METHOD_NOT_ALLOWED",
                                         f"{request.method} is not allowed on {request.url.path}"))
    if exc.status_code == 404:
        return error_response(ApiProblem(404, "NOT_FOUND", f"No route for {request.url.path}"))
    return error_response(ApiProblem(exc.status_code, "HTTP_ERROR", str(exc.detail)))


async def _crash_handler(request: Request, exc: Exception) -> Any:
    log.exception("sandbox bug on %s %s", request.method, request.url.path)
    return error_response(ApiProblem(500, "INTERNAL_ERROR", "An internal error occurred"))


def build_app(state: SandboxState, *, faults: Any = None) -> ASGIApp:
    """Build the ASGI app serving ``state``.

    Parameters
    ----------
    state : SandboxState
        Data and stores (see :meth:`SandboxState.build`).
    faults : dealframe.sandbox.faults.FaultPlan, optional
        When given, requests matching the plan fail as it says.

    Returns
    -------
    ASGI application

    Examples
    --------
    >>> from dealframe.sandbox.state import SandboxConfig, SandboxState
    >>> app = build_app(SandboxState.build(SandboxConfig(scale=0.02)))
    """
    from .routes import all_routes

    app = Starlette(
        routes=all_routes(state),
        exception_handlers={ApiProblem: _problem_handler, HTTPException: _http_handler,
                            Exception: _crash_handler},
    )
    wrapped: ASGIApp = GateMiddleware(app, state)
    if faults is not None:
        from .faults import FaultInjector

        wrapped = FaultInjector(wrapped, faults)
    return wrapped
