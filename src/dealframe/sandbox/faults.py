"""Fault injection for the sandbox: a pure ASGI middleware that wraps any ASGI app.

``FaultInjector(app, plan)`` answers some requests with a fault instead of (or on top of) the
wrapped app's answer. Faults come from a :class:`FaultPlan`:

- a **script** per path pattern: the next N matching requests get the listed faults in order
  (``plan.script(r"/companies$", ["429", "429", "503"])``; ``None`` lets one through), then
  requests pass through;
- a **random rate** (0..1, seeded) over a pool of kinds, optionally limited to a path pattern.

Kinds:

========== =================================================================================
``429``    ``RATE_LIMITED`` with ``Retry-After: <retry_after>`` (default 1 second)
``500``    ``INTERNAL_ERROR``; ``502`` ``BAD_GATEWAY``; ``503`` ``SERVICE_UNAVAILABLE``;
           ``504`` ``GATEWAY_TIMEOUT``
``slow``   sleep ``slow_seconds`` (at most 600) before passing the request to the app; a
           server that stops ends the sleep at once
``truncate`` the app's real headers (with the full ``Content-Length``), half the body, then
           the connection is closed: the client sees a short read
``cut``    the body cut mid-JSON with a matching ``Content-Length``: a clean exchange whose
           body is not valid JSON
``drop``   the connection is closed without any response
========== =================================================================================

Closing the connection: ASGI has no message for it, and uvicorn answers a 500 when an app
raises or returns before ``http.response.start``. The injector therefore closes the server's
transport when the ``send`` callable exposes it (uvicorn's h11 and httptools protocols do, as
``send.__self__.transport``); on other servers it falls back to raising, which aborts the
response after its headers.

Error bodies use the documented shape ``{"error": {"code": ..., "message": ...}}``. Only the
standard library is used, so any ASGI app can be wrapped.
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .arguments import SandboxArgumentError, methods_checked, number, whole
from .connection import close_connection
from .stopping import Stopping

__all__ = [
    "FAULT_KINDS",
    "MAX_RETRY_AFTER",
    "MAX_SLOW_SECONDS",
    "FaultInjector",
    "FaultPlan",
    "InjectedFault",
    "fault_plan",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_STATUS_FAULTS: dict[str, tuple[int, str, str]] = {
    "429": (429, "RATE_LIMITED", "Too many requests"),
    "500": (500, "INTERNAL_ERROR", "An internal error occurred"),
    "502": (502, "BAD_GATEWAY", "Bad gateway"),
    "503": (503, "SERVICE_UNAVAILABLE", "Service unavailable"),
    "504": (504, "GATEWAY_TIMEOUT", "Gateway timeout"),
}
#: Every fault kind the injector knows.
FAULT_KINDS: tuple[str, ...] = (*_STATUS_FAULTS, "slow", "truncate", "cut", "drop")
#: The longest ``slow`` fault, in seconds (10 minutes): past any client's read timeout, and a
#: wait that ends (``slow_seconds=10**30`` held every answer for good).
MAX_SLOW_SECONDS = 600.0
#: The largest ``Retry-After`` a fault sends, in seconds (a day).
MAX_RETRY_AFTER = 86_400.0


class InjectedFault(Exception):
    """Raised inside the server to abort a response (fallback when no transport is exposed)."""


@dataclass
class _Script:
    pattern: re.Pattern[str]
    pending: deque[str | None]


@methods_checked
@dataclass
class FaultPlan:
    """Which requests get which fault. Thread-safe; share one plan between server and test.

    Parameters
    ----------
    rate : float
        Probability (0..1) that a request matching ``paths`` gets a random fault.
    kinds : str or sequence of str
        Pool the random faults are drawn from (a bare string is one kind: ``"429"``).
    seed : int, optional
        Seed of the random draws (same seed, same sequence of faults).
    paths : str, optional
        Regular expression (``re.search`` on the path) limiting random faults; None (the
        default) or ``""``: every path. One that does not compile, or a list (``[]`` too,
        which once meant every path: join several patterns with ``|``), is a
        ``SandboxArgumentError`` naming ``paths``.
    retry_after : float
        Seconds sent in ``Retry-After`` with a 429, 0 to 86400
        (:data:`MAX_RETRY_AFTER`).
    retry_after_503 : float, optional
        Also send ``Retry-After`` with 503 when set (0 to 86400).
    slow_seconds : float
        Delay of a ``slow`` fault, 0 to 600 (:data:`MAX_SLOW_SECONDS`); a server that
        stops ends the delay at once.

    Raises
    ------
    SandboxArgumentError
        An argument out of its bounds or of the wrong type, naming it.

    Examples
    --------
    >>> plan = FaultPlan().script(r"^/api/v2/", ["429", "503"])
    >>> [plan.draw("/api/v2/companies") for _ in range(3)]
    ['429', '503', None]
    >>> plan.counts()
    {'429': 1, '503': 1}
    """

    rate: float = 0.0
    kinds: Sequence[str] = ("429", "500", "502", "503")
    seed: int | None = 0
    paths: str | None = None
    retry_after: float = 1.0
    retry_after_503: float | None = None
    slow_seconds: float = 2.0
    _scripts: list[_Script] = field(default_factory=list, init=False, repr=False)
    _counts: Counter[str] = field(default_factory=Counter, init=False, repr=False)
    _events: list[tuple[str, str]] = field(default_factory=list, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        number("rate", self.rate, at_least=0.0, at_most=1.0)
        number("retry_after", self.retry_after, at_least=0.0, at_most=MAX_RETRY_AFTER)
        number("slow_seconds", self.slow_seconds, at_least=0.0, at_most=MAX_SLOW_SECONDS)
        if self.retry_after_503 is not None:
            number("retry_after_503", self.retry_after_503, at_least=0.0, at_most=MAX_RETRY_AFTER)
        self.kinds = _as_kinds(self.kinds)
        _check_kinds(self.kinds)
        if self.seed is not None:
            self.seed = whole("seed", self.seed)  # random.Random takes no numpy integer
        self._paths = _pattern("paths", self.paths) if self.paths is not None else None
        self._rng = random.Random(self.seed)

    def script(self, pattern: str, kinds: str | Iterable[str | None]) -> FaultPlan:
        """Give the next requests whose path matches ``pattern`` these faults, in order
        (``None``: that request passes through; a bare string is one fault: ``"503"``).

        Scripts are checked in the order they were added; returns the plan for chaining.

        Examples
        --------
        >>> plan = FaultPlan().script("deals", ["503", None, "slow"])
        >>> [plan.draw("/deals") for _ in range(4)], plan.counts()
        (['503', None, 'slow', None], {'503': 1, 'slow': 1})
        """
        queue: deque[str | None] = deque(_as_kinds(kinds))
        _check_kinds(k for k in queue if k is not None)
        with self._lock:
            self._scripts.append(_Script(_pattern("pattern", pattern), queue))
        return self

    def draw(self, path: str) -> str | None:
        """The fault for the next request to ``path`` (None: pass through), and count it.

        The server calls it once per request; a test calls it to see what a plan does.

        Examples
        --------
        >>> plan = FaultPlan(rate=0.5, seed=1)
        >>> [plan.draw("/api/private/v1/companies") for _ in range(4)]
        ['429', '503', None, '503']
        """
        if not isinstance(path, str):
            raise SandboxArgumentError(
                "path", "a request path (str) such as '/api/v2/companies'", path
            )
        with self._lock:
            kind = self._draw_locked(path)
            if kind is not None:
                self._counts[kind] += 1
                self._events.append((kind, path))
            return kind

    def _draw_locked(self, path: str) -> str | None:
        for script in self._scripts:
            if script.pending and script.pattern.search(path):
                return script.pending.popleft()
        if self.rate <= 0 or not self.kinds:
            return None
        if self._paths is not None and not self._paths.search(path):
            return None
        if self._rng.random() < self.rate:
            return self._rng.choice(self.kinds)
        return None

    def counts(self) -> dict[str, int]:
        """Faults injected so far, per kind.

        Examples
        --------
        >>> plan = FaultPlan().script("/companies", ["503", "503", "429"])
        >>> _ = [plan.draw("/api/v2/companies") for _ in range(4)]
        >>> plan.counts(), plan.total
        ({'503': 2, '429': 1}, 3)
        """
        with self._lock:
            return dict(self._counts)

    @property
    def total(self) -> int:
        """Number of faults injected so far."""
        with self._lock:
            return sum(self._counts.values())

    def events(self) -> list[tuple[str, str]]:
        """(kind, path) of every fault injected, in order.

        Examples
        --------
        A sandbox serving a plan; the client retries both faults, and the plan tells which
        request got which:

        >>> import dealframe, dealframe.sandbox
        >>> plan = FaultPlan(retry_after=0).script("^/api/private/v1/transactions", ["503", "429"])
        >>> with dealframe.sandbox.run(scale=0.02, faults=plan) as sb:
        ...     with dealframe.Client.for_sandbox(sb, backoff_base=0.01) as client:
        ...         deals = client.private.deals(limit=10)
        >>> len(deals), plan.events()
        (10, [('503', '/api/private/v1/transactions'), ('429', '/api/private/v1/transactions')])
        """
        with self._lock:
            return list(self._events)

    def pending(self) -> int:
        """Scripted faults not yet used.

        Examples
        --------
        >>> plan = FaultPlan().script("^/api/private/", ["503", None, "429"])
        >>> plan.draw("/api/v2/companies"), plan.draw("/api/private/v1/companies")
        (None, '503')
        >>> plan.pending()
        2
        """
        with self._lock:
            return sum(len(s.pending) for s in self._scripts)

    def reset(self) -> None:
        """Forget scripts and counters, and restart the random sequence from the seed.

        Examples
        --------
        >>> plan = FaultPlan(rate=0.5, seed=1).script("deals", ["slow"])
        >>> first = [plan.draw("/deals") for _ in range(4)]
        >>> plan.reset()
        >>> plan.pending(), plan.counts()
        (0, {})
        >>> [plan.draw("/deals") for _ in range(3)] == first[1:]  # the same random draws again
        True
        """
        with self._lock:
            self._scripts.clear()
            self._counts.clear()
            self._events.clear()
            self._rng = random.Random(self.seed)


def fault_plan(value: Any) -> FaultPlan | None:
    """``value`` as the ``faults`` of a sandbox: a :class:`FaultPlan` or None, or a
    :class:`SandboxArgumentError` naming ``faults`` (``faults=True`` started a sandbox whose
    every answer was a 500).

    Examples
    --------
    >>> fault_plan(None) is None
    True
    >>> fault_plan(True)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid faults: expected a FaultPlan (dealframe.sandbox.FaultPlan(rate=0.1)) or None, got True
    """
    if value is not None and not isinstance(value, FaultPlan):
        raise SandboxArgumentError(
            "faults", "a FaultPlan (dealframe.sandbox.FaultPlan(rate=0.1)) or None", value
        )
    return value


def _as_kinds(kinds: Any) -> tuple[Any, ...]:
    """``kinds`` as a tuple; a bare string is one kind, not its characters (``"429"`` was
    read as ``'4', '2', '9'``). Anything but a string or a list of them (a number, None, a
    mapping) is a :class:`SandboxArgumentError` naming ``kinds``.

    Examples
    --------
    >>> _as_kinds("429"), _as_kinds(["503", None])
    (('429',), ('503', None))
    >>> _as_kinds(429)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid kinds: expected a fault kind or a list of them (429, 500, 502, 503, 504, slow, truncate, cut, drop), got 429
    """
    if isinstance(kinds, str):
        return (kinds,)
    if not isinstance(kinds, Iterable) or isinstance(kinds, (bytes, bytearray, Mapping)):
        expected = f"a fault kind or a list of them ({', '.join(FAULT_KINDS)})"
        raise SandboxArgumentError("kinds", expected, kinds)
    return tuple(kinds)


def _check_kinds(kinds: Iterable[str]) -> None:
    unknown = [k for k in kinds if k not in FAULT_KINDS]
    if unknown:
        raise SandboxArgumentError("kinds", f"fault kinds among {', '.join(FAULT_KINDS)}", unknown)


def _pattern(argument: str, pattern: Any) -> re.Pattern[str]:
    """``pattern`` compiled, or a :class:`SandboxArgumentError` naming ``argument`` and
    saying why the regular expression is refused (never a bare ``re.error``).

    Examples
    --------
    >>> _pattern("paths", "[")
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid paths: expected a regular expression matched against request paths (unterminated character set at position 0), got '['
    >>> _pattern("paths", [])
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid paths: expected a regular expression matched against request paths: one str, not a list (several paths: join them with '|', r'/companies$|/transactions$'; every path: None, the default), got []
    """
    expected = "a regular expression matched against request paths"
    if isinstance(pattern, (list, tuple, set, frozenset)):  # paths=[] once meant every path
        every = "; every path: None, the default" if argument == "paths" else ""
        many = (
            f"{expected}: one str, not a list (several paths: join them with '|', "
            f"r'/companies$|/transactions$'{every})"
        )
        raise SandboxArgumentError(argument, many, pattern)
    if not isinstance(pattern, str):
        raise SandboxArgumentError(argument, expected, pattern)
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise SandboxArgumentError(argument, f"{expected} ({exc})", pattern) from None


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class FaultInjector:
    """ASGI middleware applying a :class:`FaultPlan` to the HTTP requests of ``app``.

    Parameters
    ----------
    app : ASGI application
        The application to wrap (lifespan and websocket scopes pass straight through).
    plan : FaultPlan, optional
        The plan; a new empty plan (no faults) when omitted.
    stopping : Stopping, optional
        Set when the server stops: a ``slow`` fault's delay ends there (a new one, never
        set, when omitted).

    Examples
    --------
    >>> async def app(scope, receive, send): ...
    >>> FaultInjector(app).plan.total
    0
    """

    def __init__(
        self, app: ASGIApp, plan: FaultPlan | None = None, stopping: Stopping | None = None
    ) -> None:
        self.app = app
        plan = fault_plan(plan)
        self.plan = plan if plan is not None else FaultPlan()
        self.stopping = stopping if stopping is not None else Stopping()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        kind = self.plan.draw(scope.get("path", ""))
        if kind is None:
            await self.app(scope, receive, send)
        elif kind in _STATUS_FAULTS:
            await self._status(kind, send)
        elif kind == "slow":
            await self.stopping.pause(self.plan.slow_seconds)
            await self.app(scope, receive, send)
        elif kind == "drop":
            await self._drop(send)
        else:
            await self._damaged(kind, scope, receive, send)

    async def _status(self, kind: str, send: Send) -> None:
        status, code, message = _STATUS_FAULTS[kind]
        body = _error_body(code, message)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        wait = self.plan.retry_after if kind == "429" else None
        if kind == "503":
            wait = self.plan.retry_after_503
        if wait is not None:
            headers.append((b"retry-after", _seconds(wait)))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _drop(self, send: Send) -> None:
        if not await close_connection(send):
            raise InjectedFault("drop: connection aborted by fault injection")

    async def _damaged(self, kind: str, scope: Scope, receive: Receive, send: Send) -> None:
        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(bytes(message.get("body", b"")))

        await self.app(scope, receive, capture)
        body = b"".join(chunks)
        half = body[: len(body) // 2]
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        cut = kind == "cut"  # a complete exchange of half a body; else the full length promised
        headers.append((b"content-length", str(len(half) if cut else len(body) or 1).encode()))
        await send(
            {"type": "http.response.start", "status": start.get("status", 200), "headers": headers}
        )
        await send({"type": "http.response.body", "body": half, "more_body": not cut})
        if not cut and not await close_connection(send):
            raise InjectedFault("truncate: response aborted by fault injection")


def _seconds(value: float) -> bytes:
    return (str(int(value)) if float(value).is_integer() else f"{value:g}").encode()
