"""An ``HTTPAdapter`` whose wait for a pooled connection is bounded.

The transport's pool blocks (``pool_block=True``): threads beyond ``pool_maxsize`` wait for a
free connection instead of opening extra ones that urllib3 discards. urllib3 waits for one
forever unless ``urlopen`` is given a ``pool_timeout``, which ``requests`` never passes. This
adapter bounds the wait by the request's read timeout (the transport derives it from the
call's budget, so the wait stays inside the budget) and raises :class:`PoolTimeout` (a
``requests`` timeout) when no connection frees up in time.

Examples
--------
>>> adapter = BoundedPoolAdapter(pool_maxsize=4, pool_block=True)
>>> adapter.poolmanager.pool_classes_by_scheme["http"].__name__
'_HTTPPool'
>>> adapter.close()
"""

from __future__ import annotations

import threading
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import EmptyPoolError

__all__ = ["BoundedPoolAdapter", "PoolTimeout"]

#: The current thread's bound on waiting for a pooled connection (seconds).
_WAIT = threading.local()


class PoolTimeout(requests.exceptions.Timeout):
    """No pooled connection became free within the request's timeout."""


def _bounded(timeout: float | None) -> float | None:
    return timeout if timeout is not None else getattr(_WAIT, "seconds", None)


class _HTTPPool(HTTPConnectionPool):
    def _get_conn(self, timeout: float | None = None) -> Any:
        return super()._get_conn(_bounded(timeout))


class _HTTPSPool(HTTPSConnectionPool):
    def _get_conn(self, timeout: float | None = None) -> Any:
        return super()._get_conn(_bounded(timeout))


_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


def _wait_for(timeout: Any) -> float | None:
    """The read part of a ``requests`` timeout (a number, a pair, or None)."""
    read = timeout[1] if isinstance(timeout, tuple) else timeout
    return float(read) if isinstance(read, (int, float)) else None


class BoundedPoolAdapter(HTTPAdapter):
    """``HTTPAdapter`` that waits for a pooled connection at most the read timeout."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS

    def proxy_manager_for(self, *args: Any, **kwargs: Any) -> Any:
        manager = super().proxy_manager_for(*args, **kwargs)
        manager.pool_classes_by_scheme = _POOLS
        return manager

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        wait = _wait_for(kwargs.get("timeout", args[1] if len(args) > 1 else None))
        _WAIT.seconds = wait
        try:
            return super().send(request, *args, **kwargs)
        except EmptyPoolError:
            pass  # raised below, out of the except block: no chained queue.Empty
        finally:
            _WAIT.seconds = None
        raise PoolTimeout(
            f"no pooled connection became free within {wait or 0:.2f} s "
            "(every connection is in use by other calls of this client)",
            request=request,
        )
