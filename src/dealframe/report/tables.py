"""The report's tables, built from the frames the client returned (pure: no I/O).

Each function takes client frames and returns a plain DataFrame that is shown in the
HTML and written as Parquet and CSV, so what a reader sees is what the files hold (the
page only formats numbers, and writes "NM" and "n/a" where the files hold the status).

Examples
--------
>>> import pandas as pd
>>> cur = pd.DataFrame({"name": ["A", "B"], "enterpriseValue": [1.0, 5.0]},
...                    index=pd.Index(["A-USA", "B-USA"], name="sku"))
>>> comps_table(cur).index.tolist()
['B-USA', 'A-USA']
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dealframe._vocab import TIME_BUCKETS
from dealframe._wording import matching
from dealframe.analytics import bucket_medians, reconcile_frames
from dealframe.analytics.buckets import METRIC_COLUMNS, aggregate_methodology
from dealframe.arguments import choice
from dealframe.comparison import PAIRS, Comparison, summarise
from dealframe.errors import ValidationError
from dealframe.plot.compare import deal_groups
from dealframe.plot.shaping import (
    MULTIPLE_BOUNDS,
    meaningful,
    multiple_status,
    partial_periods,
    participant_names,
    participant_rows,
)

__all__ = [
    "COMPS_COLUMNS",
    "bounds_text",
    "comps_display",
    "COMPS_MULTIPLES",
    "ROLLUP_FIELDS",
    "comps_summary",
    "comps_table",
    "multiples_comparison",
    "notable_deals",
    "partial_buckets",
    "quarterly_medians_table",
    "reconciliation_table",
    "rollup_table",
]

#: Columns of the comps table, in order (those the service does not send are left out). Each
#: multiple's denominator (:data:`~dealframe.plot.shaping.MULTIPLE_DENOMINATORS`) is among them,
#: so the table alone carries what its NM rule reads.
COMPS_COLUMNS: tuple[str, ...] = (
    "name",
    "country",
    "marketCap",
    "enterpriseValue",
    "revenueLtm",
    "revenueNtm",
    "ebitdaLtm",
    "ebitdaNtm",
    "evRevenueLtm",
    "evRevenueNtm",
    "evEbitdaLtm",
    "evEbitdaNtm",
    "marginGrossLtm",
    "marginEbitdaLtm",
    "revenueGrowthNtmLtm",
    "ruleOf40",
)
#: The multiples of the comps table, to which the NM rule applies.
COMPS_MULTIPLES: tuple[str, ...] = ("evRevenueLtm", "evRevenueNtm", "evEbitdaLtm", "evEbitdaNtm")
#: Fields of the group rollup shown in the report (the Parquet file holds every field).
ROLLUP_FIELDS: tuple[str, ...] = COMPS_COLUMNS[2:]


def comps_table(current: pd.DataFrame) -> pd.DataFrame:
    """The comps: one row per company of the cohort, largest enterprise value first.

    Parameters
    ----------
    current : DataFrame
        ``client.public.current(skus)`` (index ``sku``).

    Returns
    -------
    DataFrame
        The :data:`COMPS_COLUMNS` present in ``current``, values unchanged, sorted by
        ``enterpriseValue`` descending (missing last), then SKU.

    Examples
    --------
    >>> cur = pd.DataFrame({"name": ["A"], "evRevenueNtm": [2.0], "tags": [["x"]]},
    ...                    index=pd.Index(["A-USA"], name="sku"))
    >>> list(comps_table(cur).columns)
    ['name', 'evRevenueNtm']
    """
    columns = [c for c in COMPS_COLUMNS if c in current.columns]
    table = current[columns].copy()
    table.attrs = {}
    if "enterpriseValue" in table:
        ev = table["enterpriseValue"].to_numpy(dtype=float, na_value=np.nan)
        skus = table.index.to_numpy(dtype=object).astype(str)
        order = np.lexsort((skus, -np.nan_to_num(ev, nan=-np.inf)))
        table = table.iloc[order]
    return table


def _quartiles(values: Any) -> tuple[float, float, float]:
    """q1, median and q3 of the values (NaN when there are none)."""
    if not len(values):
        return np.nan, np.nan, np.nan
    q1, median, q3 = np.quantile(values, (0.25, 0.5, 0.75))
    return float(q1), float(median), float(q3)


def comps_summary(current: pd.DataFrame) -> pd.DataFrame:
    """Median, quartiles and counts of each numeric comps column, NM values left out.

    Returns
    -------
    DataFrame
        Index ``stat``: ``median``, ``q1``, ``q3``, ``n`` (meaningful values), ``nm`` (values
        shown as NM), ``na`` (missing); one column per numeric column of
        :data:`COMPS_COLUMNS`. Multiples follow :func:`dealframe.plot.shaping.multiple_status`;
        other columns count every value present.

    Examples
    --------
    >>> cur = pd.DataFrame({"evRevenueNtm": [1.0, 3.0, 90.0, None], "revenueNtm": [1.0] * 4})
    >>> comps_summary(cur)["evRevenueNtm"].tolist()
    [2.0, 1.5, 2.5, 2.0, 1.0, 1.0]
    """
    out: dict[str, list[float]] = {}
    for column in COMPS_COLUMNS:
        if column not in current or column in ("name", "country"):
            continue
        if column in COMPS_MULTIPLES:
            status = multiple_status(current, column)
            values = meaningful(current, column).dropna()
            nm, na = int((status == "NM").sum()), int((status == "n/a").sum())
        else:
            values = pd.to_numeric(current[column], errors="coerce").dropna()
            nm, na = 0, int(len(current) - len(values))
        q1, median, q3 = _quartiles(values)
        out[column] = [float(v) for v in (median, q1, q3, len(values), nm, na)]
    return pd.DataFrame(out, index=pd.Index(["median", "q1", "q3", "n", "nm", "na"], name="stat"))


def comps_display(comps: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """The comps table as shown: summary rows first (median, quartiles, n), NM as "NM".

    Returns an object frame (numbers stay numbers, for the page's formats); the NM rule
    is applied to the multiples of :data:`COMPS_MULTIPLES`.

    Examples
    --------
    >>> c = pd.DataFrame({"name": ["A"], "evRevenueNtm": [90.0], "revenueNtm": [1.0]},
    ...                  index=pd.Index(["A-USA"], name="sku"))
    >>> comps_display(c, comps_summary(c))["evRevenueNtm"].tolist()
    [nan, nan, nan, '0', 'NM']
    """
    shown = comps.astype(object).copy()
    for column in COMPS_MULTIPLES:
        if column in comps:
            status = multiple_status(comps, column)
            shown.loc[status == "NM", column] = "NM"
    head = summary.loc[["median", "q1", "q3"]].rename(
        index={"median": "Median", "q1": "25th percentile", "q3": "75th percentile"}
    )
    head = head.reindex(columns=shown.columns).astype(object)
    counts = summary.loc["n"].reindex(shown.columns)
    n_row = pd.DataFrame(
        [[f"{int(v):,}" if pd.notna(v) else "" for v in counts]],
        columns=shown.columns,
        index=["n (meaningful)"],
        dtype=object,
    )
    head = pd.concat([head, n_row])
    for column in ("name", "country"):
        if column in head:
            head[column] = ""
    head.index.name = comps.index.name
    return pd.concat([head, shown])


def rollup_table(group_current: pd.DataFrame | None) -> pd.DataFrame:
    """The service's group sums and medians, restricted to the comps' fields.

    Examples
    --------
    >>> gc = pd.DataFrame({"sum": [3.0, np.nan], "median": [np.nan, 1.5]},
    ...                   index=pd.Index(["marketCap", "employeeCount"], name="field"))
    >>> rollup_table(gc).index.tolist()
    ['marketCap']
    """
    if group_current is None:
        return pd.DataFrame(
            {"sum": pd.Series([], dtype=float), "median": pd.Series([], dtype=float)},
            index=pd.Index([], name="field", dtype="str"),
        )
    fields = [f for f in ROLLUP_FIELDS if f in group_current.index]
    table = group_current.loc[fields, ["sum", "median"]].copy()
    table.attrs = {}
    return table


def reconciliation_table(
    service: pd.DataFrame,
    deals: pd.DataFrame,
    metric: str,
    time_bucket: str = "quarter",
    *,
    small_n_threshold: int | None = None,
) -> pd.DataFrame:
    """The service's aggregate beside the same buckets recomputed locally from ``deals``.

    :func:`dealframe.analytics.reconcile`'s own steps
    (:func:`~dealframe.analytics.reconcile_frames`), on deals already pulled with the
    aggregate's filters and window: buckets the service left out match where the local
    count is below its threshold too. ``small_n_threshold`` is the service's threshold
    (the report's :attr:`~dealframe.report.gather.ReportData.small_n_threshold`); None:
    the aggregate's own, 5 when its meta has none.

    Returns
    -------
    DataFrame
        ``compare_buckets``' frame (bucket, ``<stat>_service/_local/_diff``,
        ``match``); ``attrs`` those of ``reconcile`` and ``summary``, ``total_deals`` and
        ``outliers_trimmed`` (service, local).

    Examples
    --------
    >>> svc = bucket_medians(pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 5),
    ...     "ev_revenue": [1.0, 2, 3, 4, 5]}), "ev_revenue", "year", "2024-01-01", "2024-12-31")
    >>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 5),
    ...                       "ev_revenue": [1.0, 2, 3, 4, 5]})
    >>> reconciliation_table(svc, deals, "ev_revenue", "year").attrs["summary"]
    '1 of 1 bucket matches'
    """
    frame = reconcile_frames(
        service, deals, metric, time_bucket, small_n_threshold=small_n_threshold
    ).frame
    attrs = frame.attrs
    left = attrs["left_out_by_service"]
    frame.attrs = {
        **attrs,
        "summary": matching(attrs["matched"], attrs["buckets"], "bucket")
        + (f" ({left} left out by the service, below its threshold here too)" if left else ""),
        **{
            key: (attrs["service_meta"].get(key), attrs["local_meta"].get(key))
            for key in ("total_deals", "outliers_trimmed")
        },
    }
    return frame


_FREQUENCIES = {"month": "M", "quarter": "Q", "year": "Y"}


def partial_buckets(
    frame: pd.DataFrame, window: tuple[str, str], time_bucket: str | None = None
) -> pd.DataFrame:
    """``frame`` with a ``partial`` column: the window covers the bucket only in part.

    The mark ``quarterly`` carries (:func:`~dealframe.plot.shaping.partial_periods`), for
    the report's other tables of buckets: a bucket's period is ``period_start`` to
    ``period_end`` where the frame has them, else that of its ``bucket`` label
    (``YYYY-MM``, ``YYYY-Qn``, ``YYYY`` by ``time_bucket``; ``none``: the window itself,
    never partial). The values are not touched; ``attrs`` are kept.

    Parameters
    ----------
    frame : DataFrame
        A frame of buckets: an aggregate, :func:`quarterly_medians_table`,
        :func:`reconciliation_table`.
    window : (date_from, date_to)
        The dates the buckets are of.
    time_bucket : {"month", "quarter", "year", "none"}, optional
        What a bucket is; default ``frame.attrs["time_bucket"]`` (as the service's aggregate
        and :func:`~dealframe.analytics.bucket_medians` set it), else ``"quarter"``.

    Raises
    ------
    dealframe.errors.ValidationError
        ``time_bucket`` is none of these, or the frame's periods cannot be read: no
        ``bucket`` column (and no ``period_start``/``period_end``), a label that is not of
        ``time_bucket``, a missing or time-zoned period bound.

    Examples
    --------
    >>> t = pd.DataFrame({"bucket": ["2024-Q1", "2024-Q2"], "n": [3, 9]})
    >>> partial_buckets(t, ("2024-02-15", "2024-06-30"))["partial"].tolist()
    [True, False]
    >>> m = pd.DataFrame({"bucket": ["2024-02", "2024-03"], "n": [3, 9]})
    >>> m.attrs["time_bucket"] = "month"
    >>> partial_buckets(m, ("2024-02-01", "2024-03-15"))["partial"].tolist()
    [False, True]
    """
    if time_bucket is None:
        time_bucket = str(frame.attrs.get("time_bucket") or "quarter")
    time_bucket = choice(time_bucket, "time_bucket", TIME_BUCKETS)
    out = frame.copy()
    if not len(frame) or time_bucket == "none":
        out["partial"] = np.zeros(len(frame), dtype=bool)
        return out
    if {"period_start", "period_end"} <= set(frame.columns):
        starts, ends = (_bounds(frame[c], c) for c in ("period_start", "period_end"))
    else:
        starts, ends = _label_periods(frame, time_bucket)
    out["partial"] = partial_periods(starts, ends, window)
    return out


def _bounds(values: pd.Series, name: str) -> pd.Series:
    """A period bound column as naive timestamps, or a ValidationError naming it."""
    expected = "dates of the bucket's period (no missing value, no time zone)"
    try:
        dates = pd.to_datetime(values)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValidationError(name, expected, got=values.astype(str).tolist()[:3]) from exc
    if getattr(dates.dt, "tz", None) is not None or dates.isna().any():
        raise ValidationError(name, expected, got=values.astype(str).tolist()[:3])
    return dates


def _label_periods(frame: pd.DataFrame, time_bucket: str) -> tuple[Any, Any]:
    """First and last day of each ``bucket`` label's period, or a ValidationError."""
    formats = {"month": "YYYY-MM", "quarter": "YYYY-Qn", "year": "YYYY"}
    expected = f"bucket labels of a {time_bucket} ({formats[time_bucket]})"
    if "bucket" not in frame.columns:
        raise ValidationError(
            "frame",
            f"a bucket column or period_start and period_end ({expected})",
            got=f"columns {list(frame.columns)[:10]}",
        )
    labels = frame["bucket"].astype(str).tolist()
    try:
        periods = pd.PeriodIndex([pd.Period(b, freq=_FREQUENCIES[time_bucket]) for b in labels])
    except (TypeError, ValueError, OverflowError) as exc:  # DateParseError is a ValueError
        raise ValidationError("frame.bucket", expected, got=labels[:3]) from exc
    if periods.isna().any():
        raise ValidationError("frame.bucket", expected, got=labels[:3])
    return periods.start_time, periods.end_time


def quarterly_medians_table(
    service: pd.DataFrame,
    deals: pd.DataFrame,
    metric: str,
    small_n: int,
    level: float,
    *,
    small_n_threshold: int | None = None,
) -> pd.DataFrame:
    """Medians per quarter of the meaningful values, by the service's method, with intervals.

    :func:`~dealframe.analytics.bucket_medians` over the deals, in the window and with the
    small-n threshold of the service's aggregate ``service``, after NM multiples are removed
    (EV/Revenue and EV/EBITDA; other metrics keep every value, and then equal the service's
    aggregate). Quarters with fewer than ``small_n`` values get a bootstrap interval at
    ``level`` (``median_low``, ``median_high``; NaN elsewhere). ``small_n_threshold`` is the
    service's threshold (the report's
    :attr:`~dealframe.report.gather.ReportData.small_n_threshold`); None: the aggregate's
    own, read as :func:`reconciliation_table` reads it
    (:func:`~dealframe.analytics.buckets.aggregate_methodology`: ``"3"`` is 3), 5 when its
    meta has none.

    Raises
    ------
    dealframe.errors.ServiceContractError
        The aggregate's meta cannot be read: no ``date_range``, or a threshold that is no
        count (:func:`~dealframe.analytics.buckets.aggregate_methodology`).

    Examples
    --------
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 6),
    ...                   "ev_revenue": [1.0, 2, 3, 4, 5, 80]})
    >>> svc = bucket_medians(d, "ev_revenue", "quarter", "2024-01-01", "2024-03-31")
    >>> t = quarterly_medians_table(svc, d, "ev_revenue", 30, 0.9)
    >>> int(t.loc[0, "n"]), float(t.loc[0, "median"]), bool(t.loc[0, "median_low"] <= 3.0)
    (5, 3.0, True)
    """
    # read as reconciliation_table reads them (aggregate_methodology): "3" is 3, 0 stays 0
    given, date_from, date_to = aggregate_methodology(service)
    if small_n_threshold is not None:
        threshold = small_n_threshold
    else:
        threshold = 5 if given is None else given
    frame = pd.DataFrame(
        {
            "deal_date": deals["deal_date"].to_numpy(),
            "value": (
                meaningful(deals, metric)
                if metric in MULTIPLE_BOUNDS
                else pd.to_numeric(deals[METRIC_COLUMNS[metric]], errors="coerce")
            ).to_numpy(),
        }
    )
    medians = functools.partial(  # the service's window and threshold
        bucket_medians,
        metric=metric,
        time_bucket="quarter",
        date_from=date_from,
        date_to=date_to,
        small_n_threshold=threshold,
        value_column="value",
    )
    table = medians(frame)
    n = pd.to_numeric(table["n"], errors="coerce").fillna(0).to_numpy()
    small = (n > 0) & (n < small_n) & table["median"].notna().to_numpy()
    table["median_low"] = np.nan
    table["median_high"] = np.nan
    if small.any():
        dates = pd.to_datetime(frame["deal_date"])
        keep = np.zeros(len(frame), dtype=bool)
        for start, end in zip(table.loc[small, "period_start"], table.loc[small, "period_end"]):
            keep |= dates.between(pd.Timestamp(start), pd.Timestamp(end)).to_numpy()
        local = medians(frame.loc[keep], ci=level, ci_resamples=4999, rng=0)
        for column in ("median_low", "median_high"):
            table[column] = np.where(small, local[column].to_numpy(dtype=float), np.nan)
    table.attrs = {
        **table.attrs,
        "ci": {
            "confidence": level,
            "method": "percentile bootstrap",
            "resamples": 4999,
            "below_n": small_n,
        },
        "nm_removed": metric in MULTIPLE_BOUNDS,
    }
    return table


def notable_deals(deals: pd.DataFrame, start: str, n: int = 10) -> pd.DataFrame:
    """The largest deals since ``start``: by valuation, else amount raised.

    Returns
    -------
    DataFrame
        ``deal_date``, ``target``, ``country``, ``deal_type``, ``deal_subtype``,
        ``raised``, ``valuation``, ``ev_revenue`` (NaN when not meaningful), ``parties``
        (lead investors or buyers), ``id``; largest first.

    Examples
    --------
    >>> from dealframe.frames.private import deals_frame
    >>> d = deals_frame([{"id": "x", "deal_date": "2024-03-01", "deal_type": "M&A",
    ...     "deal_valuation": 900.0, "target": {"name": "T"},
    ...     "buyers": [{"id": "b", "name": "Buyer"}]}])
    >>> notable_deals(d, "2024-01-01")[["target", "valuation", "parties"]].values.tolist()
    [['T', 900.0, 'Buyer']]
    """
    recent = deals.loc[
        (deals["deal_date"] >= pd.Timestamp(start)).to_numpy(dtype=bool, na_value=False)
    ]
    size = pd.to_numeric(recent["deal_valuation"], errors="coerce").fillna(
        pd.to_numeric(recent["deal_raised"], errors="coerce")
    )
    order = size.sort_values(ascending=False, kind="stable", na_position="last").index
    chosen = recent.loc[order[:n]]
    parties = participant_names(participant_rows(chosen))
    return pd.DataFrame(
        {
            "deal_date": chosen["deal_date"].to_numpy(),
            "target": chosen["target_name"].astype(object).to_numpy(),
            "country": chosen["target_country"].astype(object).to_numpy(),
            "deal_type": chosen["deal_type"].astype(object).to_numpy(),
            "deal_subtype": chosen["deal_subtype"].astype(object).to_numpy(),
            "raised": pd.to_numeric(chosen["deal_raised"], errors="coerce").to_numpy(),
            "valuation": pd.to_numeric(chosen["deal_valuation"], errors="coerce").to_numpy(),
            "ev_revenue": meaningful(chosen, "ev_revenue").to_numpy(),
            "parties": [parties.get(i, None) for i in chosen["id"].astype(object)],
            "id": chosen["id"].astype(object).to_numpy(),
        }
    ).astype(
        dict.fromkeys(["target", "country", "deal_type", "deal_subtype", "parties", "id"], "str")
    )


#: The columns of :func:`multiples_comparison` and their dtypes, for 0, 1 or N rows.
_MULTIPLES_COMPARISON: dict[str, str] = {
    "metric": "str",
    "group": "str",
    "period": "str",
    "n": "int64",
    "nm": "int64",
    "median": "float64",
    "q1": "float64",
    "q3": "float64",
    "vs_public": "float64",
}


def multiples_comparison(comparisons: Mapping[str, Comparison]) -> pd.DataFrame:
    """Median and quartiles of EV/Revenue and EV/EBITDA: the linked public comps against deals.

    Parameters
    ----------
    comparisons : mapping
        Period label to :func:`dealframe.compare_multiples` of the cohort over that period
        (e.g. last 12 months, the window): its ``comps`` (the cohort's listed companies with
        a value in the period, each comp's value the median of its monthly values, linked to
        their Family B company), its ``deals`` (the cohort's deals of the period) and its
        summary's ``attrs`` (the period, ``small_n_threshold``, ``meaningful_only``).

    Returns
    -------
    DataFrame
        ``metric``, ``group`` (public comps, all deals, and funding rounds and M&A when the
        deals hold both), ``period``, ``n`` (the values summarised, before trimming, as the
        service counts), ``nm`` (the values left out as not meaningful), ``median``, ``q1``,
        ``q3`` (of the values kept), ``vs_public`` (the group's median over the public median
        of the same period, minus 1; NaN on the public rows). Every group is summarised by
        :func:`dealframe.comparison.summarise`, the function behind
        :func:`dealframe.compare_multiples`: the public comps and all deals rows are its
        summary (NM values out; both sides trimmed as the service trims them). The same
        columns and dtypes with no comparison.

    Examples
    --------
    >>> from dealframe.comparison import Comparison
    >>> comps = pd.DataFrame({"evRevenueLtm": [2.0, 4.0, 3.0, 5.0, 3.0, -1.0],
    ...                       "evEbitdaLtm": [10.0, 12.0, 11.0, 9.0, 10.0, 10.0]})
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-02-01"] * 5),
    ...                   "deal_type": ["M&A"] * 5, "ev_revenue": [6.0] * 5,
    ...                   "ev_ebitda": [None] * 5})
    >>> summary = pd.DataFrame()
    >>> summary.attrs.update(date_from="2024-01-01", date_to="2024-12-31")
    >>> t = multiples_comparison({"2024": Comparison(summary, d, comps)})
    >>> t.loc[t["metric"] == "ev_revenue", ["group", "n", "nm", "median", "vs_public"]]
           group  n  nm  median  vs_public
    0  public comps  5   1     3.0        NaN
    1     all deals  5   0     6.0        1.0
    """
    summaries = {label: _summaries(comparison) for label, comparison in comparisons.items()}
    rows: list[dict[str, Any]] = []
    for metric in PAIRS:
        for label, by_group in summaries.items():
            public = by_group["all deals"].loc[metric]
            rows.append(_comparison_row(metric, "public comps", label, public, "public", np.nan))
            for group, summary in by_group.items():
                row = summary.loc[metric]
                ratio = (
                    row["private_median"] / public["public_median"] - 1
                    if public["public_median"]
                    else np.nan
                )
                rows.append(_comparison_row(metric, group, label, row, "private", ratio))
    return pd.DataFrame(
        {
            name: pd.array([row[name] for row in rows], dtype=dtype)
            for name, dtype in _MULTIPLES_COMPARISON.items()
        }
    )


def _summaries(comparison: Comparison) -> dict[str, pd.DataFrame]:
    """:func:`~dealframe.comparison.summarise` of each group of deals against the comps, with
    the period, threshold and NM choice of the comparison (``summary.attrs``)."""
    attrs = comparison.summary.attrs
    return {
        group: summarise(
            deals,
            comparison.comps,
            attrs["date_from"],
            attrs["date_to"],
            attrs.get("small_n_threshold", 5),
            meaningful_only=attrs.get("meaningful_only", True),
        )
        for group, deals in deal_groups(comparison.deals).items()
    }


def _comparison_row(
    metric: str, group: str, period: str, summary: pd.Series, side: str, vs_public: float
) -> dict[str, Any]:
    """One row of :func:`multiples_comparison` from a side of a :func:`summarise` row."""
    return {
        "metric": metric,
        "group": group,
        "period": period,
        "n": int(summary[f"{side}_n"]),
        "nm": int(summary[f"{side}_nm"]),
        **{k: float(summary[f"{side}_{k}"]) for k in ("median", "q1", "q3")},
        "vs_public": float(vs_public),
    }


def bounds_text() -> str:
    """The NM rule in one sentence (shown under the comps table and in the methodology)."""
    revenue = MULTIPLE_BOUNDS["evRevenueLtm"]
    ebitda = MULTIPLE_BOUNDS["evEbitdaLtm"]
    return (
        f"NM (not meaningful): a multiple whose denominator (revenue or EBITDA of the same "
        f"period) is zero or negative, whose enterprise value is negative, or that is "
        f"negative or above {revenue:g}x (EV/Revenue) or {ebitda:g}x (EV/EBITDA). NM and "
        f"missing values (n/a) are left out of medians and quartiles."
    )
