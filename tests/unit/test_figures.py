"""Figures in words (dealframe._figures): the one rounding rule of the report and the charts.

Review findings: money chose its unit before rounding (999.6 was "$1,000m") and wrote
negatives "$-1m"; the growth chart's alt text could write "correlation ... -0.00" and
"Median growth -0.0%", which the page's tables never write.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dealframe._figures import change_text, money, number


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (999.4, "$999m"),
        (999.6, "$1.0bn"),
        (1000.0, "$1.0bn"),
        (-999.6, "-$1.0bn"),
        (-0.6, "-$1m"),
        (-0.4, "$0m"),
        (-1520.0, "-$1.5bn"),
        (12_345_678.0, "$12,345.7bn"),
        (float("nan"), "n/a"),
        (None, "n/a"),
    ],
)
def test_money_picks_its_unit_after_rounding_and_puts_the_sign_first(value, shown):
    assert money(value) == shown


@pytest.mark.parametrize(
    ("now", "before", "shown"),
    [(3.58, 3.59, "unchanged"), (100.4, 100, "unchanged"), (99, 100, "-1%"), (5, 0, "n/a")],
)
def test_a_change_that_rounds_to_zero_is_unchanged(now, before, shown):
    assert change_text(now, before) == shown


def test_no_spec_writes_a_signed_zero():
    for value in (-0.004, -0.0, 0.004, -1e-9):
        for spec in ("{:.2f}", "{:.1f}%", "{:+.0%}", "{:,.0f}", "{:.2f}x"):
            assert not number(value, spec).startswith(("-", "+")), (value, spec)


def test_the_growth_chart_writes_no_signed_zero():
    pytest.importorskip("matplotlib")
    from dealframe.plot import alt_text, figure, growth_vs_multiple

    growth = [0.75875, -0.98725, -0.83875, 1.26675]  # median -0.04%
    multiple = [1.0, 2.0, 3.0, 4.0]
    assert -0.005 < np.corrcoef(growth, np.log(multiple))[0, 1] < 0  # rounds to -0.00
    current = pd.DataFrame(
        {
            "name": list("ABCD"),
            "revenueGrowthNtmLtm": growth,
            "evRevenueNtm": multiple,
            "enterpriseValue": [100.0, 200.0, 300.0, 400.0],
            "revenueNtm": [100.0, 100.0, 100.0, 100.0],
        }
    )
    alt = alt_text(growth_vs_multiple(current, ax=figure()[1]))
    assert "Median growth 0.0%, median EV/Revenue NTM 2.5x" in alt
    assert "; correlation of growth with log multiple 0.00." in alt


def test_the_group_history_says_a_change_under_half_a_percent_as_the_card_does():
    pytest.importorskip("matplotlib")
    from dealframe.plot import alt_text, figure, group_history

    values = [3.59] + [4.0] * 11 + [3.58]
    history = pd.DataFrame(
        {"evRevenueNtm": values}, index=pd.period_range("2024-01", periods=13, freq="M")
    )
    alt = alt_text(group_history(history, ax=figure()[1]))
    assert "Latest 2025-01: 3.58x; unchanged from twelve months earlier (3.59x)." in alt
    history.iloc[-1, 0] = 3.2
    alt = alt_text(group_history(history, ax=figure()[1]))
    assert "Latest 2025-01: 3.20x; -11% on twelve months earlier (3.59x)." in alt


def test_only_the_figure_of_a_spec_decides_its_sign():
    """A digit in the words around the figure ("month 12") let a negative zero through."""
    assert number(-0.001, "month 12 {:+.0%}") == "month 12 0%"
    assert number(-0.02, "month 12 {:+.0%}") == "month 12 -2%"


@pytest.mark.parametrize("now, before", [(-1.0, -2.0), (-0.002, -0.001), (None, 1.0), (pd.NA, 1)])
def test_no_change_is_read_from_a_missing_or_negative_earlier_figure(now, before):
    """-2 to -1 read as "-50%" though the value rose; a missing value raised ``TypeError``."""
    assert change_text(now, before) == "n/a"


def test_money_of_a_missing_value_is_na():
    assert money(pd.NA) == "n/a" and money(None) == "n/a"


def test_the_charts_write_counts_with_separators():
    pytest.importorskip("matplotlib")
    from dealframe.plot import alt_text, comps_multiples, figure, growth_vs_multiple

    n = 1500
    rng = np.random.default_rng(3)
    current = pd.DataFrame(
        {
            "name": [f"C{i}" for i in range(n)],
            "revenueGrowthNtmLtm": rng.normal(0.1, 0.2, n),
            "evRevenueNtm": rng.uniform(1, 9, n),
            "enterpriseValue": rng.uniform(10, 1000, n),
            "revenueNtm": rng.uniform(10, 100, n),
        }
    )
    fig, ax = figure()
    growth_vs_multiple(current, ax=ax)
    assert ax.get_title(loc="left").startswith(
        "Growth against EV/Revenue NTM, 1,500 of 1,500 companies"
    )
    fig, ax = figure()
    # a bar each: 1,000, the fewest whose count takes a separator
    comps_multiples(current, "evRevenueNtm", top=1000, ax=ax)
    assert "1,000 largest of 1,500 companies" in ax.get_title(loc="left")
    assert "for the 1,000 largest of 1,500 companies" in alt_text(ax)
