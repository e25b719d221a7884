"""Nested values (lists and objects) as JSON text: how every frame holds them.

A list or object field of the service (participant lists, ``verticals``, ``tags``,
filter ``operators`` ...) is held in a pandas ``str`` column as compact JSON with
sorted keys, written by orjson: ``'["AI","Fintech"]'``,
``'[{"country":"USA","id":"...","name":"Acme","short_name":null,"website":null}]'``.
A null value is a missing cell (``NaN``); an empty list is ``'[]'``.

Why text: it is the one representation that ``to_parquet`` + ``read_parquet``
(default arguments), ``merge``, ``drop_duplicates``, ``nunique``, ``groupby``,
pickle, ``to_csv`` and ``DataFrame.equals`` all keep and hash, and that DuckDB,
polars and Spark read as it is (with their JSON functions). Python lists in an
``object`` column cannot be hashed, and Arrow ``list`` columns are not read back
by ``pd.read_parquet`` and not hashed by pandas.

Because the text is canonical (one spelling per value: sorted keys, no spaces, and
for participant lists every participant field, missing ones null), equal values are equal
strings, whatever the endpoint or the key order the service used.

Working with it:

- :func:`to_lists` gives the Python values back (``deals["target_verticals"]``
  → a column of lists);
- :func:`contains_any` tests list-of-string columns for values, vectorised;
- :func:`dealframe.explode_participants` gives participant lists as rows (read by
  :func:`dealframe.frames.objects.object_lists`, without a Python object per participant).

Examples
--------
>>> texts = encode([["AI", "Fintech"], None, []], "verticals", array=True)
>>> list(texts)
['["AI","Fintech"]', nan, '[]']
>>> to_lists(pd.Series(texts)).tolist()
[['AI', 'Fintech'], None, []]
>>> contains_any(pd.Series(texts), ["Fintech"]).tolist()
[True, False, False]
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError
from dealframe.frames.schemas import STRING_DTYPE

__all__ = ["contains_any", "dumps", "encode", "to_lists"]

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY
_dump = functools.partial(orjson.dumps, option=_OPTIONS, default=str)
_dumps = orjson.dumps
_NONE = type(None)


def dumps(value: Any) -> str:
    """The canonical JSON text of ``value`` (compact, sorted keys), as the frames hold it.

    Examples
    --------
    >>> dumps({"name": "Acme", "id": "a"})
    '{"id":"a","name":"Acme"}'
    """
    return _dump(value).decode()


def _is_null(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _texts(blobs: list[bytes | None]) -> Any:
    """orjson output (UTF-8 bytes, or None) as a pandas ``str`` array, without a Python str each."""
    arrow = pa.array(blobs, type=pa.large_binary()).view(pa.large_string())
    return pd.array(arrow, dtype=STRING_DTYPE)


def _cells(values: Sequence[Any], name: str, array: bool) -> list[Any]:
    """The values with nulls as None; with ``array``, each one checked to be a list."""
    kinds = set(map(type, values))
    if kinds <= ({list, _NONE} if array else {list, dict, str, int, bool, _NONE}):
        return values if isinstance(values, list) else list(values)
    out: list[Any] = []
    for i, value in enumerate(values):
        if _is_null(value):
            out.append(None)
        elif not array:
            out.append(value)
        elif isinstance(value, (list, tuple, np.ndarray)):
            out.append(list(value))
        else:
            raise ValidationError(f"{name}[{i}]", "an array (or null)", got=value)
    return out


def _object(obj: Any, fields: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(obj, Mapping):
        raise ValidationError(where, "an object", got=obj)
    out = dict(obj)
    for field in fields:
        value = obj.get(field)
        out[field] = None if _is_null(value) else value if isinstance(value, str) else str(value)
    return out


def _with_fields(cells: list[Any], fields: tuple[str, ...], name: str) -> list[Any]:
    """Lists of objects, each holding every one of ``fields`` (strings or null).

    The common case (every object a dict with exactly ``fields``, in any order) is
    checked without a Python loop per object and left as it is.
    """
    objs = list(chain.from_iterable(filter(None, cells)))
    wanted = set(fields)
    if (
        set(map(type, objs)) <= {dict}
        and set(map(len, objs)) <= {len(wanted)}
        and all(map(wanted.issuperset, objs))  # as many keys as fields, none other: exactly them
    ):
        return cells
    return [
        None
        if cell is None
        else [_object(obj, fields, f"{name}[{i}][{j}]") for j, obj in enumerate(cell)]
        for i, cell in enumerate(cells)
    ]


def encode(
    values: Sequence[Any],
    name: str = "value",
    *,
    array: bool = False,
    fields: tuple[str, ...] | None = None,
) -> Any:
    """Raw JSON values as a ``str`` array of their canonical JSON text (null stays null).

    Parameters
    ----------
    values : sequence
        Parsed JSON values (lists, dicts, scalars, None).
    name : str
        The column's name, for errors.
    array : bool, default False
        Every non-null value must be an array.
    fields : tuple of str, optional
        The values are arrays of objects that each get every one of these fields
        (missing ones null, non-string values through ``str``); other keys are kept.

    Raises
    ------
    dealframe.errors.ValidationError
        With ``array``, a value that is not an array; with ``fields``, an array
        item that is not an object.

    Examples
    --------
    >>> list(encode([[{"name": "B", "id": "b"}]], "buyers", array=True, fields=("id", "name",
    ...                                                                          "country")))
    ['[{"country":null,"id":"b","name":"B"}]']
    """
    cells = _cells(values, name, array or fields is not None)
    if fields is not None:
        cells = _with_fields(cells, fields, name)
    try:  # JSON values (an answer's): orjson called directly, a third faster than the partial
        blobs = [None if cell is None else _dumps(cell, None, _OPTIONS) for cell in cells]
    except orjson.JSONEncodeError:  # other Python values: those orjson does not know as str
        blobs = [None if cell is None else _dump(cell) for cell in cells]
    return _texts(blobs)


# ------------------------------------------------------------------------------ reading


def _values(column: Any, argument: str) -> np.ndarray:
    if isinstance(column, pd.DataFrame) or not isinstance(
        column, (pd.Series, pd.Index, np.ndarray, list, tuple)
    ):
        raise ValidationError(
            argument,
            "a column (Series) of JSON text, as the frames hold list and object fields",
            got=type(column).__name__,
        )
    if isinstance(column, np.ndarray) and column.ndim != 1:  # df[["a", "b"]].values
        raise ValidationError(
            argument, "a column: one dimension", got=f"an array of shape {column.shape}"
        )
    return np.asarray(pd.Series(column, copy=False).to_numpy(dtype=object, na_value=None))


def _loads(value: Any, argument: str, row: Any) -> Any:
    if value is None or isinstance(value, (list, dict)):
        return value
    if isinstance(value, np.ndarray):  # a cell of an Arrow list column
        return value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    if not isinstance(value, (str, bytes)):
        raise ValidationError(f"{argument}[{row!r}]", "JSON text (or a list, or null)", got=value)
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError as exc:
        raise ValidationError(f"{argument}[{row!r}]", f"JSON text ({exc})", got=value) from None


@checked_keywords
def to_lists(
    column: pd.Series | pd.Index | np.ndarray | list[Any] | tuple[Any, ...],
) -> pd.Series:
    """A column of JSON text (a list or object field of any frame) as Python values.

    Parameters
    ----------
    column : pandas.Series, Index, array, list or tuple
        For example ``deals["target_verticals"]``, ``deals["lead_investors"]``,
        ``current["tags"]`` or ``lookup["operators"]``.

    Returns
    -------
    pandas.Series
        ``object`` dtype, same index and name: a list (or dict) per cell, None for
        a missing value. Cells that already hold lists are kept.

    Raises
    ------
    dealframe.errors.ValidationError
        A cell that is neither JSON text, a list, nor missing; or text that is not JSON.

    Examples
    --------
    >>> deals = pd.DataFrame({"target_verticals": ['["AI","Fintech"]', None]})
    >>> to_lists(deals["target_verticals"]).tolist()
    [['AI', 'Fintech'], None]
    >>> deals.assign(vertical=to_lists(deals["target_verticals"])).explode("vertical")["vertical"].tolist()
    ['AI', 'Fintech', nan]
    """
    values = _values(column, "column")
    index = column.index if isinstance(column, pd.Series) else pd.RangeIndex(len(values))
    parsed = np.empty(len(values), dtype=object)
    kinds = set(map(type, values))
    if kinds <= {str, _NONE}:
        try:
            parsed[:] = [None if v is None else orjson.loads(v) for v in values]
        except orjson.JSONDecodeError:
            kinds = {object}
    if not kinds <= {str, _NONE}:
        parsed[:] = [_loads(v, "column", row) for v, row in zip(values, index)]
    return pd.Series(parsed, index=index, name=getattr(column, "name", None), dtype=object)


@checked_keywords
def contains_any(column: pd.Series, values: Iterable[str] | str) -> pd.Series:
    """Which cells of a list-of-strings column hold at least one of ``values``.

    The test runs on the JSON text with Arrow (no list is built): a cell matches
    when one of its elements equals one of ``values`` exactly (case matters).

    Parameters
    ----------
    column : pandas.Series
        A list column of a frame: ``target_verticals``, ``verticals``, ``themes``,
        ``tags``, ``client_focus`` ...
    values : str or iterable of str
        The values looked for (one string is one value).

    Returns
    -------
    pandas.Series
        ``bool``, same index: False for missing and empty cells.

    Raises
    ------
    dealframe.errors.ValidationError
        ``values`` empty or not strings, or a column that is not JSON text of lists. A
        blank value is taken as written: it matches a cell holding that element exactly.

    Examples
    --------
    >>> deals = pd.DataFrame({"target_verticals": ['["AI","Fintech"]', '["Health"]', None]})
    >>> deals[contains_any(deals["target_verticals"], ["Fintech", "Health"])].index.tolist()
    [0, 1]
    """
    wanted = [values] if isinstance(values, str) else values
    if isinstance(wanted, Mapping) or not isinstance(wanted, Iterable):
        raise ValidationError("values", "a string or a list of strings", got=values)
    wanted = list(wanted)
    if not wanted or not all(isinstance(v, str) for v in wanted):
        raise ValidationError("values", "at least one string (a list of strings)", got=values)
    if not isinstance(column, pd.Series):
        raise ValidationError("column", "a column (Series) of JSON text", got=type(column).__name__)
    if not isinstance(column.dtype, pd.StringDtype):
        lists = to_lists(column)
        keep = set(wanted)
        hits = [
            isinstance(cell, list) and any(isinstance(v, str) and v in keep for v in cell)
            for cell in lists
        ]
        return pd.Series(hits, index=column.index, name=column.name, dtype=bool)
    # In compact JSON an element of a string array is exactly `[` or `,`, the element's
    # JSON text, then `,` or `]`: an unescaped quote cannot occur inside a string.
    tokens = "|".join(re.escape(dumps(v)) for v in dict.fromkeys(wanted))
    arrow = pa.chunked_array(column.array.__arrow_array__())
    found = pc.match_substring_regex(arrow, f"[\\[,](?:{tokens})[,\\]]")
    hits = found.to_numpy(zero_copy_only=False)
    return pd.Series(
        np.where(pd.isna(hits), False, hits).astype(bool), index=column.index, name=column.name
    )
