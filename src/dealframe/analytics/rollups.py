"""Family A group rollups (``groups/current``, ``groups/time-series``) for any group of SKUs.

The service aggregates a group defined by a search body; these functions aggregate any frame
of companies, with the service's rules (``docs/aggregates.md``). Every median is
:func:`numpy.nanmedian` over a NaN-padded array (field or month, group or field, company): no
Python loop over fields, groups or months.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dealframe._vocab import GROUP_SUM_AND_MEDIAN, GROUP_SUM_ONLY
from dealframe.analytics._checks import (
    check,
    check_frame,
    metric_values,
    numeric_column,
    plain_column,
)
from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError
from dealframe.frames.public import GROUP_ROWS
from dealframe.notices import DealframeWarning, user_stacklevel

__all__ = ["current_fields", "group_current", "group_time_series"]

_BY = "a column name, a Series aligned on the index, or one hashable label per row"


@checked_keywords
def current_fields(current: pd.DataFrame) -> list[str]:
    """The numeric fields of a current-data frame that a group rollup aggregates.

    Parameters
    ----------
    current : DataFrame
        ``client.public.current(...)`` or a frame with its columns.

    Returns
    -------
    list of str
        Every numeric (not boolean) column, of any numpy, nullable or Arrow dtype (a
        categorical or Arrow dictionary of numbers by its values): those of
        :data:`~dealframe.frames.public.GROUP_ROWS` first, in the order of
        ``client.public.group_current``, then the others, in frame order. A field of
        ``GROUP_ROWS`` holding nulls only, of any dtype, is one of them.

    Raises
    ------
    dealframe.errors.ValidationError
        ``current`` is not a DataFrame, repeats a column, or has no numeric current-data
        field (a deals frame, a long time-series frame, text only); or a field of
        ``GROUP_ROWS`` holds a value that is no number (``"NM"`` in a column read from a
        CSV, text categories, booleans), naming the field and that value, never leaving the
        field out.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"name": ["A"], "evRevenueLtm": [2.0], "marketCapLcu": [9.0],
    ...                       "marketCap": [5.0], "rateToUsd": [1.1], "listed": [True]})
    >>> current_fields(frame)
    ['marketCap', 'evRevenueLtm', 'rateToUsd', 'marketCapLcu']
    """
    check_frame("current", current)
    repeated = current.columns[current.columns.duplicated()].tolist()
    check(not repeated, "current", "unique column names", f"repeated {repeated[:5]}")
    unread = [f for f in GROUP_ROWS if f in current.columns and not numeric_column(current[f])]
    for field in unread:  # a documented number held as text ("NM" in a CSV): said, not dropped
        metric_values(current[field])  # raises naming it, unless it holds nulls only
    numeric = [
        c
        for c in current.columns
        if isinstance(c, str) and (c in unread or numeric_column(current[c]))
    ]
    known = [f for f in GROUP_ROWS if f in numeric]
    check(
        bool(known),
        "current",
        "a current-data frame (client.public.current) with a numeric field such as "
        + ", ".join(GROUP_ROWS[:3]),
        f"columns {list(current.columns)[:8]}",
    )
    return known + [f for f in numeric if f not in known]


@checked_keywords
def group_current(
    current: pd.DataFrame,
    by: Hashable | pd.Series | Sequence[Hashable] | np.ndarray | pd.Index | None = None,
) -> pd.DataFrame:
    """Sum and median of current data across a group of companies, like ``groups/current``.

    Parameters
    ----------
    current : DataFrame
        One row per company, as the client's current-data frame (:func:`current_fields`).
    by : str, Series or array-like, optional
        Group labels (a column name such as ``"region"``, a Series aligned on the index, or one
        label per row) to roll up many groups at once; rows with a null label are left out.
        Text labels give a ``str`` group level, dictionary-encoded and categorical ones a
        categorical level.

    Returns
    -------
    DataFrame
        Index ``field`` (or ``(group, field)``) in the order of :func:`current_fields`,
        columns ``sum`` and ``median`` (float64) as the service's (``docs/aggregates.md``),
        NaN where a field's class has no such statistic or the field no value.
        ``attrs["companies"]``: the number of companies (per group with ``by``).

    Raises
    ------
    dealframe.errors.ValidationError
        If ``current`` is not a current-data frame (:func:`current_fields`) or ``by`` cannot
        be read.

    Warns
    -----
    dealframe.DealframeWarning
        ``current`` holds infinite values: left out, as nulls, naming each field and how many
        (the service holds none, JSON having no infinity). Repeated SKUs are said too.

    Examples
    --------
    >>> import pandas as pd
    >>> current = pd.DataFrame(
    ...     {"marketCap": [10.0, 30.0, None], "revenueLtm": [1.0, 2.0, 4.0],
    ...      "evRevenueLtm": [5.0, None, 7.0], "name": ["A", "B", "C"]},
    ...     index=pd.Index(["A-USA", "B-USA", "C-GBR"], name="sku"))
    >>> group_current(current)  # doctest: +NORMALIZE_WHITESPACE
                   sum  median
    field
    marketCap     40.0     NaN
    revenueLtm     7.0     2.0
    evRevenueLtm   NaN     6.0
    >>> group_current(current, by=["US", "US", "UK"]).loc["UK"]  # doctest: +NORMALIZE_WHITESPACE
                  sum  median
    field
    marketCap     NaN     NaN
    revenueLtm    4.0     4.0
    evRevenueLtm  NaN     7.0
    """
    fields = current_fields(current)
    _warn_repeated(current.index, "rows of current", "current[~current.index.duplicated()]")
    values = np.stack([metric_values(current[f]) for f in fields])  # (field, company)
    values = _finite(values.T, np.arange(len(fields)), fields).T  # said, then as nulls
    if by is None:  # one group
        codes, groups = np.zeros(len(current), dtype=np.intp), pd.Index([0])
    else:
        codes, groups = _group_codes(current, by)
    cube, sizes = _padded(values, codes, len(groups))  # (field, group, company)
    medians, present = _padded_medians(cube)
    sums = np.where(present > 0, np.nansum(cube, axis=-1), np.nan)
    sums[[f not in GROUP_SUM_ONLY + GROUP_SUM_AND_MEDIAN for f in fields]] = np.nan
    medians[[f in GROUP_SUM_ONLY for f in fields]] = np.nan
    index = pd.MultiIndex(
        levels=[groups, pd.Index(fields, name="field")],
        codes=[
            np.repeat(np.arange(len(groups)), len(fields)),
            np.tile(np.arange(len(fields)), len(groups)),
        ],
        names=[groups.name, "field"],
        verify_integrity=False,
    )
    out = pd.DataFrame({"sum": sums.T.ravel(), "median": medians.T.ravel()}, index=index)
    if by is None:
        out = out.droplevel(0)
        out.attrs = {"companies": len(current)}
    else:
        out.attrs = {"companies": dict(zip(groups.tolist(), sizes.tolist()))}
    return out


def _finite(values: np.ndarray, fields_of: np.ndarray, fields: Sequence[str]) -> np.ndarray:
    """``values`` (``(..., column)``, column ``i`` of field ``fields[fields_of[i]]``) with its
    infinite values as NaN, left out as nulls are, and a ``DealframeWarning`` naming each
    field holding some and how many: the service holds no infinite value (JSON has none), so
    one in a frame is no value the service would have summed."""
    infinite = np.isinf(values)
    if not infinite.any():
        return values
    per_column = infinite.reshape(-1, values.shape[-1]).sum(axis=0)
    per_field = np.bincount(fields_of, weights=per_column, minlength=len(fields))
    said = ", ".join(f"{fields[i]} ({int(k):,})" for i, k in enumerate(per_field) if k)
    warnings.warn(
        f"infinite values left out of the rollup, as nulls (the service holds none): {said}; "
        "pass frame.replace([np.inf, -np.inf], np.nan) to leave them out without a word",
        DealframeWarning,
        stacklevel=user_stacklevel(),
    )
    return np.where(infinite, np.nan, values)


def _wide_values(wide: pd.DataFrame) -> np.ndarray:
    """float64 values ``(month, column)`` of a wide frame; nulls become NaN. Columns of
    numpy numbers are read at once; any other column is read as ``group_current`` reads a
    field (:func:`~dealframe.analytics._checks.metric_values`), named by its field and SKU."""
    if all(isinstance(d, np.dtype) and d.kind in "iuf" for d in wide.dtypes):
        return wide.to_numpy(dtype=np.float64, na_value=np.nan)
    columns = [
        metric_values(wide.iloc[:, i].rename(f"{field} of sku {sku!r}"))
        for i, (field, sku) in enumerate(wide.columns)
    ]
    return np.column_stack(columns) if columns else np.empty((len(wide), 0))


def _warn_repeated(keys: pd.Index, where: str, instead: str) -> None:
    """A ``DealframeWarning`` when ``keys`` (SKUs, or field and SKU) repeat: each repeat is
    counted as one more company, where the service's group holds a company once."""
    repeated = keys[keys.duplicated(keep=False)]
    if not len(repeated):
        return
    warnings.warn(
        f"repeated SKUs: {repeated.nunique():,} among the {len(keys):,} {where} "
        f"({len(repeated):,} in all), each counted once per repeat, where the service counts "
        f"a company once; pass {instead} to count each once",
        DealframeWarning,
        stacklevel=user_stacklevel(),
    )


def _group_codes(current: pd.DataFrame, by: Any) -> tuple[np.ndarray, pd.Index]:
    """Group number of every row (-1: none) and the groups, sorted."""
    labels, name = None, "group"
    try:
        if isinstance(by, pd.Series):
            labels = by if by.index.equals(current.index) else by.reindex(current.index)
            name = name if by.name is None else str(by.name)
        elif isinstance(by, Hashable) and by in current.columns:
            labels, name = current[by], str(by)
        elif isinstance(by, (list, tuple, np.ndarray, pd.Index)) and len(by) == len(current):
            labels = pd.Series(list(by), index=current.index, dtype=object)
        check(isinstance(labels, pd.Series), "by", _BY, by)
        labels = plain_column(labels)  # Arrow text as str, dictionaries as categories
        if isinstance(labels.dtype, pd.StringDtype) or (
            labels.dtype == object and pd.api.types.infer_dtype(labels, skipna=True) == "string"
        ):
            labels = labels.astype("str")
        codes, groups = pd.factorize(labels, sort=True)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError("by", _BY, got=by) from exc
    check(
        len(current) == 0 or bool((codes >= 0).any()),
        "by",
        f"{_BY}, giving at least one row a group (a Series is aligned on the frame's index)",
        by,
    )
    return codes, pd.Index(groups, name=name)


def _padded(values: np.ndarray, codes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The columns of ``values`` laid out by code, ``(..., code, slot)``, NaN padded (code
    -1: left out), and the columns per code."""
    used = np.flatnonzero(codes >= 0)
    order = used[np.argsort(codes[used], kind="stable")]
    sizes = np.bincount(codes[used], minlength=n)
    width = int(sizes.max()) if n else 0
    slot = np.arange(len(order)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    cube = np.full((*values.shape[:-1], n * width), np.nan)
    cube[..., codes[order] * width + slot] = values[..., order]
    return cube.reshape(*values.shape[:-1], n, width), sizes


def _padded_medians(cube: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`numpy.nanmedian` along the last axis (NaN where no value: zeros are given to
    numpy there, so that it has no all-NaN slice to warn about), and the value counts."""
    present = np.count_nonzero(~np.isnan(cube), axis=-1)
    if cube.shape[-1] == 0:
        return np.full(present.shape, np.nan), present
    medians = np.nanmedian(np.where((present == 0)[..., None], 0.0, cube), axis=-1)
    return np.where(present > 0, medians, np.nan), present


@checked_keywords
def group_time_series(wide: pd.DataFrame, *, counts: bool = False) -> pd.DataFrame:
    """Monthly medians per field across a group's companies, like ``groups/time-series``.

    Parameters
    ----------
    wide : DataFrame
        The client's wide time-series frame: months as index, ``(field, sku)`` columns; the
        group is the set of SKUs in the columns.
    counts : bool, default False
        Add a column ``n_<field>`` (Int64) per field: the companies with a value that month.

    Returns
    -------
    DataFrame
        One row per month with a value in some field (as the service), one float64 column
        per field, in the order fields first appear. ``attrs``: ``companies`` (SKUs in the
        group, but those ``wide.attrs["missing_skus"]`` lists: the service did not return
        them) and ``count`` (months returned), as the service's meta.

    Raises
    ------
    dealframe.errors.ValidationError
        If ``wide`` is not a DataFrame with two-level ``(field, sku)`` columns, or a column
        holds a value that is no number (``"NM"`` or ``"1"`` text, booleans), naming its field,
        its SKU and that value, as :func:`group_current` names a field (the error's
        ``argument`` is then ``"<field> of sku '<sku>'"``, not ``wide``).

    Warns
    -----
    dealframe.DealframeWarning
        ``wide`` holds infinite values: left out, as nulls, naming each field and how many
        (the service holds none). SKUs repeated among the columns are said too.

    Examples
    --------
    >>> import pandas as pd
    >>> months = pd.period_range("2024-01", periods=3, freq="M", name="month")
    >>> columns = pd.MultiIndex.from_product([["evRevenueLtm"], ["A", "B", "C"]],
    ...                                      names=["field", "sku"])
    >>> wide = pd.DataFrame([[1.0, 2.0, 9.0], [None, None, None], [4.0, None, 6.0]],
    ...                     index=months, columns=columns)
    >>> group_time_series(wide, counts=True)  # doctest: +NORMALIZE_WHITESPACE
    field    evRevenueLtm  n_evRevenueLtm
    month
    2024-01           2.0               3
    2024-03           5.0               2
    """
    check_frame("wide", wide)
    if not isinstance(wide.columns, pd.MultiIndex) or wide.columns.nlevels != 2:
        raise ValidationError(
            "wide",
            "columns as a two-level MultiIndex (field, sku)",
            got=type(wide.columns).__name__,
        )
    values = _wide_values(wide)
    _warn_repeated(
        wide.columns, "(field, sku) columns of wide", "wide.loc[:, ~wide.columns.duplicated()]"
    )
    # the fields numbered in order of appearance (integer work on the MultiIndex's codes)
    codes, first_seen = pd.factorize(np.asarray(wide.columns.codes[0]))
    names = [str(f) for f in wide.columns.levels[0][first_seen]]
    cube, _ = _padded(_finite(values, codes, names), codes, len(names))
    medians, present = _padded_medians(cube)  # (month, field)
    keep = present.sum(axis=1) > 0
    data: dict[str, Any] = {name: medians[keep, i] for i, name in enumerate(names)}
    if counts:
        data.update({f"n_{f}": pd.array(present[keep, i], "Int64") for i, f in enumerate(names)})
    out = pd.DataFrame(data, index=wide.index[keep])
    out.columns = pd.Index(out.columns, dtype="str", name="field")  # as the service's frame
    # a SKU the service did not return (a column of the client's frame all the same, listed
    # in its attrs) is no company of the group
    missing = set(map(str, wide.attrs.get("missing_skus") or ()))
    skus = {str(s) for s in wide.columns.get_level_values(1)}
    out.attrs = {"companies": len(skus - missing), "count": int(keep.sum())}
    return out
