"""Charts of investors: the most active ones in a set of deals, and who co-invests with whom."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from dealframe._wording import counted
from dealframe.arguments import checked_keywords, integer_in
from dealframe.errors import ValidationError

from ._base import ACCENT, PALETTE, SECOND, axes_for, empty, finish
from .labels import fitting_yticks, short_name
from .shaping import co_investment_pairs, investor_activity, participant_rows

__all__ = ["co_investment", "top_investors"]


def _top(top: object) -> int:
    return integer_in(top, "top", 1, None, "a positive integer")


@checked_keywords
def top_investors(deals: pd.DataFrame, *, top: int = 15, ax: Axes | None = None) -> Axes:
    """The investors with the most deals led (funding rounds) or bought (M&A).

    Parameters
    ----------
    deals : DataFrame
        ``client.private.deals(...)``.
    top : int, default 15
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> from dealframe.frames.private import deals_frame
    >>> from dealframe.plot import figure
    >>> d = deals_frame([{"id": "d1", "deal_type": "Venture", "deal_date": "2024-01-02",
    ...                   "lead_investors": [{"id": "a", "name": "A"}]}])
    >>> top_investors(d, ax=figure()[1]).get_title(loc="left")
    'Most active investors: deals led or bought, top 1 of 1 (1 deal)'
    """
    if not isinstance(deals, pd.DataFrame):
        raise ValidationError(
            "deals", "a deals frame (client.private.deals)", got=type(deals).__name__
        )
    everyone = investor_activity(participant_rows(deals), None)
    table = everyone.head(_top(top))
    ax = axes_for(ax, 7.0, 0.26 * max(len(table), 4) + 1.3)
    what = "Most active investors: deals led or bought,"
    ranked = f"top {len(table)} of {len(everyone):,} ({counted(len(deals), 'deal')})"
    title = (f"{what} {ranked}", f"{what}\n{ranked}")  # the first the figure's width holds
    xlabel, ylabel = "deals in the window", "investor"
    if not len(table):
        why = "no lead investor or buyer in these deals" if len(deals) else "no deals"
        return empty(ax, title, xlabel, ylabel, why)
    y = np.arange(len(table))[::-1]
    led = table["led"].to_numpy(dtype=float)
    bought = table["bought"].to_numpy(dtype=float)
    ax.barh(y, led, color=ACCENT, height=0.7, label="led (funding rounds)")
    ax.barh(y, bought, left=led, color=SECOND, height=0.7, label="bought (M&A)")
    names = [str(n) for n in table["name"].astype(object).fillna("?")]
    fitting_yticks(ax, y, lambda n: [short_name(name, n) for name in names], 30)  # narrow: shorter
    for yi, total in zip(y, led + bought):
        ax.text(total, yi, f" {int(total):,}", va="center", fontsize=7)
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    first = table.iloc[0]
    alt = (
        f"Horizontal bars of the {len(table):,} most active of "
        f"{counted(len(everyone), 'investor')} in {counted(len(deals), 'deal')}, split into "
        f"deals led and deals bought. Most active: {first['name']} with "
        f"{counted(int(first['deals']), 'deal')} ({int(first['led']):,} led, "
        f"{int(first['bought']):,} bought); number {len(table):,}: {table.iloc[-1]['name']} with "
        f"{int(table.iloc[-1]['deals']):,}."
    )
    return finish(ax, title, xlabel, ylabel, alt, grid="x")


@checked_keywords
def co_investment(
    co_investors: pd.DataFrame,
    *,
    names: Mapping[str, str] | None = None,
    top: int = 15,
    ax: Axes | None = None,
) -> Axes:
    """Pairs of investors by deals shared, from the service's ``co_investors`` lists.

    Parameters
    ----------
    co_investors : DataFrame
        ``client.private.co_investors(ids)``: complete co-investment of each investor (every
        participant of every deal, not only leads).
    names : mapping, optional
        Names of the investors asked about (id to name).
    top : int, default 15
    ax : matplotlib Axes, optional

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import figure
    >>> co = pd.DataFrame({"investor_id": ["a"], "id": ["b"], "name": ["B"], "shared_deals": [4],
    ...     "first_shared_date": pd.to_datetime(["2024-01-01"]),
    ...     "last_shared_date": pd.to_datetime(["2025-01-01"])})
    >>> co_investment(co, names={"a": "A"}, ax=figure()[1]).get_yticklabels()[0].get_text()
    'A + B'
    """
    pairs = co_investment_pairs(co_investors, names, None)
    shown = pairs.head(_top(top))
    asked = co_investors["investor_id"].nunique() if "investor_id" in co_investors else 0
    ax = axes_for(ax, 7.0, 0.26 * max(len(shown), 4) + 1.3)
    # the first of each that the figure's width holds: the pairs' names push the Axes right
    pairs = f"Co-investment: top {counted(len(shown), 'pair')}"
    title = (f"{pairs} by deals shared", f"{pairs}\nby deals shared")
    lists = f"co-investor lists of {counted(asked, 'investor')}"
    xlabels = (
        f"deals shared (whole history; {lists})",
        f"deals shared (whole history;\n{lists})",
        "deals shared (whole history)",
    )
    ylabel = "pair"
    if not len(shown):
        return empty(ax, title, xlabels, ylabel, "no co-investor listed")
    y = np.arange(len(shown))[::-1]
    ax.barh(y, shown["shared_deals"].to_numpy(dtype=float), color=PALETTE[2], height=0.7)
    duos = [(str(a), str(b)) for a, b in zip(shown["name_a"], shown["name_b"])]
    fitting_yticks(
        ax, y, lambda n: [f"{short_name(a, n)} + {short_name(b, n)}" for a, b in duos], 24
    )
    for yi, n in zip(y, shown["shared_deals"]):
        ax.text(n, yi, f" {int(n):,}", va="center", fontsize=7)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    first = shown.iloc[0]
    alt = (
        f"Horizontal bars of the {counted(len(shown), 'investor pair')} that shared the most "
        f"deals, from the service's co-investor lists of {counted(asked, 'investor')}. Top "
        f"pair: {first['name_a']} and {first['name_b']}, "
        f"{counted(int(first['shared_deals']), 'shared deal')} "
        f"from {pd.Timestamp(first['first_date']).date()} to "
        f"{pd.Timestamp(first['last_date']).date()}; pair {len(shown)}: "
        f"{counted(int(shown.iloc[-1]['shared_deals']), 'shared deal')}."
    )
    return finish(ax, title, xlabels, ylabel, alt, grid="x")
