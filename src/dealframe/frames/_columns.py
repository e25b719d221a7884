"""Columns of a user's frame read as the client's frames hold them (pure).

A column with an Arrow dtype (``pd.ArrowDtype``: what
``polars.DataFrame.to_pandas(use_pyarrow_extension_array=True)`` and
``pd.read_parquet(..., dtype_backend="pyarrow")`` give, as for the mirror's tables) becomes
the dtype the client's own frames use for it (:func:`plain_column`), and a date column
becomes wall times (:func:`datetime_values`), so the analytics and the participant helpers
give such a frame the client frame's result.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError

__all__ = ["date_values", "datetime_values", "plain_column"]

#: What a date column may hold, as a ValidationError says it.
_DATES = (
    "dates (datetime64, Arrow date32/date64/timestamp, periods, datetime.date or ISO 8601 "
    "text YYYY-MM-DD[THH:MM:SS])"
)
#: Text a date column may hold: ISO 8601, a day with an optional time of day and offset.
_ISO_TEXT = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?\Z"
)


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


@checked_keywords
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


@checked_keywords
def datetime_values(series: pd.Series) -> np.ndarray:
    """``datetime64[us]`` wall times (NaT for nulls) of a date column, time zones dropped.

    Takes ``datetime64`` of any unit (with or without a time zone), Arrow ``date32``,
    ``date64`` and ``timestamp`` (:func:`plain_column`), periods (their first day),
    ``datetime.date`` / ``datetime`` objects, and ISO 8601 text as the client's frames write
    dates: ``YYYY-MM-DD``, optionally followed by a time of day and one offset for the whole
    column (``2024-03-05T10:00:00Z``). Anything else is a ValidationError naming the column:
    numbers and booleans (``20240105`` is not read as a date), other text (``05/01/2024``,
    ``2024-01``, ``Jan 2024``: day or month first cannot be told), text with mixed offsets.

    Examples
    --------
    >>> datetime_values(pd.Series(["2024-01-05", None, "2024-02-29 10:30"]))
    array(['2024-01-05T00:00:00.000000',                        'NaT',
           '2024-02-29T10:30:00.000000'], dtype='datetime64[us]')
    >>> datetime_values(pd.Series([20240105], name="deal_date"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deal_date: expected dates ..., got 'int64'
    """
    given = series.dtype
    try:
        series = plain_column(series)
        if isinstance(series.dtype, pd.CategoricalDtype):  # its values, read as any others
            series = series.astype(object)
        if isinstance(series.dtype, pd.PeriodDtype):
            series = series.dt.start_time
        if not pd.api.types.is_datetime64_any_dtype(series.dtype):
            series = _parsed(series)
        if getattr(series.dt, "tz", None) is not None:
            series = series.dt.tz_localize(None)
        return series.to_numpy(dtype="datetime64[us]")
    except ValidationError:
        raise
    except (TypeError, ValueError, OverflowError, NotImplementedError, pa.ArrowException) as exc:
        raise ValidationError(str(series.name), _DATES, got=_kind(series, given)) from exc


def _kind(series: pd.Series, given: Any) -> str:
    """What a refused date column holds: its dtype, or the kind of its objects."""
    if pd.api.types.is_object_dtype(given):
        return f"values of kind {pd.api.types.infer_dtype(series, skipna=True)!r}"
    return str(given)


def _parsed(series: pd.Series) -> pd.Series:
    """Dates of a column that is neither datetime64 nor periods: ``datetime.date`` objects,
    or ISO 8601 text (:data:`_ISO_TEXT`, one offset or none for the whole column); all nulls
    as NaT. A TypeError for anything else, a ValidationError naming the first text not read."""
    if pd.api.types.is_string_dtype(series.dtype):
        kind = pd.api.types.infer_dtype(series, skipna=True)
    else:  # numbers, booleans, Arrow types plain_column leaves: never dates
        kind = "empty" if series.isna().all() else "other"
    if kind in ("date", "datetime", "datetime64", "empty"):
        return pd.to_datetime(series)
    if kind != "string":
        raise TypeError(f"not dates: {kind}")
    text = pd.unique(series.dropna().to_numpy(dtype=object))
    unread = next((value for value in text if not _is_iso(value)), None)
    if unread is not None:
        raise ValidationError(str(series.name), _DATES, got=unread)
    try:
        # format="ISO8601": no format guessed from the first value (no pandas warning)
        return pd.to_datetime(series, format="ISO8601")
    except ValueError as exc:  # each value is a time: their offsets differ
        raise ValidationError(
            str(series.name),
            _DATES + ", one offset or none for the whole column",
            got=f"mixed offsets ({', '.join(text[:2])} ...)",
        ) from exc


def _is_iso(text: str) -> bool:
    """Whether ``text`` is a real day (and time) written as :data:`_ISO_TEXT` says."""
    if not _ISO_TEXT.match(text):
        return False
    try:
        dt.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


@checked_keywords
def date_values(series: pd.Series) -> np.ndarray:
    """Calendar days (``datetime64[D]``, NaT for nulls) of a date column, time zones dropped
    (:func:`datetime_values`)."""
    return datetime_values(series).astype("datetime64[D]")
