"""Charts of private deals: deals and capital raised per quarter, median multiples per bucket
(month, quarter or year, as the aggregate was asked for).

Quarters the window covers only in part (a window that starts or ends inside a quarter)
are drawn hatched and pale and labelled "partial", so a one-day quarter never reads as a
collapse. A quarter without a value shows "n/a", never an empty slot that reads as zero.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import blended_transform_factory

from dealframe._figures import money, number
from dealframe._wording import counted, plural
from dealframe.arguments import checked_keywords
from dealframe.contract import first_of
from dealframe.errors import ValidationError
from dealframe.notices import MissingDataWarning, user_stacklevel

from ._base import ACCENT, MUTED, PALETTE, SECOND, axes_for, empty, finish, frame_with, ticks
from .labels import keep_apart
from .shaping import DateWindow, numbers, partial_periods, quarterly_activity

__all__ = ["METRIC_LABELS", "capital_raised", "deals_per_quarter", "quarterly_medians"]

#: Axis text and number format of each aggregate metric.
METRIC_LABELS: dict[str, tuple[str, str]] = {
    "ev_revenue": ("EV/Revenue", "{:.1f}x"),
    "ev_ebitda": ("EV/EBITDA", "{:.1f}x"),
    "valuation": ("valuation ($m)", "{:,.0f}"),
    "raised": ("amount raised ($m)", "{:,.1f}"),
    "revenue": ("revenue ($m)", "{:,.1f}"),
    "ebitda": ("EBITDA ($m)", "{:,.1f}"),
}


#: The label formats of the client's time buckets, to tell a frame's bucket when its ``attrs``
#: do not say (a frame rebuilt from a file).
_BUCKET_LABELS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("quarter", re.compile(r"\d{4}-Q[1-4]")),
    ("month", re.compile(r"\d{4}-\d{2}")),
    ("year", re.compile(r"\d{4}")),
)


def _time_bucket(buckets: pd.DataFrame) -> str:
    """The time bucket of ``buckets``: ``month``, ``quarter`` or ``year`` (``attrs["time_bucket"]``,
    else the format of its labels; ``bucket`` when neither tells), the word of its title, axis
    and alt text. One bucket over the whole window (``"none"``) is refused: a single median
    has no line to draw.

    Examples
    --------
    >>> _time_bucket(pd.DataFrame({"bucket": ["2024-01", "2024-02"]}))
    'month'
    """
    kind = buckets.attrs.get("time_bucket")
    if kind is None:
        labels = buckets["bucket"].dropna().astype(str)
        kind = next(
            (
                name
                for name, form in _BUCKET_LABELS
                if len(labels) and labels.str.fullmatch(form).all()
            ),
            "none" if len(labels) and labels.eq("all").all() else "bucket",
        )
    if kind == "none":
        raise ValidationError(
            "buckets",
            "a frame of month, quarter or year buckets (time_bucket='none' is one median over "
            "the whole window, with no line to draw: read its median column)",
            got="time_bucket 'none'",
        )
    return str(kind) if kind in ("month", "quarter", "year") else "bucket"


def _tick_labels(labels: list[str], partial: np.ndarray) -> list[str]:
    return [f"{q} (partial)" if p else q for q, p in zip(labels, partial)]


def _partial_note(table: pd.DataFrame) -> str:
    rows = table[table["partial"]]
    if not len(rows):
        return ""
    parts = [f"{q} ({counted(d, 'day')})" for q, d in zip(rows.index, rows["days"])]
    return f" Partial quarters, drawn hatched: {', '.join(parts)}."


@checked_keywords
def deals_per_quarter(
    deals: pd.DataFrame, *, window: DateWindow | None = None, ax: Axes | None = None
) -> Axes:
    """Deals per quarter, stacked by deal type.

    Parameters
    ----------
    deals : DataFrame
        ``client.private.deals(...)``.
    window : (date_from, date_to), optional
        Default: the dates the deals were pulled with, else their first and last dates.
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import figure
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-03-31", "2024-05-01"]),
    ...                   "deal_type": ["M&A", "Venture"]})
    >>> ax = deals_per_quarter(d, window=("2024-03-31", "2024-06-30"), ax=figure()[1])
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['2024-Q1 (partial)', '2024-Q2']
    """
    table = quarterly_activity(deals, window)
    ax = axes_for(ax, 7.0, 3.8)
    every = list(table.columns[: list(table.columns).index("total")])
    types = [c for c in every if table[c].sum() > 0]
    total = int(table["total"].sum())
    title = f"Deals per quarter by deal type, n = {total:,}"
    if not total:
        return empty(ax, title, "quarter", "deals", "no deals in the window")
    x = np.arange(len(table))
    partial = table["partial"].to_numpy(dtype=bool)
    bottom = np.zeros(len(table))
    for name in types:  # one colour per deal type, whichever types a cohort has
        values = table[name].to_numpy(dtype=float)
        _bars(ax, x, values, partial, PALETTE[every.index(name) % len(PALETTE)], bottom, name)
        bottom += values
    ticks(ax, _tick_labels(list(table.index), partial))
    _legend_on_top(ax, ax.get_legend_handles_labels()[0], float(np.max(bottom)), partial.any())
    full = table[~table["partial"]]
    busiest = full["total"].idxmax() if len(full) else table["total"].idxmax()
    alt = (
        f"Stacked bars of deals per quarter by deal type, {counted(total, 'deal')} over "
        f"{counted(len(table), 'quarter')} ({table.index[0]} to {table.index[-1]}); the busiest "
        f"quarter was {busiest} with {counted(int(table.loc[busiest, 'total']), 'deal')}."
        + _partial_note(table)
    )
    return finish(ax, title, "quarter", "deals", alt)


def _bars(
    ax: Axes,
    x: np.ndarray,
    values: np.ndarray,
    partial: np.ndarray,
    colour: str,
    bottom: np.ndarray | None = None,
    label: str | None = None,
) -> None:
    """Bars of whole quarters, and those of partial quarters pale and hatched."""
    base = np.zeros(len(x)) if bottom is None else bottom
    whole = ~partial
    ax.bar(x[whole], values[whole], bottom=base[whole], color=colour, width=0.8, label=label)
    if partial.any():
        ax.bar(
            x[partial],
            values[partial],
            bottom=base[partial],
            color=colour,
            width=0.8,
            alpha=0.35,
            hatch="//",
            edgecolor="white",
        )


def _legend_on_top(ax: Axes, handles: list[Any], top: float, partial: bool) -> None:
    """A legend in a band left free over the bars (never over the axis labels), with the
    hatched key of partial quarters when there are any."""
    if partial:
        handles = [
            *handles,
            Patch(facecolor="white", edgecolor=MUTED, hatch="//", label="partial quarter"),
        ]
    ax.set_ylim(0, top * 1.3 if top > 0 else 1)
    ax.legend(
        handles=handles, fontsize=7, frameon=False, loc="upper left", ncols=min(len(handles), 4)
    )


def _na(ax: Axes, x: float, y: float, **where: Any) -> None:
    """The "n/a" written up the slot of a quarter without a value."""
    ax.text(x, y, "n/a", ha="center", fontsize=7, color=MUTED, rotation=90, **where)


@checked_keywords
def capital_raised(
    deals: pd.DataFrame, *, window: DateWindow | None = None, ax: Axes | None = None
) -> Axes:
    """Capital raised per quarter: the sum of the disclosed ``deal_raised`` (millions USD).

    A quarter in which no deal disclosed an amount is marked "n/a" (no bar that reads as 0);
    the number of deals with an amount is written above each bar, upright when side by side
    they would touch (many quarters, or narrow Axes).

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import figure
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-05", "2024-05-01"]),
    ...                   "deal_type": ["M&A", "Venture"], "deal_raised": [None, 12.5]})
    >>> ax = capital_raised(d, window=("2024-01-01", "2024-06-30"), ax=figure()[1])
    >>> [t.get_text() for t in ax.texts]
    ['n/a', 'n=1']
    >>> tuple(map(float, ax.get_xlim()))  # the first quarter, "n/a" only, inside the Axes
    (-0.6, 1.6)
    """
    table = quarterly_activity(deals, window)
    ax = axes_for(ax, 7.0, 3.8)
    disclosed = int(table["raised_n"].sum())
    title = (
        f"Capital raised per quarter, {disclosed:,} of "
        f"{counted(int(table['total'].sum()), 'deal')} disclosed an amount"
    )
    ylabel = "raised (millions USD)"
    if not np.isfinite(table["raised"].to_numpy(dtype=float)).any():
        return empty(ax, title, "quarter", ylabel, "no deal disclosed an amount")
    x = np.arange(len(table))
    raised = table["raised"].to_numpy(dtype=float)
    partial = table["partial"].to_numpy(dtype=bool)
    known = np.isfinite(raised)
    _bars(ax, x[known], raised[known], partial[known], ACCENT)
    top = float(np.nanmax(raised))
    if partial.any():
        _legend_on_top(ax, [], top, True)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: number(v, "{:,.0f}")))
    counts = []  # the n over each bar: turned upright when they would touch
    for xi, value, n in zip(x, raised, table["raised_n"]):
        if np.isfinite(value):
            counts.append(
                ax.text(
                    float(xi),
                    value + top * 0.01,
                    f"n={int(n):,}",
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    color="#555555",
                )
            )
        else:
            _na(ax, float(xi), top * 0.02, va="bottom")
    ticks(ax, _tick_labels(list(table.index), partial))
    # every quarter's slot inside the Axes, an "n/a" quarter at an edge too (its text does
    # not widen the data limits; the bars alone would leave it on the spine)
    ax.set_xlim(-0.6, len(table) - 0.4)
    full = table[~table["partial"] & table["raised"].notna()]
    best = full["raised"].idxmax() if len(full) else table["raised"].idxmax()
    gaps = int((~np.isfinite(raised)).sum())
    alt = (
        f"Bars of capital raised per quarter, {money(float(np.nansum(raised)))} in total "
        f"over {counted(len(table), 'quarter')} from {counted(disclosed, 'deal')} that "
        "disclosed an amount; the "
        f"largest quarter was {best} with {money(float(table.loc[best, 'raised']))}."
        + (
            f" {counted(gaps, 'quarter')} {plural(gaps, 'has', 'have')} no disclosed amount "
            f"and {plural(gaps, 'is', 'are')} marked n/a."
            if gaps
            else ""
        )
        + _partial_note(table)
    )
    finish(ax, title, "quarter", ylabel, alt)
    keep_apart(ax, counts)
    return ax


def _attrs_differ(local: pd.DataFrame, buckets: pd.DataFrame) -> None:
    """Refuse a ``local`` frame its ``attrs`` say is of another metric or time bucket."""
    for key in ("metric", "time_bucket"):
        ours, theirs = buckets.attrs.get(key), local.attrs.get(key)
        if ours is not None and theirs is not None and ours != theirs:
            raise ValidationError(
                "local", f"a bucket frame of the same {key} as buckets ({ours!r})", got=theirs
            )


def _finite_only(drawn: dict[str, np.ndarray], labels: list[str]) -> list[str]:
    """Replace the infinite values of ``drawn`` (statistic: one value per bucket of
    ``labels``) with NaN, so they are not drawn, and name them in a :class:`~dealframe.MissingDataWarning`
    (an infinite median or quartile, read as the service wrote it: ``"Infinity"``). Returns
    the labels of the buckets that had one.

    Examples
    --------
    >>> import warnings
    >>> drawn = {"median": np.array([1.0, np.inf]), "q3": np.array([2.0, -np.inf])}
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     _finite_only(drawn, ["2024-Q1", "2024-Q2"])
    ['2024-Q2']
    >>> drawn["median"].tolist(), str(said[0].message)
    ([1.0, nan], 'quarterly_medians: infinite values not drawn: 2024-Q2 (median inf, q3 -inf)')
    """
    found: dict[str, list[str]] = {}
    for name, values in drawn.items():
        for i in np.flatnonzero(np.isinf(values)):
            found.setdefault(labels[i], []).append(f"{name} {values[i]:g}")
        drawn[name] = np.where(np.isinf(values), np.nan, values)
    if found:
        said = [f"{label} ({', '.join(found[label])})" for label in labels if label in found]
        warnings.warn(
            f"quarterly_medians: infinite values not drawn: {first_of(said, 6)}",
            MissingDataWarning,
            stacklevel=user_stacklevel(),
        )
    return [label for label in labels if label in found]


def _aligned_median(local: Any, buckets: pd.DataFrame) -> np.ndarray:
    """The median of ``local`` on each bucket of ``buckets`` (matched by label; NaN where
    ``local`` has no such bucket), warning about the medians of either that have no bucket
    in the other."""
    local = frame_with(
        local, "local", ("bucket", "median"), "a bucket frame such as analytics.bucket_medians"
    )
    _attrs_differ(local, buckets)
    labels = buckets["bucket"].astype(str).tolist()
    theirs = pd.Series(numbers(local, "median"), index=local["bucket"].astype(str).to_numpy())
    theirs = theirs[~theirs.index.duplicated(keep="first")]
    # a bucket without a median on either side has nothing to compare: not named
    ours = dict(zip(labels, np.isfinite(numbers(buckets, "median"))))
    extra = [b for b, v in theirs.items() if b not in ours and np.isfinite(v)]
    absent = [b for b, has in ours.items() if has and b not in theirs.index]
    aligned = theirs.reindex(labels).to_numpy(dtype=float, na_value=np.nan)
    if extra or absent:
        drawn = int(np.isfinite(aligned).sum())
        parts = [f"local's medians drawn on {drawn} of {counted(len(labels), 'bucket')}"]
        if extra:
            parts.append(
                f"not drawn: {counted(len(extra), 'local bucket')} not in buckets "
                f"({first_of(extra, 6)})"
            )
        if absent:
            parts.append(
                f"no local median for {counted(len(absent), 'bucket')} ({first_of(absent, 6)})"
            )
        warnings.warn(
            "quarterly_medians: " + "; ".join(parts) + " (matched by bucket label)",
            MissingDataWarning,
            stacklevel=user_stacklevel(),
        )
    return aligned


@checked_keywords
def quarterly_medians(
    buckets: pd.DataFrame, *, local: pd.DataFrame | None = None, ax: Axes | None = None
) -> Axes:
    """Median of a deal metric per bucket with its q1-q3 band, n under every bucket.

    The title, the x axis and the alt text name the buckets as they are: months, quarters
    or years (the frame's ``attrs["time_bucket"]``, else the format of its labels). They
    count the deals with a value, or with a meaningful value (NM left out) when the frame's
    ``attrs["nm_removed"]`` is true (its medians and n are of the meaningful multiples only,
    as the report's).

    Parameters
    ----------
    buckets : DataFrame
        ``client.private.aggregate(...)`` or :func:`dealframe.analytics.bucket_medians`
        (``bucket``, ``period_start``, ``period_end``, ``n``, ``median``, ``q1``, ``q3``,
        ``warning``; ``median_low``/``median_high`` from ``ci=`` are drawn as whiskers), by
        month, quarter or year.
    local : DataFrame, optional
        Another bucket frame of the same metric and time bucket (for example
        :func:`dealframe.analytics.bucket_medians` over the same deals), its medians drawn
        as crosses on the buckets of the same label. Its medians on buckets that ``buckets``
        does not have, and the medians of ``buckets`` it has no bucket for, are named in a
        :class:`~dealframe.MissingDataWarning`.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        The chart (:func:`~dealframe.plot.alt_text` gives its alt text).

    Raises
    ------
    dealframe.errors.ValidationError
        ``buckets`` or ``local`` is not a bucket frame, ``buckets`` has one bucket over the
        whole window (``time_bucket="none"``), or ``local`` is of another metric or time
        bucket (as their ``attrs`` say).

    Notes
    -----
    Buckets suppressed by the small-n rule are marked "n<k" at the bottom, empty ones
    "0"; buckets the window covers in part (``attrs["methodology"]["date_range"]``) are
    drawn hollow and labelled "partial" (a ``partial`` column, as the report's
    ``quarterly_medians`` and ``deal_aggregate`` files have, is read as it is). An infinite median, quartile or interval bound (a
    service's ``Infinity``, read as written) is not drawn: a
    :class:`~dealframe.MissingDataWarning` names its buckets, the alt text too, and the n
    row gives their n with the n/a mark.

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import figure
    >>> b = pd.DataFrame({"bucket": ["2024-Q1", "2024-Q2"],
    ...     "period_start": pd.to_datetime(["2024-01-01", "2024-04-01"]),
    ...     "period_end": pd.to_datetime(["2024-03-31", "2024-06-30"]),
    ...     "n": [12, 2], "median": [3.0, None], "q1": [2.0, None], "q3": [4.0, None],
    ...     "warning": [None, "small_n"]})
    >>> b.attrs = {"metric": "ev_revenue", "methodology": {"small_n_threshold": 5}}
    >>> ax = quarterly_medians(b, ax=figure()[1])
    >>> [t.get_text() for t in ax.texts]  # the n row over the chart, n/a where no median
    ['n', '12', 'n/a', '<5']
    """
    needed = ("bucket", "n", "median", "q1", "q3")
    if not isinstance(buckets, pd.DataFrame) or any(c not in buckets for c in needed):
        raise ValidationError(
            "buckets",
            "an aggregate or bucket_medians frame (bucket, n, median, q1, q3 ...)",
            got=type(buckets).__name__,
        )
    word = _time_bucket(buckets)
    labels = buckets["bucket"].astype(str).tolist()
    local_median = None if local is None else _aligned_median(local, buckets)
    drawn = {c: numbers(buckets, c) for c in ("median", "q1", "q3", "median_low", "median_high")}
    if local_median is not None:
        drawn["local median"] = local_median
    infinite = _finite_only(drawn, labels)  # matplotlib refuses an infinite axis limit
    local_median = drawn.get("local median")
    metric = str(buckets.attrs.get("metric", "value"))
    label, fmt = METRIC_LABELS.get(metric, (metric, "{:.2f}"))
    methodology = buckets.attrs.get("methodology") or {}
    threshold = methodology.get("small_n_threshold")
    ax = axes_for(ax, 7.0, 3.9)
    n = pd.to_numeric(buckets["n"], errors="coerce").fillna(0).to_numpy(dtype=int)
    med = drawn["median"]
    # n counts the values the medians are of: every value, or (attrs["nm_removed"], as the
    # report's quarterly medians) the meaningful ones only
    valued = (
        "with a meaningful value (NM left out)"
        if buckets.attrs.get("nm_removed")
        else "with a value"
    )
    title = f"Median {label} per {word}, n = {counted(int(n.sum()), 'deal')} {valued}"
    ylabel = f"median {label}"
    if not len(buckets) or not np.isfinite(med).any():
        why = f"no {word} has a finite median" if infinite else f"no {word} has enough deals"
        return empty(ax, title, word, ylabel, why)
    window = methodology.get("date_range") or {}
    partial = np.zeros(len(buckets), dtype=bool)
    if "partial" in buckets:  # the report's files mark it (read back without their attrs)
        partial = buckets["partial"].astype(object).eq(True).to_numpy(dtype=bool)
    elif window.get("from") and window.get("to") and "period_start" in buckets:
        partial = partial_periods(
            buckets["period_start"], buckets["period_end"], (window["from"], window["to"])
        )
    x = np.arange(len(buckets))
    q1, q3 = drawn["q1"], drawn["q3"]
    ax.fill_between(x, q1, q3, color=ACCENT, alpha=0.15, linewidth=0, label="q1 to q3")
    ax.plot(x, med, color=ACCENT, linewidth=1.8, label="median")
    full = np.isfinite(med) & ~partial
    ax.plot(x[full], med[full], "o", color=ACCENT, markersize=4)
    if (np.isfinite(med) & partial).any():
        part = np.isfinite(med) & partial
        ax.plot(
            x[part],
            med[part],
            "o",
            markerfacecolor="white",
            color=ACCENT,
            markersize=5,
            label=f"partial {word}",
        )
    whiskers = np.full(len(buckets), np.nan)
    if "median_low" in buckets and "median_high" in buckets:
        low, high = drawn["median_low"], drawn["median_high"]
        shown = np.isfinite(low) & np.isfinite(high) & np.isfinite(med)
        whiskers = np.where(shown, high, np.nan)
        if shown.any():
            level = (buckets.attrs.get("ci") or {}).get("confidence", 0.9)
            ax.errorbar(
                x[shown],
                med[shown],
                yerr=[med[shown] - low[shown], high[shown] - med[shown]],
                fmt="none",
                ecolor=SECOND,
                elinewidth=1.2,
                capsize=3,
                label=f"{level:.0%} interval of the median (small n)",
            )
    if local_median is not None:
        ax.plot(x, local_median, "x", color=SECOND, markersize=6, label="recomputed locally")
    row = blended_transform_factory(ax.transData, ax.transAxes)
    ax.text(
        -0.6,
        1.01,
        "n",
        transform=row,
        ha="right",
        va="bottom",
        fontsize=7,
        color="#555555",
        fontweight="bold",
    )
    for xi, count, value, bucket in zip(x, n, med, labels):
        if np.isfinite(value):
            text, colour = f"{count:,}", "#555555"
        else:
            text = f"<{threshold}" if count and threshold else (f"{count:,}" if count else "0")
            text = f"{count:,}" if bucket in infinite else text  # its median was not finite
            colour = SECOND
            _na(ax, float(xi), 0.5, transform=row, va="center")
        ax.text(
            float(xi), 1.01, text, transform=row, ha="center", va="bottom", fontsize=6, color=colour
        )
    ticks(ax, _tick_labels(labels, partial))
    # the "n" of the row over the chart sits left of the first bucket, inside the x range:
    # outside it (one or two buckets leave a narrow range), the layout made room for it and
    # collapsed the Axes
    ax.set_xlim(-0.9, len(buckets) - 0.1)
    low_end = min(0.0, float(np.nanmin(q1)) if np.isfinite(q1).any() else 0.0)
    high_end = float(np.nanmax(np.concatenate([q3, med, whiskers])))  # whiskers under the legend
    ax.set_ylim(low_end, high_end + (high_end - low_end) * 0.3)  # room for the legend
    ax.legend(fontsize=7, frameon=False, loc="upper left", ncols=4)
    last = int(np.flatnonzero(np.isfinite(med))[-1])
    missing = [lab for lab, v in zip(labels, med) if not np.isfinite(v) and lab not in infinite]
    alt = (
        f"Line of the median {label} of deals per {word} from {labels[0]} to {labels[-1]}"
        f" with the q1 to q3 band; {counted(int(n.sum()), 'deal')} {valued}. Latest {word} "
        "with "
        f"a median, {labels[last]}: {number(med[last], fmt)} (n={n[last]:,}). Range of the "
        f"medians {number(np.nanmin(med), fmt)} to {number(np.nanmax(med), fmt)}."
        + (f" No median (too few deals or none) in {', '.join(missing)}." if missing else "")
        + (f" Infinite values not drawn in {', '.join(infinite)}." if infinite else "")
        + (f" Partial {word}s: {', '.join(np.asarray(labels)[partial])}." if partial.any() else "")
    )
    return finish(ax, title, word, ylabel, alt, title_pad=14)
