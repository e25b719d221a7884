"""Serving the sandbox: in a background thread (``run``, ``start``) or in the foreground (``serve``).

This is the layer that needs the sandbox extra (uvicorn here, Starlette in :mod:`.app`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from .app import build_app
from .arguments import (
    SandboxArgumentError,
    host_name,
    keywords_checked,
    methods_checked,
    moment,
    port_number,
)
from .auth import DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_TOKEN
from .connection import close_connection
from .faults import FaultPlan, fault_plan
from .launch import SandboxStartError, SandboxStopError
from .models import SandboxConfig, SandboxState
from .models.data import AS_OF
from .profiles import DEFAULT, Profile, select
from .stopping import Stopping

__all__ = ["Sandbox", "run", "serve", "start"]

_START_TIMEOUT_S = 30.0
#: How long a stopping server lets the requests in flight finish before it cancels them
#: (their latency and ``slow`` waits end at once: :class:`.stopping.Stopping`). uvicorn's
#: default waits for them without end: a request sleeping a 45 s ``slow`` fault, its client
#: long gone, held ``stop()`` and left the server thread running.
_GRACEFUL_S = 5
#: How long :meth:`Sandbox.stop` waits for the server thread before it waits for a snapshot
#: still being written (the server's shutdown waits for it too), and again after (then once
#: more, telling the server to stop waiting for connections, before it gives up).
_STOP_WAIT_S = 10.0
#: How often a shutting-down server looks whether the snapshot is written (or a second
#: Ctrl-C asks it to exit now).
_SNAPSHOT_POLL_S = 0.05


@methods_checked
@dataclass
class Sandbox:
    """A running sandbox.

    Attributes
    ----------
    url : str
        Base URL, e.g. ``http://127.0.0.1:53211``.
    public_token, private_key : str
        The Family A token and Family B key it accepts (never shown in repr).
    state : SandboxState
        The data and stores, for in-process inspection and changes
        (:class:`~dealframe.sandbox.changes.Changes`).
    faults : FaultPlan or None
        The fault plan, when fault injection was asked for.
    profile : str
        The profile served (``"default"``, or names joined by commas; see
        :mod:`dealframe.sandbox.profiles`).

    Examples
    --------
    What :func:`run` yields (and :func:`start` returns):

    >>> import dealframe, dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02, profile="limit-100") as sb:
    ...     print(sb)  # the tokens are not shown
    ...     with dealframe.Client.for_sandbox(sb) as client:
    ...         print(len(client.private.companies(limit=10)), sb.state.config.scale)
    Sandbox(url='http://127.0.0.1:...', faults=None, profile='limit-100')
    10 0.02
    """

    url: str
    public_token: str = field(repr=False)
    private_key: str = field(repr=False)
    state: SandboxState = field(repr=False)
    faults: FaultPlan | None = None
    profile: str = DEFAULT
    _server: uvicorn.Server | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def client_env(self) -> dict[str, str]:
        """Environment variables pointing a :class:`dealframe.Client` at this sandbox.

        For code that builds its client from the environment (``Client()``, the
        ``dealframe`` command, a notebook kernel or another process started with them).

        Examples
        --------
        >>> import os
        >>> from unittest import mock
        >>> import dealframe, dealframe.sandbox
        >>> with dealframe.sandbox.run(scale=0.02) as sb:
        ...     env = sb.client_env()
        ...     with mock.patch.dict(os.environ, env), dealframe.Client(cache_enabled=False) as c:
        ...         print(c.settings.base_url == sb.url, len(c.private.deals(limit=5)))
        True 5
        >>> sorted(env)
        ['DEALFRAME_BASE_URL', 'DEALFRAME_PRIVATE_KEY', 'DEALFRAME_PUBLIC_TOKEN']
        """
        return {
            "DEALFRAME_BASE_URL": self.url,
            "DEALFRAME_PUBLIC_TOKEN": self.public_token,
            "DEALFRAME_PRIVATE_KEY": self.private_key,
        }

    def reset(self) -> None:
        """Back to the generated data and the starting clock (``state.reset()``).

        Examples
        --------
        >>> import dealframe, dealframe.sandbox
        >>> from dealframe.sandbox import Changes
        >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as c:
        ...     def total():
        ...         return c.private.page("transactions", limit=1).attrs["total"]
        ...     before = total()
        ...     _ = Changes(sb.state, seed=1).insert("deals", 5)
        ...     added = total() - before
        ...     sb.reset()
        ...     print(added, total() == before)
        5 True
        """
        self.state.reset()

    def stop(self) -> None:
        """Stop serving and wait for the server thread (and a snapshot being written) to end.

        :func:`run` calls it when its ``with`` block ends; a sandbox from :func:`start`
        needs it called. Calling it again does nothing. Requests in flight end with it:
        their latency and ``slow`` fault waits at once, any other after a few seconds.

        Raises
        ------
        SandboxStopError
            The server thread did not end (a handler that never returns): raised rather
            than leave it running. Calling ``stop()`` again waits again.

        Examples
        --------
        >>> import dealframe.sandbox
        >>> sb = dealframe.sandbox.start(scale=0.02)
        >>> try:
        ...     print(sb.url.startswith("http://127.0.0.1:"))
        ... finally:
        ...     sb.stop()
        True
        """
        server, thread = self._server, self._thread
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(timeout=_STOP_WAIT_S)
        # a snapshot still being written holds the server's shutdown: once it is, the thread
        # ends (a slow disk could take past the first wait, and the thread was left running)
        self.state.close()
        if thread is None:
            return
        thread.join(timeout=_STOP_WAIT_S)
        if thread.is_alive() and server is not None:
            server.force_exit = True  # no more waiting for connections to close
            thread.join(timeout=_STOP_WAIT_S)
        if thread.is_alive():
            raise SandboxStopError(
                f"the sandbox at {self.url} did not stop: its server thread "
                f"{thread.name!r} still runs {3 * _STOP_WAIT_S:.0f} s after stop() "
                "(a request that never ends?)"
            )
        self._thread = None


class _Server(uvicorn.Server):
    """uvicorn's server, which begins the start-up snapshot of ``state`` once it answers and
    waits for it when it shuts down, and sets ``stopping`` when it begins to shut down (the
    requests in flight stop waiting).

    Writing the snapshot (about 140 MB at scale 1) while the data was being indexed delayed
    the first answer; from the started server it runs beside the answers. Waiting at
    shutdown lets ``dealframe sandbox serve`` finish the file before a SIGTERM, which uvicorn
    raises again once it has shut down, ends the process.
    """

    def __init__(
        self, config: uvicorn.Config, state: SandboxState, stopping: Stopping | None = None
    ) -> None:
        super().__init__(config)
        self.state = state
        self.stopping = stopping if stopping is not None else Stopping()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self.state.start_snapshot()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.stopping.set()
        try:
            await super().shutdown(sockets=sockets)
        finally:
            await self.snapshot_written()

    async def snapshot_written(self) -> None:
        """Wait for the start-up snapshot being written, in short sleeps: the event loop stays
        free to read a second Ctrl-C (uvicorn's ``force_exit``), which exits at once and
        leaves the write unfinished (its temporary file is pruned by a later start)."""
        while self.state.snapshot_writing and not self.force_exit:
            await asyncio.sleep(_SNAPSHOT_POLL_S)
        if not self.force_exit:
            self.state.close()


class _QuietAtStop:
    """The sandbox app, whose requests cancelled by its stopping server end quietly.

    A request still running :data:`_GRACEFUL_S` after the server began to stop (a body
    never sent, an answer its client does not read) is cancelled by uvicorn, which logged
    the ``CancelledError`` with its traceback (about 45 lines on the stderr of a user
    leaving ``with run(...)``) and answered 500. Its connection is closed instead; uvicorn's
    one line (``Cancel 1 running task(s) ...``) says it. Any other exception, and a
    cancellation while the server is not stopping, is left to uvicorn.
    """

    def __init__(self, app: Any, stopping: Stopping) -> None:
        self.app = app
        self.stopping = stopping

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        except asyncio.CancelledError:
            if not self.stopping.is_set():
                raise
            for _ in range(3):  # the server's loop, once it has returned, cancels us again
                try:
                    closed = await close_connection(send)
                    break
                except asyncio.CancelledError:
                    continue
            else:
                closed = True  # closed, its end not seen
            if not closed:
                raise


def _uvicorn_server(
    app: Any, host: str, port: int, state: SandboxState, stopping: Stopping
) -> uvicorn.Server:
    config = uvicorn.Config(
        _QuietAtStop(app, stopping),
        host=host,
        port=port,
        # uvicorn's defaults configure the process's logging (handlers, levels): that is the
        # user's to do. Its records go to the "uvicorn" loggers like any library's.
        log_config=None,
        log_level=None,
        access_log=True,  # records at INFO: shown only where the user asks for them
        lifespan="off",
        timeout_keep_alive=30,
        timeout_graceful_shutdown=_GRACEFUL_S,
    )
    return _Server(config, state, stopping)


def _profile(profile: Any) -> Profile:
    """The profile ``profile`` names (:func:`~dealframe.sandbox.profiles.select`); None is
    refused, as every other None that :func:`run`, :func:`start` and :func:`serve` do not
    take (``"default"`` is the sandbox as documented).

    Examples
    --------
    >>> _profile("limit-100").name
    'limit-100'
    >>> _profile(None)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid profile: expected a profile name ('default', 'limit-100', ...), names joined by commas, a list of names or a Profile, got None
    """
    if profile is None:
        raise SandboxArgumentError(
            "profile",
            "a profile name ('default', 'limit-100', ...), names joined by commas, a list of "
            "names or a Profile",
            profile,
        )
    return select(profile)


@keywords_checked
def start(
    scale: float = 1.0,
    seed: int = 7,
    *,
    public_token: str = DEFAULT_PUBLIC_TOKEN,
    private_key: str = DEFAULT_PRIVATE_KEY,
    host: str = "127.0.0.1",
    port: int = 0,
    as_of: dt.datetime | dt.date | str = AS_OF,
    rate_limit: float | None = None,
    latency: float = 0.0,
    faults: FaultPlan | None = None,
    admin_token: str | None = None,
    profile: str | Sequence[str] | Profile = DEFAULT,
) -> Sandbox:
    """Build a sandbox and serve it from a daemon thread; call ``stop()`` when done.

    Prefer the :func:`run` context manager. Parameters are those of :func:`run`. A start-up
    snapshot of freshly generated data (docs/sandbox.md) is written from a background thread
    that begins once the server answers; ``stop()`` waits for it.

    Examples
    --------
    >>> sb = start(scale=0.02, seed=7)
    >>> sb.url.startswith("http://127.0.0.1:")
    True
    >>> sb.stop()
    """
    chosen = _profile(profile)  # an unknown name fails before any data is built
    faults = fault_plan(faults)
    config = SandboxConfig(
        seed=seed,
        scale=scale,
        public_token=public_token,
        private_key=private_key,
        as_of=moment("as_of", as_of),
        rate_limit=rate_limit,
        latency=latency,
        admin_token=admin_token,
    )
    address = _bind(host_name(host), port_number(port))  # a port in use fails before data is built
    try:
        state = SandboxState.build(config, defer_snapshot=True)  # written once serving
    except BaseException:
        address.close()
        raise
    stopping = Stopping()
    app = build_app(state, faults=faults, profile=chosen, stopping=stopping)
    server = _uvicorn_server(app, host, port, state, stopping)
    address.listen(2048)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [address]}, name="dealframe-sandbox", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            thread.join(timeout=5)
            address.close()
            state.close()
            raise SandboxStartError(
                f"the sandbox did not start serving on {host}:{port} within "
                f"{_START_TIMEOUT_S:.0f} s"
                if thread.is_alive()
                else f"the sandbox's server stopped while starting on {host}:{port}"
            )
        time.sleep(0.005)
    bound = address.getsockname()[1]
    return Sandbox(
        url=_url(host, bound),
        public_token=public_token,
        private_key=private_key,
        state=state,
        faults=faults,
        profile=chosen.name,
        _server=server,
        _thread=thread,
    )


@keywords_checked
@contextlib.contextmanager
def run(
    scale: float = 1.0,
    seed: int = 7,
    *,
    public_token: str = DEFAULT_PUBLIC_TOKEN,
    private_key: str = DEFAULT_PRIVATE_KEY,
    host: str = "127.0.0.1",
    port: int = 0,
    as_of: dt.datetime | dt.date | str = AS_OF,
    rate_limit: float | None = None,
    latency: float = 0.0,
    faults: FaultPlan | None = None,
    admin_token: str | None = None,
    profile: str | Sequence[str] | Profile = DEFAULT,
) -> Iterator[Sandbox]:
    """Serve a sandbox on loopback from a background thread for the ``with`` block.

    Works inside a Jupyter kernel (uvicorn runs its own event loop in the thread).

    Parameters
    ----------
    scale : float, default 1.0
        Data size (1.0: 20,000 companies, 3,000 investors, 50,000 deals, 1,000
        listed companies), above 0 and at most 20
        (:data:`~dealframe.sandbox.arguments.MAX_SCALE`; a larger one is a
        :class:`~dealframe.sandbox.SandboxArgumentError` before anything is built).
    seed : int, default 7
        Same seed and scale, same data.
    public_token, private_key : str
        Tokens the sandbox accepts (defaults in docs/sandbox.md).
    host : str, default "127.0.0.1"
        Interface to bind; loopback unless told otherwise.
    port : int, default 0
        0 picks a free port.
    as_of : datetime, date or str, default 2026-06-30T00:00:00+00:00
        The sandbox clock: a ``datetime`` (one without a zone is UTC; another zone is
        converted to UTC), a ``date`` (its midnight, UTC) or an ISO 8601 string of either
        (``"2026-01-01"``).
    rate_limit : float, optional
        Requests per second per token before 429 with ``Retry-After``.
    latency : float, default 0
        Seconds each API request waits before its answer, standing for a remote
        service's round trip (loopback has none).
    faults : FaultPlan, optional
        Fault injection plan (:mod:`dealframe.sandbox.faults`).
    admin_token : str, optional
        Turns on the admin endpoints (``/admin/v1``: clock and changes) with this
        token; off by default (docs/sandbox.md, "Changes and the clock").
    profile : str or list of str, default "default"
        Serve a documented alternative answer to an open point of the interface document
        (docs/sandbox.md, "Profiles"): ``"limit-100"``, ``"quarter-words"``,
        ``"errors-detail"`` ...; names joined by commas combine
        (``"limit-100,quarter-words"``).

    Yields
    ------
    Sandbox
        With ``url``, ``public_token``, ``private_key``, ``state`` and ``reset()``.

    Raises
    ------
    SandboxArgumentError
        An argument it cannot use, or a keyword it does not take (a ``ValueError`` naming
        it), before anything is built.
    SandboxStartError
        When the server cannot bind or start (a ``RuntimeError``).
    SandboxStopError
        The server did not stop when the block ended normally (see :meth:`Sandbox.stop`).
        When the block raised, its exception is raised, with a note saying so.
    UnknownProfileError
        ``profile`` names no profile (a ``ValueError`` listing them), before anything starts.

    Examples
    --------
    >>> import dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02) as sb:
    ...     sb.url.startswith("http://127.0.0.1:")
    True
    >>> with dealframe.sandbox.run(scale=0.02, profile="limit-100,quarter-words") as sb:
    ...     sb.profile
    'limit-100,quarter-words'
    """
    sb = start(**locals())  # the same parameters
    try:
        yield sb
    except BaseException as exc:
        # the block's own exception is the one to see: a server that does not stop too is
        # said under it, never in its place
        try:
            sb.stop()
        except SandboxStopError as stop_error:
            exc.add_note(f"and stopping the sandbox failed: {stop_error}")
        raise
    sb.stop()


@keywords_checked
def serve(
    scale: float = 1.0,
    seed: int = 7,
    *,
    public_token: str = DEFAULT_PUBLIC_TOKEN,
    private_key: str = DEFAULT_PRIVATE_KEY,
    host: str = "127.0.0.1",
    port: int = 8765,
    rate_limit: float | None = None,
    latency: float = 0.0,
    faults: FaultPlan | None = None,
    ready: Callable[[SandboxState, str], None] | None = None,
    admin_token: str | None = None,
    profile: str | Sequence[str] | Profile = DEFAULT,
    bound: Callable[[str], None] | None = None,
) -> None:
    """Serve a sandbox in the foreground until interrupted (the CLI's ``sandbox serve``).

    The address is taken first (a port in use fails at once, with
    :class:`SandboxStartError`), then the data is built, then the server listens; ``ready``
    is then called with the state and the URL it is served on (the real port when ``port``
    is 0), and connections made from then on are answered. Just before, ``bound`` is
    called with the IP address the server listens on (``"::1"`` for a host name that
    resolves there, ``"0.0.0.0"`` for every interface), as bound. ``profile`` is as for
    :func:`run` (checked before any data is built). A start-up snapshot of freshly
    generated data (docs/sandbox.md) begins once the server answers, and the shutdown
    (Ctrl-C, SIGTERM) waits for it.

    Examples
    --------
    Serve on port 8765 until Ctrl-C, every tenth request failing (``dealframe sandbox serve
    --port 8765 --fault-rate 0.1`` from a shell)::

    >>> serve(
    ...     scale=0.1,
    ...     port=8765,
    ...     faults=FaultPlan(rate=0.1, seed=7),
    ...     ready=lambda state, url: print("serving on", url),
    ... )  # doctest: +SKIP
    serving on http://127.0.0.1:8765
    """
    chosen = _profile(profile)
    faults = fault_plan(faults)
    address = _bind(host_name(host), port_number(port))
    try:
        config = SandboxConfig(
            seed=seed,
            scale=scale,
            public_token=public_token,
            private_key=private_key,
            rate_limit=rate_limit,
            latency=latency,
            admin_token=admin_token,
        )
        state = SandboxState.build(config, defer_snapshot=True)  # written once serving
        try:
            stopping = Stopping()
            app = build_app(state, faults=faults, profile=chosen, stopping=stopping)
            server = _uvicorn_server(app, host, port, state, stopping)
            address.listen(2048)  # only now: connections made during the build are refused
            if bound is not None:
                bound(str(address.getsockname()[0]).split("%")[0])  # no IPv6 scope
            if ready is not None:
                ready(state, _url(host, address.getsockname()[1]))
            server.run(sockets=[address])
        finally:
            state.close()
    finally:
        address.close()


def _url(host: str, port: int) -> str:
    """``http://host:port``, an IPv6 host in brackets."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (not yet listening); :class:`SandboxStartError` when
    the address cannot be taken (in use, not an interface of this machine, no such host)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        # with its protocol (IPPROTO_TCP): asyncio turns Nagle's algorithm off only on the
        # connections of a socket that says it is TCP, and with it on, every small answer on a
        # kept-alive connection waited about 40 ms for the client's delayed ACK
        sock = socket.socket(family[0][0], socket.SOCK_STREAM, family[0][2])
    except OSError as exc:
        raise SandboxStartError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        if os.name == "posix":  # elsewhere it would let two servers share a port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(family[0][4])
    except OSError as exc:
        sock.close()
        raise SandboxStartError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
