"""Charts of public comps: multiples per company, growth against valuation, group history."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from dealframe._figures import UNCHANGED, change_text, number
from dealframe._wording import counted, plural
from dealframe.arguments import checked_keywords, integer_in, positive_number
from dealframe.errors import ValidationError

from ._base import (
    ACCENT,
    CURRENT_FRAME,
    MUTED,
    SECOND,
    axes_for,
    column_label,
    empty,
    finish,
    frame_with,
)
from .labels import fitting_yticks, place_labels, short_name
from .shaping import MULTIPLE_BOUNDS, meaningful, multiple_status, numbers

__all__ = ["FIELD_LABELS", "comps_multiples", "group_history", "growth_vs_multiple"]

#: Axis text of the Family A fields the charts use.
FIELD_LABELS: dict[str, str] = {
    "evRevenueLtm": "EV / revenue, last twelve months (x)",
    "evRevenueNtm": "EV / revenue, next twelve months (x)",
    "evEbitdaLtm": "EV / EBITDA, last twelve months (x)",
    "evEbitdaNtm": "EV / EBITDA, next twelve months (x)",
    "revenueGrowthNtmLtm": "revenue growth, NTM over LTM (%)",
    "marginEbitdaLtm": "EBITDA margin, LTM (%)",
    "ruleOf40": "rule of 40 (%)",
}
_SHORT = {
    "evRevenueLtm": "EV/Revenue LTM",
    "evRevenueNtm": "EV/Revenue NTM",
    "evEbitdaLtm": "EV/EBITDA LTM",
    "evEbitdaNtm": "EV/EBITDA NTM",
    "revenueGrowthNtmLtm": "growth NTM/LTM",
}


#: The y label of :func:`comps_multiples`, longest first: the first that fits the figure's
#: height (a chart of one company has room for the shortest only).
_COMPANY_LABELS = (
    "company (largest enterprise value first)",
    "company (largest EV first)",
    "company",
)
#: Points between the top of the Axes and the title of :func:`comps_multiples`: room for the
#: one-line legend of the median drawn there.
_LEGEND_PAD = 18.0


def _short(column: Hashable) -> str:
    """A column's short name in titles: its own when the charts know it, else the label as
    text (a column may be labelled ``7`` or ``("a", "evRevenueNtm")``, as pandas allows)."""
    return _SHORT.get(column, str(column)) if isinstance(column, str) else str(column)


def _axis(column: Hashable) -> str:
    """A column's axis text (:data:`FIELD_LABELS`, else the label as text)."""
    return FIELD_LABELS.get(column, column) if isinstance(column, str) else str(column)


def _numeric(frame: pd.DataFrame, argument: str, column: Hashable) -> None:
    """Refuse a column of text (or of flags): it has no value to draw, and would be drawn as
    "n/a" everywhere."""
    dtype = frame[column].dtype
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        numeric = [c for c in frame.columns if c in FIELD_LABELS] or [
            c
            for c in frame.columns
            if pd.api.types.is_numeric_dtype(frame[c].dtype)
            and not pd.api.types.is_bool_dtype(frame[c].dtype)
        ]
        such = f" (such as {', '.join(map(str, numeric[:6]))})" if numeric else ""
        raise ValidationError(argument, f"a numeric column{such}, not one of {dtype}", got=column)


def _bound(bound: Any) -> float | None:
    if bound is None:
        return None
    return positive_number(bound, "bound", what="a multiple above 0 (such as 50) or None")


def _months(index: pd.Index) -> pd.PeriodIndex:
    """The months of a ``group_time_series`` index (periods, or dates as Parquet holds them)."""
    if isinstance(index, pd.PeriodIndex):
        return index
    if not len(index):  # nothing to draw
        return pd.PeriodIndex([], freq="M")
    expected = "a frame indexed by month (client.public.group_time_series)"
    if not isinstance(index, pd.DatetimeIndex) and not (
        index.dtype == object or pd.api.types.is_string_dtype(index.dtype)
    ):
        raise ValidationError("history", expected, got=f"an index of {index.dtype}")
    try:
        return pd.DatetimeIndex(pd.to_datetime(index, format="ISO8601")).to_period("M")
    except (TypeError, ValueError, OverflowError):
        raise ValidationError("history", expected, got=f"index {list(index[:3])}") from None


def _names(frame: pd.DataFrame) -> list[str]:
    if "name" in frame:
        return [str(n) if pd.notna(n) else str(i) for n, i in zip(frame["name"], frame.index)]
    return [str(i) for i in frame.index]


@checked_keywords
def comps_multiples(
    current: pd.DataFrame,
    column: Hashable = "evRevenueNtm",
    *,
    top: int = 25,
    bound: float | None = None,
    ax: Axes | None = None,
) -> Axes:
    """A multiple for the largest companies, with "NM" and "n/a" written where there is no bar.

    Parameters
    ----------
    current : DataFrame
        ``client.public.current(skus)``.
    column : str or hashable, default "evRevenueNtm"
        The multiple (``evRevenueLtm``, ``evEbitdaLtm`` ...): a numeric column of ``current``
        (any label the frame has: ``7``, a tuple of a ``MultiIndex``, written with ``str``).
    top : int, default 25
        Companies shown, largest enterprise value first.
    bound : float, optional
        NM above this, a number above 0 (see :func:`dealframe.plot.shaping.multiple_status`).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        With a dashed line at the median of the meaningful values of *all* companies.

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import alt_text, figure
    >>> cur = pd.DataFrame({"name": ["A", "B", "C"], "enterpriseValue": [9.0, 5.0, 1.0],
    ...                     "evRevenueNtm": [2.0, None, 80.0], "revenueNtm": [4.0, 1.0, 1.0]})
    >>> ax = comps_multiples(cur, ax=figure()[1])
    >>> [t.get_text() for t in ax.texts]
    ['2.0x', 'n/a', 'NM']
    """
    column = column_label(column, "column")
    current = frame_with(current, "current", (column,), CURRENT_FRAME)
    _numeric(current, "column", column)
    top = integer_in(top, "top", 1, None, "a positive integer")
    bound = _bound(bound)
    shown = (
        current.sort_values(
            "enterpriseValue", ascending=False, na_position="last", kind="stable"
        ).head(top)
        if "enterpriseValue" in current
        else current.head(top)
    )
    short = _short(column)
    title = f"{short}, {len(shown):,} largest of {counted(len(current), 'company')}"
    ax = axes_for(ax, 7.0, 0.24 * max(len(shown), 4) + 1.3)
    xlabel = _axis(column)
    if not len(shown):
        return empty(ax, title, xlabel, _COMPANY_LABELS)
    key = cast(str, column)  # any label: the NM rule reads it as pandas does
    status = multiple_status(shown, key, bound).to_numpy()
    values = meaningful(shown, key, bound).to_numpy(dtype=float)
    y = np.arange(len(shown))[::-1]
    ax.barh(y, np.nan_to_num(values), color=ACCENT, height=0.7)
    names = list(_names(shown))
    fitting_yticks(ax, y, lambda n: [short_name(name, n) for name in names], 28)
    ok_all = meaningful(current, key, bound).dropna()
    median = float(ok_all.median()) if len(ok_all) else np.nan
    right = np.nanmax(values) if np.isfinite(values).any() else 1.0
    for yi, v, s in zip(y, values, status):
        text = number(v, "{:.1f}x") if s == "ok" else s
        ax.text(
            (v if s == "ok" else 0) + right * 0.01,
            yi,
            text,
            va="center",
            fontsize=7,
            color="#333333" if s == "ok" else MUTED,
            zorder=4,  # over the median line, which would cross it
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.3},
        )
    ax.set_xlim(0, right * 1.12)
    ax.set_ylim(-0.6, len(shown) - 0.4)
    if np.isfinite(median):
        ax.axvline(
            median,
            color=SECOND,
            linestyle="--",
            linewidth=1.2,
            label=f"median of all {len(ok_all):,} meaningful: " + number(median, "{:.1f}x"),
        )
        # the legend sits over the Axes, under the title and flush right: inside, it hid a
        # bar's value label or sat on the median line, whichever side it took once the Axes
        # were narrow; wider than narrow Axes, it runs left over the names' column
        ax.legend(
            loc="lower right",
            bbox_to_anchor=(1, 1),
            fontsize=8,
            frameon=False,
            borderpad=0,
            borderaxespad=0.4,
            handlelength=1.6,
        )
    counts = {s: int((status == s).sum()) for s in ("NM", "n/a")}
    bound_value = MULTIPLE_BOUNDS.get(key) if bound is None else bound
    above = f" or above {bound_value:g}x" if bound_value is not None else ""
    alt = (
        f"Horizontal bars of {short} for the {len(shown):,} largest of "
        f"{counted(len(current), 'company')} by enterprise value. Median of the "
        f"{counted(len(ok_all), 'meaningful value')}: "
        + (number(median, "{:.1f}x.") if np.isfinite(median) else "n/a.")
        + (
            f" Largest shown: {_names(shown)[int(np.nanargmax(values))]} at "
            + number(np.nanmax(values), "{:.1f}x.")
            if np.isfinite(values).any()
            else ""
        )
        + f" {counts['NM']:,} shown as NM (negative denominator{above}), "
        f"{counts['n/a']:,} as n/a (no value)."
    )
    # the y label is fitted in the layout of the title and x label: a layout of a chart of
    # many bars measures each name and value, seconds for a thousand
    return finish(
        ax,
        title,
        xlabel,
        _COMPANY_LABELS,
        alt,
        grid="x",
        title_pad=_LEGEND_PAD if ax.get_legend() else 6.0,
    )


@checked_keywords
def growth_vs_multiple(
    current: pd.DataFrame,
    x: Hashable = "revenueGrowthNtmLtm",
    y: Hashable = "evRevenueNtm",
    *,
    label_top: int = 8,
    ax: Axes | None = None,
) -> Axes:
    """Revenue growth against a multiple, one point per company, sized by enterprise value.

    The y axis is logarithmic (multiples are log-normal with outliers). The ``label_top``
    largest companies (an integer, 0 for none) are named where a label fits without
    overlapping another (a label that cannot be placed is left out rather than drawn over
    one).

    Parameters
    ----------
    current : pandas.DataFrame
        ``client.public.current(...)``.
    x, y : str or hashable
        Numeric columns of ``current`` for the x and y axes (any labels the frame has).
    label_top : int
        How many of the largest companies to name (0 for none).
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib.axes.Axes
        The chart (:func:`~dealframe.plot.alt_text` gives its alt text).

    Raises
    ------
    dealframe.errors.ValidationError
        ``current`` lacks ``x`` or ``y``, they are not numeric, or ``label_top`` is below 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import figure
    >>> cur = pd.DataFrame({"name": ["A", "B"], "revenueGrowthNtmLtm": [5.0, 20.0],
    ...                     "evRevenueNtm": [2.0, 6.0], "enterpriseValue": [100.0, 900.0],
    ...                     "revenueNtm": [50.0, 150.0]})
    >>> growth_vs_multiple(cur, ax=figure()[1]).get_yscale()
    'log'
    """
    x, y = column_label(x, "x"), column_label(y, "y")
    current = frame_with(current, "current", (x, y), CURRENT_FRAME)
    _numeric(current, "x", x)
    _numeric(current, "y", y)
    label_top = integer_in(label_top, "label_top", 0, None, "an integer of at least 0")
    ax = axes_for(ax, 6.4, 4.2)
    values = meaningful(current, cast(str, y))  # any labels, read as pandas does
    xs = numbers(current, cast(str, x))
    ys = values.to_numpy(dtype=float)
    ok = np.isfinite(xs) & np.isfinite(ys) & (ys > 0)
    short = _short(y)
    title = f"Growth against {short}, {int(ok.sum()):,} of {counted(len(current), 'company')}"
    xlabel, ylabel = _axis(x), _axis(y) + ", log scale"
    if not ok.any():
        return empty(ax, title, xlabel, ylabel)
    ev = (
        numbers(current, "enterpriseValue")
        if "enterpriseValue" in current
        else np.ones(len(current))
    )
    scale = max(
        float(np.nanmax(np.where(ok, ev, np.nan))) if np.isfinite(ev[ok]).any() else 1, 1e-9
    )
    size = 12 + 180 * np.sqrt(np.clip(np.nan_to_num(ev), 0, None) / scale)
    ax.scatter(
        xs[ok], ys[ok], s=size[ok], color=ACCENT, alpha=0.5, edgecolor="white", linewidth=0.6
    )
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    names = _names(current)
    biggest = [i for i in np.argsort(-np.nan_to_num(ev, nan=-1.0), kind="stable") if ok[i]]
    named = biggest[:label_top]
    placed = place_labels(
        ax, [(xs[i], ys[i], short_name(names[i], 22)) for i in named], sizes=size[named].tolist()
    )
    said = "."
    if ok.sum() > 2:
        growth, logs = xs[ok], np.log(ys[ok])
        # an axis without spread leaves it undefined (pandas' rounding made it 0.00 or any)
        same = [what for what, v in (("growth", growth), (short, logs)) if np.ptp(v) == 0]
        corr = pd.Series(growth).corr(pd.Series(logs)) if not same else np.nan
        if same:
            said = (
                "; the correlation of growth with log multiple is undefined (every company "
                f"has the same {same[0]})."
            )
        elif np.isfinite(corr):
            said = f"; correlation of growth with log multiple {number(corr, '{:.2f}')}."
    alt = (
        f"Scatter of {counted(int(ok.sum()), 'company')}: {_axis(x)} on x, "
        f"{short} on a "
        f"log y axis, points sized by enterprise value. Median growth "
        + number(np.median(xs[ok]), "{:.1f}%")
        + f", median {short} "
        + number(np.median(ys[ok]), "{:.1f}x")
        + said
        + f" {counted(placed, 'largest company', 'largest companies')} named."
        + (
            f" {counted(len(current) - int(ok.sum()), 'company')} without both values (or NM) "
            f"{plural(len(current) - int(ok.sum()), 'is', 'are')} not plotted."
            if ok.sum() < len(current)
            else ""
        )
    )
    return finish(ax, title, xlabel, ylabel, alt)


@checked_keywords
def group_history(
    history: pd.DataFrame, column: Hashable = "evRevenueNtm", *, ax: Axes | None = None
) -> Axes:
    """The group's monthly median of a field (``group_time_series``), with the latest value.

    Parameters
    ----------
    history : pandas.DataFrame
        ``client.public.group_time_series(...)``: months by fields.
    column : str or hashable
        The field to draw (any label the frame has).
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure when None).

    Returns
    -------
    matplotlib.axes.Axes
        The chart (:func:`~dealframe.plot.alt_text` gives its alt text).

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import figure
    >>> h = pd.DataFrame({"evRevenueNtm": [1.0, 2.0]},
    ...                  index=pd.period_range("2024-01", periods=2, freq="M"))
    >>> group_history(h, ax=figure()[1]).get_title(loc="left")
    'Median EV/Revenue NTM of the group by month, 2024-01 to 2024-02'
    """
    column = column_label(column, "column")
    history = frame_with(
        history, "history", (column,), "client.public.group_time_series(...) (months by fields)"
    )
    _numeric(history, "column", column)
    months = _months(history.index)
    ax = axes_for(ax, 7.0, 3.6)
    short = _short(column)
    span = f"{months[0]} to {months[-1]}" if len(months) else "no months"
    title = f"Median {short} of the group by month, {span}"
    ylabel = "median " + _axis(column)
    values = numbers(history, cast(str, column))  # any label, read as pandas does
    if not np.isfinite(values).any():
        return empty(ax, title, "month", ylabel)
    x = months.to_timestamp()
    ax.plot(x, values, color=ACCENT, linewidth=2)
    last = int(np.flatnonzero(np.isfinite(values))[-1])
    ax.annotate(
        number(values[last], "{:.2f}x"),
        (x[last], values[last]),
        textcoords="offset points",
        xytext=(4, 4),
        fontsize=9,
        color=ACCENT,
    )
    gaps = int((~np.isfinite(values)).sum())
    companies = history.attrs.get("companies")
    year_ago = last - 12
    change = ""
    if year_ago >= 0 and np.isfinite(values[year_ago]):
        # the headline card's words for the same change: "unchanged" when it rounds to 0%
        moved = change_text(values[last], values[year_ago])
        earlier = number(values[year_ago], "{:.2f}x")
        if moved == UNCHANGED:
            change = f" unchanged from twelve months earlier ({earlier})."
        elif moved != "n/a":
            change = f" {moved} on twelve months earlier ({earlier})."
    alt = (
        f"Line of the group's median {short} by month from {span}"
        + (f", over {counted(companies, 'company')}" if companies else "")
        + f". Latest {months[last]}: {number(values[last], '{:.2f}x')};{change} Range "
        f"{number(np.nanmin(values), '{:.2f}x')} to {number(np.nanmax(values), '{:.2f}x')}."
        + (
            f" {counted(gaps, 'month')} {plural(gaps, 'has', 'have')} no value and "
            f"{plural(gaps, 'leaves', 'leave')} a gap."
            if gaps
            else ""
        )
    )
    return finish(ax, title, "month", ylabel, alt)
