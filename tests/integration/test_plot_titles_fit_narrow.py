"""Every chart's title stays inside a narrow figure, on the sandbox's data over HTTP.

Only the investor charts gave their titles in several forms; another chart's one title was
set whatever its width: at 5 inches and less ``Capital raised per quarter, 2,407 of 3,415
deals disclosed an amount`` and ``Median EV/Revenue per quarter, n = 981 deals with a value``
ran past the figure's right edge and were cut. A title that fits in no form is now wrapped
where it stands, else wrapped to the figure's width and moved inside (docs/report.md).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

import dealframe
from dealframe.plot import capital_raised, figure, quarterly_medians


@pytest.fixture(scope="module")
def served(sandbox: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sandbox's deals and its quarterly medians of EV/Revenue."""
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        deals = client.private.deals(limit=5000)
        medians = client.private.aggregate("ev_revenue", "quarter")
    return deals, medians


def _titles_outside(fig: Figure) -> list[str]:
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    edge = fig.bbox
    cut = []
    for ax in fig.axes:
        for text in (ax.title, ax._left_title, ax.xaxis.label, ax.yaxis.label):
            if not text.get_text().strip():
                continue
            box = text.get_window_extent(renderer)
            if box.x0 < edge.x0 - 0.5 or box.x1 > edge.x1 + 0.5:
                cut.append(f"{text.get_text()!r} at {box.x0:.0f}..{box.x1:.0f} of {edge.x1:.0f}")
    return cut


@pytest.mark.parametrize("width", [7.0, 5.0, 4.5, 4.0, 3.0])
def test_a_one_form_title_is_not_cut(served, width):
    deals, medians = served
    for draw, start in [
        (lambda ax: capital_raised(deals, ax=ax), "Capital raised per quarter, "),
        (lambda ax: quarterly_medians(medians, ax=ax), "Median EV/Revenue per quarter, "),
    ]:
        fig, ax = figure(width, 3.9)
        draw(ax)
        assert _titles_outside(fig) == []
        title = ax.get_title(loc="left")
        assert " ".join(title.split()).startswith(start.strip())  # the same words
        if width <= 5.0:  # too narrow for one line
            assert "\n" in title
