"""Names cut to fit a narrow chart stay distinct and say they were cut.

``top_investors`` and ``co_investment`` cut the investors' names so the bars keep room on a
narrow figure: two names that share their first characters ("Sequoia Capital China Growth",
"Sequoia Capital China Seed") were cut to one label, with no mark of the cut.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest

from dealframe.frames.private import deals_frame
from dealframe.plot import co_investment, figure, top_investors
from dealframe.plot.labels import distinct, short_name

#: matplotlib gives up its layout of a 3 in chart of 4 bars: not what these tests are about
pytestmark = pytest.mark.filterwarnings("ignore:constrained_layout not applied")

NAMES = ["Sequoia Capital China Growth", "Sequoia Capital China Seed", "Tiger Global", "Accel"]


def _deals():
    return deals_frame(
        [
            {
                "id": f"d{i}",
                "deal_type": "Venture",
                "deal_date": "2024-01-02",
                "lead_investors": [
                    {"id": f"i{i % 4}", "name": NAMES[i % 4]},
                    {"id": f"i{(i + 1) % 4}", "name": NAMES[(i + 1) % 4]},
                ],
            }
            for i in range(8)
        ]
    )


@pytest.mark.parametrize("width", [3, 4, 7])
def test_top_investors_labels_stay_distinct_and_mark_a_cut(width):
    fig, ax = figure(width, 3)
    top_investors(_deals(), ax=ax)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(set(labels)) == len(labels) == 4, labels
    for label in labels:
        assert label in NAMES or "…" in label, labels
        assert label == label.strip(), labels


def test_co_investment_pairs_stay_distinct():
    import pandas as pd

    co = pd.DataFrame(
        {
            "investor_id": ["i0", "i1"],
            "id": ["i2", "i2"],
            "name": ["Tiger Global", "Tiger Global"],
            "shared_deals": [3, 2],
        }
    )
    fig, ax = figure(3, 3)
    co_investment(co, names={"i0": NAMES[0], "i1": NAMES[1], "i2": NAMES[2]}, ax=ax)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(set(labels)) == len(labels), labels


def test_short_name_and_distinct():
    assert short_name("Accel", 10) == "Accel"
    assert short_name("Sequoia Capital China Seed", 10) == "Sequoia C…"
    cut = [short_name(n, 10) for n in NAMES]
    out = distinct(cut, NAMES)
    assert len(set(out)) == 4 and out[2:] == ["Tiger Glo…", "Accel"]
    assert all(len(a) <= 10 for a in out[:2]), out
    assert distinct(["Same", "Same"], ["Same", "Same"]) == ["Same", "Same"]  # one name twice
