"""A tiny echo service for transport tests, behind the FaultInjector, on a real port.

Routes (both families, each checking its own token like the real service):

- ``{GET,POST} /api/v2/{rest}`` and ``/api/v1/{rest}``: Family A token;
- ``{GET,POST} /api/private/v1/{rest}``: Family B key.

A request is answered with ``{"data": {"method", "path", "query", "body", "hit", "pad"},
"meta": {"count": 1}}`` unless ``state.responses[path]`` holds a canned ``(status, body,
headers)``. ``?pad=N`` adds N characters so bodies can be made large; ``?trickle=S`` sends
the first half of the body, waits S seconds, then the rest (``&pieces=N``: N pieces, S
seconds apart). Every hit is counted per path,
with the fingerprint of the Authorization header it carried.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from dealframe.sandbox.faults import FaultInjector, FaultPlan

__all__ = ["EchoState", "ServedApp", "serve"]


@dataclass
class EchoState:
    """What the echo app knows: tokens, canned responses and hit counters."""

    public_token: str
    private_key: str
    extra_public_tokens: set[str] = field(default_factory=set)
    responses: dict[str, tuple[int, bytes, dict[str, str]]] = field(default_factory=dict)
    hits: Counter[str] = field(default_factory=Counter)
    auth_seen: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def total(self) -> int:
        with self.lock:
            return sum(self.hits.values())


def _json(status: int, payload: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(payload).encode(),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def _auth_error(code: str, message: str) -> Response:
    return _json(401, {"error": {"code": code, "message": message}})


def build_app(state: EchoState) -> Starlette:
    async def handle(request: Request, tokens: set[str]) -> Response:
        path = request.url.path
        header = request.headers.get("authorization")
        with state.lock:
            state.hits[path] += 1
            hit = state.hits[path]
            digest = hashlib.sha256((header or "").encode()).hexdigest()[:8]
            state.auth_seen.append((path, digest))
        if header is None:
            return _auth_error("MISSING_TOKEN", "Authorization header is required")
        if header not in {f"Bearer {t}" for t in tokens}:
            return _auth_error("INVALID_TOKEN", "Invalid or expired token")
        if path in state.responses:
            status, body, headers = state.responses[path]
            return Response(
                body, status_code=status, headers=headers, media_type="application/json"
            )
        raw = await request.body()
        body = json.loads(raw) if raw else None
        pad = int(request.query_params.get("pad", "0"))
        data = {
            "method": request.method,
            "path": path,
            "query": dict(request.query_params),
            "body": body,
            "raw": raw.decode(),
            "hit": hit,
            "auth": digest,
            "pad": "x" * pad,
        }
        trickle = float(request.query_params.get("trickle", "0"))
        if trickle:
            payload = json.dumps({"data": data, "meta": {"count": 1}}).encode()
            count = int(request.query_params.get("pieces", "2"))
            size = -(-len(payload) // count)

            async def pieces() -> Any:
                for start in range(0, len(payload), size):
                    if start:
                        await asyncio.sleep(trickle)
                    yield payload[start : start + size]

            return StreamingResponse(
                pieces(),
                media_type="application/json",
                headers={"Content-Length": str(len(payload))},
            )
        return _json(200, {"data": data, "meta": {"count": 1}})

    async def public(request: Request) -> Response:
        return await handle(request, {state.public_token, *state.extra_public_tokens})

    async def private(request: Request) -> Response:
        return await handle(request, {state.private_key})

    methods = ["GET", "POST"]
    return Starlette(
        routes=[
            Route("/api/v1/{rest:path}", public, methods=methods),
            Route("/api/v2/{rest:path}", public, methods=methods),
            Route("/api/private/v1/{rest:path}", private, methods=methods),
        ]
    )


@dataclass
class ServedApp:
    """A running server: its URL, port, state, fault plan and uvicorn server."""

    url: str
    port: int
    state: EchoState
    plan: FaultPlan
    server: uvicorn.Server

    def open_connections(self) -> int:
        """Connections the server holds open right now."""
        return len(self.server.server_state.connections)


def established_to(port: int) -> int:
    """ESTABLISHED TCP connections whose remote end is ``port`` on loopback (/proc/net/tcp)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as fh:
                lines = fh.readlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            parts = line.split()
            remote, state = parts[2], parts[3]
            if state == "01" and int(remote.rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


@contextmanager
def serve(
    public_token: str,
    private_key: str,
    plan: FaultPlan | None = None,
) -> Iterator[ServedApp]:
    """Serve the echo app (wrapped in a FaultInjector) on 127.0.0.1, port chosen by the OS."""
    state = EchoState(public_token, private_key)
    plan = plan if plan is not None else FaultPlan()
    app = FaultInjector(build_app(state), plan)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", timeout_keep_alive=30
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True, name="echo-server")
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("echo server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield ServedApp(f"http://127.0.0.1:{port}", port, state, plan, server)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
