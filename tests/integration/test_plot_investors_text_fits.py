"""The investor charts' text stays inside the figure, at the report's size and smaller, on the
sandbox's investors over HTTP.

docs/report.md says no text of a chart is cut off. The co-investment chart's x label,
``deals shared (whole history; co-investor lists of 13 investors)``, is centred under Axes
that the pairs' long names push right: at the report's 7 by 5.3 inches its end ran past the
figure's right edge and was cut. The most active investors' title, at the left of Axes
pushed right by the investors' names, ran past it too on a larger cohort or a narrower
figure, and so did the co-investment title on a figure narrower than the report's. Each is
now the first of its wrapped (or, last, shortened) forms that the figure's width holds.

At 4 and 4.5 inches even the last form ran past the figure (the last was set whether it fit
or not), and long names in wide letters pushed the Axes out at 5 inches, or collapsed the
layout: the last form is now wrapped, and moved left if need be, until it stays inside, and
the names on the y axis are cut shorter on a narrow figure.

At 3 and 3.5 inches the most active investors' chart still had matplotlib warn
"constrained_layout not applied": the first layout was made with the title's first form, wider
than the whole figure, and collapsed the Axes. A form wider than its figure is now passed over
before that first layout.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

import dealframe
from dealframe.plot import co_investment, figure, top_investors
from dealframe.plot.shaping import investor_activity, participant_rows

#: The report's height of both charts (report/pages.py): 15 rows.
HEIGHT = 0.26 * 15 + 1.4


@pytest.fixture(scope="module")
def investors(sandbox: Any) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """The sandbox's deals, the co-investor lists of their 15 most active investors, and
    those investors' names, as the report reads them."""
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        deals = client.private.deals(limit=5000)
        top = investor_activity(participant_rows(deals), 15)
        with warnings.catch_warnings():  # an investor soft-deleted since is said, not here
            warnings.simplefilter("ignore")
            co = client.private.co_investors(list(top["participant_id"]), progress=False)
    return deals, co, dict(zip(top["participant_id"], top["name"], strict=True))


def _outside(fig: Figure) -> list[str]:
    """The texts drawn past an edge of ``fig`` (half a pixel of rounding allowed)."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    edge = fig.bbox
    cut = []
    for ax in fig.axes:
        texts = [ax.xaxis.label, ax.yaxis.label, ax.title, *ax.texts]
        texts += [t for t in ax.get_children() if hasattr(t, "get_text") and t not in texts]
        for text in texts:
            if not text.get_visible() or not str(text.get_text()).strip():
                continue
            box = text.get_window_extent(renderer)
            if (
                box.x0 < edge.x0 - 0.5
                or box.x1 > edge.x1 + 0.5
                or box.y0 < edge.y0 - 0.5
                or box.y1 > edge.y1 + 0.5
            ):
                cut.append(f"{text.get_text()!r} at {box.x0:.0f}..{box.x1:.0f}")
        whole = ax.get_tightbbox(renderer)  # tick labels too, those drawn only
        assert whole is not None
        if whole.x1 > edge.x1 + 0.5 or whole.x0 < edge.x0 - 0.5:
            cut.append(f"the chart spans {whole.x0:.0f}..{whole.x1:.0f} of {edge.x1:.0f}")
    return cut


#: Long names in wide letters, given to the sandbox's investors in turn.
LONG = [
    "Ünïcødé Kapitalbeteiligungsgesellschaft mbH & Co. KG",
    "Société Générale d'Investissement Européenne S.A.S.",
    "Grupo Financiero Ñandú Inversiones Estratégicas SAPI de CV",
    "WWWMMM Øresund Wachstumsfonds Management GmbH",
]


def _long(
    deals: pd.DataFrame, co: pd.DataFrame, names: dict[str, str]
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, str]]:
    """The same investors under long names."""
    ids = sorted({*names, *co["id"], *co["investor_id"]})
    renamed = {i: f"{LONG[k % len(LONG)]} {k}" for k, i in enumerate(ids)}

    def participants(cell: Any) -> Any:
        if not isinstance(cell, str):
            return cell
        people = json.loads(cell)
        for k, person in enumerate(people):
            person["name"] = renamed.get(person.get("id"), f"{LONG[k % len(LONG)]} x")
        return json.dumps(people, ensure_ascii=False)

    deals = deals.assign(
        lead_investors=deals["lead_investors"].map(participants),
        buyers=deals["buyers"].map(participants),
    )
    co = co.assign(name=[renamed.get(i, n) for i, n in zip(co["id"], co["name"], strict=True)])
    return deals, co, {i: renamed[i] for i in names}


WIDTHS = [7.0, 5.5, 5.0, 4.5, 4.0, 3.5, 3.0]


@pytest.mark.parametrize("long", [False, True], ids=["names", "long names"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_co_investment_label_is_not_cut(investors, width, long):
    deals, co, names = _long(*investors) if long else investors
    fig, ax = figure(width, HEIGHT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied" fails too
        co_investment(co, names=names, top=15, ax=ax)
        assert _outside(fig) == []
    label = " ".join(ax.get_xlabel().split())
    asked = co["investor_id"].nunique()
    if width == 7.0 and not long:  # at the report's size all of it is said
        assert label == f"deals shared (whole history; co-investor lists of {asked} investors)"
    else:
        assert label.startswith("deals shared (whole")
    title = " ".join(ax.get_title(loc="left").split())
    assert title == "Co-investment: top 15 pairs by deals shared"
    assert all(t.get_text() for t in ax.get_yticklabels())  # each pair still named


@pytest.mark.parametrize("long", [False, True], ids=["names", "long names"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_top_investors_title_is_not_cut(investors, width, long):
    deals, _, _ = _long(*investors) if long else investors
    fig, ax = figure(width, HEIGHT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        top_investors(deals, top=15, ax=ax)
        assert _outside(fig) == []
    title = " ".join(ax.get_title(loc="left").split())
    assert title.startswith("Most active investors: deals led or bought, top 15 of ")
    assert title.endswith(f"({len(deals):,} deals)")
    assert " ".join(ax.get_xlabel().split()) == "deals in the window"
