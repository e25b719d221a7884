"""Family A group rollups (``groups/current``, ``groups/time-series``) for any group of SKUs.

The service aggregates a group defined by a search body; these functions aggregate any frame
of companies the user assembled, with the service's rules (``docs/sandbox.md``, "Family A"):

- current data: ``sum`` for marketCap and enterpriseValue, ``sum`` and ``median`` for
  revenueLtm, revenueNtm, ebitdaLtm and ebitdaNtm, ``median`` for every other numeric field
  (the ``*Lcu`` variants, whose medians mix currencies, and ``rateToUsd`` included); nulls are
  skipped; a field without any value gives NaN.
- time series: the median across the group's companies of every field, month by month, nulls
  skipped; months without any value in any field are left out.

Medians are ordinary medians (mean of the two middle values for an even count), by
:func:`numpy.nanmedian` over a NaN-padded 3-D array (field or month, group or field, company):
no Python loop over fields, groups or months.
"""

from __future__ import annotations

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

__all__ = [
    "current_fields",
    "group_current",
    "group_time_series",
]


@checked_keywords
def current_fields(current: pd.DataFrame) -> list[str]:
    """The numeric fields of a current-data frame that a group rollup aggregates.

    Every numeric (not boolean) column (numpy, nullable or Arrow integers, floating point or
    decimals, dictionary-encoded too), as the service aggregates every numeric field
    (``*Lcu`` variants and ``rateToUsd`` get a median only), in the row order of
    ``client.public.group_current`` (:data:`~dealframe.frames.public.GROUP_ROWS`: the
    document's order, whatever order the service lists them in); other numeric columns come
    last, in frame order.

    Raises
    ------
    dealframe.errors.ValidationError
        ``current`` is not a DataFrame, repeats a column, or has no numeric current-data
        field (a deals frame, a long time-series frame, text only).

    Parameters
    ----------
    current : DataFrame
        ``client.public.current(...)`` or a frame with its columns.

    Returns
    -------
    list of str

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
    numeric = [
        name for name in current.columns if isinstance(name, str) and numeric_column(current[name])
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


def _padded_medians(cube: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`numpy.nanmedian` along the last axis of a NaN-padded array, and the value counts.

    Rows without any value get NaN (filled with zeros first, so numpy has no all-NaN slice to
    warn about).
    """
    present = np.count_nonzero(~np.isnan(cube), axis=-1)
    if cube.shape[-1] == 0:
        return np.full(present.shape, np.nan), present
    medians = np.nanmedian(np.where((present == 0)[..., None], 0.0, cube), axis=-1)
    return np.where(present > 0, medians, np.nan), present


def _label_column(labels: pd.Series) -> pd.Series:
    """Group labels as the client's frames hold them: Arrow columns as
    :func:`~dealframe.analytics._checks.plain_column` reads them (text as ``str``,
    dictionary-encoded text as ``category``); any other text dtype, and objects that are all
    text, as ``str``."""
    labels = plain_column(labels)
    text = isinstance(labels.dtype, pd.StringDtype) or (
        pd.api.types.is_object_dtype(labels.dtype)
        and pd.api.types.infer_dtype(labels, skipna=True) == "string"
    )
    return labels.astype("str") if text else labels


def _group_codes(current: pd.DataFrame, by: Any) -> tuple[np.ndarray, pd.Index, str]:
    expected = "a column name, a Series aligned on the index, or one hashable label per row"
    try:
        if isinstance(by, pd.Series):
            labels = by if by.index.equals(current.index) else by.reindex(current.index)
            name = str(by.name) if by.name is not None else "group"
        elif isinstance(by, Hashable) and by in current.columns:
            labels, name = current[by], str(by)
        elif isinstance(by, (list, tuple, np.ndarray, pd.Index)) and len(by) == len(current):
            labels, name = pd.Series(list(by), index=current.index, dtype=object), "group"
        else:
            raise ValidationError("by", expected, got=by)
        check(isinstance(labels, pd.Series), "by", expected, by)
        labels = _label_column(labels)
        codes, uniques = pd.factorize(labels, sort=True, use_na_sentinel=True)
        check(
            len(current) == 0 or bool((np.asarray(codes) >= 0).any()),
            "by",
            f"{expected}, giving at least one row a group (a Series is aligned on the "
            "frame's index)",
            by,
        )
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError("by", expected, got=by) from exc
    return np.asarray(codes), pd.Index(uniques, name=name), name


@checked_keywords
def group_current(
    current: pd.DataFrame,
    by: Hashable | pd.Series | Sequence[Hashable] | np.ndarray | pd.Index | None = None,
) -> pd.DataFrame:
    """Sum and median of current data across a group of companies, like ``groups/current``.

    Parameters
    ----------
    current : DataFrame
        One row per company (index ``sku``), camelCase columns as the client's current-data
        frame. Text, boolean and list columns are ignored; ``*Lcu`` columns and
        ``rateToUsd`` get a median only (an ``*Lcu`` median mixes currencies).
    by : str, Series or array-like, optional
        Group labels (a column name such as ``"region"``, a Series aligned on the index, or one
        label per row) to roll up many groups at once. Rows with a null label are left out.
        Text labels (Arrow text included) give a ``str`` group level, dictionary-encoded and
        categorical ones a categorical level.

    Returns
    -------
    DataFrame
        Index ``field`` (or ``(group, field)`` with ``by``) in the row order of
        ``client.public.group_current`` (:func:`current_fields`), columns ``sum`` and ``median``
        (float64): ``sum`` only for marketCap and enterpriseValue, both for revenueLtm,
        revenueNtm, ebitdaLtm and ebitdaNtm, ``median`` only for the other numeric fields
        (``*Lcu`` and ``rateToUsd`` included);
        NaN where a field has no value. ``attrs["companies"]`` is the number of companies
        (a dict of group to count with ``by``).

    Raises
    ------
    dealframe.errors.ValidationError
        If ``current`` is not a current-data frame (no numeric current-data field: a deals
        frame, a time-series frame, text only) or ``by`` cannot be read.

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
    values = _float_matrix(current, fields)
    if by is None:
        # One group: the (field, company) matrix is already the padded layout.
        groups: pd.Index | None = None
        n_groups = 1
        sizes = np.array([len(current)])
        cube = values[:, None, :]
    else:
        codes, groups, _ = _group_codes(current, by)
        n_groups = len(groups)
        cube, sizes = _padded_by_group(values, codes, n_groups)
    sums = np.nansum(cube, axis=-1)
    medians, counts = _padded_medians(cube)  # (field, group)
    sums = np.where(counts > 0, sums, np.nan).T
    medians = medians.T
    kind = np.array(
        [0 if f in GROUP_SUM_ONLY else 1 if f in GROUP_SUM_AND_MEDIAN else 2 for f in fields]
    )
    sums[:, kind == 2] = np.nan
    medians[:, kind == 0] = np.nan

    if groups is None:
        out = pd.DataFrame(
            {"sum": sums[0], "median": medians[0]}, index=pd.Index(fields, name="field")
        )
        out.attrs = {"companies": len(current)}
        return out
    index = pd.MultiIndex(
        levels=[groups, pd.Index(fields, name="field")],
        codes=[
            np.repeat(np.arange(n_groups), len(fields)),
            np.tile(np.arange(len(fields)), n_groups),
        ],
        names=[groups.name, "field"],
        verify_integrity=False,
    )
    out = pd.DataFrame({"sum": sums.ravel(), "median": medians.ravel()}, index=index)
    out.attrs = {
        "companies": {g: int(s) for g, s in zip(groups.tolist(), sizes.tolist(), strict=True)}
    }
    return out


def _float_matrix(frame: pd.DataFrame, fields: list[str]) -> np.ndarray:
    """(fields, rows) float64 array, nulls and infinities as NaN.

    Columns are copied one at a time straight into the result: the fastest way out of a frame
    that mixes float64 and extension dtypes (``Int64``); no computation happens per field.
    """
    out = np.empty((len(fields), len(frame)), dtype=np.float64)
    for row, field in enumerate(fields):
        column = frame[field]
        if column.dtype == np.float64:
            out[row] = column.to_numpy()
        else:  # Int64, Arrow numbers (decimals, dictionaries too), objects of numbers
            out[row] = metric_values(column)
    out[np.isinf(out)] = np.nan
    return out


def _padded_by_group(
    values: np.ndarray, codes: np.ndarray, n_groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """Lay (field, row) values out as (field, group, company slot), NaN padded.

    Rows with code -1 (no group) are dropped. Returns the cube and the group sizes.
    """
    used = np.flatnonzero(codes >= 0)
    if not used.size or not n_groups:
        return np.full((values.shape[0], n_groups, 0), np.nan), np.zeros(n_groups, dtype=np.int64)
    codes_used = codes[used]
    order = np.argsort(codes_used, kind="stable")
    sizes = np.bincount(codes_used, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    slot = np.arange(len(codes_used)) - np.repeat(starts, sizes)
    width = int(sizes.max()) if sizes.size else 0
    cube = np.full((values.shape[0], n_groups * width), np.nan)
    cube[:, codes_used[order] * width + slot] = values[:, used[order]]
    return cube.reshape(values.shape[0], n_groups, width), sizes


@checked_keywords
def group_time_series(wide: pd.DataFrame, *, counts: bool = False) -> pd.DataFrame:
    """Monthly medians per field across a group's companies, like ``groups/time-series``.

    Parameters
    ----------
    wide : DataFrame
        Index: months (a monthly ``PeriodIndex`` named ``month``); columns: a two-level
        MultiIndex ``(field, sku)``, as the client's wide time-series frame. The group is the
        set of SKUs in the columns.
    counts : bool, default False
        Add a column ``n_<field>`` (Int64) per field: the companies with a value that month.

    Returns
    -------
    DataFrame
        One row per month that has at least one value in some field (the service returns only
        those), one float64 column per field (NaN for a field without value that month), in
        the order fields first appear. ``attrs``: ``companies`` (SKUs in the group) and
        ``count`` (months returned), as the service's meta.

    Raises
    ------
    dealframe.errors.ValidationError
        If ``wide`` is not a DataFrame with two-level ``(field, sku)`` columns, or holds
        non-numeric values.

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
    try:
        values = wide.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise ValidationError("wide", "numeric values", got="non-numeric columns") from exc
    values = np.where(np.isinf(values), np.nan, values)

    # Integer work only: the MultiIndex's own codes, renumbered in order of appearance.
    field_codes, first_seen = pd.factorize(np.asarray(wide.columns.codes[0]))
    fields = wide.columns.levels[0][first_seen]
    companies = len(np.unique(np.asarray(wide.columns.codes[1])))
    n_fields = len(fields)
    sizes = np.bincount(field_codes, minlength=n_fields)
    if n_fields and (np.diff(field_codes) >= 0).all() and (sizes == sizes[0]).all():
        # the usual layout (from_product): each field's SKUs side by side, same count
        cube = values.reshape(len(wide), n_fields, int(sizes[0]))
    else:
        order = np.argsort(field_codes, kind="stable")
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        slot = np.arange(len(field_codes)) - np.repeat(starts, sizes)
        width = int(sizes.max()) if n_fields else 0
        cube = np.full((len(wide), n_fields * width), np.nan)
        cube[:, field_codes[order] * width + slot] = values[:, order]
        cube = cube.reshape(len(wide), n_fields, width)
    medians, present = _padded_medians(cube)

    keep = present.sum(axis=1) > 0 if n_fields else np.zeros(len(wide), dtype=bool)
    names = [str(f) for f in fields]
    data: dict[str, Any] = {name: medians[keep, i] for i, name in enumerate(names)}
    if counts:
        for i, name in enumerate(names):
            data[f"n_{name}"] = pd.array(present[keep, i], dtype="Int64")
    out = pd.DataFrame(data, index=wide.index[keep])
    out.columns = pd.Index(out.columns, dtype="str", name="field")  # as the service's frame
    out.attrs = {"companies": int(companies), "count": int(keep.sum())}
    return out
