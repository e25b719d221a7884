"""The sandbox's state: data, stores, tokens and switches, shared by the routes."""

from __future__ import annotations

import atexit
import datetime as dt
import gc
import threading
from dataclasses import dataclass, field
from typing import Any

from .auth import DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_TOKEN
from .data import AS_OF, Dataset

__all__ = ["Clock", "SandboxConfig", "SandboxState", "freeze_long_lived"]


_unfreeze_registered = False


def freeze_long_lived() -> None:
    """Move every object alive now out of the garbage collector's reach.

    The sandbox holds millions of long-lived records; without this every full collection
    in the process (the client's included, when the sandbox runs in a notebook or a test)
    walks them all. Frozen objects are still freed by reference counting, and everything is
    unfrozen at exit so that shutdown collects as usual.
    """
    global _unfreeze_registered
    if not _unfreeze_registered:
        atexit.register(gc.unfreeze)
        _unfreeze_registered = True
    gc.collect()
    gc.freeze()


@dataclass(frozen=True)
class SandboxConfig:
    """How a sandbox is built.

    Attributes
    ----------
    seed, scale : int, float
        Passed to :func:`dealframe.sandbox.data.generate`.
    public_token, private_key : str
        The Family A token and the Family B key the sandbox accepts.
    as_of : datetime
        The sandbox clock.
    rate_limit : float or None
        Requests per second per token before 429 (None: no limit).
    admin_token : str or None
        Token of the admin endpoints (``/admin/v1``); None (default) leaves them off.
    latency : float
        Seconds every API request waits before it is answered, to stand for the
        network round trip and service time of a remote service (default 0:
        loopback speed). Waiting is asynchronous: requests overlap.
    """

    seed: int = 7
    scale: float = 1.0
    public_token: str = DEFAULT_PUBLIC_TOKEN
    private_key: str = DEFAULT_PRIVATE_KEY
    as_of: dt.datetime = AS_OF
    rate_limit: float | None = None
    admin_token: str | None = None
    latency: float = 0.0

    def __repr__(self) -> str:  # tokens stay out of reprs
        return (f"SandboxConfig(seed={self.seed}, scale={self.scale}, as_of={self.as_of.isoformat()}, "
                f"rate_limit={self.rate_limit}, latency={self.latency})")


class Clock:
    """The sandbox's moving clock: starts at ``config.as_of``, moves only by :meth:`advance`."""

    def __init__(self, start: dt.datetime) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> dt.datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> dt.datetime:
        with self._lock:
            self._now = self._now + dt.timedelta(seconds=seconds)
            return self._now


@dataclass
class SandboxState:
    """Data and stores behind one running sandbox.

    ``lock`` serialises changes (the mirror issue's clock and mutations) with
    reads that must see one consistent version.
    """

    config: SandboxConfig
    dataset: Dataset
    public: Any = None
    private: Any = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    clock: Clock | None = None

    @classmethod
    def build(cls, config: SandboxConfig) -> "SandboxState":
        """Generate the data and index it."""
        from .public_store import PublicStore
        from .store import PrivateStore

        from .snapshot import load_or_generate

        dataset = load_or_generate(seed=config.seed, scale=config.scale, as_of=config.as_of)
        state = cls(config=config, dataset=dataset, clock=Clock(config.as_of))
        state.public = PublicStore(dataset)
        state.private = PrivateStore(dataset)
        freeze_long_lived()
        return state
