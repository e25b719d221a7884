"""The mirror's typed Arrow schema per entity, and frame <-> Arrow conversion (pure).

The columns are the client's list frames (:mod:`dealframe.frames.schemas`):
``COMPANY_LIST``, ``INVESTOR_LIST`` and ``DEAL_LIST`` (what list answers carry).
Arrow types are plain SQL types so DuckDB, polars and Spark read the files
without help: categories are strings, dates ``date32``, timestamps
``timestamp[us, UTC]``, and lists (``verticals``, participants ...) strings of
the JSON text the frames hold (``json_extract``, ``from_json``, ``str.json_decode``
read them). :func:`to_frame` gives back exactly the dtypes
:mod:`dealframe.frames.private` builds.

Examples
--------
>>> arrow_schema("investors").names
['id', 'name', 'short_name', 'website', 'country', 'updated_at', 'deleted']
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ..frames.normalize import cast
from ..frames.schemas import (
    COMPANY_LIST,
    DATE_DTYPE,
    DEAL_LIST,
    INVESTOR_LIST,
    STRING_DTYPE,
    TIMESTAMP_DTYPE,
    Column,
    Schema,
)

__all__ = [
    "ABSENT",
    "ENTITIES",
    "PUBLIC_TABLES",
    "SCHEMA_VERSION",
    "absent_columns",
    "api_entity",
    "arrow_schema",
    "columns",
    "fields_of",
    "schema_problem",
    "to_arrow",
    "to_frame",
]

#: Bumped whenever the stored columns, their types or the layout of the files change.
#: 3: one Delta table per entity; 2: base and delta Parquet files merged by generation (newest
#: wins, migrated by the first sync); 1: one row per id per folder.
SCHEMA_VERSION = 3
#: Mirrored entities, in sync order.
ENTITIES: tuple[str, ...] = ("companies", "investors", "deals")
#: The tables ``snapshot_public`` writes, as named in ``history`` and ``compact``.
PUBLIC_TABLES: tuple[str, ...] = ("public/current", "public/time_series")
#: A change-feed frame's column (never stored) naming, per row, the table columns its item
#: lacked (absent, not null): a tuple of names, or missing (:mod:`.absent`).
ABSENT = "_absent"
_API = {"companies": "companies", "investors": "investors", "deals": "transactions"}
_SCHEMAS: dict[str, Schema] = {
    "companies": COMPANY_LIST,
    "investors": INVESTOR_LIST,
    "deals": DEAL_LIST,
}
_SCALAR: dict[str, pa.DataType] = {
    "float": pa.float64(),
    "int": pa.int64(),
    "bool": pa.bool_(),
    "str": pa.string(),
    "uuid": pa.string(),
    "category": pa.string(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "list": pa.string(),
    "object": pa.string(),  # JSON text
}


def api_entity(entity: str) -> str:
    """The service's path name of a mirror entity (``deals`` → ``transactions``)."""
    return _API[entity]


def columns(entity: str) -> Schema:
    """The client's column specs of ``entity``'s list frame."""
    return _SCHEMAS[entity]


def absent_columns(entity: str, fields: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The columns of ``entity``'s table that come from the documented top-level ``fields``
    (``target`` gives ``target_id``, ``target_name`` ...), in the table's order.

    Examples
    --------
    >>> absent_columns("deals", ["deal_multiples", "deal_type"])
    ('deal_type', 'ev_revenue', 'ev_ebitda')
    """
    wanted = set(fields)
    return tuple(c.name for c in _SCHEMAS[entity] if c.path[0] in wanted)


def fields_of(entity: str, columns: Iterable[str]) -> tuple[str, ...]:
    """The documented top-level fields the ``columns`` of ``entity``'s table come from, each
    once, in the table's order (the inverse of :func:`absent_columns`).

    Examples
    --------
    >>> fields_of("deals", ["target_id", "target_name", "ev_revenue"])
    ('deal_multiples', 'target')
    """
    names = set(columns)
    return tuple(dict.fromkeys(c.path[0] for c in _SCHEMAS[entity] if c.name in names))


def _arrow_type(col: Column) -> pa.DataType:
    return _SCALAR[col.kind]


@functools.cache
def arrow_schema(entity: str) -> pa.Schema:
    """The Arrow schema of ``entity``'s Delta table."""
    return pa.schema([pa.field(c.name, _arrow_type(c)) for c in _SCHEMAS[entity]])


def _shape(schema: pa.Schema) -> list[tuple[str, str]]:
    """Column names and types, list item names and metadata left out (Delta calls items
    ``element``, Arrow ``item``)."""

    def name(t: pa.DataType) -> str:
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return f"list<{name(t.value_type)}>"
        if pa.types.is_struct(t):
            return "struct<" + ", ".join(f"{f.name}: {name(f.type)}" for f in t) + ">"
        if pa.types.is_large_string(t) or pa.types.is_string_view(t):
            return "string"
        return str(t)

    return [(f.name, name(f.type)) for f in schema]


def schema_problem(entity: str, schema: pa.Schema) -> str | None:
    """What is wrong with a table's ``schema`` as ``entity``'s, or None when it is right.

    Examples
    --------
    >>> schema_problem("investors", arrow_schema("investors")) is None
    True
    >>> schema_problem("deals", arrow_schema("investors"))
    'it holds the investors table (7 columns), not the deals table'
    """
    got = _shape(schema)
    if got == _shape(arrow_schema(entity)):
        return None
    for other in ENTITIES:
        if other != entity and got == _shape(arrow_schema(other)):
            return f"it holds the {other} table ({len(got)} columns), not the {entity} table"
    wanted = dict(_shape(arrow_schema(entity)))
    have = dict(got)
    missing = [c for c in wanted if c not in have]
    changed = [c for c in wanted if c in have and have[c] != wanted[c]]
    parts = []
    if missing:
        parts.append(f"columns {', '.join(missing[:5])} are missing")
    if changed:
        parts.append(f"columns {', '.join(changed[:5])} have other types")
    extra = [c for c in have if c not in wanted]
    if extra:
        parts.append(f"it has columns the {entity} table has not ({', '.join(extra[:5])})")
    return "; ".join(parts) or f"its columns are not in the order of the {entity} table"


def _objects(series: pd.Series) -> list[Any]:
    return [
        None if v is None or v is pd.NA or (isinstance(v, float) and v != v) else v
        for v in series.to_numpy(dtype=object)
    ]


def _text_categories(series: pd.Series) -> bool:
    """Whether ``series`` is a categorical of text (each category a ``str``)."""
    return isinstance(series.dtype, pd.CategoricalDtype) and (
        pd.api.types.infer_dtype(series.cat.categories, skipna=False) in ("string", "empty")
    )


def _to_array(series: pd.Series, col: Column, type_: pa.DataType) -> pa.Array:
    kind = col.kind
    if kind in ("str", "uuid", "list", "object") and isinstance(series.dtype, pd.StringDtype):
        return pa.chunked_array(series.array.__arrow_array__()).cast(type_)
    if kind == "category" and _text_categories(series):  # decoded by Arrow, not row by row
        return pa.array(series, from_pandas=True).dictionary_decode().cast(type_)
    if kind in ("str", "uuid", "category", "list", "object"):
        return pa.array(_objects(series), type=type_)
    if kind == "date":
        return pa.array(
            series.to_numpy(dtype=DATE_DTYPE).astype("datetime64[D]"), type=type_, from_pandas=True
        )
    return pa.array(series, type=type_, from_pandas=True)


def to_arrow(frame: pd.DataFrame, entity: str) -> pa.Table:
    """A client list frame of ``entity`` as a table of the mirror's schema.

    Columns the frame lacks are null; columns outside the schema are dropped.

    Examples
    --------
    >>> import pandas as pd
    >>> to_arrow(pd.DataFrame({"id": ["a"], "deleted": [False]}), "investors").num_rows
    1
    """
    schema = arrow_schema(entity)
    n = len(frame)
    arrays = []
    for col, field in zip(_SCHEMAS[entity], schema):
        if col.name in frame.columns:
            arrays.append(_to_array(frame[col.name], col, field.type))
        else:
            arrays.append(pa.nulls(n, type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _from_array(arr: pa.ChunkedArray, col: Column) -> Any:
    kind = col.kind
    if kind == "date":
        return arr.to_numpy(zero_copy_only=False).astype(DATE_DTYPE)
    if kind == "timestamp":
        return pd.array(arr.to_pandas(types_mapper=None), dtype=TIMESTAMP_DTYPE)
    if kind == "float":
        return arr.to_numpy(zero_copy_only=False).astype(np.float64)
    if kind in ("str", "uuid", "list", "object"):  # JSON text is text
        return pd.array(arr, dtype=STRING_DTYPE)
    return cast(arr.to_pylist(), col)


def to_frame(table: pa.Table, entity: str) -> pd.DataFrame:
    """A table of the mirror's schema as the client's typed frame of ``entity``.

    Examples
    --------
    >>> import pandas as pd
    >>> f = to_frame(to_arrow(pd.DataFrame({"id": ["a"]}), "investors"), "investors")
    >>> f["deleted"].dtype.name
    'boolean'
    """
    data = {col.name: _from_array(table.column(col.name), col) for col in _SCHEMAS[entity]}
    return pd.DataFrame(data, copy=False)
