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
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure, SubFigure
from matplotlib.text import Text

from dealframe.arguments import checked_keywords, integer_in, positive_number
from dealframe.errors import ValidationError

from .labels import fitting_texts

__all__ = [
    "ACCENT",
    "CURRENT_FRAME",
    "MAX_DPI",
    "MAX_PIXELS",
    "MUTED",
    "PALETTE",
    "SECOND",
    "alt_text",
    "axes_for",
    "column_label",
    "empty",
    "figure",
    "finish",
    "frame_with",
    "png",
    "set_alt",
    "ticks",
]

ACCENT = "#1f5f8b"
SECOND = "#e07b39"
MUTED = "#9aa5b1"
PALETTE = ("#1f5f8b", "#e07b39", "#3a9d5d", "#c0392b", "#8e6bb8", "#7f8c8d", "#d4a017", "#17a2b8")
_GRID = "#e5e8eb"

#: What the ``current`` frame of a comps chart is (the ``kind`` its :func:`frame_with` names).
CURRENT_FRAME = "client.public.current(skus) or the comps of dealframe.compare_multiples"

#: Most dots per inch :func:`figure` and :func:`png` take.
MAX_DPI = 1200
#: Most pixels a side of a figure drawn or saved (width or height times dpi): a 10,000 by
#: 10,000 image already takes 400 MB to draw; a mistyped size or dpi would exhaust memory.
MAX_PIXELS = 10_000

_ALT: weakref.WeakKeyDictionary[Axes, str] = weakref.WeakKeyDictionary()
_ALT_LOCK = threading.Lock()


def _dpi(dpi: Any) -> int:
    return integer_in(dpi, "dpi", 1, MAX_DPI, f"an integer from 1 to {MAX_DPI}")


def _fits(side: str, inches: float, dpi: int, argument: str, got: Any) -> None:
    """Refuse a ``side`` (width or height) of more than :data:`MAX_PIXELS` pixels at ``dpi``,
    naming ``argument``."""
    if inches * dpi > MAX_PIXELS:
        raise ValidationError(
            argument,
            f"at most {MAX_PIXELS:,} pixels a side (here the {side}, {inches:g} inches at "
            f"dpi {dpi}, is {inches * dpi:,.0f}; at dpi {dpi} a side may be "
            f"{MAX_PIXELS / dpi:g} inches)",
            got=got,
        )


@checked_keywords
def figure(width: float = 7.0, height: float = 3.6, dpi: int = 100) -> tuple[Figure, Axes]:
    """A standalone figure (Agg canvas, no pyplot) and its one Axes.

    Parameters
    ----------
    width, height : float, default 7.0 and 3.6
        Size in inches: numbers above 0.
    dpi : int, default 100
        Dots per inch, from 1 to :data:`MAX_DPI`; a side may have at most
        :data:`MAX_PIXELS` pixels (size times dpi).

    Returns
    -------
    tuple of (matplotlib.figure.Figure, matplotlib.axes.Axes)
        The figure and its one Axes, to pass to a chart's ``ax=``.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the argument that is not a size or dpi it can draw.

    Examples
    --------
    >>> fig, ax = figure(4, 3)
    >>> fig.get_size_inches().tolist()
    [4.0, 3.0]
    >>> figure(width=0)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid width: expected a size in inches above 0, got 0
    """
    width = positive_number(width, "width", what="a size in inches above 0")
    height = positive_number(height, "height", what="a size in inches above 0")
    dpi = _dpi(dpi)
    _fits("width", width, dpi, "width", width)
    _fits("height", height, dpi, "height", height)
    fig = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def column_label(value: Any, argument: str) -> Hashable:
    """``value`` when it can be a column label (any hashable value, as pandas allows: ``str``,
    an ``int``, a tuple of a ``MultiIndex``), else a :class:`~dealframe.errors.ValidationError`
    naming ``argument``: checked before the frame is read, so a list or a dict given for a
    column is said as such (not as Python's ``TypeError`` from hashing it). Whether the frame
    has the column, :func:`frame_with` says.

    Examples
    --------
    >>> column_label("evRevenueNtm", "column"), column_label(7, "column")
    ('evRevenueNtm', 7)
    >>> column_label(["evRevenueNtm"], "column")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid column: expected a column label (a str such as 'evRevenueNtm', or any hashable label the frame has), got ['evRevenueNtm']
    """
    try:
        hash(value)
    except TypeError:
        expected = (
            "a column label (a str such as 'evRevenueNtm', or any hashable label the frame has)"
        )
        raise ValidationError(argument, expected, got=value) from None
    return value


def frame_with(
    frame: Any,
    argument: str,
    columns: tuple[Hashable, ...],
    kind: str = "a DataFrame from the client",
) -> pd.DataFrame:
    """``frame`` when it is a DataFrame holding ``columns``; else a
    :class:`~dealframe.errors.ValidationError` naming ``argument``, what it should be
    (``kind``) and the columns it lacks (a frame of another kind passed by mistake, such as
    two frames swapped, is refused here rather than drawn as "no data"). A column that can
    be no label (unhashable) is refused by :func:`column_label` first, naming ``"columns"``:
    the charts check their column arguments with it, by their own names, before this.

    Examples
    --------
    >>> frame_with(pd.DataFrame({7: [1.0]}), "current", (7,)).columns.tolist()
    [7]
    >>> frame_with(pd.DataFrame({7: [1.0]}), "current", (8,))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid current: expected a DataFrame from the client: a frame with the column(s) 8, got 'a frame with columns 7'
    >>> frame_with(pd.DataFrame([[1.0, 2.0]], columns=[7, 7]), "current", (7,))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid current: expected a DataFrame from the client: a frame where 7 names one column (in a frame of MultiIndex columns, such as time_series' (field, sku), select one first), got '2 columns named 7'
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(argument, kind, got=type(frame).__name__)
    for column in columns:
        column_label(column, "columns")
    missing = [c for c in columns if c not in frame]
    if missing:
        shown = ", ".join(map(str, list(frame.columns)[:6])) + (
            ", ..." if len(frame.columns) > 6 else ""
        )
        raise ValidationError(
            argument,
            f"{kind}: a frame with the column(s) {', '.join(map(str, missing))}",
            got=f"a frame with columns {shown}" if len(frame.columns) else "a frame of no columns",
        )
    for column in columns:  # a repeated name, or the top level of MultiIndex columns
        held = frame.columns.get_loc(column)
        if not isinstance(held, int):
            count = int(np.sum(held)) if not isinstance(held, slice) else len(frame[column].columns)
            raise ValidationError(
                argument,
                f"{kind}: a frame where {column!r} names one column (in a frame of "
                "MultiIndex columns, such as time_series' (field, sku), select one first)",
                got=f"{count} columns named {column!r}",
            )
    return frame


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
    title: str | tuple[str, ...],
    xlabel: str | tuple[str, ...],
    ylabel: str | tuple[str, ...],
    alt: str,
    grid: Literal["x", "y", "both"] = "y",
    title_pad: float = 6.0,
) -> Axes:
    """Title, axis labels, house style and alt text: the last step of every chart.

    A ``title`` or ``xlabel`` given as several texts (the same words, wrapped or shortened
    more and more) is the first that the figure's width holds, where the layout puts it
    (:func:`~dealframe.plot.labels.fitting_texts`): a fixed length fits one size only. When
    none fits (one text given included), the last is wrapped, and moved left if need be, so
    that it stays inside the figure. A ``ylabel`` given as several texts is the first that
    the figure's height holds (:func:`~dealframe.plot.labels.fitting_ylabel`); one text is
    set as it is. All are fitted in one layout of the figure: a layout measures every text
    of the figure, a tick label and a label over a bar each.
    """
    _style(ax, grid)
    titles = (title,) if isinstance(title, str) else title
    xlabels = (xlabel,) if isinstance(xlabel, str) else xlabel
    shown = ax.set_title(titles[0], loc="left", fontsize=11, pad=title_pad)
    ax.set_xlabel(xlabels[0])
    ax.set_ylabel(ylabel if isinstance(ylabel, str) else ylabel[0])
    fits: list[tuple[Text, Sequence[str], Literal["x", "y"]]]
    fits = [(shown, titles, "x"), (ax.xaxis.label, xlabels, "x")]
    if not isinstance(ylabel, str):
        fits.append((ax.yaxis.label, ylabel, "y"))
    fitting_texts(fits)
    set_alt(ax, alt)
    return ax


def empty(
    ax: Axes,
    title: str | tuple[str, ...],
    xlabel: str | tuple[str, ...],
    ylabel: str | tuple[str, ...],
    why: str = "no data",
) -> Axes:
    """A chart with nothing to draw: its title and labels (as :func:`finish` takes them), and
    ``why`` in the middle."""
    ax.text(
        0.5, 0.5, why, ha="center", va="center", color=MUTED, fontsize=13, transform=ax.transAxes
    )
    ax.set_xticks([])
    ax.set_yticks([])
    named = title if isinstance(title, str) else title[0]
    return finish(ax, title, xlabel, ylabel, f"{named}: {why}.")


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
    'Stacked bars of deals per quarter by deal type, 2 deals over 2 quarters (2024-Q1 to 2024-Q2); the busiest quarter was 2024-Q1 with 1 deal.'
    """
    if not isinstance(ax, Axes):
        raise ValidationError("ax", "a matplotlib Axes", got=ax)
    with _ALT_LOCK:
        return _ALT.get(ax, "")


@checked_keywords
def png(ax_or_fig: Axes | Figure, dpi: int = 100) -> bytes:
    """The PNG bytes of the figure holding ``ax_or_fig`` (its own Agg canvas).

    Parameters
    ----------
    ax_or_fig : matplotlib Axes or Figure
        A chart's Axes (as the charts return), or its figure.
    dpi : int, default 100
        Dots per inch, from 1 to :data:`MAX_DPI`; a side of the image may have at most
        :data:`MAX_PIXELS` pixels.

    Returns
    -------
    bytes
        The PNG image.

    Raises
    ------
    dealframe.errors.ValidationError
        ``ax_or_fig`` is no Axes or Figure, or ``dpi`` is not one it can draw.

    Examples
    --------
    >>> _, ax = figure(2, 2)
    >>> png(ax)[:4] == b"\\x89PNG"
    True
    >>> png("chart.png")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid ax_or_fig: expected a matplotlib Axes or Figure (a chart's return value), got 'str'
    """
    if not isinstance(ax_or_fig, (Axes, Figure, SubFigure)):
        raise ValidationError(
            "ax_or_fig",
            "a matplotlib Axes or Figure (a chart's return value)",
            got=type(ax_or_fig).__name__,
        )
    dpi = _dpi(dpi)
    holder: Any = ax_or_fig.figure if isinstance(ax_or_fig, Axes) else ax_or_fig
    while not isinstance(holder, Figure):  # a subfigure's: the figure it is drawn in
        holder = holder.figure
    fig: Figure = holder
    width, height = (float(v) for v in fig.get_size_inches())
    _fits("width", width, dpi, "dpi", dpi)
    _fits("height", height, dpi, "dpi", dpi)
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
