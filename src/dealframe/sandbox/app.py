"""The sandbox's ASGI application (Starlette), built from the URL table.

Layers, outermost first: optional fault injection (:mod:`.faults`), the gate
(:class:`GateMiddleware`: token per family, optional rate limit and latency), then one
Starlette route per :class:`~.urls.Url`. Each route reads the JSON body within
:data:`~.vocab.MAX_BODY_BYTES` (a larger one is answered 413 without being read),
builds the :class:`~.responses.request.ApiRequest` and calls the handler in a worker
thread (Starlette's thread pool), so that one long request does not hold the event loop
and every other request behind it (the stores take their own locks). Every
error leaves as the documented JSON body; a bug becomes a 500 ``INTERNAL_ERROR``
rather than a traceback.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route, compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from .auth import check_authorization, family_of
from .errors import ApiProblem, payload_too_large
from .faults import FaultInjector, FaultPlan, fault_plan
from .models import SandboxState
from .profiles import DEFAULT, ErrorWriter, Profile, default_error, select
from .responses.request import ApiRequest, parse_body
from .stopping import Stopping
from .urls import Url, table
from .vocab import MAX_BODY_BYTES

__all__ = ["ErrorAnswers", "GateMiddleware", "allowed_methods", "build_app", "read_body"]

log = logging.getLogger("dealframe.sandbox")

_JSON = "application/json"


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


class ErrorAnswers:
    """Writes error answers: Family B's with the profile's writer (its body is not shown by
    the interface document), every other one in the documented shape."""

    def __init__(self, private: ErrorWriter | None = None) -> None:
        self.private = private

    def response(self, problem: ApiProblem, path: str) -> Response:
        writer: ErrorWriter = default_error
        if self.private is not None and family_of(path) == "private":
            writer = self.private
        body, media_type = writer(problem)
        return Response(
            body, status_code=problem.status, media_type=media_type, headers=problem.headers
        )


class GateMiddleware:
    """Checks the bearer token of the path's family (the admin token for ``/admin/v1``), the
    optional rate limit, then waits the optional simulated latency (asynchronously, so
    concurrent requests overlap; a server that stops ends the wait at once: ``stopping``).
    Admin paths of a sandbox without an admin token pass through to a 404."""

    def __init__(
        self,
        app: ASGIApp,
        state: SandboxState,
        errors: ErrorAnswers | None = None,
        stopping: Stopping | None = None,
    ) -> None:
        self.app = app
        self.state = state
        self.errors = errors or ErrorAnswers()
        self.stopping = stopping if stopping is not None else Stopping()
        rate = state.config.rate_limit
        self.bucket = _TokenBucket(rate) if rate else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        family = family_of(scope["path"]) if scope["type"] == "http" else None
        cfg = self.state.config
        expected = {
            "public": cfg.public_token,
            "private": cfg.private_key,
            "admin": cfg.admin_token,
        }.get(family or "")
        if expected is None:
            await self.app(scope, receive, send)
            return
        header = next(
            (v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), None
        )
        try:
            check_authorization(header, expected)
            if self.bucket is not None and family != "admin":
                wait = self.bucket.take(expected)
                if wait > 0:
                    raise ApiProblem(
                        429,
                        "RATE_LIMITED",
                        "Too many requests",
                        headers={"Retry-After": str(max(1, round(wait + 0.5)))},
                    )
        except ApiProblem as problem:
            await self.errors.response(problem, scope["path"])(scope, receive, send)
            return
        if cfg.latency > 0 and family != "admin":
            await self.stopping.pause(cfg.latency)
        await self.app(scope, receive, send)


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request body, or a 413 as soon as it is known to pass ``limit`` bytes.

    A declared ``Content-Length`` over the limit is refused before reading anything; a
    chunked body is counted as it streams in and refused at the first chunk past it.
    """
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise payload_too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise payload_too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        # The client went away mid-body (a timeout on its side): nobody will read an answer,
        # and it is not a server failure to log as one.
        raise ApiProblem(499, "CLIENT_CLOSED_REQUEST", "The client closed the connection") from None
    return b"".join(chunks)


def _endpoint(url: Url, state: SandboxState) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of one URL table entry."""
    required = url.body == "required"

    async def endpoint(request: Request) -> Response:
        raw = b"" if url.body == "none" else await read_body(request)

        def answer() -> bytes:
            # parsed in the worker thread with the handler: a large body (up to 1 MiB) is
            # never read on the event loop, where every other request would wait for it
            body = {} if url.body == "none" else parse_body(raw, required=required)
            parsed = ApiRequest(request.url.path, request.path_params, request.query_params, body)
            return url.handler(parsed, state)

        return Response(await run_in_threadpool(answer), media_type=_JSON)

    return endpoint


def allowed_methods(urls: Sequence[Url], path: str) -> str:
    """The ``Allow`` header of a 405 on ``path``: the methods the URL table serves there.

    A path that a route without parameters matches (``/companies/resolve``) takes only the
    methods of such routes: the ``{id}`` route that its pattern also matches refuses it
    (a 405, docs/sandbox.md). ``HEAD`` is served wherever ``GET`` is (Starlette's routes).

    Examples
    --------
    >>> from dealframe.sandbox.urls import table
    >>> allowed_methods(table(), "/api/v1/companies")
    'POST'
    >>> allowed_methods(table(), "/api/private/v1/companies/0d0e0f00-0000-4000-8000-000000000000")
    'GET, HEAD'
    >>> allowed_methods(table(), "/api/private/v1/companies/resolve")
    'POST'
    """
    matching = [u for u in urls if compile_path(u.path)[0].match(path)]
    literal = [u for u in matching if "{" not in u.path]
    methods = {u.method for u in literal or matching}
    if "GET" in methods:
        methods.add("HEAD")
    order = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
    return ", ".join(sorted(methods, key=lambda m: (order.index(m) if m in order else 99, m)))


def _handlers(errors: ErrorAnswers, urls: Sequence[Url]) -> dict:
    """Starlette's exception handlers: every error leaves as an error answer; a 405 with the
    ``Allow`` header RFC 9110 (section 15.5.6) requires, from the URL table."""

    def answer(found: ApiProblem, path: str) -> Response:
        if found.status == 405 and "Allow" not in found.headers:
            found.headers = {**found.headers, "Allow": allowed_methods(urls, path)}
        return errors.response(found, path)

    async def problem(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiProblem)
        return answer(exc, request.url.path)

    async def http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        path = request.url.path
        if exc.status_code == 405:
            found = ApiProblem(
                405, "METHOD_NOT_ALLOWED", f"{request.method} is not allowed on {path}"
            )
        elif exc.status_code == 404:
            found = ApiProblem(404, "NOT_FOUND", f"No route for {path}")
        else:
            found = ApiProblem(exc.status_code, "HTTP_ERROR", str(exc.detail))
        return answer(found, path)

    async def crash(request: Request, exc: Exception) -> Response:
        log.exception("sandbox bug on %s %s", request.method, request.url.path)
        return errors.response(
            ApiProblem(500, "INTERNAL_ERROR", "An internal error occurred"), request.url.path
        )

    return {ApiProblem: problem, HTTPException: http, Exception: crash}


def build_app(
    state: SandboxState,
    *,
    faults: FaultPlan | None = None,
    urls: Sequence[Url] | None = None,
    profile: str | Sequence[str] | Profile | None = DEFAULT,
    stopping: Stopping | None = None,
) -> ASGIApp:
    """Build the ASGI app serving ``state``.

    Parameters
    ----------
    state : SandboxState
        Data and stores (see :meth:`SandboxState.build`).
    faults : FaultPlan, optional
        When given, requests matching the plan fail as it says.
    urls : sequence of Url, optional
        The routes (default :func:`~.urls.table`, with the admin routes when the
        state's configuration has an admin token).
    profile : str or list of str, default "default"
        The sandbox profile (:mod:`.profiles`): an open point of the interface document
        answered another way; names joined by commas combine.
    stopping : Stopping, optional
        The server sets it when it begins to stop: the simulated latency and a ``slow``
        fault's delay end there, so that no request holds the shutdown.

    Returns
    -------
    ASGI application

    Raises
    ------
    UnknownProfileError
        ``profile`` names no profile (a ``ValueError``).
    SandboxArgumentError
        ``faults`` is neither a :class:`~.faults.FaultPlan` nor None.

    Examples
    --------
    >>> from dealframe.sandbox.models import SandboxConfig, SandboxState
    >>> app = build_app(SandboxState.build(SandboxConfig(scale=0.02)))
    """
    chosen = select(profile)
    faults = fault_plan(faults)
    stopping = stopping if stopping is not None else Stopping()
    if urls is None:
        urls = table(admin=bool(state.config.admin_token))
    errors = ErrorAnswers(chosen.errors)
    served = chosen.table(urls)
    routes = [Route(u.path, _endpoint(u, state), methods=[u.method]) for u in served]
    app = Starlette(routes=routes, exception_handlers=_handlers(errors, served))
    # a path with a trailing slash is an unknown path (404 with the error body), not Starlette's
    # 307 to the path without it: the document lists no such path, and a redirected POST resends
    app.router.redirect_slashes = False
    wrapped: ASGIApp = GateMiddleware(app, state, errors, stopping)
    if faults is not None:
        wrapped = FaultInjector(wrapped, faults, stopping)
    return wrapped
