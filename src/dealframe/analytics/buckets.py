"""IQR-trimmed bucket medians of deal metrics, computed locally.

A reimplementation of ``POST /api/private/v1/transactions/aggregate`` (interface document
section 4.3) with every open convention a parameter (:class:`Conventions`); the rules are in
``docs/aggregates.md``. Every quantile, of the trimming bounds and of the statistics, is
:func:`numpy.quantile` of a bucket's values with the convention's ``method``.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from dealframe._vocab import AGGREGATE_METRICS, TIME_BUCKETS
from dealframe.analytics._checks import (
    check,
    check_choice,
    check_frame,
    column,
    datetime_values,
    metric_values,
    plain_column,
)
from dealframe.analytics.conventions import DEFAULT_CONVENTIONS, Conventions
from dealframe.analytics.intervals import median_intervals
from dealframe.analytics.periods import (
    bucket_labels,
    bucket_of_rows,
    check_window,
    period_bounds,
    resolve_window,
)
from dealframe.arguments import DateLike, checked_keywords, finite_number, integer_in
from dealframe.client import Client
from dealframe.contract import as_count, blanked, quoted
from dealframe.errors import RequestInfo, ServiceContractError, ValidationError
from dealframe.frames.private import day_of
from dealframe.frames.user_columns import one_column_each, true_rows
from dealframe.notices import DealframeWarning, ServiceContractWarning, user_stacklevel
from dealframe.private.aggregate import (
    DOCUMENTED_THRESHOLD,
    threshold_elsewhere,
    threshold_read_elsewhere,
)
from dealframe.private.filters import is_day

__all__ = [
    "METRIC_COLUMNS",
    "aggregate_methodology",
    "aggregate_threshold",
    "bucket_medians",
    "service_methodology",
    "warn_repeated_ids",
]

#: The column of a deals frame each aggregate metric reads (the client's own column names:
#: ``deal_multiples.ev_revenue`` is flattened to ``ev_revenue``).
METRIC_COLUMNS: dict[str, str] = dict(
    zip(
        AGGREGATE_METRICS,
        ("ev_revenue", "ev_ebitda", "deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda"),
    )
)

_QUARTILES = (0.25, 0.5, 0.75)
#: Values from which the buckets are summarised on every core (below, a pool costs more
#: than it saves).
_SPREAD_VALUES = 200_000
#: Values from which a bucket is arranged roughly by size before its quantiles are selected
#: (:func:`_by_size`; below, arranging costs more than it saves).
_BY_SIZE_FROM = 2_000
_CI = "a confidence level between 0 and 1 (e.g. 0.9)"


def aggregate_methodology(answer: pd.DataFrame) -> tuple[int | None, str, str]:
    """``small_n_threshold`` (None when absent) and window of an aggregate answer's meta.

    Parameters
    ----------
    answer : DataFrame
        What ``client.private.aggregate`` returns (its ``attrs`` are the meta).

    Returns
    -------
    tuple
        ``(small_n_threshold or None, date_from, date_to)``: a threshold written ``"5"`` is
        5, a date written with a time of day (``2021-06-30T00:00:00Z``) is its day.

    Raises
    ------
    dealframe.errors.ServiceContractError
        Naming the meta field, what was expected and what came: no ``date_range``
        (``missing_field``), or one that cannot be read (``bad_meta``).

    Examples
    --------
    >>> answer = pd.DataFrame()
    >>> answer.attrs["methodology"] = {"small_n_threshold": "5",
    ...     "date_range": {"from": "2021-06-30T00:00:00Z", "to": "2026-06-30"}}
    >>> aggregate_methodology(answer)
    (5, '2021-06-30', '2026-06-30')
    """
    methodology = answer.attrs.get("methodology")
    given = methodology if isinstance(methodology, Mapping) else {}
    window, threshold = given.get("date_range"), given.get("small_n_threshold")
    ends = window if isinstance(window, Mapping) else {}
    days = {end: day_of(ends.get(end)) for end in ("from", "to")}
    kind = "missing_field"
    if not isinstance(methodology, Mapping):
        problem = f" is {quoted(methodology, 200)}, expected an object with date_range"
    elif not (ends.get("from") and ends.get("to")):
        problem = (
            f".date_range is {quoted(window, 200)}, expected "
            "{'from': 'YYYY-MM-DD', 'to': 'YYYY-MM-DD'}"
        )
    elif unread := [end for end, day in days.items() if not is_day(day)]:
        kind = "bad_meta"
        problem = (
            f".date_range.{unread[0]} is {quoted(ends[unread[0]], 100)}, expected a date YYYY-MM-DD"
        )
    elif threshold is not None and as_count(threshold) is None:
        kind = "bad_meta"
        problem = f".small_n_threshold is {quoted(threshold, 100)}, expected a non-negative integer"
    else:
        return as_count(threshold), str(days["from"]), str(days["to"])
    raise ServiceContractError(
        200,
        f"aggregate meta.methodology{problem}",
        finding=kind,
        request=RequestInfo("POST", "/api/private/v1/transactions/aggregate", "private"),
    )


@checked_keywords  # one call of the client: an error quoting its answer blanks its tokens
def service_methodology(client: Client) -> tuple[int, str]:
    """The service's runtime ``small_n_threshold`` and current date (``date_range.to``).

    One small aggregate request (``time_bucket="none"``): section 4.3 rule 9 makes its
    value authoritative. An answer without it is read further, as ``docs/aggregates.md``
    says, and the value used is said in a ``ServiceContractWarning``.

    Parameters
    ----------
    client : dealframe.Client

    Returns
    -------
    tuple
        ``(small_n_threshold, date_to)``.

    Raises
    ------
    dealframe.errors.ServiceContractError
        The answer's meta cannot be read (:func:`aggregate_methodology`).

    Examples
    --------
    >>> service_methodology(client)  # doctest: +SKIP
    (5, '2026-06-30')
    """
    check(isinstance(client, Client), "client", "a dealframe.Client", client)
    with threshold_read_elsewhere():  # the missing key is said once, below
        answer = client.private.aggregate("ev_revenue", "none")
    _, _, today = aggregate_methodology(answer)
    return aggregate_threshold(client, answer), today


def aggregate_threshold(client: Client, answer: pd.DataFrame) -> int:
    """The ``small_n_threshold`` of an aggregate ``answer``, read further when it lacks one.

    The answer's ``meta.methodology.small_n_threshold`` (section 4.3 rule 9: the runtime
    value is authoritative); when it is absent or null, as :func:`service_methodology` reads
    it: the answer's ``meta.small_n_threshold``, else the transactions discovery document's
    ``aggregate.methodology.small_n_threshold``, else the interface document's 5, said in one
    ``ServiceContractWarning`` (ask for the answer within
    :func:`~dealframe.private.aggregate.threshold_read_elsewhere` so that the aggregate call does not
    say the missing key too). One value for every step that needs it (the report's medians,
    reconciliation, headline and appendix), never 5 silently.

    Parameters
    ----------
    client : dealframe.Client
        The client that asked for ``answer`` (its discovery document is read if needed).
    answer : pandas.DataFrame
        ``client.private.aggregate(...)``.

    Returns
    -------
    int

    Raises
    ------
    dealframe.errors.ServiceContractError
        The answer's meta cannot be read (:func:`aggregate_methodology`).

    Examples
    --------
    >>> aggregate_threshold(client, client.private.aggregate("ev_revenue", "none"))  # doctest: +SKIP
    5
    """
    threshold, _, _ = aggregate_methodology(answer)
    return _threshold_elsewhere(client, answer) if threshold is None else threshold


def _threshold_elsewhere(client: Client, answer: pd.DataFrame) -> int:
    """The threshold of an answer without ``meta.methodology.small_n_threshold``, and a
    warning saying where it came from."""
    methodology = answer.attrs.get("methodology")
    seen = "null" if "small_n_threshold" in (methodology or {}) else "absent"
    threshold, source = threshold_elsewhere(
        answer.attrs, lambda: client.private.schema("transactions").document
    )
    said = (
        "POST /api/private/v1/transactions/aggregate: missing_field: meta.methodology."
        f"small_n_threshold is {seen}; small_n_threshold {threshold} used, {source}"
    )
    # it quotes the document: the client's tokens are blanked, as in a finding (the call of
    # service_methodology, given the client, is a client_call)
    warnings.warn(blanked(said), ServiceContractWarning, stacklevel=user_stacklevel())
    return threshold


@checked_keywords
def bucket_medians(
    deals: pd.DataFrame,
    metric: str,
    time_bucket: str = "quarter",
    date_from: DateLike | None = None,
    date_to: DateLike | None = None,
    *,
    as_of: DateLike | None = None,
    small_n_threshold: int | None = None,
    conventions: Conventions | None = None,
    explain: bool = False,
    date_column: Hashable = "deal_date",
    value_column: Hashable | None = None,
    include_deleted: bool = False,
    client: Client | None = None,
    ci: float | None = None,
    ci_resamples: int = 9999,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """IQR-trimmed median, q1 and q3 of a deal metric per calendar bucket.

    ``POST /api/private/v1/transactions/aggregate`` computed locally on any frame of deals,
    by the rules and conventions of ``docs/aggregates.md`` (the sandbox's by default).

    Parameters
    ----------
    deals : DataFrame
        One row per deal: a date column (``datetime64``, Arrow dates or timestamps, periods,
        ``datetime.date`` or ISO 8601 text ``YYYY-MM-DD[THH:MM:SS]``; never numbers) and a
        value column of any numeric dtype. An ``id`` repeated among the rows used is said (a
        ``DealframeWarning``): each row counts as a deal, where the service counts one once.
    metric : str
        A key of :data:`METRIC_COLUMNS`; with ``value_column``, any name (a label).
    time_bucket : {"quarter", "month", "year", "none"}
    date_from, date_to, as_of : date-like, optional
        The inclusive window, with the defaults of :func:`resolve_window`.
    small_n_threshold : int, optional
        Buckets with fewer values are suppressed. Default: the service's with ``client``
        (:func:`service_methodology`), else 5.
    conventions : Conventions, optional
        The open conventions (default: the sandbox's).
    explain : bool, default False
        One row per deal used instead (see Returns), to audit any median by hand.
    date_column, value_column : str, optional
        The date (default ``deal_date``) and value (default: the metric's) columns.
    include_deleted : bool, default False
        Keep rows whose ``deleted`` column is true (booleans, 0/1, or text ``"true"`` /
        ``"false"`` in any case).
    client : dealframe.Client, optional
        Asks the service for its ``small_n_threshold`` and, without ``date_to`` and ``as_of``,
        its current date (one small aggregate request).
    ci, ci_resamples, rng : optional
        ``ci=0.9`` adds ``median_low`` and ``median_high``, a bootstrap interval of each
        median at that level from ``ci_resamples`` (at least 2) resamples, repeatable with ``rng`` (a seed
        or a ``numpy.random.Generator``); see ``docs/aggregates.md``. ``ci_resamples`` and
        ``rng`` are checked without ``ci`` too.

    Returns
    -------
    DataFrame
        One row per bucket: ``bucket``, ``period_start``, ``period_end``, ``n``, ``median``,
        ``q1``, ``q3``, ``warning`` (``small_n``, ``empty``, ``all_trimmed`` or missing), with
        ``ci`` ``median_low`` and ``median_high``. With ``explain``, one row per deal used,
        indexed like ``deals``, by bucket then value: ``id`` (if ``deals`` has one), ``date``,
        ``value``, ``bucket``, ``lower``, ``upper`` (NaN when not trimmed), ``kept`` and
        ``suppressed``. ``attrs``: the service's meta (``date_range`` too, as
        ``client.private.aggregate``'s attrs), ``conventions`` and ``ci``.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the argument or column that is wrong: dates that are not ``YYYY-MM-DD`` (the
        window's, as the service reads them) or a date column the list above does not hold.

    Warns
    -----
    dealframe.DealframeWarning
        An ``id`` repeats among the rows used (``deals.drop_duplicates("id")`` counts each
        deal once).

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
    >>> with_ci = bucket_medians(deals, "ev_revenue", "quarter", "2024-01-01", "2024-06-30",
    ...                          ci=0.9, rng=0)
    >>> with_ci.loc[0, ["median_low", "median", "median_high"]].tolist()
    [1.0, 3.0, 5.0]
    """
    conv = DEFAULT_CONVENTIONS if conventions is None else conventions
    check_frame("deals", deals)
    one_column_each(deals, ("id", "deleted"), "deals")  # the value and date columns: column()
    if value_column is None:
        check_choice("metric", metric, METRIC_COLUMNS)
    check(isinstance(metric, str), "metric", "a name (str)", metric)
    check_choice("time_bucket", time_bucket, TIME_BUCKETS)
    if small_n_threshold is not None:
        integer_in(small_n_threshold, "small_n_threshold", 0, None)
    check(isinstance(conv, Conventions), "conventions", "a Conventions instance or None", conv)
    if ci is not None:
        check(0 < finite_number(ci, "ci", _CI) < 1, "ci", _CI, ci)
        check(not explain, "ci", "None with explain=True", ci)
    integer_in(ci_resamples, "ci_resamples", 2, 1_000_000)  # one gives no spread
    # every date given read (the window too, when its end is known) before any request
    check_window(date_from, date_to, as_of=as_of, time_bucket=time_bucket, conventions=conv)
    series = column(
        deals,
        METRIC_COLUMNS[metric] if value_column is None else value_column,
        f"the values of {metric}" if value_column is None else "value_column",
    )
    times = datetime_values(column(deals, date_column, "date_column"))
    values = metric_values(series)
    # after the columns (a missing column is named before the seed); checked with or without
    # ci, as ci_resamples is: a seed that is none is a mistake even when no interval uses it
    seed = "None, a non-negative integer seed or a numpy Generator"
    check(not isinstance(rng, (bool, np.bool_)), "rng", seed, rng)  # True is no seed
    try:
        generator = np.random.default_rng(rng)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValidationError("rng", seed, got=rng) from exc

    if client is not None and small_n_threshold is None:
        small_n_threshold, today = service_methodology(client)
        as_of = today if as_of is None else as_of
    elif client is not None and date_to is None and as_of is None:  # its own threshold
        as_of = aggregate_methodology(client.private.aggregate("ev_revenue", "none"))[2]
    threshold = DOCUMENTED_THRESHOLD if small_n_threshold is None else int(small_n_threshold)
    window = resolve_window(
        date_from, date_to, as_of=as_of, time_bucket=time_bucket, conventions=conv
    )
    usable = np.isfinite(values)
    if "deleted" in deals.columns and not include_deleted:
        usable &= ~true_rows(deals["deleted"])
    bucket, codes, counts = bucket_of_rows(times, usable, window, time_bucket)
    if "id" in deals.columns:
        warn_repeated_ids(deals["id"], bucket < len(codes))
    # rows grouped by bucket (a radix sort of small integers), by value too to explain them
    order = np.lexsort((values, bucket)) if explain else np.argsort(bucket, kind="stable")
    order = order[: counts.sum()]  # the rows not used sort last
    result = _statistics(values, order, counts, threshold, conv, in_order=explain)
    meta: dict[str, Any] = {
        "metric": metric,
        "time_bucket": time_bucket,
        "total_deals": int(counts.sum()),
        "outliers_trimmed": int(counts.sum() - result.kept_counts.sum()),
        "methodology": {
            "small_n_threshold": threshold,
            "outlier_rule": conv.outlier_rule,
            "default_date_range_years": conv.window_years,
            "empty_buckets_returned": conv.empty == "return",
            "date_range": {"from": window[0].isoformat(), "to": window[1].isoformat()},
        },
        "conventions": conv.to_dict(),
        # as client.private.aggregate's attrs (docs/frames.md): the window, lifted out
        "date_range": {"from": window[0].isoformat(), "to": window[1].isoformat()},
    }
    labels = np.asarray(bucket_labels(codes, time_bucket), dtype=object)
    if explain:
        of_row = np.repeat(np.arange(len(codes)), counts)
        ids = {"id": _ids(deals["id"], order)} if "id" in deals.columns else {}
        out = pd.DataFrame(
            {
                **ids,
                "date": times[order].astype("datetime64[D]").astype("datetime64[us]"),
                "value": values[order],
                "bucket": pd.array(labels[of_row], dtype="str"),
                "lower": result.bounds[of_row, 0],
                "upper": result.bounds[of_row, 1],
                "kept": result.kept,
                "suppressed": result.suppressed[of_row],
            },
            index=deals.index[order],
        )
        out.attrs.update(meta)
        return out
    stat_counts = result.kept_counts if conv.stats_on == "kept" else counts
    warning = np.full(len(codes), None, dtype=object)
    warning[stat_counts == 0] = "all_trimmed"
    warning[result.suppressed] = "small_n"
    warning[counts == 0] = "empty"
    period_start, period_end = period_bounds(codes, time_bucket, window)
    out = pd.DataFrame(
        {
            "bucket": pd.array(labels, dtype="str"),
            "period_start": period_start,
            "period_end": period_end,
            "n": pd.array(counts if conv.n_counted == "before" else result.kept_counts, "Int64"),
            "median": result.stats[:, 1],
            "q1": result.stats[:, 0],
            "q3": result.stats[:, 2],
            "warning": pd.array(warning, dtype="str"),
        }
    )
    if ci is not None:
        out["median_low"], out["median_high"] = median_intervals(
            result.samples,
            float(ci),
            method=conv.quantile_method,
            n_resamples=int(ci_resamples),
            rng=generator,
        )
        meta["ci"] = {
            "confidence": float(ci),
            "method": "percentile bootstrap",
            "resamples": int(ci_resamples),
        }
    keep = (counts > 0) | (conv.empty == "return")
    if conv.suppressed == "drop":
        keep &= ~result.suppressed
    out = out[keep].reset_index(drop=True)
    out.attrs.update(meta)
    return out


def warn_repeated_ids(ids: pd.Series, used: np.ndarray) -> None:
    """A ``DealframeWarning`` when an ``id`` repeats among the rows ``used``: each row is
    counted as a deal, where the service counts a deal once (a frame of
    ``client.private.investments`` of several investors holds a co-invested deal once per
    investor)."""
    picked = ids[used]
    if picked.is_unique:  # the usual frame: one hash pass (0.25 s for 2,000,000 ids)
        return
    repeated = picked[picked.notna() & picked.duplicated(keep=False)]
    if not len(repeated):
        return
    distinct = repeated.nunique()
    warnings.warn(
        f"repeated deal ids: {distinct:,} among the {len(picked):,} rows used "
        f"({len(repeated):,} rows), each row counted as a deal, where the service counts a "
        'deal once; pass deals.drop_duplicates("id") to count each deal once',
        DealframeWarning,
        stacklevel=user_stacklevel(),
    )


def _ids(ids: pd.Series, order: np.ndarray) -> ExtensionArray:
    """The ``id`` of the explained rows, of the column's own dtype, except text: ids held as
    text (``object`` of strings, Arrow strings) are pandas ``str`` for 0, 1 or N rows, so
    every reader's frame explains alike. Any other ids (numbers, UUID objects, categoricals)
    keep their dtype and values, so ``explain.merge(deals, on="id")`` meets them.

    Examples
    --------
    >>> _ids(pd.Series(["b", "a"], dtype=object), np.array([1, 0], dtype=np.intp)).dtype
    <StringDtype(na_value=nan)>
    >>> _ids(pd.Series(["b", "a"], dtype=object), np.array([], dtype=np.intp)).dtype
    <StringDtype(na_value=nan)>
    >>> _ids(pd.Series([7, 9]), np.array([1], dtype=np.intp)).dtype
    NumpyEADtype('int64')
    >>> import uuid
    >>> _ids(pd.Series([uuid.UUID(int=1)], dtype=object), np.array([0], dtype=np.intp)).dtype
    NumpyEADtype('object')
    """
    ids = plain_column(ids)  # Arrow types as the client's (a dictionary: a categorical)
    picked = ids.iloc[order]
    text = pd.api.types.is_string_dtype(ids.dtype) and (
        ids.dtype != object or pd.api.types.infer_dtype(ids, skipna=True) in ("string", "empty")
    )
    if text:
        picked = picked.astype(pd.StringDtype(na_value=np.nan))
    return picked.array


class _Buckets(NamedTuple):
    kept_counts: np.ndarray
    suppressed: np.ndarray
    bounds: np.ndarray  # (bucket, lower/upper), NaN where not trimmed
    stats: np.ndarray  # (bucket, q1/median/q3)
    samples: list[np.ndarray]  # per bucket, the values the statistics are of
    kept: np.ndarray  # per value (only ``in_order``: the rows explained)


def _statistics(
    values: np.ndarray,
    order: np.ndarray,
    counts: np.ndarray,
    threshold: int,
    conv: Conventions,
    *,
    in_order: bool = False,
) -> _Buckets:
    """Trim and summarise each bucket's run of ``values[order]`` (the rows grouped by bucket).

    Each run is copied, on the thread that summarises it, and arranged by size from
    ``_BY_SIZE_FROM`` values (:func:`_by_size`); numpy selects its quantiles in place, except
    with ``in_order``, where ``kept`` must flag the values in the order given (the rows
    explained).

    Buckets are independent: a large input spreads them over the machine's cores (numpy
    selects without the GIL), on the calling thread and helpers that end with the call.
    """
    method: Any = conv.quantile_method  # numpy's stubs want a literal
    k, before = conv.iqr_multiplier, conv.n_counted == "before"
    out = _Buckets(
        counts.copy(),
        np.zeros(len(counts), dtype=bool),
        np.full((len(counts), 2), np.nan),
        np.full((len(counts), 3), np.nan),
        [values[:0]] * len(counts),
        np.ones(len(order) if in_order else 0, dtype=bool),
    )
    window = None
    if conv.trim_scope == "window" and len(order):
        with np.errstate(all="ignore"):  # as in summarise
            window = np.quantile(values[order], (0.25, 0.75), method=method, overwrite_input=True)
    ends = np.cumsum(counts)

    def summarise(b: int) -> None:
        rows = slice(int(ends[b] - counts[b]), int(ends[b]))
        run = sample = values.take(order[rows])
        if not in_order and counts[b] >= _BY_SIZE_FROM:
            run = sample = _by_size(run)
        # near ±1e308 quantiles overflow, subnormals underflow: ignored whatever the caller's
        # numpy settings (helper threads have numpy's defaults, the calling thread the caller's)
        with np.errstate(all="ignore"):
            if not before or counts[b] >= threshold:
                q1, q3 = (
                    window
                    if window is not None
                    else np.quantile(run, (0.25, 0.75), method=method, overwrite_input=not in_order)
                )
                # + 0.0: a zero is +0.0, whichever of -0.0 and 0.0 numpy selected (which
                # depends on the values' order)
                low, high = out.bounds[b] = q1 - k * (q3 - q1) + 0.0, q3 + k * (q3 - q1) + 0.0
                # no value compares inside a NaN bound
                if conv.inclusive_bounds:
                    kept = run >= low
                    kept &= run <= high
                else:
                    kept = run > low
                    kept &= run < high
                if in_order:
                    out.kept[rows] = kept
                out.kept_counts[b] = np.count_nonzero(kept)
                if conv.stats_on == "kept":
                    sample = run[kept]
            out.suppressed[b] = 0 < (counts[b] if before else out.kept_counts[b]) < threshold
            if len(sample) and not out.suppressed[b]:
                stats = np.quantile(sample, _QUARTILES, method=method, overwrite_input=True)
                out.stats[b] = stats + 0.0  # a zero is +0.0 (see the bounds)
                out.samples[b] = sample

    filled = np.flatnonzero(counts).tolist()
    workers = min(len(filled), _cores()) if len(order) >= _SPREAD_VALUES else 1
    if workers > 1 and not sys.is_finalizing():
        try:
            _spread(summarise, filled, workers)
            return out
        except RuntimeError as exc:  # no new thread at interpreter exit (an atexit handler)
            if "interpreter shutdown" not in str(exc):
                raise
    for b in filled:  # a bucket a helper summarised is summarised again, alike
        summarise(b)
    return out


def _spread(task: Callable[[int], None], items: list[int], workers: int) -> None:
    """``task(item)`` for every item, on the calling thread and ``workers - 1`` helpers that
    end with the call, each taking the next item when done with one: no thread waits while
    items are left, and only the helpers are started (a pool's queue, its per-item futures
    and an idle calling thread cost the GIL's holder more than they spread)."""
    pending = iter(items)
    lock = threading.Lock()

    def drain() -> None:
        while True:
            with lock:
                item = next(pending, None)
            if item is None:
                return
            task(item)

    with ThreadPoolExecutor(workers - 1, thread_name_prefix="dealframe-buckets") as pool:
        helpers = [pool.submit(drain) for _ in range(workers - 1)]
        drain()
        for helper in helpers:
            helper.result()


def _by_size(values: np.ndarray) -> np.ndarray:
    """A copy of ``values`` (finite) arranged roughly by size: in 256 ranges of their float
    bits (a logarithmic scale: the exponent and first bits of the mantissa) from the smallest
    to the largest, by numpy's radix sort of the ranges' numbers.

    The same values, so every quantile of them is the same. But numpy selects a quantile by
    partitioning (introselect), and on values in random order most of its time goes to
    comparisons the CPU mispredicts; on values roughly in order it foresees most of them, and
    a bucket's two selections take half the time, arranging included.

    Examples
    --------
    >>> _by_size(np.array([3.0, 1e9, 0.5, 70.0, 0.01])).tolist()
    [0.01, 0.5, 3.0, 70.0, 1000000000.0]
    """
    bits = values.view(np.int64)
    ordered = bits >> 63  # -1 for a negative number, whose other bits count the other way
    ordered &= np.int64(0x7FFF_FFFF_FFFF_FFFF)
    ordered ^= bits  # integers in the order of the floats
    low = ordered.min()
    shift = max(0, (int(ordered.max()) - int(low)).bit_length() - 8)
    ordered -= low  # from 0 (modulo 2**64: read without its sign)
    ranges = (ordered.view(np.uint64) >> np.uint64(shift)).astype(np.uint8)
    return values[np.argsort(ranges, kind="stable")]


def _cores() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
