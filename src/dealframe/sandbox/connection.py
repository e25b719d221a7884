"""Closing the connection of an ASGI request from inside the app: :func:`close_connection`.

A fault that drops a connection (:mod:`.faults`) and a request cancelled by a stopping
server (:mod:`.server`) end their connection this way, so that the server neither answers
500 nor logs an error for it. Only the standard library is used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["close_connection"]

Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


async def close_connection(send: Send) -> bool:
    """Close the server's connection if ``send`` exposes its transport; report success.

    uvicorn's ``send`` is a bound method of its protocol, which holds the transport; another
    server's (or a test client's) is not, and nothing is closed (False).

    Examples
    --------
    >>> import asyncio
    >>> async def send(message): ...
    >>> asyncio.run(close_connection(send))
    False
    """
    owner = getattr(send, "__self__", None)
    transport = getattr(owner, "transport", None)
    if transport is None or not hasattr(transport, "close"):
        return False
    transport.close()
    # let the server notice the closed connection, so it neither answers 500 nor logs an error
    for _ in range(50):
        if getattr(owner, "disconnected", True):
            break
        await asyncio.sleep(0.001)
    return True
