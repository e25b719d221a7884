"""A cohort with no active investor writes ``co_investment_pairs`` with the columns and dtypes
of one with investors: its dates in microseconds, the unit of the client's date columns, not
the nanoseconds of a frame built by hand. A nightly job that appends cohorts' tables gets no
unit clash. Built against the session sandbox over HTTP.

The same report (``since`` the service's last day: a window of one day and no deal) shows
the notable deals of the twelve months its summary counts, not an empty table titled "last
12 months", and says in words why its investor tables are empty instead of printing their
headers only."""

from __future__ import annotations

import json
import re
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import dealframe
from dealframe.plot.shaping import co_investment_pairs, investor_activity, participant_rows
from dealframe.report import build_report

REGION = "Oceania"


def _schema(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return [(str(c), str(t)) for c, t in frame.dtypes.items()]


@pytest.fixture(scope="module")
def tables(sandbox: Any, tmp_path_factory: Any) -> dict[str, pd.DataFrame]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        latest = client.private.aggregate("ev_revenue", "none").attrs["date_range"]["to"]
        # the service's last day only: no deal, so no investor is active
        paths = build_report(
            client, tmp_path_factory.mktemp("empty"), cohort={"region": REGION, "since": latest}
        )
        deals = client.private.deals(target_region=[REGION])
        ids = investor_activity(participant_rows(deals), 3)["participant_id"].tolist()
        full = co_investment_pairs(client.private.co_investors(ids))
        ltm = json.loads(paths.manifest.read_text())["periods"]["last_12_months"]
        last_12_months = client.private.deals(
            target_region=[REGION], date_from=ltm[0], date_to=ltm[1]
        )
    return {
        "top_investors": pd.read_parquet(paths.parquet["top_investors"]),
        "empty": pd.read_parquet(paths.parquet["co_investment_pairs"]),
        "full": full,
        "notable_deals": pd.read_parquet(paths.parquet["notable_deals"]),
        "last_12_months": last_12_months,
        "page": paths.html.read_text(encoding="utf-8"),
        "window": (latest, latest),
        "ltm": ltm,
    }


def _section(page: str, name: str) -> str:
    found = re.search(rf'<section id="{name}"[^>]*>(.*?)</section>', page, flags=re.DOTALL)
    assert found, name
    return found.group(1)


def test_notable_deals_are_those_of_the_summarys_twelve_months(tables):
    """The summary counts the deals of the last twelve months whatever ``since`` says; the
    notable deals "of the last 12 months" are the largest of those same deals (they were
    taken from the one-day window, and the table was empty)."""
    ltm, notable = tables["last_12_months"], tables["notable_deals"]
    assert len(ltm) > 0, "the cohort has deals in the last twelve months"
    assert len(notable) == min(10, len(ltm))
    assert set(notable["id"]) <= set(ltm["id"])
    size = pd.to_numeric(ltm["deal_valuation"]).fillna(pd.to_numeric(ltm["deal_raised"]))
    assert notable["valuation"].fillna(notable["raised"]).min() == pytest.approx(
        size.nlargest(len(notable)).min()
    )
    deals = _section(tables["page"], "deals")
    start, end = tables["ltm"]
    assert f"Notable deals of the last 12 months ({start} to {end})" in deals
    assert "twelve months, which begin before the window" in deals
    summary = _section(tables["page"], "summary")
    assert f"{len(ltm):,} deal" in summary  # the count the notable deals are taken from


def test_empty_investor_tables_say_why_in_words(tables):
    assert len(tables["top_investors"]) == 0 and len(tables["empty"]) == 0
    investors = _section(tables["page"], "investors")
    start, end = tables["window"]
    assert "<table" not in investors  # no table of headers only
    assert (
        f'<p class="empty">No deal of the cohort in the window ({start} to {end}): '
        "no investor to rank.</p>" in investors
    )
    assert '<p class="empty">No investor ranked in the window: no co-investor list' in investors
    assert f"Most active investors in the window, {start} to {end}" in investors


def test_a_cohort_without_investors_keeps_the_pairs_dtypes(tables):
    assert len(tables["top_investors"]) == 0  # the case: nobody led or bought a deal
    assert len(tables["empty"]) == 0 and len(tables["full"]) > 0
    assert _schema(tables["empty"]) == _schema(tables["full"])
    assert str(tables["empty"]["first_date"].dtype) == "datetime64[us]"
    assert str(tables["empty"]["last_date"].dtype) == "datetime64[us]"


def test_pairs_of_a_frame_without_dates_keep_the_unit():
    """``co_investment_pairs`` of co-investor rows that lack the date columns (a frame made
    by hand): the dates are NaT in microseconds, not a frame of another unit."""
    rows = pd.DataFrame({"investor_id": ["a"], "id": ["b"], "shared_deals": [2]})
    pairs = co_investment_pairs(rows)
    assert str(pairs["first_date"].dtype) == "datetime64[us]" and pairs["first_date"].isna().all()
    assert str(co_investment_pairs(rows.iloc[:0])["last_date"].dtype) == "datetime64[us]"
