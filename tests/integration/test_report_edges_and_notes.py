"""Report and chart defects found by an audit over HTTP, each checked against the sandbox.

- A row of ``private_vs_public`` with too few values for a box (text only, "n/a (too few
  values)") at the bottom or top edge was drawn on the spine, over the tick labels: the y
  limits followed the boxes only. The same held for an "n/a" quarter at either end of
  ``capital_raised``. Every row and quarter is now inside the Axes, and the alt text says
  "too few values (n=1)" as the chart does (it said "No value for M&A").
- Partial edge quarters were marked only in ``quarterly.csv``: ``quarterly_medians``,
  ``deal_aggregate`` and ``reconciliation`` now carry the same ``partial`` column, and the
  appendix's rows say "(partial)".
- ``headline.csv`` left ``value`` blank without saying why: its ``note`` holds the card's
  reason, and the summary sentence of a cohort whose deals disclose no amount says so in
  words (it read "raising n/a (n/a)").
- The summary card's public median (the group's monthly series) and the Public comps
  section's (current data) differ: the card names its source.
"""

from __future__ import annotations

import html as html_module
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _report_builds import alt_text_only, undrawn

import dealframe
import dealframe.report.pages as pages
from dealframe.plot import alt_text, capital_raised, figure, private_vs_public
from dealframe.plot.compare import multiple_groups
from dealframe.plot.shaping import quarterly_activity
from dealframe.report import build_report

SINCE = "2024-02-15"  # 46 days of 2024-Q1


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Any]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def cohorts(client: Any) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """Each region's listed companies (current data) and deals of the last year."""
    universe = client.public.search()
    out = {}
    for region in sorted(universe["region"].dropna().unique()):
        current = client.public.current(list(universe.index[universe["region"] == region]))
        deals = client.private.deals(target_region=[region], date_from="2025-07-01")
        out[str(region)] = (current, deals)
    return out


def _charts_with_an_edge_row_of_text(
    cohorts: dict[str, tuple[pd.DataFrame, pd.DataFrame]], edge: int
) -> list[tuple[str, str]]:
    """(region, metric) whose chart has a box, and no box in its row at ``edge`` (0 the
    first group, drawn on top; -1 the last, at the bottom)."""
    found = []
    for region, (current, deals) in cohorts.items():
        for metric in ("ev_revenue", "ev_ebitda"):
            groups = list(multiple_groups(current, deals, metric).values())
            if any(len(g) for g in groups) and not len(groups[edge]) and len(groups) > 1:
                found.append((region, metric))
    return found


@pytest.mark.parametrize("edge", [0, -1], ids=["top row", "bottom row"])
def test_a_group_without_a_box_at_an_edge_is_inside_the_axes(
    cohorts: dict[str, tuple[pd.DataFrame, pd.DataFrame]], edge: int
) -> None:
    found = _charts_with_an_edge_row_of_text(cohorts, edge)
    assert found, "the sandbox has no such chart: pick other cohorts"
    for region, metric in found:
        current, deals = cohorts[region]
        ax = private_vs_public(current, deals, metric, ax=figure()[1])
        low, high = sorted(ax.get_ylim())
        rows = list(ax.get_yticks())
        # every row with room for its half-row height (box, text, median label) both sides
        assert low <= min(rows) - 0.5 and max(rows) + 0.5 <= high, (region, metric, low, high)
        for text in ax.texts:
            if text.get_text() == "n/a (too few values)":
                assert low + 0.5 <= text.get_position()[1] <= high - 0.5


def test_the_alt_text_says_too_few_values_as_the_chart_does(
    cohorts: dict[str, tuple[pd.DataFrame, pd.DataFrame]],
) -> None:
    said = []
    for current, deals in cohorts.values():
        groups = multiple_groups(current, deals, "ev_ebitda")
        if any(len(g) for g in groups.values()) and any(not len(g) for g in groups.values()):
            alt = alt_text(private_vs_public(current, deals, "ev_ebitda", ax=figure()[1]))
            assert "No value for" not in alt
            for name, values in groups.items():
                if not len(values):
                    n = int(values.attrs.get("n", 0))
                    assert f"{name}: too few values (n={n:,})" in alt, alt
                    said.append(n)
    assert 1 in said, "no group of one value in the sandbox: pick other cohorts"


def test_an_na_quarter_at_either_end_of_capital_raised_is_inside_the_axes(
    client: Any,
) -> None:
    """Funding rounds disclose amounts, M&A deals none: a quarter of M&A deals only at the
    start or end of the window has no bar, only its "n/a"."""
    checked = 0
    for region in client.public.search()["region"].dropna().unique():
        deals = client.private.deals(target_region=[str(region)], date_from="2024-01-01")
        window = ("2024-01-01", "2026-06-30")
        table = quarterly_activity(deals, window)
        raised = table["raised"].to_numpy(dtype=float)
        if not np.isfinite(raised).any() or np.isfinite(raised[[0, -1]]).all():
            continue
        ax = capital_raised(deals, window=window, ax=figure()[1])
        low, high = ax.get_xlim()
        assert low <= -0.5 and len(table) - 0.5 <= high, (region, low, high)
        checked += 1
    assert checked, "no region with an n/a quarter at an end: pick other cohorts"


# ------------------------------------------------------------------ the report's files


@pytest.fixture(scope="module")
def since_mid_quarter(client: Any, tmp_path_factory: Any) -> Any:
    # its tables and appendix are read: the charts (most of a report's time) are left undrawn
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages, "_chart", undrawn)
        return build_report(
            client,
            tmp_path_factory.mktemp("since"),
            cohort={"region": "North America", "since": SINCE},
            progress=False,
        )


@pytest.mark.parametrize("name", ["quarterly_medians", "deal_aggregate", "reconciliation"])
def test_every_table_of_quarters_marks_the_partial_first_quarter(
    since_mid_quarter: Any, name: str
) -> None:
    quarterly = pd.read_parquet(since_mid_quarter.parquet["quarterly"])
    assert quarterly["partial"].tolist()[:2] == [True, False]  # the mark they must agree with
    for table in (
        pd.read_parquet(since_mid_quarter.parquet[name]),
        pd.read_csv(since_mid_quarter.csv[name]),
    ):
        assert table["bucket"].iloc[0] == "2024-Q1"
        assert table["partial"].dtype == bool
        marked = dict(zip(table["bucket"], table["partial"]))
        assert {q: bool(p) for q, p in quarterly["partial"].items() if q in marked} == marked


def test_the_appendix_marks_the_partial_quarter(since_mid_quarter: Any) -> None:
    page = html_module.unescape(since_mid_quarter.html.read_text())
    appendix = page[page.index('id="appendix"') :]
    assert "2024-Q1 (partial)" in appendix
    assert "2024-Q2 (partial)" not in appendix


@pytest.fixture(scope="module")
def ma_only(client: Any, tmp_path_factory: Any) -> Any:
    """M&A deals disclose no amount; a small region leaves medians of fewer than the
    threshold's values. Its tables and the summary's text are read; its charts are drawn (a
    chart must cope with no amount disclosed) for their alt text, without rendering the PNG."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages, "_chart", alt_text_only)
        return build_report(
            client,
            tmp_path_factory.mktemp("ma"),
            cohort={"region": "Oceania", "deal_type": ["M&A"]},
            progress=False,
        )


def test_every_blank_headline_value_has_a_note_saying_why(ma_only: Any) -> None:
    for table in (
        pd.read_parquet(ma_only.parquet["headline"]),
        pd.read_csv(ma_only.csv["headline"]),
    ):
        notes = table["note"].fillna("")
        blank = table["value"].isna()
        assert blank.any()
        assert (notes[blank] != "").all(), table.to_string()
        assert (notes[~blank] == "").all(), table.to_string()
        raised = table[table["figure"] == "capital raised ($m)"]
        assert (raised["note"] == "0 deals disclosed an amount").all()
        medians = table[table["figure"].str.startswith("median deal") & blank]
        assert medians["note"].str.fullmatch(r"fewer than \d+ meaningful values").all()


def test_the_summary_says_in_words_why_there_is_no_capital_raised(ma_only: Any) -> None:
    page = html_module.unescape(ma_only.html.read_text())
    summary = re.sub(r"<[^>]+>", " ", page[page.index('id="summary"') : page.index('id="comps"')])
    assert "n/a (n/a)" not in summary
    assert "none of them disclosed an amount raised" in summary


def test_the_public_median_card_names_its_source(ma_only: Any) -> None:
    page = html_module.unescape(ma_only.html.read_text())
    summary = re.sub(r"<[^>]+>", " ", page[page.index('id="summary"') : page.index('id="comps"')])
    month = pd.read_parquet(ma_only.parquet["headline"]).query("period == 'latest month'")
    assert f"monthly series, {month['start'].iloc[0]}" in summary
