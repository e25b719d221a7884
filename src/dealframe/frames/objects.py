"""Lists of objects held as JSON text (participant columns) read as Arrow arrays.

:func:`object_lists` is how :func:`dealframe.explode_participants` reads ``lead_investors``,
``buyers`` and ``investors``. One engine reads them: Arrow's JSON reader, over the column's own
bytes, so no Python object is made per participant. The same participant appears in many
deals, so cells of the form ``[{...},{...}]`` (the frames' canonical text) are cut at
``},{`` in place (numpy over the column's bytes, no copy) and each distinct object text is
parsed once. The cut is sound without looking inside the strings: the cell is ``[`` + the
pieces joined by commas + ``]``, so when every piece parses as one object, those objects are
the cell's list. Otherwise each cell is wrapped as one line ``{"v": <cell>}`` and read whole.
Columns that do not hold text (Python lists of dicts in an ``object`` column, an Arrow list
column) are first written as the frames' JSON text (:func:`dealframe.frames.nested.encode`).
A cell that is not JSON text of a list of objects is a
:class:`~dealframe.errors.ValidationError` naming it.

Examples
--------
>>> rows, values = object_lists(pd.Series(['[{"id":"a","name":null}]', None]), ("id", "name"))
>>> rows.tolist(), values["id"].to_pylist(), values["name"].to_pylist()
([0], ['a'], [None])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError
from dealframe.frames.nested import _loads, encode

__all__ = ["object_lists"]

_TEXT = pa.large_string()
_BLOCK = 1 << 20
_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)


def _text(column: pd.Series, fields: tuple[str, ...], name: str) -> pa.ChunkedArray:
    """The column as ``large_string`` Arrow chunks of JSON text (null cells null)."""
    if not isinstance(column.dtype, pd.StringDtype):
        cells = [
            _loads(v, name, i) for i, v in enumerate(column.to_numpy(dtype=object, na_value=None))
        ]
        column = pd.Series(encode(cells, name, array=True, fields=fields))
    arrow = column.array.__arrow_array__()
    if not isinstance(arrow, pa.ChunkedArray):
        arrow = pa.chunked_array([arrow])
    return arrow if arrow.type == _TEXT else arrow.cast(_TEXT)


def _first_bad(
    arrow: pa.Array, rows: np.ndarray, fields: tuple[str, ...], name: str
) -> ValidationError:
    """The error naming the first cell that is not JSON text of a list of objects
    (``rows``: the column position of each cell of ``arrow``)."""
    for row, cell in zip(rows.tolist(), arrow.to_pylist()):
        items = _loads(cell, name, row)
        if items is not None and (
            not isinstance(items, list) or not all(isinstance(o, dict) for o in items)
        ):
            return ValidationError(f"{name}[{row}]", "a list of objects (JSON array)", got=cell)
    return ValidationError(name, f"JSON text of lists of objects with {', '.join(fields)}")


def _read_json(lines: pa.Array, schema: pa.Schema) -> pa.Table:
    """Arrow's JSON reader over ``lines`` (a ``large_string`` array, one line each)."""
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[
        lines.offset : lines.offset + len(lines) + 1
    ]
    body = lines.buffers()[2][int(offsets[0]) : int(offsets[-1])]
    # Blocks of about 1 MiB are parsed in parallel; a block must hold the longest line.
    longest = int(np.diff(offsets).max(initial=0))
    return pa_json.read_json(
        pa.BufferReader(body),
        read_options=pa_json.ReadOptions(block_size=max(_BLOCK, 2 * longest)),
        parse_options=pa_json.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore"
        ),
    )


def _lines(prefix: str, values: pa.Array, suffix: str) -> pa.Array:
    return pc.binary_join_element_wise(
        pa.scalar(prefix, _TEXT), values, pa.scalar(suffix, _TEXT), pa.scalar("", _TEXT)
    )


def _read_cells(arrow: pa.Array, fields: tuple[str, ...], name: str) -> tuple[np.ndarray, pa.Table]:
    """Every cell read whole by Arrow's JSON reader, as one line ``{"v": <cell>}``.

    Returns the row of each object and the objects' fields; a cell that is not a list of
    objects raises the error naming it.
    """
    present = pc.is_valid(arrow)
    rows = np.flatnonzero(present.to_numpy(zero_copy_only=False))
    if not len(rows):  # every cell null: no object (and no text for the reader)
        return rows.astype(np.int64), pa.table({f: pa.array([], _TEXT) for f in fields})
    arrow = arrow.filter(present) if len(rows) < len(arrow) else arrow
    schema = pa.schema([("v", pa.list_(pa.struct([(f, _TEXT) for f in fields])))])
    try:
        table = _read_json(_lines('{"v":', arrow, "}\n"), schema)
    except _ARROW_ERRORS:
        # Raw line breaks in JSON text are whitespace between tokens (inside strings they
        # are escaped): blanked, every cell is one line again.
        arrow = pc.replace_substring_regex(arrow, "[\r\n]", " ")
        try:
            table = _read_json(_lines('{"v":', arrow, "}\n"), schema)
        except _ARROW_ERRORS:
            raise _first_bad(arrow, rows, fields, name) from None
    lists = table.column("v").combine_chunks()
    if table.num_rows != len(arrow) or lists.null_count:
        raise _first_bad(arrow, rows, fields, name)
    parents = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    flat = pc.list_flatten(lists)
    return rows[parents], pa.table({f: pc.struct_field(flat, f) for f in fields})


def _offsets(cells: pa.Array) -> np.ndarray:
    """The value offsets of a ``large_string`` array (``len + 1`` of them)."""
    raw = np.frombuffer(cells.buffers()[1], dtype=np.int64)
    return raw[cells.offset : cells.offset + len(cells) + 1]


def _bytes(cells: pa.Array) -> np.ndarray:
    """The data buffer of a ``large_string`` array, as bytes."""
    data = cells.buffers()[2]
    return np.frombuffer(data, dtype=np.uint8) if data else np.zeros(1, np.uint8)  # no bytes


def _framed(cells: pa.Array) -> bool:
    """Whether every cell is ``[]``, ``[{...}]`` or null (holding no bytes)."""
    offsets = _offsets(cells)
    start, end = offsets[:-1], offsets[1:]
    length = end - start
    text = _bytes(cells)

    def at(index: np.ndarray) -> np.ndarray:
        return np.take(text, index, mode="clip")  # a short cell is refused by its length

    head, second, before, tail = at(start), at(start + 1), at(end - 2), at(end - 1)
    empty = (length == 2) & (head == ord("[")) & (second == ord("]"))
    framed = (
        (length >= 4)
        & (head == ord("["))
        & (second == ord("{"))
        & (before == ord("}"))
        & (tail == ord("]"))
    )
    ok = empty | framed
    if cells.null_count:  # a null cell holds no text (Arrow lets it hold any)
        ok = np.where(cells.is_valid().to_numpy(zero_copy_only=False), ok, length == 0)
    return bool(ok.all())


def _cut(cells: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """Cells ``[{...},{...}]`` (or ``[]``) cut at ``},{`` into their objects, without a copy.

    Returns the row of each object, and a ``large_string`` array over the cells' own bytes
    that alternates the objects' texts and nulls over the texts after them (``,``, or ``]``
    and the text of ``[]`` and null cells up to the next cell's ``[``; the last one empty).
    ``None`` when a cell has another form (the caller then reads every cell whole).
    """
    if not _framed(cells):
        return None
    offsets = _offsets(cells)
    full = np.flatnonzero(np.diff(offsets) > 2)  # cells with objects: "[{...}]" (framing)
    if not len(full):
        return full, pa.array([], _TEXT)
    text = _bytes(cells)
    lo, hi = int(offsets[0]), int(offsets[-1])  # by blocks: each block's test stays cached
    brace = np.concatenate(
        [
            np.flatnonzero(text[i : min(i + _BLOCK, hi)] == ord("{")) + i
            for i in range(lo, hi, _BLOCK)
        ]
    )
    before = np.take(text, brace - 1)
    first = before == ord("[")  # every cell's "[{" (framing), and no other: counted
    if np.count_nonzero(first) != len(full):
        return None  # a "[{" inside a string
    cut = first | ((before == ord(",")) & (np.take(text, brace - 2) == ord("}")))
    starts, first = brace[cut], first[cut]
    ends = np.append(starts[1:] - 1, 0)  # an object ends before the "," of the next one's
    ends[np.append(first[1:], True)] = offsets[full + 1] - 1  # or before its cell's "]"
    bounds = pa.py_buffer(np.append(np.stack([starts, ends], axis=1), ends[-1]))
    valid = pa.py_buffer(np.full(len(starts) // 4 + 1, 0b01010101, np.uint8))  # even places
    text_of = pa.Array.from_buffers(
        _TEXT, 2 * len(starts), [valid, bounds, cells.buffers()[2]], len(starts)
    )
    return full[np.cumsum(first) - 1], text_of


def _distinct_objects(
    arrow: pa.ChunkedArray, fields: tuple[str, ...]
) -> tuple[np.ndarray, dict[str, pa.Array]] | None:
    """Cells cut into object texts, each distinct text parsed once.

    Returns the row of each object and its fields as dictionary arrays; ``None`` when a
    cell is not ``[{...},...]`` or a piece is not one object, so every cell is read whole.
    """
    cuts, rows, start = [], [], 0
    for chunk in arrow.chunks:
        cut = _cut(chunk)
        if cut is None:
            return None
        rows.append(cut[0] + start)
        cuts.append(cut[1])
        start += len(chunk)
    if not any(len(cut) for cut in cuts):  # "[]" and null cells only
        return np.concatenate(rows), {f: pa.array([], _TEXT) for f in fields}
    # One dictionary for every chunk, of the objects' texts (the nulls between are not hashed).
    encoded = pa.chunked_array(cuts, _TEXT).dictionary_encode()
    distinct = encoded.chunks[-1].dictionary
    if not all(c.dictionary.equals(distinct) for c in encoded.chunks):
        return None  # (Arrow gives every chunk the whole dictionary)
    coded = [
        np.frombuffer(c.indices.buffers()[1], np.int32)[c.offset :][: len(c)]
        for c in encoded.chunks
    ]
    # A raw line break in an object's text makes two lines, neither the whole object: the
    # reader fails or counts a row too many.
    try:
        table = _read_json(_lines("", distinct, "\n"), pa.schema([(f, _TEXT) for f in fields]))
    except _ARROW_ERRORS:
        return None
    if table.num_rows != len(distinct):
        return None
    indices = pa.array(np.concatenate(coded)[::2])  # an object, a null, an object, ...
    return np.concatenate(rows), {
        f: pa.DictionaryArray.from_arrays(indices, table.column(f).combine_chunks()) for f in fields
    }


def _strings_in_order(values: Mapping[str, pa.Array], order: np.ndarray) -> dict[str, pa.Array]:
    """``values`` (from :func:`object_lists`) taken in ``order``, as ``large_string`` arrays.

    Examples
    --------
    >>> rows, values = object_lists(pd.Series(['[{"id":"a"},{"id":"b"}]']), ("id",))
    >>> _strings_in_order(values, np.array([1, 0]))["id"].to_pylist()
    ['b', 'a']
    """
    taken = {}
    for name, v in values.items():
        if isinstance(v, pa.DictionaryArray):  # the distinct values, each taken where it is
            taken[name] = v.dictionary.take(pa.array(v.indices.to_numpy()[order]))
        else:
            taken[name] = v.take(pa.array(order))
    return taken


def _listed(value: Any) -> list[Any] | None:
    """``value`` as a list when it is a collection of items (any iterable, read once: not a
    string, a mapping or a frame), else None."""
    if isinstance(value, str | bytes | Mapping | pd.DataFrame) or not isinstance(value, Iterable):
        return None
    return list(value)


@checked_keywords
def object_lists(
    column: pd.Series | Sequence[pd.Series],
    fields: tuple[str, ...],
    name: str | Sequence[str] = "column",
) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """The objects of a column of lists of objects, flattened: row of each, and its fields.

    Parameters
    ----------
    column : pandas.Series, or a list of them
        For example ``deals["lead_investors"]``: JSON text, as the frames hold it (an
        ``object`` column of Python lists of dicts is read too). Several columns are read
        as one, one after another: an object that appears in several is parsed once.
    fields : tuple of str
        Fields to read from each object (missing ones null; others ignored).
    name : str, or one per column
        The column's name, for errors.

    Returns
    -------
    tuple
        ``(rows, values)``: the position (0-based) of the row each object came from,
        counting through the columns one after another, in row then list order, and
        ``{field: Arrow string array}`` (dictionary-encoded when the cells were read piece
        by piece).

    Raises
    ------
    dealframe.errors.ValidationError
        A cell that is not a list of objects (or JSON text of one), naming its column and row;
        an argument of another type (``column`` not Series, ``fields`` not strings, ``name``
        not one string or one per column), naming the argument.

    Examples
    --------
    >>> rows, values = object_lists(pd.Series(['[{"id":"a"},{"id":"b"}]', None, '[]']),
    ...                             ("id",))
    >>> rows.tolist(), values["id"].to_pylist()
    ([0, 0], ['a', 'b'])
    >>> rows, values = object_lists([pd.Series(['[{"id":"a"}]']), pd.Series(['[{"id":"a"}]'])],
    ...                             ("id",), ["lead_investors", "buyers"])
    >>> rows.tolist(), values["id"].to_pylist()
    ([0, 1], ['a', 'a'])
    """
    columns = [column] if isinstance(column, pd.Series) else _listed(column)
    if columns is None or not all(isinstance(c, pd.Series) for c in columns):
        raise ValidationError(
            "column", "a pandas Series, or a list of them", got=type(column).__name__
        )
    listed = _listed(fields)
    if listed is None or not all(isinstance(f, str) for f in listed):
        raise ValidationError("fields", "a tuple of field names (strings)", got=fields)
    fields = tuple(listed)
    names = [name] * len(columns) if isinstance(name, str) else _listed(name)
    if names is None or len(names) != len(columns):
        raise ValidationError(
            "name", f"a string, or {len(columns)} of them (one per column)", got=name
        )
    if not all(isinstance(n, str) for n in names):
        raise ValidationError("name", "a string, or one per column", got=name)
    texts = [_text(c, fields, n) for c, n in zip(columns, names, strict=True)]
    arrow = pa.chunked_array([chunk for text in texts for chunk in text.chunks], _TEXT)
    if not len(arrow) or arrow.null_count == len(arrow):
        return np.empty(0, np.int64), {f: pa.array([], _TEXT) for f in fields}
    cut = _distinct_objects(arrow, fields)
    if cut is not None:
        return cut
    parts, tables, start = [], [], 0
    for text, label in zip(texts, names):  # cell by cell; an error names its column and row
        rows, table = _read_cells(text.combine_chunks(), fields, label)
        parts.append(rows + start)
        tables.append(table)
        start += len(text)
    table = pa.concat_tables(tables)
    return np.concatenate(parts), {f: table.column(f).combine_chunks() for f in fields}
