"""The pure rules behind the charts and the report: NM, windows and partial quarters,
quarterly activity, participants in one vocabulary, co-investment pairs from both sides."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dealframe.errors import ValidationError
from dealframe.frames.private import deals_frame
from dealframe.plot.shaping import (
    co_investment_pairs,
    deal_window,
    investor_activity,
    multiple_status,
    participant_names,
    participant_rows,
    quarterly_activity,
    trimmed_multiples,
)


def test_nm_rule_each_branch():
    frame = pd.DataFrame(
        {
            "evRevenueLtm": [3.0, 3.0, -1.0, 60.0, np.nan, np.nan, 3.0],
            "revenueLtm": [10.0, 0.0, 10.0, 10.0, 10.0, -5.0, np.nan],
            "enterpriseValue": [30.0, 30.0, 30.0, 30.0, 30.0, 30.0, -2.0],
        }
    )
    assert multiple_status(frame, "evRevenueLtm").tolist() == [
        "ok",
        "NM",
        "NM",
        "NM",
        "n/a",
        "NM",
        "NM",
    ]
    assert multiple_status(frame, "evRevenueLtm", bound=100).tolist()[3] == "ok"


def test_nm_rule_refuses_what_it_cannot_judge():
    with pytest.raises(ValidationError, match="column"):
        multiple_status(pd.DataFrame({"a": [1.0]}), "evRevenueLtm")
    with pytest.raises(ValidationError, match="frame"):
        multiple_status([1.0], "evRevenueLtm")


def test_window_from_argument_then_pull_filters_then_whole_quarters():
    deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-02-03", "2024-05-01"])})
    assert deal_window(deals) == (pd.Timestamp("2024-01-01"), pd.Timestamp("2024-06-30"))
    deals.attrs["filters"] = {"date_from": "2024-01-15", "date_to": "2024-05-31"}
    assert deal_window(deals) == (pd.Timestamp("2024-01-15"), pd.Timestamp("2024-05-31"))
    assert deal_window(deals, ("2024-02-01", None))[0] == pd.Timestamp("2024-02-01")
    with pytest.raises(ValidationError, match="window"):
        deal_window(deals, "2024")


def test_quarterly_activity_counts_every_quarter_and_flags_partial_edges():
    deals = pd.DataFrame(
        {
            "deal_date": pd.to_datetime(["2024-03-31", "2024-05-01", "2024-05-02", "2024-08-20"]),
            "deal_type": ["Venture", "M&A", "Debt", "Venture"],
            "deal_raised": [5.0, np.nan, 2.5, np.nan],
        }
    )
    table = quarterly_activity(deals, ("2024-03-31", "2024-08-31"))
    assert table.index.tolist() == ["2024-Q1", "2024-Q2", "2024-Q3"]
    assert table["total"].tolist() == [1, 2, 1]
    assert table["Debt"].tolist() == [0, 1, 0]  # a type the vocabulary lacks gets a column
    assert table["raised"].tolist()[:2] == [5.0, 2.5] and np.isnan(table["raised"].iloc[2])
    assert table["raised_n"].tolist() == [1, 1, 0]
    assert table["partial"].tolist() == [True, False, True]
    assert table["days"].tolist() == [1, 91, 62]


def test_deals_outside_the_window_are_not_counted():
    deals = pd.DataFrame(
        {
            "deal_date": pd.to_datetime(["2023-12-31", "2024-01-02"]),
            "deal_type": ["Venture", "Venture"],
        }
    )
    assert quarterly_activity(deals, ("2024-01-01", "2024-03-31"))["total"].tolist() == [1]


@pytest.mark.parametrize(
    "dates",
    [
        pytest.param([20240105, 20240502], id="yyyymmdd-numbers"),
        pytest.param(["05/01/2024", "01/05/2024"], id="day-or-month-first"),
        pytest.param(["2024-01-05", "Jan 2024"], id="words"),
        pytest.param(["2024-01-05", "2024-02-30"], id="no-such-day"),
    ],
)
def test_deal_dates_are_read_as_the_analytics_read_them(dates):
    """deals_per_quarter and capital_raised (quarterly_activity): 20240105 is no date (it
    was drawn in 1970-Q1), 05/01/2024 not read month first, bad text named, never a raw
    pandas error."""
    deals = pd.DataFrame({"deal_date": dates, "deal_type": ["Venture"] * len(dates)})
    with pytest.raises(ValidationError, match="invalid deal_date: expected dates"):
        quarterly_activity(deals, ("2024-01-01", "2024-06-30"))
    with pytest.raises(ValidationError, match="invalid deal_date"):
        deal_window(deals)


def test_deal_dates_of_text_and_objects_are_counted():
    deals = pd.DataFrame(
        {
            "deal_date": [" 2024-01-05", pd.Timestamp("2024-05-01"), "2024-05-02 00:00:00+00"],
            "deal_type": ["Venture", "M&A", "Venture"],
        }
    )
    table = quarterly_activity(deals)
    assert table["total"].tolist() == [1, 2]
    assert table.attrs["window"] == ("2024-01-01", "2024-06-30")


@pytest.mark.parametrize(
    ("window", "named"),
    [
        pytest.param(("2024-01", "2024-06-30"), r"window\[0\]", id="month"),
        pytest.param(("2024-01-01", "12/01/2024"), r"window\[1\]", id="slashes"),
        pytest.param(("2024-01-01", 20241231), r"window\[1\]", id="number"),
        pytest.param(("2024-01-01", "2024-02-30"), r"window\[1\]", id="no-such-day"),
    ],
)
def test_window_bounds_are_read_as_the_analytics_read_them(window, named):
    deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-02-03"]), "deal_type": ["M&A"]})
    with pytest.raises(ValidationError, match=f"invalid {named}: expected a date YYYY-MM-DD"):
        quarterly_activity(deals, window)


def test_window_bounds_as_objects_are_their_days():
    deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-02-03"])})
    window = (np.datetime64("2024-01-15T10:00"), pd.Timestamp("2024-05-31 23:00", tz="UTC"))
    assert deal_window(deals, window) == (pd.Timestamp("2024-01-15"), pd.Timestamp("2024-05-31"))
    assert deal_window(deals, (pd.NaT, None)) == (
        pd.Timestamp("2024-01-01"),
        pd.Timestamp("2024-03-31"),
    )


def test_trimmed_multiples_follow_the_services_small_n_rule():
    few = pd.DataFrame(
        {"deal_date": pd.to_datetime(["2024-01-02"] * 4), "ev_revenue": [1.0, 2.0, 3.0, 4.0]}
    )
    kept = trimmed_multiples(few, "ev_revenue", ("2024-01-01", "2024-12-31"))
    assert kept.empty and kept.attrs["n"] == 4


def test_participants_in_one_role_vocabulary():
    deals = deals_frame(
        [
            {
                "id": "d1",
                "deal_type": "M&A",
                "deal_date": "2024-01-02",
                "buyers": [{"id": "b", "name": "B"}],
            },
            {
                "id": "d2",
                "deal_type": "Venture",
                "deal_date": "2024-02-02",
                "lead_investors": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}],
            },
        ]
    )
    rows = participant_rows(deals)
    assert set(rows["role"]) == {"buyer", "lead_investor"}
    assert participant_names(rows).to_dict() == {"d1": "B", "d2": "A, B"}
    top = investor_activity(rows)
    assert top[["participant_id", "led", "bought", "deals"]].values.tolist() == [
        ["b", 1, 1, 2],
        ["a", 1, 0, 1],
    ]


def test_co_investment_pairs_list_a_pair_once_with_names_from_either_side():
    co = pd.DataFrame(
        {
            "investor_id": ["a", "a", "b"],
            "id": ["b", "c", "a"],
            "name": ["B", "C", "A"],
            "shared_deals": [4, 2, 4],
            "first_shared_date": pd.to_datetime(["2020-01-01"] * 3),
            "last_shared_date": pd.to_datetime(["2024-01-01"] * 3),
        }
    )
    pairs = co_investment_pairs(co, top=None)
    assert pairs[
        ["investor_a", "investor_b", "name_a", "name_b", "shared_deals"]
    ].values.tolist() == [["a", "b", "A", "B", 4], ["a", "c", "A", "C", 2]]
    with pytest.raises(ValidationError, match="co_investors"):
        co_investment_pairs(pd.DataFrame({"x": [1]}))
