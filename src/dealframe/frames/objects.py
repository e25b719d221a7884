"""Lists of objects held as JSON text (participant columns) read as Arrow arrays, fast.

:func:`object_lists` is how :func:`dealframe.explode_participants` reads
``lead_investors``, ``buyers`` and ``investors``. Three readers, the first that applies:

1. the frames' own canonical spelling (:func:`dealframe.frames.nested.encode`), decoded with a
   few vectorised passes over the bytes and one Arrow ``take`` per column: no JSON parser and
   no Python object per participant (:func:`_canonical`, which checks every byte it relies on
   and declines anything else);
2. any other JSON (spaces, escapes, other key orders or keys): Arrow's JSON reader;
3. what neither reads (numbers for strings, Python lists, old Arrow list columns): orjson and
   Python, with a :class:`~dealframe.errors.ValidationError` naming the cell for what is not a
   list of objects.

Examples
--------
>>> rows, values = object_lists(pd.Series(['[{"id":"a","name":null}]', None]), ("id", "name"))
>>> rows.tolist(), values["id"].to_pylist(), values["name"].to_pylist()
([0], ['a'], [None])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from dealframe.errors import ValidationError
from dealframe.frames.nested import _loads, _object

__all__ = ["object_lists"]



def _large(column: Any) -> pa.Array:
    """A ``str`` column (or Arrow strings) as one ``large_string`` array."""
    if isinstance(column, pd.Series):
        arrow = column.array.__arrow_array__()
    else:
        arrow = column
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks() if arrow.num_chunks != 1 else arrow.chunk(0)
    if arrow.type != pa.large_string():
        arrow = arrow.cast(pa.large_string())
    return arrow


def _words_at(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes starting at each position of ``at`` (zeros past the end), as little-endian
    integers: one gather through an unaligned 8-byte view with a stride of one byte."""
    edge = len(data) - 7
    near = at >= edge
    if near.any():  # the last bytes of the buffer: read from a padded copy of its tail
        start = max(edge, 0)
        tail = np.concatenate([data[start:], np.zeros(8, np.uint8)])
        out = np.empty(len(at), dtype="<u8")
        out[~near] = _words_at(data, at[~near])
        out[near] = _words_at(tail, at[near] - start)
        return out
    words = np.ndarray(shape=(edge,), dtype="<u8", buffer=data, strides=(1,))
    return words[at]


def _keys_are(data: np.ndarray, grid_start: np.ndarray, keys: list[str]) -> bool:
    """Whether every object's keys (opening quotes at ``grid_start``) are ``keys``: each key's
    text ``"key":`` compared byte for byte, eight bytes at a time."""
    for slot, key in enumerate(keys):
        token = f'"{key}":'.encode()
        at = grid_start[:, slot]
        for start in range(0, len(token), 8):
            piece = token[start:start + 8]
            mask = np.uint64((1 << (8 * len(piece))) - 1)
            want = np.uint64(int.from_bytes(piece, "little"))
            if ((_words_at(data, at + start) & mask) != want).any():
                return False
    return True


def _canonical(arrow: pa.Array, fields: tuple[str, ...]
               ) -> tuple[np.ndarray, dict[str, pa.Array]] | None:
    """Decode lists of objects written by :func:`encode` (the frames' own text), or None.

    The text of a participant list is ``[`` + objects joined by ``,`` + ``]``, each
    object ``{"k1":V,"k2":V,...}`` with exactly ``fields`` in sorted order, each
    ``V`` a JSON string or ``null``. Without a backslash anywhere, every ``"`` is a
    string delimiter and a key's closing quote is the one followed by ``:`` (and not
    preceded by one), so the positions of the keys,
    values and separators are found with a few vectorised passes over the bytes, and
    every byte of every cell is checked to be where that spelling puts it. Any other
    text (spaces, other keys, escapes, numbers) returns None: the general reader
    takes it.
    """
    keys = sorted(fields)
    k = len(keys)
    n = len(arrow)
    buffers = arrow.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[arrow.offset:arrow.offset + n + 1]
    lengths = np.diff(offsets)
    if n == 0 or (lengths < 2).any() or buffers[2] is None:
        return None
    data = np.frombuffer(buffers[2], dtype=np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    if (data[starts] != 0x5B).any() or (data[ends - 1] != 0x5D).any():  # [ ... ]
        return None
    low, high = int(offsets[0]), int(offsets[-1])
    region = data[low:high]
    quote = region == 0x22
    if (region == 0x5C).any():  # a backslash: escapes, leave them to the general reader
        return None
    # A key ends at a quote followed by `:`; a value's opening quote is one too when the value
    # starts with `:`, but that quote follows a `:` and a key's closing quote never does.
    # Every quote is then checked to be a key's or a string value's (count at the end).
    if (lengths == 2).all():  # every cell `[]`
        return np.empty(0, np.int64), {f: pa.array([], pa.large_string()) for f in fields}
    key_end = np.flatnonzero(quote[1:-1] & (region[2:] == 0x3A) & (region[:-2] != 0x3A)) \
        + (low + 1)
    if len(key_end) % k:
        return None
    m = len(key_end) // k  # objects
    if m == 0:
        return None
    key_len = np.array([len(key.encode()) for key in keys], dtype=np.int64)
    key_start = key_end - np.tile(key_len, m) - 1
    grid_start = key_start.reshape(m, k)
    if not _keys_are(data, grid_start, keys):
        return None
    before = data[grid_start - 1]
    if (before[:, 0] != 0x7B).any() or (before[:, 1:] != 0x2C).any():  # { first, , between
        return None
    value = key_end + 2
    first = data[value]
    is_str = first == 0x22
    # What follows each value: the `,` before the next key, or the object's `}`.
    follow = np.empty(m * k, dtype=np.int64)
    grid_follow = follow.reshape(m, k)
    grid_follow[:, :-1] = grid_start[:, 1:] - 1
    obj_open = grid_start[:, 0] - 1
    cell = np.searchsorted(offsets, obj_open, side="right") - 1
    last = np.ones(m, dtype=bool)
    last[:-1] = cell[1:] != cell[:-1]
    close = np.where(last, ends[cell] - 2, np.append(obj_open[1:], 0) - 2)
    grid_follow[:, -1] = close
    if (data[close] != 0x7D).any() or (data[close[~last] + 1] != 0x2C).any():
        return None
    first_of_cell = np.ones(m, dtype=bool)
    first_of_cell[1:] = last[:-1]
    if (obj_open[first_of_cell] != starts[cell[first_of_cell]] + 1).any():
        return None
    if ((np.bincount(cell, minlength=n) == 0) != (lengths == 2)).any():  # `[]` and only it
        return None
    null = ~is_str
    if (data[follow[is_str] - 1] != 0x22).any() or (follow[is_str] - 1 <= value[is_str]).any():
        return None
    if null.any():
        tail = data[value[null, None] + np.arange(4)]
        if (tail != np.frombuffer(b"null", dtype=np.uint8)).any() or \
                (follow[null] != value[null] + 4).any():
            return None
    if int(np.count_nonzero(quote)) != 2 * m * k + 2 * int(np.count_nonzero(is_str)):
        return None  # a quote inside a value: not this spelling
    # The values: spans [start, end) over the original buffer, gathered field-major by one
    # Arrow take (the odd spans, between values, are never copied).
    lo = np.where(is_str, value + 1, value)
    hi = np.where(is_str, follow - 1, value)
    bounds = np.empty(2 * m * k + 1, dtype=np.int64)
    bounds[0:-1:2], bounds[1::2] = lo, hi  # value i: [lo_i, hi_i); gap: [hi_i, lo_i+1)
    bounds[-1] = hi[-1]
    spans = pa.LargeStringArray.from_buffers(2 * m * k, pa.py_buffer(bounds), buffers[2])
    order = (2 * np.arange(m * k).reshape(m, k)).T.ravel()
    gathered = spans.take(pa.array(order))
    valid = is_str.reshape(m, k).T
    out: dict[str, pa.Array] = {}
    for slot, key in enumerate(keys):
        part = gathered.slice(slot * m, m)
        mask = valid[slot]
        out[key] = part if mask.all() else pc.if_else(pa.array(mask), part,
                                                      pa.scalar(None, pa.large_string()))
    return cell.astype(np.int64), {f: out[f] for f in fields}


def _by_arrow_reader(arrow: pa.Array, fields: tuple[str, ...]
                     ) -> tuple[np.ndarray, dict[str, pa.Array]] | None:
    """Lists of objects read by Arrow's JSON reader (any spelling of JSON), or None."""
    item = pa.struct([(f, pa.large_string()) for f in fields])
    text = pa.large_string()
    lines = pc.binary_join_element_wise(pa.scalar('{"v":', text), arrow, pa.scalar("}\n", text),
                                        pa.scalar("", text))
    raw = lines.buffers()
    offsets = np.frombuffer(raw[1], dtype=np.int64)[lines.offset:lines.offset + len(lines) + 1]
    body = raw[2][int(offsets[0]):int(offsets[-1])]
    try:
        table = pa_json.read_json(
            pa.BufferReader(body), read_options=pa_json.ReadOptions(block_size=1 << 24),
            parse_options=pa_json.ParseOptions(
                explicit_schema=pa.schema([("v", pa.list_(item))]),
                unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    lists = table.column("v").combine_chunks()
    if table.num_rows != len(arrow) or lists.null_count:
        return None
    flat = pc.list_flatten(lists)
    parents = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    return parents, {f: pc.struct_field(flat, f) for f in fields}


def _by_python(values: Sequence[Any], fields: tuple[str, ...], name: str
               ) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """The slow, general way: each cell parsed by orjson (or already a list of dicts)."""
    parents: list[int] = []
    columns: dict[str, list[Any]] = {f: [] for f in fields}
    for row, cell in enumerate(values):
        items = _loads(cell, name, row)
        if items is None:
            continue
        if not isinstance(items, list):
            raise ValidationError(f"{name}[{row}]", "a list of objects (JSON array)", got=cell)
        for j, obj in enumerate(items):
            normal = _object(obj, fields, f"{name}[{row}][{j}]")
            parents.append(row)
            for f in fields:
                columns[f].append(normal[f])
    return (np.asarray(parents, dtype=np.int64),
            {f: pa.array(columns[f], type=pa.large_string()) for f in fields})


def object_lists(column: pd.Series, fields: tuple[str, ...], name: str = "column"
                 ) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """The objects of a column of lists of objects, flattened: row of each, and its fields.

    Reads the JSON text the frames hold (the frames' own spelling is decoded by
    :func:`_canonical`, any other JSON by Arrow's JSON reader), and also ``object``
    columns of Python lists of dicts and Arrow ``list<struct>`` columns (frames
    written by older versions).

    Parameters
    ----------
    column : pandas.Series
        For example ``deals["lead_investors"]``.
    fields : tuple of str
        Fields to read from each object (missing ones null; others ignored).
    name : str
        The column's name, for errors.

    Returns
    -------
    tuple
        ``(rows, values)``: the position (0-based) of the row each object came from,
        in row then list order, and ``{field: large_string Arrow array}``.

    Raises
    ------
    dealframe.errors.ValidationError
        A cell that is not a list of objects, JSON text of one, or missing.

    Examples
    --------
    >>> rows, values = object_lists(pd.Series(['[{"id":"a"},{"id":"b"}]', None, '[]']),
    ...                             ("id",))
    >>> rows.tolist(), values["id"].to_pylist()
    ([0, 0], ['a', 'b'])
    """
    dtype = column.dtype
    if isinstance(dtype, pd.ArrowDtype) and (pa.types.is_list(dtype.pyarrow_dtype)
                                             or pa.types.is_large_list(dtype.pyarrow_dtype)):
        lists = pa.chunked_array(column.array.__arrow_array__())
        item = pa.struct([(f, pa.large_string()) for f in fields])
        try:  # Arrow list<struct> columns (frames of older versions): no parsing at all
            lists = lists.cast(pa.list_(item)).combine_chunks()
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            return _by_python(column.to_numpy(dtype=object, na_value=None), fields, name)
        flat = pc.list_flatten(lists)
        return (pc.list_parent_indices(lists).to_numpy().astype(np.int64),
                {f: pc.struct_field(flat, f) for f in fields})
    if not isinstance(dtype, pd.StringDtype) or column.empty:
        return _by_python(column.to_numpy(dtype=object, na_value=None), fields, name)
    arrow = _large(column)
    rows = None
    if arrow.null_count:
        valid = pc.is_valid(arrow)
        rows = np.flatnonzero(valid.to_numpy(zero_copy_only=False))
        arrow = arrow.filter(valid)
    found = (_canonical(arrow, fields) or _by_arrow_reader(arrow, fields)) if len(arrow) else \
        (np.empty(0, np.int64), {f: pa.array([], pa.large_string()) for f in fields})
    if found is None:
        return _by_python(column.to_numpy(dtype=object, na_value=None), fields, name)
    parents, values = found
    return (parents if rows is None else rows[parents]), values
