"""Raw list pages → typed columns through Arrow's JSON reader (the big-pull fast path).

The pages (``{data: [...], meta}`` documents, one per line once joined) are
read by :func:`pyarrow.json.read_json` with an explicit type for every schema
column, on all cores and without one Python object per value; the columns are
then typed exactly as :func:`dealframe.frames.normalize.build_columns` types
them (strings zero-copy, dates and timestamps by Arrow's ISO 8601 casts,
vocabularies by ``index_in``, participants kept as ``list<struct>``).

Whenever Arrow cannot promise the Python path's result (a value of another
JSON type, a page that is not one line, an unknown field Arrow would read as a
timestamp or an object, a null item or participant) :func:`read_pages` returns
``None`` and the caller takes the Python path, which also raises the typed
errors on bad input.

Examples
--------
>>> from dealframe.frames.schemas import INVESTOR_LIST
>>> typed, extras = read_pages([b'{"data": [{"id": "a", "aum": 5}], "meta": {}}'],
...                            INVESTOR_LIST)
>>> typed["id"].tolist(), extras["aum"].tolist()
(['a'], [5])
>>> read_pages([b'{"data": [{"id": 7}]}'], INVESTOR_LIST) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from dealframe.frames.normalize import to_date, to_utc
from dealframe.frames.schemas import DATE_DTYPE, STRING_DTYPE, Column, Schema, struct_type

__all__ = ["read_pages"]

_S = pa.large_string()
_SCALAR: dict[str, pa.DataType] = {
    "float": pa.float64(), "int": pa.int64(), "bool": pa.bool_(), "str": _S, "date": _S,
    "timestamp": _S, "category": _S,
}
_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError)
#: Smallest block handed to one reader thread (each block holds whole pages).
_MIN_BLOCK = 1 << 24


class _Unsure(Exception):
    """Arrow cannot promise the Python path's result here: let the caller use that path."""


def _arrow_type(col: Column) -> pa.DataType:
    if col.kind == "list":
        return pa.list_(struct_type(col.fields) if col.fields is not None else _S)
    if col.kind not in _SCALAR:
        raise _Unsure(col.name)
    return _SCALAR[col.kind]


def _item_type(schema: Schema, nested: Mapping[str, str]) -> pa.StructType:
    """The explicit type of one item: schema columns, nested objects as structs."""
    top: dict[str, pa.DataType] = {}
    heads: dict[str, dict[str, pa.DataType]] = {}
    for col in schema:
        if len(col.path) == 1:
            top[col.path[0]] = _arrow_type(col)
        elif len(col.path) == 2:
            heads.setdefault(col.path[0], {})[col.path[1]] = _arrow_type(col)
        else:
            raise _Unsure(col.name)
    for head in nested:
        heads.setdefault(head, {})
    if set(top) & set(heads):
        raise _Unsure("a key both a column and a nested object")
    return pa.struct([*top.items(), *((h, pa.struct(list(f.items()))) for h, f in heads.items())])


def _safe_extra(t: pa.DataType) -> bool:
    """Inferred types whose Python values equal what orjson gives (no timestamps, no objects)."""
    if pa.types.is_list(t):
        t = t.value_type
    return (pa.types.is_null(t) or pa.types.is_boolean(t) or pa.types.is_int64(t)
            or pa.types.is_float64(t) or pa.types.is_string(t) or pa.types.is_large_string(t))


def _as_bytes(page: Any) -> bytes:
    if isinstance(page, str):
        return page.encode()
    return page if isinstance(page, bytes) else bytes(page)


def _items(pages: Sequence[Any], item: pa.StructType) -> pa.ChunkedArray:
    raw = [_as_bytes(p) for p in pages]
    if any(b"\n" in p or b"\r" in p for p in raw):
        raise _Unsure("a page spans lines")
    block = max(_MIN_BLOCK, max(map(len, raw)) + 2)
    buf = b"\n".join(raw)
    del raw
    try:
        table = pj.read_json(
            pa.BufferReader(buf), read_options=pj.ReadOptions(block_size=block),
            parse_options=pj.ParseOptions(explicit_schema=pa.schema([("data", pa.list_(item))]),
                                          unexpected_field_behavior="infer"))
    except _ARROW_ERRORS as exc:
        raise _Unsure(str(exc)) from exc
    if table.num_rows != len(pages):
        raise _Unsure("pages and lines differ")
    data = table.column("data")
    if data.null_count:
        raise _Unsure("a page without a data list")
    items = pc.list_flatten(data)
    if items.null_count:
        raise _Unsure("a null item")
    return items


def _fields(arr: pa.ChunkedArray) -> dict[str, pa.ChunkedArray]:
    """Children of a struct column (nulls of the parent propagated)."""
    return {f.name: pc.struct_field(arr, f.name) for f in arr.type}


def _categorical(arr: pa.ChunkedArray, vocab: Sequence[str]) -> pd.Categorical:
    known = set(vocab)
    present = pc.unique(arr).to_pylist()
    cats = [*vocab, *sorted((v for v in present if v is not None and v not in known), key=str)]
    codes = pc.fill_null(pc.index_in(arr, value_set=pa.array(cats, _S)), -1)
    return pd.Categorical.from_codes(codes.to_numpy().astype(np.int32),
                                     dtype=pd.CategoricalDtype(cats))


def _struct_lists(arr: pa.ChunkedArray, fields: tuple[str, ...]) -> Any:
    want = pa.list_(struct_type(fields))
    if pc.list_flatten(arr).null_count:
        raise _Unsure("a null object in a list")
    if arr.type != want:  # participants carrying other keys: keep only the fields
        chunks = []
        for chunk in arr.chunks:
            values = chunk.values
            children = [values.field(f) for f in fields]
            struct = pa.StructArray.from_arrays(children, fields=list(want.value_type))
            chunks.append(pa.ListArray.from_arrays(chunk.offsets, struct, type=want,
                                                   mask=chunk.is_null()))
        arr = pa.chunked_array(chunks, want)
    return pd.arrays.ArrowExtensionArray(arr)


def _typed(arr: pa.ChunkedArray, col: Column) -> Any:
    """One column as :func:`dealframe.frames.normalize.cast` would type it."""
    kind, name = col.kind, col.name
    if kind == "float":
        return arr.to_numpy().astype(np.float64, copy=False)
    if kind in ("int", "bool"):
        mask = arr.is_null().to_numpy()
        zero = 0 if kind == "int" else False
        values = pc.fill_null(arr, zero).to_numpy()
        if kind == "int":
            return pd.arrays.IntegerArray(values.astype(np.int64, copy=False), mask)
        return pd.arrays.BooleanArray(values.astype(bool, copy=False), mask)
    if kind == "str":
        return pd.array(arr, dtype=STRING_DTYPE)
    if kind == "date":
        try:
            return arr.cast(pa.date32()).to_numpy().astype(DATE_DTYPE)
        except _ARROW_ERRORS:
            return to_date(arr.to_pylist(), name)
    if kind == "timestamp":
        try:
            utc = arr.cast(pa.timestamp("us", tz="UTC")).to_numpy()
            return pd.DatetimeIndex(utc.astype("datetime64[us]")).tz_localize("UTC").array
        except _ARROW_ERRORS:
            return to_utc(arr.to_pylist(), name).array
    if kind == "category":
        return _categorical(arr, col.categories or ())
    if col.fields is not None:
        return _struct_lists(arr, col.fields)
    out = np.empty(len(arr), dtype=object)
    out[:] = arr.to_pylist()
    return out


def _objects(arr: pa.ChunkedArray) -> np.ndarray:
    if not _safe_extra(arr.type):
        raise _Unsure(f"extra field of type {arr.type}")
    out = np.empty(len(arr), dtype=object)
    out[:] = arr.to_pylist()
    return out


def read_pages(
    pages: Sequence[Any],
    schema: Schema,
    nested: Mapping[str, str] | None = None,
    extra_columns: Sequence[Column] = (),
) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """``build_columns`` output for all the pages' items, or ``None`` (use the Python path).

    Parameters
    ----------
    pages : sequence of bytes
        Raw ``{data: [...], meta}`` list responses, each one JSON document on one line.
    schema, nested, extra_columns
        As for :func:`dealframe.frames.normalize.build_columns`.

    Returns
    -------
    (dict, dict) or None
        Typed schema columns and raw (object) extra columns, equal to what
        ``build_columns`` gives for the same items; ``None`` when the pages hold
        no item or anything Arrow cannot type the same way.
    """
    nested = nested or {}
    try:
        item = _item_type(schema, nested)
        items = _items(pages, item) if pages else None
        if items is None or not len(items):
            return None
        return _columns(_fields(items), schema, nested, extra_columns)
    except _Unsure:
        return None


def _columns(raw: dict[str, pa.ChunkedArray], schema: Schema, nested: Mapping[str, str],
             extra_columns: Sequence[Column]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    optional = [c for c in extra_columns if c.path[0] in raw]
    for col in optional:  # inferred, not declared: only text (or all null) reads the same
        got = raw[col.path[0]].type
        if len(col.path) != 1 or _SCALAR.get(col.kind) != _S or not (
                pa.types.is_null(got) or pa.types.is_string(got) or pa.types.is_large_string(got)):
            raise _Unsure(col.name)
        raw[col.path[0]] = raw[col.path[0]].cast(_S)
    specs = [*schema, *optional]
    known_top = {c.path[0] for c in (*schema, *extra_columns)} | set(nested)
    extras = {k: _objects(raw[k]) for k in sorted(set(raw) - known_top)}
    heads = dict.fromkeys([c.path[0] for c in specs if len(c.path) == 2] + list(nested))
    nested_raw: dict[tuple[str, str], pa.ChunkedArray] = {}
    for head in heads:
        got = _fields(raw[head])
        nested_raw.update(((head, k), v) for k, v in got.items())
        if head not in nested:
            continue
        known = {c.path[1] for c in specs if len(c.path) == 2 and c.path[0] == head}
        for key in sorted(set(got) - known):
            name = nested[head] + key
            if name in extras or any(c.name == name for c in specs):
                name = f"{head}_{key}"
            extras[name] = _objects(got[key])
    typed = {col.name: _typed(raw[col.path[0]] if len(col.path) == 1
                              else nested_raw[col.path[:2]], col) for col in specs}
    return typed, extras
