"""The sandbox's waits that end at once when its server stops: :class:`Stopping`.

A request waiting out the simulated latency or a ``slow`` fault held the server's shutdown
for as long as the wait (45 s for ``FaultPlan(slow_seconds=45)``), after its client had
given up: ``with run(...)`` then left its server thread running. The server sets its
:class:`Stopping` when it begins to shut down, and every such wait ends there; the request
is then answered (to a client that is usually gone) and the shutdown goes on. Only the
standard library is used, as in :mod:`.faults`.
"""

from __future__ import annotations

import asyncio
import threading

__all__ = ["Stopping"]


class Stopping:
    """Set once the server serving an app begins to stop; :meth:`pause` ends there.

    It holds no object of an event loop between waits: an app is served by one loop, but an
    app built by :func:`~.app.build_app` may be called from several in turn (two
    ``asyncio.run``, a test client opened twice, a loop per test), and an ``asyncio.Event``
    waited on from a second loop raised ``RuntimeError`` (bound to a different event loop).
    Each :meth:`pause` waits on a future of its own loop, which :meth:`set` (from any thread)
    resolves in that loop.

    Examples
    --------
    >>> import asyncio, time
    >>> stopping = Stopping()
    >>> async def main():
    ...     asyncio.get_running_loop().call_later(0.05, stopping.set)
    ...     began = time.monotonic()
    ...     await stopping.pause(30)
    ...     return time.monotonic() - began < 5, stopping.is_set()
    >>> asyncio.run(main())
    (True, True)
    """

    def __init__(self) -> None:
        self._set = False
        self._lock = threading.Lock()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = set()

    def set(self) -> None:
        """Stop every :meth:`pause` now and from now on (from any thread)."""
        with self._lock:
            self._set = True
            waiters, self._waiters = self._waiters, set()
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # that loop is closed: nothing waits there any more
                pass

    def is_set(self) -> bool:
        """Whether the server is stopping."""
        return self._set

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds``, or less: until the server begins to stop."""
        if seconds <= 0:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        waiter = (loop, future)
        with self._lock:
            if self._set:
                return
            self._waiters.add(waiter)
        try:
            await asyncio.wait([future], timeout=seconds)
        finally:
            with self._lock:
                self._waiters.discard(waiter)
            future.cancel()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
