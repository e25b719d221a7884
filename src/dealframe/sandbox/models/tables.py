"""List tables: the rows of one Family B list endpoint, with their columns and sort orders.

A :class:`Table` is a selection of a record store's rows (companies and investors
are both organisations; deals are all the deals) with the columns its filters and
sort keys read, cached sort permutations, and each row's list item serialised once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from .records import RecordStore

__all__ = ["Table", "id_ranks"]


def id_ranks(ids: np.ndarray) -> np.ndarray:
    """The position of each id in ascending id order (ties of a sort are broken by it)."""
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.argsort(ids, kind="stable")] = np.arange(len(ids))
    return rank


class Table:
    """Rows ``rows`` of ``store`` as one list endpoint sees them.

    Parameters
    ----------
    store : RecordStore
        The records.
    rows : numpy.ndarray
        Record rows in the table, ascending; position ``i`` of the table is record
        ``rows[i]``.
    columns : dict
        Column name → array over the table's positions (sort and filter columns).
    item : callable
        Builds the serialised list item of a record row.

    Examples
    --------
    >>> from dealframe.sandbox.models.records import Column, RecordSpec
    >>> spec = RecordSpec({"id": Column("str", lambda r: r["id"])}, {})
    >>> store = RecordStore.from_records(spec, [{"id": "b"}, {"id": "a"}, {"id": "c"}])
    >>> t = Table(store, np.array([0, 1]), {"id": store.columns["id"][[0, 1]]}, lambda row: b"{}")
    >>> t.position("a"), t.position("c"), t.permutation("id", descending=False).tolist()
    (1, None, [1, 0])
    """

    def __init__(
        self,
        store: RecordStore,
        rows: np.ndarray,
        columns: dict[str, np.ndarray],
        item: Callable[[int], bytes],
    ) -> None:
        self.store = store
        self.rows = rows
        self.columns = columns
        self.columns.setdefault("id_rank", id_ranks(store.columns["id"][rows]))
        self._item = item
        self._position = np.full(len(store), -1, dtype=np.int64)
        self._position[rows] = np.arange(len(rows))
        self._bytes: list[bytes | None] = [None] * len(rows)
        self._perms: dict[tuple[str, bool], np.ndarray] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.rows)

    def position(self, ident: str) -> int | None:
        """The table position of an id, or None when it is not in this table."""
        row = self.store.row_of.get(ident)
        if row is None or self._position[row] < 0:
            return None
        return int(self._position[row])

    def positions(self, idents: list[str]) -> np.ndarray:
        """Table positions of the ids that are in this table."""
        found = [p for p in (self.position(i) for i in idents) if p is not None]
        return np.array(found, dtype=np.int64)

    def item_bytes(self, positions: np.ndarray) -> list[bytes]:
        """Serialised list items of table ``positions`` (each built once, then kept)."""
        cache, rows, out = self._bytes, self.rows, []
        for p in positions.tolist():
            cached = cache[p]
            if cached is None:
                cached = cache[p] = self._item(int(rows[p]))
            out.append(cached)
        return out

    def permutation(self, key: str, descending: bool) -> np.ndarray:
        """Positions ordered by ``key`` (nulls last in both directions), ties by id ascending."""
        with self._lock:
            perm = self._perms.get((key, descending))
        if perm is not None:
            return perm
        values = self.columns[key]
        if values.dtype == object:  # strings: rank them first
            codes = np.unique(values, return_inverse=True)[1].astype(np.float64)
            nulls = np.zeros(len(values), dtype=bool)
            values = codes
        elif values.dtype.kind == "M":
            nulls = np.isnat(values)
            values = values.astype("int64").astype(np.float64)
        else:
            values = values.astype(np.float64)
            nulls = np.isnan(values)
        keyed = np.where(nulls, 0.0, -values if descending else values)
        perm = np.lexsort((self.columns["id_rank"], keyed, nulls))
        with self._lock:
            self._perms[(key, descending)] = perm
        return perm
