"""Newest generation wins: how the mirror's base and delta files make one row per id (pure).

Every commit writes its rows under a new generation. Within one generation an id
appears at most once; across generations, the newest generation holding an id
has its current version. The base (the oldest generation) is never filtered
against itself, so merging costs a hash set of the delta ids, not of the table.

Examples
--------
>>> import pyarrow as pa
>>> base = pa.table({"id": ["a", "b", "c"], "v": [1, 1, 1]})
>>> delta = pa.table({"id": ["b"], "v": [2]})
>>> merged = pa.concat_tables(newest_wins([[base], [delta]]))
>>> merged.to_pydict()
{'id': ['a', 'c', 'b'], 'v': [1, 1, 2]}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["drop_ids", "last_per_id", "newest_wins", "superseding", "unique_ids"]


def unique_ids(arrays: Sequence[pa.Array | pa.ChunkedArray]) -> pa.Array:
    """The distinct ids of ``arrays`` as one string array.

    Examples
    --------
    >>> import pyarrow as pa
    >>> unique_ids([pa.array(["a", "b"]), pa.array(["b"])]).to_pylist()
    ['a', 'b']
    """
    chunks = [c for a in arrays for c in (a.chunks if isinstance(a, pa.ChunkedArray) else [a])]
    if not chunks:
        return pa.array([], pa.string())
    unique = pc.unique(pa.chunked_array(chunks, pa.string()))
    return unique.combine_chunks() if isinstance(unique, pa.ChunkedArray) else unique


def superseding(ids_by_generation: Sequence[pa.Array | None]) -> list[pa.Array | None]:
    """Per generation (oldest first), the ids held by any newer generation (None: none newer).

    The oldest generation's ids are never needed (nothing older to supersede), so
    its entry in ``ids_by_generation`` may be None.

    Examples
    --------
    >>> import pyarrow as pa
    >>> out = superseding([None, pa.array(["b"]), pa.array(["c"])])
    >>> [None if a is None else a.to_pylist() for a in out]
    [['c', 'b'], ['c'], None]
    """
    out: list[pa.Array | None] = [None] * len(ids_by_generation)
    newer: pa.Array | None = None
    for k in range(len(ids_by_generation) - 1, -1, -1):
        out[k] = newer
        ids = ids_by_generation[k]
        if k > 0 and ids is not None:
            newer = ids if newer is None else unique_ids([newer, ids])
    return out


def drop_ids(table: pa.Table, ids: pa.Array | None) -> pa.Table:
    """``table`` without the rows whose ``id`` is in ``ids``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> drop_ids(pa.table({"id": ["a", "b"]}), pa.array(["a"])).column("id").to_pylist()
    ['b']
    """
    if ids is None or not len(ids) or not table.num_rows:
        return table
    return table.filter(pc.invert(pc.is_in(table.column("id"), value_set=ids)))


def newest_wins(groups: Sequence[Sequence[pa.Table]]) -> list[pa.Table]:
    """One row per id: tables grouped by generation (oldest first), superseded rows dropped.

    Parameters
    ----------
    groups : sequence of sequences of pyarrow.Table
        The tables of each generation; within a generation the ids are distinct.

    Returns
    -------
    list of pyarrow.Table
        The same tables in the same order, each without the rows a newer
        generation replaces.
    """
    ids = [None] + [unique_ids([t.column("id") for t in g]) for g in groups[1:]]
    newer = superseding(ids)
    return [drop_ids(t, newer[k]) for k, group in enumerate(groups) for t in group]


def last_per_id(table: pa.Table) -> pa.Table:
    """The rows holding each id's last occurrence, in their order.

    Examples
    --------
    >>> import pyarrow as pa
    >>> last_per_id(pa.table({"id": ["a", "b", "a"], "v": [1, 2, 3]})).to_pydict()
    {'id': ['b', 'a'], 'v': [2, 3]}
    """
    if not table.num_rows:
        return table
    index = pa.table({"id": table.column("id"), "i": np.arange(table.num_rows)})
    last = index.group_by("id", use_threads=False).aggregate([("i", "max")]).column("i_max")
    return table.take(np.sort(last.to_numpy()))
