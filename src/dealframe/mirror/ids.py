"""Ids held compactly while a sync reads the feed: 16 bytes a row, in numpy arrays.

A full sync reads every record once (some twice, when they change while it reads), and must
know which ids it read more than once and which read of each is the latest. Python strings in
a dict cost about 150 bytes an id: memory growing with the table. Here an id is its 16-byte
BLAKE2b digest, two ``uint64`` words, so the memory a sync holds besides a row group is 16 bytes
a row read (3.2 MB for 200,000 rows). Two different ids share a digest with a probability of
about ``n**2 / 2**129`` (``1e-28`` for a million rows): never, in practice.

* :func:`id_keys`: the keys of ids.
* :func:`latest_reads`: which reads hold their id's latest version (one sort, at the end).
* :class:`KeyIndex`: keys added as they come, each looked up for its last value (sorted runs
  merged as they grow, so adding ``n`` keys costs ``O(n log n)`` in all).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["KeyIndex", "id_keys", "latest_reads"]


def id_keys(ids: Iterable[object]) -> np.ndarray:
    """The keys of ``ids`` (their text's 16-byte BLAKE2b digests): an ``(n, 2)`` ``uint64`` array.

    Examples
    --------
    >>> keys = id_keys(["a", "b", "a"])
    >>> keys.shape, keys.dtype.name, bool((keys[0] == keys[2]).all()), bool((keys[0] == keys[1]).all())
    ((3, 2), 'uint64', True, False)
    """
    digest = hashlib.blake2b
    buf = b"".join([digest(str(i).encode(), digest_size=16).digest() for i in ids])
    return np.frombuffer(buf, dtype="<u8").reshape(-1, 2).copy()


def latest_reads(keys: np.ndarray) -> np.ndarray | None:
    """Which of the reads ``keys`` (in read order) hold their id's last read: a boolean mask, or
    None when no id was read twice (every read is the latest).

    Examples
    --------
    >>> latest_reads(id_keys(["a", "b", "a", "c"])).tolist()
    [False, True, True, True]
    >>> latest_reads(id_keys(["a", "b"])) is None
    True
    """
    if len(keys) < 2:
        return None
    hi = np.sort(keys[:, 0])  # the cheap check first: no word repeated, no id repeated
    if not (hi[1:] == hi[:-1]).any():
        return None
    del hi
    order = np.lexsort((keys[:, 1], keys[:, 0]))  # stable: an id's reads stay in read order
    ordered = keys[order]
    last = np.ones(len(keys), dtype=bool)  # the last of each run of one key in sorted order
    last[:-1] = (ordered[1:] != ordered[:-1]).any(axis=1)
    if last.all():
        return None
    mask = np.empty(len(keys), dtype=bool)
    mask[order] = last
    return mask


@dataclass
class _Run:
    hi: np.ndarray
    lo: np.ndarray
    values: np.ndarray


@dataclass
class KeyIndex:
    """Keys added with a value each (an ``int64``); :meth:`last` finds the value each key was
    last added with. Runs of keys sorted once, merged when a run is as long as the one before
    it (as few as ``log2(n)`` runs). A lookup that meets two ids sharing their first 64 bits
    (``n**2 / 2**65``: ``1e-9`` at 200,000 ids) may miss one. With ``exact=False`` only those
    64 bits are kept (16 bytes a key with its value, not 24), and two keys sharing them are one
    key: with that same probability a lookup returns the value the other key was last added
    with, for a key never added (instead of -1) or for one added with another value. It is
    for uses that take a wrong value for a hint to check, never for the answer: the change
    feed's tie ids (:class:`.feed.FeedWalk`), where an id taken for another's marks the walk
    unstable from that other's tie and costs one more pass over the feed from there.

    Examples
    --------
    >>> index = KeyIndex()
    >>> index.add(id_keys(["a", "b"]), np.array([0, 1]))
    >>> index.add(id_keys(["a"]), np.array([2]))
    >>> index.last(id_keys(["a", "b", "c"])).tolist()
    [2, 1, -1]
    >>> len(index)
    3
    """

    exact: bool = True
    runs: list[_Run] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(r.hi) for r in self.runs)

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add ``keys`` (in order) with their ``values``."""
        if not len(keys):
            return
        lo = keys[:, 1] if self.exact else np.zeros(0, np.uint64)
        self.runs.append(_sorted(keys[:, 0], lo, np.asarray(values, dtype=np.int64)))
        while len(self.runs) > 1 and len(self.runs[-2].hi) <= len(self.runs[-1].hi):
            newer, older = self.runs.pop(), self.runs.pop()
            self.runs.append(
                _sorted(
                    np.concatenate([older.hi, newer.hi]),
                    np.concatenate([older.lo, newer.lo]),
                    np.concatenate([older.values, newer.values]),
                )
            )

    def last(self, keys: np.ndarray) -> np.ndarray:
        """The value each of ``keys`` was last added with; -1 for a key never added."""
        found = np.full(len(keys), -1, dtype=np.int64)
        todo = np.ones(len(keys), dtype=bool)
        for run in reversed(self.runs):  # the newest run first: its values are the later
            if not todo.any():
                break
            at = np.searchsorted(run.hi, keys[:, 0], side="right") - 1
            safe = np.maximum(at, 0)
            hit = todo & (at >= 0) & (run.hi[safe] == keys[:, 0])
            if self.exact:
                hit &= run.lo[safe] == keys[:, 1]
            found[hit] = run.values[safe[hit]]
            todo &= ~hit
        return found


def _sorted(hi: np.ndarray, lo: np.ndarray, values: np.ndarray) -> _Run:
    """A run sorted by key (``hi`` only, when ``lo`` is empty), stable: a key's last entry is
    the one added last."""
    order = np.lexsort((lo, hi)) if len(lo) else np.argsort(hi, kind="stable")
    return _Run(hi[order], lo[order] if len(lo) else lo, values[order])
