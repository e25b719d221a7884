"""A drift proxy: a small HTTP server of our own between the client and a running sandbox.

It forwards every request to the sandbox and can rewrite the answer the way a real service, a
gateway or a stale cache can: rows cut, repeated or without identity, ``meta`` missing or
inflated, a page that ignores ``page``, an empty 200, a gateway's HTML page, a body that
trickles in, a dropped connection. Tests then check that the client returns the undisturbed
frame, or warns, or raises a typed error: never something silently different.

Why stdlib ``http.server`` (``ThreadingHTTPServer``, HTTP/1.1, ``TCP_NODELAY``) and not an ASGI
app on uvicorn: the faults that matter most are at the socket (a body written in pieces with
sleeps between them, a connection closed or reset before any answer, a body cut short of its
``Content-Length``). A blocking handler owns its socket and does these with plain writes and
``shutdown``; an ASGI server buffers, frames and keeps connections for us. One thread per
connection is plenty for a client with a handful of workers, and nothing here needs an event
loop. Forwarding uses ``http.client`` with one keep-alive connection per handler thread.

Rules are small and composable: ``proxy.add(path_regex, *actions, page=, method=, times=,
when=)``. Every rule that matches a request applies its actions in the order the rules were
added; request actions (``ignore_page``, ``clamp_limit``) run before forwarding, response
actions after. ``times=N`` limits a rule to the first N requests it matches (in arrival order;
use ``page=`` where order matters). ``proxy.count(regex)`` tells how many requests reached the
proxy. ``proxy.reset()`` drops every rule and counter.

This module is test code: nothing under ``src/`` imports it.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import struct
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import orjson
import pytest

__all__ = [
    "Action",
    "Exchange",
    "FAST",
    "HTML_DEEP",
    "HTML_FIRST_LINE",
    "Hang",
    "Outcome",
    "Proxy",
    "Rule",
    "api_error",
    "assert_same",
    "clamp_limit",
    "cut_body",
    "data_null",
    "direct",
    "drop_connection",
    "drop_field",
    "drop_rows",
    "edit",
    "empty_200",
    "fresh_rules",
    "html",
    "ignore_page",
    "items_edit",
    "meta_delete",
    "meta_set",
    "no_hang",
    "no_route",
    "non_objects",
    "outcome",
    "proxy",
    "recount",
    "refuse",
    "repeat_rows",
    "set_field",
    "trickle",
    "via",
    "zero_indexed",
]

#: Response headers never copied from the sandbox (the proxy frames its own answer).
_HOP = {
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "date",
    "server",
    "content-encoding",
}
#: Request headers passed on to the sandbox.
_PASS = ("Authorization", "Content-Type", "Accept")


# ---------------------------------------------------------------------------------------- exchange


@dataclass
class Exchange:
    """One request through the proxy and the answer it will get.

    Request side: ``method``, ``path`` (no query), ``query`` (one value per name) and
    ``body`` (parsed JSON, or None). Response side: ``status``, ``headers``, ``content`` and,
    for JSON answers, :meth:`doc`/:meth:`set_doc`. ``delivery`` is ``"normal"``, ``"drop"``
    (close before answering), ``"reset"`` (RST before answering), ``("trickle", seconds,
    pieces)`` or ``("cut", fraction)`` (headers announce the whole body, part is sent).
    """

    method: str
    path: str
    query: dict[str, str]
    body: Any
    raw_body: bytes
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""
    delivery: Any = "normal"
    forward: bool = True
    _doc: Any = None

    @property
    def page(self) -> int | None:
        """The page asked for (query or JSON body), None when the request names none."""
        value = self.query.get("page")
        if value is None and isinstance(self.body, dict):
            value = self.body.get("page")
        try:
            return int(value) if value is not None else None
        except (TypeError, ValueError):
            return None

    def set_param(self, name: str, value: Any) -> None:
        """Set a paging parameter where the request carries it (body for POST, query for GET)."""
        if isinstance(self.body, dict) and self.method == "POST":
            self.body[name] = value
            self.raw_body = orjson.dumps(self.body)
        else:
            self.query[name] = str(value)

    def doc(self) -> Any:
        """The answer parsed as JSON (None when it is not JSON)."""
        if self._doc is None:
            try:
                self._doc = orjson.loads(self.content)
            except orjson.JSONDecodeError:
                return None
        return self._doc

    def set_doc(self, doc: Any) -> None:
        """Replace the answer with ``doc`` serialised as JSON."""
        self._doc = doc
        try:
            self.content = orjson.dumps(doc)
        except TypeError:  # integers beyond 64 bits (an absurd meta.total)
            self.content = json.dumps(doc).encode()
        self.headers["Content-Type"] = "application/json"


@dataclass(frozen=True)
class Action:
    """A rewrite: ``on_request`` runs before forwarding, ``on_response`` after."""

    name: str
    on_request: Callable[[Exchange], None] | None = None
    on_response: Callable[[Exchange], None] | None = None


@dataclass
class Rule:
    """Actions applied to requests whose path matches ``path`` (a regex, ``re.search``)."""

    path: str
    actions: tuple[Action, ...]
    method: str | None = None
    page: int | None = None
    times: int | None = None
    when: Callable[[Exchange], bool] | None = None
    used: int = 0

    def matches(self, ex: Exchange) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.method is not None and ex.method != self.method:
            return False
        if self.page is not None and (ex.page if ex.page is not None else 1) != self.page:
            return False
        if not re.search(self.path, ex.path):
            return False
        return self.when is None or bool(self.when(ex))


# ----------------------------------------------------------------------------------------- actions


def edit(fn: Callable[[Any], Any], name: str = "edit") -> Action:
    """Rewrite the JSON answer with ``fn(doc) -> doc`` (answers that are not JSON pass)."""

    def apply(ex: Exchange) -> None:
        doc = ex.doc()
        if doc is not None:
            ex.set_doc(fn(doc))

    return Action(name, on_response=apply)


def operators_of(**fields: list[str]) -> Action:
    """Transactions discovery documents listing each of ``fields`` with these operators (the
    client then writes them out: ``{"in": [...]}``, ``{"gte": ...}``)."""

    def apply(doc: Any) -> Any:
        for entry in doc["data"]["filters"]:
            if entry["field"] in fields:
                entry["operators"] = list(fields[entry["field"]])
        return doc

    return edit(apply, f"operators {fields}")


def _items(doc: Any) -> list[dict[str, Any]]:
    """The object items of ``doc["data"]`` (a single-entity ``data`` counts as one item)."""
    data = doc.get("data") if isinstance(doc, dict) else None
    if isinstance(data, dict):
        return [data]
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def items_edit(change: Callable[[dict[str, Any]], None], name: str = "items") -> Action:
    """Every object item of ``data`` (a list page, or one single-entity object) changed in
    place by ``change``: list pages and single profiles alike."""

    def apply(doc: Any) -> Any:
        for item in _items(doc):
            change(item)
        return doc

    return edit(apply, name)


def _data_edit(fn: Callable[[list[Any]], list[Any]], name: str) -> Action:
    def apply(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            doc["data"] = fn(doc["data"])
        return doc

    return edit(apply, name)


def drop_rows(n: int, at: str = "end") -> Action:
    """Remove ``n`` items from ``data`` (at its ``end`` or ``start``); ``meta`` is left alone."""
    if at == "start":
        return _data_edit(lambda rows: rows[n:], f"drop_rows({n}, start)")
    return _data_edit(lambda rows: rows[: max(0, len(rows) - n)], f"drop_rows({n})")


def repeat_rows(n: int) -> Action:
    """Append copies of the first ``n`` items of ``data`` (same content, same identity)."""
    return _data_edit(
        lambda rows: rows + [dict(r) if isinstance(r, dict) else r for r in rows[:n]],
        f"repeat_rows({n})",
    )


def data_null() -> Action:
    """``data: null``."""

    def apply(doc: Any) -> Any:
        if isinstance(doc, dict):
            doc["data"] = None
        return doc

    return edit(apply, "data_null")


def non_objects(values: tuple[Any, ...] = ("oops", 42)) -> Action:
    """Replace the first items of ``data`` with values that are not objects."""

    def apply(rows: list[Any]) -> list[Any]:
        k = min(len(values), len(rows))
        return list(values[:k]) + rows[k:]

    return _data_edit(apply, f"non_objects{values!r}")


def meta_delete(*names: str) -> Action:
    """Delete members of ``meta`` (the whole ``meta`` when no name is given)."""

    def apply(doc: Any) -> Any:
        if isinstance(doc, dict):
            if not names:
                doc.pop("meta", None)
            elif isinstance(doc.get("meta"), dict):
                for name in names:
                    doc["meta"].pop(name, None)
        return doc

    return edit(apply, f"meta_delete{names!r}")


def meta_set(**values: Any) -> Action:
    """Set members of ``meta`` (``total=None`` sets it to null)."""

    def apply(doc: Any) -> Any:
        if isinstance(doc, dict):
            meta = doc.get("meta")
            if not isinstance(meta, dict):
                meta = doc["meta"] = {}
            meta.update(values)
        return doc

    return edit(apply, f"meta_set({values!r})")


def recount() -> Action:
    """Make ``meta.returned``/``meta.count`` agree with the items ``data`` now holds."""

    def apply(doc: Any) -> Any:
        meta = doc.get("meta") if isinstance(doc, dict) else None
        data = doc.get("data") if isinstance(doc, dict) else None
        if isinstance(meta, dict) and isinstance(data, list):
            for name in ("returned", "count"):
                if name in meta:
                    meta[name] = len(data)
        return doc

    return edit(apply, "recount")


def drop_field(name: str, first: int | None = None) -> Action:
    """Delete ``name`` from every item (or the ``first`` k items) of ``data``."""

    def apply(doc: Any) -> Any:
        for item in _items(doc)[:first]:
            item.pop(name, None)
        return doc

    return edit(apply, f"drop_field({name!r})")


def set_field(name: str, value: Any, first: int | None = None) -> Action:
    """Set ``name`` to ``value`` in every item (or the ``first`` k items) of ``data``."""

    def apply(doc: Any) -> Any:
        for item in _items(doc)[:first]:
            item[name] = value
        return doc

    return edit(apply, f"set_field({name!r}, {value!r})")


def ignore_page() -> Action:
    """Forward every request as page 1: a service (or cache) that ignores ``page``."""
    return Action(
        "ignore_page",
        on_request=lambda ex: ex.set_param("page", 1) if ex.page is not None else None,
    )


def ignore_filters(*names: str) -> Action:
    """Forward a list request without its ``filters`` (``names`` only, or all): a service that
    reads them another way, or not at all."""

    def apply(ex: Exchange) -> None:
        if isinstance(ex.body, dict) and isinstance(ex.body.get("filters"), dict):
            kept = {k: v for k, v in ex.body["filters"].items() if names and k not in names}
            ex.body["filters"] = kept
            ex.raw_body = orjson.dumps(ex.body)

    return Action(f"ignore_filters{names or ''}", on_request=apply)


def clamp_limit(size: int) -> Action:
    """Forward ``limit`` as at most ``size``: a service that serves smaller pages than asked.

    The sandbox then says so in ``meta.limit``; used to get many-page walks out of small data.
    """

    def apply(ex: Exchange) -> None:
        asked = ex.query.get("limit")
        if asked is None and isinstance(ex.body, dict):
            asked = ex.body.get("limit")
        if asked is not None and int(asked) > size:
            ex.set_param("limit", size)

    return Action(f"clamp_limit({size})", on_request=apply)


def zero_indexed(says: bool = True) -> Action:
    """A service counting ``page`` of POST lists from 0: a body without ``page`` is its page 0
    (the first), ``page: p`` the sandbox's page p+1; ``meta.page`` counts from 0 too, or with
    ``says`` False is left out."""

    def ask(ex: Exchange) -> None:
        ex.set_param("page", (ex.page or 0) + 1)

    def answer(ex: Exchange) -> None:
        doc = ex.doc()
        meta = doc.get("meta") if isinstance(doc, dict) else None
        if isinstance(meta, dict):
            meta["page"] -= 1
            meta["has_more"] = (meta["page"] + 1) * meta["limit"] < meta["total"]
            if not says:
                del meta["page"]
            ex.set_doc(doc)

    return Action(f"zero_indexed({says})", on_request=ask, on_response=answer)


def refuse(status: int, body: Callable[[int], Any], over: int, member: str) -> Action:
    """Refuse, with ``status`` and ``body(sent)``, a POST whose ``member`` (``limit``, or the
    number of ``names`` or ``skus``) is above ``over``: a service with a smaller bound than
    the client's. The request is not forwarded."""

    def apply(ex: Exchange) -> None:
        value = ex.body.get(member) if isinstance(ex.body, dict) else None
        sent = len(value) if isinstance(value, list) else value
        if isinstance(sent, int) and sent > over:
            ex.forward, ex.status, ex._doc = False, status, None
            ex.headers = {"Content-Type": "application/json"}
            ex.content = orjson.dumps(body(sent))

    return Action(f"refuse({member} > {over})", on_request=apply)


def _replace(status: int, content: bytes, content_type: str | None) -> Callable[[Exchange], None]:
    def apply(ex: Exchange) -> None:
        ex.status, ex.content, ex._doc = status, content, None
        ex.headers = {} if content_type is None else {"Content-Type": content_type}

    return apply


def empty_200() -> Action:
    """A 200 with an empty body (and a JSON content type)."""
    return Action("empty_200", on_response=_replace(200, b"", "application/json"))


#: The first line of :func:`html`'s page (tests look for it in messages).
HTML_FIRST_LINE = "<!DOCTYPE html>"
#: A phrase only deep inside :func:`html`'s page (tests check it is not pasted into messages).
HTML_DEEP = "request-id-deep-inside-the-page"


def html(status: int = 502, size: int = 20_000, content_type: str = "text/html") -> Action:
    """A gateway's HTML page of about ``size`` bytes, with ``status``."""
    head = (
        f"{HTML_FIRST_LINE}\n<html><head><title>{status} Bad Gateway</title></head>\n"
        f"<body><h1>{status} Bad Gateway</h1>\n"
    )
    filler = "<p>The upstream server did not answer in time. Please try again later.</p>\n"
    body = (
        head
        + filler * max(1, (size - len(head)) // len(filler))
        + f"<!-- {HTML_DEEP} -->\n</body></html>\n"
    )
    return Action(f"html({status})", on_response=_replace(status, body.encode(), content_type))


def trickle(seconds: float, pieces: int = 48) -> Action:
    """Send the answer in ``pieces`` pieces spread over ``seconds`` (headers first)."""

    def apply(ex: Exchange) -> None:
        ex.delivery = ("trickle", seconds, pieces)

    return Action(f"trickle({seconds})", on_response=apply)


def cut_body(fraction: float = 0.5) -> Action:
    """Announce the whole body in ``Content-Length``, send ``fraction`` of it, close."""

    def apply(ex: Exchange) -> None:
        ex.delivery = ("cut", fraction)

    return Action(f"cut_body({fraction})", on_response=apply)


def drop_connection(reset: bool = False) -> Action:
    """Close the connection without answering (``reset``: with a TCP RST); nothing forwarded."""

    def apply(ex: Exchange) -> None:
        ex.delivery = "reset" if reset else "drop"
        ex.forward = False

    return Action("drop_connection", on_request=apply)


def _answer_error(ex: Exchange, status: int, code: str, message: str) -> None:
    ex.forward, ex.status = False, status
    ex.headers = {"Content-Type": "application/json"}
    ex.content = orjson.dumps({"error": {"code": code, "message": message}})


def api_error(status: int, code: str, message: str) -> Action:
    """An error in the service's JSON shape (``{"error": {"code", "message"}}``) with
    ``status``; nothing forwarded."""
    return Action(
        f"api_error({status} {code})",
        on_request=lambda ex: _answer_error(ex, status, code, message),
    )


def no_route() -> Action:
    """A 404 saying the path is not served (``No route for <path>``, as the sandbox says of
    an unknown path); nothing forwarded."""
    return Action(
        "no_route",
        on_request=lambda ex: _answer_error(ex, 404, "NOT_FOUND", f"No route for {ex.path}"),
    )


# ------------------------------------------------------------------------------------------ server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # an idle keep-alive connection is closed after this many seconds
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.proxy._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.proxy._track(self.connection, False)
            self.server.proxy._release()

    def do_GET(self) -> None:
        self.server.proxy._handle(self)

    do_POST = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the proxy's log is Proxy.seen


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    proxy: Proxy


class Proxy:
    """The drift proxy in front of ``upstream`` (a sandbox URL), on 127.0.0.1, port from the OS.

    Parameters
    ----------
    upstream : str
        ``http://127.0.0.1:<port>`` of the sandbox.
    auth_map : dict, optional
        Bearer tokens the client sends -> the tokens forwarded to the sandbox (so a test can
        give the client a secret of its own and look for it afterwards).

    Examples
    --------
    >>> with Proxy("http://127.0.0.1:9") as p:  # doctest: +SKIP
    ...     p.add(r"/transactions$", drop_rows(2), page=1)
    """

    def __init__(self, upstream: str, auth_map: dict[str, str] | None = None) -> None:
        split = urlsplit(upstream)
        self._host, self._port = split.hostname or "127.0.0.1", split.port or 80
        self.auth_map = dict(auth_map or {})
        self._rules: list[Rule] = []
        self._lock = threading.Lock()
        self._local = threading.local()
        self._open: set[socket.socket] = set()
        self.hits: Counter[str] = Counter()
        #: (method, path, page) of every request received, in arrival order.
        self.seen: list[tuple[str, str, int | None]] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.proxy = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="drift-proxy",
            daemon=True,
        )
        self._thread.start()

    # -- rules and counters -------------------------------------------------------------

    def add(
        self,
        path: str,
        *actions: Action,
        method: str | None = None,
        page: int | None = None,
        times: int | None = None,
        when: Callable[[Exchange], bool] | None = None,
    ) -> Rule:
        """Add a rule; it applies to matching requests from now on."""
        rule = Rule(path, tuple(actions), method, page, times, when)
        with self._lock:
            self._rules.append(rule)
        return rule

    def clear_rules(self) -> None:
        """Drop every rule (counters are kept)."""
        with self._lock:
            self._rules.clear()

    def reset(self) -> None:
        """Drop every rule and zero the counters."""
        with self._lock:
            self._rules.clear()
            self.hits.clear()
            self.seen.clear()

    def count(self, path: str = "", method: str | None = None) -> int:
        """Requests received whose path matches the regex ``path`` (and ``method``)."""
        with self._lock:
            return sum(
                1 for m, p, _ in self.seen if re.search(path, p) and (method is None or m == method)
            )

    def pages(self, path: str) -> list[int]:
        """Pages asked for on paths matching ``path``, in arrival order; a request that names
        none asks for the first, 1 (as :meth:`Rule.matches` counts it): a list walk asks for
        its page 1 without ``page``."""
        with self._lock:
            return [1 if page is None else page for _, p, page in self.seen if re.search(path, p)]

    def sent(self, path: str = "/companies") -> list[int | None]:
        """The ``page`` of each POST to a path ending in ``path``, as the client sent it, in
        arrival order (None: the body named no ``page``, as a list walk's page 1)."""
        with self._lock:
            return [page for m, p, page in self.seen if m == "POST" and p.endswith(path)]

    # -- lifecycle ----------------------------------------------------------------------

    def close(self) -> None:
        """Stop serving and close every connection still open."""
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            still = list(self._open)
        for sock in still:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=10)

    def __enter__(self) -> Proxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _track(self, sock: socket.socket, opened: bool) -> None:
        with self._lock:
            (self._open.add if opened else self._open.discard)(sock)

    # -- one request --------------------------------------------------------------------

    def _handle(self, handler: _Handler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        split = urlsplit(handler.path)
        try:
            body = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            body = None
        ex = Exchange(handler.command, split.path, dict(parse_qsl(split.query)), body, raw)
        with self._lock:
            self.hits[ex.path] += 1
            self.seen.append((ex.method, ex.path, ex.page))
            rules = [r for r in self._rules if r.matches(ex)]
            for rule in rules:
                rule.used += 1
        actions = [a for rule in rules for a in rule.actions]
        for action in actions:
            if action.on_request is not None:
                action.on_request(ex)
        if ex.forward:
            ex.status, ex.headers, ex.content = self._forward(ex, handler)
            for action in actions:
                if action.on_response is not None:
                    action.on_response(ex)
        self._send(handler, ex)

    def _connection(self, fresh: bool = False) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None or fresh:
            if conn is not None:
                conn.close()
            conn = http.client.HTTPConnection(self._host, self._port, timeout=120)
            self._local.conn = conn
        return conn

    def _release(self) -> None:
        """Close this handler thread's connection to the sandbox (its client went away)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _forward(self, ex: Exchange, handler: _Handler) -> tuple[int, dict[str, str], bytes]:
        headers = {name: handler.headers[name] for name in _PASS if handler.headers.get(name)}
        auth = headers.get("Authorization", "")
        if auth.startswith("Bearer ") and auth[7:] in self.auth_map:
            headers["Authorization"] = f"Bearer {self.auth_map[auth[7:]]}"
        target = ex.path + (f"?{urlencode(ex.query)}" if ex.query else "")
        for attempt in (1, 2):
            conn = self._connection(fresh=attempt == 2)
            try:
                conn.request(ex.method, target, body=ex.raw_body or None, headers=headers)
                answer = conn.getresponse()
                content = answer.read()
            except (OSError, http.client.HTTPException):
                if attempt == 2:
                    raise
                continue
            kept = {k: v for k, v in answer.getheaders() if k.lower() not in _HOP}
            return answer.status, kept, content
        raise AssertionError("unreachable")

    @staticmethod
    def _send(handler: _Handler, ex: Exchange) -> None:
        sock = handler.connection
        if ex.delivery in ("drop", "reset"):
            handler.close_connection = True
            if ex.delivery == "reset":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            try:
                sock.shutdown(socket.SHUT_RDWR) if ex.delivery == "drop" else sock.close()
            except OSError:
                pass
            return
        handler.send_response(ex.status)
        for name, value in ex.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(ex.content)))
        if isinstance(ex.delivery, tuple) and ex.delivery[0] == "cut":
            handler.send_header("Connection", "close")
            handler.close_connection = True
        handler.end_headers()
        try:
            if isinstance(ex.delivery, tuple) and ex.delivery[0] == "trickle":
                _, seconds, pieces = ex.delivery
                step = max(1, -(-len(ex.content) // pieces))
                for start in range(0, len(ex.content), step):
                    time.sleep(seconds / pieces)
                    handler.wfile.write(ex.content[start : start + step])
            elif isinstance(ex.delivery, tuple) and ex.delivery[0] == "cut":
                handler.wfile.write(ex.content[: int(len(ex.content) * ex.delivery[1])])
            else:
                handler.wfile.write(ex.content)
        except OSError:
            handler.close_connection = True  # the client gave up: nothing more to send


# --------------------------------------------------------------------------------------- for tests

#: Client settings for drift tests: few, fast retries, no progress bars.
FAST: dict[str, Any] = {
    # the tests count the requests a walk sends: a first attempt that straggles on a loaded
    # machine is not sent again (the transport's tests cover that), so the counts are the
    # walk's own
    "cut_stragglers": False,
    "retries": 1,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "retry_after_max": 0.1,
    "read_timeout": 20.0,
    "max_workers": 4,
    "progress": False,
}


@pytest.fixture(scope="module")
def proxy(sandbox: Any) -> Iterator[Proxy]:
    """One drift proxy per test module, in front of the session sandbox."""
    with Proxy(sandbox.url) as served:
        yield served


@pytest.fixture(autouse=True)
def fresh_rules(proxy: Proxy) -> Iterator[None]:
    """Every test starts and ends with no rule and zero counters."""
    proxy.reset()
    yield
    proxy.reset()


@pytest.fixture
def fresh(sandbox: Any, proxy: Any) -> Iterator[Any]:
    """A client through the proxy of its own (what it learns of the service stays with it)."""
    from dealframe import Client

    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


@pytest.fixture
def cached(sandbox: Any, proxy: Any, tmp_path: Path) -> Iterator[Any]:
    """A client through the proxy with an HTTP cache of its own, empty."""
    from dealframe import Client

    with Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=True,
        cache_path=tmp_path / "cache.sqlite",
        **FAST,
    ) as c:
        yield c


def wire_rows(sandbox: Any, path: str, sort: str | None = None) -> list[dict[str, Any]]:
    """Every row of the POST list at ``path`` (``/companies``, ``/transactions``) as the
    sandbox writes it, in its own order for ``sort`` when given, read with plain requests
    (not through the client under test)."""
    import requests

    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {sandbox.private_key}"
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        body: dict[str, Any] = {"filters": {}, "limit": 1000, "page": page}
        if sort is not None:
            body["sort"] = sort
        doc = session.post(f"{sandbox.url}/api/private/v1{path}", json=body, timeout=60).json()
        rows += doc["data"]
        if not doc["meta"]["has_more"]:
            return rows
        page += 1


@pytest.fixture(scope="module")
def direct(sandbox: Any) -> Iterator[Any]:
    """A client talking to the sandbox itself: the undisturbed reference."""
    from dealframe import Client

    with Client.for_sandbox(sandbox, **FAST) as client:
        yield client


@pytest.fixture(scope="module")
def via(sandbox: Any, proxy: Proxy) -> Iterator[Any]:
    """A client talking to the sandbox through the drift proxy (same settings as ``direct``)."""
    from dealframe import Client

    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as client:
        yield client


@dataclass
class Outcome:
    """What one call gave: its value or its exception, and the warnings it raised (not how
    long it took: a loaded machine stretches any call, so tests assert what ended it)."""

    value: Any
    error: BaseException | None
    caught: list[warnings.WarningMessage]

    def warned(self, category: type[Warning]) -> list[str]:
        """Messages of the warnings of ``category`` (subclasses included)."""
        return [str(w.message) for w in self.caught if issubclass(w.category, category)]


def assert_same(got: Any, want: Any, *, ignore_index: bool = False) -> None:
    """``got`` equals ``want`` (DataFrames; ``DataFrame.equals`` first, as it is 100x faster
    than ``assert_frame_equal`` on Arrow list columns, which then explains a difference)."""
    import pandas as pd

    if ignore_index:
        got, want = got.reset_index(drop=True), want.reset_index(drop=True)
    if not got.equals(want):
        pd.testing.assert_frame_equal(got, want)


def outcome(call: Callable[[], Any]) -> Outcome:
    """Run ``call`` and record its value or exception and every warning it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value, error = call(), None
        except Exception as exc:
            value, error = None, exc
    return Outcome(value, error, list(caught))


class Hang(BaseException):
    """A test ran past its time limit (a BaseException: no ``except Exception`` swallows it)."""


@pytest.fixture(autouse=True)
def no_hang(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that runs longer than its module's ``HANG_LIMIT`` seconds (default 45).

    ``signal.alarm`` interrupts the main thread even while it waits on a socket or a future.
    """
    seconds = int(getattr(request.module, "HANG_LIMIT", 45))

    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"{request.node.name} did not end within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
