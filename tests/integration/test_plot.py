"""dealframe.plot over real frames from the sandbox: every chart has a title, labelled axes,
n where it matters and alt text; missing values are written n/a, never drawn as zero."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import dealframe
import dealframe.plot as dplot
from dealframe.errors import ValidationError
from dealframe.plot.shaping import investor_activity, multiple_status, participant_rows

REGION = "North America"


@pytest.fixture(scope="module")
def frames(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        current = client.public.current(client.public.search(regions=[REGION]).index)
        aggregate = client.private.aggregate("ev_revenue", "quarter", target_region=[REGION])
        window = aggregate.attrs["methodology"]["date_range"]
        deals = client.private.deals(
            target_region=[REGION], date_from=window["from"], date_to=window["to"]
        )
        history = client.public_v1.group_time_series(
            regions=[REGION],
            fields=["evRevenueNtm"],
            date_from=window["from"][:7],
            date_to=window["to"][:7],
        )
        top = investor_activity(participant_rows(deals), 8)
        co = client.private.co_investors(list(top["participant_id"]))
    return {
        "current": current,
        "aggregate": aggregate,
        "deals": deals,
        "history": history,
        "co": co,
        "names": dict(zip(top["participant_id"], top["name"])),
    }


def _charts(f):
    """Each chart, and the text that must carry its n."""
    current, deals = f["current"], f["deals"]
    return {
        "comps_multiples": (
            lambda ax: dplot.comps_multiples(current, ax=ax),
            f"of {len(current)} companies",
        ),
        "growth_vs_multiple": (
            lambda ax: dplot.growth_vs_multiple(current, ax=ax),
            f"of {len(current)} companies",
        ),
        "group_history": (
            lambda ax: dplot.group_history(f["history"], ax=ax),
            f"over {f['history'].attrs['companies']} companies",
        ),
        "deals_per_quarter": (
            lambda ax: dplot.deals_per_quarter(deals, ax=ax),
            f"n = {len(deals):,}",
        ),
        "capital_raised": (
            lambda ax: dplot.capital_raised(deals, ax=ax),
            f"of {len(deals):,} deals",
        ),
        "quarterly_medians": (
            lambda ax: dplot.quarterly_medians(f["aggregate"], ax=ax),
            f"n = {int(f['aggregate']['n'].sum()):,}",
        ),
        "private_vs_public": (lambda ax: dplot.private_vs_public(current, deals, ax=ax), "n="),
        "top_investors": (lambda ax: dplot.top_investors(deals, ax=ax), f"({len(deals):,} deals)"),
        "co_investment": (
            lambda ax: dplot.co_investment(f["co"], names=f["names"], ax=ax),
            f"{f['co']['investor_id'].nunique()} investors",
        ),
    }


def _texts(ax) -> str:
    parts = [ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel(), dplot.alt_text(ax)]
    parts += [t.get_text() for t in ax.texts + ax.get_xticklabels() + ax.get_yticklabels()]
    return "\n".join(parts)


def test_every_public_chart_is_covered(frames):
    charts = set(_charts(frames))
    public = {n for n in dplot.__all__ if n not in ("alt_text", "figure", "png")}
    assert charts == public


@pytest.mark.parametrize(
    "name",
    [
        "comps_multiples",
        "growth_vs_multiple",
        "group_history",
        "deals_per_quarter",
        "capital_raised",
        "quarterly_medians",
        "private_vs_public",
        "top_investors",
        "co_investment",
    ],
)
def test_chart_has_title_labels_n_and_alt_text(frames, name):
    draw, n_text = _charts(frames)[name]
    fig, ax = dplot.figure()
    assert draw(ax) is ax
    assert ax.get_title(loc="left").strip()
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip()
    alt = dplot.alt_text(ax)
    assert len(alt) > 60 and re.search(r"\d", alt), alt
    assert n_text in _texts(ax), (name, n_text)
    assert "nan" not in alt.lower().replace("financ", "")
    png = dplot.png(ax)
    assert png.startswith(b"\x89PNG")


def test_quarterly_medians_writes_every_buckets_n(frames):
    agg = frames["aggregate"]
    _, ax = dplot.figure()
    dplot.quarterly_medians(agg, ax=ax)
    texts = [t.get_text() for t in ax.texts]
    for n, median in zip(agg["n"], agg["median"]):
        if pd.notna(median):
            assert str(int(n)) in texts
    if agg["median"].isna().any():
        assert "n/a" in texts


def test_missing_and_not_meaningful_values_are_written_not_drawn(frames):
    current = frames["current"].copy()
    biggest = current["enterpriseValue"].idxmax()
    current.loc[biggest, "evRevenueNtm"] = np.nan
    second = current["enterpriseValue"].nlargest(2).index[1]
    current.loc[second, "evRevenueNtm"] = 400.0
    _, ax = dplot.figure()
    dplot.comps_multiples(current, ax=ax)
    texts = [t.get_text() for t in ax.texts]
    assert texts[0] == "n/a" and texts[1] == "NM"  # largest first
    widths = [p.get_width() for p in ax.patches]
    assert widths[0] == 0 and widths[1] == 0
    assert multiple_status(current.loc[[biggest, second]], "evRevenueNtm").tolist() == ["n/a", "NM"]


def test_partial_quarter_is_labelled(frames):
    deals = frames["deals"]
    _, ax = dplot.figure()
    dplot.deals_per_quarter(deals, window=("2024-02-15", "2025-03-31"), ax=ax)
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0] == "2024-Q1 (partial)" and "(partial)" not in "".join(labels[1:])
    assert "2024-Q1 (46 days)" in dplot.alt_text(ax)
    dplot.deals_per_quarter(deals, window=("2024-03-31", "2025-03-31"), ax=ax)
    assert "2024-Q1 (1 day)" in dplot.alt_text(ax)


def test_capital_raised_marks_quarters_without_an_amount(frames):
    deals = frames["deals"].copy()
    q = deals["deal_date"].dt.to_period("Q") == pd.Period("2024Q2")
    deals.loc[q, "deal_raised"] = np.nan
    _, ax = dplot.figure()
    dplot.capital_raised(deals, window=("2024-01-01", "2024-12-31"), ax=ax)
    assert [t.get_text() for t in ax.texts].count("n/a") == 1
    assert "marked n/a" in dplot.alt_text(ax)


def test_empty_frames_draw_a_titled_no_data_chart(frames):
    empty_deals = frames["deals"].iloc[:0]
    for draw in (
        lambda ax: dplot.deals_per_quarter(empty_deals, window=("2024-01-01", "2024-12-31"), ax=ax),
        lambda ax: dplot.top_investors(empty_deals, ax=ax),
        lambda ax: dplot.comps_multiples(frames["current"].iloc[:0], ax=ax),
    ):
        _, ax = dplot.figure()
        draw(ax)
        assert ax.get_title(loc="left") and ax.get_xlabel() and dplot.alt_text(ax)
        assert any("no " in t.get_text() for t in ax.texts)


def test_bad_arguments_raise_validation_errors(frames):
    with pytest.raises(ValidationError, match="ax"):
        dplot.deals_per_quarter(frames["deals"], ax="not an axes")
    with pytest.raises(ValidationError, match="current"):
        dplot.comps_multiples(frames["current"], "noSuchField")
    with pytest.raises(ValidationError, match="top"):
        dplot.top_investors(frames["deals"], top=0)
    with pytest.raises(ValidationError, match="buckets"):
        dplot.quarterly_medians(frames["deals"])
    with pytest.raises(ValidationError, match="metric"):
        dplot.private_vs_public(frames["current"], frames["deals"], "valuation")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nor pandas' guess-the-date-format warning
        with pytest.raises(ValidationError, match="history.*indexed by month"):
            dplot.group_history(frames["current"])  # SKUs, not months


def test_drawing_into_given_axes_never_imports_pyplot():
    code = (
        "import sys, pandas as pd\n"
        "import dealframe.plot as p\n"
        "d = pd.DataFrame({'deal_date': pd.to_datetime(['2024-01-05']), 'deal_type': ['M&A'],"
        " 'deal_raised': [1.0], 'id': ['x']})\n"
        "_, ax = p.figure()\n"
        "p.deals_per_quarter(d, ax=ax); p.capital_raised(d, ax=ax); p.png(ax)\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "False"


def _marker_boxes(ax) -> dict[tuple[float, float], object]:
    """The display box of each scatter point's marker, by its data coordinates."""
    from matplotlib.transforms import Bbox

    points = ax.collections[0]
    offsets, sizes = points.get_offsets(), points.get_sizes()
    per_point = ax.figure.dpi / 72.0
    boxes = {}
    for (x, y), size in zip(offsets, np.broadcast_to(sizes, len(offsets))):
        cx, cy = ax.transData.transform((x, y))
        half = np.sqrt(size) / 2 * per_point
        boxes[(float(x), float(y))] = Bbox.from_extents(cx - half, cy - half, cx + half, cy + half)
    return boxes


def test_scatter_labels_clear_each_other_and_every_named_marker(frames):
    """Issue 17's "scatter labels overlap": a label began 6 points from its point's centre,
    inside a marker of up to 7 points' radius, and two labels could touch. Each label now
    keeps a gap to the others and covers no named company's marker, its own included."""
    _, ax = dplot.figure(6.4, 4.4)
    dplot.growth_vs_multiple(frames["current"], ax=ax)
    renderer = ax.figure.canvas.get_renderer()
    labels = [t for t in ax.texts if t.get_text()]
    assert len(labels) >= 4, dplot.alt_text(ax)
    markers = _marker_boxes(ax)
    named = [markers[(float(t.xy[0]), float(t.xy[1]))] for t in labels]
    boxes = [t.get_window_extent(renderer) for t in labels]
    gap = 2.0 * ax.figure.dpi / 72.0  # points of clear space between two labels, at least
    for i, box in enumerate(boxes):
        assert not any(box.overlaps(marker) for marker in named), labels[i].get_text()
        for other in boxes[i + 1 :]:
            assert not box.padded(gap / 2).overlaps(other.padded(gap / 2)), labels[i].get_text()


def test_the_median_legend_covers_no_bar_and_no_value_label(frames):
    """With the longest bar last, the median's legend (lower right, over the bars) hid that
    bar's value label; it now has a row of its own."""
    current = frames["current"].copy()
    largest = current["enterpriseValue"].nlargest(8).index
    current.loc[largest, "revenueNtm"] = 100.0  # every multiple meaningful
    current.loc[largest, "evRevenueNtm"] = np.arange(2.0, 10.0)  # the last bar the longest
    _, ax = dplot.figure(7.0, 0.24 * 8 + 1.6)
    dplot.comps_multiples(current, top=8, ax=ax)
    renderer = ax.figure.canvas.get_renderer()
    ax.figure.draw_without_rendering()
    legend = ax.get_legend().get_window_extent(renderer)
    assert [t.get_text() for t in ax.texts][-1] == "9.0x"
    for text in ax.texts:
        assert not legend.overlaps(text.get_window_extent(renderer)), text.get_text()
    for bar in ax.patches:
        assert not legend.overlaps(bar.get_window_extent(renderer))


def test_counts_of_one_are_singular(frames):
    """ "1 deals", "1 companies": a count takes the noun in its number."""
    deals = frames["deals"]
    one = deals[deals["deal_raised"].notna()].iloc[:1]
    day = str(one["deal_date"].iloc[0].date())
    _, ax = dplot.figure()
    dplot.deals_per_quarter(one, window=(day, day), ax=ax)
    assert "by deal type, 1 deal over 1 quarter (" in dplot.alt_text(ax)
    assert "with 1 deal." in dplot.alt_text(ax)
    dplot.capital_raised(one, window=(day, day), ax=ax)
    assert ax.get_title(loc="left").endswith("1 of 1 deal disclosed an amount")
    assert " from 1 deal that disclosed an amount" in dplot.alt_text(ax)
    dplot.top_investors(one[one["lead_investors"].notna()].iloc[:1], ax=ax)
    assert ax.get_title(loc="left").endswith("(1 deal)")
    current = frames["current"].dropna(subset=["revenueGrowthNtmLtm", "evRevenueNtm"])
    current = current[current["evRevenueNtm"].between(0.5, 40) & (current["revenueNtm"] > 0)]
    _, ax = dplot.figure()  # not over the charts above: it lays the figure out to fit its label
    dplot.comps_multiples(current.iloc[:1], ax=ax)
    assert ax.get_title(loc="left").endswith("1 largest of 1 company")
    assert "Median of the 1 meaningful value: " in dplot.alt_text(ax)
    _, ax = dplot.figure()
    dplot.growth_vs_multiple(current.iloc[:1], ax=ax)
    assert "Scatter of 1 company:" in dplot.alt_text(ax)
    assert " 1 largest company named." in dplot.alt_text(ax)


def _laid_out(ax):
    """The renderer of ``ax``'s figure, laid out as it will be saved."""
    ax.figure.draw_without_rendering()
    return ax.figure.canvas.get_renderer()


#: ``title(loc="left")``, the charts' title, has no public accessor of its Text.
_TITLE = "_left_title"


def _inside(box, frame) -> bool:
    return box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1


@pytest.fixture(scope="module")
def one_quarter(sandbox):
    """Medians of a window inside one quarter (55 days into the service's last: 30 deals or fewer
    at scale 0.1, so the report draws their interval), with the report's intervals: one partial
    bucket, its whisker the tallest thing drawn."""
    from dealframe.report.tables import quarterly_medians_table

    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        latest = client.private.aggregate("ev_revenue", "quarter").attrs["methodology"]
        to = latest["date_range"]["to"]
        since = pd.Timestamp(to).to_period("Q").start_time + pd.Timedelta(days=55)
        window = {"date_from": since.date().isoformat(), "date_to": to}
        aggregate = client.private.aggregate("ev_revenue", "quarter", **window)
        deals = client.private.deals(**window)
    return quarterly_medians_table(aggregate, deals, "ev_revenue", 30, 0.9)


def test_one_partial_quarter_keeps_its_layout_its_label_and_a_clear_legend(one_quarter):
    """The "n" of the row over the chart, left of the first bucket, fell outside the narrow x
    range of one bucket: the layout collapsed ("constrained_layout not applied"), the
    "(partial)" tick label was cut off at the bottom, and the interval crossed the legend."""
    assert len(one_quarter) == 1 and np.isfinite(one_quarter["median_high"]).all()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = dplot.figure(9.0, 3.9)
        dplot.quarterly_medians(one_quarter, ax=ax)
        renderer = _laid_out(ax)
    assert not [str(w.message) for w in caught if "layout" in str(w.message)]
    page = fig.bbox
    (tick,) = [t for t in ax.get_xticklabels() if t.get_text()]
    assert tick.get_text().endswith("(partial)")
    for text in [tick, ax.xaxis.label, ax.yaxis.label, getattr(ax, _TITLE), *ax.texts]:
        assert _inside(text.get_window_extent(renderer), page), text.get_text()
    legend = ax.get_legend().get_window_extent(renderer)
    x, high = ax.transData.transform((0, one_quarter["median_high"].iloc[0]))
    assert high < legend.y0  # the whisker's top is under the legend
    assert _inside(legend, ax.get_window_extent(renderer))


def test_capital_raised_counts_stay_apart_on_narrow_axes(frames):
    """ "n=138n=146": the n over each bar touched once 20 quarters shared a narrow chart."""
    for width, height in ((7.0, 3.8), (4.0, 2.5)):
        _, ax = dplot.figure(width, height)
        dplot.capital_raised(frames["deals"], ax=ax)
        renderer = _laid_out(ax)
        counts = [t for t in ax.texts if t.get_text().startswith("n=")]
        assert len(counts) >= 12
        boxes = sorted((t.get_window_extent(renderer) for t in counts), key=lambda b: b.x0)
        gap = 2.0 * ax.figure.dpi / 72.0
        for left, right in zip(boxes, boxes[1:]):
            assert left.x1 + gap <= right.x0, (width, left, right)
        frame = ax.get_window_extent(renderer)
        assert all(box.y1 <= frame.y1 for box in boxes)  # under the title


def test_one_companys_comps_chart_keeps_its_axis_label_in_the_figure(frames):
    current = frames["current"].dropna(subset=["evRevenueNtm", "enterpriseValue"])
    _, ax = dplot.figure(7.0, 0.24 * 1 + 1.6)  # as the report draws it
    dplot.comps_multiples(current.iloc[:1], ax=ax)
    renderer = _laid_out(ax)
    assert ax.get_ylabel().startswith("company")
    assert _inside(ax.yaxis.label.get_window_extent(renderer), ax.figure.bbox), ax.get_ylabel()
    _, ax = dplot.figure(7.0, 0.24 * 25 + 1.6)  # room for the whole label
    dplot.comps_multiples(current, ax=ax)
    assert ax.get_ylabel() == "company (largest enterprise value first)"


@pytest.mark.parametrize("middle", [False, True])
@pytest.mark.parametrize("size", [(7.0, 0.24 * 25 + 1.6), (5.0, 2.9), (4.0, 2.5)])
def test_the_median_legend_fits_and_keeps_off_the_median_line(frames, size, middle):
    """The legend took the side of the Axes the median left free only while it was narrower
    than half of them: at 5 x 2.9 in it sat on the median line, at 4 in it ran past the
    right edge. ``middle``: every multiple meaningful and the median just left of the middle
    of the Axes, so the free side is narrowest."""
    current = frames["current"].copy()
    if middle:
        current["revenueNtm"] = 100.0
        current["evRevenueNtm"] = np.linspace(1.0, 10.0, len(current))
    _, ax = dplot.figure(*size)
    dplot.comps_multiples(current, ax=ax)
    renderer = _laid_out(ax)
    legend = ax.get_legend().get_window_extent(renderer)
    assert _inside(legend, ax.figure.bbox)
    (line,) = ax.get_lines()  # the median
    axes = ax.get_window_extent(renderer)
    x = ax.transData.transform((line.get_xdata()[0], 0))[0]
    assert not (legend.x0 <= x <= legend.x1 and legend.y0 < axes.y1 and legend.y1 > axes.y0)
    assert not legend.overlaps(getattr(ax, _TITLE).get_window_extent(renderer))
    for artist in [*ax.texts, *ax.patches]:
        assert not legend.overlaps(artist.get_window_extent(renderer))
