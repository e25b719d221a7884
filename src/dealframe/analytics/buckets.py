"""IQR-trimmed bucket medians of deal metrics, computed locally.

A reimplementation of ``POST /api/private/v1/transactions/aggregate`` (interface document
section 4.3) following the conventions of ``docs/sandbox.md``, with every open convention a
parameter (:class:`~dealframe.analytics.conventions.Conventions`).

How it works: every deal in the window gets a bucket number (a table lookup), one radix sort
groups the values by bucket, and every quantile, of the trimming bounds and of the statistics,
is :func:`numpy.quantile` of a bucket's slice with the convention's ``method``.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dealframe._vocab import AGGREGATE_METRICS, TIME_BUCKETS
from dealframe.analytics._checks import (
    check,
    check_choice,
    check_frame,
    column,
    date_values,
    metric_values,
    plain_column,
)
from dealframe.analytics.conventions import DEFAULT_CONVENTIONS, Conventions
from dealframe.analytics.intervals import median_intervals
from dealframe.analytics.periods import bucket_labels, bucket_of_rows, period_bounds, resolve_window
from dealframe.arguments import (
    DateLike,
    checked_keywords,
    client_call,
    client_secrets,
    finite_number,
    integer_in,
)
from dealframe.client import Client
from dealframe.contract import as_count, blanked, quoted
from dealframe.errors import RequestInfo, ServiceContractError, ValidationError
from dealframe.frames.private import day_of
from dealframe.notices import ServiceContractWarning, user_stacklevel
from dealframe.private.api import threshold_read_elsewhere

__all__ = ["METRIC_COLUMNS", "aggregate_methodology", "bucket_medians", "service_methodology"]

#: The column of a deals frame each aggregate metric reads (the client's own column names:
#: ``deal_multiples.ev_revenue`` is flattened to ``ev_revenue``).
METRIC_COLUMNS: dict[str, str] = dict(
    zip(
        AGGREGATE_METRICS,
        ("ev_revenue", "ev_ebitda", "deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda"),
    )
)

_QUARTILES = (0.25, 0.5, 0.75)
_MAX_RESAMPLES = 1_000_000


class _Buckets(NamedTuple):
    """Per-bucket results of :func:`_statistics`, and per value (grouped order) ``kept``."""

    counts: np.ndarray
    kept_counts: np.ndarray
    suppressed: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    stats: np.ndarray  # (bucket, q1/median/q3)
    samples: list[np.ndarray]  # per bucket, the values the statistics are computed from
    kept: np.ndarray


def _statistics(
    grouped: np.ndarray,
    counts: np.ndarray,
    threshold: int,
    conv: Conventions,
    overwrite: bool = False,
) -> _Buckets:
    """Trim and summarise every bucket's slice of ``grouped`` (values grouped by bucket, each
    slice sorted): the values kept by the bounds are one run of the slice, found by bisection.

    With ``overwrite``, :func:`numpy.quantile` selects the statistics in place
    (``overwrite_input``) instead of copying the kept values first.
    """
    method: Any = conv.quantile_method  # numpy's stubs want a literal
    k, n_buckets = conv.iqr_multiplier, len(counts)
    trimmed = counts >= max(threshold, 1) if conv.n_counted == "before" else counts > 0
    lower, upper = np.full(n_buckets, np.nan), np.full(n_buckets, np.nan)
    kept_counts, stats = counts.copy(), np.full((n_buckets, 3), np.nan)
    suppressed = np.zeros(n_buckets, dtype=bool)
    kept = np.ones(len(grouped), dtype=bool)
    samples: list[np.ndarray] = [grouped[:0]] * n_buckets
    if conv.trim_scope == "window" and len(grouped):
        window_q1, window_q3 = np.quantile(grouped, (0.25, 0.75), method=method)
    ends = np.cumsum(counts)
    for b in np.flatnonzero(counts).tolist():
        start, end = int(ends[b] - counts[b]), int(ends[b])
        segment = grouped[start:end]
        if trimmed[b]:
            if conv.trim_scope == "window":
                q1, q3 = window_q1, window_q3
            else:  # a copy: the slice stays sorted for the bisection
                q1, q3 = np.quantile(segment, (0.25, 0.75), method=method)
            lower[b], upper[b] = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
            if np.isnan(lower[b]) or np.isnan(upper[b]):
                low = high = 0  # no value compares inside a NaN bound
            else:
                inclusive = conv.inclusive_bounds
                low = int(np.searchsorted(segment, lower[b], "left" if inclusive else "right"))
                high = int(np.searchsorted(segment, upper[b], "right" if inclusive else "left"))
                high = max(low, high)
            kept[start : start + low] = False
            kept[start + high : end] = False
            kept_counts[b] = high - low
        else:
            low, high = 0, end - start
        n = counts[b] if conv.n_counted == "before" else kept_counts[b]
        if 0 < n < threshold:
            suppressed[b] = True
            continue
        values = segment if conv.stats_on == "all" else segment[low:high]
        if len(values):
            stats[b] = np.quantile(values, _QUARTILES, method=method, overwrite_input=overwrite)
            samples[b] = values
    return _Buckets(counts, kept_counts, suppressed, lower, upper, stats, samples, kept)


def _check_arguments(
    deals: Any, metric: Any, time_bucket: Any, value_column: Any, options: dict[str, Any]
) -> None:
    check_frame("deals", deals)
    if value_column is None:
        check_choice("metric", metric, METRIC_COLUMNS)
    check(isinstance(metric, str), "metric", "a name (str)", metric)
    check_choice("time_bucket", time_bucket, TIME_BUCKETS)
    threshold, ci = options["small_n_threshold"], options["ci"]
    if threshold is not None:
        integer_in(threshold, "small_n_threshold", 0, None)
    check(
        isinstance(options["conventions"], Conventions),
        "conventions",
        "a Conventions instance or None",
        options["conventions"],
    )
    check(
        options["client"] is None or isinstance(options["client"], Client),
        "client",
        "a dealframe.Client or None",
        options["client"],
    )
    if ci is not None:
        level = finite_number(ci, "ci", "a confidence level between 0 and 1 (e.g. 0.9)")
        check(0 < level < 1, "ci", "a confidence level between 0 and 1 (e.g. 0.9)", ci)
        check(not options["explain"], "ci", "None with explain=True", ci)
    integer_in(options["ci_resamples"], "ci_resamples", 1, _MAX_RESAMPLES)


def _generator(rng: Any) -> np.random.Generator:
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValidationError(
            "rng", "None, a non-negative integer seed or a numpy Generator", got=rng
        ) from exc


def aggregate_methodology(answer: pd.DataFrame) -> tuple[int | None, str, str]:
    """``small_n_threshold`` (None when absent) and window of an aggregate answer's meta.

    A window bound written with a time of day (``2021-06-30T00:00:00Z``) is its day, a
    threshold written as text (``"5"``) its number. Raises
    :class:`~dealframe.errors.ServiceContractError` naming the meta field, what was expected
    and what came, when the meta has no ``methodology.date_range`` (``missing_field``) or one
    of these cannot be read (``bad_meta``): the answer breaks the interface.

    Examples
    --------
    >>> answer = pd.DataFrame()
    >>> answer.attrs["methodology"] = {"small_n_threshold": "5",
    ...     "date_range": {"from": "2021-06-30T00:00:00Z", "to": "2026-06-30"}}
    >>> aggregate_methodology(answer)
    (5, '2021-06-30', '2026-06-30')
    """
    methodology = answer.attrs.get("methodology")
    window = methodology.get("date_range") if isinstance(methodology, Mapping) else None
    threshold = methodology.get("small_n_threshold") if isinstance(methodology, Mapping) else None
    days = (
        {end: day_of(window.get(end)) for end in ("from", "to")}
        if isinstance(window, Mapping)
        else {}
    )
    problem, kind = None, "bad_meta"
    if not (isinstance(window, Mapping) and window.get("from") and window.get("to")):
        problem = (
            f"meta.methodology.date_range is {quoted(window, 200)}, expected "
            "{'from': 'YYYY-MM-DD', 'to': 'YYYY-MM-DD'}"
            if isinstance(methodology, Mapping)
            else f"meta.methodology is {quoted(methodology, 200)}, expected an object with date_range"
        )
        kind = "missing_field"
    elif unread := [end for end, day in days.items() if not _is_day(day)]:
        problem = (
            f"meta.methodology.date_range.{unread[0]} is {quoted(window[unread[0]], 100)}, "
            "expected a date YYYY-MM-DD"
        )
    elif threshold is not None and as_count(threshold) is None:
        problem = (
            f"meta.methodology.small_n_threshold is {quoted(threshold, 100)}, expected a "
            "non-negative integer"
        )
    if problem is not None:
        raise ServiceContractError(
            200,
            f"aggregate {problem}",
            finding=kind,
            request=RequestInfo("POST", "/api/private/v1/transactions/aggregate", "private"),
        )
    return as_count(threshold), str(days["from"]), str(days["to"])


def _is_day(value: Any) -> bool:
    """Whether ``value`` is a real day written ``YYYY-MM-DD``."""
    try:
        return isinstance(value, str) and len(value) == 10 and bool(dt.date.fromisoformat(value))
    except ValueError:
        return False


@checked_keywords  # one call of the client: an error quoting its answer blanks its tokens
def service_methodology(client: Client) -> tuple[int, str]:
    """The service's runtime ``small_n_threshold`` and current date (``date_range.to``).

    One small aggregate request (``time_bucket="none"``); section 4.3 rule 9 makes the
    runtime value authoritative over the discovery listings. An answer without
    ``meta.methodology.small_n_threshold`` (absent or null) is read further, and the value
    used is said with a :class:`~dealframe.notices.ServiceContractWarning` (a
    ``missing_field``): the answer's ``meta.small_n_threshold`` when the key moved there,
    else the transactions discovery document's ``aggregate.methodology.small_n_threshold``
    (the client's copy: :meth:`~dealframe.private.api.PrivateApi.schema`), else 5, the
    interface document's value in the aggregate response.

    Examples
    --------
    >>> service_methodology(client)  # doctest: +SKIP
    (5, '2026-06-30')
    """
    check(isinstance(client, Client), "client", "a dealframe.Client", client)
    return _runtime(client)


def _runtime(client: Client) -> tuple[int, str]:
    """:func:`service_methodology`. An answer without the threshold is said once: by
    :func:`_threshold_elsewhere`, which names the value used and where it came from (the
    aggregate call leaves that finding to it: ``threshold_read_elsewhere``)."""
    with threshold_read_elsewhere():
        answer = client.private.aggregate("ev_revenue", "none")
    threshold, _, today = aggregate_methodology(answer)
    if threshold is None:
        threshold = _threshold_elsewhere(client, answer)
    return threshold, today


def _service_today(client: Client) -> str:
    """The service's current date (``date_range.to``) for a caller with a threshold of its
    own: an answer without one is said by the aggregate call itself (its ``missing_field``),
    the threshold is not looked for further."""
    _, _, today = aggregate_methodology(client.private.aggregate("ev_revenue", "none"))
    return today


#: The interface document's ``small_n_threshold`` of the aggregate response (section 4.3 rule
#: 9), used only when neither the service's answer nor its discovery document gives one.
DOCUMENTED_THRESHOLD = 5


def _threshold_elsewhere(client: Client, answer: pd.DataFrame) -> int:
    """The ``small_n_threshold`` to use when ``answer``'s meta has no
    ``methodology.small_n_threshold``: its ``meta.small_n_threshold``, else the discovery
    document's, else :data:`DOCUMENTED_THRESHOLD`; which one is said (a warning)."""
    methodology = answer.attrs.get("methodology")
    seen = (
        "null"
        if isinstance(methodology, Mapping) and "small_n_threshold" in methodology
        else "absent"
    )
    moved = as_count(answer.attrs.get("small_n_threshold"))
    listed = client.private.schema("transactions").document.get("aggregate")
    listed = listed.get("methodology") if isinstance(listed, Mapping) else None
    written = listed.get("small_n_threshold") if isinstance(listed, Mapping) else None
    discovered = as_count(written)
    if moved is not None:
        threshold, source = moved, "from the answer's meta.small_n_threshold"
    elif discovered is not None:
        threshold = discovered
        source = (
            "from the transactions discovery document (GET /api/private/v1/lookup/"
            "transactions aggregate.methodology.small_n_threshold)"
        )
    else:
        threshold = DOCUMENTED_THRESHOLD
        listed_as = "absent" if written is None else quoted(written, 100)
        source = (
            "the interface document's value (section 4.3 rule 9): the discovery document "
            f"gives none either (its aggregate.methodology.small_n_threshold is {listed_as})"
        )
    said = (
        f"POST /api/private/v1/transactions/aggregate: missing_field: "
        f"meta.methodology.small_n_threshold is {seen}; small_n_threshold {threshold} used, "
        f"{source}"
    )
    with client_call(client_secrets(client)):  # it quotes the document: as a finding would
        said = blanked(said)
    warnings.warn(said, ServiceContractWarning, stacklevel=user_stacklevel())
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

    Reproduces ``POST /api/private/v1/transactions/aggregate`` locally on any frame of deals,
    with the sandbox's conventions by default; ``docs/aggregates.md`` gives the rules (window,
    buckets, small-n suppression, IQR trimming) and every convention.

    Parameters
    ----------
    deals : DataFrame
        Deals as the client returns them, or any frame with a date and a value column: dates
        as ``datetime64`` (time zones dropped), Arrow ``date32`` / ``timestamp`` (the
        mirror's tables read by polars or ``pd.read_parquet(..., dtype_backend="pyarrow")``),
        ``datetime.date`` objects or ``YYYY-MM-DD`` text; values of any numeric dtype (numpy,
        nullable, Arrow integer, floating point or decimal).
    metric : str
        ev_revenue, ev_ebitda, valuation, raised, revenue or ebitda; with ``value_column`` any
        name (it only labels the result).
    time_bucket : {"quarter", "month", "year", "none"}
    date_from, date_to, as_of : date-like, optional
        Inclusive window; ``date_to`` defaults to ``as_of`` (the service's current date),
        ``date_from`` to ``date_to`` minus 5 calendar years (:func:`resolve_window`).
    small_n_threshold : int, optional
        Buckets with fewer values are suppressed. Default: the service's runtime answer with
        ``client`` (section 4.3 rule 9; an answer without it is read further, with a warning:
        :func:`service_methodology`), else 5.
    conventions : Conventions, optional
        The open conventions (default: the sandbox's).
    explain : bool, default False
        Return one row per deal used instead (see Returns), to audit any median by hand.
    date_column, value_column : str, optional
        Columns of the date (default ``deal_date``) and of the values (default: the metric's).
    include_deleted : bool, default False
        Keep rows whose ``deleted`` column is true.
    client : dealframe.Client, optional
        Asks the service (one small aggregate request) for its ``small_n_threshold`` and,
        without ``date_to`` and ``as_of``, its current date.
    ci, ci_resamples, rng : optional
        ``ci=0.9`` adds ``median_low`` and ``median_high``, a bootstrap interval of each median
        at that level (``scipy.stats.bootstrap``, percentile, ``ci_resamples`` resamples,
        default 9999) over the values the median is computed from; ``rng`` (seed or
        ``numpy.random.Generator``) makes it repeatable. Meant for small buckets: the cost
        grows with ``n * ci_resamples`` (about 0.5 s for 1,000 values and 9,999 resamples).

    Returns
    -------
    DataFrame
        One row per bucket, in order: ``bucket``, ``period_start``, ``period_end`` (the
        calendar period), ``n``, ``median``, ``q1``, ``q3`` (NaN when suppressed or empty),
        ``warning`` (``small_n``, ``empty``, ``all_trimmed`` or missing), with ``ci``
        ``median_low``, ``median_high``. ``attrs``: the service's meta (``metric``,
        ``time_bucket``, ``total_deals``, ``outliers_trimmed``, ``methodology``),
        ``conventions`` (``Conventions(**d)`` rebuilds them) and ``ci``.

        With ``explain=True``: one row per deal in the window with a value, indexed like
        ``deals``, by bucket then value: ``id`` (when ``deals`` has one), ``date``, ``value``,
        ``bucket``, ``lower``, ``upper`` (the bounds, NaN when not trimmed), ``kept`` and
        ``suppressed``. Same ``attrs``.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the argument, for any argument of the wrong type or value, missing or
        non-numeric columns, or a window that cannot be resolved.

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
    _check_arguments(
        deals,
        metric,
        time_bucket,
        value_column,
        dict(
            explain=explain,
            include_deleted=include_deleted,
            small_n_threshold=small_n_threshold,
            conventions=conv,
            client=client,
            ci=ci,
            ci_resamples=ci_resamples,
        ),
    )
    series = column(
        deals,
        METRIC_COLUMNS[metric] if value_column is None else value_column,
        f"the values of {metric}" if value_column is None else "value_column",
    )
    days = date_values(column(deals, date_column, "date_column"))
    values = metric_values(series)
    generator = None if ci is None else _generator(rng)
    if client is not None and small_n_threshold is None:
        small_n_threshold, service_today = _runtime(client)
        as_of = service_today if as_of is None else as_of
    elif client is not None and date_to is None and as_of is None:
        as_of = _service_today(client)
    threshold = 5 if small_n_threshold is None else int(small_n_threshold)
    window = resolve_window(
        date_from, date_to, as_of=as_of, time_bucket=time_bucket, conventions=conv
    )

    usable = np.isfinite(values)
    if "deleted" in deals.columns and not include_deleted:
        deleted = plain_column(deals["deleted"])
        usable &= ~deleted.eq(True).to_numpy(dtype=bool, na_value=False)
    bucket, codes = bucket_of_rows(days, usable, window, time_bucket)
    if explain:  # every value is shown in its place: rows by bucket, then value
        positions = np.lexsort((values, bucket))
    else:  # a radix sort of small integers, then sorted slices (numpy selects fast in them)
        positions = np.argsort(bucket, kind="stable")
    # each bucket's rows are one run of the sorted order (the last run: rows not used)
    bounds = np.searchsorted(bucket[positions], np.arange(len(codes) + 1))
    counts = np.diff(bounds).astype(np.int64)
    positions = positions[: bounds[-1]]
    grouped = values[positions]
    if not explain:
        for end, count in zip(bounds[1:].tolist(), counts.tolist(), strict=True):
            grouped[end - count : end].sort()
    with np.errstate(over="ignore", invalid="ignore"):  # near ±1e308 quantiles overflow
        # numpy may reorder a slice as it selects, unless explain keeps values beside rows
        result = _statistics(grouped, counts, threshold, conv, overwrite=not explain)
    labels = bucket_labels(codes, time_bucket)
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
    }
    if explain:
        return _explain_frame(deals, positions, grouped, labels, result, days, meta)
    out = _bucket_frame(codes, labels, result, conv, time_bucket, window)
    if ci is not None and generator is not None:
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
    keep = ~result.suppressed if conv.suppressed == "drop" else np.ones(len(codes), dtype=bool)
    if conv.empty == "drop":
        keep &= result.counts > 0
    out = out if keep.all() else out.loc[keep].reset_index(drop=True)
    out.attrs.update(meta)
    return out


def _bucket_frame(
    codes: np.ndarray,
    labels: list[str],
    result: _Buckets,
    conv: Conventions,
    time_bucket: str,
    window: tuple[Any, Any],
) -> pd.DataFrame:
    counts, suppressed = result.counts, result.suppressed
    stat_counts = result.kept_counts if conv.stats_on == "kept" else counts
    warning = np.full(len(codes), None, dtype=object)
    warning[(counts > 0) & ~suppressed & (stat_counts == 0)] = "all_trimmed"
    warning[suppressed] = "small_n"
    warning[counts == 0] = "empty"
    period_start, period_end = period_bounds(codes, time_bucket, window)
    n = counts if conv.n_counted == "before" else result.kept_counts
    return pd.DataFrame(
        {
            "bucket": pd.array(labels, dtype="str"),
            "period_start": period_start,
            "period_end": period_end,
            "n": pd.array(n, dtype="Int64"),
            "median": result.stats[:, 1],
            "q1": result.stats[:, 0],
            "q3": result.stats[:, 2],
            "warning": pd.array(warning, dtype="str"),
        }
    )


def _explain_frame(
    deals: pd.DataFrame,
    positions: np.ndarray,
    grouped: np.ndarray,
    labels: list[str],
    result: _Buckets,
    days: np.ndarray,
    meta: dict[str, Any],
) -> pd.DataFrame:
    of_row = np.repeat(np.arange(len(result.counts)), result.counts)
    columns = {"id": deals["id"].to_numpy()[positions]} if "id" in deals.columns else {}
    out = pd.DataFrame(
        {
            **columns,
            "date": days[positions].astype("datetime64[us]"),
            "value": grouped,
            "bucket": pd.array(np.asarray(labels, dtype=object)[of_row], dtype="str"),
            "lower": result.lower[of_row],
            "upper": result.upper[of_row],
            "kept": result.kept,
            "suppressed": result.suppressed[of_row],
        },
        index=deals.index[positions],
    )
    out.attrs.update(meta)
    return out
