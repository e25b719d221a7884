"""dealframe.plot refuses bad arguments with a ValidationError naming them, over frames from the
sandbox: never a bare TypeError/ValueError/AttributeError, never a silently wrong chart (two
frames swapped drawn as "no data", an overlay dropped, a figure too large to draw)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import dealframe
import dealframe.plot as dplot
from dealframe.analytics import bucket_medians
from dealframe.errors import DealframeError, ValidationError
from dealframe.notices import MissingDataWarning
from dealframe.plot.shaping import investor_activity, participant_rows

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
        top = investor_activity(participant_rows(deals), 4)
        co = client.private.co_investors(list(top["participant_id"]))
        yearly = client.private.aggregate("ev_revenue", "year", target_region=[REGION])
    return {
        "current": current,
        "aggregate": aggregate,
        "yearly": yearly,
        "window": (window["from"], window["to"]),
        "deals": deals,
        "co": co,
    }


def _refused(call, argument: str) -> ValidationError:
    """The ValidationError ``call`` raises, checked to name ``argument``."""
    with pytest.raises(ValidationError) as caught:
        call()
    assert isinstance(caught.value, DealframeError)
    assert caught.value.argument == argument, str(caught.value)
    assert str(caught.value).startswith(f"invalid {argument}: expected ")
    return caught.value


def _bare_cases(f):
    current, deals, co = f["current"], f["deals"], f["co"]
    _, ax = dplot.figure()
    return {
        "figure(width='x')": (lambda: dplot.figure(width="x"), "width"),
        "png(None)": (lambda: dplot.png(None), "ax_or_fig"),
        "png('x')": (lambda: dplot.png("x"), "ax_or_fig"),
        "png(ax, dpi=0)": (lambda: dplot.png(ax, dpi=0), "dpi"),
        "comps_multiples(text column)": (lambda: dplot.comps_multiples(current, "name"), "column"),
        "comps_multiples(bound='x')": (lambda: dplot.comps_multiples(current, bound="x"), "bound"),
        "growth_vs_multiple(label_top='x')": (
            lambda: dplot.growth_vs_multiple(current, label_top="x"),
            "label_top",
        ),
        "growth_vs_multiple(y=text)": (lambda: dplot.growth_vs_multiple(current, y="name"), "y"),
        "deals_per_quarter(window reversed)": (
            lambda: dplot.deals_per_quarter(deals, window=("2025-01-01", "2020-01-01")),
            "window",
        ),
        "capital_raised(start after the deals)": (
            lambda: dplot.capital_raised(deals, window=("2099-01-01", None)),
            "window",
        ),
        "co_investment(names='x')": (lambda: dplot.co_investment(co, names="x"), "names"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "figure(width='x')",
        "png(None)",
        "png('x')",
        "png(ax, dpi=0)",
        "comps_multiples(text column)",
        "comps_multiples(bound='x')",
        "growth_vs_multiple(label_top='x')",
        "growth_vs_multiple(y=text)",
        "deals_per_quarter(window reversed)",
        "capital_raised(start after the deals)",
        "co_investment(names='x')",
    ],
)
def test_no_bare_exception_escapes(frames, case):
    call, argument = _bare_cases(frames)[case]
    _refused(call, argument)


@pytest.mark.parametrize(
    ("options", "argument"),
    [
        ({"width": 0}, "width"),
        ({"height": -1}, "height"),
        ({"width": float("nan")}, "width"),
        ({"height": True}, "height"),
        ({"dpi": -1}, "dpi"),
        ({"dpi": 1.5}, "dpi"),
        ({"dpi": 10**6}, "dpi"),
        ({"width": 20, "dpi": 1000}, "width"),  # 20,000 pixels wide
        ({"height": 500.0}, "height"),  # 50,000 pixels high at dpi 100
    ],
)
def test_figure_refuses_sizes_it_cannot_draw(options, argument):
    error = _refused(lambda: dplot.figure(**options), argument)
    if "pixels" in str(error):
        assert "10,000 pixels a side" in str(error)


def test_png_refuses_an_image_too_large_to_draw():
    fig, ax = dplot.figure(9, 4)
    error = _refused(lambda: dplot.png(ax, dpi=1200), "dpi")  # 10,800 pixels wide
    assert "the width, 9 inches at dpi 1200" in str(error)


def test_good_sizes_numpy_numbers_and_figures_are_accepted():
    fig, ax = dplot.figure(np.float64(4.0), 3, np.int64(150))
    assert fig.get_size_inches().tolist() == [4.0, 3.0] and fig.dpi == 150
    for target in (ax, fig):
        assert dplot.png(target, dpi=np.int64(50)).startswith(b"\x89PNG")
    sub = fig.subfigures(1, 2)[0]  # an Axes of a subfigure: the whole figure is saved
    assert dplot.png(sub.add_subplot()).startswith(b"\x89PNG")


def test_label_top_below_zero_is_refused_and_zero_names_none(frames):
    current = frames["current"]
    _refused(lambda: dplot.growth_vs_multiple(current, label_top=-1), "label_top")
    _refused(lambda: dplot.growth_vs_multiple(current, label_top=2.5), "label_top")
    _, ax = dplot.figure()
    dplot.growth_vs_multiple(current, label_top=0, ax=ax)
    assert not ax.texts and " 0 largest companies named." in dplot.alt_text(ax)


def test_bound_must_be_a_positive_multiple(frames):
    for bound in (0, -5, float("inf"), True):
        _refused(lambda b=bound: dplot.comps_multiples(frames["current"], bound=b), "bound")
    _, ax = dplot.figure()
    dplot.comps_multiples(frames["current"], bound=np.float64(20), ax=ax)
    assert "above 20x" in dplot.alt_text(ax)


def test_swapped_frames_are_refused_not_drawn_as_no_data(frames):
    current, deals = frames["current"], frames["deals"]
    error = _refused(lambda: dplot.private_vs_public(deals, current), "current")
    assert "evRevenueLtm" in str(error)
    error = _refused(lambda: dplot.private_vs_public(current, current), "deals")
    assert "deal_date" in str(error)
    reversed_window = ("2025-01-01", "2024-01-01")
    _refused(lambda: dplot.private_vs_public(current, deals, window=reversed_window), "window")
    _, ax = dplot.figure()  # the right way round still draws every group
    dplot.private_vs_public(current, deals, ax=ax)
    assert "no data" not in dplot.alt_text(ax) and "public comps median" in dplot.alt_text(ax)


def test_quarterly_medians_refuses_a_local_frame_of_another_kind(frames):
    agg = frames["aggregate"]
    _refused(lambda: dplot.quarterly_medians(agg, local="x"), "local")
    error = _refused(lambda: dplot.quarterly_medians(agg, local=frames["deals"]), "local")
    assert "bucket, median" in str(error)
    error = _refused(lambda: dplot.quarterly_medians(agg, local=frames["yearly"]), "local")
    assert "time_bucket" in str(error) and "'quarter'" in str(error)
    other = agg.copy()
    other.attrs = {**agg.attrs, "metric": "ev_ebitda"}
    error = _refused(lambda: dplot.quarterly_medians(agg, local=other), "local")
    assert "metric" in str(error)


def _crosses(ax) -> np.ndarray:
    (line,) = [x for x in ax.get_lines() if x.get_label() == "recomputed locally"]
    return np.asarray(line.get_ydata(), dtype=float)


def test_quarterly_medians_aligns_local_by_bucket(frames):
    agg, deals = frames["aggregate"], frames["deals"]
    start, end = frames["window"]
    local = bucket_medians(deals, "ev_revenue", "quarter", start, end)
    expected = (
        local.set_index(local["bucket"].astype(str))["median"]
        .reindex(agg["bucket"].astype(str))
        .to_numpy(dtype=float)
    )
    assert np.isfinite(expected).sum() >= 3

    _, ax = dplot.figure()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same buckets: nothing to say
        dplot.quarterly_medians(agg, local=local.iloc[::-1], ax=ax)  # rows in another order
    np.testing.assert_allclose(_crosses(ax), expected, equal_nan=True)

    later = agg["bucket"].astype(str).iloc[len(agg) // 2]
    shorter = local[local["bucket"].astype(str) >= later]  # a window that starts later
    missing = [
        b
        for b, m in zip(agg["bucket"].astype(str), agg["median"], strict=True)
        if b < later and pd.notna(m)
    ]
    assert missing
    _, ax = dplot.figure()
    with pytest.warns(MissingDataWarning, match="no local median for") as said:
        dplot.quarterly_medians(agg, local=shorter, ax=ax)
    message = str(said[0].message)
    assert f"no local median for {len(missing)} buckets ({missing[0]}" in message
    assert said[0].filename == __file__  # at the caller's line
    drawn = np.where(agg["bucket"].astype(str).to_numpy() >= later, expected, np.nan)
    np.testing.assert_allclose(_crosses(ax), drawn, equal_nan=True)
