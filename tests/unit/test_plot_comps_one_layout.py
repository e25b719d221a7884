"""``comps_multiples`` fits its title, x label and y label in one layout of the figure.

A layout measures every text of the figure, each company's name and each bar's value
label, several times over: a chart of a thousand bars took seconds a layout. The y label was
fitted after the title and x label, in a layout of its own, for a figure that had just been
laid out with the same texts: twice the time for the same answer.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from dealframe.plot import comps_multiples, figure
from dealframe.plot.labels import lay_out

#: matplotlib gives up its layout of a small chart of many bars: not what these tests are about
pytestmark = pytest.mark.filterwarnings("ignore:constrained_layout not applied")


def _current(n: int, name: str = "C") -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "name": [f"{name}{i}" for i in range(n)],
            "evRevenueNtm": rng.uniform(1, 9, n),
            "enterpriseValue": rng.uniform(10, 1000, n),
            "revenueNtm": rng.uniform(10, 100, n),
        }
    )


def _counting_layouts(fig) -> list[int]:
    """The layouts of ``fig``'s engine from now on (one entry each)."""
    engine = fig.get_layout_engine()
    execute = engine.execute
    made: list[int] = []

    def counted(f):
        made.append(1)
        return execute(f)

    engine.execute = counted  # this figure's engine only
    return made


@pytest.mark.parametrize("top", [1, 20])
def test_a_comps_chart_is_laid_out_once(top):
    fig, ax = figure(7.0, 0.24 * max(top, 4) + 1.3)  # the size the chart picks for itself
    made = _counting_layouts(fig)
    comps_multiples(_current(30), top=top, ax=ax)
    assert len(made) == 1
    assert ax.get_ylabel().startswith("company")


def test_an_empty_comps_chart_is_laid_out_once():
    fig, ax = figure(7.0, 2.3)
    made = _counting_layouts(fig)
    comps_multiples(_current(0), ax=ax)
    assert len(made) == 1
    assert ax.get_ylabel() == "company (largest EV first)"


@pytest.mark.parametrize(
    ("size", "name"),
    [((7.0, 6.1), "C"), ((7.0, 2.3), "C"), ((4.0, 2.0), "C"), ((1.8, 4.0), "Enterprise Group ")],
)
def test_the_labels_fitted_together_stay_inside_the_figure(size, name):
    """The y label is the longest that the figure's height holds where the layout made with
    the title and x label chosen puts it, as when it was fitted after them (a title wrapped
    to more lines moves the Axes, and the y label centred on them, down)."""
    fig, ax = figure(*size)
    comps_multiples(_current(50, name), top=40 if size[1] < 3 else 20, ax=ax)
    lay_out(fig)
    renderer = fig.canvas.get_renderer()
    edge = fig.bbox
    ylabel = ax.yaxis.label.get_window_extent(renderer)
    assert edge.y0 <= ylabel.y0 and ylabel.y1 <= edge.y1, ax.get_ylabel()
    for label in (ax._left_title, ax.xaxis.label):
        box = label.get_window_extent(renderer)
        assert edge.x0 <= box.x0 and box.x1 <= edge.x1, label.get_text()


@pytest.mark.parametrize("top_axis", ["tick_top", "twiny"])
def test_the_title_clears_an_x_axis_put_on_top_afterwards(top_axis):
    """The title is placed by matplotlib, which lifts it over whatever is at the top of the
    Axes: a title pinned to the Axes' top (to spare the names' measuring) sat on the tick
    labels of an x axis a user put there after the chart."""
    fig, ax = figure(7.0, 2.3)
    comps_multiples(_current(3), ax=ax)
    if top_axis == "tick_top":
        ax.xaxis.tick_top()
        top = ax
    else:
        top = ax.twiny()
        top.set_xlim(0, 8)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    title = next(t for t in (ax.title, ax._left_title, ax._right_title) if t.get_text())
    ticks = [t.get_window_extent(renderer) for t in top.xaxis.get_ticklabels() if t.get_text()]
    assert ticks and title.get_window_extent(renderer).y0 >= max(b.y1 for b in ticks)
