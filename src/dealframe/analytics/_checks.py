"""Argument checks and column readers of the analytics functions (pure).

Every check raises :class:`~dealframe.errors.ValidationError` naming the argument, before any
computation or request, so that no foreign exception leaves a public function; plain numbers,
integers and flags are checked by :mod:`dealframe.arguments`, shared with the client.

Every column a user's frame hands to the analytics (and to the frame helpers
:func:`~dealframe.frames.participants.explode_participants`,
:func:`~dealframe.frames.participants.co_investment_edges`) is read through
:func:`plain_column` first: a column with an Arrow dtype (``pd.ArrowDtype``: what
``polars.DataFrame.to_pandas(use_pyarrow_extension_array=True)`` and
``pd.read_parquet(..., dtype_backend="pyarrow")`` give, as for the mirror's tables) becomes the
dtype the client's own frames use for it, so such a frame gives the client frame's result.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from dealframe.arguments import choice, finite_number
from dealframe.errors import ValidationError

__all__ = [
    "check",
    "check_choice",
    "check_frame",
    "column",
    "date_values",
    "datetime_values",
    "metric_values",
    "numeric_column",
    "plain_column",
    "tolerance_value",
]

_NUMERIC_KINDS = ("floating", "integer", "mixed-integer-float", "decimal", "empty")
#: What a date column may hold, as a ValidationError says it.
_DATES = "dates (datetime64, Arrow date32/date64/timestamp, periods, or YYYY-MM-DD text)"


def check(ok: bool, argument: str, expected: str, got: Any) -> None:
    """Raise ``ValidationError(argument, expected, got=got)`` unless ``ok``."""
    if not ok:
        raise ValidationError(argument, expected, got=got)


def tolerance_value(value: Any) -> float:
    """A tolerance: a finite number >= 0."""
    number = finite_number(value, "tolerance", "a finite number >= 0")
    check(number >= 0, "tolerance", "a finite number >= 0", value)
    return float(number)


def check_choice(argument: str, value: Any, choices: Iterable[str]) -> None:
    """Raise a ValidationError naming ``argument`` (with the closest choice) unless ``value``
    is one of ``choices``; see :func:`dealframe.arguments.choice`."""
    choice(value, argument, choices)


def check_frame(argument: str, value: Any) -> None:
    check(isinstance(value, pd.DataFrame), argument, "a pandas DataFrame", type(value).__name__)


def column(frame: pd.DataFrame, name: Any, role: str) -> pd.Series:
    """``frame[name]``, or a ValidationError naming ``deals`` when it is missing or repeated."""
    try:
        present = isinstance(name, Hashable) and name in frame.columns
    except TypeError:  # a hashable-looking label that cannot be hashed
        present = False
    check(present, "deals", f"a column {name!r} ({role})", f"columns {list(frame.columns)[:10]}")
    series = frame[name]
    check(isinstance(series, pd.Series), "deals", f"one column named {name!r} ({role})", "several")
    return series


def _arrow_type(dtype: Any) -> pa.DataType | None:
    """The Arrow type of a ``pd.ArrowDtype`` (a dictionary's value type), else None."""
    if not isinstance(dtype, pd.ArrowDtype):
        return None
    kind = dtype.pyarrow_dtype
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def _is_arrow_number(kind: pa.DataType | None) -> bool:
    return kind is not None and (
        pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)
    )


def plain_column(series: pd.Series) -> pd.Series:
    """``series`` with an Arrow dtype as the client's frames hold the same values; other
    series unchanged.

    Arrow ``date32``, ``date64`` and ``timestamp`` become ``datetime64[us]`` (a timestamp's
    time zone kept), integers ``Int64``, floating point and decimals ``float64`` (nulls as
    NaN), ``string`` / ``large_string`` ``str``, ``bool`` ``boolean``; a dictionary column is
    decoded first, and one of text becomes a ``category``. Other Arrow types (lists, structs,
    durations ...) are left as they are, for the reader of the column to refuse by name.

    Examples
    --------
    >>> import datetime
    >>> days = pd.Series(pd.array([datetime.date(2024, 1, 5), None], dtype="date32[pyarrow]"))
    >>> plain_column(days).tolist()
    [Timestamp('2024-01-05 00:00:00'), NaT]
    """
    kind = _arrow_type(series.dtype)
    if kind is None:
        return series
    try:
        data = pa.array(series.array)
        if pa.types.is_dictionary(data.type):
            data = data.cast(kind)
        if pa.types.is_date(kind):
            data = data.cast(pa.timestamp("us"))
        if pa.types.is_date(kind) or pa.types.is_timestamp(kind):
            values: Any = data.to_pandas().array
        elif _is_arrow_number(kind):
            if pa.types.is_integer(kind):
                whole = pd.arrays.ArrowExtensionArray(data.cast(pa.int64()))
                values = whole.astype("Int64")
            else:
                values = data.cast(pa.float64()).to_numpy(zero_copy_only=False)
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
            values = pd.array(data.to_pandas(), dtype="str")
            if isinstance(series.dtype, pd.ArrowDtype) and pa.types.is_dictionary(
                series.dtype.pyarrow_dtype
            ):
                values = pd.Categorical(values)
        elif pa.types.is_boolean(kind):
            values = pd.array(data.to_pandas(), dtype="boolean")
        else:
            return series
    except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
        raise ValidationError(
            str(series.name),
            "Arrow values that pandas' own dtypes hold (dates, int64 integers, floats, text, "
            "booleans)",
            got=str(series.dtype),
        ) from exc
    return pd.Series(values, index=series.index, name=series.name)


def numeric_column(series: pd.Series) -> bool:
    """Whether a column holds numbers (not booleans): a numpy or nullable integer or float
    dtype, an Arrow integer, floating point or decimal type (dictionary-encoded too), or
    objects that are all numbers."""
    dtype = series.dtype
    if isinstance(dtype, pd.ArrowDtype):
        return _is_arrow_number(_arrow_type(dtype))
    if pd.api.types.is_object_dtype(dtype):
        return pd.api.types.infer_dtype(series, skipna=True) in _NUMERIC_KINDS[:-1]
    return dtype.kind in "iuf"


def metric_values(series: pd.Series) -> np.ndarray:
    """float64 values of a numeric (or object of numbers) column; nulls become NaN."""
    given = series.dtype
    series = plain_column(series)
    kind = pd.api.types.infer_dtype(series, skipna=True) if series.dtype == object else None
    if series.dtype.kind in "iuf" or kind in _NUMERIC_KINDS:
        try:
            return pd.to_numeric(series).to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError, OverflowError):
            pass
    raise ValidationError(
        str(series.name),
        "numeric metric values",
        got=str(given) if kind is None else f"values of kind {kind!r}",
    )


def datetime_values(series: pd.Series) -> np.ndarray:
    """``datetime64[us]`` wall times (NaT for nulls) of a date column, time zones dropped.

    Takes ``datetime64`` (with or without a time zone), Arrow ``date32``, ``date64`` and
    ``timestamp`` (:func:`plain_column`), periods (their first day), ``datetime.date`` objects
    and ``YYYY-MM-DD`` text; a ValidationError naming the column for anything else.
    """
    given = series.dtype
    try:
        series = plain_column(series)
        if isinstance(series.dtype, pd.PeriodDtype):
            series = series.dt.start_time
        if not pd.api.types.is_datetime64_any_dtype(series.dtype):
            series = pd.to_datetime(series)
        if getattr(series.dt, "tz", None) is not None:
            series = series.dt.tz_localize(None)
        return series.to_numpy(dtype="datetime64[us]")
    except (TypeError, ValueError, OverflowError, NotImplementedError, pa.ArrowException) as exc:
        raise ValidationError(str(series.name), _DATES, got=str(given)) from exc


def date_values(series: pd.Series) -> np.ndarray:
    """Calendar days (``datetime64[D]``, NaT for nulls) of a date column, time zones dropped
    (:func:`datetime_values`)."""
    return datetime_values(series).astype("datetime64[D]")
