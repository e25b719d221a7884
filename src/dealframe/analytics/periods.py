"""The aggregate's calendar: its window, its buckets, their labels and bounds (pure).

Bucket codes count months, quarters or years since January 1970 (``none``: one bucket, 0).
"""

from __future__ import annotations

import calendar
import datetime as dt
from typing import Any

import numpy as np

from dealframe._vocab import TIME_BUCKETS
from dealframe.analytics._checks import check, check_choice
from dealframe.analytics.conventions import DEFAULT_CONVENTIONS, Conventions
from dealframe.arguments import DateLike, checked_keywords
from dealframe.errors import ValidationError
from dealframe.private.filters import to_date_string

__all__ = ["bucket_labels", "bucket_of_rows", "check_window", "period_bounds", "resolve_window"]

_MONTHS = {"month": 1, "quarter": 3, "year": 12}
_DATE_UNIT = "datetime64[us]"
#: Rows read at a time by :func:`bucket_of_rows` (its temporaries stay in the cache).
_BLOCK = 1 << 16


def _as_date(value: Any, argument: str) -> dt.date:
    """A day of ``date_from`` / ``date_to`` / ``as_of``, read as ``client.private.aggregate``
    reads it (:func:`~dealframe.private.filters.to_date_string`): text only as
    ``YYYY-MM-DD`` (``2024-12``, ``12/01/2024`` or ``20241201`` are refused, as the service
    refuses them), or a date, datetime, Timestamp or ``numpy.datetime64`` (its day)."""
    if isinstance(value, (str, dt.date, np.datetime64)):
        return dt.date.fromisoformat(to_date_string(value, argument))
    raise ValidationError(
        argument, "a date YYYY-MM-DD, datetime.date or pandas.Timestamp", got=value
    )


@checked_keywords
def resolve_window(
    date_from: DateLike | None = None,
    date_to: DateLike | None = None,
    *,
    as_of: DateLike | None = None,
    time_bucket: str = "quarter",
    conventions: Conventions | None = None,
) -> tuple[dt.date, dt.date]:
    """The inclusive window ``(date_from, date_to)`` the aggregate uses.

    Parameters
    ----------
    date_from, date_to, as_of : date-like, optional
        ``date_to`` defaults to ``as_of`` (the service's date), ``date_from`` to ``date_to``
        minus ``conventions.window_years`` calendar years (29 February maps to 28 February),
        or the start of that period with ``conventions.window_anchor="period_start"``.
    time_bucket : {"quarter", "month", "year", "none"}
    conventions : Conventions, optional

    Returns
    -------
    tuple of datetime.date

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the argument that is not a date, or ``date_from`` after ``date_to``.

    Examples
    --------
    >>> resolve_window(as_of="2024-02-29")
    (datetime.date(2019, 2, 28), datetime.date(2024, 2, 29))
    """
    conv = DEFAULT_CONVENTIONS if conventions is None else conventions
    check(isinstance(conv, Conventions), "conventions", "a Conventions instance or None", conv)
    check_choice("time_bucket", time_bucket, TIME_BUCKETS)
    # each date given is read first, so a bad one is named rather than a missing as_of
    start, end, today = (
        None if value is None else _as_date(value, name)
        for name, value in (("date_from", date_from), ("date_to", date_to), ("as_of", as_of))
    )
    end = today if end is None else end
    if end is None:
        raise ValidationError(
            "as_of",
            "the service's current date (as_of=...) or an explicit date_to; with a client, "
            "pass the date_range the service reports",
            got=None,
        )
    if start is None:
        year = end.year - conv.window_years
        check(  # the end is date_to's when given, else as_of's
            year >= dt.MINYEAR,
            "as_of" if date_to is None else "date_to",
            f"a date at least {conv.window_years} years after year 1",
            end.isoformat(),
        )
        # February 29 maps to February 28 in a common year
        start = end.replace(year=year, day=min(end.day, calendar.monthrange(year, end.month)[1]))
        if conv.window_anchor == "period_start" and time_bucket in _MONTHS:
            size = _MONTHS[time_bucket]
            start = start.replace(month=(start.month - 1) // size * size + 1, day=1)
    check(
        start <= end,
        "date_from",
        f"a date on or before {'as_of' if date_to is None else 'date_to'} ({end.isoformat()})",
        start.isoformat(),
    )
    return start, end


@checked_keywords
def check_window(
    date_from: DateLike | None = None,
    date_to: DateLike | None = None,
    *,
    as_of: DateLike | None = None,
    time_bucket: str = "quarter",
    conventions: Conventions | None = None,
) -> None:
    """Every check :func:`resolve_window` makes that needs no service: made before a request.

    Each date given is read, and when the window's end is known (``date_to`` or ``as_of``)
    the whole window is resolved, ``date_from`` on or before it and the default start within
    the calendar. Without either, the end is the service's date (asked of it later): only
    ``date_from`` is read.

    Parameters
    ----------
    date_from, date_to, as_of, time_bucket, conventions
        As for :func:`resolve_window`.

    Raises
    ------
    dealframe.errors.ValidationError
        As :func:`resolve_window` does, naming the argument.

    Examples
    --------
    >>> check_window("2024-05-01")  # the end is the service's: asked later
    >>> check_window("2024-05-01", as_of="2024-01-01")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid date_from: expected a date on or before as_of (2024-01-01), got '2024-05-01'
    """
    if date_to is None and as_of is None:
        if date_from is not None:
            _as_date(date_from, "date_from")
        return
    resolve_window(
        date_from, date_to, as_of=as_of, time_bucket=time_bucket, conventions=conventions
    )


@checked_keywords
def bucket_labels(codes: np.ndarray, time_bucket: str) -> list[str]:
    """Labels (``YYYY-MM``, ``YYYY-Qn``, ``YYYY``, ``all``) of bucket codes.

    Parameters
    ----------
    codes : array of int
        Months, quarters or years since January 1970.
    time_bucket : {"month", "quarter", "year", "none"}
        What a code counts (``none``: one bucket, ``all``).

    Returns
    -------
    list of str

    Raises
    ------
    dealframe.errors.ValidationError
        ``codes`` are not a 1-D array of integers (booleans refused), hold a code outside the
        years 1 to 9999, or ``time_bucket`` is none of these.

    Examples
    --------
    >>> import numpy as np
    >>> bucket_labels(np.array([218, 219]), "quarter")
    ['2024-Q3', '2024-Q4']
    >>> bucket_labels(np.array([-1]), "month")  # before 1970
    ['1969-12']
    """
    check_choice("time_bucket", time_bucket, TIME_BUCKETS)
    expected = "a 1-D array of integer bucket codes (months, quarters or years since 1970)"
    array = np.asarray(codes)
    if array.ndim != 1 or array.dtype == bool:  # a flag is no code, nor a lone number a list
        raise ValidationError("codes", expected, got=codes)
    try:
        numbers = array.astype(np.int64, casting="safe").tolist()
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValidationError("codes", expected, got=codes) from exc
    per_year = {"month": 12, "quarter": 4, "year": 1}.get(time_bucket)
    if per_year and numbers:  # a label's year has four digits: years 1 to 9999
        low, high = (1 - 1970) * per_year, (9999 - 1970 + 1) * per_year - 1
        outside = [c for c in (min(numbers), max(numbers)) if not low <= c <= high]
        if outside:
            raise ValidationError(
                "codes", f"{expected}, from {low} to {high} for {time_bucket}s", got=outside[0]
            )
    if time_bucket == "month":
        return [f"{1970 + c // 12:04d}-{c % 12 + 1:02d}" for c in numbers]
    if time_bucket == "quarter":
        return [f"{1970 + c // 4:04d}-Q{c % 4 + 1}" for c in numbers]
    if time_bucket == "year":
        return [f"{1970 + c:04d}" for c in numbers]
    return ["all"] * len(numbers)


def bucket_of_rows(
    times: np.ndarray, usable: np.ndarray, window: tuple[dt.date, dt.date], time_bucket: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bucket number (0-based) of every row of ``times`` (``datetime64`` of days or a finer
    unit, NaT for nulls), ``n_buckets`` for rows not used; the codes; and the rows of each
    bucket. A table over the window's days gives each day's bucket: one gather per row, 20
    times faster than calendar arithmetic per row. The rows are read in blocks, so their day
    numbers stay in the cache rather than filling fresh pages."""
    if np.datetime_data(times.dtype)[0] in ("ns", "ps", "fs", "as"):
        times = times.astype("datetime64[us]")  # NaT floored to days must fall far outside
    first, last = np.datetime64(window[0], "D"), np.datetime64(window[1], "D")
    months = np.arange(first, last + np.timedelta64(1, "D")).astype("datetime64[M]")
    day_codes = months.astype(np.int64) // _MONTHS.get(time_bucket, 1)
    if time_bucket == "none":
        day_codes[:] = 0
    code_first = int(day_codes[0])
    n_buckets = int(day_codes[-1]) - code_first + 1
    # the smallest integers that hold every bucket: numpy's stable sort of them is a radix sort
    dtype = next(t for t in (np.int8, np.int16, np.int64) if n_buckets < np.iinfo(t).max)
    table = np.full(len(day_codes) + 2, n_buckets, dtype=dtype)  # before, days..., after
    table[1:-1] = day_codes - code_first
    per_day = int(np.array([1], dtype="datetime64[D]").astype(times.dtype).view(np.int64)[0])
    stamps = times.view(np.int64)
    rows = np.empty(len(stamps), dtype=dtype)
    counts = np.zeros(n_buckets + 1, dtype=np.int64)  # the last: rows not used
    offsets = np.empty(min(len(stamps), _BLOCK), dtype=np.int64)
    for at in range(0, len(stamps), _BLOCK):
        block = slice(at, at + _BLOCK)
        offset = offsets[: len(rows[block])]
        np.floor_divide(stamps[block], per_day, out=offset)  # days since 1970, floored
        offset -= first.astype(np.int64) - 1  # NaT lands far outside (clipped: a last slot)
        table.take(offset, out=rows[block], mode="clip")
        np.putmask(rows[block], ~usable[block], n_buckets)
        counts += np.bincount(rows[block], minlength=n_buckets + 1)
    return rows, np.arange(code_first, code_first + n_buckets, dtype=np.int64), counts[:-1]


def period_bounds(
    codes: np.ndarray, time_bucket: str, window: tuple[dt.date, dt.date]
) -> tuple[np.ndarray, np.ndarray]:
    """First and last day (``datetime64[us]``) of every bucket's period (``none``: the
    window)."""
    if time_bucket == "none":
        start = np.full(len(codes), np.datetime64(window[0], "D"))
        end = np.full(len(codes), np.datetime64(window[1], "D"))
    else:
        months = _MONTHS[time_bucket]
        start = (codes * months).astype("datetime64[M]").astype("datetime64[D]")
        end = ((codes + 1) * months).astype("datetime64[M]").astype("datetime64[D]") - 1
    return start.astype(_DATE_UNIT), end.astype(_DATE_UNIT)
