"""Lists of objects held as JSON text (participant columns) read as Arrow arrays.

:func:`object_lists` is how :func:`dealframe.explode_participants` reads ``lead_investors``,
``buyers`` and ``investors``. One engine reads them: Arrow's JSON reader, over the column's own
bytes, so no Python object is made per participant. The same participant appears in many
deals, so cells of the form ``[{...},{...}]`` (the frames' canonical text) are cut at
``},{`` in place (numpy over the column's bytes, no copy) and each distinct object text is
parsed once. The cut is sound without looking inside the strings: the cell is ``[`` + the
pieces joined by commas + ``]``, every piece opens with ``{`` and closes with ``}``, so when
the pieces parse as one object each (one row per distinct piece), those objects are the
cell's list (a cut inside a string leaves a piece that is no object). Otherwise each cell is
wrapped as one line ``{"v": <cell>}`` and read whole.
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

import sys
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
#: Bytes 7, 6, ... 0 (most significant first): ``(1 << 8k) * _BYTE_OF >> 56`` is ``k``.
_BYTE_OF = np.uint64(0x0001020304050607)
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


def _arrow_memory(size: int) -> tuple[pa.Buffer, np.ndarray]:
    """A buffer of ``size`` bytes from Arrow's memory pool, and a numpy view to write it.

    For the large arrays built with numpy and kept as Arrow arrays: the pool keeps its
    pages from one call to the next, where ``malloc`` gives large blocks back to the system
    when they are freed, and every page written again costs a page fault (measured: the
    explode's best time 45 -> 37 ms, its median 93 -> 84, on a loaded machine).
    """
    buffer = pa.allocate_buffer(max(size, 1))
    return buffer, np.frombuffer(buffer, np.uint8)[:size]


def _braces(text: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Positions of the ``{`` of ``text[lo:hi]``, found by blocks (each block's tests stay
    cached) and read eight tests at a time (a brace is one byte in a hundred or so).

    Examples
    --------
    >>> _braces(np.frombuffer(b'[{"a":"{{"},{}]', np.uint8), 0, 15).tolist()
    [1, 7, 8, 12]
    """
    found, tests = [], np.empty(min(_BLOCK, max(hi - lo, 0)), bool)
    for i in range(lo, hi, _BLOCK):
        j = min(i + _BLOCK, hi)
        hits = np.equal(text[i:j], ord("{"), out=tests[: j - i])
        whole = (j - i) // 8 * 8
        words = hits[:whole].view(np.uint64)
        at = np.flatnonzero(words != 0)
        bits = words[at]
        # a word of one brace is 1 << 8k (tests are bytes 0 or 1): times _BYTE_OF its top
        # byte is k
        byte = (bits * _BYTE_OF >> np.uint64(56)).astype(np.int64)
        found_at = at * 8 + (7 - byte if sys.byteorder == "big" else byte)
        one = (bits & (bits - np.uint64(1))) == 0
        if not one.all():  # words of two braces or more ("{{" in a string): read byte by byte
            row, byte = np.nonzero(hits[:whole].reshape(-1, 8)[at[~one]])
            found_at = np.sort(np.concatenate([found_at[one], at[~one][row] * 8 + byte]))
        found.append(found_at + i)
        if whole < j - i:
            found.append(np.flatnonzero(hits[whole:]) + (i + whole))
    return np.concatenate(found) if found else np.empty(0, np.int64)


def _cut(cells: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """Cells ``[{...},{...}]`` (or ``[]``) cut at ``},{``, without a copy.

    Returns the row of each object, and a ``large_string`` array over the cells' own bytes
    that alternates the pieces (each object's text, as a rule) and nulls over the texts
    after them (``,``, or ``]`` and the text of ``[]`` and null cells up to the next cell's
    ``[``; the last one empty). Every piece opens with ``{`` and closes with ``}``, so a
    piece can never run into the next one's line; the caller checks that the distinct pieces
    parse as one object each (a cut inside a string leaves a piece that is none). ``None``
    when a cell has another form (the caller then reads every cell whole): a null cell
    holding text, a cell of two bytes other than ``[]``, a longer one that does not open with
    ``[{`` or close with ``}]``, or a ``[{`` inside a cell.
    """
    offsets = _offsets(cells)
    start, end = offsets[:-1], offsets[1:]
    length = end - start
    text = _bytes(cells)
    if cells.null_count and np.any(length[~cells.is_valid().to_numpy(zero_copy_only=False)]):
        return None  # a null cell holding text (Arrow lets it hold any)
    full = np.flatnonzero(length > 2)  # cells with objects: "[{...}]", checked below
    empty = start[length == 2]
    if len(full) + len(empty) + cells.null_count != len(cells):
        return None  # a cell of 0 or 1 byte
    if len(empty) and not (np.all(text[empty] == ord("[")) and np.all(text[empty + 1] == ord("]"))):
        return None
    if not len(full):
        return full, pa.array([], _TEXT)
    brace = _braces(text, int(offsets[0]), int(offsets[-1]))
    before = text[brace - 1]
    first = before == ord("[")
    opened = brace[first] - 1  # each cell with objects opens with "[{", and no other "[{"
    if len(opened) != len(full) or not np.array_equal(opened, start[full]):
        return None
    closing = end[full] - 1
    if not (np.all(text[closing] == ord("]")) and np.all(text[closing - 1] == ord("}"))):
        return None
    comma = np.flatnonzero(before == ord(","))
    cut = first.copy()  # and each "{" after "},"
    cut[comma[text[brace[comma] - 2] == ord("}")]] = True
    starts, first = brace[cut], first[cut]
    memory, raw = _arrow_memory(8 * (2 * len(starts) + 1))
    bounds = raw.view(np.int64)  # a piece's text, then a null one
    bounds[0:-1:2] = starts
    bounds[1:-2:2] = starts[1:] - 1  # a piece ends before the "," of the next one's
    bounds[1::2][np.append(first[1:], True)] = closing  # or before its cell's "]"
    bounds[-1] = bounds[-2]
    valid = pa.py_buffer(np.full(len(starts) // 4 + 1, 0b01010101, np.uint8))  # even places
    text_of = pa.Array.from_buffers(
        _TEXT, 2 * len(starts), [valid, memory, cells.buffers()[2]], len(starts)
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
    return np.concatenate(rows), {  # indices of Arrow's own dictionary: not checked again
        f: pa.DictionaryArray.from_arrays(indices, table.column(f).combine_chunks(), safe=False)
        for f in fields
    }


def _taken_text(text: pa.Array | pa.ChunkedArray, positions: np.ndarray) -> pa.Array:
    """``text`` (Arrow strings) taken at ``positions`` (``int64``), as ``large_string``.

    Text without nulls whose values all have one length (UUIDs, country codes) is taken as
    the rows of a two-dimensional view of its bytes, which numpy copies faster than Arrow's
    take copies strings one by one.

    Examples
    --------
    >>> _taken_text(pa.array(["ab", "cd", "ef"]), np.array([2, 0, 2])).to_pylist()
    ['ef', 'ab', 'ef']
    >>> _taken_text(pa.array(["a", None, "bcd"]), np.array([2, 1])).to_pylist()
    ['bcd', None]
    """
    if isinstance(text, pa.ChunkedArray):
        text = text.chunk(0) if text.num_chunks == 1 else text.combine_chunks()
    if text.type != _TEXT:
        text = text.cast(_TEXT)
    if len(text) and not text.null_count:
        offsets = _offsets(text)
        width = int(offsets[1] - offsets[0])
        if width and int(offsets[-1] - offsets[0]) == width * len(text):
            if np.all(np.diff(offsets) == width):
                table = _bytes(text)[int(offsets[0]) : int(offsets[-1])].reshape(-1, width)
                data, rows = _arrow_memory(len(positions) * width)
                # "clip" writes in place (no position is out of bounds; "raise" would write
                # through a temporary copy)
                np.take(table, positions, axis=0, out=rows.reshape(-1, width), mode="clip")
                memory, raw = _arrow_memory(8 * (len(positions) + 1))
                bounds = raw.view(np.int64)  # 0, width, 2 * width, ... without a temporary
                bounds[0], bounds[1:] = 0, width
                np.cumsum(bounds, out=bounds)
                return pa.Array.from_buffers(_TEXT, len(positions), [None, memory, data])
    return pc.take(text, pa.array(positions), boundscheck=False)  # positions within text


def _strings_in_order(values: Mapping[str, pa.Array], order: np.ndarray) -> dict[str, pa.Array]:
    """``values`` (from :func:`object_lists`) taken in ``order``, as ``large_string`` arrays.

    Examples
    --------
    >>> rows, values = object_lists(pd.Series(['[{"id":"a"},{"id":"b"}]']), ("id",))
    >>> _strings_in_order(values, np.array([1, 0]))["id"].to_pylist()
    ['b', 'a']
    """
    taken, codes, picked = {}, None, np.empty(0, np.int64)
    for name, v in values.items():
        if isinstance(v, pa.DictionaryArray):  # the distinct values, each taken where it is
            if codes is None or not v.indices.equals(codes):  # one set of codes, as a rule
                codes = v.indices
                picked = codes.to_numpy()[order]
            taken[name] = _taken_text(v.dictionary, picked)
        else:
            taken[name] = _taken_text(v, order)
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
