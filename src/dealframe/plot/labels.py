"""Text that stays readable: point labels that never overlap, labels over bars kept apart,
axis labels that fit their figure.

Point labels: each label takes the first free spot around its point.

A greedy placement in display space: the figure is laid out once, then every label is tried
at a few offsets around its point's marker, in order, and kept at the first one that
overlaps no label already placed and no labelled point's marker, keeps a gap of a few points
to them, and stays inside the Axes. A label with no free spot is dropped; the count of labels
placed is returned so a chart's alt text can say how many are named.

Each function lays the figure out first (:func:`lay_out`) and measures the text as it will
be drawn, at the figure's size: a fixed rule (a side, a count of labels) holds for
one size of Axes only.
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, cast

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox, BboxBase

from dealframe.errors import ValidationError

__all__ = [
    "distinct",
    "short_name",
    "fitting_text",
    "fitting_texts",
    "fitting_yticks",
    "fitting_ylabel",
    "keep_apart",
    "lay_out",
    "place_labels",
]

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


def lay_out(fig: Figure) -> None:
    """Place the Axes of ``fig`` where a draw puts them, to measure its text there.

    A figure of a layout engine (constrained, as :func:`~dealframe.plot.figure` makes) is laid
    out by its engine alone, as a draw does first: what a draw does next (every artist drawn
    to a renderer that discards it) moves nothing more and costs about half again. A figure
    of no engine is drawn without rendering.
    """
    engine = fig.get_layout_engine()
    if engine is None or not fig.axes:
        fig.draw_without_rendering()
        return
    try:
        engine.execute(fig)
    except ValueError:  # as a draw does: the layout is left as it was
        pass


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
    lay_out(fig)  # final layout, limits and transforms
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
    lay_out(fig)
    renderer = _renderer(fig)
    boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
    pad = gap * fig.dpi / 72.0
    if all(a.x1 + pad <= b.x0 for a, b in zip(boxes, boxes[1:])):
        return False
    for label in labels:
        label.set_rotation(90)
    lay_out(fig)
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
    figure along ``along``, laid out with it; returns the text set.

    A text is measured where the figure's layout puts it: a title at the left of its Axes,
    or an x label centred under them, runs past the right edge when long y tick labels push
    the Axes right, and a wider figure would not (so a fixed length cannot be the rule). A
    text may be of several lines (``\\n``): the layout makes room for them. When none fits,
    the last is wrapped at fewer words a line (three lines at most) until it fits where it
    is, else wrapped to the figure's width and moved along ``along`` inside the figure (a
    title then starts left of its Axes): no text set runs past the figure, save a single
    word wider than it.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(2.5, 2)
    >>> fitting_text(ax.set_title("a title much too long for this small chart", loc="left"),
    ...              ["a title much too long for this small chart",
    ...               "a title much too long\\nfor this small chart"])
    'a title much too long\\nfor this small chart'
    """
    return fitting_texts([(label, texts)], along)[0]


def fitting_texts(
    fits: Sequence[tuple[Text, Sequence[str]] | tuple[Text, Sequence[str], Literal["x", "y"]]],
    along: Literal["x", "y"] = "x",
) -> list[str]:
    """:func:`fitting_text` of several texts of one figure (a title, an x label, a y label),
    laid out once: returns the text set on each label.

    Each fit is ``(label, texts)``, fitted along ``along``, or ``(label, texts, along)`` of
    its own (a y label is fitted along ``"y"``, as :func:`fitting_ylabel` does).

    The figure is laid out once, with each label's first text, and every text is measured in
    that layout: the layout counts a title or an axis label at its middle only, so a text of
    another width moves no Axes while its middle stays over its Axes, as it does but for a
    title wider than its Axes. When the middle of a title's first or chosen text is past its
    Axes, the figure is laid out again with the texts chosen and a text that runs past the
    figure there is chosen again (three layouts at most). Lines added or taken away move the
    Axes across the text only (a title's lines move them down): the next layout (a draw, a
    save) makes room for them, save when a text is fitted the other way (a y label, centred
    on the Axes), which is then chosen again in a layout made with those lines.

    A layout measures every text of the figure (each tick label, each label over a bar):
    fitting the texts of a chart together costs one layout where fitting them one after
    another costs one each.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(2.5, 2)
    >>> fitting_texts([(ax.set_title("a title much too long for this chart", loc="left"),
    ...                 ["a title much too long for this chart", "a short title"]),
    ...                (ax.set_xlabel("a label"), ["a label"]),
    ...                (ax.set_ylabel("a y label too long for this chart"),
    ...                 ["a y label too long for this chart", "a y label"], "y")])
    ['a short title', 'a label', 'a y label']
    """
    if not fits:
        return []
    labels = [fit[0] for fit in fits]
    choices = [fit[1] for fit in fits]
    ways = [fit[2] if len(fit) > 2 else along for fit in fits]
    for texts in choices:
        if not texts:
            raise ValidationError("texts", "one text or more", got=texts)
    figures = {id(_figure_of(label)): _figure_of(label) for label in labels}
    places = [label.get_position() for label in labels]
    # a text wider than its whole figure stays inside it nowhere: the first layout is made
    # with the first text that may fit (a layout made with a text that cannot collapses
    # the Axes, and matplotlib warns that it was not applied)
    chosen = [_first_narrow(label, texts, way) for label, texts, way in zip(labels, choices, ways)]
    for label, text in zip(labels, chosen, strict=True):
        label.set_text(text)
    for fig in figures.values():
        lay_out(fig)  # one layout, made with each label's first text
    redo = list(range(len(fits)))  # the labels to choose a text for
    for _ in range(3):
        laid = list(chosen)  # the texts of the layout made
        moves = False  # whether a text chosen may move an Axes sideways
        for i in redo:
            label, texts, way = labels[i], choices[i], ways[i]
            fig = _figure_of(label)
            renderer = _renderer(fig)
            label.set_position(places[i])
            moves |= _past_axes(label, renderer, way)
            found = next((t for t in texts if _inside(label, t, renderer, fig.bbox, way)), None)
            if found is None:
                found = _last_resort(label, texts[-1], renderer, fig, way)
            label.set_text(found)
            moves |= found != chosen[i] and _past_axes(label, renderer, way)
            chosen[i] = found
        # lines added or taken away move the Axes along the other direction: a text fitted
        # that way is chosen again in the layout made with them
        lined = {ways[i] for i in redo if chosen[i].count("\n") != laid[i].count("\n")}
        crossed = {i for i, way in enumerate(ways) if lined - {way}}
        if not moves and not crossed:
            break
        for fig in figures.values():
            lay_out(fig)  # the layout made with the texts chosen
        redo = [
            i
            for i, label in enumerate(labels)
            if i in crossed or not _stays(label, chosen[i], ways[i])
        ]
        if not redo:
            break
    return chosen


def _first_narrow(label: Text, texts: Sequence[str], along: str) -> str:
    """The first of ``texts`` no wider (``along``) than the figure of ``label``, else the
    last wrapped until it is (three lines at most), else the last; measured without a layout
    (a text's size does not depend on where it is)."""
    fig = _figure_of(label)
    renderer = _renderer(fig)
    room = fig.bbox.width if along == "x" else fig.bbox.height
    for text in texts[:-1]:
        label.set_text(text)
        box = label.get_window_extent(renderer)
        if (box.width if along == "x" else box.height) <= room:
            return text
    for form in [texts[-1], *_wrapped(texts[-1])]:  # the last, wrapped until it fits
        label.set_text(form)
        box = label.get_window_extent(renderer)
        if form.count("\n") < 3 and (box.width if along == "x" else box.height) <= room:
            return form
    return texts[-1]


def _past_axes(label: Text, renderer: Any, along: str) -> bool:
    """Whether the middle of ``label`` (as set) is past the side of its Axes along ``along``
    (a layout counts a title at its middle); False for a text of no Axes (an axis label,
    centred on its Axes)."""
    axes = getattr(label, "axes", None)
    if axes is None:
        return False
    box, frame = label.get_window_extent(renderer), axes.get_window_extent(renderer)
    if along == "x":
        return not frame.x0 <= (box.x0 + box.x1) / 2 <= frame.x1
    return not frame.y0 <= (box.y0 + box.y1) / 2 <= frame.y1


def _stays(label: Text, text: str, along: str) -> bool:
    """Whether ``label`` set to ``text`` stays inside its figure, in the layout drawn."""
    fig = _figure_of(label)
    return _inside(label, text, _renderer(fig), fig.bbox, along)


def _figure_of(label: Text) -> Figure:
    fig: Any = label.figure
    while fig is not None and not isinstance(fig, Figure):  # a subfigure's: its figure's
        fig = fig.figure
    if fig is None:
        raise ValidationError("label", "a text of a figure (a title, an axis label)", got=label)
    return fig


def _inside(label: Text, text: str, renderer: Any, edge: BboxBase, along: str) -> bool:
    """Whether ``label`` set to ``text`` stays inside ``edge`` along ``along``."""
    label.set_text(text)
    box = label.get_window_extent(renderer)
    if along == "x":
        return bool(box.x0 >= edge.x0 and box.x1 <= edge.x1)
    return bool(box.y0 >= edge.y0 and box.y1 <= edge.y1)


def _wrapped(text: str) -> list[str]:
    """``text`` wrapped at fewer and fewer characters a line, each form once, the narrowest
    one word a line."""
    words = text.split()
    forms: list[str] = []
    for width in range(max(map(len, text.split("\n"))) - 1, 0, -1):
        form = textwrap.fill(" ".join(words), width, break_long_words=False)
        if form != text and form not in forms:
            forms.append(form)
    return forms


def _last_resort(label: Text, text: str, renderer: Any, fig: Figure, along: str) -> str:
    """``text`` wrapped until it fits where the layout puts it (three lines at most), else
    wrapped to the figure's size and moved inside the figure along ``along``; the form set."""
    edge = fig.bbox
    forms = _wrapped(text)
    for form in forms:
        if form.count("\n") < 3 and _inside(label, form, renderer, edge, along):
            return form
    i = 0 if along == "x" else 1
    margin = fig.dpi / 72.0  # a point clear of the edge
    room = (edge.width if i == 0 else edge.height) - 2 * margin
    chosen = text
    for form in [text, *forms]:
        label.set_text(chosen := form)
        box = label.get_window_extent(renderer)
        if (box.width if i == 0 else box.height) <= room:
            break
    low, high = (box.x0, box.x1) if i == 0 else (box.y0, box.y1)
    start, end = (edge.x0, edge.x1) if i == 0 else (edge.y0, edge.y1)
    shift = min(0.0, end - margin - high)  # back inside the far edge ...
    shift = max(shift, start + margin - low)  # ... and not past the near one
    transform = label.get_transform()
    place = transform.transform(label.get_position())
    place[i] += shift
    moved = transform.inverted().transform(place)
    (label.set_x if i == 0 else label.set_y)(float(moved[i]))
    return chosen


def short_name(name: str, most: int) -> str:
    """``name`` cut to ``most`` characters, the cut marked with "…".

    Examples
    --------
    >>> short_name("Sequoia Capital China Seed", 10), short_name("Accel", 10)
    ('Sequoia C…', 'Accel')
    """
    return name if len(name) <= most else name[: max(1, most - 1)].rstrip() + "…"


def distinct(labels: Sequence[str], full: Sequence[str]) -> list[str]:
    """``labels`` (cut from the texts ``full``, one each) with those that came out equal from
    different texts made distinct: each then keeps the start and the end of its text around a
    "…" within the same length, or failing that gets its place among them after it. Equal
    texts keep equal labels.

    Examples
    --------
    >>> full = ["Sequoia Capital China Growth", "Sequoia Capital China Seed"]
    >>> distinct([short_name(n, 12) for n in full], full)
    ['Sequoi…rowth', 'Sequoia…Seed']
    """
    labels, full = list(labels), list(full)
    for _ in range(2):
        counts = Counter(labels)
        clash = [
            i
            for i, label in enumerate(labels)
            if counts[label] > 1 and len({full[j] for j, o in enumerate(labels) if o == label}) > 1
        ]
        if not clash:
            return labels
        for i in clash:
            size = max(len(labels[i]), 5)
            tail = full[i][-((size - 1) // 2) :].lstrip()
            head = full[i][: size - 1 - len(tail)].rstrip()
            labels[i] = labels[i] if len(full[i]) <= size else f"{head}…{tail}"
    texts: dict[str, set[str]] = {}
    for label, text in zip(labels, full):
        texts.setdefault(label, set()).add(text)
    seen = Counter[str]()
    out = []
    for label in labels:
        if len(texts[label]) > 1:  # still equal from different texts: numbered
            seen[label] += 1
            label = f"{label} ({seen[label]})"
        out.append(label)
    return out


def fitting_yticks(
    ax: Axes,
    ticks: Iterable[float],
    names: Callable[[int], Sequence[str]],
    longest: int,
    share: float = 0.45,
    fontsize: float = 8,
) -> list[str]:
    """Set the y ticks of ``ax`` at ``ticks``, labelled ``names(n)`` for the largest ``n`` of
    characters (``longest`` at most, 4 at least) whose widest label takes at most ``share``
    of the figure's width; returns the labels set. Labels cut alike from different texts are
    told apart (:func:`distinct`).

    Names of a bar chart push its Axes right: on a narrow figure, long names (and names in
    wide letters) leave no room for the bars and the title, and the layout gives up.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(2, 2)
    >>> fitting_yticks(ax, [0], lambda n: ["an investor of a long name"[:n]], 30)
    ['an investor of a']
    """
    fig = _figure_of(ax.title)
    renderer = _renderer(fig)
    room = share * fig.bbox.width
    n = longest
    full = list(names(10_000))  # the texts uncut: cut ones that come out equal are told apart
    while True:
        labels = distinct(names(n), full)
        ax.set_yticks(list(ticks), labels, fontsize=fontsize)
        widest = max(
            (t.get_window_extent(renderer).width for t in ax.get_yticklabels()), default=0.0
        )
        if widest <= room or n <= 4:
            return labels
        n = max(4, min(n - 1, int(n * room / widest)))


def fitting_ylabel(ax: Axes, labels: Sequence[str]) -> str:
    """Set the y axis label of ``ax`` to the first of ``labels`` that fits in its figure (the
    label is centred on the Axes: a long one on a short chart runs past the top and bottom
    edges and is cut), else the last made to fit (:func:`fitting_text`); returns the label
    set.

    Examples
    --------
    >>> from dealframe.plot import figure
    >>> _, ax = figure(4, 1.5)
    >>> fitting_ylabel(ax, ["company (largest enterprise value first)", "company"])
    'company'
    """
    return fitting_text(ax.yaxis.label, labels, "y")
