"""Proof that a local number means what the service's number means.

:func:`reconcile` pulls the service's aggregate and the deals behind it (same
filters, same window, the service's runtime ``small_n_threshold``), recomputes
the buckets locally with :func:`~dealframe.analytics.bucket_medians`, and lays
the two side by side. :func:`calibrate` tries the conventions the interface
document leaves open and reports which reproduce the service: what a user runs
first against an account whose methodology is unknown.
:func:`reconcile_groups` does the same for the Family A group rollups.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dealframe._vocab import AGGREGATE_METRICS, TIME_BUCKETS
from dealframe._wording import counted, matching
from dealframe.analytics._checks import (
    check,
    check_choice,
    check_frame,
    plain_column,
    tolerance_value,
)
from dealframe.analytics.buckets import aggregate_methodology, aggregate_threshold, bucket_medians
from dealframe.analytics.conventions import Conventions
from dealframe.analytics.periods import check_window, resolve_window
from dealframe.analytics.rollups import group_current, group_time_series
from dealframe.arguments import checked_keywords, integer_in
from dealframe.client import Client
from dealframe.contract import as_count
from dealframe.errors import RequestInfo, ServiceContractError, ValidationError
from dealframe.notices import ServiceContractWarning, missing_held, user_stacklevel, warn_missing
from dealframe.private.aggregate import threshold_read_elsewhere
from dealframe.private.filters import to_date_string
from dealframe.private.suppression import off_threshold
from dealframe.public.api import Month, Strings
from dealframe.public.query import group_body

__all__ = [
    "Reconciliation",
    "calibrate",
    "compare_buckets",
    "reconcile",
    "reconcile_frames",
    "reconcile_groups",
]

_STATS = ("n", "median", "q1", "q3")


class Reconciliation(NamedTuple):
    """A side-by-side frame and its one-line summary.

    What :func:`reconcile`, :func:`reconcile_frames` and :func:`reconcile_groups` return.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per bucket (or field, or month and field): the service's value, the local
        one, their difference, and ``match``; ``attrs`` hold the counts (``matched``,
        ``buckets``) and both sides' meta.
    summary : str
        One line saying how much matched (also the ``str()`` of the result).

    Examples
    --------
    >>> import dealframe, dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
    ...     rec = reconcile(client, "ev_revenue", "year")
    >>> print(rec)
    ev_revenue by year: 6 of 6 buckets match (max |Δ median| 0); total_deals 134 = 134; outliers_trimmed 10 = 10
    >>> rec.frame[["bucket", "n_service", "n_local", "match"]].head(2)
      bucket  n_service  n_local  match
    0   2021         12       12   True
    1   2022         21       21   True
    >>> rec.frame.attrs["matched"] == rec.frame.attrs["buckets"]
    True
    """

    frame: pd.DataFrame
    summary: str

    def __str__(self) -> str:
        return self.summary


def _close(a: pd.Series, b: pd.Series, tolerance: float) -> np.ndarray:
    x = pd.to_numeric(a, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    y = pd.to_numeric(b, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    both_nan = np.isnan(x) & np.isnan(y)
    with np.errstate(invalid="ignore"):
        near = np.abs(x - y) <= tolerance * np.maximum(1.0, np.abs(y))
    # an infinite y made the tolerance infinite: inf matched any number; it matches itself
    near &= np.isfinite(x) & np.isfinite(y)
    return both_nan | near | (np.isinf(x) & (x == y))


def _keys(service: pd.DataFrame, local: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Each bucket's matching key: its ``period_start`` where both frames have one, else its
    label, or the other frame's period of the same label (labels may differ in format)."""

    def periods(frame: pd.DataFrame) -> list[str | None]:
        if "period_start" not in service.columns or "period_start" not in local.columns:
            return [None] * len(frame)
        try:
            starts = pd.to_datetime(frame["period_start"], errors="coerce")
        except (TypeError, ValueError, OverflowError):
            return [None] * len(frame)
        return [None if pd.isna(d) else d.strftime("%Y-%m-%d") for d in starts]

    first = {"s": periods(service), "l": periods(local)}
    labels = {
        "s": service["bucket"].astype(str).tolist(),
        "l": local["bucket"].astype(str).tolist(),
    }
    by_label = {
        side: {lab: key for lab, key in zip(labels[side], first[side], strict=True) if key}
        for side in first
    }
    return tuple(  # type: ignore[return-value]
        [
            key or by_label[other].get(lab) or f"label {lab}"
            for lab, key in zip(labels[side], first[side], strict=True)
        ]
        for side, other in (("s", "l"), ("l", "s"))
    )


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """The label and statistics of an aggregate frame, Arrow columns as the client's frames
    hold them (:func:`~dealframe.analytics._checks.plain_column`)."""
    return pd.DataFrame({c: plain_column(frame[c]) for c in ("bucket", *_STATS)})


@checked_keywords
def compare_buckets(
    service: pd.DataFrame, local: pd.DataFrame, tolerance: float = 1e-9
) -> pd.DataFrame:
    """Bucket-by-bucket comparison of two aggregate frames (pure).

    Buckets are matched by ``period_start`` when both frames have it (so a service that labels
    quarters ``2024Q1`` or ``Q1 2024`` still matches ``2024-Q1``), by label otherwise.

    Parameters
    ----------
    service, local : DataFrame
        Aggregate frames (``bucket``, ``n``, ``median``, ``q1``, ``q3``, and
        ``period_start`` where known): the service's and the local recomputation.
    tolerance : float, default 1e-9
        Relative tolerance (absolute below 1) for a statistic to match.

    Returns
    -------
    DataFrame
        One row per bucket present in either frame: ``bucket`` (the service's label, else the
        local one), ``<stat>_service``, ``<stat>_local``, ``<stat>_diff`` for n, median, q1,
        q3, and ``match`` (every statistic within ``tolerance``, relative above 1, nulls equal
        to nulls).

    Raises
    ------
    dealframe.errors.ValidationError
        A frame without the aggregate's columns, or a negative tolerance.

    Examples
    --------
    >>> s = pd.DataFrame({"bucket": ["2024"], "n": [3], "median": [1.0], "q1": [0.5], "q3": [2.0]})
    >>> compare_buckets(s, s.copy())["match"].tolist()
    [True]
    """
    for name, frame in (("service", service), ("local", local)):
        check_frame(name, frame)
        missing = [c for c in ("bucket", *_STATS) if c not in frame.columns]
        check(
            not missing,
            name,
            "an aggregate frame (bucket, n, median, q1, q3)",
            f"no column(s) {missing}",
        )
    tolerance_value(tolerance)
    service_keys, local_keys = _keys(service, local)
    left = _plain(service).rename(columns={k: f"{k}_service" for k in _STATS})
    right = _plain(local).rename(columns={k: f"{k}_local" for k in _STATS})
    out = left.assign(_key=service_keys).merge(
        right.assign(_key=local_keys), on="_key", how="outer", sort=False, suffixes=("", "_l")
    )
    out["bucket"] = out["bucket"].where(out["bucket"].notna(), out["bucket_l"])
    match = np.ones(len(out), dtype=bool)
    for stat in _STATS:
        s, lo = out[f"{stat}_service"], out[f"{stat}_local"]
        out[f"{stat}_diff"] = pd.to_numeric(lo, errors="coerce").astype("float64") - pd.to_numeric(
            s, errors="coerce"
        ).astype("float64")
        match &= _close(lo, s, tolerance)
    out["match"] = match
    order = [f"{stat}_{side}" for stat in _STATS for side in ("service", "local", "diff")]
    return out[["bucket", *order, "match"]]


def _check_call(
    client: Any,
    metric: Any,
    time_bucket: Any,
    filters: Any,
    conventions: Any,
    tolerance: Any,
    progress: Any,
) -> None:
    check(isinstance(client, Client), "client", "a dealframe.Client", client)
    check(
        filters is None or isinstance(filters, Mapping),
        "filters",
        "a dict of deal filters",
        filters,
    )
    days = {  # no day in any reading, or a range ending before it starts: refused first
        name: to_date_string(value, name)
        for name in ("date_from", "date_to")
        if (value := (filters or {}).get(name)) is not None
        and not isinstance(value, Mapping)  # {op: day}: the client's to check
    }
    if len(days) == 2:
        check_window(days["date_from"], days["date_to"])
    _check_rules(metric, time_bucket, conventions, tolerance)


def _check_rules(metric: Any, time_bucket: Any, conventions: Any, tolerance: Any) -> None:
    """The arguments :func:`reconcile` and :func:`reconcile_frames` share."""
    check_choice("metric", metric, AGGREGATE_METRICS)
    check_choice("time_bucket", time_bucket, TIME_BUCKETS)
    check(
        conventions is None or isinstance(conventions, Conventions),
        "conventions",
        "a Conventions instance or None",
        conventions,
    )
    tolerance_value(tolerance)


def _pull(
    client: Client,
    metric: str,
    time_bucket: str,
    filters: Mapping[str, Any] | None,
    progress: bool | None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """The service aggregate and the deals of its window, with the same filters."""
    filters = dict(filters or {})
    with threshold_read_elsewhere():  # a missing threshold is said once, with the value used
        service = client.private.aggregate(metric, time_bucket, filters)
    unread = [f for f in service.attrs.get("findings") or () if f.get("kind") == "wrong_shape"]
    if unread:  # buckets not read are no evidence of anything: nothing to compare them with
        raise ServiceContractError(
            200,
            f"the service's aggregate could not be read whole ({unread[0]['message']}): "
            "there is nothing to reconcile against",
            finding="wrong_shape",
            request=RequestInfo("POST", "/api/private/v1/transactions/aggregate", "private"),
        )
    threshold = aggregate_threshold(client, service)  # never 5 silently
    context = _context(service, bool(filters.get("include_deleted", False)), threshold)
    deals = client.private.deals(
        {**filters, "date_from": context["date_from"], "date_to": context["date_to"]},
        progress=progress,
    )
    return service, deals, context


def _context(
    service: pd.DataFrame, include_deleted: bool, small_n_threshold: int | None = None
) -> dict[str, Any]:
    """The window and ``small_n_threshold`` of the service's answer: ``small_n_threshold``
    when given (read where the answer has none, :func:`aggregate_threshold`), else the
    answer's (5 when it gives none)."""
    threshold, start, end = aggregate_methodology(service)
    if small_n_threshold is not None:
        threshold = small_n_threshold
    return {
        "date_from": start,
        "date_to": end,
        "small_n_threshold": 5 if threshold is None else threshold,
        "include_deleted": include_deleted,
    }


def _compared(
    service: pd.DataFrame,
    deals: pd.DataFrame,
    metric: str,
    time_bucket: str,
    context: Mapping[str, Any],
    conventions: Conventions | None,
    tolerance: float,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The service's buckets beside the local ones under ``conventions``, and the local ones."""
    local = bucket_medians(
        deals,
        metric,
        time_bucket,
        context["date_from"],
        context["date_to"],
        small_n_threshold=context["small_n_threshold"],
        conventions=conventions,
        include_deleted=context["include_deleted"],
    )
    frame = compare_buckets(service, local, tolerance)
    return _left_out_match(frame, service, context["small_n_threshold"]), local


def _left_out_match(frame: pd.DataFrame, service: pd.DataFrame, threshold: int) -> pd.DataFrame:
    """Buckets the service left out (``attrs["buckets_left_out"]``: its reading of
    "suppressed") match where the local count is below the threshold too."""
    left_out = set(service.attrs.get("buckets_left_out") or ())
    if not left_out:
        return frame
    local_n = pd.to_numeric(frame["n_local"], errors="coerce")
    suppressed = (
        frame["bucket"].isin(left_out)
        & frame["n_service"].isna()
        & (local_n < threshold).fillna(False)
    ).to_numpy(dtype=bool)
    frame.loc[suppressed, "match"] = True
    frame.attrs["left_out"] = int(suppressed.sum())
    return frame


def _same_meta(service: pd.DataFrame, local: pd.DataFrame) -> bool:
    return all(
        service.attrs.get(k) == local.attrs.get(k) for k in ("total_deals", "outliers_trimmed")
    )


def _summary(label: str, frame: pd.DataFrame, service: pd.DataFrame, local: pd.DataFrame) -> str:
    matched = int(frame["match"].sum())
    worst = frame["median_diff"].abs().max()
    worst_text = "n/a" if pd.isna(worst) else f"{worst:.3g}"
    meta = []
    for key in ("total_deals", "outliers_trimmed"):
        s, lo = service.attrs.get(key), local.attrs.get(key)
        meta.append(f"{key} {lo} {'=' if s == lo else '!='} {s}")
    left = frame.attrs.get("left_out_by_service") or 0
    shown = f", {left} left out by the service, below the threshold here too" if left else ""
    return (
        f"{label}: {matching(matched, len(frame), 'bucket')} (max |Δ median| {worst_text}"
        f"{shown}){_off_threshold(frame)}; " + "; ".join(meta)
    )


def _off_threshold(frame: pd.DataFrame) -> str:
    """The words of a summary on mismatched buckets the service suppressed otherwise than
    the threshold used here would (:func:`~dealframe.private.suppression.off_threshold`;
    ``client.private.aggregate`` warns of them as ``threshold_mismatch``, or as
    ``suppression_unexplained`` when no one threshold gives them), or ``""``.

    Examples
    --------
    >>> f = pd.DataFrame({"match": [False, False]})
    >>> f.attrs.update(off_threshold=2, small_n_threshold=10, threshold_followed=[5, 5])
    >>> _off_threshold(f)
    '; 2 of 2 mismatched buckets are suppressed by the service as a threshold of 5 would, not 10'
    >>> f.attrs.update(small_n_threshold=5, threshold_followed=None)
    >>> _off_threshold(f)
    '; 2 of 2 mismatched buckets are suppressed by the service otherwise than a threshold of 5 would, and no one threshold gives it: the threshold differs, or n counts deals without a value'
    """
    off = frame.attrs.get("off_threshold") or 0
    if not off:
        return ""
    followed = frame.attrs.get("threshold_followed")
    threshold = frame.attrs.get("small_n_threshold")
    if followed is None:
        cut = (
            f"otherwise than a threshold of {threshold} would, and no one threshold gives it: "
            "the threshold differs, or n counts deals without a value"
        )
    elif followed[0] == followed[1]:
        cut = f"as a threshold of {followed[1]} would, not {threshold}"
    else:
        cut = f"as a threshold between {followed[0]} and {followed[1]} would, not {threshold}"
    unmatched = int((~frame["match"].to_numpy(dtype=bool)).sum())
    return f"; {off} of {unmatched} mismatched buckets are suppressed by the service {cut}"


@checked_keywords
def reconcile(
    client: Client,
    metric: str,
    time_bucket: str = "quarter",
    filters: Mapping[str, Any] | None = None,
    *,
    conventions: Conventions | None = None,
    tolerance: float = 1e-9,
    progress: bool | None = None,
) -> Reconciliation:
    """The service's aggregate beside the local recomputation from the same deals.

    Parameters
    ----------
    client : dealframe.Client
    metric, time_bucket : str
        As in :meth:`dealframe.private.api.PrivateApi.aggregate`.
    filters : dict, optional
        Deal filters (the window comes from the service's answer).
    conventions : Conventions, optional
        Local conventions (default: the sandbox's, see docs/aggregates.md).
    tolerance : float, default 1e-9
        Relative tolerance (absolute below 1) for a statistic to match.
    progress : bool, optional
        Progress bar of the deal pull (None: the client's ``progress`` setting).

    Returns
    -------
    Reconciliation
        ``frame`` (bucket, service/local/diff per statistic, match) with
        ``attrs`` ``matched``, ``buckets``, ``service_meta`` and ``local_meta``;
        ``summary`` such as ``"ev_revenue by quarter: 21 of 21 buckets match ..."``.

    Examples
    --------
    >>> rec = reconcile(client, "ev_revenue", "year", {"deal_type": ["Venture"]})
    >>> print(rec.summary)
    ev_revenue by year: 6 of 6 buckets match (max |Δ median| 0); total_deals ... = ...; outliers_trimmed ... = ...
    """
    _check_call(client, metric, time_bucket, filters, conventions, tolerance, progress)
    service, deals, context = _pull(client, metric, time_bucket, filters, progress)
    return _reconciled(service, deals, metric, time_bucket, context, conventions, tolerance)


@checked_keywords
def reconcile_frames(
    service: pd.DataFrame,
    deals: pd.DataFrame,
    metric: str,
    time_bucket: str = "quarter",
    *,
    conventions: Conventions | None = None,
    tolerance: float = 1e-9,
    include_deleted: bool = False,
    small_n_threshold: int | None = None,
) -> Reconciliation:
    """:func:`reconcile` on an aggregate and its deals already pulled (no request).

    The same steps as :func:`reconcile`: the service's window and ``small_n_threshold``
    from its answer, :func:`~dealframe.analytics.bucket_medians`, :func:`compare_buckets`,
    and buckets the service left out (``attrs["buckets_left_out"]``) matching where the
    local count is below the threshold too.

    Parameters
    ----------
    service : DataFrame
        ``client.private.aggregate(metric, time_bucket, filters)``.
    deals : DataFrame
        ``client.private.deals`` with the same filters, covering the aggregate's window.
    metric, time_bucket : str
        Those of the aggregate: when ``service.attrs`` names another (as the meta of
        ``client.private.aggregate`` does), a ValidationError.
    conventions, tolerance
        As for :func:`reconcile`.
    include_deleted : bool, default False
        Whether the aggregate was asked with ``include_deleted``.
    small_n_threshold : int, optional
        The service's small-n threshold when the aggregate's meta lacks it (this function
        sends no request to read it elsewhere:
        :func:`~dealframe.analytics.buckets.aggregate_threshold` does). None: the answer's,
        or 5 when it gives none.

    Returns
    -------
    Reconciliation
        As :func:`reconcile` returns (``attrs["deals"]`` is ``len(deals)``).

    Raises
    ------
    dealframe.errors.ValidationError
        An argument of the wrong kind, a ``service`` frame without ``attrs["methodology"]``
        (one read from a file or rebuilt), or a ``metric`` or ``time_bucket`` other than the
        one ``service.attrs`` says (naming the argument and the frame's value).
    dealframe.errors.ServiceContractError
        The aggregate's ``attrs["methodology"]`` has no readable window or threshold.

    Examples
    --------
    >>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 5),
    ...                       "ev_revenue": [1.0, 2, 3, 4, 5]})
    >>> service = bucket_medians(deals, "ev_revenue", "year", "2024-01-01", "2024-12-31")
    >>> reconcile_frames(service, deals, "ev_revenue", "year").frame.attrs["matched"]
    1
    """
    check_frame("service", service)
    check_frame("deals", deals)
    _check_rules(metric, time_bucket, conventions, tolerance)
    _check_same_aggregate(service, metric=metric, time_bucket=time_bucket)
    _check_methodology(service)
    check(isinstance(include_deleted, bool), "include_deleted", "True or False", include_deleted)
    if small_n_threshold is not None:
        small_n_threshold = integer_in(small_n_threshold, "small_n_threshold", 0, None)
    context = _context(service, include_deleted, small_n_threshold)
    return _reconciled(service, deals, metric, time_bucket, context, conventions, tolerance)


def _check_methodology(service: pd.DataFrame) -> None:
    """Refuse a ``service`` frame without ``attrs["methodology"]``: the user's frame (one read
    from a file, or rebuilt, loses its attrs), not the service's answer, is at fault; a
    methodology that is there but unreadable is the service's (a ServiceContractError)."""
    if isinstance(service.attrs.get("methodology"), Mapping):
        return
    columns = ", ".join(map(str, service.columns[:5])) + (", ..." if service.shape[1] > 5 else "")
    raise ValidationError(
        "service",
        "the frame client.private.aggregate returns, with its attrs['methodology'] (window "
        "and small-n threshold): a frame read from a file or rebuilt loses its attrs, so pass "
        "the aggregate frame itself",
        got=f"a frame with no methodology in its attrs (columns: {columns or 'none'})",
    )


def _check_same_aggregate(service: pd.DataFrame, **asked: str) -> None:
    """Refuse a ``metric`` or ``time_bucket`` other than the one ``service.attrs`` says the
    aggregate was asked with (its meta echoes both): the local buckets would be of another
    metric or period, and no bucket could match. An echo that is not one of the document's
    values (or none) says nothing, and is let through."""
    vocabularies = {"metric": AGGREGATE_METRICS, "time_bucket": TIME_BUCKETS}
    for argument, value in asked.items():
        said = service.attrs.get(argument)
        seen = said.strip().casefold() if isinstance(said, str) else None
        check(
            seen not in vocabularies[argument] or seen == value,
            argument,
            f"{seen!r}, the {argument} of the service frame (service.attrs[{argument!r}])",
            value,
        )


def _reconciled(
    service: pd.DataFrame,
    deals: pd.DataFrame,
    metric: str,
    time_bucket: str,
    context: Mapping[str, Any],
    conventions: Conventions | None,
    tolerance: float,
) -> Reconciliation:
    frame, local = _compared(service, deals, metric, time_bucket, context, conventions, tolerance)
    same_meta = _same_meta(service, local)
    threshold = context["small_n_threshold"]
    off = off_threshold(service, threshold)
    unmatched = frame.loc[~frame["match"].to_numpy(dtype=bool), "bucket"].astype(str)
    frame.attrs.update(
        {
            "left_out_by_service": int(frame.attrs.pop("left_out", 0)),
            # mismatches explained: the service cut these buckets by another threshold
            "off_threshold": int(unmatched.isin(off.labels).sum()),
            "threshold_followed": None if off.followed is None else list(off.followed),
            "small_n_threshold": threshold,
            "matched": int(frame["match"].sum()),
            "buckets": len(frame),
            "meta_matches": same_meta,
            "service_meta": dict(service.attrs),
            "local_meta": dict(local.attrs),
            "deals": len(deals),
        }
    )
    return Reconciliation(frame, _summary(f"{metric} by {time_bucket}", frame, service, local))


@checked_keywords
def calibrate(
    client: Client,
    metric: str = "ev_revenue",
    time_bucket: str = "quarter",
    filters: Mapping[str, Any] | None = None,
    *,
    variants: Iterable[Conventions] | None = None,
    tolerance: float = 1e-9,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Which combinations of conventions reproduce the service's aggregate?

    Pulls the aggregate and its deals once, then recomputes locally under each
    variant of :class:`Conventions` (default :meth:`Conventions.variants`).

    Parameters
    ----------
    client, metric, time_bucket, filters, tolerance, progress
        As for :func:`reconcile`.
    variants : iterable of Conventions, optional
        The conventions to try (default: :meth:`Conventions.variants`).

    Returns
    -------
    pandas.DataFrame
        One row per variant, best first: its convention fields, ``buckets_matched``,
        ``buckets``, ``meta_matches`` (``total_deals``, ``outliers_trimmed`` and, without
        ``date_from`` in ``filters``, the start of the variant's default window against the
        service's ``date_range.from``) and ``reproduces`` (every bucket and the meta match).
        What the answer shows or reports every variant takes (:func:`_answer_conventions`),
        so a variant differing only there is tried once: ``window_years`` (the meta's
        ``default_date_range_years``), ``iqr_multiplier`` (its ``outlier_rule``), ``empty``
        (its ``empty_buckets_returned``) and ``suppressed`` (``"drop"`` when buckets holding
        deals are left out of the answer, ``"null_stats"`` when it holds a small-n bucket).
        ``attrs["best"]`` is the first reproducing :class:`Conventions` as a dict
        (:meth:`Conventions.to_dict`; ``Conventions(**best)`` rebuilds it), or None;
        ``attrs["untested"]`` lists the conventions the answer cannot tell apart:
        ``"window_anchor"`` when ``filters`` give ``date_from``, ``time_bucket`` is ``"none"``
        or both anchors give the same default start (its ``date_to`` minus the window's years
        is the first day of a period); ``"suppressed"`` when no bucket of the answer is small
        and none holding deals is left out; ``"empty"`` when the meta does not say
        ``empty_buckets_returned`` and no bucket of the answer is empty. Every attr is JSON,
        so the table can be written to Parquet.

    Examples
    --------
    >>> quick = Conventions.variants(max_changes=1)  # the default, then one change at a time
    >>> table = calibrate(client, "ev_revenue", "quarter", variants=quick)
    >>> table.attrs["best"]
    {'quantile_method': 'linear', 'trim_scope': 'bucket', 'n_counted': 'before', ...}
    """
    _check_call(client, metric, time_bucket, filters, None, tolerance, progress)
    check(
        variants is None or (isinstance(variants, Iterable) and not isinstance(variants, str)),
        "variants",
        "an iterable of Conventions",
        variants,
    )
    variants = list(Conventions.variants() if variants is None else variants)
    check(
        bool(variants) and all(isinstance(v, Conventions) for v in variants),
        "variants",
        "a non-empty iterable of Conventions",
        variants,
    )
    service, deals, context = _pull(client, metric, time_bucket, filters, progress)
    # what the answer shows or reports is no variant's to test: every variant takes it (a
    # variant differing only there is tried once)
    told, untold = _answer_conventions(service, context)
    variants = list(dict.fromkeys(dataclasses.replace(v, **told) for v in variants))
    # the local buckets are computed over the service's window: the anchor acts only on the
    # default window, compared with the service's own start when the filters give none
    anchored = (filters or {}).get("date_from") is None and _anchors_differ(
        variants[0], time_bucket, context
    )
    rows = []
    for variant in variants:
        frame, local = _compared(service, deals, metric, time_bucket, context, variant, tolerance)
        meta = _same_meta(service, local) and (
            not anchored or _default_start(variant, time_bucket, context) == context["date_from"]
        )
        rows.append(
            {
                **{k: getattr(variant, k) for k in variant.__dataclass_fields__},
                "buckets_matched": int(frame["match"].sum()),
                "buckets": len(frame),
                "meta_matches": meta,
                "reproduces": bool(frame["match"].all() and meta),
                "_variant": variant,
            }
        )
    table = pd.DataFrame(rows)
    table = table.sort_values(
        ["reproduces", "buckets_matched", "meta_matches"], ascending=False, kind="stable"
    ).reset_index(drop=True)
    best = table.loc[table["reproduces"], "_variant"]
    table.attrs["best"] = best.iloc[0].to_dict() if len(best) else None
    table.attrs["untested"] = ([] if anchored else ["window_anchor"]) + untold
    return table.drop(columns="_variant")


def _answer_conventions(
    service: pd.DataFrame, context: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The conventions an aggregate answer shows or reports, and those it leaves untold.

    What :meth:`Conventions.variants` takes from its ``base`` rather than varying:

    - ``window_years``: the meta's ``methodology.default_date_range_years``
      (:func:`_service_years`).
    - ``iqr_multiplier``: the ``k`` of the meta's ``methodology.outlier_rule`` (``iqr_<k>``).
    - ``empty``: the meta's ``methodology.empty_buckets_returned`` (true: ``"return"``,
      false: ``"drop"``); without it, ``"return"`` when the answer holds a bucket of ``n`` 0.
    - ``suppressed``: ``"null_stats"`` when the answer holds a bucket with
      ``0 < n < small_n_threshold``; ``"drop"`` when buckets holding deals are left out of
      it (``attrs["deals_left_out"]`` above 0, or ``attrs["buckets_left_out"]`` while the
      meta says empty buckets are returned: what is left out is not empty).

    Parameters
    ----------
    service : DataFrame
        ``client.private.aggregate(...)`` (its ``attrs`` are the meta).
    context : mapping
        The answer's window and ``small_n_threshold`` (``date_to``, ``small_n_threshold``).

    Returns
    -------
    tuple
        ``(told, untold)``: the conventions the answer gives, as ``Conventions`` fields and
        values, and the names of ``suppressed`` and ``empty`` when it gives neither (no
        bucket of the window tells them apart).

    Examples
    --------
    >>> answer = pd.DataFrame({"n": [0, 3, 9]})
    >>> answer.attrs["methodology"] = {"outlier_rule": "iqr_1.5", "default_date_range_years": 5}
    >>> _answer_conventions(answer, {"date_to": "2026-06-30", "small_n_threshold": 5})
    ({'window_years': 5, 'iqr_multiplier': 1.5, 'empty': 'return', 'suppressed': 'null_stats'}, [])
    >>> answer = pd.DataFrame({"n": [9]})
    >>> answer.attrs.update(methodology={"empty_buckets_returned": False}, deals_left_out=4)
    >>> _answer_conventions(answer, {"date_to": "2026-06-30", "small_n_threshold": 5})
    ({'empty': 'drop', 'suppressed': 'drop'}, [])
    """
    method = service.attrs.get("methodology")
    method = method if isinstance(method, Mapping) else {}
    told: dict[str, Any] = {}
    years = _service_years(service, context["date_to"])
    if years is not None:
        told["window_years"] = years
    rule = method.get("outlier_rule")
    if isinstance(rule, str) and (k := re.fullmatch(r"iqr_(\d+(?:\.\d+)?)", rule.strip())):
        told["iqr_multiplier"] = float(k.group(1))
    n = pd.to_numeric(service["n"], errors="coerce") if "n" in service else pd.Series([])
    returned = method.get("empty_buckets_returned")
    if isinstance(returned, bool):
        told["empty"] = "return" if returned else "drop"
    elif (n == 0).any():
        told["empty"] = "return"
    if ((n > 0) & (n < context["small_n_threshold"])).any():
        told["suppressed"] = "null_stats"
    elif (as_count(service.attrs.get("deals_left_out")) or 0) > 0 or (
        returned is True and service.attrs.get("buckets_left_out")
    ):
        told["suppressed"] = "drop"
    return told, [name for name in ("suppressed", "empty") if name not in told]


def _default_start(variant: Conventions, time_bucket: str, context: Mapping[str, Any]) -> str:
    """The ``date_from`` ``variant`` gives by default, ending at the service's ``date_to``."""
    start, _ = resolve_window(
        None, context["date_to"], time_bucket=time_bucket, conventions=variant
    )
    return start.isoformat()


def _anchors_differ(variant: Conventions, time_bucket: str, context: Mapping[str, Any]) -> bool:
    """Whether the two window anchors give ``variant`` different default starts: not with
    ``time_bucket="none"``, nor when ``date_to`` minus the window's years is the first day
    of a period (``2024-03-01`` by month)."""
    starts = {
        _default_start(dataclasses.replace(variant, window_anchor=anchor), time_bucket, context)
        for anchor in ("date_to", "period_start")
    }
    return len(starts) > 1


def _service_years(service: pd.DataFrame, end: str) -> int | None:
    """The length of the service's default window, ``default_date_range_years`` of its
    aggregate answer's ``methodology`` (read as a count, :func:`~dealframe.contract.as_count`),
    or None when it gives none a window ending on ``end`` (``YYYY-MM-DD``) can take: one of
    at least a year, starting after year 1 (said, as a ``ServiceContractWarning``, when the
    service gives one longer).

    Examples
    --------
    >>> answer = pd.DataFrame()
    >>> answer.attrs["methodology"] = {"default_date_range_years": 3}
    >>> _service_years(answer, "2026-06-30"), _service_years(pd.DataFrame(), "2026-06-30")
    (3, None)
    """
    method = service.attrs.get("methodology")
    years = (
        as_count(method.get("default_date_range_years")) if isinstance(method, Mapping) else None
    )
    if years is None or years < 1:
        return None
    if years >= int(end[:4]):
        warnings.warn(
            f"the aggregate's methodology.default_date_range_years is {years}: a window of "
            f"that many years to {end} would start before year 1; the variants' own "
            "window_years are tested instead",
            ServiceContractWarning,
            stacklevel=user_stacklevel(),
        )
        return None
    return years


def _no_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The local side of a group with no member: ``frame``'s columns and dtypes, no row and no
    ``attrs`` (the service's provenance is not the local side's), so that the reconciliation
    frame of an empty group carries the same (no) ``attrs`` as that of a group with members.

    Examples
    --------
    >>> f = pd.DataFrame({"sum": [1.0]})
    >>> f.attrs["endpoint"] = "POST /api/v2/groups/current"
    >>> empty = _no_rows(f)
    >>> len(empty), empty.attrs, f.attrs["endpoint"]
    (0, {}, 'POST /api/v2/groups/current')
    """
    out = frame.iloc[0:0].copy()
    out.attrs = {}
    return out


@checked_keywords
def reconcile_groups(
    client: Client,
    *,
    industries: Strings = None,
    themes: Strings = None,
    regions: Strings = None,
    countries: Strings = None,
    enterprise_value_above: float | None = None,
    fields: Strings = None,
    date_from: Month = None,
    date_to: Month = None,
    version: str = "v2",
    tolerance: float = 1e-9,
) -> tuple[Reconciliation, Reconciliation]:
    """The service's group rollups beside the local ones computed from the members' data.

    The group's members come from search with the same filters; their current
    data and series are pulled and rolled up with :func:`group_current` and
    :func:`group_time_series`.

    Parameters
    ----------
    client : dealframe.Client
    industries, themes, regions, countries, enterprise_value_above : optional
        The group, as in ``client.public.group_current`` (at least one list).
    fields, date_from, date_to : optional
        The time series' fields and months, as in ``client.public.group_time_series``.
    version : {"v2", "v1"}
        The Family A version whose SKUs are used.
    tolerance : float
        Relative tolerance (absolute below 1) for a value to match.

    Returns
    -------
    (Reconciliation, Reconciliation)
        Current data (one row per field and statistic) and time series (one row
        per month and field: ``service``, ``local``, ``diff``, ``both_null`` and
        ``match``). A month-field value null on both sides (``both_null``) matches: neither
        side has a value. Only when the group answer's findings say the service does not
        hold the field at all (a ``missing_field`` finding: no period's ``median`` holds it,
        such as a mistyped name a service ignores) is it no match, and the summary names it
        (``...; 3 month-field values of a field the service does not hold (evRevenueLtn)``).

    Raises
    ------
    dealframe.errors.ValidationError
        An argument that cannot be sent, before any request.
    dealframe.errors.BadRequestError
        The service's refusal of the group time series (a field name it does not take),
        sent first: before any other request.

    Warns
    -----
    dealframe.notices.MissingDataWarning
        One for the whole call, gathering what each client call it made said of missing
        data, named by the call (``reconcile_groups: group_time_series: no value in this
        window: ...; time_series of the 28 members: no value in data of any of the 28 items
        in this window: ...``), not one per call.

    Examples
    --------
    >>> cur, ts = reconcile_groups(client, regions=["Western Europe"])
    >>> print(cur)
    group current: 25 of 25 fields match (... companies)
    """
    check(isinstance(client, Client), "client", "a dealframe.Client", client)
    check_choice("version", version, ("v2", "v1"))
    tolerance_value(tolerance)
    named: dict[str, Any] = {
        "industries": industries,
        "themes": themes,
        "regions": regions,
        "countries": countries,
        "enterprise_value_above": enterprise_value_above,
    }
    group = {k: v for k, v in named.items() if v is not None}
    # every argument checked before the first request (the client's own checks, those
    # group_time_series makes of its fields among them); then the group time series is sent
    # first, so that a field name the service refuses (its 400) fails before other requests
    group_body(group, "reconcile_groups")
    api = client.public_api(version)
    said: dict[str, list[str]] = {}  # what the calls below say of missing data, by whom
    try:
        return _groups_reconciled(api, group, fields, date_from, date_to, tolerance, said)
    finally:
        if said:  # once, at the end: each message once, named by the calls that said it
            joined = "; ".join(f"{', '.join(calls)}: {text}" for text, calls in said.items())
            warn_missing(f"reconcile_groups: {joined}")


@contextmanager
def _saying(said: dict[str, list[str]], call: str) -> Iterator[None]:
    """Hold what the client call made within says of missing data (each
    :class:`~dealframe.notices.MissingDataWarning` it would warn), and add it to ``said``
    (message: the calls that said it) named by ``call``: ``reconcile_groups`` says it in one
    warning, not one per call (the hint of an industry no company carries: once, not 3
    times)."""
    with missing_held() as held:
        try:
            yield
        finally:
            for message in held:
                calls = said.setdefault(message, [])
                if call not in calls:
                    calls.append(call)


def _groups_reconciled(
    api: Any,
    group: dict[str, Any],
    fields: Strings,
    date_from: Month,
    date_to: Month,
    tolerance: float,
    said: dict[str, list[str]],
) -> tuple[Reconciliation, Reconciliation]:
    """:func:`reconcile_groups` once its arguments are checked: ``api`` the client's Family A
    API of the version asked, what its calls say of missing data added to ``said``."""
    with _saying(said, "group_time_series"):
        service_ts = api.group_time_series(
            fields=fields, date_from=date_from, date_to=date_to, **group
        )
    with _saying(said, "search"):
        members = api.search(**group)
    with _saying(said, "group_current"):
        service_cur = api.group_current(**group)
    if len(members):
        with _saying(said, f"current of the {counted(len(members), 'member')}"):
            local_cur = group_current(api.current(members.index))
    else:
        local_cur = _no_rows(service_cur)
    joined = service_cur[["sum", "median"]].join(
        local_cur[["sum", "median"]], how="outer", suffixes=("_service", "_local")
    )
    match = np.ones(len(joined), dtype=bool)
    for stat in ("sum", "median"):
        joined[f"{stat}_diff"] = joined[f"{stat}_local"] - joined[f"{stat}_service"]
        match &= _close(joined[f"{stat}_local"], joined[f"{stat}_service"], tolerance)
    joined["match"] = match
    cur = Reconciliation(
        joined,
        f"group current: {matching(int(match.sum()), len(joined), 'field')} "
        f"({counted(len(members), 'company')})",
    )
    if len(members):
        with _saying(said, f"time_series of the {counted(len(members), 'member')}"):
            wide = api.time_series(
                members.index, fields=fields, date_from=date_from, date_to=date_to
            )
            local_ts = group_time_series(wide)
    else:
        local_ts = _no_rows(service_ts)
    s_long = service_ts.stack(future_stack=True).rename("service")
    l_long = local_ts.drop(columns=[c for c in local_ts.columns if c not in service_ts.columns])
    l_long = l_long.stack(future_stack=True).rename("local")
    ts = pd.concat([s_long, l_long], axis=1)
    ts["diff"] = ts["local"] - ts["service"]
    # a month null on both sides agrees (neither has a value), unless the group answer's
    # findings say the service does not hold the field at all: no match, named in the summary
    ts["both_null"] = ts["local"].isna().to_numpy() & ts["service"].isna().to_numpy()
    unheld = _unheld(ts, service_ts.attrs.get("fields_not_held") or [])
    ts["match"] = _close(ts["local"], ts["service"], tolerance) & ~unheld
    summary = f"group time series: {matching(int(ts['match'].sum()), len(ts), 'month-field value')}"
    return cur, Reconciliation(ts, summary + _said_unheld(ts, unheld))


def _unheld(ts: pd.DataFrame, fields: Iterable[str]) -> np.ndarray:
    """Which rows of a group time-series reconciliation are null on both sides
    (``both_null``) and of one of ``fields``, the fields the service does not hold
    (the group time series' ``attrs["fields_not_held"]``).

    Examples
    --------
    >>> index = pd.MultiIndex.from_product([["2024-01", "2024-02"], ["a", "b"]], names=["month", "field"])
    >>> _unheld(pd.DataFrame({"both_null": [True, True, False, True]}, index=index), ["b"])
    array([False,  True, False,  True])
    """
    of = ts.index.get_level_values("field").isin(list(fields))
    return ts["both_null"].to_numpy(dtype=bool) & np.asarray(of, dtype=bool)


def _said_unheld(ts: pd.DataFrame, unheld: np.ndarray) -> str:
    """The words of a group time-series summary on the rows of fields the service does not
    hold (``unheld``), naming those fields (``; 3 month-field values of a field the service
    does not hold (evRevenueLtn)``), or ``""``.

    Examples
    --------
    >>> index = pd.MultiIndex.from_tuples([("2024-01", "a"), ("2024-01", "b")], names=["month", "field"])
    >>> _said_unheld(pd.DataFrame(index=index), np.array([True, True]))
    '; 2 month-field values of fields the service does not hold (a, b)'
    >>> _said_unheld(pd.DataFrame(index=index), np.array([False, False]))
    ''
    """
    if not unheld.any():
        return ""
    fields = list(dict.fromkeys(map(str, ts.index[unheld].get_level_values("field"))))
    which = (
        "fields the service does not hold"
        if len(fields) > 1
        else "a field the service does not hold"
    )
    return f"; {int(unheld.sum())} month-field values of {which} ({', '.join(fields)})"
