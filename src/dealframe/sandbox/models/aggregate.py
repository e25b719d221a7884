"""The sandbox's transactions aggregate (interface section 4.3, docs/sandbox.md).

This is the reference implementation the client is validated against, so it is
written to be read: every rule of docs/sandbox.md ("Transactions aggregate")
appears once, in the order the document states it.

1. The window ``[date_from, date_to]`` (both inclusive) defaults to the five
   calendar years ending on the sandbox clock's date (:func:`resolve_window`).
2. Deals whose metric is null or not finite are dropped; so are deals outside
   the window.
3. Every calendar period that intersects the window is a bucket, in
   chronological order, labelled ``YYYY-MM``, ``YYYY-Qn`` or ``YYYY``; ``none`` is one
   bucket ``all``.
4. Per bucket, ``n`` is the number of deals with a value. ``n == 0`` gives
   ``warning: "empty"``; ``0 < n < small_n_threshold`` gives
   ``warning: "small_n"``; both with null statistics and no trimming.
5. Otherwise q1 and q3 are taken by linear interpolation (numpy's default,
   Hyndman-Fan type 7); values outside ``[q1 - 1.5 IQR, q3 + 1.5 IQR]``
   (bounds inclusive) are trimmed, and the reported ``median``, ``q1`` and
   ``q3`` are those of the kept values, with the same interpolation. A bucket
   whose values are all trimmed (values near the float limit, whose IQR
   arithmetic overflows) keeps its ``n``, has null statistics and
   ``warning: "all_trimmed"``, its ``n`` values counted as trimmed.

The values are sorted once by (bucket, value); each bucket is then a sorted
contiguous segment, so quantiles are read by position and the kept values of a
segment are again a contiguous slice found by binary search.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from ..vocab import AGGREGATE_METRICS, TIME_BUCKETS

__all__ = [
    "DEFAULT_DATE_RANGE_YEARS",
    "OUTLIER_RULE",
    "SMALL_N_THRESHOLD",
    "AggregateInputError",
    "compute_aggregate",
    "resolve_window",
]

#: Buckets with fewer deals than this are suppressed (docs/sandbox.md).
SMALL_N_THRESHOLD = 5
#: Length of the default window in calendar years.
DEFAULT_DATE_RANGE_YEARS = 5
#: Name of the trimming rule reported in the methodology.
OUTLIER_RULE = "iqr_1.5"
#: IQR multiplier of the trimming rule.
_IQR_FACTOR = 1.5

_EPOCH_YEAR = 1970  # datetime64 month and year codes count from 1970-01


class AggregateInputError(ValueError):
    """Bad input to the aggregate: the message starts with the field it names.

    Attributes
    ----------
    field : str
        The request field at fault, e.g. ``"filters.date_from"`` or ``"metric"``.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _years_before(day: dt.date, years: int) -> dt.date:
    """``day`` moved back ``years`` calendar years; February 29 maps to February 28."""
    if day.month == 2 and day.day == 29:
        return dt.date(day.year - years, 2, 28)
    return day.replace(year=day.year - years)


def resolve_window(
    date_from: dt.date | None, date_to: dt.date | None, as_of: dt.date
) -> tuple[dt.date, dt.date]:
    """The inclusive date window an aggregate request uses.

    Parameters
    ----------
    date_from, date_to : datetime.date or None
        The request's ``filters.date_from`` and ``filters.date_to``.
    as_of : datetime.date
        The sandbox clock's date.

    Returns
    -------
    tuple of datetime.date
        ``(date_from, date_to)``: ``date_to`` defaults to ``as_of``; ``date_from``
        defaults to ``date_to`` minus five calendar years (February 29 maps to
        February 28).

    Raises
    ------
    AggregateInputError
        If the resulting ``date_from`` is after ``date_to``.

    Examples
    --------
    >>> import datetime as dt
    >>> resolve_window(None, None, dt.date(2026, 6, 30))
    (datetime.date(2021, 6, 30), datetime.date(2026, 6, 30))
    >>> resolve_window(None, dt.date(2024, 2, 29), dt.date(2026, 6, 30))
    (datetime.date(2019, 2, 28), datetime.date(2024, 2, 29))
    """
    end = as_of if date_to is None else date_to
    start = _years_before(end, DEFAULT_DATE_RANGE_YEARS) if date_from is None else date_from
    if start > end:
        raise AggregateInputError(
            "filters.date_from",
            f"{start.isoformat()} is after filters.date_to {end.isoformat()}",
        )
    return start, end


def _period_code(days: np.ndarray, time_bucket: str) -> np.ndarray:
    """Integer period code of each date: months, quarters or years since 1970; 0 for none."""
    if time_bucket == "month":
        return days.astype("datetime64[M]").astype(np.int64)
    if time_bucket == "quarter":
        return days.astype("datetime64[M]").astype(np.int64) // 3
    if time_bucket == "year":
        return days.astype("datetime64[Y]").astype(np.int64)
    return np.zeros(days.shape, dtype=np.int64)


def _period_label(code: int, time_bucket: str) -> str:
    """Wire label of one period code (``YYYY-MM``, ``YYYY-Qn``, ``YYYY`` or ``all``)."""
    if time_bucket == "month":
        return f"{_EPOCH_YEAR + code // 12:04d}-{code % 12 + 1:02d}"
    if time_bucket == "quarter":
        return f"{_EPOCH_YEAR + code // 4:04d}-Q{code % 4 + 1}"
    if time_bucket == "year":
        return f"{_EPOCH_YEAR + code:04d}"
    return "all"


def _check_bucket(time_bucket: str) -> None:
    if time_bucket not in TIME_BUCKETS:
        raise AggregateInputError(
            "time_bucket", f"{time_bucket!r} is not one of {', '.join(TIME_BUCKETS)}"
        )


def _window_codes(start: dt.date, end: dt.date, time_bucket: str) -> tuple[int, int]:
    """Period codes of the first and last periods intersecting the window."""
    ends = np.array([start, end], dtype="datetime64[D]")
    first, last = _period_code(ends, time_bucket)
    return int(first), int(last)


def _lerp(a: float, b: float, t: float) -> float:
    """Linear interpolation between ``a`` and ``b``, in the form numpy uses.

    numpy evaluates from the nearer end (``b - (b - a)(1 - t)`` for ``t >= 0.5``);
    doing the same keeps these quantiles bit-identical to ``np.quantile``.
    """
    diff = b - a
    if t >= 0.5:
        return b - diff * (1.0 - t)
    return a + diff * t


def _quantile_sorted(x: np.ndarray, p: float) -> float:
    """Quantile ``p`` of the non-empty sorted array ``x`` (linear, Hyndman-Fan type 7)."""
    h = (len(x) - 1) * p
    lo = math.floor(h)
    if lo + 1 >= len(x):
        return float(x[-1])
    return _lerp(float(x[lo]), float(x[lo + 1]), h - lo)


def _bucket_stats(seg: np.ndarray) -> tuple[float, float, float, int] | None:
    """Trimmed (median, q1, q3) and the number trimmed, for one sorted segment; None when
    every value is trimmed (a NaN bound: ``x + inf * 0`` in the interpolation of values
    whose difference overflows)."""
    q1 = _quantile_sorted(seg, 0.25)
    q3 = _quantile_sorted(seg, 0.75)
    iqr = q3 - q1
    low, high = q1 - _IQR_FACTOR * iqr, q3 + _IQR_FACTOR * iqr
    # Bounds inclusive: keep low <= v <= high; on a sorted segment that is a slice.
    i = int(np.searchsorted(seg, low, side="left"))
    j = int(np.searchsorted(seg, high, side="right"))
    kept = seg[i:j]
    trimmed = len(seg) - len(kept)
    if not len(kept):
        return None
    return (
        _quantile_sorted(kept, 0.5),
        _quantile_sorted(kept, 0.25),
        _quantile_sorted(kept, 0.75),
        trimmed,
    )


def compute_aggregate(
    dates: np.ndarray,
    values: np.ndarray,
    *,
    metric: str,
    time_bucket: str,
    date_from: dt.date | None,
    date_to: dt.date | None,
    as_of: dt.date,
    small_n_threshold: int = SMALL_N_THRESHOLD,
) -> tuple[list[dict], dict]:
    """Per-bucket IQR-trimmed median, q1 and q3 of a metric over a cohort of deals.

    Parameters
    ----------
    dates : numpy.ndarray
        Deal dates (``datetime64``; converted to days), already filtered by
        every deal filter except the date window.
    values : numpy.ndarray
        The metric of each deal, ``float64`` with NaN for null; non-finite
        values are excluded.
    metric : str
        The metric name (one of the aggregate metrics), echoed in ``meta``.
    time_bucket : {"month", "quarter", "year", "none"}
        Bucket width.
    date_from, date_to : datetime.date or None
        The request's window bounds; see :func:`resolve_window`.
    as_of : datetime.date
        The sandbox clock's date.
    small_n_threshold : int, default 5
        Buckets with ``0 < n < small_n_threshold`` are suppressed.

    Returns
    -------
    data : list of dict
        One ``{"bucket", "n", "median", "q1", "q3", "warning"}`` per period
        intersecting the window, in chronological order, JSON-ready; ``warning``
        is None, ``"small_n"``, ``"empty"`` or ``"all_trimmed"``.
    meta : dict
        ``{"metric", "time_bucket", "total_deals", "outliers_trimmed",
        "methodology"}`` as on the wire.

    Raises
    ------
    AggregateInputError
        On an unknown metric or bucket, arrays of different lengths, or
        ``date_from > date_to``.

    Examples
    --------
    >>> import datetime as dt
    >>> import numpy as np
    >>> dates = np.array(["2024-01-05"] * 5 + ["2024-02-01"], dtype="datetime64[D]")
    >>> values = np.array([1.0, 2.0, 3.0, 4.0, 100.0, 7.0])
    >>> data, meta = compute_aggregate(
    ...     dates, values, metric="ev_revenue", time_bucket="month",
    ...     date_from=dt.date(2024, 1, 1), date_to=dt.date(2024, 3, 31),
    ...     as_of=dt.date(2026, 6, 30))
    >>> data[0]
    {'bucket': '2024-01', 'n': 5, 'median': 2.5, 'q1': 1.75, 'q3': 3.25, 'warning': None}
    >>> [(b["bucket"], b["n"], b["warning"]) for b in data[1:]]
    [('2024-02', 1, 'small_n'), ('2024-03', 0, 'empty')]
    >>> meta["total_deals"], meta["outliers_trimmed"]
    (6, 1)
    """
    if metric not in AGGREGATE_METRICS:
        raise AggregateInputError(
            "metric", f"{metric!r} is not one of {', '.join(AGGREGATE_METRICS)}"
        )
    _check_bucket(time_bucket)
    days = np.asarray(dates).astype("datetime64[D]")
    vals = np.asarray(values, dtype=np.float64)
    if days.shape != vals.shape or days.ndim != 1:
        raise AggregateInputError(
            "values",
            f"dates and values must be 1-d of one length, got {days.shape} and {vals.shape}",
        )
    start, end = resolve_window(date_from, date_to, as_of)

    # Keep deals with a finite value inside the inclusive window (NaT fails both tests).
    lo_day, hi_day = np.datetime64(start, "D"), np.datetime64(end, "D")
    keep = np.isfinite(vals) & (days >= lo_day) & (days <= hi_day)
    days, vals = days[keep], vals[keep]

    first, last = _window_codes(start, end, time_bucket)
    codes = _period_code(days, time_bucket) - first  # 0 .. n_buckets - 1
    n_buckets = last - first + 1

    order = np.lexsort((vals, codes))  # by bucket, then value
    sorted_vals = vals[order]
    bounds = np.searchsorted(codes[order], np.arange(n_buckets + 1), side="left")

    data: list[dict] = []
    outliers_trimmed = 0
    for k in range(n_buckets):
        seg = sorted_vals[bounds[k] : bounds[k + 1]]
        n = len(seg)
        item = {
            "bucket": _period_label(first + k, time_bucket),
            "n": n,
            "median": None,
            "q1": None,
            "q3": None,
            "warning": None,
        }
        if n == 0:
            item["warning"] = "empty"
        elif n < small_n_threshold:
            item["warning"] = "small_n"
        elif (stats := _bucket_stats(seg)) is None:
            item["warning"] = "all_trimmed"
            outliers_trimmed += n
        else:
            median, q1, q3, trimmed = stats
            item.update(median=median, q1=q1, q3=q3)
            outliers_trimmed += trimmed
        data.append(item)

    meta = {
        "metric": metric,
        "time_bucket": time_bucket,
        "total_deals": int(len(vals)),
        "outliers_trimmed": outliers_trimmed,
        "methodology": {
            "small_n_threshold": small_n_threshold,
            "outlier_rule": OUTLIER_RULE,
            "default_date_range_years": DEFAULT_DATE_RANGE_YEARS,
            "empty_buckets_returned": True,
            "date_range": {"from": start.isoformat(), "to": end.isoformat()},
        },
    }
    return data, meta
