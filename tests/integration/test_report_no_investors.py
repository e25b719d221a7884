"""A cohort with no active investor writes ``co_investment_pairs`` with the columns and dtypes
of one with investors: its dates in microseconds, the unit of the client's date columns, not
the nanoseconds of a frame built by hand. A nightly job that appends cohorts' tables gets no
unit clash. Built against the session sandbox over HTTP."""

from __future__ import annotations

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
    return {
        "top_investors": pd.read_parquet(paths.parquet["top_investors"]),
        "empty": pd.read_parquet(paths.parquet["co_investment_pairs"]),
        "full": full,
    }


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
