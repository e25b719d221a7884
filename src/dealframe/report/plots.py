"""The report's charts: matplotlib figures rendered by the Agg canvas to PNG bytes.

No pyplot: each function builds its own :class:`matplotlib.figure.Figure` on a
:class:`~matplotlib.backends.backend_agg.FigureCanvasAgg`, so nothing global
(backend, current figure) is touched and the functions are safe inside a
notebook or a thread. Every function accepts empty tables and then draws a
"no data" figure.

Examples
--------
>>> import pandas as pd
>>> png = valuation_line(pd.DataFrame({"evRevenueNtm": [1.0, 2.0]},
...                      index=pd.period_range("2024-01", periods=2, freq="M")))
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "activity_bars",
    "aggregate_band",
    "comps_bars",
    "growth_scatter",
    "investor_bars",
    "pair_bars",
    "valuation_line",
]

_DPI = 100
_ACCENT = "#1f5f8b"
_MUTED = "#9aa5b1"
_PALETTE = ("#1f5f8b", "#e07b39", "#3a9d5d", "#c0392b", "#8e6bb8", "#7f8c8d", "#d4a017",
            "#17a2b8")


def _figure(width: float = 7.0, height: float = 3.6) -> tuple[Figure, object]:
    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="y", color="#e5e8eb", linewidth=0.8)
    ax.set_axisbelow(True)
    return fig, ax


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI)
    return buffer.getvalue()


def _empty(ax: object, title: str) -> None:
    ax.set_title(title, loc="left", fontsize=11)
    ax.text(0.5, 0.5, "no data", ha="center", va="center", color=_MUTED, fontsize=14,
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _tick_every(labels: Sequence[str], ax: object, most: int = 12) -> None:
    step = max(1, int(np.ceil(len(labels) / most)))
    ax.set_xticks(range(0, len(labels), step))
    ax.set_xticklabels(list(labels)[::step], rotation=45, ha="right", fontsize=8)


def comps_bars(comps: pd.DataFrame, group_median: float | None, column: str = "evRevenueNtm",
               top: int = 25) -> bytes:
    """Horizontal bars of ``column`` for the ``top`` largest companies, with the group median.

    Examples
    --------
    >>> comps = pd.DataFrame({"name": ["A", "B"], "evRevenueNtm": [2.0, 5.0]})
    >>> comps_bars(comps, 3.5)[:4] == b"\\x89PNG"
    True
    """
    title = f"EV/Revenue NTM, {min(top, len(comps))} largest companies by enterprise value"
    fig, ax = _figure(7.0, 0.22 * min(top, max(len(comps), 4)) + 1.2)
    rows = comps.head(top)
    if column not in rows or rows[column].isna().all():
        _empty(ax, title)
        return _png(fig)
    names = rows["name"].astype(object).fillna("?").astype(str).tolist() if "name" in rows \
        else [str(i) for i in rows.index]
    values = rows[column].to_numpy(dtype=float, na_value=np.nan)
    y = np.arange(len(rows))[::-1]
    ax.barh(y, np.nan_to_num(values), color=_ACCENT, height=0.7)
    ax.set_yticks(y)
    ax.set_yticklabels([n[:28] for n in names], fontsize=8)
    if group_median is not None and np.isfinite(group_median):
        ax.axvline(group_median, color="#e07b39", linestyle="--", linewidth=1.2,
                   label=f"group median {group_median:.1f}x")
        ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.set_xlabel("EV / revenue, next twelve months (x)")
    ax.grid(axis="x", color="#e5e8eb", linewidth=0.8)
    ax.set_title(title, loc="left", fontsize=11)
    return _png(fig)


def valuation_line(history: pd.DataFrame, column: str = "evRevenueNtm") -> bytes:
    """The group's monthly median of ``column`` as a line.

    Examples
    --------
    >>> valuation_line(pd.DataFrame({"evRevenueNtm": []}))[:4] == b"\\x89PNG"
    True
    """
    title = "Median EV/Revenue NTM of the group, by month"
    fig, ax = _figure()
    if column not in history or history[column].isna().all():
        _empty(ax, title)
        return _png(fig)
    index = history.index
    x = index.to_timestamp() if isinstance(index, pd.PeriodIndex) else pd.to_datetime(index)
    y = history[column].to_numpy(dtype=float, na_value=np.nan)
    ax.plot(x, y, color=_ACCENT, linewidth=2)
    ax.fill_between(x, y, np.nanmin(y) * 0.95, color=_ACCENT, alpha=0.08)
    last = np.flatnonzero(np.isfinite(y))
    if len(last):
        i = last[-1]
        ax.annotate(f"{y[i]:.2f}x", (x[i], y[i]), textcoords="offset points", xytext=(4, 4),
                    fontsize=9, color=_ACCENT)
    ax.set_ylabel("median EV / revenue NTM (x)")
    ax.set_title(title, loc="left", fontsize=11)
    return _png(fig)


def growth_scatter(comps: pd.DataFrame, x: str = "revenueGrowthNtmLtm",
                   y: str = "evRevenueNtm", label_top: int = 6) -> bytes:
    """Revenue growth against EV/Revenue, one point per company, sized by enterprise value.

    The y axis is logarithmic: the service's multiples are log-normal with outliers.

    Examples
    --------
    >>> comps = pd.DataFrame({"name": ["A", "B"], "revenueGrowthNtmLtm": [5.0, 20.0],
    ...                       "evRevenueNtm": [2.0, 6.0], "enterpriseValue": [100.0, 900.0]})
    >>> growth_scatter(comps)[:4] == b"\\x89PNG"
    True
    """
    title = "Growth against valuation"
    fig, ax = _figure(6.2, 4.0)
    if x not in comps or y not in comps:
        _empty(ax, title)
        return _png(fig)
    xs = comps[x].to_numpy(dtype=float, na_value=np.nan)
    ys = comps[y].to_numpy(dtype=float, na_value=np.nan)
    ok = np.isfinite(xs) & np.isfinite(ys) & (ys > 0)
    if not ok.any():
        _empty(ax, title)
        return _png(fig)
    ev = comps["enterpriseValue"].to_numpy(dtype=float, na_value=np.nan) \
        if "enterpriseValue" in comps else np.ones(len(comps))
    size = 12 + 180 * np.sqrt(np.nan_to_num(ev) / max(np.nanmax(ev[ok]), 1e-9))
    ax.scatter(xs[ok], ys[ok], s=size[ok], color=_ACCENT, alpha=0.55, edgecolor="white",
               linewidth=0.6)
    ax.set_yscale("log")
    names = comps["name"].astype(object).to_numpy() if "name" in comps else comps.index.to_numpy()
    biggest = [i for i in np.argsort(-np.nan_to_num(ev, nan=-1.0)) if ok[i]][:label_top]
    for i in biggest:
        ax.annotate(str(names[i])[:18], (xs[i], ys[i]), textcoords="offset points",
                    xytext=(5, 3), fontsize=7, color="#333333")
    ax.set_xlabel("revenue growth NTM over LTM (%)")
    ax.set_ylabel("EV / revenue NTM (x, log scale)")
    ax.set_title(title, loc="left", fontsize=11)
    return _png(fig)


def activity_bars(activity: pd.DataFrame) -> bytes:
    """Deals per quarter, stacked by deal type (``deal_activity``'s table).

    Examples
    --------
    >>> t = pd.DataFrame({"M&A": [1, 2], "total": [1, 2]}, index=["2024-Q1", "2024-Q2"])
    >>> activity_bars(t)[:4] == b"\\x89PNG"
    True
    """
    title = "Deals per quarter, by deal type"
    fig, ax = _figure(7.0, 3.8)
    types = [c for c in activity.columns if c != "total" and activity[c].sum() > 0]
    if not len(activity) or not types:
        _empty(ax, title)
        return _png(fig)
    x = np.arange(len(activity))
    bottom = np.zeros(len(activity))
    for i, name in enumerate(types):
        values = activity[name].to_numpy(dtype=float)
        ax.bar(x, values, bottom=bottom, color=_PALETTE[i % len(_PALETTE)], width=0.8,
               label=str(name))
        bottom += values
    _tick_every([str(i) for i in activity.index], ax)
    ax.set_ylabel("deals")
    ax.legend(fontsize=8, frameon=False, ncols=min(len(types), 6), loc="upper left",
              bbox_to_anchor=(0, -0.22))
    ax.set_title(title, loc="left", fontsize=11)
    return _png(fig)


def aggregate_band(service: pd.DataFrame, local_median: pd.Series | None, label: str) -> bytes:
    """The service's median per quarter with its q1-q3 band, local medians as crosses.

    Suppressed (small-n) and empty quarters have no median and leave a gap;
    they are marked with a grey tick at the bottom.

    Examples
    --------
    >>> s = pd.DataFrame({"bucket": ["2024-Q1", "2024-Q2"], "median": [2.0, None],
    ...                   "q1": [1.0, None], "q3": [3.0, None], "warning": [None, "small_n"]})
    >>> aggregate_band(s, None, "EV/Revenue")[:4] == b"\\x89PNG"
    True
    """
    title = f"Median {label} of deals per quarter (service), q1-q3 band"
    fig, ax = _figure(7.0, 3.8)
    if not len(service) or service["median"].isna().all():
        _empty(ax, title)
        return _png(fig)
    x = np.arange(len(service))
    med = service["median"].to_numpy(dtype=float, na_value=np.nan)
    q1 = service["q1"].to_numpy(dtype=float, na_value=np.nan)
    q3 = service["q3"].to_numpy(dtype=float, na_value=np.nan)
    ax.fill_between(x, q1, q3, color=_ACCENT, alpha=0.18, label="q1 - q3 (service)",
                    linewidth=0)
    ax.plot(x, med, color=_ACCENT, linewidth=2, marker="o", markersize=3,
            label="median (service)")
    if local_median is not None and len(local_median) == len(service):
        ax.plot(x, local_median.to_numpy(dtype=float, na_value=np.nan), linestyle="none",
                marker="x", color="#e07b39", markersize=6, label="median (recomputed locally)")
    gaps = np.flatnonzero(~np.isfinite(med))
    if len(gaps):
        floor = np.nanmin(q1) if np.isfinite(q1).any() else 0.0
        ax.plot(gaps, np.full(len(gaps), floor), linestyle="none", marker="|", color=_MUTED,
                markersize=10, label="suppressed or empty")
    _tick_every(service["bucket"].astype(str).tolist(), ax)
    ax.set_ylabel(label)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(0, -0.22), ncols=2)
    ax.set_title(title, loc="left", fontsize=11)
    return _png(fig)


def investor_bars(top: pd.DataFrame) -> bytes:
    """Most active investors: deals led and deals bought, stacked.

    Examples
    --------
    >>> t = pd.DataFrame({"name": ["A"], "led": [3], "bought": [1]})
    >>> investor_bars(t)[:4] == b"\\x89PNG"
    True
    """
    title = "Most active investors: deals led and bought"
    fig, ax = _figure(7.0, 0.26 * max(len(top), 4) + 1.2)
    if not len(top):
        _empty(ax, title)
        return _png(fig)
    y = np.arange(len(top))[::-1]
    led = top["led"].to_numpy(dtype=float)
    bought = top["bought"].to_numpy(dtype=float)
    ax.barh(y, led, color=_ACCENT, height=0.7, label="led")
    ax.barh(y, bought, left=led, color="#e07b39", height=0.7, label="bought")
    ax.set_yticks(y)
    ax.set_yticklabels([str(n)[:30] for n in top["name"].astype(object).fillna("?")], fontsize=8)
    ax.grid(axis="x", color="#e5e8eb", linewidth=0.8)
    ax.set_xlabel("deals in the window")
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    ax.set_title(title, loc="left", fontsize=11)
    return _png(fig)


def pair_bars(pairs: pd.DataFrame) -> bytes:
    """Co-investment pairs by deals shared (``co_investment_edges``' top rows).

    Examples
    --------
    >>> p = pd.DataFrame({"name_a": ["A"], "name_b": ["B"], "shared_deals": [2]})
    >>> pair_bars(p)[:4] == b"\\x89PNG"
    True
    """
    title = "Co-investment pairs: deals shared"
    fig, ax = _figure(7.0, 0.26 * max(len(pairs), 4) + 1.2)
    if not len(pairs):
        _empty(ax, title)
        return _png(fig)
    y = np.arange(len(pairs))[::-1]
    labels = [f"{str(a)[:22]} + {str(b)[:22]}" for a, b in
              zip(pairs["name_a"].astype(object).fillna("?"), pairs["name_b"].astype(object).fillna("?"))]
    ax.barh(y, pairs["shared_deals"].to_numpy(dtype=float), color="#3a9d5d", height=0.7)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.grid(axis="x", color="#e5e8eb", linewidth=0.8)
    ax.set_xlabel("deals shared")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title(title, loc="left", fontsize=11)
    return _png(fig)
