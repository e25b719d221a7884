"""Lists of objects held as JSON text (participant columns) read as Arrow arrays.

:func:`object_lists` is how :func:`dealframe.explode_participants` reads ``lead_investors``,
``buyers`` and ``investors``. One engine reads them: Arrow's JSON reader, over the column's own
bytes (each cell wrapped as one line ``{"v": <cell>}`` by an Arrow kernel), so no Python object
is made per participant. Columns that do not hold text (Python lists of dicts in an ``object``
column, an Arrow list column) are first written as the frames' JSON text
(:func:`dealframe.frames.nested.encode`). A cell that is not JSON text of a list of objects is a
:class:`~dealframe.errors.ValidationError` naming it.

Examples
--------
>>> rows, values = object_lists(pd.Series(['[{"id":"a","name":null}]', None]), ("id", "name"))
>>> rows.tolist(), values["id"].to_pylist(), values["name"].to_pylist()
([0], ['a'], [None])
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from dealframe.errors import ValidationError
from dealframe.frames.nested import _loads, encode

__all__ = ["object_lists"]

_TEXT = pa.large_string()
_BLOCK = 1 << 20
_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)


def _text(column: pd.Series, fields: tuple[str, ...], name: str) -> pa.Array:
    """The column as one ``large_string`` array of JSON text (null cells null)."""
    if not isinstance(column.dtype, pd.StringDtype):
        cells = [
            _loads(v, name, i) for i, v in enumerate(column.to_numpy(dtype=object, na_value=None))
        ]
        column = pd.Series(encode(cells, name, array=True, fields=fields))
    arrow = column.array.__arrow_array__()
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks() if arrow.num_chunks != 1 else arrow.chunk(0)
    return arrow if arrow.type == _TEXT else arrow.cast(_TEXT)


def _first_bad(arrow: pa.Array, fields: tuple[str, ...], name: str) -> ValidationError:
    """The error naming the first cell that is not JSON text of a list of objects."""
    for row, cell in enumerate(arrow.to_pylist()):
        items = _loads(cell, name, row)
        if items is not None and (
            not isinstance(items, list) or not all(isinstance(o, dict) for o in items)
        ):
            return ValidationError(f"{name}[{row}]", "a list of objects (JSON array)", got=cell)
    return ValidationError(name, f"JSON text of lists of objects with {', '.join(fields)}")


def _read_lines(arrow: pa.Array, fields: tuple[str, ...]) -> pa.Table:
    """Arrow's JSON reader over the cells, one line ``{"v": <cell>}`` each."""
    lines = pc.binary_join_element_wise(
        pa.scalar('{"v":', _TEXT), arrow, pa.scalar("}\n", _TEXT), pa.scalar("", _TEXT)
    )
    # Blocks of about 1 MiB are parsed in parallel; a block must hold the longest line.
    longest = pc.max(pc.binary_length(lines)).as_py() or 0
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[
        lines.offset : lines.offset + len(lines) + 1
    ]
    body = lines.buffers()[2][int(offsets[0]) : int(offsets[-1])]
    item = pa.struct([(f, _TEXT) for f in fields])
    return pa_json.read_json(
        pa.BufferReader(body),
        read_options=pa_json.ReadOptions(block_size=max(_BLOCK, 2 * longest)),
        parse_options=pa_json.ParseOptions(
            explicit_schema=pa.schema([("v", pa.list_(item))]),
            unexpected_field_behavior="ignore",
        ),
    )


def object_lists(
    column: pd.Series, fields: tuple[str, ...], name: str = "column"
) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """The objects of a column of lists of objects, flattened: row of each, and its fields.

    Parameters
    ----------
    column : pandas.Series
        For example ``deals["lead_investors"]``: JSON text, as the frames hold it (an
        ``object`` column of Python lists of dicts is read too).
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
        A cell that is not a list of objects (or JSON text of one), naming the cell.

    Examples
    --------
    >>> rows, values = object_lists(pd.Series(['[{"id":"a"},{"id":"b"}]', None, '[]']),
    ...                             ("id",))
    >>> rows.tolist(), values["id"].to_pylist()
    ([0, 0], ['a', 'b'])
    """
    arrow = _text(column, fields, name)
    present = pc.is_valid(arrow)
    rows = np.flatnonzero(present.to_numpy(zero_copy_only=False))
    arrow = arrow.filter(present) if len(rows) < len(arrow) else arrow
    if not len(arrow):
        return np.empty(0, np.int64), {f: pa.array([], _TEXT) for f in fields}
    try:
        table = _read_lines(arrow, fields)
    except _ARROW_ERRORS:
        # Raw line breaks in JSON text are whitespace between tokens (inside strings they
        # are escaped): blanked, every cell is one line again.
        arrow = pc.replace_substring_regex(arrow, "[\r\n]", " ")
        try:
            table = _read_lines(arrow, fields)
        except _ARROW_ERRORS:
            raise _first_bad(arrow, fields, name) from None
    lists = table.column("v").combine_chunks()
    if table.num_rows != len(arrow) or lists.null_count:
        raise _first_bad(arrow, fields, name)
    flat = pc.list_flatten(lists)
    parents = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    return rows[parents], {f: pc.struct_field(flat, f) for f in fields}
