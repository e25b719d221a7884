"""Pure shaping behind the charts and the report: library frames in, small tables out.

Nothing here draws or does I/O. The charts of :mod:`dealframe.plot` and the tables of
``dealframe report`` are built from these functions, so a chart and the table beside it
always show the same numbers.

- :func:`multiple_status`: the "NM" rule for valuation multiples (its home is
  :mod:`dealframe.analytics.multiples`, which :func:`dealframe.compare_multiples` reads too).
- :func:`deal_window`, :func:`partial_periods`: the window of a deals frame or an aggregate,
  and which edge buckets it covers only in part.
- :func:`quarterly_activity`: deals per quarter and type, capital raised per quarter.
- :func:`participant_rows`, :func:`participant_names`, :func:`investor_activity`,
  :func:`co_investment_pairs`: everything that reads participants, in one place.

Examples
--------
>>> import pandas as pd
>>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-05", "2024-02-01"]),
...                       "deal_type": ["Venture", "M&A"]})
>>> quarterly_activity(deals, ("2024-01-01", "2024-03-31"))["total"].tolist()
[2]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from dealframe._vocab import DEAL_TYPES
from dealframe.analytics.buckets import warn_repeated_ids
from dealframe.analytics.multiples import (
    MULTIPLE_BOUNDS,
    MULTIPLE_DENOMINATORS,
    meaningful,
    multiple_status,
    numbers,
)
from dealframe.arguments import DateLike
from dealframe.comparison import measure_side
from dealframe.errors import ValidationError, did_you_mean
from dealframe.frames.participants import explode_participants
from dealframe.frames.schemas import PARTICIPANT_COLUMNS, ROLES
from dealframe.frames.user_columns import datetime_values, one_column_each
from dealframe.private.filters import range_bound, to_date_string

__all__ = [
    "MULTIPLE_BOUNDS",
    "MULTIPLE_DENOMINATORS",
    "DateWindow",
    "co_investment_pairs",
    "deal_window",
    "investor_activity",
    "meaningful",
    "multiple_status",
    "numbers",
    "partial_periods",
    "participant_names",
    "participant_rows",
    "quarter_label",
    "quarterly_activity",
    "trimmed_multiples",
]

#: The ``window`` of a chart: ``(date_from, date_to)``, inclusive; None for either bound takes
#: it from the deals (:func:`deal_window`).
DateWindow: TypeAlias = tuple[DateLike | None, DateLike | None]


def trimmed_multiples(
    deals: pd.DataFrame,
    metric: str,
    window: DateWindow | None = None,
    *,
    small_n_threshold: int = 5,
) -> pd.Series:
    """The meaningful values of a deal multiple that the service's method keeps.

    NM values (:func:`multiple_status`) are dropped first, then outliers beyond 1.5 IQR of
    the window, as ``transactions/aggregate`` trims them: the private side of
    :func:`dealframe.comparison.measure_side`, the method of
    :func:`dealframe.compare_multiples`. A window with fewer values than
    ``small_n_threshold`` keeps none. The median of the result is the service's median of
    the meaningful values. ``attrs["n"]`` is the service's n: the meaningful values in the
    window, before trimming. Deals marked ``deleted`` (a mirror's frame, or one pulled with
    ``include_deleted=True``) are left out, as the service's aggregate leaves them out: such a
    frame gives a smaller ``n`` than its rows in the window.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming ``deals`` when it is not a DataFrame with a ``deal_date`` column, or lacks the
        multiple ``metric`` (``ev_revenue``, ``ev_ebitda``; the columns it lacks and those it
        has), ``metric`` when it names no numeric column of it (with the closest name), and
        ``window`` when it is not a pair of dates.

    Examples
    --------
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 6),
    ...                   "ev_revenue": [1.0, 2.0, 3.0, 4.0, 5.0, 45.0]})
    >>> kept = trimmed_multiples(d, "ev_revenue", ("2024-01-01", "2024-12-31"))
    >>> kept.tolist(), kept.attrs["n"]
    ([1.0, 2.0, 3.0, 4.0, 5.0], 6)
    >>> trimmed_multiples(d[["ev_revenue"]], "ev_revenue", ("2024-01-01", "2024-12-31"))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deals: expected a deals frame with the column(s) deal_date, got 'a frame with columns ev_revenue'
    """
    if not isinstance(metric, str):
        raise ValidationError(
            "metric", "a deal multiple's column name, such as 'ev_revenue'", got=metric
        )
    # a multiple the frame lacks is the frame's fault; another name the caller's (a typo)
    _deals_with(deals, ("deal_date", *([metric] if metric in MULTIPLE_BOUNDS else [])))
    if metric not in deals.columns:
        hint = did_you_mean(metric, [str(c) for c in deals.columns])
        raise ValidationError(
            "metric", f"a column of deals, such as 'ev_revenue'{hint}", got=metric
        )
    column = deals[metric]
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        raise ValidationError(
            "metric",
            f"a numeric column of deals, such as 'ev_revenue' ({column.dtype})",
            got=metric,
        )
    start, end = deal_window(deals, window)
    side = measure_side(deals, metric, start.date(), end.date(), small_n_threshold)
    return side.kept


def _deals_with(deals: Any, columns: tuple[str, ...]) -> None:
    """Raise a :class:`~dealframe.errors.ValidationError` naming ``deals`` when it is not a
    DataFrame holding ``columns``: which it lacks, and the columns it has."""
    if not isinstance(deals, pd.DataFrame):
        raise ValidationError("deals", "a DataFrame of deals", got=type(deals).__name__)
    missing = [c for c in columns if c not in deals.columns]
    if missing:
        shown = ", ".join(map(str, list(deals.columns)[:6])) + (
            ", ..." if len(deals.columns) > 6 else ""
        )
        raise ValidationError(
            "deals",
            f"a deals frame with the column(s) {', '.join(missing)}",
            got=f"a frame with columns {shown}" if len(deals.columns) else "a frame of no columns",
        )


def _day(value: Any, argument: str) -> pd.Timestamp | None:
    """A bound of a window as the analytics read it
    (:func:`~dealframe.private.filters.to_date_string`: ``YYYY-MM-DD`` text, or the day of a
    date, datetime, Timestamp or ``numpy.datetime64``); None for None or NaT, a
    ValidationError naming ``argument`` for anything else (``2024-01``, ``12/01/2024``)."""
    if value is None or value is pd.NaT or (isinstance(value, np.datetime64) and np.isnat(value)):
        return None
    return pd.Timestamp(to_date_string(value, argument))


def _deal_dates(deals: pd.DataFrame) -> pd.Series:
    """``deal_date`` as wall times (:func:`~dealframe.frames.user_columns.datetime_values`, the
    analytics' reader: ``20240105`` or ``05/01/2024`` is a ValidationError naming it)."""
    one_column_each(deals, ("deal_date",), "deals")  # a concat along the columns repeats it
    return pd.Series(datetime_values(deals["deal_date"]), index=deals.index, name="deal_date")


def deal_window(
    deals: pd.DataFrame, window: DateWindow | None = None
) -> tuple[pd.Timestamp, pd.Timestamp]:
    """The inclusive date window of a deals frame.

    ``window`` (a pair of dates, either None) wins; else the ``date_from``/``date_to`` filters
    the frame was pulled with (``attrs["filters"]``, plain or written out as
    ``{"gte": ...}``/``{"lte": ...}`` as they were sent, :func:`~dealframe.private.filters.range_bound`);
    else the whole quarters of the first and last deal dates. A start after the end is a
    :class:`~dealframe.errors.ValidationError` naming ``window``.

    Examples
    --------
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-02-03", "2024-05-01"])})
    >>> [str(x.date()) for x in deal_window(d, ("2024-01-15", None))]
    ['2024-01-15', '2024-06-30']
    >>> d.attrs["filters"] = {"date_from": {"gte": "2024-01-01"}, "date_to": "2024-12-31"}
    >>> [str(x.date()) for x in deal_window(d)]
    ['2024-01-01', '2024-12-31']
    """
    start = end = None
    if window is not None:
        if isinstance(window, (str, bytes)) or not hasattr(window, "__len__") or len(window) != 2:
            raise ValidationError("window", "a pair (date_from, date_to), either None", got=window)
        start, end = _day(window[0], "window[0]"), _day(window[1], "window[1]")
    filters = deals.attrs.get("filters") if isinstance(deals.attrs.get("filters"), Mapping) else {}
    if start is None:
        start = _day(range_bound(filters.get("date_from"), lower=True), "date_from")
    if end is None:
        end = _day(range_bound(filters.get("date_to"), lower=False), "date_to")
    dates = _deal_dates(deals) if "deal_date" in deals and len(deals) else None
    if start is None and dates is not None and pd.notna(dates.min()):  # whole quarters
        start = dates.min().to_period("Q").start_time
    if end is None and dates is not None and pd.notna(dates.max()):
        end = dates.max().to_period("Q").end_time
    if start is None or end is None or pd.isna(start) or pd.isna(end):
        today = pd.Timestamp(dt.date.today())
        start, end = (today, today) if start is None or pd.isna(start) else (start, start)
    start, end = pd.Timestamp(start).normalize(), pd.Timestamp(end).normalize()
    if start > end:
        raise ValidationError(
            "window",
            f"a start on or before its end (here {start.date()} is after {end.date()}"
            + ("" if window is not None and window[1] is not None else ", the deals' end")
            + ")",
            got=window,
        )
    return start, end


def quarter_label(period: pd.Period) -> str:
    """``YYYY-Qn``, the aggregate's own quarter labels.

    Examples
    --------
    >>> quarter_label(pd.Period("2024-05-01", "Q"))
    '2024-Q2'
    """
    return f"{period.year}-Q{period.quarter}"


def partial_periods(starts: Any, ends: Any, window: tuple[Any, Any]) -> np.ndarray:
    """Which buckets the window covers only in part (the window starts or ends inside them).

    Examples
    --------
    >>> partial_periods(pd.to_datetime(["2021-04-01", "2021-07-01"]),
    ...                 pd.to_datetime(["2021-06-30", "2021-09-30"]),
    ...                 ("2021-06-30", "2021-09-30")).tolist()
    [True, False]
    """
    start, end = pd.Timestamp(window[0]).normalize(), pd.Timestamp(window[1]).normalize()
    first = pd.to_datetime(pd.Series(starts)).dt.normalize().to_numpy()
    last = pd.to_datetime(pd.Series(ends)).dt.normalize().to_numpy()
    return (first < start.to_datetime64()) | (last > end.to_datetime64())


def quarterly_activity(deals: pd.DataFrame, window: DateWindow | None = None) -> pd.DataFrame:
    """Deals per quarter and deal type, and the capital they raised, for every quarter.

    Parameters
    ----------
    deals : DataFrame
        ``client.private.deals(...)`` (``deal_date``, ``deal_type``, ``deal_raised``).
    window : (date_from, date_to), optional
        See :func:`deal_window`.

    Returns
    -------
    DataFrame
        Index ``quarter`` (``YYYY-Qn``), every quarter of the window: one int64 count column
        per deal type (the vocabulary, then any other type), ``total``, ``raised`` (sum of the
        disclosed ``deal_raised``, millions USD; NaN when no deal disclosed one), ``raised_n``
        (deals with an amount), ``days`` (days of the quarter inside the window) and
        ``partial`` (the window covers the quarter only in part).

    Warns
    -----
    dealframe.DealframeWarning
        An ``id`` repeats among the rows in the window: each row is counted as a deal (a
        concatenation, or ``client.private.investments`` of several investors), as
        :func:`~dealframe.analytics.bucket_medians` says it.

    Examples
    --------
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-05", "2024-05-01"]),
    ...                   "deal_type": ["M&A", "Venture"], "deal_raised": [None, 12.5]})
    >>> t = quarterly_activity(d, ("2024-01-01", "2024-06-30"))
    >>> t[["total", "raised", "raised_n", "partial"]].values.tolist()
    [[1, nan, 0, False], [1, 12.5, 1, False]]
    """
    if not isinstance(deals, pd.DataFrame) or "deal_date" not in deals:
        raise ValidationError(
            "deals", "a deals frame (client.private.deals) with deal_date", got=type(deals).__name__
        )
    one_column_each(deals, ("id", "deal_date", "deal_type", "deal_raised"), "deals")
    start, end = deal_window(deals, window)
    periods = pd.period_range(start.to_period("Q"), end.to_period("Q"), freq="Q")
    labels = [quarter_label(p) for p in periods]
    dates = _deal_dates(deals)
    inside = ((dates >= start) & (dates <= end)).to_numpy(dtype=bool, na_value=False)
    if "id" in deals.columns:  # each row is counted as a deal: said as bucket_medians says it
        warn_repeated_ids(deals["id"], inside)
    rows = deals.loc[inside]
    quarter = pd.Series(
        [quarter_label(p) for p in dates[inside].dt.to_period("Q")],
        index=rows.index,
        dtype=object,
        name="quarter",
    )
    types = (
        rows["deal_type"].astype(object)
        if "deal_type" in rows
        else pd.Series("unknown", index=rows.index, dtype=object)
    ).fillna("unknown")
    others = sorted(t for t in pd.unique(types) if t not in DEAL_TYPES)
    counts = pd.crosstab(quarter, types) if len(rows) else pd.DataFrame()
    table = counts.reindex(index=labels, columns=[*DEAL_TYPES, *others], fill_value=0)
    table = table.fillna(0).astype("int64")
    table.columns = pd.Index([str(c) for c in table.columns])
    table["total"] = table.sum(axis=1)
    raised = (
        pd.to_numeric(rows["deal_raised"], errors="coerce")
        if "deal_raised" in rows
        else pd.Series(np.nan, index=rows.index)
    )
    table["raised"] = raised.groupby(quarter).sum(min_count=1).reindex(labels).astype(float)
    table["raised_n"] = (
        raised.notna().groupby(quarter).sum().reindex(labels, fill_value=0).astype("int64")
    )
    first = periods.start_time.normalize()
    last = periods.end_time.normalize()
    table["days"] = ((np.minimum(last, end) - np.maximum(first, start)).days + 1).astype("int64")
    table["partial"] = partial_periods(first, last, (start, end))
    table.index.name = "quarter"
    table.attrs["window"] = (start.date().isoformat(), end.date().isoformat())
    return table


# ------------------------------------------------------------------ participants (one place)


def participant_rows(deals: pd.DataFrame) -> pd.DataFrame:
    """One row per (deal, participant) with the roles ``lead_investor``, ``buyer``, ``investor``.

    :func:`dealframe.explode_participants` of the deals (its ``role`` is the one vocabulary
    of every frame). This is the only function of the report and the charts that reads
    participant columns.

    Examples
    --------
    >>> from dealframe.frames.private import deals_frame
    >>> d = deals_frame([{"id": "d1", "deal_type": "M&A", "buyers": [{"id": "b", "name": "B"}]}])
    >>> participant_rows(d)[["deal_id", "role", "participant_id"]].values.tolist()
    [['d1', 'buyer', 'b']]
    """
    # the roles whose columns the frame has (list deals carry leads and buyers only; a role
    # asked for without its column is refused); none: the columns needed are named
    roles = tuple(role for column, role in PARTICIPANT_COLUMNS.items() if column in deals)
    return explode_participants(deals, roles=roles or ROLES)


def _participant_rows_checked(rows: Any, needed: tuple[str, ...]) -> None:
    """Refuse anything but :func:`participant_rows` output (a deals frame is the likely
    mistake) with a :class:`~dealframe.errors.ValidationError` naming ``rows`` and the columns
    it lacks, never a bare ``KeyError`` from deep inside."""
    expected = (
        f"participant_rows(deals), a frame of one row per deal and participant "
        f"({', '.join(needed)}); for a deals frame, pass participant_rows(deals)"
    )
    if not isinstance(rows, pd.DataFrame):
        raise ValidationError("rows", expected, got=type(rows).__name__)
    missing = [c for c in needed if c not in rows.columns]
    if missing:
        shown = ", ".join(missing[:3]) + (" ..." if len(missing) > 3 else "")
        raise ValidationError("rows", expected, got=f"a DataFrame without {shown}")


def participant_names(
    rows: pd.DataFrame, roles: tuple[str, ...] = ("lead_investor", "buyer")
) -> pd.Series:
    """``"A, B"`` per deal id: the names of its participants in ``roles`` (list order).

    Parameters
    ----------
    rows : DataFrame
        :func:`participant_rows` of a deals frame (``deal_id``, ``role``,
        ``participant_name``).
    roles : tuple of str
        The roles named.

    Raises
    ------
    dealframe.errors.ValidationError
        ``rows`` is not a frame with those columns (a deals frame itself, for one).

    Examples
    --------
    >>> r = pd.DataFrame({"deal_id": ["d", "d"], "role": ["buyer", "buyer"],
    ...                   "participant_name": ["A", "B"]})
    >>> participant_names(r).to_dict()
    {'d': 'A, B'}
    """
    _participant_rows_checked(rows, ("deal_id", "role", "participant_name"))
    chosen = rows[rows["role"].isin(list(roles)) & rows["participant_name"].notna()]
    return chosen.groupby("deal_id", sort=False)["participant_name"].agg(
        lambda names: ", ".join(dict.fromkeys(str(n) for n in names))
    )


_ACTIVITY_DTYPES = {
    "participant_id": "str",
    "name": "str",
    "country": "str",
    "led": "int64",
    "bought": "int64",
    "deals": "int64",
    "first_deal": "datetime64[us]",
    "last_deal": "datetime64[us]",
}


#: The columns of :func:`participant_rows` that :func:`investor_activity` reads.
_ROWS_READ = (
    "deal_id",
    "role",
    "participant_id",
    "participant_name",
    "participant_country",
    "deal_date",
)


def investor_activity(rows: pd.DataFrame, top: int | None = 15) -> pd.DataFrame:
    """The participants with the most deals led (funding rounds) or bought (M&A).

    Parameters
    ----------
    rows : DataFrame
        :func:`participant_rows` of a deals frame.
    top : int, optional
        Rows kept (None: all).

    Raises
    ------
    dealframe.errors.ValidationError
        ``rows`` is not a frame of :func:`participant_rows` (a deals frame itself, for one).

    Returns
    -------
    DataFrame
        ``participant_id``, ``name``, ``country``, ``led``, ``bought``, ``deals`` (distinct
        deals in either role), ``first_deal``, ``last_deal``; most deals first, then name.

    Examples
    --------
    >>> r = pd.DataFrame({"deal_id": ["d1", "d2", "d2"], "role": ["lead_investor"] * 3,
    ...     "participant_id": ["a", "a", "b"], "participant_name": ["A", "A", "B"],
    ...     "participant_country": ["USA", "USA", None],
    ...     "deal_date": pd.to_datetime(["2024-01-01", "2024-02-01", "2024-02-01"])})
    >>> investor_activity(r)[["participant_id", "led", "deals"]].values.tolist()
    [['a', 2, 2], ['b', 1, 1]]
    """
    _participant_rows_checked(rows, _ROWS_READ)
    acting = rows[rows["role"].isin(["lead_investor", "buyer"]) & rows["participant_id"].notna()]
    acting = acting.drop_duplicates(["deal_id", "role", "participant_id"])
    if not len(acting):
        return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in _ACTIVITY_DTYPES.items()})
    ids = acting["participant_id"].astype(object)
    grouped = acting.groupby(ids, sort=False)
    role = acting["role"].astype(object)
    table = pd.DataFrame(
        {
            "name": grouped["participant_name"].first().astype(object),
            "country": grouped["participant_country"].first().astype(object),
            "led": (role == "lead_investor").groupby(ids, sort=False).sum(),
            "bought": (role == "buyer").groupby(ids, sort=False).sum(),
            "deals": grouped["deal_id"].nunique(),
            "first_deal": grouped["deal_date"].min(),
            "last_deal": grouped["deal_date"].max(),
        }
    )
    table.index.name = "participant_id"
    table = table.reset_index()
    for c in ("participant_id", "name", "country"):
        table[c] = pd.array(table[c].astype(object).where(table[c].notna(), None), dtype="str")
    for c in ("led", "bought", "deals"):
        table[c] = table[c].astype("int64")
    table = table.sort_values(
        ["deals", "name", "participant_id"],
        ascending=[False, True, True],
        kind="stable",
        ignore_index=True,
    )
    return (table if top is None else table.head(top))[list(_ACTIVITY_DTYPES)]


def _shared_dates(co_investors: pd.DataFrame, column: str) -> Any:
    """``column`` in microseconds (NaT where the frame has no such column): the unit of the
    client's date columns, for 0 rows as for N (``pd.to_datetime`` of nothing would give
    nanoseconds)."""
    if column not in co_investors:
        return pd.array(np.full(len(co_investors), np.datetime64("NaT", "us")))
    return pd.to_datetime(co_investors[column]).dt.as_unit("us").array


def co_investment_pairs(
    co_investors: pd.DataFrame, names: Mapping[str, str] | None = None, top: int | None = 15
) -> pd.DataFrame:
    """Pairs of investors by deals shared, from the service's ``co_investors`` lists.

    Parameters
    ----------
    co_investors : DataFrame
        ``client.private.co_investors(ids)`` (``investor_id``, ``id``, ``name``,
        ``shared_deals``, ``first_shared_date``, ``last_shared_date``).
    names : mapping, optional
        Names of the ``investor_id`` side (else taken from rows where it is the co-investor,
        else the id).
    top : int, optional
        Pairs kept (None: all).

    Returns
    -------
    DataFrame
        ``investor_a`` < ``investor_b``, ``name_a``, ``name_b``, ``shared_deals``,
        ``first_date``, ``last_date``; most shared deals first. A pair listed from both
        sides appears once.

    Examples
    --------
    >>> co = pd.DataFrame({"investor_id": ["a", "b"], "id": ["b", "a"], "name": ["B", "A"],
    ...     "shared_deals": [4, 4], "first_shared_date": pd.to_datetime(["2024-01-01"] * 2),
    ...     "last_shared_date": pd.to_datetime(["2025-01-01"] * 2)})
    >>> co_investment_pairs(co)[["name_a", "name_b", "shared_deals"]].values.tolist()
    [['A', 'B', 4]]
    """
    needed = ("investor_id", "id", "shared_deals")
    if not isinstance(co_investors, pd.DataFrame) or any(c not in co_investors for c in needed):
        raise ValidationError(
            "co_investors",
            "a frame from client.private.co_investors (investor_id, id, shared_deals ...)",
            got=type(co_investors).__name__,
        )
    if names is not None and not isinstance(names, Mapping):
        raise ValidationError(
            "names", "a mapping of investor id to name (a dict), or None", got=names
        )
    known = dict(
        zip(
            co_investors["id"].astype(object),
            co_investors.get("name", co_investors["id"]).astype(object),
        )
    )
    known.update(names or {})
    a = co_investors["investor_id"].astype(object).to_numpy()
    b = co_investors["id"].astype(object).to_numpy()
    low, high = np.where(a < b, a, b), np.where(a < b, b, a)
    pairs = pd.DataFrame(
        {
            "investor_a": low,
            "investor_b": high,
            "shared_deals": pd.to_numeric(co_investors["shared_deals"]).to_numpy(dtype=float),
            "first_date": _shared_dates(co_investors, "first_shared_date"),
            "last_date": _shared_dates(co_investors, "last_shared_date"),
        }
    )
    pairs = pairs[pairs["investor_a"] != pairs["investor_b"]]
    pairs = pairs.sort_values(
        ["shared_deals", "investor_a", "investor_b"], ascending=[False, True, True], kind="stable"
    )
    pairs = pairs.drop_duplicates(["investor_a", "investor_b"], ignore_index=True)
    pairs.insert(2, "name_a", [str(known.get(i) or i) for i in pairs["investor_a"]])
    pairs.insert(3, "name_b", [str(known.get(i) or i) for i in pairs["investor_b"]])
    pairs["shared_deals"] = pairs["shared_deals"].astype("int64")
    for c in ("investor_a", "investor_b", "name_a", "name_b"):
        pairs[c] = pd.array(pairs[c], dtype="str")
    return pairs if top is None else pairs.head(top).reset_index(drop=True)
