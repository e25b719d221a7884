"""Point labels that never overlap: each label takes the first free spot around its point.

A greedy placement in display space: the figure is laid out once, then every label is tried
at a few offsets around its point's marker, in order, and kept at the first one that
overlaps no label already placed and no labelled point's marker, keeps a gap of a few points
to them, and stays inside the Axes. A label with no free spot is dropped; the count of labels
placed is returned so a chart's alt text can say how many are named.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

__all__ = ["place_labels"]

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
