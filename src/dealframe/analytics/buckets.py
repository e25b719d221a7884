"""IQR-trimmed bucket medians of deal metrics, computed locally.

A pure, vectorised reimplementation of ``POST /api/private/v1/transactions/aggregate``
(interface document section 4.3) following the conventions of ``docs/sandbox.md``, with every
open convention a parameter (:class:`~dealframe.analytics.conventions.Conventions`).

How it works: the deals of the window are grouped by an integer bucket code with one stable
radix sort, and every quantile of every bucket is then read from the grouped array at once by
index arithmetic (:func:`segment_quantiles`), with the same virtual-index and interpolation
formulas as :func:`numpy.quantile`, so the results equal ``numpy.percentile`` bucket by
bucket. Only the order statistics at the ranks read must be in place, so each bucket's slice
is partitioned around them (a selection), not sorted; ``explain=True``, which shows every
value's place, sorts the slices instead.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dealframe._vocab import METRIC_COLUMNS, TIME_BUCKETS
from dealframe.analytics.conventions import (
    CONTINUOUS_QUANTILE_METHODS,
    DEFAULT_CONVENTIONS,
    QUANTILE_METHODS,
    Conventions,
)
from dealframe.errors import ValidationError

__all__ = [
    "BUCKET_COLUMNS",
    "EXPLAIN_COLUMNS",
    "bucket_labels",
    "bucket_medians",
    "resolve_window",
    "segment_quantiles",
    "service_methodology",
]

#: Columns of the frame returned by :func:`bucket_medians`.
BUCKET_COLUMNS: tuple[str, ...] = (
    "bucket",
    "period_start",
    "period_end",
    "n",
    "median",
    "q1",
    "q3",
    "warning",
)

#: Columns of the frame returned by ``bucket_medians(..., explain=True)`` (``id`` only when
#: the deals have an ``id`` column).
EXPLAIN_COLUMNS: tuple[str, ...] = (
    "id",
    "date",
    "value",
    "bucket",
    "lower",
    "upper",
    "kept",
    "suppressed",
)

_ALPHA_BETA: dict[str, tuple[float, float]] = {
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
    "interpolated_inverted_cdf": (0.0, 1.0),
}
_DATE_UNIT = "datetime64[us]"
_EPOCH_YEAR = 1970


# --------------------------------------------------------------------------------------------
# quantiles over sorted segments
# --------------------------------------------------------------------------------------------


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """numpy's quantile interpolation, bit for bit (it switches form at t >= 0.5)."""
    diff = b - a
    out = a + diff * t
    np.subtract(b, diff * (1 - t), out=out, where=t >= 0.5)
    return out


def _discrete_index(nf: np.ndarray, q: float, method: str) -> np.ndarray:
    """0-based order statistic chosen by a discrete numpy method."""
    if method == "lower":
        return np.floor((nf - 1) * q)
    if method == "higher":
        return np.ceil((nf - 1) * q)
    if method == "nearest":
        return np.around((nf - 1) * q)
    if method == "inverted_cdf":
        index = nf * q - 1
        previous = np.floor(index)
        pick_previous = (index - previous) == 0
    else:  # closest_observation
        index = nf * q - 1 - 0.5
        previous = np.floor(index)
        pick_previous = ((index - previous) == 0) & (previous % 2 == 1)
    chosen = np.where(pick_previous, previous, previous + 1)
    return np.maximum(chosen, 0)


def segment_quantiles(
    values: np.ndarray,
    starts: np.ndarray,
    counts: np.ndarray,
    q: float,
    method: str = "linear",
) -> np.ndarray:
    """Quantile ``q`` of every segment of an array sorted within segments.

    Segment ``i`` is ``values[starts[i] : starts[i] + counts[i]]`` and must be sorted
    ascending. No loop over segments: one virtual index per segment, two gathers and one
    interpolation, with :func:`numpy.quantile`'s formulas, so each result equals
    ``np.quantile(segment, q, method=method)``.

    Parameters
    ----------
    values : ndarray of float64
        Values, sorted ascending within each segment.
    starts, counts : ndarray of int
        Start offset and length of each segment.
    q : float
        Quantile in [0, 1].
    method : str
        A numpy quantile method (see ``QUANTILE_METHODS``).

    Returns
    -------
    ndarray of float64
        One value per segment; NaN for empty segments.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.array([1.0, 2.0, 3.0, 4.0, 10.0, 20.0])
    >>> segment_quantiles(values, np.array([0, 4, 6]), np.array([4, 2, 0]), 0.5)
    array([ 2.5, 15. ,  nan])
    """
    if method not in QUANTILE_METHODS:
        raise ValidationError("method", "one of " + ", ".join(QUANTILE_METHODS), got=method)
    counts = np.asarray(counts, dtype=np.int64)
    starts = np.asarray(starts, dtype=np.int64)
    out = np.full(counts.shape, np.nan)
    filled = counts > 0
    if not filled.any():
        return out
    base = starts[filled]
    lo, hi, gamma = _order_statistics(counts[filled], q, method)
    if gamma is None:
        out[filled] = values[base + lo]
    else:
        out[filled] = _lerp(values[base + lo], values[base + hi], gamma)
    return out


def _order_statistics(
    n: np.ndarray, q: float, method: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Ranks ``(lo, hi)`` and weight ``gamma`` of quantile ``q`` of segments of ``n`` values.

    The quantile of a segment is ``_lerp(sorted[lo], sorted[hi], gamma)``, or ``sorted[lo]``
    when ``gamma`` is None (discrete methods); :func:`numpy.quantile`'s formulas.

    Parameters
    ----------
    n : ndarray of int64
        Segment lengths, all > 0.
    q : float
        Quantile in [0, 1].
    method : str
        A numpy quantile method.

    Returns
    -------
    lo, hi : ndarray of int64
        0-based ranks within each segment.
    gamma : ndarray of float64 or None
        Interpolation weight, None for discrete methods.
    """
    nf = n.astype(np.float64)
    last = n - 1
    if method in CONTINUOUS_QUANTILE_METHODS or method in ("midpoint", "averaged_inverted_cdf"):
        if method == "linear":
            virtual = (nf - 1) * q
        elif method == "midpoint":
            virtual = 0.5 * (np.floor((nf - 1) * q) + np.ceil((nf - 1) * q))
        elif method == "averaged_inverted_cdf":
            virtual = nf * q - 1
        else:
            alpha, beta = _ALPHA_BETA[method]
            virtual = nf * q + (alpha + q * (1 - alpha - beta)) - 1
        previous = np.floor(virtual)
        above = virtual >= nf - 1
        below = virtual < 0
        lo = np.where(above, last, np.where(below, 0, previous)).astype(np.int64)
        hi = np.where(above, last, np.where(below, 0, previous + 1)).astype(np.int64)
        gamma = virtual - previous
        if method == "midpoint":
            gamma = np.where(virtual % 1 == 0, 0.0, 0.5)
        elif method == "averaged_inverted_cdf":
            gamma = np.where(gamma == 0, 0.5, 1.0)
        return lo, hi, gamma
    index = np.minimum(_discrete_index(nf, q, method), nf - 1).astype(np.int64)
    return index, index, None


# --------------------------------------------------------------------------------------------
# window and bucket codes
# --------------------------------------------------------------------------------------------


def _as_date(value: Any, argument: str) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, (str, np.datetime64)):
        try:
            stamp = pd.Timestamp(value)
        except (TypeError, ValueError) as exc:
            raise ValidationError(argument, "a date (YYYY-MM-DD)", got=value) from exc
        if not pd.isna(stamp):
            return stamp.date()
    raise ValidationError(argument, "a date (YYYY-MM-DD, datetime.date or Timestamp)", got=value)


def _minus_years(day: dt.date, years: int) -> dt.date:
    """``day`` minus calendar years; February 29 maps to February 28 in a common year."""
    target = day.year - years
    try:
        return day.replace(year=target)
    except ValueError:  # February 29 in a year that has none
        return day.replace(year=target, day=28)


def _period_start(day: dt.date, time_bucket: str) -> dt.date:
    if time_bucket == "month":
        return day.replace(day=1)
    if time_bucket == "quarter":
        return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
    if time_bucket == "year":
        return day.replace(month=1, day=1)
    return day


def resolve_window(
    date_from: Any = None,
    date_to: Any = None,
    *,
    as_of: Any = None,
    time_bucket: str = "quarter",
    conventions: Conventions | None = None,
) -> tuple[dt.date, dt.date]:
    """The inclusive window ``(date_from, date_to)`` the aggregate uses.

    ``date_to`` defaults to ``as_of`` (the service's date); ``date_from`` defaults to
    ``date_to`` minus ``conventions.window_years`` calendar years (February 29 maps to
    February 28), or the start of that date's period when ``window_anchor="period_start"``.

    Parameters
    ----------
    date_from, date_to : date-like, optional
        Explicit ends of the window (inclusive).
    as_of : date-like, optional
        The service's current date; required when ``date_to`` is not given.
    time_bucket : str
        Bucket size, used by the ``period_start`` anchor.
    conventions : Conventions, optional
        Window conventions (default: the sandbox's).

    Returns
    -------
    tuple of datetime.date

    Examples
    --------
    >>> resolve_window(as_of="2024-02-29")
    (datetime.date(2019, 2, 28), datetime.date(2024, 2, 29))
    """
    conv = DEFAULT_CONVENTIONS if conventions is None else conventions
    if date_to is None:
        if as_of is None:
            raise ValidationError(
                "as_of",
                "the service's current date (as_of=...) or an explicit date_to; with a client, "
                "pass the date_range the service reports",
                got=None,
            )
        end = _as_date(as_of, "as_of")
    else:
        end = _as_date(date_to, "date_to")
    if date_from is None:
        start = _minus_years(end, conv.window_years)
        if conv.window_anchor == "period_start":
            start = _period_start(start, time_bucket)
    else:
        start = _as_date(date_from, "date_from")
    if start > end:
        raise ValidationError(
            "date_from", f"a date on or before date_to ({end.isoformat()})", got=start.isoformat()
        )
    return start, end


def _month_codes(days: np.ndarray) -> np.ndarray:
    """Months since 1970-01 of datetime64 values."""
    return days.astype("datetime64[M]").astype(np.int64)


def _codes(months: np.ndarray | int, time_bucket: str) -> Any:
    if time_bucket == "month":
        return months
    if time_bucket == "quarter":
        return months // 3
    if time_bucket == "year":
        return months // 12
    return months * 0


def bucket_labels(codes: np.ndarray, time_bucket: str) -> list[str]:
    """Labels (``YYYY-MM``, ``YYYY-Qn``, ``YYYY``, ``all``) of bucket codes.

    Codes count months, quarters or years since January 1970.

    Examples
    --------
    >>> import numpy as np
    >>> bucket_labels(np.array([218, 219]), "quarter")
    ['2024-Q3', '2024-Q4']
    """
    codes = np.asarray(codes, dtype=np.int64)
    if time_bucket == "month":
        return [f"{_EPOCH_YEAR + c // 12:04d}-{c % 12 + 1:02d}" for c in codes.tolist()]
    if time_bucket == "quarter":
        return [f"{_EPOCH_YEAR + c // 4:04d}-Q{c % 4 + 1}" for c in codes.tolist()]
    if time_bucket == "year":
        return [f"{_EPOCH_YEAR + c:04d}" for c in codes.tolist()]
    return ["all"] * len(codes)


def _period_bounds(
    codes: np.ndarray, time_bucket: str, window: tuple[dt.date, dt.date]
) -> tuple[np.ndarray, np.ndarray]:
    if time_bucket == "none":
        start = np.array([np.datetime64(window[0], "D")] * len(codes))
        end = np.array([np.datetime64(window[1], "D")] * len(codes))
        return start.astype(_DATE_UNIT), end.astype(_DATE_UNIT)
    months = {"month": 1, "quarter": 3, "year": 12}[time_bucket]
    first = (codes * months).astype("datetime64[M]")
    following = ((codes + 1) * months).astype("datetime64[M]")
    start = first.astype("datetime64[D]")
    end = following.astype("datetime64[D]") - np.timedelta64(1, "D")
    return start.astype(_DATE_UNIT), end.astype(_DATE_UNIT)


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------


def _metric_values(deals: pd.DataFrame, column: str) -> np.ndarray:
    series = deals[column]
    if pd.api.types.is_bool_dtype(series.dtype):
        raise ValidationError(column, "numeric metric values", got=str(series.dtype))
    if pd.api.types.is_numeric_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    if series.dtype == object:
        kind = pd.api.types.infer_dtype(series, skipna=True)
        if kind in ("floating", "integer", "mixed-integer-float", "decimal", "empty"):
            return pd.to_numeric(series).to_numpy(dtype=np.float64, na_value=np.nan)
        raise ValidationError(column, "numeric metric values", got=f"values of kind {kind!r}")
    raise ValidationError(column, "numeric metric values", got=str(series.dtype))


def _date_values(deals: pd.DataFrame, column: str) -> np.ndarray:
    series = deals[column]
    if not pd.api.types.is_datetime64_any_dtype(series.dtype):
        try:
            series = pd.to_datetime(series)
        except (TypeError, ValueError) as exc:
            raise ValidationError(
                column, "dates (datetime64 or YYYY-MM-DD)", got=str(series.dtype)
            ) from exc
    if getattr(series.dt, "tz", None) is not None:
        series = series.dt.tz_localize(None)
    return series.to_numpy().astype("datetime64[D]")


def _check_arguments(
    deals: Any,
    metric: str,
    time_bucket: str,
    small_n_threshold: Any,
    conventions: Any,
    date_column: str,
    value_column: str | None,
) -> str:
    if not isinstance(deals, pd.DataFrame):
        raise ValidationError("deals", "a pandas DataFrame", got=type(deals).__name__)
    if value_column is None and metric not in METRIC_COLUMNS:
        raise ValidationError("metric", "one of " + ", ".join(METRIC_COLUMNS), got=metric)
    if value_column is not None and not isinstance(metric, str):
        raise ValidationError("metric", "a metric name (str)", got=metric)
    if time_bucket not in TIME_BUCKETS:
        raise ValidationError("time_bucket", "one of " + ", ".join(TIME_BUCKETS), got=time_bucket)
    if (
        isinstance(small_n_threshold, bool)
        or not isinstance(small_n_threshold, (int, np.integer))
        or small_n_threshold < 0
    ):
        raise ValidationError("small_n_threshold", "an integer >= 0", got=small_n_threshold)
    if not isinstance(conventions, Conventions):
        raise ValidationError("conventions", "a Conventions instance or None", got=conventions)
    column = METRIC_COLUMNS[metric] if value_column is None else value_column
    missing = [c for c in (date_column, column) if c not in deals.columns]
    if missing:
        raise ValidationError(
            "deals",
            "columns " + ", ".join(repr(c) for c in (date_column, column)),
            got=f"no column(s) {missing}",
        )
    return column


# --------------------------------------------------------------------------------------------
# the aggregate
# --------------------------------------------------------------------------------------------


def _bucket_of_rows(
    days: np.ndarray, usable: np.ndarray, window: tuple[dt.date, dt.date], time_bucket: str
) -> tuple[np.ndarray, np.ndarray]:
    """Bucket number (0-based) of every row, ``n_buckets`` for rows not used; and the codes.

    A lookup table over the window's days replaces per-row calendar arithmetic.
    """
    first = np.datetime64(window[0], "D")
    last = np.datetime64(window[1], "D")
    span = int((last - first).astype(np.int64))
    table_days = np.arange(first, last + np.timedelta64(1, "D"))
    day_codes = _codes(_month_codes(table_days), time_bucket)
    code_first = int(day_codes[0])
    n_buckets = int(day_codes[-1]) - code_first + 1
    dtype = np.int16 if n_buckets < np.iinfo(np.int16).max else np.int64
    table = np.full(span + 3, n_buckets, dtype=dtype)
    table[1:-1] = day_codes - code_first
    offset = days.view(np.int64) - first.astype(np.int64)  # NaT lands far outside
    np.clip(offset, -1, span + 1, out=offset)
    offset += 1
    rows = table[offset]
    rows[~usable] = n_buckets
    codes = np.arange(code_first, code_first + n_buckets, dtype=np.int64)
    return rows, codes


def _starts_of(counts: np.ndarray) -> np.ndarray:
    """Start offset of every segment of consecutive segments of ``counts`` values."""
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts


def _group(
    bucket: np.ndarray, values: np.ndarray, n_buckets: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Values grouped by bucket, unsorted within buckets: (grouped, counts, starts, positions).

    One stable radix sort on the small-integer bucket numbers; unused rows, numbered
    ``n_buckets``, sort last and are cut off. ``positions`` gives the row of every value.
    """
    counts = np.bincount(bucket, minlength=n_buckets + 1)[:n_buckets].astype(np.int64)
    starts = _starts_of(counts)
    total = int(counts.sum())
    positions = np.argsort(bucket, kind="stable")[:total]
    return values[positions], counts, starts, positions


def _group_sorted(
    bucket: np.ndarray, values: np.ndarray, n_buckets: int, need_positions: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Values grouped by bucket and sorted within buckets: (sorted, counts, starts, positions).

    One stable radix sort on the small-integer bucket numbers groups the rows (unused rows,
    numbered ``n_buckets``, sort last and are cut off); each bucket's slice is then sorted in
    place; with ``need_positions`` the slices are arg-sorted instead, so that ``positions``
    gives the row of every sorted value (otherwise ``positions`` is meaningless).
    """
    grouped, counts, starts, positions = _group(bucket, values, n_buckets)
    for b in np.flatnonzero(counts > 1).tolist():
        segment = slice(starts[b], starts[b] + counts[b])
        if need_positions:
            within = np.argsort(grouped[segment], kind="stable")
            grouped[segment] = grouped[segment][within]
            positions[segment] = positions[segment][within]
        else:
            grouped[segment].sort()
    return grouped, counts, starts, positions


def _segment_search(
    values: np.ndarray, starts: np.ndarray, counts: np.ndarray, targets: np.ndarray, side: str
) -> np.ndarray:
    """``np.searchsorted`` in every sorted segment at once (vectorised binary search).

    Returns offsets within each segment.
    """
    lo = starts.copy()
    hi = starts + counts
    if len(values) == 0:
        return lo - starts
    active = lo < hi
    while active.any():
        mid = (lo + hi) // 2
        probe = values[np.minimum(mid, len(values) - 1)]
        right = probe < targets if side == "left" else probe <= targets
        lo = np.where(active & right, mid + 1, lo)
        hi = np.where(active & ~right, mid, hi)
        active = lo < hi
    return lo - starts


def _trimmed(counts: np.ndarray, threshold: int, conv: Conventions) -> np.ndarray:
    """Whether each bucket is trimmed (with ``n_counted="before"``, not when suppressed)."""
    if conv.n_counted == "before":
        return counts >= max(threshold, 1)
    return counts > 0


def _bounds(
    q1: np.ndarray, q3: np.ndarray, trimmed: np.ndarray, conv: Conventions
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Trimming bounds of every bucket: ``(lower, upper, search_lower, search_upper)``.

    ``lower`` and ``upper`` are NaN for a bucket that is not trimmed; the search bounds are
    then infinite so that every value is kept.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # values near ±1e308: bounds go ±inf
        iqr = q3 - q1
        lower = np.where(trimmed, q1 - conv.iqr_multiplier * iqr, np.nan)
        upper = np.where(trimmed, q3 + conv.iqr_multiplier * iqr, np.nan)
    search_lower = np.where(trimmed, lower, -np.inf)
    search_upper = np.where(trimmed, upper, np.inf)
    return lower, upper, search_lower, search_upper


def _window_quartiles(
    values: np.ndarray, n_buckets: int, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """q1 and q3 of all the window's ``values`` (any order), repeated for every bucket."""
    if not len(values):
        return np.full(n_buckets, np.nan), np.full(n_buckets, np.nan)
    whole_q1, whole_q3 = np.quantile(values, [0.25, 0.75], method=method)
    return np.full(n_buckets, whole_q1), np.full(n_buckets, whole_q3)


def _partition_at(segment: np.ndarray, ranks: set[int], fixed: list[int]) -> None:
    """Partition ``segment`` in place so that every rank in ``ranks`` holds its order statistic.

    The sorted positions ``fixed`` already hold theirs (from an earlier partition), so only
    the stretches between them that contain a wanted rank are partitioned.
    """
    wanted = sorted(ranks.difference(fixed))
    edges = [-1, *fixed, len(segment)]
    for left, right in zip(edges[:-1], edges[1:], strict=True):
        local = [r - left - 1 for r in wanted if left < r < right]
        if local:
            segment[left + 1 : right].partition(local)


def _ranks_of(
    counts: np.ndarray, offsets: np.ndarray, qs: tuple[float, ...], method: str
) -> list[set[int]]:
    """Per segment, the ranks (plus ``offsets``) that :func:`segment_quantiles` reads.

    Parameters
    ----------
    counts : ndarray of int64
        Length of every segment (0: no rank).
    offsets : ndarray of int64
        Added to every rank of the segment (where the segment starts in its bucket's slice).
    qs : tuple of float
        Quantiles.
    method : str
        A numpy quantile method.

    Returns
    -------
    list of set of int
    """
    ranks: list[set[int]] = [set() for _ in range(len(counts))]
    filled = np.flatnonzero(counts > 0)
    if not len(filled):
        return ranks
    columns = []
    for q in qs:
        lo, hi, _ = _order_statistics(counts[filled], q, method)
        columns.extend((lo, hi))
    table = np.stack(columns, axis=1) + offsets[filled][:, None]
    for b, row in zip(filled.tolist(), table.tolist(), strict=True):
        ranks[b].update(row)
    return ranks


def _trim_selected(
    values: np.ndarray,
    counts: np.ndarray,
    starts: np.ndarray,
    threshold: int,
    conv: Conventions,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[list[int]]]:
    """:func:`_trim` on unsorted buckets, by selection instead of sorting.

    Each bucket's slice is partitioned in place around the ranks its q1 and q3 read, which
    then equal those of the sorted slice. ``begin`` and ``end`` are counts: on a sorted
    slice, the binary searches of :func:`_trim` return the number of values ``v < lo``
    (``v <= lo`` with exclusive bounds) and ``v <= hi`` (``v < hi``), NaN bounds included (no
    value compares true with NaN). The kept values of a bucket are thus the order statistics
    of ranks ``begin .. end - 1`` of its slice, whatever the order of the slice.

    Returns
    -------
    lower, upper, begin, end : ndarray
        As :func:`_trim`.
    fixed : list of list of int
        Per bucket, the (sorted) positions of its slice that hold their order statistic.
    """
    method = conv.quantile_method
    fixed: list[list[int]] = [[] for _ in range(len(counts))]
    if conv.trim_scope == "bucket":
        wanted = _ranks_of(counts, np.zeros(len(counts), dtype=np.int64), (0.25, 0.75), method)
        for b in np.flatnonzero(counts > 1).tolist():
            fixed[b] = sorted(wanted[b])
            start = int(starts[b])
            values[start : start + int(counts[b])].partition(fixed[b])
        q1 = segment_quantiles(values, starts, counts, 0.25, method)
        q3 = segment_quantiles(values, starts, counts, 0.75, method)
    else:
        q1, q3 = _window_quartiles(values, len(counts), method)
    trimmed = _trimmed(counts, threshold, conv)
    lower, upper, search_lower, search_upper = _bounds(q1, q3, trimmed, conv)
    begin = np.zeros(len(counts), dtype=np.int64)
    end = counts.copy()
    for b in np.flatnonzero(trimmed & (counts > 0)).tolist():
        segment = values[int(starts[b]) : int(starts[b] + counts[b])]
        low, high = search_lower[b], search_upper[b]
        if conv.inclusive_bounds:
            begin[b] = np.count_nonzero(segment < low)
            end[b] = np.count_nonzero(segment <= high)
        else:
            begin[b] = np.count_nonzero(segment <= low)
            end[b] = np.count_nonzero(segment < high)
    end = np.maximum(end, begin)
    return lower, upper, begin, end, fixed


def _trim(
    values: np.ndarray,
    counts: np.ndarray,
    starts: np.ndarray,
    threshold: int,
    conv: Conventions,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bounds of every bucket and the kept range ``[begin, end)`` of its sorted slice.

    Because each slice is sorted, the values inside the bounds are contiguous: two
    vectorised binary searches find them, with no per-value mask.
    """
    if conv.trim_scope == "bucket":
        q1 = segment_quantiles(values, starts, counts, 0.25, conv.quantile_method)
        q3 = segment_quantiles(values, starts, counts, 0.75, conv.quantile_method)
    else:
        q1, q3 = _window_quartiles(values, len(counts), conv.quantile_method)
    trimmed = _trimmed(counts, threshold, conv)
    lower, upper, search_lower, search_upper = _bounds(q1, q3, trimmed, conv)
    if conv.inclusive_bounds:
        begin = _segment_search(values, starts, counts, search_lower, "left")
        end = _segment_search(values, starts, counts, search_upper, "right")
    else:
        begin = _segment_search(values, starts, counts, search_lower, "right")
        end = _segment_search(values, starts, counts, search_upper, "left")
    untrimmed = ~trimmed
    begin[untrimmed] = 0
    end[untrimmed] = counts[untrimmed]
    end = np.maximum(end, begin)
    return lower, upper, begin, end


class _Aggregate(NamedTuple):
    """Per-bucket results of :func:`_aggregate` (and the grouped values behind them)."""

    counts: np.ndarray
    kept_counts: np.ndarray
    suppressed: np.ndarray
    stat_counts: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    q1: np.ndarray
    median: np.ndarray
    q3: np.ndarray
    grouped: np.ndarray
    starts: np.ndarray
    begin: np.ndarray
    end: np.ndarray
    positions: np.ndarray


def _aggregate(
    bucket: np.ndarray,
    values: np.ndarray,
    n_buckets: int,
    threshold: int,
    conv: Conventions,
    *,
    sort: bool,
) -> _Aggregate:
    """Counts, bounds and statistics of every bucket, by sorting or by selection.

    With ``sort`` each bucket's slice is arg-sorted, so that every value's position and
    kept flag can be shown (``explain=True``); ``begin``, ``end`` and ``positions`` then
    refer to the sorted slices. Without it, each slice is only partitioned around the ranks
    the quantiles read (:func:`_trim_selected`, :func:`_partition_at`), which is several
    times cheaper and gives the same counts, bounds and statistics; ``grouped`` is then
    not sorted and ``positions`` is not meaningful.

    Parameters
    ----------
    bucket : ndarray of int
        Every row's bucket, ``n_buckets`` for rows not used.
    values : ndarray of float64
        Every row's value (finite for used rows).
    n_buckets : int
        Number of buckets.
    threshold : int
        Small-n threshold.
    conv : Conventions
        The conventions.
    sort : bool
        Sort the slices (True) or select within them (False).

    Returns
    -------
    _Aggregate
    """
    method = conv.quantile_method
    if sort:
        grouped, counts, starts, positions = _group_sorted(bucket, values, n_buckets, True)
        lower, upper, begin, end = _trim(grouped, counts, starts, threshold, conv)
    else:
        grouped, counts, starts, positions = _group(bucket, values, n_buckets)
        lower, upper, begin, end, fixed = _trim_selected(grouped, counts, starts, threshold, conv)
    kept_counts = end - begin
    n = counts if conv.n_counted == "before" else kept_counts
    suppressed = (n > 0) & (n < threshold)
    if conv.stats_on == "kept":
        stat_offsets, stat_counts = begin, kept_counts
    else:
        stat_offsets, stat_counts = np.zeros_like(begin), counts
    reported = np.where(suppressed, 0, stat_counts)
    quartiles = (0.25, 0.5, 0.75)
    if not sort:
        wanted = _ranks_of(reported, stat_offsets, quartiles, method)
        for b in np.flatnonzero(reported > 0).tolist():
            segment = grouped[int(starts[b]) : int(starts[b] + counts[b])]
            _partition_at(segment, wanted[b], fixed[b])
    q1, median, q3 = (
        segment_quantiles(grouped, starts + stat_offsets, reported, q, method) for q in quartiles
    )
    return _Aggregate(
        counts, kept_counts, suppressed, stat_counts, lower, upper, q1, median, q3,
        grouped, starts, begin, end, positions,
    )


def service_methodology(client: Any) -> tuple[int, str]:
    """The service's runtime ``small_n_threshold`` and current date (``date_range.to``).

    One small aggregate request (``time_bucket="none"``); section 4.3 rule 9 makes the
    runtime value authoritative over the discovery listings.

    Examples
    --------
    >>> service_methodology(client)  # doctest: +SKIP
    (5, '2026-06-30')
    """
    answer = client.private.aggregate("ev_revenue", "none")
    methodology = answer.attrs.get("methodology") or {}
    window = methodology.get("date_range") or {}
    if "small_n_threshold" not in methodology or not window.get("to"):
        raise ValidationError("client", "a service whose aggregate meta reports "
                              "methodology.small_n_threshold and date_range", got=methodology)
    return int(methodology["small_n_threshold"]), str(window["to"])


def bucket_medians(
    deals: pd.DataFrame,
    metric: str,
    time_bucket: str = "quarter",
    date_from: Any = None,
    date_to: Any = None,
    *,
    as_of: Any = None,
    small_n_threshold: int | None = None,
    conventions: Conventions | None = None,
    explain: bool = False,
    date_column: str = "deal_date",
    value_column: str | None = None,
    include_deleted: bool = False,
    client: Any = None,
) -> pd.DataFrame:
    """IQR-trimmed median, q1 and q3 of a deal metric per calendar bucket.

    Reproduces ``POST /api/private/v1/transactions/aggregate`` locally on any frame of
    deals, with the sandbox's conventions by default (``docs/sandbox.md``):

    1. deals with a null or non-finite metric, without a date, outside the window, or
       soft-deleted (a ``deleted`` column, unless ``include_deleted``) are dropped;
    2. every calendar period intersecting the window is a bucket (``YYYY-MM``, ``YYYY-Qn``,
       ``YYYY`` or ``all``), empty ones included;
    3. ``n`` counts a bucket's values before trimming; a bucket with ``0 < n <
       small_n_threshold`` is returned with null statistics and warning ``"small_n"`` and is
       not trimmed; an empty bucket has ``n`` 0 and warning ``"empty"``;
    4. other buckets are trimmed to ``[q1 - 1.5*IQR, q3 + 1.5*IQR]`` (inclusive, type-7
       quantiles of the bucket), and median, q1 and q3 of the kept values are reported.

    Parameters
    ----------
    deals : DataFrame
        Deals as the client returns them (``deal_date`` and the metric columns of
        ``dealframe._vocab.METRIC_COLUMNS``), or any frame with a date column and a value
        column.
    metric : str
        ev_revenue, ev_ebitda, valuation, raised, revenue or ebitda. With ``value_column``
        any name (it only labels the result).
    time_bucket : str, default "quarter"
        month, quarter, year or none.
    date_from, date_to : date-like, optional
        Inclusive window. ``date_to`` defaults to ``as_of``; ``date_from`` to ``date_to``
        minus 5 calendar years (see :func:`resolve_window`).
    as_of : date-like, optional
        The service's current date; required when ``date_to`` is not given (a client
        passes the ``date_range`` the service reports).
    small_n_threshold : int, optional
        Buckets with fewer values are suppressed. Default: the service's runtime answer
        when ``client`` is given (rule 9 of section 4.3: the runtime value is
        authoritative), else 5.
    conventions : Conventions, optional
        The open conventions (default: the sandbox's).
    explain : bool, default False
        Return one row per deal used instead (see Returns), to audit any median by hand.
    date_column : str, default "deal_date"
        Column with the deal date.
    value_column : str, optional
        Column with the values, overriding the metric's column.
    include_deleted : bool, default False
        Keep rows whose ``deleted`` column is true.
    client : dealframe.Client, optional
        Asks the service (one small aggregate request) for its ``small_n_threshold`` and,
        when neither ``date_to`` nor ``as_of`` is given, its current date.

    Returns
    -------
    DataFrame
        One row per bucket, in chronological order: ``bucket`` (str), ``period_start``,
        ``period_end`` (datetime64, the calendar period, not clipped to the window), ``n``
        (Int64), ``median``, ``q1``, ``q3`` (float64, NaN when suppressed or empty) and
        ``warning`` (str: ``"small_n"``, ``"empty"``, ``"all_trimmed"`` or missing).
        ``attrs`` holds the service's meta: ``metric``, ``time_bucket``, ``total_deals``,
        ``outliers_trimmed``, ``methodology`` (``small_n_threshold``, ``outlier_rule``,
        ``default_date_range_years``, ``empty_buckets_returned``, ``date_range`` with ISO
        ``from`` and ``to``) and ``conventions`` (a dict; ``Conventions(**d)`` rebuilds it).

        With ``explain=True``: one row per deal in the window with a value, indexed like
        ``deals`` and ordered by bucket then value: ``id`` (when ``deals`` has one),
        ``date``, ``value``, ``bucket``, ``lower`` and ``upper`` (the bucket's trimming
        bounds; NaN when the bucket was not trimmed), ``kept`` (False for trimmed outliers)
        and ``suppressed`` (the bucket is small-n). Same ``attrs``.

    Raises
    ------
    dealframe.errors.ValidationError
        Unknown metric or bucket, missing columns, non-numeric values, a window that cannot
        be resolved or with ``date_from`` after ``date_to``, or ``deals`` not a DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> deals = pd.DataFrame({
    ...     "deal_date": pd.to_datetime(["2024-01-05"] * 6 + ["2024-04-01"]),
    ...     "ev_revenue": [1.0, 2.0, 3.0, 4.0, 5.0, 100.0, 7.0],
    ... })
    >>> out = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-06-30")
    >>> out[["bucket", "n", "median", "warning"]]
        bucket  n  median  warning
    0  2024-Q1  6     3.0      NaN
    1  2024-Q2  1     NaN  small_n
    >>> out.attrs["outliers_trimmed"]
    1
    """
    conv = DEFAULT_CONVENTIONS if conventions is None else conventions
    if client is not None and (small_n_threshold is None or (date_to is None and as_of is None)):
        service_threshold, service_today = service_methodology(client)
        small_n_threshold = service_threshold if small_n_threshold is None else small_n_threshold
        as_of = service_today if as_of is None else as_of
    if small_n_threshold is None:
        small_n_threshold = 5
    column = _check_arguments(
        deals, metric, time_bucket, small_n_threshold, conv, date_column, value_column
    )
    threshold = int(small_n_threshold)
    window = resolve_window(
        date_from, date_to, as_of=as_of, time_bucket=time_bucket, conventions=conv
    )

    values = _metric_values(deals, column)
    days = _date_values(deals, date_column)
    usable = np.isfinite(values)
    if "deleted" in deals.columns and not include_deleted:
        usable &= ~deals["deleted"].eq(True).to_numpy(dtype=bool, na_value=False)
    bucket, codes = _bucket_of_rows(days, usable, window, time_bucket)
    n_buckets = len(codes)
    # explain shows every value's rank in its bucket: sort; otherwise selecting is enough
    agg = _aggregate(bucket, values, n_buckets, threshold, conv, sort=explain)
    counts, kept_counts, suppressed = agg.counts, agg.kept_counts, agg.suppressed
    stat_counts, q1, median, q3 = agg.stat_counts, agg.q1, agg.median, agg.q3
    n = counts if conv.n_counted == "before" else kept_counts

    labels = bucket_labels(codes, time_bucket)
    warning = np.full(n_buckets, None, dtype=object)
    warning[(counts > 0) & ~suppressed & (stat_counts == 0)] = "all_trimmed"
    warning[suppressed] = "small_n"
    warning[counts == 0] = "empty"

    meta = {
        "metric": metric,
        "time_bucket": time_bucket,
        "total_deals": int(counts.sum()),
        "outliers_trimmed": int(counts.sum() - kept_counts.sum()),
        "methodology": {
            "small_n_threshold": threshold,
            "outlier_rule": conv.outlier_rule,
            "default_date_range_years": conv.window_years,
            "empty_buckets_returned": conv.empty == "return",
            "date_range": {"from": window[0].isoformat(), "to": window[1].isoformat()},
        },
        "conventions": conv.to_dict(),
    }

    if explain:
        within = np.arange(len(agg.grouped)) - np.repeat(agg.starts, counts)
        kept = (within >= np.repeat(agg.begin, counts)) & (within < np.repeat(agg.end, counts))
        return _explain_frame(
            deals, agg.positions, agg.grouped, counts, labels, agg.lower, agg.upper, kept,
            suppressed, days, meta,
        )

    period_start, period_end = _period_bounds(codes, time_bucket, window)
    out = pd.DataFrame(
        {
            "bucket": pd.array(labels, dtype="str"),
            "period_start": period_start,
            "period_end": period_end,
            "n": pd.array(n, dtype="Int64"),
            "median": median,
            "q1": q1,
            "q3": q3,
            "warning": pd.array(warning, dtype="str"),
        }
    )
    keep = np.ones(n_buckets, dtype=bool)
    if conv.suppressed == "drop":
        keep &= ~suppressed
    if conv.empty == "drop":
        keep &= counts > 0
    if not keep.all():
        out = out.loc[keep].reset_index(drop=True)
    out.attrs = meta
    return out


def _explain_frame(
    deals: pd.DataFrame,
    positions: np.ndarray,
    grouped: np.ndarray,
    counts: np.ndarray,
    labels: list[str],
    lower: np.ndarray,
    upper: np.ndarray,
    kept: np.ndarray,
    suppressed: np.ndarray,
    days: np.ndarray,
    meta: dict[str, Any],
) -> pd.DataFrame:
    bucket_of_row = np.repeat(np.arange(len(counts)), counts)
    columns: dict[str, Any] = {}
    if "id" in deals.columns:
        columns["id"] = deals["id"].to_numpy()[positions]
    columns["date"] = days[positions].astype(_DATE_UNIT)
    columns["value"] = grouped
    columns["bucket"] = pd.array(np.asarray(labels, dtype=object)[bucket_of_row], dtype="str")
    columns["lower"] = lower[bucket_of_row]
    columns["upper"] = upper[bucket_of_row]
    columns["kept"] = kept
    columns["suppressed"] = suppressed[bucket_of_row]
    out = pd.DataFrame(columns, index=deals.index[positions])
    out.attrs = meta
    return out
