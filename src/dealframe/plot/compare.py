"""Private deal multiples beside the public comps of the same cohort."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import cbook
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
from matplotlib.transforms import blended_transform_factory

from dealframe._figures import number
from dealframe._wording import counted
from dealframe.arguments import checked_keywords, choice, integer_in
from dealframe.comparison import measure_side

from ._base import ACCENT, CURRENT_FRAME, PALETTE, SECOND, axes_for, empty, finish, frame_with
from .deals import METRIC_LABELS
from .shaping import DateWindow, deal_window, trimmed_multiples

__all__ = ["PUBLIC_COUNTERPART", "deal_groups", "group_n", "multiple_groups", "private_vs_public"]

#: The Family A field set beside each deal multiple (deal multiples are on trailing figures).
PUBLIC_COUNTERPART: dict[str, str] = {"ev_revenue": "evRevenueLtm", "ev_ebitda": "evEbitdaLtm"}
_DEALS = "client.private.deals(...)"


def group_n(values: pd.Series) -> int:
    """The n of a group of :func:`multiple_groups`: for deals, the values before trimming.

    Examples
    --------
    >>> group_n(pd.Series([1.0, 2.0]))
    2
    """
    return int(values.attrs.get("n", len(values)))


def multiple_groups(
    current: pd.DataFrame,
    deals: pd.DataFrame,
    metric: str = "ev_revenue",
    window: DateWindow | None = None,
    *,
    small_n_threshold: int = 5,
) -> dict[str, pd.Series]:
    """The multiples of each group: public comps, all deals, funding rounds, M&A.

    Every group is reduced to the values that :func:`dealframe.compare_multiples`' method
    keeps (:func:`dealframe.comparison.measure_side`: NM values out, then outliers beyond
    1.5 IQR, and none for a group of fewer than ``small_n_threshold`` values), so a group's
    median is the one :func:`dealframe.compare_multiples` and the report give. Public comps
    are ``current``'s trailing multiple (:data:`PUBLIC_COUNTERPART`), one value per company,
    trimmed as the deals are (like for like). Deals are split by ``deal_type`` (M&A against
    every other type, when there are both). ``attrs["n"]`` of each group is its n: the
    meaningful values before trimming.

    Raises
    ------
    dealframe.errors.ValidationError
        ``metric`` is not one of :data:`PUBLIC_COUNTERPART`, or a frame is not of its kind:
        ``current`` without the public multiple, ``deals`` without ``deal_date`` and the
        deal multiple (two frames swapped, say).

    Examples
    --------
    >>> cur = pd.DataFrame({"evRevenueLtm": [2.0, 3.0, -1.0]})
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 6),
    ...                   "deal_type": ["M&A"] + ["Venture"] * 5,
    ...                   "ev_revenue": [4.0, 9.0, 8.0, 7.0, 6.0, 5.0]})
    >>> {k: group_n(v) for k, v in multiple_groups(cur, d).items()}
    {'public comps': 2, 'all deals': 6, 'funding rounds': 5, 'M&A': 1}
    >>> list(multiple_groups(cur, d.iloc[1:]))
    ['public comps', 'all deals']
    >>> multiple_groups(d, cur)  # the frames swapped
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid current: expected client.public.current(skus) or the comps of dealframe.compare_multiples: a frame with the column(s) evRevenueLtm, got 'a frame with columns deal_date, deal_type, ev_revenue'
    """
    metric = choice(metric, "metric", PUBLIC_COUNTERPART)
    integer_in(small_n_threshold, "small_n_threshold", 0, None)
    current = frame_with(current, "current", (PUBLIC_COUNTERPART[metric],), CURRENT_FRAME)
    deals = frame_with(deals, "deals", ("deal_date", metric), _DEALS)
    first, last = deal_window(deals, window)
    public = measure_side(
        current,
        PUBLIC_COUNTERPART[metric],
        first.date(),
        last.date(),
        small_n_threshold,
        date_column=None,
    ).kept
    groups = {"public comps": public}
    for name, part in deal_groups(deals).items():
        groups[name] = trimmed_multiples(
            part, metric, (first, last), small_n_threshold=small_n_threshold
        )
    return {name: values.reset_index(drop=True) for name, values in groups.items()}


def deal_groups(deals: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The deals of each group: all deals, then funding rounds and M&A when there are both.

    Examples
    --------
    >>> d = pd.DataFrame({"deal_type": ["M&A", "Venture", "Growth"]})
    >>> {name: len(part) for name, part in deal_groups(d).items()}
    {'all deals': 3, 'funding rounds': 2, 'M&A': 1}
    >>> list(deal_groups(d.iloc[1:]))
    ['all deals']
    """
    is_ma = (
        (deals["deal_type"].astype(object) == "M&A").to_numpy(dtype=bool)
        if "deal_type" in deals
        else np.zeros(len(deals), dtype=bool)
    )
    groups = {"all deals": deals}
    if is_ma.any() and not is_ma.all():  # else the one kind of deal is "all deals"
        groups.update({"funding rounds": deals.loc[~is_ma], "M&A": deals.loc[is_ma]})
    return groups


@checked_keywords
def private_vs_public(
    current: pd.DataFrame,
    deals: pd.DataFrame,
    metric: str = "ev_revenue",
    *,
    window: DateWindow | None = None,
    small_n_threshold: int = 5,
    ax: Axes | None = None,
) -> Axes:
    """Box plots of a multiple: the public comps beside the deals (all, rounds, M&A).

    The values of each group are those of :func:`multiple_groups` (both sides: NM values
    out and outliers trimmed as the service trims them, as
    :func:`dealframe.compare_multiples` does), so each box's median line is the median the
    report and :func:`dealframe.compare_multiples` quote.

    Parameters
    ----------
    current : DataFrame
        The cohort's listed companies with their LTM multiples: ``client.public.current(skus)``
        (today's), or the ``comps`` of :func:`dealframe.compare_multiples` (each company's
        median month of the deals' period). It must hold the public multiple
        (:data:`PUBLIC_COUNTERPART`).
    deals : DataFrame
        ``client.private.deals(...)`` of the same cohort (and the period to compare), with
        ``deal_date`` and the deal multiple.
    metric : {"ev_revenue", "ev_ebitda"}
    window : (date_from, date_to), optional
        The deals' window (default: the dates they were pulled with).
    small_n_threshold : int, default 5
        A group with fewer values has no box (the service's threshold:
        ``compare_multiples(...).summary.attrs["small_n_threshold"]``).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        The chart (:func:`~dealframe.plot.alt_text` gives its alt text).

    Raises
    ------
    dealframe.errors.ValidationError
        A frame that is not of its kind (the two swapped, say), or a bad ``metric`` or
        ``window``; see :func:`multiple_groups`.

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import alt_text, figure
    >>> cur = pd.DataFrame({"evRevenueLtm": [2.0, 3.0, 4.0, 3.5, 2.5]})
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 6),
    ...                   "deal_type": ["M&A"] + ["Venture"] * 5,
    ...                   "ev_revenue": [4.0, 9.0, 8.0, 7.0, 6.0, 5.0]})
    >>> ax = private_vs_public(cur, d, ax=figure()[1])
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['public comps\\nn=5', 'all deals\\nn=6', 'funding rounds\\nn=5', 'M&A\\nn=1']
    >>> tuple(map(float, ax.get_ylim()))  # the M&A row, text only, inside the Axes as the others
    (-0.6, 3.6)
    >>> alt_text(ax).split(". ")[-1]
    'M&A: too few values (n=1).'
    """
    groups = multiple_groups(current, deals, metric, window, small_n_threshold=small_n_threshold)
    label = METRIC_LABELS[metric][0]
    ax = axes_for(ax, 7.0, 3.6)
    title = f"{label}: public comps (LTM) against private deals"
    xlabel = f"{label} (x, log scale)"
    ylabel = "group"
    filled = {k: v for k, v in groups.items() if len(v)}
    if not filled:
        return empty(ax, title, xlabel, ylabel)
    names = list(groups)
    y = np.arange(len(names))[::-1]
    colours = (ACCENT, PALETTE[4], PALETTE[2], SECOND)
    zeros: dict[str, int] = {}
    for yi, name, colour in zip(y, names, colours):
        values = groups[name].to_numpy(dtype=float)
        positive = values[values > 0]
        zeros[name] = len(values) - len(positive)
        # the box is of every value kept (its median the one quoted); a log axis cannot
        # draw 0x, so a bound at 0x is drawn at the smallest value it can, and said
        median = float(np.median(values)) if len(values) else np.nan
        if not len(positive) or not median > 0:
            ax.text(
                0.5,
                yi,
                "n/a (too few values)"
                if not len(values)
                else f"median {number(median, '{:.1f}x')} ({_not_drawn(zeros[name])})",
                va="center",
                ha="center",
                fontsize=8,
                color="#888888",
                transform=blended_transform_factory(ax.transAxes, ax.transData),
            )
            continue
        stats = cbook.boxplot_stats(values, whis=1.5)[0]
        low = float(positive.min())
        for key in ("whislo", "q1", "med", "q3", "whishi"):
            stats[key] = max(float(stats[key]), low)
        stats["fliers"] = np.array([])
        box = ax.bxp(
            [stats],
            positions=[yi],
            orientation="horizontal",
            widths=0.55,
            showfliers=False,
            patch_artist=True,
            medianprops={"color": "black"},
        )
        for patch in box["boxes"]:
            patch.set(facecolor=colour, alpha=0.35, edgecolor=colour)
        ax.annotate(number(median, "{:.1f}x"), (median, yi + 0.3), ha="center", fontsize=8)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(y, [f"{k}\nn={group_n(v):,}" for k, v in groups.items()], fontsize=8)
    # every row inside the Axes, a row of text only (no box) at an edge too: the text's
    # blended transform does not widen the data limits, the boxes alone would set them
    ax.set_ylim(-0.6, len(names) - 0.4)
    medians = {k: float(np.median(v)) for k, v in filled.items()}
    parts = [
        f"{k} median {number(m, '{:.1f}x')} (n={group_n(groups[k]):,}"
        + (f"; {_not_drawn(zeros[k])}" if zeros[k] else "")
        + ")"
        for k, m in medians.items()
    ]
    alt = (
        f"Box plots of {label} on a log scale, whiskers at 1.5 IQR, NM values left out and "
        "both sides trimmed as the service trims them: "
        + "; ".join(parts)
        + "."
        + (
            ""
            if len(filled) == len(groups)
            else " "
            + "; ".join(
                f"{k}: too few values (n={group_n(v):,})"
                for k, v in groups.items()
                if k not in filled
            )
            + "."
        )
    )
    return finish(ax, title, xlabel, ylabel, alt, grid="x")


def _not_drawn(zeros: int) -> str:
    """The values a log axis cannot draw, in words.

    Examples
    --------
    >>> _not_drawn(2)
    '2 values of 0x not drawn on the log scale'
    """
    return f"{counted(zeros, 'value')} of 0x not drawn on the log scale"
