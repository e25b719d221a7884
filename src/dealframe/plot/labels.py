"""Point labels that never overlap: each label takes the first free spot around its point.

A greedy placement in display space: the figure is laid out once, then every label is tried
at a few offsets around its point, in order, and kept at the first one that overlaps no
label already placed and stays inside the Axes. A label with no free spot is dropped; the
count of labels placed is returned so a chart's alt text can say how many are named.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

__all__ = ["place_labels"]

#: (dx, dy) in points and horizontal alignment, tried in this order.
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


def _renderer(fig: Figure) -> Any:
    get = getattr(fig.canvas, "get_renderer", None) or getattr(fig, "_get_renderer", None)
    return get() if get is not None else None


def place_labels(
    ax: Axes, items: Sequence[tuple[float, float, str]], fontsize: float = 7, color: str = "#333333"
) -> int:
    """Annotate points with text, skipping any label that would overlap another.

    Parameters
    ----------
    ax : matplotlib Axes
        Already holding the points (its limits and scale are final).
    items : sequence of (x, y, text)
        In priority order: earlier items get the better spots.

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
    taken: list[Bbox] = []
    placed = 0
    for x, y, text in items:
        for dx, dy, align in _SPOTS:
            note = ax.annotate(
                text,
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                fontsize=fontsize,
                color=color,
                ha=align,
            )
            box = note.get_window_extent(renderer).expanded(1.0, 1.0).padded(2.0)
            inside = (
                box.x0 >= frame.x0
                and box.x1 <= frame.x1
                and box.y0 >= frame.y0
                and box.y1 <= frame.y1
            )
            if inside and not any(box.overlaps(other) for other in taken):
                taken.append(box)
                placed += 1
                break
            note.remove()
    return placed
