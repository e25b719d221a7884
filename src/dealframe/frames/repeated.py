"""Rows of a deals frame that repeat a deal another row holds: a ``concat`` of overlapping
pulls, the sub-collections of several ids stacked (a deal two investors took part in is in
both their ``investments``). :func:`~dealframe.frames.participants.explode_participants`
reads each deal once.

Examples
--------
>>> deals = pd.DataFrame({"id": ["a", "b", "a"], "updated_at": pd.to_datetime([2, 1, 1])})
>>> repeated_rows(deals).tolist()  # the first 'a' is the newer one: kept
[False, False, True]
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from dealframe.arguments import checked_keywords

__all__ = ["repeated_rows"]

#: Bytes of an id's end read as one number to look for repeats at once: a UUID's last 8
#: hex digits (32 random bits of a version 4 UUID); equal numbers are then compared whole.
_KEY_BYTES = 8


def _unique_at_once(values: object) -> bool:
    """Whether the text ids ``values`` are surely all distinct, from the last
    :data:`_KEY_BYTES` bytes of each when they all have one length (the client's ids, one
    spelling of UUIDs: a few ms for 50,000, where hashing them whole takes 15); False when
    that cannot tell (then the ids are compared whole)."""
    if not isinstance(values, pd.arrays.ArrowStringArray):
        return False
    array = values.__arrow_array__()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    n = len(array)
    if not n or array.null_count:
        return not n
    kind = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(array.buffers()[1], dtype=kind)[array.offset : array.offset + n + 1]
    width = int(offsets[1] - offsets[0])
    if width < _KEY_BYTES or int(offsets[-1] - offsets[0]) != width * n:
        return False
    data = np.frombuffer(array.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    keys = np.ascontiguousarray(data.reshape(n, width)[:, -_KEY_BYTES:]).view(np.uint64)
    return bool(pd.Series(keys.ravel(), copy=False).is_unique)


@checked_keywords
def repeated_rows(deals: pd.DataFrame) -> np.ndarray | None:
    """Which rows of ``deals`` repeat the ``id`` of another row and are not the one kept of
    it: the newest by ``updated_at`` when the frame has it (the last among equals), else
    the last (a later pull concatenated after an earlier one); None when no id repeats.

    Examples
    --------
    >>> repeated_rows(pd.DataFrame({"id": ["a", "b"]})) is None
    True
    >>> repeated_rows(pd.DataFrame({"id": ["a", "b", "a"]})).tolist()
    [True, False, False]
    """
    ids = deals["id"]
    if _unique_at_once(ids.array):
        return None
    twice = ids.duplicated(keep=False).to_numpy(dtype=bool)
    if not twice.any():
        return None
    at = np.flatnonzero(twice)
    rows = pd.DataFrame({"id": ids.to_numpy(dtype=object)[at]}, index=at)
    if "updated_at" in deals:
        rows["at"] = pd.to_datetime(deals["updated_at"].to_numpy()[at], errors="coerce", utc=True)
        rows = rows.sort_values("at", kind="stable", na_position="first")
    kept = rows.drop_duplicates("id", keep="last").index.to_numpy()
    repeated = twice.copy()
    repeated[kept] = False
    return repeated
