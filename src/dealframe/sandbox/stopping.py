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

__all__ = ["Stopping"]


class Stopping:
    """Set once the server serving an app begins to stop; :meth:`pause` ends there.

    One per served app: its event belongs to the event loop of the server that waits on it.

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
        self._event = asyncio.Event()

    def set(self) -> None:
        """Stop every :meth:`pause` now and from now on (call it from the server's loop)."""
        self._event.set()

    def is_set(self) -> bool:
        """Whether the server is stopping."""
        return self._event.is_set()

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds``, or less: until the server begins to stop."""
        if seconds <= 0 or self._event.is_set():
            return
        try:
            await asyncio.wait_for(self._event.wait(), timeout=seconds)
        except TimeoutError:
            pass
