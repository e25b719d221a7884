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
from collections.abc import Iterable
from typing import Any, NoReturn

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError
from dealframe.frames.normalize import to_booleans

__all__ = [
    "arrow_type",
    "datetime_values",
    "is_arrow_number",
    "one_column_each",
    "plain_column",
    "true_rows",
]

#: What a date column may hold, as a ValidationError says it.
_DATES = (
    "dates (datetime64, Arrow date32/date64/timestamp, periods, datetime.date or ISO 8601 "
    "text YYYY-MM-DD[THH:MM:SS])"
)
#: Text a date column may hold (RE2 and Python alike), once stripped: ISO 8601, a day with an
#: optional time of day and offset (``Z``, ``+01:00``, ``+0100`` or ``+00`` as PostgreSQL
#: writes a ``timestamptz``).
_ZONE = r"(?:Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)"  # hours 00-23, minutes 00-59
_ISO_TEXT = (
    r"^(?:\d{3}[1-9]|\d{2}[1-9]\d|\d[1-9]\d{2}|[1-9]\d{3})-\d{2}-\d{2}"  # no year 0000
    r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?" + _ZONE + r"?)?$"
)
#: The offset ending such text, after its time of day (kept, ``\1``): taken off, the wall
#: time read.
_OFFSET = r"([T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)" + _ZONE + "$"
#: Objects a date column may hold besides text (nulls aside): ``datetime.date``, ``datetime``,
#: ``pandas.Timestamp`` (and ``NaT``, one of them) and ``numpy.datetime64``.
_TIME_OBJECTS = (dt.date, np.datetime64)


def arrow_type(dtype: Any) -> pa.DataType | None:
    """The Arrow type of a ``pd.ArrowDtype`` (a dictionary's value type), else None.

    Parameters
    ----------
    dtype : object
        A column's dtype.

    Returns
    -------
    pyarrow.DataType or None
        The type of its values when it is an Arrow dtype; None for any other dtype.

    Examples
    --------
    >>> arrow_type(pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string())))
    DataType(string)
    >>> arrow_type(np.dtype("float64")) is None
    True
    """
    if not isinstance(dtype, pd.ArrowDtype):
        return None
    kind = dtype.pyarrow_dtype
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def is_arrow_number(kind: pa.DataType | None) -> bool:
    """Whether ``kind`` (an :func:`arrow_type`) holds numbers: integers, floating point or
    decimals.

    Parameters
    ----------
    kind : pyarrow.DataType or None
        The Arrow type of a column's values, None for a column without one.

    Returns
    -------
    bool
        True for an integer, floating-point or decimal type.

    Examples
    --------
    >>> is_arrow_number(pa.decimal128(10, 2)), is_arrow_number(pa.string()), is_arrow_number(None)
    (True, False, False)
    """
    return kind is not None and (
        pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)
    )


@checked_keywords
def one_column_each(frame: pd.DataFrame, names: Iterable[str], argument: str) -> None:
    """Refuse ``frame`` when it holds several columns of one of ``names`` (a ``concat``
    along the columns repeats them), naming ``argument`` (the public function's frame) and
    that column: ``frame[name]`` would be a frame, which no column reader takes. Names the
    frame lacks are let be (the caller says what is missing its own way).

    Examples
    --------
    >>> deals = pd.DataFrame([[1, 2, 3]], columns=["id", "deleted", "deleted"])
    >>> one_column_each(deals, ["id", "deal_date", "deleted"], "deals")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deals: expected one column named 'deleted', got 'several'
    """
    repeated = frame.columns[frame.columns.duplicated()]
    for name in names:
        if name in repeated:
            raise ValidationError(argument, f"one column named {name!r}", got="several")


def _check_series(series: Any) -> None:
    """Refuse anything but a pandas Series, naming the argument ``series``."""
    if not isinstance(series, pd.Series):
        raise ValidationError("series", "a pandas Series (one column)", got=type(series).__name__)


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
    _check_series(series)
    kind = arrow_type(series.dtype)
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
        elif is_arrow_number(kind):
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
    ``date64`` and ``timestamp`` (:func:`plain_column`), periods (their first day), and
    objects: ``datetime.date``, ``datetime``, ``pandas.Timestamp``, ``numpy.datetime64`` and
    ISO 8601 text, alone or mixed in one column (a CSV export concatenated with the client's
    deals, a spreadsheet of date cells and text cells). Text is read once stripped of
    surrounding spaces (empty text is null): ``YYYY-MM-DD``, optionally followed by a time of
    day and an offset (``2024-03-05T10:00:00Z``, ``2024-01-05 00:00:00+00``). The wall time
    of every value is read: its offset or time zone is dropped, as for a ``datetime64``
    column with a time zone (text with the offsets of summer and winter time, a time-zone
    column written to CSV, reads as the column did). Anything else is a ValidationError
    naming the column and the first value not read: numbers and booleans (``20240105`` is
    not read as a date), other text (``05/01/2024``, ``2024-01``, ``Jan 2024``: day or month
    first cannot be told), days and times that do not exist (``2024-02-30``).

    Examples
    --------
    >>> datetime_values(pd.Series(["2024-01-05", None, " 2024-02-29 10:30+00"]))
    array(['2024-01-05T00:00:00.000000',                        'NaT',
           '2024-02-29T10:30:00.000000'], dtype='datetime64[us]')
    >>> datetime_values(pd.Series([20240105], name="deal_date"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deal_date: expected dates ..., got 'int64'
    """
    _check_series(series)
    given = series.dtype
    try:
        series = plain_column(series)
        if isinstance(series.dtype, pd.CategoricalDtype):  # its values, read as any others
            series = series.astype(object)
        if isinstance(series.dtype, pd.PeriodDtype):
            series = series.dt.start_time
        if pd.api.types.is_datetime64_any_dtype(series.dtype):
            if getattr(series.dt, "tz", None) is not None:
                series = series.dt.tz_localize(None)
            return series.to_numpy(dtype="datetime64[us]")
        if not pd.api.types.is_string_dtype(series.dtype):  # numbers, booleans, other Arrow
            if series.isna().all():
                return np.full(len(series), np.datetime64("NaT", "us"))
            raise TypeError(f"not dates: {series.dtype}")
        return _object_times(series, str(series.name))
    except ValidationError:
        raise
    except (TypeError, ValueError, OverflowError, NotImplementedError, pa.ArrowException) as exc:
        raise ValidationError(str(series.name), _DATES, got=str(given)) from exc


def _object_times(series: pd.Series, name: str) -> np.ndarray:
    """Wall times of a column of text or objects: text alone read by Arrow at once
    (:func:`_text_times`), date objects alone by pandas, a mix value by value of its kind."""
    if series.dtype != object:  # pandas text: Arrow's own, or converted once
        return _text_times(pa.array(series.array), name)
    values = series.to_numpy()
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind == "string":
        return _text_times(pa.array(values, pa.string(), from_pandas=True), name, values)
    if kind in ("date", "datetime", "datetime64"):  # date objects alone (and nulls)
        return _wall_times(values)
    is_text = np.fromiter((isinstance(v, str) for v in values), dtype=bool, count=len(values))
    others = values[~is_text]
    unread = next((i for i in np.flatnonzero(~is_text) if not _is_time_object(values[i])), None)
    if unread is not None:  # named, unless text before it is not read either
        _text_times(pa.array(values[:unread][is_text[:unread]], pa.string()), name)
        raise ValidationError(name, _DATES, got=values[unread])
    out = np.full(len(values), np.datetime64("NaT", "us"))
    if is_text.any():
        out[is_text] = _text_times(pa.array(values[is_text], pa.string()), name)
    out[~is_text] = _wall_times(others)
    return out


def _is_time_object(value: Any) -> bool:
    """Whether ``value`` is a date object (:data:`_TIME_OBJECTS`) or a null."""
    return isinstance(value, _TIME_OBJECTS) or (pd.api.types.is_scalar(value) and pd.isna(value))


def _wall_times(values: np.ndarray) -> np.ndarray:
    """``datetime64[us]`` wall times of date objects and nulls; objects of several time zones
    (or some with one, some without) each read at its own wall time."""
    try:
        times = pd.to_datetime(pd.Series(values, dtype=object))
    except ValueError:  # several time zones: each one's wall time
        naive = [v.replace(tzinfo=None) if getattr(v, "tzinfo", None) else v for v in values]
        times = pd.to_datetime(pd.Series(naive, dtype=object))
    if getattr(times.dt, "tz", None) is not None:
        times = times.dt.tz_localize(None)
    return times.to_numpy(dtype="datetime64[us]")


def _text_times(text: pa.Array, name: str, given: np.ndarray | None = None) -> np.ndarray:
    """``datetime64[us]`` wall times of ISO 8601 text (:data:`_ISO_TEXT`), stripped first;
    empty text and nulls as NaT. One Arrow pass checks every value; pandas reads them and
    refuses days and times that do not exist; offsets are taken off (:data:`_OFFSET`) only
    when pandas cannot read them as one. ``given``: the same text as objects, read as they
    are when no value needs stripping. A ValidationError names the first value not read."""
    trimmed = pc.utf8_trim_whitespace(text)
    stripped = pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, trimmed.type), trimmed)
    iso = pc.fill_null(pc.match_substring_regex(stripped, _ISO_TEXT), True)
    if not pc.all(iso, min_count=0).as_py():
        _refuse_first(text, stripped, iso, name)
    if given is None or pc.any(pc.not_equal(trimmed, text)).as_py():
        given = stripped.to_numpy(zero_copy_only=False)  # pandas reads "" as NaT
    try:
        # format="ISO8601": no format guessed from the first value (no pandas warning)
        times = pd.to_datetime(given, format="ISO8601")
    except (ValueError, OverflowError):  # offsets that differ, or no such day or time
        wall = pc.replace_substring_regex(stripped, _OFFSET, r"\1")
        try:
            times = pd.to_datetime(wall.to_numpy(zero_copy_only=False), format="ISO8601")
        except (ValueError, OverflowError):
            _refuse_first(text, stripped, iso, name)
    if times.tz is not None:
        times = times.tz_localize(None)
    return times.to_numpy(dtype="datetime64[us]")


def _refuse_first(text: pa.Array, stripped: pa.Array, iso: pa.Array, name: str) -> NoReturn:
    """Raise the ValidationError naming the first value of ``text`` not read: not ISO 8601
    (``iso`` false), or no real day or time (found by reading every wall time again)."""
    wall = pc.replace_substring_regex(stripped, _OFFSET, r"\1").to_numpy(zero_copy_only=False)
    read = pd.to_datetime(wall, format="ISO8601", errors="coerce")
    unread = ~iso.to_numpy(zero_copy_only=False) | (read.isna() & pd.notna(wall))
    raise ValidationError(name, _DATES, got=text[int(np.flatnonzero(unread)[0])].as_py())


@checked_keywords
def true_rows(series: pd.Series) -> np.ndarray:
    """Which rows a boolean column of a user's frame (``deleted``) holds true (nulls: false).

    Read as the client reads booleans (:func:`~dealframe.frames.normalize.to_booleans`):
    booleans, the numbers 0 and 1, and text ``"true"`` / ``"false"`` in any case (a frame
    read back from CSV), without its ``ServiceContractWarning``: the frame is the user's, not
    an answer of the service, and such text is not ambiguous. A categorical (or an Arrow
    dictionary) is read by its values. Any other value (text ``"yes"``, ``"0"`` or ``"1"``,
    the number 2) is a ValidationError naming the column, never a row read as false.

    Parameters
    ----------
    series : pandas.Series
        The column; its name is the one an error gives.

    Returns
    -------
    numpy.ndarray
        ``bool``, one value per row.

    Examples
    --------
    >>> true_rows(pd.Series(["True", "false", None], name="deleted")).tolist()
    [True, False, False]
    """
    _check_series(series)
    name = str(series.name) if series.name is not None else "column"
    column = plain_column(series)  # an Arrow dictionary of text: a categorical
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(object)
    if not pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy(dtype=object, na_value=None)
        if pd.api.types.is_numeric_dtype(column.dtype):  # each distinct number checked
            to_booleans(pd.unique(values), name, said=False)
        else:  # not said: the reader's words are about a service's answer
            column = pd.Series(to_booleans(values, name, said=False), index=column.index)
    return column.eq(True).to_numpy(dtype=bool, na_value=False)
