"""What every chart shares: where its Axes come from, its look, its alt text, "no data".

A chart drawn for the report or a test gets a standalone :class:`~matplotlib.figure.Figure`
on an Agg canvas (:func:`figure`), so nothing global is touched and charts can be drawn in
threads. A chart called without ``ax`` in a notebook gets a pyplot figure instead, as pandas'
and seaborn's plotting functions do, so that it shows under the cell.
"""

from __future__ import annotations

import io
import threading
import weakref
from typing import Any, Literal, cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError

__all__ = [
    "ACCENT",
    "MUTED",
    "PALETTE",
    "SECOND",
    "alt_text",
    "axes_for",
    "empty",
    "figure",
    "finish",
    "png",
    "set_alt",
    "ticks",
]

ACCENT = "#1f5f8b"
SECOND = "#e07b39"
MUTED = "#9aa5b1"
PALETTE = ("#1f5f8b", "#e07b39", "#3a9d5d", "#c0392b", "#8e6bb8", "#7f8c8d", "#d4a017", "#17a2b8")
_GRID = "#e5e8eb"

_ALT: weakref.WeakKeyDictionary[Axes, str] = weakref.WeakKeyDictionary()
_ALT_LOCK = threading.Lock()


@checked_keywords
def figure(width: float = 7.0, height: float = 3.6, dpi: int = 100) -> tuple[Figure, Axes]:
    """A standalone figure (Agg canvas, no pyplot) and its one Axes.

    Examples
    --------
    >>> fig, ax = figure(4, 3)
    >>> fig.get_size_inches().tolist()
    [4.0, 3.0]
    """
    fig = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def axes_for(ax: Any, width: float, height: float) -> Axes:
    """``ax`` when given (checked), else a new pyplot figure's Axes of the given size."""
    if ax is None:
        import matplotlib.pyplot as plt  # only for a caller who gave no Axes (a notebook)

        _, ax = plt.subplots(figsize=(width, height), layout="constrained")
        return ax
    if not isinstance(ax, Axes):
        raise ValidationError("ax", "a matplotlib Axes or None", got=ax)
    return ax


def _style(ax: Axes, grid: Literal["x", "y", "both"] = "y") -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis=grid, color=_GRID, linewidth=0.8)
    ax.set_axisbelow(True)


def finish(
    ax: Axes,
    title: str,
    xlabel: str,
    ylabel: str,
    alt: str,
    grid: Literal["x", "y", "both"] = "y",
    title_pad: float = 6.0,
) -> Axes:
    """Title, axis labels, house style and alt text: the last step of every chart."""
    _style(ax, grid)
    ax.set_title(title, loc="left", fontsize=11, pad=title_pad)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    set_alt(ax, alt)
    return ax


def empty(ax: Axes, title: str, xlabel: str, ylabel: str, why: str = "no data") -> Axes:
    """A chart with nothing to draw: its title and labels, and ``why`` in the middle."""
    ax.text(
        0.5, 0.5, why, ha="center", va="center", color=MUTED, fontsize=13, transform=ax.transAxes
    )
    ax.set_xticks([])
    ax.set_yticks([])
    return finish(ax, title, xlabel, ylabel, f"{title}: {why}.")


def set_alt(ax: Axes, text: str) -> None:
    """Attach the alt text of the chart drawn on ``ax``."""
    with _ALT_LOCK:
        _ALT[ax] = " ".join(str(text).split())


@checked_keywords
def alt_text(ax: Axes) -> str:
    """The alt text of a chart drawn by :mod:`dealframe.plot` ("" for any other Axes).

    A sentence or two for a reader who cannot see the image: what is plotted, over how many
    items, and the figures that matter (latest value, median, largest bar).

    Examples
    --------
    >>> import pandas as pd
    >>> from dealframe.plot import deals_per_quarter
    >>> _, ax = figure()
    >>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-05", "2024-05-01"]),
    ...                       "deal_type": ["M&A", "Venture"]})
    >>> alt_text(deals_per_quarter(deals, ax=ax))
    'Stacked bars of deals per quarter by deal type, 2 deals over 2 quarters (2024-Q1 to 2024-Q2); the busiest quarter was 2024-Q1 with 1 deals.'
    """
    if not isinstance(ax, Axes):
        raise ValidationError("ax", "a matplotlib Axes", got=ax)
    with _ALT_LOCK:
        return _ALT.get(ax, "")


@checked_keywords
def png(ax_or_fig: Axes | Figure, dpi: int = 100) -> bytes:
    """The PNG bytes of the figure holding ``ax_or_fig`` (its own Agg canvas).

    Examples
    --------
    >>> _, ax = figure(2, 2)
    >>> png(ax)[:4] == b"\\x89PNG"
    True
    """
    fig = cast(Figure, ax_or_fig.figure if isinstance(ax_or_fig, Axes) else ax_or_fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def ticks(ax: Axes, labels: list[str], most: int = 12, rotate: bool = True) -> None:
    """Category tick labels on x, at most ``most`` of them."""
    step = max(1, int(np.ceil(len(labels) / most)))
    ax.set_xticks(range(0, len(labels), step))
    ax.set_xticklabels(
        labels[::step], rotation=45 if rotate else 0, ha="right" if rotate else "center", fontsize=8
    )
