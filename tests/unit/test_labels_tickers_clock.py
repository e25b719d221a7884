"""Arguments taken again that the argument checks had started to refuse (pure, no service):

- a column labelled with no string (``9``, a ``MultiIndex`` tuple), as pandas allows: the date
  column of ``measure_side`` (it worked before) and the columns of the comps charts (they
  failed with a ``TypeError`` while writing their labels);
- a numeric ticker (``7203`` on TSE, ``np.int64`` from a CSV, ``7203.0`` from a column with
  gaps) in ``listing_key``;
- a numpy number as a sandbox clock move (``Changes.advance(np.int64(2))``);
- ``FaultPlan(paths=[])``, which once faulted every path: refused, saying what to give.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import dealframe.plot as pl
from dealframe.comparison import measure_side
from dealframe.errors import ValidationError
from dealframe.link import listing_key
from dealframe.sandbox import ChangeInputError, Changes, FaultPlan, SandboxArgumentError
from dealframe.sandbox.models import SandboxConfig, SandboxState

DEALS = pd.DataFrame(
    {
        "deal_date": pd.to_datetime(["2024-03-01"] * 6 + ["2019-03-01"]),
        "ev_revenue": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    }
)
CURRENT = pd.DataFrame(
    {
        "name": ["X", "Y", "Z"],
        "enterpriseValue": [9.0, 5.0, 1.0],
        "evRevenueNtm": [1.0, 2.0, 80.0],
        "revenueGrowthNtmLtm": [5.0, 9.0, 7.0],
    },
    index=pd.Index(["X-USA", "Y-USA", "Z-USA"], name="sku"),
)
HISTORY = pd.DataFrame(
    {"evRevenueNtm": [2.0, 2.5]}, index=pd.period_range("2025-01", periods=2, freq="M")
)


# ---------------------------------------------------------------------------- column labels


@pytest.mark.parametrize("label", [9, 9.5, ("on", "date"), pd.Timestamp("2020-01-01")])
def test_measure_side_reads_a_date_column_of_any_label(label: Any) -> None:
    frame = DEALS.copy()
    frame.columns = pd.Index([label, "ev_revenue"], tupleize_cols=False)
    side = measure_side(frame, "ev_revenue", "2024-01-01", "2024-12-31", date_column=label)
    named = measure_side(DEALS, "ev_revenue", "2024-01-01", "2024-12-31")
    assert (side.n, side.median) == (named.n, named.median) == (6, 3.5)


@pytest.mark.parametrize("wrong", [8, [9], {"a": 1}, ("on", ["date"])])
def test_measure_side_refuses_a_date_column_the_frame_lacks_or_no_label(wrong: Any) -> None:
    frame = DEALS.rename(columns={"deal_date": 9})
    with pytest.raises(ValidationError) as caught:
        measure_side(frame, "ev_revenue", "2024-01-01", "2024-12-31", date_column=wrong)
    assert caught.value.argument == "date_column"
    assert "a column of the frame or None (its columns: 9, ev_revenue)" in str(caught.value)


def _int_labelled(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns={"evRevenueNtm": 0, "revenueGrowthNtmLtm": 1})


def _tuple_labelled(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out.columns = pd.MultiIndex.from_tuples([("m", str(c)) for c in frame.columns])
    return out


def test_comps_multiples_draws_a_column_of_any_label() -> None:
    named = pl.comps_multiples(CURRENT, "evRevenueNtm", ax=pl.figure()[1])
    texts = [t.get_text() for t in named.texts]
    # the default NM bound is the named field's (50x); under another label, give it
    by_int = pl.comps_multiples(_int_labelled(CURRENT), 0, bound=50, ax=pl.figure()[1])
    assert [t.get_text() for t in by_int.texts] == texts == ["1.0x", "2.0x", "NM"]
    assert by_int.get_title(loc="left").startswith("0, 3 largest")
    assert "0 for the 3 largest" in pl.alt_text(by_int)
    by_tuple = pl.comps_multiples(
        _tuple_labelled(CURRENT), ("m", "evRevenueNtm"), ax=pl.figure()[1]
    )
    assert by_tuple.get_title(loc="left").startswith("('m', 'evRevenueNtm'), ")


def test_comps_multiples_of_a_field_without_a_bound_writes_its_alt_text() -> None:
    """A named column with no default NM bound (growth) failed formatting the bound (None)."""
    ax = pl.comps_multiples(CURRENT, "revenueGrowthNtmLtm", ax=pl.figure()[1])
    assert "NM (negative denominator)" in pl.alt_text(ax)


def test_growth_vs_multiple_and_group_history_draw_columns_of_any_label() -> None:
    ax = pl.growth_vs_multiple(_int_labelled(CURRENT), x=1, y=0, ax=pl.figure()[1])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("1", "0, log scale")
    history = HISTORY.rename(columns={"evRevenueNtm": 7})
    ax = pl.group_history(history, column=7, ax=pl.figure()[1])
    assert ax.get_title(loc="left") == "Median 7 of the group by month, 2025-01 to 2025-02"
    assert ax.get_ylabel() == "median 7"


def test_a_chart_label_the_frame_lacks_or_no_label_is_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        pl.comps_multiples(_int_labelled(CURRENT), 5)
    assert caught.value.argument == "current" and "column(s) 5" in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        pl.group_history(HISTORY, column=["evRevenueNtm"])
    assert caught.value.argument == "column"


# ---------------------------------------------------------------------------- tickers


@pytest.mark.parametrize(
    "ticker", [7203, np.int64(7203), np.uint16(7203), 7203.0, np.float64(7203)]
)
def test_a_numeric_ticker_is_its_digits(ticker: Any) -> None:
    assert listing_key(ticker, "TSE") == listing_key("7203", "TSE") == ("7203", "TSE")


def test_a_ticker_column_read_from_a_csv_gives_keys() -> None:
    frame = pd.DataFrame({"ticker": [7203, 6758], "exchange": ["TSE", "XTKS"]})
    keys = [listing_key(t, e) for t, e in zip(frame["ticker"], frame["exchange"])]
    assert keys == [("7203", "TSE"), ("6758", "TSE")]


@pytest.mark.parametrize("wrong", [72.5, True, np.bool_(True), -5, float("inf")])
def test_a_number_that_is_no_ticker_is_refused(wrong: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        listing_key(wrong, "TSE")
    assert caught.value.argument == "ticker"
    assert "a whole number of 0 or more such as 7203" in str(caught.value)


# ---------------------------------------------------------------------------- sandbox


@pytest.fixture(scope="module")
def changes() -> Changes:
    return Changes(SandboxState.build(SandboxConfig(scale=0.02)), seed=1)


@pytest.mark.parametrize("seconds", [np.int64(2), np.int32(2), np.uint8(2), np.float32(2.0)])
def test_a_numpy_number_moves_the_clock(changes: Changes, seconds: Any) -> None:
    before = changes.now()
    assert (changes.advance(seconds) - before).total_seconds() == 2
    changes.random_round(1, advance_seconds=seconds)
    assert (changes.now() - before).total_seconds() == 4


@pytest.mark.parametrize(
    ("wrong", "shown"),
    [(True, "true"), (None, "null"), (np.bool_(True), "np.True_"), ("2", "'2'")],
)
def test_a_clock_move_that_is_no_number_is_refused_in_the_sandboxs_words(
    changes: Changes, wrong: Any, shown: str
) -> None:
    with pytest.raises(ChangeInputError) as caught:
        changes.advance(wrong)
    assert str(caught.value) == f"seconds: must be a number >= 0, got {shown}"


def test_an_empty_paths_list_is_refused_saying_what_to_give() -> None:
    for paths in ([], ["/a", "/b"]):
        with pytest.raises(SandboxArgumentError) as caught:
            FaultPlan(rate=1.0, paths=paths)  # type: ignore[arg-type]
        assert caught.value.argument == "paths"
        assert "one str, not a list" in str(caught.value)
        assert "every path: None" in str(caught.value)
    assert FaultPlan(rate=1.0, kinds="503", paths=None).draw("/x") == "503"
    assert FaultPlan(rate=1.0, kinds="503", paths="/a$|/b$").draw("/x") is None
