"""The sandbox's models: configuration, clock, data and stores, with :meth:`reset`.

:class:`SandboxState` is what every handler and every in-process change works on:
the configuration, the Family A and Family B stores, the moving clock and the lock
that keeps a change and a read apart. It needs no server: build one with
:meth:`SandboxState.build`, query its stores, change it with
:class:`dealframe.sandbox.changes.Changes`, and :meth:`~SandboxState.reset` it to the
generated data and the starting clock.
"""

from __future__ import annotations

import datetime as dt
import threading
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..arguments import (
    MAX_LATENCY,
    SandboxArgumentError,
    methods_checked,
    moment,
    number,
    scale_number,
    whole,
)
from ..auth import DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_TOKEN
from .corpus import Corpus
from .data import AS_OF
from .private import PrivateStore
from .public import PublicStore
from .records import RecordStore
from .snapshot import SnapshotWriter, load_or_generate

__all__ = ["Clock", "DatasetView", "SandboxConfig", "SandboxState"]


@methods_checked
@dataclass(frozen=True)
class SandboxConfig:
    """How a sandbox is built.

    Attributes
    ----------
    seed, scale : int, float
        Passed to :func:`dealframe.sandbox.models.data.generate`.
    public_token, private_key : str
        The Family A token and the Family B key the sandbox accepts.
    as_of : datetime, date or str
        The sandbox clock's start: a ``datetime`` (one without a zone is UTC), a ``date``
        (its midnight, UTC) or an ISO 8601 string of either; kept as a UTC ``datetime``.
    rate_limit : float or None
        Requests per second per token before 429 (None: no limit).
    admin_token : str or None
        Token of the admin endpoints (``/admin/v1``), a non-empty string; None (default)
        leaves them off.
    latency : float
        Seconds every API request waits before it is answered, to stand for the
        network round trip and service time of a remote service (default 0:
        loopback speed), at most 60 (:data:`~dealframe.sandbox.arguments.MAX_LATENCY`).
        Waiting is asynchronous: requests overlap.

    Raises
    ------
    SandboxArgumentError
        An argument out of its bounds or of the wrong type, naming it.

    Examples
    --------
    >>> config = SandboxConfig(scale=0.02, seed=3, as_of="2026-01-01", private_key="my-key")
    >>> config  # the tokens are not shown
    SandboxConfig(seed=3, scale=0.02, as_of=2026-01-01T00:00:00+00:00, rate_limit=None, latency=0.0)
    >>> SandboxState.build(config).clock.now().isoformat()
    '2026-01-01T00:00:00+00:00'
    >>> SandboxConfig(scale=0)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid scale: expected a number above 0, got 0
    """

    seed: int = 7
    scale: float = 1.0
    public_token: str = DEFAULT_PUBLIC_TOKEN
    private_key: str = DEFAULT_PRIVATE_KEY
    as_of: dt.datetime = AS_OF
    rate_limit: float | None = None
    admin_token: str | None = None
    latency: float = 0.0

    def __post_init__(self) -> None:
        whole("seed", self.seed)
        object.__setattr__(self, "as_of", moment("as_of", self.as_of))  # frozen: set once here
        scale_number(self.scale)
        number("latency", self.latency, at_least=0.0, at_most=MAX_LATENCY)
        if self.rate_limit is not None:
            number("rate_limit", self.rate_limit, above=0.0)
        for name in ("public_token", "private_key", "admin_token"):
            _token(name, getattr(self, name))

    def __repr__(self) -> str:  # tokens stay out of reprs
        return (
            f"SandboxConfig(seed={self.seed}, scale={self.scale}, as_of={self.as_of.isoformat()}, "
            f"rate_limit={self.rate_limit}, latency={self.latency})"
        )


def _token(name: str, token: object) -> None:
    """Refuse a token no request can give: not a string, blank, or with blanks around it
    (the sandbox strips the token of the ``Authorization`` header before comparing, so
    ``" secret "`` never matched). None stands for no admin token (admin endpoints off)."""
    if token is None and name == "admin_token":
        return
    if isinstance(token, str) and token.strip() and token == token.strip():
        return
    # "" turned the admin endpoints on with no token that opens them; True, b"x" started a
    # sandbox whose every admin request was a 500. The token itself is never shown.
    shown = (
        type(token)
        if not isinstance(token, str)
        else "a blank string"
        if not token.strip()
        else "a string with blanks around it"
    )
    expected = "a non-empty string without blanks around it"
    if name == "admin_token":
        expected += ", or None (admin endpoints off)"
    got = f"got {shown}" if isinstance(shown, str) else f"got {shown!r}"
    raise SandboxArgumentError(
        name, expected, message=f"invalid {name}: expected {expected}, {got}"
    )


class Clock:
    """The sandbox's moving clock: starts at ``start``, moves only by :meth:`advance`."""

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


class _Records(Sequence):
    """Read-only records of a store, decoded on access (a new mapping each time)."""

    def __init__(self, store: RecordStore) -> None:
        self._store = store

    def __len__(self) -> int:
        return len(self._store)

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        return types.MappingProxyType(self._store.record(row))

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))


@dataclass(frozen=True)
class DatasetView:
    """The current records, read-only, in the generator's form (for tests and inspection).

    ``orgs`` and ``deals`` decode each record when it is read; change data with
    :class:`dealframe.sandbox.changes.Changes`, never through these mappings.
    """

    seed: int
    scale: float
    as_of: dt.datetime
    orgs: Sequence[Any]
    deals: Sequence[Any]
    listed: list[dict]
    months: list[str]
    series: np.ndarray


@methods_checked
@dataclass
class SandboxState:
    """Data, stores, clock and lock behind one sandbox.

    Attributes
    ----------
    config : SandboxConfig
    public : PublicStore
        Family A (never changes).
    private : PrivateStore
        Family B (changed by :class:`~dealframe.sandbox.changes.Changes`).
    clock : Clock
        Stamps every change's ``updated_at``.
    lock : threading.RLock
        Held by every change and every Family B read that must see one version.
    admin_rng : numpy.random.Generator
        The random stream of the admin endpoint's changes (seeded with ``config.seed``).

    Examples
    --------
    A running sandbox's is ``sb.state``; one built in-process needs no server:

    >>> state = SandboxState.build(SandboxConfig(scale=0.02))
    >>> len(state.dataset.orgs), len(state.dataset.deals), len(state.dataset.listed)
    (490, 1000, 60)
    >>> deal = state.dataset.deals[0]
    >>> state.private.find("transactions", deal["id"])[1]["deal_type"] == deal["deal_type"]
    True
    >>> state.clock.now().isoformat()
    '2026-06-30T00:00:00+00:00'
    """

    config: SandboxConfig
    corpus: Corpus = field(repr=False)
    public: PublicStore = field(repr=False)
    private: PrivateStore = field(repr=False)
    clock: Clock
    admin_rng: np.random.Generator = field(repr=False)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _writer: SnapshotWriter | None = field(default=None, repr=False)

    @classmethod
    def build(cls, config: SandboxConfig, *, defer_snapshot: bool = False) -> SandboxState:
        """Load (or generate) the data and index it.

        Freshly generated data worth a start-up snapshot (:mod:`.snapshot`) is written from
        a background thread: begun at once, or with ``defer_snapshot`` only when
        :meth:`start_snapshot` is called (a served sandbox calls it once its server
        answers, so that writing never delays the first answer).

        Examples
        --------
        >>> state = SandboxState.build(SandboxConfig(scale=0.02))
        >>> state.private.companies.store is state.private.orgs
        True
        """
        corpus, writer = load_or_generate(
            seed=config.seed,
            scale=config.scale,
            as_of=config.as_of,
            start_write=not defer_snapshot,
        )
        return cls(
            config=config,
            corpus=corpus,
            public=PublicStore(corpus),
            private=PrivateStore(corpus.copy()),
            clock=Clock(config.as_of),
            admin_rng=np.random.default_rng(config.seed),
            _writer=writer,
        )

    def reset(self) -> None:
        """Back to the generated data and the starting clock, as if just built.

        Examples
        --------
        >>> from dealframe.sandbox.changes import Changes
        >>> state = SandboxState.build(SandboxConfig(scale=0.02))
        >>> before = len(state.private.deals)
        >>> _ = Changes(state, seed=1).insert("deals", 3)
        >>> len(state.private.deals) - before
        3
        >>> state.reset()
        >>> len(state.private.deals) == before and state.clock.now() == state.config.as_of
        True
        """
        with self.lock:
            self.private = PrivateStore(self.corpus.copy())
            self.clock = Clock(self.config.as_of)
            self.admin_rng = np.random.default_rng(self.config.seed)

    @property
    def dataset(self) -> DatasetView:
        """The current records, read-only (see :class:`DatasetView`)."""
        corpus = self.corpus
        return DatasetView(
            seed=corpus.seed,
            scale=corpus.scale,
            as_of=corpus.as_of,
            orgs=_Records(self.private.orgs),
            deals=_Records(self.private.deals),
            listed=corpus.listed,
            months=corpus.months,
            series=corpus.series,
        )

    def start_snapshot(self) -> None:
        """Begin writing the start-up snapshot that :meth:`build` deferred, from a background
        thread; nothing when there is none or it has begun.

        Examples
        --------
        >>> state = SandboxState.build(SandboxConfig(scale=0.02), defer_snapshot=True)
        >>> state.start_snapshot()  # scale 0.02 is too small for a snapshot: nothing to do
        >>> state.close()
        """
        if self._writer is not None:
            self._writer.start()

    @property
    def snapshot_writing(self) -> bool:
        """Whether the start-up snapshot is being written now (:meth:`start_snapshot`)."""
        writer = self._writer
        return writer is not None and writer.writing

    def close(self) -> None:
        """Wait for a start-up snapshot still being written; drop one deferred and never begun.

        Call it when done with a state built in-process (a sandbox's ``stop()`` does);
        calling it again does nothing.

        Examples
        --------
        >>> state = SandboxState.build(SandboxConfig(scale=0.02))
        >>> state.close()
        >>> state.close()
        """
        writer = self._writer
        if writer is not None:
            writer.join()  # from any thread: each caller returns once the write has ended
            self._writer = None
