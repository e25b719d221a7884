"""Report and chart defects of a review of the report's tables and charts, over HTTP.

- The summary sentence of a cohort with no deal said "none of them disclosed an amount
  raised": it now says nothing of amounts.
- The public card's "n/a" gave no reason and named a source of no month ("monthly series,
  n/a"): it gives the headline table's note.
- ``private_vs_public`` drew a box of the values above 0x only (a log axis): a group of 0x
  values read "n/a (too few values)" while its alt text said "median 0.0x", and a group with
  a 0x value labelled a median that was not the one quoted.
- ``partial_buckets`` ignored the frame's ``attrs["time_bucket"]`` and read what it could not
  as "not partial" or with a KeyError, DateParseError or TypeError.
- ``dealframe.plot.quarterly_medians`` on a report's CSV (no attrs) did not read its
  ``partial`` column.
- The right edge: a service's date inside a quarter marks its last quarter partial in every
  table of quarters, the reconciliation's too (its buckets read from their labels).
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

from _drift_proxy import FAST, Proxy, edit
from _report_builds import alt_text_only, session_report

import dealframe
import dealframe.report.pages as pages
import dealframe.sandbox
from dealframe import MissingDataWarning
from dealframe.errors import ValidationError
from dealframe.plot import alt_text, figure, private_vs_public, quarterly_medians
from dealframe.report import build_report
from dealframe.report.tables import partial_buckets

AS_OF = "2026-05-14"  # inside 2026-Q2


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Any]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


def _summary(report: Any) -> str:
    page = html_module.unescape(report.html.read_text())
    part = page[page.index('id="summary"') : page.index('id="comps"')]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", part))


@pytest.fixture(scope="module")
def no_deals(client: Any, tmp_path_factory: Any) -> Any:
    """A cohort with no deal (no public listing in Oceania) and no public median. Its tables
    and the summary's text are read; its charts are drawn (a chart must cope with a cohort
    without deals) for their alt text, without rendering the PNG."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages, "_chart", alt_text_only)
        return build_report(
            client,
            tmp_path_factory.mktemp("none"),
            cohort={"region": "Oceania", "deal_type": ["Public listing"]},
            progress=False,
        )


def test_a_cohort_without_deals_says_nothing_of_amounts(no_deals: Any) -> None:
    headline = pd.read_parquet(no_deals.parquet["headline"])
    deals = headline.query("figure == 'deals' and period == 'ltm'")["value"]
    assert deals.tolist() == [0.0], "the cohort has deals: pick another"
    summary = _summary(no_deals)
    assert "0 deals in the twelve months to" in summary
    assert "disclosed an amount raised" not in summary
    assert "raising" not in summary


def _null_medians(doc: Any) -> Any:
    """Every EV/Revenue NTM of the group's series null (no month has a median)."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key == "evRevenueNtm" and not isinstance(value, (dict, list)):
                doc[key] = None
            else:
                _null_medians(value)
    elif isinstance(doc, list):
        for value in doc:
            _null_medians(value)
    return doc


def test_the_public_card_gives_the_reason_of_its_na(
    sandbox: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the headline and summary are read; the charts are drawn (of medians all null), no PNG
    monkeypatch.setattr(pages, "_chart", alt_text_only)
    with (
        Proxy(sandbox.url) as proxy,
        dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        proxy.add(r"groups/time-series", edit(_null_medians))
        with pytest.warns(MissingDataWarning, match="evRevenueNtm"):
            report = build_report(client, tmp_path, cohort={"region": "Oceania"}, progress=False)
    headline = pd.read_parquet(report.parquet["headline"])
    latest = headline.query("period == 'latest month'").iloc[0]
    assert not np.isfinite(latest["value"])
    summary = _summary(report)
    assert "monthly series, n/a" not in summary
    assert latest["note"] and latest["note"] in summary


def test_a_public_card_with_a_value_names_its_month(sandbox: Any) -> None:
    # the headline and summary are read: one of this process's reports (_report_builds.py)
    report = session_report(sandbox, {"region": "Oceania"}, charts=False).paths
    latest = pd.read_parquet(report.parquet["headline"]).query("period == 'latest month'")
    assert np.isfinite(latest["value"].iloc[0])
    assert f"monthly series, {latest['start'].iloc[0]}" in _summary(report)


# ------------------------------------------------------------------ private_vs_public


@pytest.fixture(scope="module")
def frames(client: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A cohort's listed companies and funding rounds of the last year (one kind of deal)."""
    universe = client.public.search()
    current = client.public.current(list(universe.index[universe["region"] == "North America"]))
    deals = client.private.deals(
        target_region=["North America"], deal_type=["Venture"], date_from="2025-07-01"
    )
    return current, deals


def test_a_group_of_zero_multiples_reads_its_median(
    frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    current, deals = frames
    current = current.assign(evRevenueLtm=0.0)
    deals = deals.assign(ev_revenue=0.0)
    ax = private_vs_public(current, deals, ax=figure()[1])
    texts = [t.get_text() for t in ax.texts]
    assert "n/a (too few values)" not in texts
    assert sum(t.startswith("median 0.0x (") for t in texts) == 2, texts
    alt = alt_text(ax)
    assert "public comps median 0.0x" in alt and "of 0x not drawn on the log scale" in alt


def test_a_box_with_a_zero_value_is_labelled_with_the_quoted_median(
    frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    current, deals = frames
    current = current.assign(evRevenueLtm=np.nan)
    current.iloc[:5, current.columns.get_loc("evRevenueLtm")] = [0.0, 2.0, 3.0, 4.0, 5.0]
    ax = private_vs_public(current, deals, ax=figure()[1])
    alt = alt_text(ax)
    assert "public comps median 3.0x (n=5; 1 value of 0x not drawn on the log scale)" in alt
    # the public comps row is on top: its label is the highest of the median labels
    top = max(ax.texts, key=lambda t: t.xy[1] if hasattr(t, "xy") else -1)
    assert top.get_text() == "3.0x"
    medians = [line for line in ax.lines if line.get_color() == "black"]
    assert any(np.allclose(line.get_xdata(), 3.0) for line in medians)
    assert len(ax.get_yticks()) == 2  # deals of one kind: two rows


# ------------------------------------------------------------------ partial_buckets


@pytest.fixture(scope="module")
def months(client: Any) -> pd.DataFrame:
    return client.private.aggregate(
        "ev_revenue", "month", {"date_from": "2024-02-01", "date_to": "2024-06-30"}
    )


def test_partial_buckets_reads_the_frames_time_bucket(months: pd.DataFrame) -> None:
    assert months.attrs["time_bucket"] == "month"
    labels = months.drop(columns=["period_start", "period_end"])  # the labels' path
    for frame in (months, labels):
        marked = partial_buckets(frame, ("2024-02-01", "2024-06-15"))
        assert marked["bucket"].iloc[0] == "2024-02"
        assert marked["partial"].tolist() == [False] * (len(frame) - 1) + [True]


@pytest.mark.parametrize(
    "change",
    ["week", "no bucket", "bad label", "NaT", "time zone"],
)
def test_partial_buckets_refuses_what_it_cannot_read(months: pd.DataFrame, change: str) -> None:
    frame, time_bucket = months.copy(), None
    if change == "week":
        time_bucket = "week"
    elif change == "no bucket":
        frame = frame.drop(columns=["bucket", "period_start", "period_end"])
    elif change == "bad label":
        frame = frame.drop(columns=["period_start", "period_end"])
        frame.loc[0, "bucket"] = "Feb 2024 (draft)"
    elif change == "NaT":
        frame["period_start"] = pd.to_datetime(frame["period_start"])
        frame.loc[0, "period_start"] = pd.NaT
    else:
        frame["period_start"] = pd.to_datetime(frame["period_start"]).dt.tz_localize("UTC")
        frame["period_end"] = pd.to_datetime(frame["period_end"]).dt.tz_localize("UTC")
    with pytest.raises(ValidationError):
        partial_buckets(frame, ("2024-02-01", "2024-06-30"), time_bucket)


# ------------------------------------------------------------------ the right edge


@pytest.fixture(scope="module")
def mid_quarter(tmp_path_factory: Any) -> Iterator[Any]:
    """A report of a service whose date is inside a quarter (its last quarter partial). Its
    tables, CSV files and appendix are read; its charts are drawn (a partial last quarter)
    for their alt text, without rendering the PNG."""
    with (
        dealframe.sandbox.run(scale=0.05, as_of=AS_OF) as served,
        dealframe.Client.for_sandbox(served, progress=False) as c,
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setattr(pages, "_chart", alt_text_only)
        yield build_report(c, tmp_path_factory.mktemp("asof"), progress=False)


@pytest.mark.parametrize(
    "name", ["quarterly_medians", "deal_aggregate", "reconciliation", "quarterly"]
)
def test_the_last_quarter_inside_the_services_date_is_partial(mid_quarter: Any, name: str) -> None:
    for table in (
        pd.read_parquet(mid_quarter.parquet[name]).reset_index(),
        pd.read_csv(mid_quarter.csv[name]),
    ):
        labels = table["bucket"] if "bucket" in table else table["quarter"]
        assert labels.iloc[-1] == "2026-Q2"
        assert table["partial"].tolist()[-2:] == [False, True]


def test_the_appendix_marks_the_last_quarter_partial(mid_quarter: Any) -> None:
    page = html_module.unescape(mid_quarter.html.read_text())
    assert "2026-Q2 (partial)" in page[page.index('id="appendix"') :]


@pytest.mark.parametrize("name", ["quarterly_medians", "deal_aggregate"])
def test_the_chart_of_a_report_csv_reads_its_partial_column(mid_quarter: Any, name: str) -> None:
    table = pd.read_csv(mid_quarter.csv[name])  # no attrs: no window to read
    assert table.attrs == {}
    alt = alt_text(quarterly_medians(table, ax=figure()[1]))
    assert "Partial quarters: 2026-Q2." in alt
