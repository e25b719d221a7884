"""A small in-process front for the SQLite HTTP cache: recent bodies kept in memory.

A cache hit from SQLite still costs a query and requests-cache's deserialisation (about
0.2 ms a response); a notebook that re-runs a cell, or a report that asks for the same
chunks twice, pays that on every call. :class:`MemoryTier` keeps the bytes of recently used
responses under their cache key, bounded by total size (least recently used first out).

Rules that keep it a faithful copy of the SQLite cache, never a second source of truth:

- An entry is stored only when the same response is in SQLite (just written, or just read),
  with the same expiry; an entry past its expiry is dropped when next asked for.
- ``refresh=True`` and ``cache=False`` never read it; a refresh overwrites it.
- Clearing or deleting in the cache clears or deletes here too.
- Only bytes and headers are kept (immutable copies), never parsed objects or frames, so
  nothing a caller does to a result can change what the next call gets.

Another process (or another client) refreshing the SQLite file is seen here only when the
entry expires: the same staleness any cached answer may have.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_MEMORY_BYTES", "MemoryEntry", "MemoryTier", "ResultMemo"]

#: Default bound of a client's memory tier (bytes of bodies held).
DEFAULT_MEMORY_BYTES = 64 * 2**20


@dataclass(frozen=True)
class MemoryEntry:
    """One response body as stored in SQLite: bytes, headers and expiry (UTC, None: never)."""

    content: bytes
    headers: Mapping[str, str]
    expires: dt.datetime | None
    #: Unique per stored entry (None: not held in memory); a refresh stores a new serial.
    serial: int | None = None

    def expired(self, now: dt.datetime | None = None) -> bool:
        """Whether the entry is past its expiry.

        Examples
        --------
        >>> past = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
        >>> MemoryEntry(b"", {}, past).expired(), MemoryEntry(b"", {}, None).expired()
        (True, False)
        """
        if self.expires is None:
            return False
        expires = self.expires
        if expires.tzinfo is None:  # requests-cache stores UTC; older entries may be naive
            expires = expires.replace(tzinfo=dt.timezone.utc)
        return (now or dt.datetime.now(dt.timezone.utc)) >= expires


class MemoryTier:
    """Thread-safe LRU of :class:`MemoryEntry` by cache key, bounded by total body bytes.

    Parameters
    ----------
    max_bytes : int
        Bound on the bytes of bodies held; 0 disables the tier. A body larger than a
        quarter of the bound is never held (it would push out everything else).

    Examples
    --------
    >>> tier = MemoryTier(max_bytes=1_000)
    >>> tier.put("k", b'{"data": []}', {"Content-Type": "application/json"}, None).serial
    1
    >>> tier.get("k").content
    b'{"data": []}'
    >>> tier.delete("k"); tier.get("k") is None
    True
    """

    def __init__(self, max_bytes: int = DEFAULT_MEMORY_BYTES) -> None:
        self.max_bytes = max(0, int(max_bytes))
        self._entries: OrderedDict[str, MemoryEntry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._serials = itertools.count(1)

    def __repr__(self) -> str:
        return f"MemoryTier(entries={len(self._entries)}, bytes={self._bytes}, max_bytes={self.max_bytes})"

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Bytes of bodies held now."""
        return self._bytes

    def get(self, key: str) -> MemoryEntry | None:
        """The live entry under ``key`` (now the most recently used), or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.expired():
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return entry

    def put(self, key: str, content: bytes, headers: Mapping[str, str],
            expires: dt.datetime | None) -> MemoryEntry | None:
        """Hold a copy of a response that was just written to or read from SQLite.

        Returns the entry held (with a new ``serial``), or None when the tier is off or
        the body too large to hold.
        """
        if not self.max_bytes or not key or len(content) > self.max_bytes // 4:
            return None
        entry = MemoryEntry(bytes(content), dict(headers), expires, next(self._serials))
        with self._lock:
            self._drop(key)
            self._entries[key] = entry
            self._bytes += len(entry.content)
            while self._bytes > self.max_bytes and self._entries:
                self._drop(next(iter(self._entries)))
        return entry

    def delete(self, key: str) -> None:
        """Forget ``key``."""
        with self._lock:
            self._drop(key)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _drop(self, key: str) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._bytes -= len(entry.content)


class ResultMemo:
    """Results derived from exact cache entries (frames shaped from them), reused while unchanged.

    A signature names the shaping (endpoint, arguments) and the ``serial`` of every
    :class:`MemoryEntry` the result was shaped from. Serials are never reused, so a refreshed,
    expired or cleared entry can never match an old result: a memo hit is exactly what
    shaping the same cached bytes again would give. Values are stored and handed out through
    ``copy`` so that callers never share mutable objects with the memo.

    Parameters
    ----------
    max_items : int
        Results held at most (least recently used out); 0 disables the memo.
    max_bytes : int
        Bound on the summed ``size`` of the results held.

    Examples
    --------
    >>> memo = ResultMemo(max_items=2, max_bytes=100)
    >>> memo.put(("current", (1, 2)), [1.0, 2.0], copy=list, size=16)
    >>> memo.get(("current", (1, 2)), copy=list)
    [1.0, 2.0]
    >>> memo.get(("current", (1, 3)), copy=list) is None
    True
    """

    def __init__(self, max_items: int = 8, max_bytes: int = DEFAULT_MEMORY_BYTES) -> None:
        self.max_items = max(0, int(max_items))
        self.max_bytes = max(0, int(max_bytes))
        self._values: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"ResultMemo(items={len(self._values)}, bytes={self._bytes})"

    def get(self, signature: Hashable, *, copy: Callable[[Any], Any]) -> Any | None:
        """A copy of the result stored under ``signature``, or None."""
        with self._lock:
            found = self._values.get(signature)
            if found is None:
                return None
            self._values.move_to_end(signature)
        return copy(found[0])

    def put(self, signature: Hashable, value: Any, *, copy: Callable[[Any], Any],
            size: int) -> None:
        """Store a copy of ``value`` (skipped when it is over a quarter of ``max_bytes``)."""
        if not self.max_items or size > self.max_bytes // 4:
            return
        held = copy(value)
        with self._lock:
            old = self._values.pop(signature, None)
            if old is not None:
                self._bytes -= old[1]
            self._values[signature] = (held, size)
            self._bytes += size
            while self._values and (len(self._values) > self.max_items
                                    or self._bytes > self.max_bytes):
                _, (_, dropped) = self._values.popitem(last=False)
                self._bytes -= dropped

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._values.clear()
            self._bytes = 0
