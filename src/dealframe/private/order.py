"""The order of a sorted lookup by id that went out in several batches.

The service sorts each request's rows; a lookup of more ids than one request takes is sent in
batches, so each batch comes back sorted on its own. :func:`merged_order` merges the batches
into one order: rows are ranked by the sort key the way the interface's sort reads (nulls
last in either direction, ties by ``id`` ascending, text by code point), and the batches are
merged by that rank, each batch kept in the order the service gave it. When the service
sorts as this rank does, the result is the order one request over every id would give;
when it collates text another way, each batch's order is still the service's.

Examples
--------
>>> frame = pd.DataFrame({"id": ["a", "b", "c", "d"], "deal_valuation": [5.0, 1.0, 9.0, None]})
>>> merged_order(frame, [2, 2], "deal_valuation:desc").tolist()  # batches [a, b] and [c, d]
[2, 0, 1, 3]
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["merged_order"]


def _ranks(frame: pd.DataFrame, key: str, ascending: bool) -> np.ndarray:
    """The position of each row in the whole frame sorted by ``key`` (nulls last), then id."""
    column = frame[key]
    if isinstance(column.dtype, pd.CategoricalDtype):  # by value, not by category order
        column = column.astype(column.cat.categories.dtype)
    keys = pd.DataFrame({"k": column.array, "id": frame["id"].array})
    order = keys.sort_values(
        ["k", "id"], ascending=[ascending, True], na_position="last", kind="stable"
    ).index.to_numpy()
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def merged_order(frame: pd.DataFrame, counts: Sequence[int], sort: str) -> np.ndarray | None:
    """Row positions that put batches of rows, each sorted by the service, into one order.

    Parameters
    ----------
    frame : pandas.DataFrame
        The batches' rows one batch after another (a list frame with an ``id`` column).
    counts : sequence of int
        Rows of each batch, in order.
    sort : str
        The sort sent, ``<key>:asc`` or ``<key>:desc``.

    Returns
    -------
    numpy.ndarray or None
        Positions into ``frame``; None when the frame has no column for the key (its rows
        then stay batch after batch) or ``counts`` do not add up to the frame's rows.

    Examples
    --------
    >>> frame = pd.DataFrame({"id": ["x", "y", "z"], "name": ["b", "a", "c"]})
    >>> merged_order(frame, [1, 2], "name:asc").tolist()
    [1, 0, 2]
    """
    key, _, direction = sort.partition(":")
    if key not in frame.columns or "id" not in frame.columns or sum(counts) != len(frame):
        return None
    ranks = _ranks(frame.reset_index(drop=True), key, direction != "desc").tolist()
    bounds = np.cumsum([0, *counts]).tolist()
    batches = [zip(ranks[start:end], range(start, end)) for start, end in zip(bounds, bounds[1:])]
    return np.fromiter((at for _, at in heapq.merge(*batches)), dtype=np.int64, count=len(frame))
