"""Text that stays readable: point labels that never overlap, labels over bars kept apart,
axis labels that fit their figure.

Point labels: each label takes the first free spot around its point.

A greedy placement in display space: the figure is laid out once, then every label is tried
at a few offsets around its point's marker, in order, and kept at the first one that
overlaps no label already placed and no labelled point's marker, keeps a gap of a few points
to them, and stays inside the Axes. A label with no free spot is dropped; the count of labels
placed is returned so a chart's alt text can say how many are named.

Each function lays the figure out first (``draw_without_rendering``) and measures the text as
it will be drawn, at the figure's size: a fixed rule (a side, a count of labels) holds for
one size of Axes only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, cast

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from dealframe.errors import ValidationError

__all__ = ["fitting_text", "fitting_ylabel", "keep_apart", "place_labels"]

#: (dx, dy) in points from the edge of the point's marker, and horizontal alignment, tried
#: in this order.
_SPOTS: tuple[tuple[float, float, str], ...] = (
    (6, 4, "left"),
    (6, -11, "left"),
    (-6, 4, "right"),
    (-6, -11, "right"),
    (0, 9, "center"),
    (0, -16, "center"),
    (12, 12, "left"),
    (-12, 12, "right"),
)
#: Points of clear space kept between a label and another label or a labelled marker.
_GAP = 3.0


def _renderer(fig: Figure) -> Any:
    get = getattr(fig.canvas, "get_renderer", None) or getattr(fig, "_get_renderer", None)
    return get() if get is not None else None


def _beyond(dx: float, dy: float, radius: float) -> tuple[float, float]:
    """The offset ``(dx, dy)`` of a spot moved out past a round marker of ``radius`` points,
    along the spot's own direction (a diagonal spot by ``radius`` times cos 45°)."""
    if not radius:
        return dx, dy
    length = math.hypot(dx, dy)
    return dx + radius * dx / length, dy + radius * dy / length


def place_labels(
    ax: Axes,
    items: Sequence[tuple[float, float, str]],
    fontsize: float = 7,
    color: str = "#333333",
    sizes: Sequence[float] | None = None,
) -> int:
    """Annotate points with text, skipping any label that would overlap another.

    Parameters
    ----------
    ax : matplotlib Axes
        Already holding the points (its limits and scale are final).
    items : sequence of (x, y, text)
        In priority order: earlier items get the better spots.
    sizes : sequence of float, optional
        The marker area of each item's point in points squared (``scatter``'s ``s``): its
        label starts beyond the marker's edge, and no label covers a labelled marker.
        Default: points too small to count.

    Returns
    -------
    int
        Labels placed.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(3, 2)
    >>> _ = ax.scatter([1, 1.001], [1, 1.001])
    >>> place_labels(ax, [(1, 1, "first label"), (1.001, 1.001, "second label")])
    2
    >>> place_labels(ax, [(1, 1, "x" * 300)])  # wider than the Axes: no spot fits
    0
    """
    fig = cast(Figure, ax.figure)
    fig.draw_without_rendering()  # final layout, limits and transforms
    renderer = _renderer(fig)
    frame = ax.get_window_extent(renderer)
    pixels = fig.dpi / 72.0  # display units per point
    radii = (
        [0.0] * len(items) if sizes is None else [math.sqrt(max(float(s), 0.0)) / 2 for s in sizes]
    )
    taken: list[Bbox] = []
    for (x, y, _), r in zip(items, radii):  # every labelled marker is kept clear
        cx, cy = ax.transData.transform((x, y))
        half = r * pixels
        taken.append(Bbox.from_extents(cx - half, cy - half, cx + half, cy + half))
    placed = 0
    for (x, y, text), r in zip(items, radii):
        for dx, dy, align in _SPOTS:
            note = ax.annotate(
                text,
                (x, y),
                textcoords="offset points",
                xytext=_beyond(dx, dy, r),
                fontsize=fontsize,
                color=color,
                ha=align,
            )
            box = note.get_window_extent(renderer)
            inside = (
                box.x0 >= frame.x0
                and box.x1 <= frame.x1
                and box.y0 >= frame.y0
                and box.y1 <= frame.y1
            )
            clear = box.padded(_GAP * pixels)
            if inside and not any(clear.overlaps(other) for other in taken):
                taken.append(box)
                placed += 1
                break
            note.remove()
    return placed


def keep_apart(ax: Axes, labels: Sequence[Text], gap: float = _GAP) -> bool:
    """Turn ``labels`` (one over each bar, anchored at its bottom centre) upright when two
    of them would touch, and raise the top of the y axis so that they stay inside the Axes.

    Parameters
    ----------
    ax : matplotlib Axes
        Holding the bars and ``labels`` (its limits are final but for the top of y).
    labels : sequence of matplotlib Text
        Labels in data coordinates, ``va="bottom"``.
    gap : float
        Points of clear space kept between two labels side by side.

    Returns
    -------
    bool
        True when the labels were turned.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(2, 2)
    >>> _ = ax.bar(range(20), [5.0] * 20)
    >>> keep_apart(ax, [ax.text(i, 5.0, "n=146", ha="center", va="bottom") for i in range(20)])
    True
    """
    if len(labels) < 2:
        return False
    fig = cast(Figure, ax.figure)
    fig.draw_without_rendering()
    renderer = _renderer(fig)
    boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
    pad = gap * fig.dpi / 72.0
    if all(a.x1 + pad <= b.x0 for a, b in zip(boxes, boxes[1:])):
        return False
    for label in labels:
        label.set_rotation(90)
    fig.draw_without_rendering()
    frame = ax.get_window_extent(renderer)
    tallest = max(t.get_window_extent(renderer).height for t in labels) + pad
    low, high = ax.get_ylim()
    if frame.height > 2 * tallest and high > low:
        # the highest anchor, in pixels over the bottom of the Axes, leaves room for a label
        anchors = max(float(t.get_position()[1]) for t in labels)
        share = (anchors - low) / (high - low)
        if share * frame.height + tallest > frame.height:
            needed = (anchors - low) * frame.height / (frame.height - tallest)
            ax.set_ylim(low, low + needed)
    return True


def fitting_text(label: Text, texts: Sequence[str], along: Literal["x", "y"] = "x") -> str:
    """Set ``label`` (an axis label, a title) to the first of ``texts`` that stays inside its
    figure along ``along``, laid out with it, else to the last; returns the text set.

    A text is measured where the figure's layout puts it: a title at the left of its Axes,
    or an x label centred under them, runs past the right edge when long y tick labels push
    the Axes right, and a wider figure would not (so a fixed length cannot be the rule). A
    text may be of several lines (``\\n``): the layout makes room for them.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(2.5, 2)
    >>> fitting_text(ax.set_title("a title much too long for this small chart", loc="left"),
    ...              ["a title much too long for this small chart",
    ...               "a title much too long\\nfor this small chart"])
    'a title much too long\\nfor this small chart'
    """
    fig: Any = label.figure
    while fig is not None and not isinstance(fig, Figure):  # a subfigure's: its figure's
        fig = fig.figure
    if fig is None:
        raise ValidationError("label", "a text of a figure (a title, an axis label)", got=label)
    edge = fig.bbox
    for text in texts:
        label.set_text(text)
        fig.draw_without_rendering()  # the text's place in the layout made with it
        box = label.get_window_extent(_renderer(fig))
        if along == "x" and box.x0 >= edge.x0 and box.x1 <= edge.x1:
            return text
        if along == "y" and box.y0 >= edge.y0 and box.y1 <= edge.y1:
            return text
    label.set_text(texts[-1])
    return texts[-1]


def fitting_ylabel(ax: Axes, labels: Sequence[str]) -> str:
    """Set the y axis label of ``ax`` to the first of ``labels`` that fits in its figure (the
    label is centred on the Axes: a long one on a short chart runs past the top and bottom
    edges and is cut), else to the last; returns the label set.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(4, 1.5)
    >>> fitting_ylabel(ax, ["company (largest enterprise value first)", "company"])
    'company'
    """
    return fitting_text(ax.yaxis.label, labels, "y")
