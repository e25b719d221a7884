"""Argument checks and column readers of the analytics functions (pure).

Every check raises :class:`~dealframe.errors.ValidationError` naming the argument, before any
computation or request, so that no foreign exception leaves a public function; plain numbers,
integers and flags are checked by :mod:`dealframe.arguments`, shared with the client.

Every column a user's frame hands to the analytics (and to the frame helpers
:func:`~dealframe.frames.participants.explode_participants`,
:func:`~dealframe.frames.participants.co_investment_edges`) is read through
:func:`~dealframe.frames.user_columns.plain_column` first: a column with an Arrow dtype (``pd.ArrowDtype``: what
``polars.DataFrame.to_pandas(use_pyarrow_extension_array=True)`` and
``pd.read_parquet(..., dtype_backend="pyarrow")`` give, as for the mirror's tables) becomes the
dtype the client's own frames use for it, so such a frame gives the client frame's result.
"""

from __future__ import annotations

import decimal
import numbers
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from dealframe.arguments import choice, finite_number
from dealframe.errors import ValidationError
from dealframe.frames.user_columns import (
    arrow_type,
    datetime_values,
    is_arrow_number,
    plain_column,
)

__all__ = [
    "check",
    "check_choice",
    "check_frame",
    "column",
    "datetime_values",
    "metric_values",
    "numeric_column",
    "plain_column",
    "tolerance_value",
]

_NUMERIC_KINDS = ("floating", "integer", "mixed-integer-float", "decimal", "empty")


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


def numeric_column(series: pd.Series) -> bool:
    """Whether a column holds numbers (not booleans): a numpy or nullable integer or float
    dtype, an Arrow integer, floating point or decimal type (dictionary-encoded too), a
    categorical of numbers (as a dictionary), or objects that are all numbers."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = _decoded(series)
    dtype = series.dtype
    if isinstance(dtype, pd.ArrowDtype):
        return is_arrow_number(arrow_type(dtype))
    if pd.api.types.is_object_dtype(dtype):
        return pd.api.types.infer_dtype(series, skipna=True) in _NUMERIC_KINDS[:-1]
    return dtype.kind in "iuf"


def metric_values(series: pd.Series) -> np.ndarray:
    """float64 values of a numeric (or object of numbers) column; nulls become NaN. Read
    only: a float64 column's own values, not copied. A categorical (or an Arrow dictionary)
    is read by its values, as :func:`plain_column` reads a dictionary; a column of nulls
    only, of any dtype, is NaN.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the column (its name) when a value is not a number (text such as ``"NM"``,
        booleans), saying the first such value (as plain Python) and what to do: text read
        as NaN first; flags are no numbers.

    Examples
    --------
    >>> metric_values(pd.Series([2.5, 1.0, 2.5], dtype="category")).tolist()
    [2.5, 1.0, 2.5]
    >>> metric_values(pd.Series([1.5, "NM"], name="evRevenueLtm"))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid evRevenueLtm: expected numeric values (text such as 'NM' read as NaN first: pd.to_numeric(column, errors='coerce')), got "values of kind 'mixed', such as 'NM'"
    >>> metric_values(pd.Series([True, None], name="marketCap", dtype="boolean"))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid marketCap: expected numeric values (True/False flags are no numbers: pd.to_numeric keeps them flags; give the field's numbers, or column.astype(float) if 1 and 0 are meant), got 'boolean, such as True'
    """
    if series.dtype == np.float64:  # the usual column: nothing to convert
        return series.to_numpy()
    given = series.dtype
    series = plain_column(series)
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = _decoded(series)
    if not series.notna().any():  # nulls only (an empty column read from a file as text)
        return np.full(len(series), np.nan)
    kind = pd.api.types.infer_dtype(series, skipna=True) if series.dtype == object else None
    if series.dtype.kind in "iuf" or kind in _NUMERIC_KINDS:
        try:
            return pd.to_numeric(series).to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError, OverflowError):
            pass
    strange = next((v for v in series.dropna() if not _is_number(v)), None)
    if isinstance(strange, np.generic):  # said as the plain value (True, not np.True_)
        strange = strange.item()
    flags = isinstance(strange, bool)
    raise ValidationError(
        str(series.name),
        "numeric values ("
        + (
            "True/False flags are no numbers: pd.to_numeric keeps them flags; give the "
            "field's numbers, or column.astype(float) if 1 and 0 are meant)"
            if flags
            else "text such as 'NM' read as NaN first: pd.to_numeric(column, errors='coerce'))"
            if isinstance(strange, str)
            else "numbers or nulls only)"
        ),
        got=(str(given) if kind is None else f"values of kind {kind!r}")
        + ("" if strange is None else f", such as {strange!r}"),
    )


def _is_number(value: Any) -> bool:
    """Whether one value is a number (not a boolean)."""
    return isinstance(value, (numbers.Number, decimal.Decimal)) and not isinstance(
        value, (bool, np.bool_)
    )


def _decoded(series: pd.Series) -> pd.Series:
    """A categorical column as its values (nulls as NaN or None): what an Arrow dictionary
    becomes, so that both read alike."""
    return pd.Series(np.asarray(series), index=series.index, name=series.name)
